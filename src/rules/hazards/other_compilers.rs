//! Code other compilers build: branches on nvcc's identity around no CUDA code (the arm gcc
//! and clang take is HIP-Clang's too), and SYCL sources (another backend of the project). The
//! findings there are settled PASS, saying why.

use super::*;

/// A source of another backend of the project, with no CUDA kernel syntax: SYCL code
/// (`#include <sycl/sycl.hpp>`, `sycl::` code), which reaches AMD GPUs through its own SYCL
/// toolchain (lc0's SYCL backend beside its CUDA one), or a file in a folder named for another
/// backend (arrayfire's `src/backend/opencl/`, `src/backend/oneapi/`: their block shapes are
/// OpenCL work-groups). Their sub-groups and work-groups are not the CUDA code's warps and
/// nothing in them is ported to HIP: warp-size findings there are PASS saying so.
pub(super) fn pass_other_backends(s: &Src, out: &mut [Finding]) {
    if !out
        .iter()
        .any(|f| f.category == crate::finding::Category::WarpSize)
    {
        return;
    }
    let sycl = s.idents().filter(|(_, t)| *t == "sycl").take(3).count() >= 3
        || s.lexed.directives.iter().any(|d| {
            d.name == "include" && {
                let t = s.directive_range(d);
                let text = String::from_utf8_lossy(&s.bytes()[t]);
                text.contains("sycl/sycl.hpp") || text.contains("CL/sycl.hpp")
            }
        });
    let cuda = s.idents().any(|(_, t)| {
        matches!(
            t,
            "__global__" | "__device__" | "threadIdx" | "blockIdx" | "__shfl_sync" | "__syncwarp"
        )
    }) || {
        // A kernel launch in code (dpct-migrated SYCL keeps the CUDA launch in comments).
        let code: Vec<&[u8]> = s
            .lexed
            .code_tokens()
            .map(|(_, t)| t.text(s.bytes()))
            .collect();
        code.windows(2)
            .any(|w| w[0].starts_with(b"<<<") || (w[0] == b"<<" && w[1].starts_with(b"<")))
    };
    if cuda || s.ctx.path.ends_with(".cu") || s.ctx.path.ends_with(".cuh") {
        return;
    }
    let why = if sycl {
        " (SYCL code: another backend of the project, built for AMD by its SYCL toolchain; its sub-groups are not ported to HIP)".to_string()
    } else if let Some(dir) = crate::model::folders::other_backend_of(s.ctx.path) {
        format!(" (`{dir}/` is another backend of the project and this file has no CUDA code: its groups are not CUDA warps and nothing here is ported to HIP)")
    } else {
        return;
    };
    for f in out
        .iter_mut()
        .filter(|f| f.category == crate::finding::Category::WarpSize && f.status != Status::Pass)
    {
        f.settle(&why);
    }
}

/// The directive at byte `at` (its index) and the CUDA-side macros its condition tests (those
/// the macro table decides; HIP's own and the project's ROCm switches are not), sorted, once each.
pub(super) fn condition_at<'a>(s: &Src<'a>, at: usize) -> Option<(usize, Vec<&'a str>)> {
    let dirs = &s.lexed.directives;
    let k = dirs.partition_point(|d| d.end < at);
    let d = dirs.get(k).filter(|d| d.start <= at)?;
    let hip = crate::model::macro_env::MacroEnv::hip();
    let mut cuda_side: Vec<&str> = crate::model::cond::condition_tokens(s, d)
        .into_iter()
        .filter(|t| !crate::model::cond::is_hip_macro(t) && hip.lookup(t).is_some())
        .collect();
    cuda_side.sort_unstable();
    cuda_side.dedup();
    Some((k, cuda_side))
}

/// nvcc's identity as a compiler, not CUDA's: a branch on these works around nvcc (a missing
/// return it warns about, its diagnostic pragmas, an attribute it rejects).
const NVCC_IDENTITY: [&str; 9] = [
    "__NVCC__",
    "__NVCOMPILER",
    "__NVCOMPILER_CUDA__",
    "_NVHPC_CUDA",
    "__NVCC_DIAG_PRAGMA_SUPPORT__",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
    "__CUDACC_VER_BUILD__",
    "__NVCC_DIAG_PRAGMA_SUPPORT",
];

