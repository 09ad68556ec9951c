//! library (HP6xx): CUDA libraries whose AMD counterpart exists but is not a rename, or does not
//! exist: cuDNN → MIOpen (different call sequences), cuBLASLt → hipBLASLt, CUTLASS/CuTe (no
//! port), cuTENSOR → hipTensor, WMMA → rocWMMA, Thrust's CUDA execution policies, NVML → AMD
//! SMI, cuFile. Flagged: the include (unless the translator already reports it) and the calls
//! whose use differs.

use super::RuleInfo;
use crate::finding::Finding;
use crate::lex::Tok;
use crate::mappings::Target;
use crate::model::syntax::Src;
use std::collections::HashSet;

rule!(CUDNN_TO_MIOPEN, "HP601", Library, Remediation, Build,
    summary: "cuDNN code: MIOpen is the AMD counterpart, with different call sequences.",
    why: "MIOpen has no algorithm heuristics like `cudnnGetConvolutionForwardAlgorithm_v7`: it requires `miopenFindConvolution*Algorithm` (benchmarking) and its own workspace queries before each convolution, and argument orders differ. A name-by-name rename does not compile or picks no algorithm.",
    bad: "cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, conv, y, 1, &n, &perf);\ncudnnConvolutionForward(h, &a, x, dx, w, dw, conv, perf.algo, ws, wsz, &b, y, dy);",
    good: "miopenConvolutionForwardGetWorkSpaceSize(h, w, x, conv, y, &wsz);\nmiopenFindConvolutionForwardAlgorithm(h, x, dx, w, dw, conv, y, dy, 1, &n, &perf, ws, wsz, false);\nmiopenConvolutionForward(h, &a, x, dx, w, dw, conv, perf.fwd_algo, &b, y, dy, ws, wsz);",
    fix: "Port the convolution setup to MIOpen's find/workspace sequence; keep descriptors and tensors (they map closely).",
    refs: ["https://rocm.docs.amd.com/projects/MIOpen/en/latest/", "https://rocm.docs.amd.com/projects/MIOpen/en/latest/how-to/find-and-immediate.html"],
);

rule!(CUBLASLT, "HP602", Library, Remediation, Build,
    summary: "cuBLASLt matmul code: hipBLASLt is similar but not identical.",
    why: "hipBLASLt supports a subset of cuBLASLt's types, epilogues, scale modes and layouts, and algorithm enumeration works differently; attributes set on descriptors may be rejected at run time.",
    bad: "cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));",
    good: "hipblasLtMatmulDescSetAttribute(desc, HIPBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));  // check the epilogue is supported",
    fix: "Translate to hipBLASLt, then check each attribute, data type and epilogue against the hipBLASLt support matrix; fall back to hipBLAS where needed.",
    refs: ["https://rocm.docs.amd.com/projects/hipBLASLt/en/latest/"],
);

rule!(CUTLASS_CUTE, "HP603", Library, Remediation, Build,
    summary: "CUTLASS or CuTe templates: no HIP port.",
    why: "CUTLASS/CuTe are built on NVIDIA tensor-core instructions and memory layouts; AMD's counterparts (Composable Kernel, rocWMMA, hipBLASLt) have different APIs.",
    bad: "using Gemm = cutlass::gemm::device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float>;",
    good: "// hipBLASLt / rocBLAS for plain GEMMs, Composable Kernel for fused kernels",
    fix: "Replace CUTLASS GEMMs with hipBLASLt/rocBLAS calls, or re-implement fused kernels with Composable Kernel.",
    refs: ["https://rocm.docs.amd.com/projects/composable_kernel/en/latest/"],
);

rule!(CUTENSOR, "HP604", Library, Remediation, Build,
    summary: "cuTENSOR code: hipTensor covers a subset.",
    why: "hipTensor implements contraction, permutation and reduction subsets with a partly different API; other cuTENSOR operations have no counterpart.",
    bad: "cutensorContract(handle, plan, &alpha, A, B, &beta, C, D, work, wsz, stream);",
    good: "hiptensorContraction(handle, &plan, &alpha, A, B, &beta, C, D, work, wsz, stream);",
    fix: "Port to hipTensor after checking each operation and data type is supported.",
    refs: ["https://rocm.docs.amd.com/projects/hipTensor/en/latest/"],
);

