//! Kernels every launch of the project gives blocks whose rows are 32 threads wide
//! (`dim3 block(32, 4)`, `<<<grid, 32>>>`): on NVIDIA each row is one warp, so the kernel's warps
//! are 32 lanes whatever its code says; on AMD two rows share a 64-lane wavefront. The launch and
//! the kernel usually sit in different files (`llama2_q4.cu` launches `mat_vec_kernel` of
//! `gpu_kernels.h`), so a per-file look sees neither half of the fact. This project pass reads the
//! launches of every source, keeps the kernels whose every launch has 32-wide rows, and reports
//! in them what such a row assumes of the warp and HIP does not keep: a CUB warp primitive at its
//! default width (`cub::WarpReduce<float>`), whose logical warp hipCUB makes the 64-lane
//! wavefront, so one reduction sums two rows (HP110 REMEDIATION/CORRECTNESS, with the fix
//! `cub::WarpReduce<float, 32>`). A kernel launched anywhere with another or an unknown shape is
//! left alone: its rows are not known to be warps.

use super::CUB_WARP_DEFAULT_WIDTH;
use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Lexed, Tok};
use std::collections::BTreeMap;

/// What a kernel's launches say of its rows: the shape of each launch with 32-wide rows, and
/// whether some launch has another or an unknown shape.
#[derive(Default)]
struct Rows {
    shapes: Vec<String>,
    other: bool,
}

fn text<'a>(src: &'a [u8], lexed: &Lexed, i: usize) -> &'a [u8] {
    lexed.tokens[i].text(src)
}

/// The first argument of a `dim3` shape starting at token `open` (`(` or `{`), when it is the
/// literal 32.
fn first_is_32(src: &[u8], lexed: &Lexed, open: usize) -> bool {
    lexed.next_code(open).is_some_and(|a| {
        lexed.tokens[a].kind == Tok::Number
            && crate::model::syntax::int_value(&String::from_utf8_lossy(text(src, lexed, a)))
                == Some(32)
            && lexed
                .next_code(a)
                .is_some_and(|c| matches!(text(src, lexed, c), b"," | b")" | b"}"))
    })
}

/// How many tokens before a launch the declaration of its `dim3` block variable is looked for.
const DECLARATION_LOOK_BACK: usize = 4096;

/// The launches of a file: kernel name, and the shape text where the block's rows are 32 wide.
fn launches(path: &str, src: &[u8], lexed: &Lexed) -> Vec<(String, Option<String>)> {
    let lines = crate::lines::LineIndex::new(src);
    let line_of = |i: usize| lines.position(src, lexed.tokens[i].start as usize).line;
    let mut out = Vec::new();
    for i in 0..lexed.tokens.len() {
        if !crate::model::launch::is_triple(src, lexed, i, b'<') {
            continue;
        }
        let Some(launch) = crate::model::launch::at(src, lexed, i) else {
            continue;
        };
        let kernel = String::from_utf8_lossy(text(src, lexed, launch.name)).into_owned();
        let Some(&(a, b)) = launch.config.get(1) else {
            continue;
        };
        let code: Vec<usize> = (a..b)
            .filter(|&t| lexed.tokens[t].kind != Tok::Comment)
            .collect();
        let shape = match code.as_slice() {
            [x] if lexed.tokens[*x].kind == Tok::Number => {
                (crate::model::syntax::int_value(&String::from_utf8_lossy(text(src, lexed, *x)))
                    == Some(32))
                .then(|| format!("`<<<…, 32>>>` at {path}:{}", line_of(i)))
            }
            [d, o, ..] if text(src, lexed, *d) == b"dim3" => first_is_32(src, lexed, *o)
                .then(|| format!("`dim3(32, …)` at {path}:{}", line_of(i))),
            [v] if lexed.tokens[*v].kind == Tok::Ident => {
                // `dim3 v(32, n)`, `dim3 v{32, n}`, `dim3 v = dim3(32, n)`, `dim3 v = {32, n}`:
                // the nearest declaration before the launch, within a bounded look back (a
                // file of many launches stays linear).
                let name = text(src, lexed, *v);
                (i.saturating_sub(DECLARATION_LOOK_BACK)..i)
                    .rev()
                    .find(|&d| {
                        text(src, lexed, d) == b"dim3"
                            && lexed
                                .next_code(d)
                                .is_some_and(|x| text(src, lexed, x) == name)
                    })
                    .and_then(|d| {
                        let x = lexed.next_code(d)?;
                        let mut o = lexed.next_code(x)?;
                        if text(src, lexed, o) == b"=" {
                            o = lexed.next_code(o)?;
                            if text(src, lexed, o) == b"dim3" {
                                o = lexed.next_code(o)?;
                            }
                        }
                        (matches!(text(src, lexed, o), b"(" | b"{") && first_is_32(src, lexed, o))
                            .then(|| {
                                format!(
                                    "`dim3 {}(32, …)` at {path}:{}",
                                    String::from_utf8_lossy(name),
                                    line_of(d)
                                )
                            })
                    })
            }
            _ => None,
        };
        out.push((kernel, shape));
    }
    out
}

