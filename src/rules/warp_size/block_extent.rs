//! A block's x extent measured in wavefronts (HP111): `blockDim.x / warpSize` counts the
//! block's warps and `blockDim.x == warpSize` asks whether the block is one warp. Both are
//! right on NVIDIA for any block; on CDNA `warpSize` is 64, so for a block that is not a whole
//! number of 64-lane wavefronts the count drops the partial wavefront (0 for 32-thread blocks:
//! flownet2's correlation `blockReduceSum` reads no warp's sum and returns 0) and the test flips
//! (true for 32-thread blocks on NVIDIA, false on AMD). Whether that happens is a fact of the
//! launches, which usually sit in another file than the kernel, so this is part of the project
//! pass over each file's [`FileRows`](super::launch_rows::FileRows): the sites come from each
//! function's body, the block sizes from every launch in the project (literals, `dim3` shapes,
//! and names the launching file defines as numbers, `#define THREADS_PER_BLOCK 32`).
//!
//! A site is reported where some launch of a kernel that reaches it (the kernel itself, or a
//! kernel calling the device function, through up to [`DEPTH`] calls) has a known x extent the
//! wavefront changes: threads a count of 64-lane wavefronts drops that a count of 32-lane warps
//! keeps (32, 48, 96 threads; not 16, whose count is 0 on NVIDIA too), 32 or 64 for an equality. Blocks of
//! unknown size say nothing, and a rounded-up count (`(blockDim.x + warpSize - 1) / warpSize`)
//! is never a site.

use super::launch_rows::{text, FileRows};
use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Lexed, Tok};
use std::collections::{HashMap, HashSet};

/// How many calls up from a device function the kernels that reach it are looked for.
pub const DEPTH: usize = 4;

/// What a site does with the block's x extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// `blockDim.x / warpSize`: a count of warps, rounded down.
    Count,
    /// `blockDim.x == warpSize` (`true`) or `!=` (`false`).
    Equal(bool),
    /// `i += warpSize`, `lane + warpSize * i`: a thread's index stepped by `warpSize`, which
    /// visits every element only where the block's x extent is the warp.
    Stride,
}

/// One site in a function body, its finding made by the file's own pass (message written by the
/// project pass).
pub struct Extent {
    finding: Finding,
    written: String,
    what: Use,
}

/// Whether tokens from `i` read `blockDim . x`; the token after it.
fn block_x(src: &[u8], lexed: &Lexed, i: usize) -> Option<usize> {
    if text(src, lexed, i) != b"blockDim" {
        return None;
    }
    let dot = lexed.next_code(i)?;
    let x = lexed.next_code(dot)?;
    (text(src, lexed, dot) == b"." && text(src, lexed, x) == b"x").then_some(x)
}

/// `warpSize` at token `w` as a step: `+= warpSize`, or a product with it added to an index
/// (`lane + warpSize * i`, `lane + i * warpSize`). The site's first and last tokens.
fn stride(src: &[u8], lexed: &Lexed, w: usize) -> Option<(usize, usize, Use)> {
    let t = |i: usize| text(src, lexed, i);
    let before = lexed.prev_code(w)?;
    match t(before) {
        b"=" => {
            let plus = lexed.prev_code(before)?;
            let var = lexed
                .prev_code(plus)
                .filter(|&v| lexed.tokens[v].kind == Tok::Ident)
                .unwrap_or(plus);
            (t(plus) == b"+" && lexed.tokens[plus].end == lexed.tokens[before].start).then_some((
                var,
                w,
                Use::Stride,
            ))
        }
        // `+ warpSize * i`
        b"+" => {
            let star = lexed.next_code(w)?;
            let n = lexed.next_code(star)?;
            (t(star) == b"*"
                && matches!(lexed.tokens[n].kind, Tok::Ident | Tok::Number)
                && lexed
                    .next_code(n)
                    .is_some_and(|e| !matches!(t(e), b"(" | b"[" | b"." | b"->")))
            .then_some((before, n, Use::Stride))
        }
        // `+ i * warpSize`
        b"*" => {
            let n = lexed.prev_code(before)?;
            let plus = lexed.prev_code(n)?;
            (t(plus) == b"+"
                && matches!(lexed.tokens[n].kind, Tok::Ident | Tok::Number)
                && lexed
                    .next_code(w)
                    .is_some_and(|e| !matches!(t(e), b"(" | b"[" | b"." | b"->" | b"*" | b"/")))
            .then_some((plus, w, Use::Stride))
        }
        _ => None,
    }
}