rule!(WMMA_TO_ROCWMMA, "HP605", Library, Remediation, Build,
    summary: "WMMA tensor-core fragments (`nvcuda::wmma`): rocWMMA is the AMD counterpart.",
    why: "`<mma.h>` does not exist under HIP. rocWMMA offers the same fragment/load/mma/store shape, but supported fragment sizes and types differ (wave64 on CDNA), and `mma.sync` PTX has no direct equivalent.",
    bad: "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;",
    good: "rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, rocwmma::float16_t, rocwmma::row_major> a;",
    fix: "Port to rocWMMA (`rocwmma/rocwmma.hpp`), checking the fragment sizes against the target GPU.",
    refs: ["https://rocm.docs.amd.com/projects/rocWMMA/en/latest/"],
);

rule!(THRUST_CUDA_POLICY, "HP606", Library, Remediation, Build,
    summary: "A Thrust CUDA execution policy or system (`thrust::cuda::par`, `thrust::cuda::par_nosync`, `thrust::system::cuda`).",
    why: "rocThrust names the system `thrust::hip`; `hipport port` renames the namespace, but some CUDA-system extras (`par_nosync`, CUDA memory resources, `cuda_cub` internals) are missing or behave differently.",
    bad: "thrust::sort(thrust::cuda::par.on(stream), v.begin(), v.end());",
    good: "thrust::sort(thrust::hip::par.on(stream), v.begin(), v.end());",
    fix: "Use `thrust::hip::par` (or `thrust::device`) and check that each CUDA-system extra exists in rocThrust.",
    refs: ["https://rocm.docs.amd.com/projects/rocThrust/en/latest/"],
);

rule!(NVML, "HP607", Library, Remediation, Build,
    summary: "NVML management calls: AMD SMI (or ROCm SMI) is the counterpart, with a different API.",
    why: "NVML has no HIP translation; device handles, metrics and units differ in AMD SMI.",
    bad: "nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t);",
    good: "amdsmi_get_temp_metric(proc, AMDSMI_TEMPERATURE_TYPE_EDGE, AMDSMI_TEMP_CURRENT, &t);",
    fix: "Rewrite the monitoring code against AMD SMI (`amd_smi/amdsmi.h`, link -lamd_smi).",
    refs: ["https://rocm.docs.amd.com/projects/amdsmi/en/latest/"],
);

rule!(CUFILE, "HP608", Library, Unknown, Build,
    summary: "GPUDirect Storage (cuFile) calls.",
    why: "cuFile has no equivalent in the ROCm releases the tables know; AMD's hipFile is not generally available.",
    bad: "cuFileRead(handle, devPtr, size, offset, 0);",
    good: "pread(fd, hostBuf, size, offset); hipMemcpy(devPtr, hostBuf, size, hipMemcpyHostToDevice);",
    fix: "Stage I/O through host memory, or check whether the target ROCm ships hipFile.",
    refs: ["https://rocm.docs.amd.com/projects/hipFile/en/latest/"],
);

rule!(TORCH_REMOVED_API, "HP609", Library, Remediation, Build,
    summary: "A PyTorch C++ API that PyTorch removed before its first ROCm wheel for a current ROCm: THC (`#include <THC/THC.h>`, `THCState`, `THCudaCheck`, `THCudaMalloc`) and `AT_CHECK`.",
    why: "A ROCm port runs on a ROCm build of PyTorch, and those exist for current ROCm releases only as PyTorch 1.12 and later (ROCm 5.1.1 onward). THC was removed in PyTorch 1.11 and `AT_CHECK` in 1.5, so an extension written against them does not compile there, whatever its kernels do.",
    bad: "#include <THC/THC.h>\nextern THCState* state;\nAT_CHECK(x.is_cuda(), \"x must be CUDA\");\nTHCudaCheck(cudaGetLastError());",
    good: "#include <ATen/cuda/CUDAContext.h>\nTORCH_CHECK(x.is_cuda(), \"x must be CUDA\");\nC10_CUDA_CHECK(cudaGetLastError());",
    fix: "Move to ATen: `at::cuda::getCurrentCUDAStream()` for THC's stream, `c10::cuda::CUDACachingAllocator` for `THCudaMalloc`, `C10_CUDA_CHECK` for `THCudaCheck`, `TORCH_CHECK` for `AT_CHECK`; drop `THCState`.",
    refs: ["https://github.com/pytorch/pytorch/releases/tag/v1.11.0", "https://pytorch.org/get-started/previous-versions/"],
);