/// The functions of a file with qualifier `qual` (`__global__`, `__device__`): name and body
/// token range (`{`..`}`).
fn functions(src: &[u8], lexed: &Lexed, qual: &[u8]) -> Vec<(String, usize, usize)> {
    let n = lexed.tokens.len();
    let mut out = Vec::new();
    for g in 0..n {
        if text(src, lexed, g) != qual || lexed.tokens[g].in_directive() {
            continue;
        }
        // The name: the identifier before the first `(` that is not a qualifier's own.
        let mut j = g + 1;
        let mut name: Option<usize> = None;
        let mut open = None;
        while j < n && j < g + 64 {
            let t = text(src, lexed, j);
            if t == b"(" {
                if name.is_some_and(|k| text(src, lexed, k) == b"__launch_bounds__") {
                    j = matching(src, lexed, j, b"(", b")").map_or(n, |c| c + 1);
                    name = None;
                    continue;
                }
                open = Some(j);
                break;
            }
            if matches!(t, b";" | b"{" | b"}") {
                break;
            }
            if lexed.tokens[j].kind == Tok::Ident {
                name = Some(j);
            }
            j += 1;
        }
        let (Some(k), Some(o)) = (name, open) else {
            continue;
        };
        let Some(close) = matching(src, lexed, o, b"(", b")") else {
            continue;
        };
        let Some(body) =
            (close + 1..n.min(close + 16)).find(|&b| matches!(text(src, lexed, b), b"{" | b";"))
        else {
            continue;
        };
        if text(src, lexed, body) != b"{" {
            continue;
        }
        if let Some(end) = matching(src, lexed, body, b"{", b"}") {
            out.push((
                String::from_utf8_lossy(text(src, lexed, k)).into_owned(),
                body,
                end,
            ));
        }
    }
    out
}