/// Whether a token says CUDA code: an execution-space or memory-space keyword, a kernel launch,
/// a thread index, or a CUDA API name.
fn cuda_code_token(t: &str) -> bool {
    matches!(
        t,
        "__device__"
            | "__global__"
            | "__host__"
            | "__shared__"
            | "__constant__"
            | "__managed__"
            | "<<<"
            | "threadIdx"
            | "blockIdx"
            | "blockDim"
            | "__syncthreads"
            | "__CUDA_ARCH__"
            | "__CUDACC__"
    ) || t.starts_with("cuda")
        || t.starts_with("CUDA")
        || t.starts_with("cu") && t[2..].starts_with(|c: char| c.is_ascii_uppercase())
        || t.starts_with("CU_")
}

/// A condition that tests only nvcc's identity as a compiler (`__NVCC__`, `__NVCOMPILER`,
/// `__CUDACC_VER_MAJOR__`) around arms that hold no CUDA code (a `return 0;` nvcc wants, its
/// `#pragma nv_diag_suppress`, an attribute it rejects), in a file gcc and clang compile too (not
/// a `.cu`/`.cuh`): HIP-Clang takes the arm gcc and clang take, which the project keeps working
/// for them. HP301/HP304 there are PASS.
pub(super) fn pass_compiler_workarounds(s: &Src, out: &mut [Finding]) {
    let codes = [
        version_check::CUDA_VERSION_MACRO.code(),
        compiled_out::COMPILED_OUT_UNDER_HIP.code(),
    ];
    // In a CUDA source only nvcc compiles the file: the other arm was never built by anyone.
    let ext = s.ctx.path.rsplit_once('.').map_or("", |(_, e)| e);
    if matches!(ext.to_ascii_lowercase().as_str(), "cu" | "cuh") {
        return;
    }
    let dirs = &s.lexed.directives;
    for f in out.iter_mut() {
        if f.status == Status::Pass || !codes.contains(&f.rule.as_str()) {
            continue;
        }
        let Some((k, cuda_side)) = condition_at(s, f.byte_range.0) else {
            continue;
        };
        // `__CUDACC__` is defined by both compilers: it tells them apart from gcc, not from
        // each other, so only the macros whose states differ decide.
        let cuda_side: Vec<&str> = cuda_side
            .into_iter()
            .filter(|t| MacroEnv::hip().lookup(t) != MacroEnv::cuda().lookup(t))
            .collect();
        if cuda_side.is_empty() || !cuda_side.iter().all(|t| NVCC_IDENTITY.contains(t)) {
            continue;
        }
        // The chain from its head to its `#endif`: no CUDA code in any arm.
        let opens = |j: usize| matches!(dirs[j].name.as_str(), "if" | "ifdef" | "ifndef");
        let mut head = k;
        if !opens(k) {
            let mut depth = 0usize;
            let mut found = None;
            for j in (0..k).rev() {
                if dirs[j].name == "endif" {
                    depth += 1;
                } else if opens(j) {
                    if depth == 0 {
                        found = Some(j);
                        break;
                    }
                    depth -= 1;
                }
            }
            let Some(j) = found else { continue };
            head = j;
        }
        let mut end = None;
        let mut depth = 0i32;
        for (j, d) in dirs.iter().enumerate().skip(head) {
            match d.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        let span = dirs[head].end..dirs[end].start;
        let toks = &s.lexed.tokens;
        let first = toks.partition_point(|t| (t.start as usize) < span.start);
        let cuda = (first..toks.len())
            .take_while(|&i| (toks[i].end as usize) <= span.end)
            .any(|i| match toks[i].kind {
                crate::lex::Tok::Ident | crate::lex::Tok::Punct => {
                    let t = s.tok(i);
                    cuda_code_token(t) || crate::mappings::get().knows(t)
                }
                // `#include <cuda_fp16.h>` only nvcc takes: HIP-Clang's arm lacks CUDA's types.
                crate::lex::Tok::HeaderName | crate::lex::Tok::Str => {
                    let t = s.tok(i).trim_matches(['<', '>', '"']);
                    crate::mappings::get().is_cuda_header(t)
                }
                _ => false,
            });
        if cuda {
            continue;
        }
        f.status = Status::Pass;
        f.message = format!(
            "`#{}` tests nvcc's identity as a compiler (`{}`), and no arm of the chain holds CUDA code: HIP-Clang takes the arm gcc and clang take, which the project keeps working for them (nothing to port)",
            dirs[k].name,
            cuda_side.join("`, `")
        );
        f.suggestion = None;
    }
}