rule!(GEMM_ALGO_NUMBER, "HP610", Library, Remediation, Runtime,
    summary: "A cuBLAS GEMM algorithm given as a number (`(cublasGemmAlgo_t) algo`, `static_cast<cublasGemmAlgo_t>(id)`): an integer read from a setting or a tuning table, cast to the algorithm enum.",
    why: "cuBLAS numbers its algorithms (-1 the default, 0–23, 99–115 the tensor-op ones) and a ported call casts the same integer to `hipblasGemmAlgo_t`, whose only value is `HIPBLAS_GEMM_DEFAULT` (160). hipBLAS answers any other value with `HIPBLAS_STATUS_INVALID_ENUM`, so the GEMM does not run; the cast compiles, so nothing says so before run time.",
    bad: "cublasGemmEx(h, ta, tb, m, n, k, &a, A, CUDA_R_16F, lda, B, CUDA_R_16F, ldb, &b, C, CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t) algo);",
    good: "hipblasGemmEx(h, ta, tb, m, n, k, &a, A, HIP_R_16F, lda, B, HIP_R_16F, ldb, &b, C, HIP_R_16F, ldc, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);",
    fix: "Pass `HIPBLAS_GEMM_DEFAULT` on ROCm (hipBLAS picks the kernel; rocBLAS/hipBLASLt tuning replaces cuBLAS algorithm ids), or keep the number only on the CUDA side.",
    refs: ["https://rocm.docs.amd.com/projects/hipBLAS/en/latest/reference/data-type-enumerations.html", "https://docs.nvidia.com/cuda/cublas/index.html#cublasgemmalgo-t"],
);

/// Casts of a run-time integer to `cublasGemmAlgo_t`: one HP610 each (a cast of an enumerator
/// names the algorithm and is the mapping's business).
fn gemm_algo_numbers(s: &Src, out: &mut Vec<Finding>) {
    if memchr::memmem::find(s.ctx.src, b"cublasGemmAlgo_t").is_none() {
        return;
    }
    // One fact per file: the first cast, with the lines of the others.
    let mut first: Option<(usize, usize)> = None;
    let mut lines: Vec<usize> = Vec::new();
    for (i, name) in s.idents() {
        if name != "cublasGemmAlgo_t" {
            continue;
        }
        // `(cublasGemmAlgo_t) x` or `static_cast<cublasGemmAlgo_t>(x)`: the operand after the
        // closing `)` or `>`.
        let Some(close) = s.lexed.next_code(i) else {
            continue;
        };
        let operand = match s.tok(close) {
            ")" if s.lexed.prev_code(i).is_some_and(|p| s.tok(p) == "(") => {
                s.lexed.next_code(close)
            }
            ">" if s
                .lexed
                .prev_code(i)
                .and_then(|p| s.lexed.prev_code(p))
                .is_some_and(|c| s.tok(c) == "static_cast") =>
            {
                s.lexed
                    .next_code(close)
                    .filter(|&o| s.tok(o) == "(")
                    .and_then(|o| s.lexed.next_code(o))
            }
            _ => None,
        };
        let Some(o) = operand else { continue };
        // An enumerator (`CUBLAS_GEMM_DEFAULT`) is a name the mapping handles.
        if s.tok(o).starts_with("CUBLAS_GEMM") || s.tok(o) == "(" {
            continue;
        }
        if first.is_none() {
            first = Some((i, o));
        }
        lines.push(s.line(s.lexed.tokens[i].start as usize) + 1);
        continue;
    }
    let Some((i, o)) = first else { return };
    let t = s.tok(o);
    let others = if lines.len() > 1 {
        format!(
            " ({} casts in this file, lines {})",
            lines.len(),
            lines
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        String::new()
    };
    let number = s.lexed.tokens[o].kind == Tok::Number || t == "-";
    let what = if number {
        format!("the cuBLAS algorithm number `{t}`")
    } else {
        format!("the integer `{t}`")
    };
    out.push(s.ctx.finding(
        &GEMM_ALGO_NUMBER,
        s.lexed.tokens[i].range().start..s.lexed.tokens[o].range().end,
        format!("{what} cast to `cublasGemmAlgo_t`: hipBLAS's `hipblasGemmAlgo_t` has one value, `HIPBLAS_GEMM_DEFAULT` (160), and rejects cuBLAS's numbers (-1, 0–23, 99–115) at run time{others}"),
        Some("pass `HIPBLAS_GEMM_DEFAULT` on ROCm; keep algorithm numbers for the CUDA build only".into()),
    ));
}

pub mod legacy_cublas;

pub const RULES: &[&RuleInfo] = &[
    &legacy_cublas::LEGACY_CUBLAS,
    &GEMM_ALGO_NUMBER,
    &TORCH_REMOVED_API,
    &CUDNN_TO_MIOPEN,
    &CUBLASLT,
    &CUTLASS_CUTE,
    &CUTENSOR,
    &WMMA_TO_ROCWMMA,
    &THRUST_CUDA_POLICY,
    &NVML,
    &CUFILE,
];

fn include_rule(path: &str) -> Option<&'static RuleInfo> {
    let p = path.trim_matches(|c| c == '<' || c == '>' || c == '"');
    Some(match p {
        _ if p == "cudnn.h" || p.starts_with("cudnn_") || p.starts_with("cudnn/") => {
            &CUDNN_TO_MIOPEN
        }
        _ if p.starts_with("cublasLt") => &CUBLASLT,
        _ if p.starts_with("cutlass/") || p.starts_with("cute/") => &CUTLASS_CUTE,
        _ if p.starts_with("cutensor") => &CUTENSOR,
        "mma.h" | "crt/mma.h" => &WMMA_TO_ROCWMMA,
        "nvml.h" => &NVML,
        "cufile.h" => &CUFILE,
        _ => return None,
    })
}