/// The sites of a body (tokens `open..close`).
pub fn extents(
    ctx: &crate::registry::FileCtx,
    lexed: &Lexed,
    open: usize,
    close: usize,
) -> Vec<Extent> {
    let src = ctx.src;
    let mut out = Vec::new();
    // The operator at token `op`: its use and the token after it (`==` and `!=` are two
    // tokens each, and `/=` is no count).
    let op_at = |op: usize| -> Option<(Use, usize)> {
        let next = lexed.next_code(op)?;
        let adjacent = lexed.tokens[next].start == lexed.tokens[op].end;
        match (text(src, lexed, op), text(src, lexed, next)) {
            (b"=", b"=") if adjacent => Some((Use::Equal(true), lexed.next_code(next)?)),
            (b"!", b"=") if adjacent => Some((Use::Equal(false), lexed.next_code(next)?)),
            (b"/", b"=") if adjacent => None,
            (b"/", _) => Some((Use::Count, next)),
            _ => None,
        }
    };
    for i in open..close {
        if lexed.tokens[i].kind != Tok::Ident {
            continue;
        }
        // `blockDim.x OP warpSize` or `warpSize ==/!= blockDim.x`.
        let site = if let Some(x) = block_x(src, lexed, i) {
            lexed
                .next_code(x)
                .and_then(op_at)
                .filter(|(_, w)| text(src, lexed, *w) == b"warpSize")
                .map(|(what, w)| (i, w, what))
        } else if text(src, lexed, i) == b"warpSize" {
            lexed
                .next_code(i)
                .and_then(op_at)
                .filter(|(what, _)| *what != Use::Count)
                .and_then(|(what, b)| Some((i, block_x(src, lexed, b)?, what)))
                .or_else(|| stride(src, lexed, i))
        } else {
            None
        };
        let Some((a, b, what)) = site else { continue };
        let (start, end) = (lexed.tokens[a].start as usize, lexed.tokens[b].end as usize);
        let written: String = String::from_utf8_lossy(&src[start..end])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let finding = ctx.finding(&super::BLOCK_IN_WAVEFRONTS, start..end, String::new(), None);
        out.push(Extent {
            finding,
            written,
            what,
        });
    }
    out
}