/// The token closing the bracket opened at `open`.
fn matching(src: &[u8], lexed: &Lexed, open: usize, o: &[u8], c: &[u8]) -> Option<usize> {
    let mut depth = 0i32;
    for j in open..lexed.tokens.len() {
        if lexed.tokens[j].kind == Tok::Comment {
            continue;
        }
        let t = text(src, lexed, j);
        if t == o {
            depth += 1;
        } else if t == c {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// Whether `name` occurs in `b` as a whole word followed by a call or a launch (`name(`,
/// `name<<<`, `name<T><<<`), read from the bytes.
fn names_word(b: &[u8], name: &[u8]) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    memchr::memmem::find_iter(b, name).any(|at| {
        let end = at + name.len();
        (at == 0 || !word(b[at - 1]))
            && b.get(end).is_some_and(|&c| !word(c))
            && b[end..]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .is_some_and(|&c| c == b'(' || c == b'<')
    })
}

/// The project pass (see the module documentation). `sources` are the project's C/C++/CUDA
/// files; only those that name a CUB warp primitive, or call or launch a function of such a
/// file, are lexed.
pub fn cub_in_kernels_of_32_wide_rows(findings: &mut Vec<Finding>, sources: &[(&str, &[u8])]) {
    let has = |b: &[u8], w: &[u8]| memchr::memmem::find(b, w).is_some();
    if !sources
        .iter()
        .any(|(_, b)| has(b, b"WarpReduce") || has(b, b"WarpScan"))
    {
        return;
    }
    // The files that name a CUB warp primitive hold what this pass reports on; the others are
    // lexed only where they name one of those files' functions (a launch, a call).
    let cub = |b: &[u8]| has(b, b"WarpReduce") || has(b, b"WarpScan");
    let mut lexed: Vec<(&str, &[u8], Lexed)> = sources
        .iter()
        .filter(|(_, b)| cub(b))
        .map(|(p, b)| (*p, *b, crate::lex::lex(b)))
        .collect();
    let names: Vec<String> = lexed
        .iter()
        .flat_map(|(_, src, lx)| {
            functions(src, lx, b"__global__")
                .into_iter()
                .chain(functions(src, lx, b"__device__"))
                .map(|(n, ..)| n)
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    lexed.extend(
        sources
            .iter()
            .filter(|(_, b)| !cub(b) && names.iter().any(|n| names_word(b, n.as_bytes())))
            .map(|(p, b)| (*p, *b, crate::lex::lex(b))),
    );
    let mut rows: BTreeMap<String, Rows> = BTreeMap::new();
    for (path, src, lx) in &lexed {
        for (kernel, shape) in launches(path, src, lx) {
            let r = rows.entry(kernel).or_default();
            match shape {
                Some(s) => r.shapes.push(s),
                None => r.other = true,
            }
        }
    }
    let rows32 = |name: &str| {
        rows.get(name)
            .filter(|r| !r.other && !r.shapes.is_empty())
            .and_then(|r| r.shapes.first().cloned())
    };
    // Every kernel and device function: (file, name, body, kernel).
    let mut defs: Vec<(usize, String, usize, usize, bool)> = Vec::new();
    for (k, (_, src, lx)) in lexed.iter().enumerate() {
        for (name, o, c) in functions(src, lx, b"__global__") {
            defs.push((k, name, o, c, true));
        }
        for (name, o, c) in functions(src, lx, b"__device__") {
            defs.push((k, name, o, c, false));
        }
    }
    // A kernel's rows are its launches'; a device function's are its callers' when every
    // kernel that calls it (directly) has 32-wide rows.
    let calls = |k: usize, o: usize, c: usize, callee: &str| {
        let (_, src, lx) = &lexed[k];
        (o..c).any(|i| {
            text(src, lx, i) == callee.as_bytes()
                && lx.next_code(i).is_some_and(|j| text(src, lx, j) == b"(")
        })
    };
    let mut qualifying: Vec<(usize, String, usize, usize, String)> = Vec::new();
    for (k, name, o, c, kernel) in &defs {
        let why = if *kernel {
            rows32(name).map(|s| format!("`{name}`, which every launch in the project gives blocks whose rows are 32 threads ({s})"))
        } else {
            let callers: Vec<&String> = defs
                .iter()
                .filter(|(k2, n2, o2, c2, kern)| *kern && n2 != name && calls(*k2, *o2, *c2, name))
                .map(|(_, n2, ..)| n2)
                .collect();
            let shapes: Vec<Option<String>> = callers.iter().map(|n| rows32(n)).collect();
            (!callers.is_empty() && shapes.iter().all(Option::is_some)).then(|| {
                format!(
                    "`{name}`, called only from kernels every launch gives blocks whose rows are 32 threads (`{}`: {})",
                    callers[0],
                    shapes[0].as_deref().unwrap_or("")
                )
            })
        };
        if let Some(why) = why {
            qualifying.push((*k, name.clone(), *o, *c, why));
        }
    }
    for (k, _, open, close, why) in qualifying {
        let (path, src, lx) = &lexed[k];
        let lines = crate::lines::LineIndex::new(src);
        let ctx = crate::registry::FileCtx {
            path,
            src,
            lines: &lines,
        };
        {
            for i in open..close {
                let t = text(src, lx, i);
                if !(t == b"WarpReduce" || t == b"WarpScan") {
                    continue;
                }
                let qualified = lx.prev_code(i).is_some_and(|c| text(src, lx, c) == b"::")
                    && lx
                        .prev_code(i)
                        .and_then(|c| lx.prev_code(c))
                        .is_some_and(|c| matches!(text(src, lx, c), b"cub" | b"hipcub"));
                let Some(lt) = lx.next_code(i).filter(|&j| text(src, lx, j) == b"<") else {
                    continue;
                };
                // One template argument: no `,` at depth 1 before the closing `>`.
                let Some(gt) = matching(src, lx, lt, b"<", b">") else {
                    continue;
                };
                let mut depth = 0i32;
                let one = (lt + 1..gt).all(|j| {
                    match text(src, lx, j) {
                        b"<" | b"(" => depth += 1,
                        b">" | b")" => depth -= 1,
                        b"," if depth == 0 => return false,
                        _ => {}
                    }
                    true
                });
                if !qualified || !one {
                    continue;
                }
                let ns = lx.prev_code(lx.prev_code(i).unwrap_or(i)).unwrap_or(i);
                let (a, b) = (lx.tokens[ns].start as usize, lx.tokens[gt].end as usize);
                let written = String::from_utf8_lossy(&src[a..b]).into_owned();
                let fixed = format!(
                    "{}, 32>",
                    String::from_utf8_lossy(&src[a..lx.tokens[gt].start as usize])
                );
                let line = lines.position(src, a).line;
                if findings.iter().any(|f| {
                    f.path == *path
                        && f.line == line
                        && matches!(f.rule.as_str(), "HP110" | "HP109")
                }) {
                    continue;
                }
                let mut f = ctx.finding(
                    &CUB_WARP_DEFAULT_WIDTH,
                    a..b,
                    format!(
                        "`{written}` at its default width in {why}: on NVIDIA each row is one warp; on AMD a 64-lane wavefront holds two rows (or one row and 32 lanes that do not run) and hipCUB's default logical warp is the wavefront, so the {} does not run over one row",
                        if t == b"WarpReduce" { "reduction" } else { "scan" }
                    ),
                    Some(format!("give it the row's width: `{fixed}`")),
                );
                f.status = Status::Remediation;
                f.fix = Some(fixed);
                findings.push(f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "#include <cub/cub.cuh>\n__global__ void mat_vec(const float* w, float* out, int n) {\n  float sum = 0.f;\n  for (int i = threadIdx.x; i < n; i += 32) sum += w[blockIdx.x * 4 * n + threadIdx.y * n + i];\n  using WarpReduce = cub::WarpReduce<float>;\n  __shared__ typename WarpReduce::TempStorage temp[4];\n  sum = WarpReduce(temp[threadIdx.y]).Sum(sum);\n  if (threadIdx.x == 0) out[blockIdx.x * 4 + threadIdx.y] = sum;\n}\n";

    fn run(files: &[(&str, &str)]) -> Vec<Finding> {
        let sources: Vec<(&str, &[u8])> = files.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
        let mut out = Vec::new();
        cub_in_kernels_of_32_wide_rows(&mut out, &sources);
        out
    }

    /// llama_cu_awq's shape: the kernel in a header, every launch (in another file) with
    /// `dim3 block_dim(32, 4)`. Twins: a launch with 256-thread rows elsewhere, a launch whose
    /// shape is not known, and a primitive given its width keep quiet.
    #[test]
    fn cub_default_width_in_a_kernel_of_32_wide_rows_is_reported() {
        let launch = "#include \"k.cuh\"\nvoid go(const float* w, float* o, int n, int d) {\n  dim3 block_dim(32, 4);\n  dim3 grid_dim((d + 3) / 4, 1);\n  mat_vec<<<grid_dim, block_dim, 0, 0>>>(w, o, n);\n}\n";
        let fs = run(&[("k.cuh", KERNEL), ("main.cu", launch)]);
        assert_eq!(fs.len(), 1, "{fs:?}");
        let f = &fs[0];
        assert_eq!(
            (f.rule.as_str(), f.line, f.status),
            ("HP110", 5, Status::Remediation)
        );
        assert!(
            f.message.contains("`dim3 block_dim(32, …)` at main.cu:3"),
            "{}",
            f.message
        );
        assert_eq!(f.fix.as_deref(), Some("cub::WarpReduce<float, 32>"));
        let wide =
            "void go2(const float* w, float* o, int n) {\n  mat_vec<<<64, 256>>>(w, o, n);\n}\n";
        assert!(run(&[("k.cuh", KERNEL), ("main.cu", launch), ("b.cu", wide)]).is_empty());
        let unknown = "void go3(const float* w, float* o, int n, dim3 b) {\n  mat_vec<<<64, b>>>(w, o, n);\n}\n";
        assert!(run(&[("k.cuh", KERNEL), ("c.cu", unknown)]).is_empty());
        let given = KERNEL.replace("cub::WarpReduce<float>", "cub::WarpReduce<float, 32>");
        assert!(run(&[("k.cuh", &given), ("main.cu", launch)]).is_empty());
        // One-dimensional blocks of 32 threads, launched with template arguments.
        let one = KERNEL.replace("mat_vec(", "mat_vec2(");
        let launch1 =
            "void go(const float* w, float* o, int n) {\n  mat_vec2<<<n, 32>>>(w, o, n);\n}\n";
        assert_eq!(run(&[("k.cuh", &one), ("main.cu", launch1)]).len(), 1);
        // A device helper called only from such kernels; its twin is also called from a kernel
        // of 256-thread rows.
        let helper = "__device__ __forceinline__ float row_sum(float v) {\n  using WR = cub::WarpReduce<float>;\n  __shared__ typename WR::TempStorage t[4];\n  return WR(t[threadIdx.y]).Sum(v);\n}\n__global__ void ka(float* o) { o[0] = row_sum(o[threadIdx.x]); }\n__global__ void kb(float* o) { o[1] = row_sum(o[threadIdx.x]); }\n";
        let only32 =
            "void go(float* o) {\n  dim3 b(32, 4);\n  ka<<<1, b>>>(o);\n  kb<<<2, b>>>(o);\n}\n";
        let fs = run(&[("h.cuh", helper), ("m.cu", only32)]);
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert!(
            fs[0].message.contains("called only from kernels"),
            "{}",
            fs[0].message
        );
        let both =
            "void go(float* o) {\n  dim3 b(32, 4);\n  ka<<<1, b>>>(o);\n  kb<<<1, 256>>>(o);\n}\n";
        assert!(run(&[("h.cuh", helper), ("m.cu", both)]).is_empty());
    }
}