fn cudnn_sequence(name: &str) -> bool {
    let rest = &name[5..];
    (rest.starts_with("Convolution")
        && !rest.contains("Descriptor")
        && !rest.contains("MathType")
        && !rest.contains("GroupCount"))
        || rest.starts_with("GetConvolution")
            && (rest.contains("Algorithm") || rest.contains("WorkspaceSize"))
        || rest.starts_with("FindConvolution")
        || rest.starts_with("RNN") && !rest.contains("Descriptor")
        || rest.starts_with("Backend")
        || rest.starts_with("MultiHeadAttn")
        || rest.starts_with("Fused")
}

fn cublaslt_call(name: &str) -> bool {
    matches!(
        name,
        "cublasLtMatmul"
            | "cublasLtMatmulAlgoGetHeuristic"
            | "cublasLtMatmulDescSetAttribute"
            | "cublasLtMatmulPreferenceSetAttribute"
            | "cublasLtMatrixTransform"
            | "cublasLtMatmulAlgoInit"
            | "cublasLtMatmulAlgoGetIds"
            | "cublasLtMatmulAlgoConfigSetAttribute"
            | "cublasLtMatrixLayoutSetAttribute"
    )
}

/// Attributes hipBLASLt takes exactly as cuBLASLt does (same meaning, same value type; the
/// translator renames them): setting one is not porting work. Epilogues, scale modes, data
/// types, orders and algorithm attributes stay flagged (hipBLASLt supports a subset).
const PLAIN_CUBLASLT_ATTRIBUTES: &[&str] = &[
    "CUBLASLT_MATMUL_DESC_TRANSA",
    "CUBLASLT_MATMUL_DESC_TRANSB",
    "CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT",
    "CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET",
    "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES",
];

/// Whether the `*SetAttribute(obj, ATTR, …)` call at token `i` sets one of
/// [`PLAIN_CUBLASLT_ATTRIBUTES`].
fn plain_cublaslt_attribute(s: &Src, i: usize) -> bool {
    let name = s.tok(i);
    if !name.ends_with("SetAttribute") {
        return false;
    }
    // name ( obj , ATTR ,
    let mut k = i;
    let mut toks = Vec::new();
    for _ in 0..24 {
        let Some(n) = s.lexed.next_code(k) else { break };
        toks.push(s.tok(n));
        if toks.len() >= 2 && s.tok(n) == "," && toks.iter().filter(|t| **t == ",").count() == 2 {
            break;
        }
        k = n;
    }
    let commas: Vec<usize> = toks
        .iter()
        .enumerate()
        .filter(|(_, t)| **t == ",")
        .map(|(j, _)| j)
        .collect();
    match commas.as_slice() {
        [a, b, ..] if b - a == 2 => PLAIN_CUBLASLT_ATTRIBUTES.contains(&toks[a + 1]),
        _ => false,
    }
}