/// The project pass: HP111 on the sites some launch gives a block the wavefront changes.
pub fn blocks_in_wavefronts(findings: &mut Vec<Finding>, files: &[(&str, &FileRows)]) {
    if !files
        .iter()
        .any(|(_, f)| f.defs.iter().any(|d| !d.extents.is_empty()))
    {
        return;
    }
    // Each kernel's launches of known x extent.
    let mut launches: HashMap<&str, Vec<&(u64, String)>> = HashMap::new();
    for (_, f) in files {
        for l in &f.launches {
            if let Some(x) = &l.x {
                launches.entry(l.kernel.as_str()).or_default().push(x);
            }
        }
    }
    if launches.is_empty() {
        return;
    }
    let graph = super::call_graph::Graph::new(files);
    // The kernels reaching a function: itself if a kernel, else its callers' up to DEPTH.
    let reaching = |name: &str, path: &str, kernel: bool| -> Vec<String> {
        if kernel {
            return vec![name.to_string()];
        }
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        let mut level: Vec<(&str, &str)> = vec![(name, path)];
        let mut out = Vec::new();
        for _ in 0..DEPTH {
            let mut next = Vec::new();
            for (n, p) in level {
                for c in graph.callers(n, p) {
                    if seen.insert((c.name, c.path)) {
                        if c.kernel {
                            out.push(c.name.to_string());
                        } else {
                            next.push((c.name, c.path));
                        }
                    }
                }
            }
            level = next;
        }
        out.sort();
        out.dedup();
        out
    };
    let mut reported: HashSet<(String, u32)> = findings
        .iter()
        .filter(|f| f.rule == super::BLOCK_IN_WAVEFRONTS.id.code)
        .map(|f| (f.path.clone(), f.line))
        .collect();
    let mut added = Vec::new();
    for (path, f) in files {
        for d in f.defs.iter().filter(|d| !d.extents.is_empty()) {
            let mut strided: HashSet<&str> = HashSet::new();
            let mut steps: Vec<u32> = d
                .extents
                .iter()
                .filter(|e| e.what == Use::Stride)
                .map(|e| e.finding.line)
                .collect();
            steps.dedup();
            let ks = reaching(&d.name, path, d.kernel);
            for e in &d.extents {
                let changed = |x: u64| match e.what {
                    // Threads a wavefront count drops that a warp count keeps (16-thread
                    // blocks count 0 warps on NVIDIA too).
                    Use::Count => x % 64 > x % 32,
                    Use::Equal(_) => x == 32 || x == 64,
                    // A 32-thread row stepped by 64 leaves half its elements unvisited.
                    Use::Stride => x == 32,
                };
                let hit = ks.iter().find_map(|k| {
                    launches
                        .get(k.as_str())?
                        .iter()
                        .find(|(x, _)| changed(*x))
                        .map(|l| (k, l))
                });
                let Some((k, (x, shape))) = hit.map(|(k, l)| (k, (l.0, &l.1))) else {
                    continue;
                };
                if !reported.insert((e.finding.path.clone(), e.finding.line)) {
                    continue;
                }
                if e.what == Use::Stride && !strided.insert(d.name.as_str()) {
                    // One finding per function: the first step names the others.
                    continue;
                }
                let via = if d.kernel {
                    format!("`{k}`")
                } else {
                    format!("`{}`, reached from kernel `{k}`", d.name)
                };
                let mut g = e.finding.clone();
                let (message, fix) = match e.what {
                    Use::Count => (
                        format!(
                            "`{}` is {} for the {x}-thread blocks of {via} ({shape}) on a 64-lane wavefront ({} on NVIDIA): the block's last {} threads are in no counted warp, so what is read or reduced per warp after this misses them",
                            e.written,
                            x / 64,
                            x / 32,
                            x % 64
                        ),
                        "round the count up: `(blockDim.x + warpSize - 1) / warpSize`".to_string(),
                    ),
                    Use::Stride => {
                        let more = &steps[1.min(steps.len())..];
                        let others = match more {
                            [] => String::new(),
                            [l] => format!(" (and the step at line {l})"),
                            _ => format!(
                                " (and {} more steps, lines {})",
                                more.len(),
                                more.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                            ),
                        };
                        (
                            format!(
                                "`{}` steps a thread's index by `warpSize` in {via}, whose blocks have rows of {x} threads ({shape}){others}: on NVIDIA the step is 32 and the row's threads visit every element; on a 64-lane wavefront it is 64, so elements 32–63 of every 64 are never visited",
                                e.written
                            ),
                            "step by the row's width (`blockDim.x`, or 32 where the code's warps are 32-lane rows), not `warpSize`".to_string(),
                        )
                    }
                    Use::Equal(eq) => {
                        let nvidia = (x == 32) == eq;
                        (
                            format!(
                                "`{}` is {nvidia} on NVIDIA and {} on a 64-lane wavefront for the {x}-thread blocks of {via} ({shape}): the ROCm build takes the other arm",
                                e.written, !nvidia
                            ),
                            "compare the block with the width the code's warp path assumes (32 where its shuffles start at offset 16), not `warpSize`".to_string(),
                        )
                    }
                };
                g.message = message;
                g.suggestion = Some(fix);
                g.status = Status::Remediation;
                added.push(g);
            }
        }
    }
    findings.extend(added);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)]) -> Vec<Finding> {
        let rows = super::super::call_graph::rows_of(files);
        let refs: Vec<(&str, &FileRows)> = rows.iter().map(|(p, r)| (p.as_str(), r)).collect();
        let mut out = Vec::new();
        blocks_in_wavefronts(&mut out, &refs);
        out
    }

    /// flownet2's correlation: `blockReduceSum` counts warps with `blockDim.x / warpSize` and
    /// the kernel picks its reduction with `blockDim.x == warpSize`; every launch gives
    /// `dim3 threadsPerBlock(THREADS_PER_BLOCK)` with `#define THREADS_PER_BLOCK 32`.
    const KERNEL: &str = "template <typename T>\n__device__ T blockReduceSum(T val) {\n  static __shared__ T shared[32];\n  int lane = threadIdx.x % warpSize;\n  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;\n  return val;\n}\ntemplate <typename T>\n__global__ void corr(T* out) {\n  T acc = out[threadIdx.x];\n  if (blockDim.x == warpSize) { acc = acc; } else { acc = blockReduceSum<T>(acc); }\n  out[0] = acc;\n  int ceil = (blockDim.x + warpSize - 1) / warpSize;\n}\n";

    #[test]
    fn block_counts_and_tests_against_the_wavefront() {
        let launch = "#define THREADS_PER_BLOCK 32\nvoid go(float* o, int n) {\n  dim3 threadsPerBlock(THREADS_PER_BLOCK);\n  corr<float><<<n, threadsPerBlock>>>(o);\n}\n";
        let mut fs = run(&[("k.cuh", KERNEL), ("main.cu", launch)]);
        fs.sort_by_key(|f| f.line);
        let at: Vec<(u32, Status)> = fs.iter().map(|f| (f.line, f.status)).collect();
        assert_eq!(
            at,
            [(5, Status::Remediation), (11, Status::Remediation)],
            "{fs:?}"
        );
        assert!(
            fs[0].message.contains("is 0 for the 32-thread blocks of `blockReduceSum`, reached from kernel `corr` (`dim3 threadsPerBlock(THREADS_PER_BLOCK = 32, …)` at main.cu:3)"),
            "{}",
            fs[0].message
        );
        assert!(
            fs[1]
                .message
                .contains("is true on NVIDIA and false on a 64-lane wavefront"),
            "{}",
            fs[1].message
        );
        // Twins: 256-thread blocks are whole wavefronts; a block of unknown size says nothing.
        let wide = launch.replace(
            "#define THREADS_PER_BLOCK 32",
            "#define THREADS_PER_BLOCK 256",
        );
        assert!(run(&[("k.cuh", KERNEL), ("main.cu", &wide)]).is_empty());
        let unknown = "void go(float* o, int n, int t) {\n  corr<float><<<n, t>>>(o);\n}\n";
        assert!(run(&[("k.cuh", KERNEL), ("main.cu", unknown)]).is_empty());
        // 64-thread blocks: the count is whole, the equality flips (false on NVIDIA).
        let sixty_four = "void go(float* o, int n) {\n  corr<float><<<n, 64>>>(o);\n}\n";
        let fs = run(&[("k.cuh", KERNEL), ("main.cu", sixty_four)]);
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert_eq!(fs[0].line, 11);
        assert!(
            fs[0].message.contains("false on NVIDIA and true"),
            "{}",
            fs[0].message
        );
    }

    /// 96-thread blocks (`const int` in the launching file): one wavefront counted, 32 threads
    /// left out.
    #[test]
    fn a_partial_wavefront_is_left_out_of_the_count() {
        let kernel =
            "__global__ void k(float* o) {\n  int nw = blockDim.x / warpSize;\n  o[0] = nw;\n}\n";
        let launch = "const int kThreads = 96;\nvoid go(float* o) { k<<<1, kThreads>>>(o); }\n";
        let fs = run(&[("k.cu", kernel), ("m.cu", launch)]);
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert!(
            fs[0]
                .message
                .contains("is 1 for the 96-thread blocks of `k`")
                && fs[0].message.contains("last 32 threads"),
            "{}",
            fs[0].message
        );
        // The name's nearest definition above the launch decides: AMGX gives
        // `threads_per_block` 128 in one function and 32 in another.
        // A 16-thread block counts no warp on NVIDIA either: nothing the port changes.
        let small = "void go(float* o) { k<<<1, 16>>>(o); }\n";
        assert!(run(&[("k.cu", kernel), ("m.cu", small)]).is_empty());
        let scoped = "void a(float* o) {\n  const int t = 128;\n  k<<<1, t>>>(o);\n}\nvoid b(float* o) {\n  const int t = 32;\n  other<<<1, t>>>(o);\n}\n";
        assert!(run(&[("k.cu", kernel), ("m.cu", scoped)]).is_empty());
    }

    /// A softmax whose rows are 32 threads (`dim3 grid(n), block(32, heads);`, the block a
    /// later declarator of one `dim3` declaration) steps each row's columns by `warpSize`: one
    /// HP111 per kernel naming its other steps. Twins: rows of 64 or 128 threads, a step by
    /// `blockDim.x`, and a block of unknown width say nothing.
    #[test]
    fn a_row_of_32_threads_stepped_by_warp_size() {
        let kernel = "template <typename T>\n__global__ void softmax(T* qk, int n) {\n  int tid = threadIdx.x;\n  float m = -1e20f;\n  for (int c = tid; c < n; c += warpSize) m = fmaxf(m, qk[c]);\n  for (int c = tid; c < n; c += warpSize) qk[c] = expf(qk[c] - m);\n  for (int i = 0; i < 4; i++) { int c = tid + warpSize * i; qk[c] = 0; }\n}\n";
        let launch = "void go(float* q, int n, int heads, cudaStream_t s) {\n  dim3 grid(n), block(32, heads);\n  softmax<float><<<grid, block, 0, s>>>(q, n);\n}\n";
        let fs = run(&[("softmax.h", kernel), ("softmax.cu", launch)]);
        assert_eq!(fs.len(), 1, "{fs:?}");
        assert_eq!((fs[0].line, fs[0].status), (5, Status::Remediation));
        assert!(
            fs[0]
                .message
                .contains("`c += warpSize` steps a thread's index by `warpSize` in `softmax`")
                && fs[0]
                    .message
                    .contains("`dim3 block(32, …)` at softmax.cu:2")
                && fs[0].message.contains("(and 2 more steps, lines 6, 7)"),
            "{}",
            fs[0].message
        );
        for other in ["block(64, heads)", "block(128, heads)", "block(w, heads)"] {
            let l = launch.replace("block(32, heads)", other);
            assert!(
                run(&[("softmax.h", kernel), ("softmax.cu", &l)]).is_empty(),
                "{other}"
            );
        }
        let by_block = kernel
            .replace("+= warpSize", "+= blockDim.x")
            .replace("tid + warpSize * i", "tid + blockDim.x * i");
        assert!(run(&[("softmax.h", &by_block), ("softmax.cu", launch)]).is_empty());
        // A call's argument is no declaration: `dim3` must head the declarator list.
        let call = "void go(float* q, int n, dim3 block) {\n  use(n, block(32));\n  softmax<float><<<n, block>>>(q, n);\n}\n";
        assert!(run(&[("softmax.h", kernel), ("softmax.cu", call)]).is_empty());
    }
}