/// One finding per file on PyTorch's removed C++ APIs (THC, `AT_CHECK`): at the first use,
/// naming the others.
fn torch_removed(s: &Src, out: &mut Vec<Finding>) {
    let src = s.ctx.src;
    if memchr::memmem::find(src, b"THC").is_none()
        && memchr::memmem::find(src, b"AT_CHECK").is_none()
    {
        return;
    }
    let mut uses: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (d, _, path) in s.includes() {
        // `THC/THCAtomics.cuh` is still shipped as a shim over `ATen/cuda/Atomic.cuh`
        // (pytorch/pytorch aten/src/THC/THCAtomics.cuh).
        if (path.starts_with("THC/") || path == "THC.h") && path != "THC/THCAtomics.cuh" {
            uses.push((s.directive_range(d), format!("`#include <{path}>`")));
        }
    }
    for (i, name) in s.idents() {
        // `THCState`, `THCCeilDiv`, `THCudaCheck`, `THCState_getCurrentStream`; not `THCOUNT`.
        let rest = name.strip_prefix("THC").unwrap_or("").as_bytes();
        let thc = rest.starts_with(b"uda")
            || (rest.len() >= 2 && rest[0].is_ascii_uppercase() && rest[1].is_ascii_lowercase());
        if thc || name == "AT_CHECK" {
            uses.push((s.lexed.tokens[i].range(), format!("`{name}`")));
        }
    }
    if uses.is_empty() {
        return;
    }
    uses.sort_by_key(|(r, _)| r.start);
    let mut names: Vec<&str> = Vec::new();
    for (_, n) in &uses {
        if !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    let shown = names.iter().take(4).copied().collect::<Vec<_>>().join(", ");
    let more = names.len().saturating_sub(4);
    let msg = format!(
        "{shown}{}: PyTorch removed THC in 1.11 and `AT_CHECK` in 1.5, and ROCm builds of PyTorch for current ROCm releases are 1.12 or later, so this does not compile there ({} use{} in this file)",
        if more > 0 { format!(" and {more} more") } else { String::new() },
        uses.len(),
        if uses.len() == 1 { "" } else { "s" }
    );
    out.push(s.ctx.finding(
        &TORCH_REMOVED_API,
        uses[0].0.clone(),
        msg,
        Some(TORCH_REMOVED_API.fix.to_string()),
    ));
}

/// An NVML API name: `nvml` then a capital (`nvmlInit_v2`, `nvmlDeviceGetTemperature`). A
/// project's own `nvml_create`/`nvml_get_gpucount` wrapper is not NVML's (ccminer).
fn nvml_api(name: &str) -> bool {
    name.strip_prefix("nvml")
        .and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_uppercase())
}

pub fn check(s: &Src, target: &Target, out: &mut Vec<Finding>) {
    torch_removed(s, out);
    gemm_algo_numbers(s, out);
    let m = crate::mappings::get();
    for (d, j, path) in s.includes() {
        let Some(rule) = include_rule(path) else {
            continue;
        };
        // A project's own `"cudnn_att.h"` is not the library.
        let own = !matches!(
            path,
            "cudnn.h"
                | "cudnn_frontend.h"
                | "cublasLt.h"
                | "mma.h"
                | "nvml.h"
                | "cufile.h"
                | "cutensor.h"
        );
        if s.lexed.tokens[j].kind == Tok::Str && own && !path.contains('/') {
            continue;
        }
        // The translator reports headers with no counterpart itself (HP004, also `library`).
        if matches!(m.include(path, target), Some(Err(_))) {
            continue;
        }
        out.push(s.ctx.finding(
            rule,
            s.directive_range(d),
            format!("`{path}`: {}", rule.summary),
            Some(rule.fix.to_string()),
        ));
    }
    let mut lines: HashSet<(usize, &str)> = HashSet::new();
    for (i, name) in s.idents() {
        let t = s.lexed.tokens[i];
        let pre = s.prev_text(i);
        let call = s.next_text(i) == "(";
        let scope_next = s.next_text(i) == "::";
        let rule: Option<(&RuleInfo, String)> = if name.starts_with("cudnn")
            && call
            && cudnn_sequence(name)
        {
            Some((&CUDNN_TO_MIOPEN, format!("`{name}`: MIOpen's equivalent needs a different call sequence (find/workspace steps, argument order)")))
        } else if call && cublaslt_call(name) && !plain_cublaslt_attribute(s, i) {
            Some((&CUBLASLT, format!("`{name}`: check the hipBLASLt support for the types, layouts and attributes used")))
        } else if (name == "cutlass" || name == "cute")
            && scope_next
            && (pre != "::" || global_scope(s, i))
        {
            Some((
                &CUTLASS_CUTE,
                format!("`{name}::` templates have no HIP port"),
            ))
        } else if name.starts_with("cutensor") && call {
            Some((
                &CUTENSOR,
                format!(
                    "`{name}`: hipTensor covers a subset of cuTENSOR with a partly different API"
                ),
            ))
        } else if name == "wmma" && (scope_next || pre == "namespace" || pre == "::") {
            Some((
                &WMMA_TO_ROCWMMA,
                "`wmma` fragments and operations: port to rocWMMA".to_string(),
            ))
        } else if name == "nvcuda" && (scope_next || pre == "namespace") {
            Some((
                &WMMA_TO_ROCWMMA,
                "`nvcuda` (WMMA) namespace: port to rocWMMA".to_string(),
            ))
        } else if name == "thrust" && scope_next && thrust_cuda(s, i) {
            Some((&THRUST_CUDA_POLICY, "Thrust CUDA system/execution policy: rocThrust uses `thrust::hip` and lacks some CUDA-system extras".to_string()))
        } else if nvml_api(name) && call {
            Some((
                &NVML,
                format!("`{name}`: NVML has no HIP translation; rewrite with AMD SMI"),
            ))
        } else if name.starts_with("cuFile") && call {
            Some((
                &CUFILE,
                format!(
                    "`{name}`: GPUDirect Storage has no ROCm counterpart in the known releases"
                ),
            ))
        } else {
            None
        };
        if let Some((rule, msg)) = rule {
            if lines.insert((s.line(t.start as usize), rule.id.code)) {
                // One rewrite per line of NVML code: the finding spans every NVML name on the
                // line (`nvmlReturn_t r = nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU,
                // &t)`), so the translator's per-name notes merge into it.
                let range = if std::ptr::eq(rule, &NVML) {
                    nvml_span(s, i)
                } else {
                    t.range()
                };
                let mut f = s.ctx.finding(rule, range, msg, Some(rule.fix.to_string()));
                // `thrust::cuda::par` and the other policies the namespace table maps:
                // `hipport port` writes the rocThrust name (`thrust::hip::par`), so the policy
                // itself is done; CUDA-system extras it does not map stay open.
                if std::ptr::eq(rule, &THRUST_CUDA_POLICY) {
                    if let Some(hip) = thrust_policy_port(s, i) {
                        f.settle(&format!(
                            " — `hipport port` writes `{hip}` (rocThrust's policy): done"
                        ));
                    }
                }
                out.push(f);
            }
        }
    }
}

/// The byte range from the first to the last NVML name (`nvml…`, `NVML_…`) on the line of
/// token `i`.
fn nvml_span(s: &Src, i: usize) -> std::ops::Range<usize> {
    let line = s.line(s.lexed.tokens[i].start as usize);
    let nvml = |k: usize| {
        let t = s.tok(k);
        s.lexed.tokens[k].kind == Tok::Ident && (t.starts_with("nvml") || t.starts_with("NVML_"))
    };
    let (mut first, mut last) = (i, i);
    let mut k = i;
    while let Some(p) = s.lexed.prev_code(k) {
        if s.line(s.lexed.tokens[p].start as usize) != line {
            break;
        }
        if nvml(p) {
            first = p;
        }
        k = p;
    }
    k = i;
    while let Some(n) = s.lexed.next_code(k) {
        if s.line(s.lexed.tokens[n].start as usize) != line {
            break;
        }
        if nvml(n) {
            last = n;
        }
        k = n;
    }
    s.lexed.tokens[first].start as usize..s.lexed.tokens[last].end as usize
}

/// The rocThrust name `port` writes for the Thrust CUDA policy at token `i` (`thrust` of
/// `thrust::cuda::par`), from `mappings/hand/namespaces.tsv`; `None` for a name it does not map.
fn thrust_policy_port(s: &Src, i: usize) -> Option<String> {
    let l = s.lexed;
    let mut path = String::from("thrust");
    let mut k = i;
    while let (Some(c), Some(n)) = (l.next_code(k), l.next_code(k).and_then(|c| l.next_code(c))) {
        if s.tok(c) != "::" || l.tokens[n].kind != Tok::Ident {
            break;
        }
        path.push_str("::");
        path.push_str(s.tok(n));
        k = n;
    }
    let m = crate::mappings::get();
    m.namespaces
        .iter()
        .filter(|ns| ns.cuda.matches("::").count() >= 2)
        .find(|ns| path == ns.cuda)
        .and_then(|ns| ns.hip.clone())
}

/// `thrust::cuda::`, `thrust::system::cuda::`, `thrust::cuda_cub::` at token `i` (`thrust`).
fn thrust_cuda(s: &Src, i: usize) -> bool {
    let mut k = i;
    for _ in 0..2 {
        let Some(c) = s.lexed.next_code(k) else {
            return false;
        };
        let Some(n) = s.lexed.next_code(c) else {
            return false;
        };
        if s.tok(c) != "::" {
            return false;
        }
        match s.tok(n) {
            "cuda" | "cuda_cub" => return true,
            "system" => k = n,
            _ => return false,
        }
    }
    false
}

/// Whether the name at token `i` follows a `::` that names the global scope (`::cutlass::half_t`),
/// not an enclosing namespace (`mine::cutlass::`).
fn global_scope(s: &Src, i: usize) -> bool {
    let Some(c) = s.lexed.prev_code(i) else {
        return false;
    };
    s.lexed.prev_code(c).is_none_or(|b| {
        let t = s.tok(b);
        !(s.lexed.tokens[b].kind == Tok::Ident || t == ">")
    })
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::fires;

    /// ppl's xformer entry point names CUTLASS from the global scope
    /// (`dispatch_cutlassF<::cutlass::half_t>`): a CUTLASS use like any other. Twin: a project
    /// namespace of that name nested in its own (`mine::cutlass::`) is not CUTLASS's.
    #[test]
    fn cutlass_named_from_the_global_scope_is_cutlass() {
        let src = "void f(P p) {\n  dispatch<::cutlass::half_t>(p);\n  mine::cutlass::g(p);\n}\n";
        assert_eq!(fires(src, "HP603"), [2]);
    }

    /// PyTorchEMD's extension: THC's header, state and checks, `AT_CHECK`. One finding per file.
    /// Twins: ATen's replacements, and names that only start with THC (`THCOUNT`).
    #[test]
    fn removed_torch_apis_are_one_finding_per_file() {
        use crate::model::syntax::test_support::messages;
        let src = "#include <torch/extension.h>\n#include <THC/THC.h>\nextern THCState* state;\nvoid f(at::Tensor x) {\n  AT_CHECK(x.is_cuda(), \"x\");\n  THCudaCheck(cudaGetLastError());\n}\n";
        assert_eq!(fires(src, "HP609"), [2]);
        let m = messages(src, "HP609");
        assert!(
            m[0].contains("`#include <THC/THC.h>`, `THCState`, `AT_CHECK`, `THCudaCheck`")
                && m[0].contains("4 uses"),
            "{m:?}"
        );
        let aten = "#include <ATen/cuda/CUDAContext.h>\nconst int THCOUNT = 3;\nvoid f(at::Tensor x) {\n  TORCH_CHECK(x.is_cuda(), \"x\");\n  C10_CUDA_CHECK(cudaGetLastError());\n}\n";
        assert!(fires(aten, "HP609").is_empty());
        // torchsparse: `THC/THCAtomics.cuh` is still shipped (a shim over ATen's atomics).
        let atomics =
            "#include <THC/THCAtomics.cuh>\n__global__ void k(float* p) { atomicAdd(p, 1.f); }\n";
        assert!(fires(atomics, "HP609").is_empty());
        let with_state = format!("{atomics}extern THCState* state;\n");
        assert_eq!(fires(&with_state, "HP609"), [3]);
    }

    /// cuBERT: cuBLAS algorithm numbers read from settings and cast to `cublasGemmAlgo_t`: one
    /// finding per file naming every cast. Twins: an enumerator cast (the mapping's business)
    /// and the enumerator passed as is.
    #[test]
    fn gemm_algorithm_numbers_are_one_runtime_fact_per_file() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::{hazard_findings, messages};
        let src = "void g(cublasHandle_t h, int algo) {\n  cublasGemmEx(h, a, b, m, n, k, &x, A, CUDA_R_16F, m, B, CUDA_R_16F, k, &y, C, CUDA_R_16F, m, CUDA_R_32F, (cublasGemmAlgo_t) algo);\n  cublasGemmEx(h, a, b, m, n, k, &x, A, CUDA_R_16F, m, B, CUDA_R_16F, k, &y, C, CUDA_R_16F, m, CUDA_R_32F, static_cast<cublasGemmAlgo_t>(algo + 1));\n}\n";
        assert_eq!(fires(src, "HP610"), [2]);
        let m = messages(src, "HP610");
        assert!(m[0].contains("2 casts in this file, lines 2, 3"), "{m:?}");
        let f = hazard_findings(src);
        let f = f.iter().find(|f| f.rule == "HP610").unwrap();
        assert_eq!(f.status, Status::Remediation);
        assert_eq!(f.phase, crate::gate::Phase::Runtime);
        let named = src
            .replace(
                "(cublasGemmAlgo_t) algo",
                "(cublasGemmAlgo_t) CUBLAS_GEMM_DEFAULT",
            )
            .replace(
                "static_cast<cublasGemmAlgo_t>(algo + 1)",
                "CUBLAS_GEMM_DEFAULT_TENSOR_OP",
            );
        assert!(fires(&named, "HP610").is_empty());
    }

    #[test]
    fn library_includes_and_calls() {
        let src = "#include <cudnn.h>\n#include \"cudnn_utils.h\"\n#include <thrust/sort.h>\nvoid f() {\n  cudnnCreate(&h);\n  cudnnConvolutionForward(h, a, x, dx, w, dw, c, algo, ws, n, b, y, dy);\n  thrust::sort(thrust::cuda::par.on(s), v.begin(), v.end());\n  thrust::sort(thrust::device, v.begin(), v.end());\n  wmma::fill_fragment(acc, 0.0f);\n  nvmlInit();\n  mylib::cutlass_like();\n}\n";
        assert_eq!(fires(src, "HP601"), [1, 6]);
        assert_eq!(fires(src, "HP606"), [7]);
        // `thrust::cuda::par` is a policy `port` maps to `thrust::hip::par` (marian, rmm): done;
        // twin: a CUDA-system extra the namespace table does not map stays open.
        use crate::model::syntax::test_support::fires_open;
        assert!(fires_open(src, "HP606").is_empty());
        let extra = "void f() {\n  thrust::cuda::universal_vector<int> v(4);\n}\n";
        assert_eq!(fires_open(extra, "HP606"), [2]);
        assert_eq!(fires(src, "HP605"), [9]);
        assert_eq!(fires(src, "HP607"), [10]);
        assert!(fires(src, "HP603").is_empty());
        // ccminer's own dlopen wrapper (`nvml_create`, `nvml_get_gpucount`) is not NVML's API;
        // the NVML entry points it loads are.
        let wrapper = "void f() {\n  nvml_create();\n  nvml_get_gpucount(h, &n);\n  h->nvmlDeviceGetCount(&n);\n}\n";
        assert_eq!(fires(wrapper, "HP607"), [4]);
    }

    #[test]
    fn cublaslt_attributes_hipblaslt_takes_as_is_are_not_flagged() {
        let src = "void mm(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t l, cublasLtMatmulPreference_t p) {\n  cublasCheck(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, (t) ? &opT : &opN, sizeof(opT)));\n  cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &n, sizeof(n));\n  cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));\n  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));\n  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &st, sizeof(st));\n  cublasLtMatmul(h, d, &a, A, l, B, l, &b, C, l, D, l, &algo, w, ws, s);\n}\n";
        // Transposes, batch counts and workspace limits are the same in hipBLASLt; epilogues,
        // scale types and the matmul call itself need checking.
        assert_eq!(fires(src, "HP602"), [5, 6, 7]);
    }
}
