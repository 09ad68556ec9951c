//! Lane exchanges across the rows of a block (HP112): a kernel every launch of which gives
//! blocks of several 32-thread rows (`dim3 block(32, 32)`, `block.x = 32; block.y = 32;`) has
//! one CUDA warp per row. On a 64-lane wavefront two rows share the wavefront, and HIP's
//! exchanges default to the wavefront: `__shfl(v, 0)` gives row 1 the value of row 0's lane 0,
//! and `__any(p)` answers for both rows. A read of a lane by index (`__shfl`, `__shfl_sync`
//! without a width) or a vote (`__any`, `__all`) in such a kernel, in a device function only
//! such kernels reach, or through a project wrapper that makes the exchange at the default
//! width (popsift's `shuffle(v, src)` in `assist.h`, called from `NormalizeL2::normalize`), no
//! longer keeps CUDA's meaning.
//!
//! The launches, the kernel, its helpers and the wrappers are usually in four different files,
//! so this is part of the project pass over each file's
//! [`FileRows`](super::launch_rows::FileRows): each function's exchange sites and calls come
//! from its own lex, the rows from every launch of the project. A site the file's own
//! logical-warp model already rewrites (HP109, width 32) is not reported again; a wrapper only
//! such kernels reach is reported inside, not at each call. Reductions (`__shfl_down` by
//! 16…1) are left alone: lane 0 of each row still gets its row's sum.

use super::launch_rows::{text, FileRows};
use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Lexed, Tok};
use std::collections::{HashMap, HashSet};

rule!(ROW_EXCHANGE_AT_WAVEFRONT_WIDTH, "HP112", WarpSize, Remediation, Correctness,
    summary: "A lane read by index (`__shfl(v, 0)`, `__shfl_sync(m, v, src)` with no width) or a vote (`__any`, `__all`) in a kernel every launch of which gives blocks of several 32-thread rows (`dim3 block(32, 32)`), in a device function only such kernels reach, or in a call of a project wrapper that makes the exchange at HIP's default width.",
    why: "On NVIDIA each 32-thread row of the block is one warp. On a 64-lane wavefront two rows share the wavefront and HIP's exchanges default to the whole wavefront: `__shfl(v, 0)` gives every lane of the second row the first row's lane 0, and a vote answers for both rows. Reductions by `__shfl_down` from 16 still leave each row's sum in its lane 0, so they are not reported. A read is REMEDIATION; a vote is UNKNOWN, as it may only keep both rows looping together over a guarded body.",
    bad: "// launched with dim3 block(32, 32)\nnorm = __shfl_sync(0xffffffff, norm, 0);",
    good: "norm = __shfl(norm, 0, 32);   // each row of 32 lanes is its own logical warp",
    fix: "Pass the row's width, 32, to the shuffle (a wrapper needs a width parameter: `shuffle(v, src, 32)`), and test a vote on the row's own half of the ballot (`(__ballot(p) >> (__lane_id() & 32)) & 0xffffffff`), or launch 64-wide rows and move the kernel to the wavefront.",
    refs: [super::REF_WAVE, super::REF_PORTING],
);

/// How many calls up from a device function the row kernels that reach it are followed.
const DEPTH: usize = 4;

/// What an exchange does with the wavefront.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A lane read by index at the default width (`__shfl(v, src)`).
    Read,
    /// A vote over the wavefront (`__any(p)`, `__all(p)`).
    Vote,
}

/// The exchange intrinsic named `name` called with `argc` arguments, when it works on the whole
/// wavefront: an index shuffle with no width, or a vote.
fn exchange(name: &[u8], argc: usize) -> Option<Kind> {
    match (name, argc) {
        (b"__shfl", 2) | (b"__shfl_sync", 3) => Some(Kind::Read),
        (b"__any" | b"__all", 1) | (b"__any_sync" | b"__all_sync", 2) => Some(Kind::Vote),
        _ => None,
    }
}

/// A call in a function body: the callee's name, the call's text and place.
pub struct Call {
    name: String,
    argc: usize,
    written: String,
    finding: Finding,
    kind: Option<Kind>,
}

/// What one function contributes: its exchange sites and calls, and whether it is itself a
/// wrapper of an exchange (a body of a few tokens making one at the default width).
#[derive(Default)]
pub struct Exchanges {
    calls: Vec<Call>,
    /// The exchange it wraps, its line, and how many parameters the wrapper takes.
    wraps: Option<(Kind, u32, usize)>,
    /// A wrapper that takes the width (`__shfl(v, src, ws)` with `ws` its parameter).
    takes_width: bool,
}

/// How many code tokens a wrapper's body may have (`{ return __shfl_sync(0xffffffff, v, s); }`).
const WRAPPER_TOKENS: usize = 40;

/// The token closing the `(` at `open`.
fn close_of(src: &[u8], lexed: &Lexed, open: usize, end: usize) -> Option<usize> {
    let mut depth = 0i32;
    for j in open..end {
        if lexed.tokens[j].kind == Tok::Comment {
            continue;
        }
        match text(src, lexed, j) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The sites of a body (tokens `open..close`, its braces).
pub fn exchanges(
    ctx: &crate::registry::FileCtx,
    lexed: &Lexed,
    open: usize,
    close: usize,
) -> Exchanges {
    let src = ctx.src;
    let mut out = Exchanges::default();
    let arity = parameters(src, lexed, open);
    let code = (open..=close)
        .filter(|&i| lexed.tokens[i].kind != Tok::Comment)
        .count();
    let mut i = open;
    while i < close {
        if lexed.tokens[i].kind != Tok::Ident || lexed.tokens[i].in_directive() {
            i += 1;
            continue;
        }
        let name = text(src, lexed, i);
        let Some(paren) = lexed
            .next_code(i)
            .filter(|&p| p < close && text(src, lexed, p) == b"(")
        else {
            i += 1;
            continue;
        };
        let Some(end) = close_of(src, lexed, paren, close) else {
            break;
        };
        // The arguments at depth 1.
        let mut commas = 0usize;
        let mut any = false;
        let mut depth = 0i32;
        let mut lane_words = false;
        for j in paren + 1..end {
            if lexed.tokens[j].kind == Tok::Comment {
                continue;
            }
            any = true;
            let t = text(src, lexed, j);
            match t {
                b"(" | b"[" | b"{" => depth += 1,
                b")" | b"]" | b"}" => depth -= 1,
                b"," if depth == 0 => commas += 1,
                _ => {}
            }
            lane_words |= matches!(t, b"__lane_id" | b"warpSize" | b"__popc");
        }
        let argc = if any { commas + 1 } else { 0 };
        let kind = exchange(name, argc).filter(|_| !lane_words);
        let keyword = matches!(
            name,
            b"if" | b"for" | b"while" | b"switch" | b"return" | b"sizeof" | b"decltype"
        );
        if kind.is_some() && code <= WRAPPER_TOKENS {
            out.wraps = kind
                .zip(arity)
                .map(|(k, n)| (k, lexed_line(ctx, lexed, i), n));
        }
        if code <= WRAPPER_TOKENS
            && ((name == b"__shfl_sync" && argc == 4) || (name == b"__shfl" && argc == 3))
        {
            out.takes_width = true;
        }
        let plain = !name.starts_with(b"__") && !keyword && (1..=3).contains(&argc);
        if kind.is_some() || plain {
            // The call's text from its first qualifier (`popsift::shuffle`).
            let mut first = i;
            while let Some(q) = lexed
                .prev_code(first)
                .filter(|&q| text(src, lexed, q) == b"::")
            {
                match lexed
                    .prev_code(q)
                    .filter(|&n| lexed.tokens[n].kind == Tok::Ident)
                {
                    Some(n) => first = n,
                    None => break,
                }
            }
            let range = lexed.tokens[first].start as usize..lexed.tokens[end].end as usize;
            let written: String = String::from_utf8_lossy(&src[range.clone()])
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            out.calls.push(Call {
                name: String::from_utf8_lossy(name).into_owned(),
                argc,
                written,
                finding: ctx.finding(&ROW_EXCHANGE_AT_WAVEFRONT_WIDTH, range, String::new(), None),
                kind,
            });
        }
        i += 1;
    }
    out
}

/// How many parameters the function whose body opens at token `open` takes: its parameter
/// list is the `(…)` before the body (past `const`, `noexcept`); `None` when not found.
fn parameters(src: &[u8], lexed: &Lexed, open: usize) -> Option<usize> {
    let mut p = lexed.prev_code(open)?;
    for _ in 0..3 {
        if text(src, lexed, p) == b")" {
            break;
        }
        p = lexed.prev_code(p)?;
    }
    if text(src, lexed, p) != b")" {
        return None;
    }
    let (mut depth, mut commas, mut any) = (0i32, 0usize, false);
    let mut j = p;
    loop {
        j = lexed.prev_code(j)?;
        match text(src, lexed, j) {
            b")" | b"]" | b">" => depth += 1,
            b"(" if depth == 0 => break,
            b"(" | b"[" | b"<" => depth -= 1,
            b"," if depth == 0 => commas += 1,
            b"void" if depth == 0 && !any => {}
            _ => any = true,
        }
        if text(src, lexed, j) != b"void" {
            any = true;
        }
    }
    Some(if any { commas + 1 } else { 0 })
}

fn lexed_line(ctx: &crate::registry::FileCtx, lexed: &Lexed, i: usize) -> u32 {
    ctx.lines
        .position(ctx.src, lexed.tokens[i].start as usize)
        .line
}

/// The project pass: HP112 on the exchanges of functions only row kernels reach.
pub fn rows_sharing_a_wavefront(findings: &mut Vec<Finding>, files: &[(&str, &FileRows)]) {
    // Each kernel's launches: every one 32 wide and of several (or unknown) rows.
    let rows = super::call_graph::kernels_launched_only(files, |l| {
        l.x.as_ref().is_some_and(|(x, _)| *x == 32) && !l.one_row
    });
    if rows.is_empty() {
        return;
    }
    // Who calls each function; the project's wrappers by name.
    let graph = super::call_graph::Graph::new(files);
    let mut wrappers: HashMap<(&str, usize), (Kind, String)> = HashMap::new();
    let mut widths: HashSet<&str> = HashSet::new();
    for (path, d) in super::call_graph::defs(files) {
        if let Some((k, line, n)) = d.exchanges.wraps {
            wrappers
                .entry((d.name.as_str(), n))
                .or_insert((k, format!("{path}:{line}")));
        }
        if d.exchanges.takes_width {
            widths.insert(d.name.as_str());
        }
    }
    // The functions (by name and file) only row kernels reach, with the kernel that shows it.
    let reach = super::call_graph::reached_only_from(files, &graph, &rows, DEPTH);
    let reached: HashSet<&str> = reach.keys().map(|(n, _)| *n).collect();
    // Sites the file's own logical-warp model rewrites (HP109) are not reported again.
    let mut reported: HashSet<(String, u32)> = findings
        .iter()
        .filter(|f| f.rule == "HP109" || f.rule == ROW_EXCHANGE_AT_WAVEFRONT_WIDTH.id.code)
        .map(|f| (f.path.clone(), f.line))
        .collect();
    let mut added = Vec::new();
    for (path, f) in files {
        for d in &f.defs {
            let Some(&(kernel, shape)) = reach.get(&(d.qualified.as_str(), *path)) else {
                continue;
            };
            for c in &d.exchanges.calls {
                let (kind, through) = match c.kind {
                    Some(k) => (k, None),
                    None => match wrappers.get(&(c.name.as_str(), c.argc)) {
                        // A wrapper the row kernels alone reach is reported inside.
                        Some((k, at)) if !reached.contains(c.name.as_str()) => {
                            (*k, Some(at.as_str()))
                        }
                        _ => continue,
                    },
                };
                if !reported.insert((c.finding.path.clone(), c.finding.line)) {
                    continue;
                }
                let whose = if d.kernel {
                    format!(
                        "`{}`, which every launch gives blocks of several 32-thread rows ({shape})",
                        d.name
                    )
                } else {
                    format!("`{}`, reached only from kernels whose every launch gives blocks of several 32-thread rows (`{kernel}`: {shape})", d.name)
                };
                let how = match through {
                    Some(at) => format!("`{}` ({at}) makes the exchange at HIP's default width, the whole 64-lane wavefront", c.name),
                    None => "HIP makes the exchange over the whole 64-lane wavefront".to_string(),
                };
                let (what, fix) = match kind {
                    Kind::Read => (
                        "the second row of each wavefront reads the first row's lanes",
                        match through {
                            Some(_) if widths.contains(c.name.as_str()) => format!(
                                "pass the row's width: the project's `{}` overload that takes a width, with 32",
                                c.name
                            ),
                            Some(_) => format!("give `{}` a width parameter and pass 32 here", c.name),
                            None => "pass width 32 (`__shfl(v, src, 32)`)".to_string(),
                        },
                    ),
                    Kind::Vote => (
                        "the vote answers for both rows of each wavefront",
                        "test the row's own half of the ballot: `((__ballot(p) >> (__lane_id() & 32)) & 0xffffffffull) != 0` for any".to_string(),
                    ),
                };
                let mut g = c.finding.clone();
                g.message = format!(
                    "`{}` in {whose}: on NVIDIA each row is one warp, on AMD two rows share a 64-lane wavefront and {how}, so {what}",
                    c.written
                );
                g.suggestion = Some(fix);
                // A read gives the second row another row's value; a vote may only keep both
                // rows looping together (`while (any(i < n))` over a guarded body): checked.
                g.status = match kind {
                    Kind::Read => Status::Remediation,
                    Kind::Vote => Status::Unknown,
                };
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
        let view: Vec<(&str, &FileRows)> = rows.iter().map(|(p, r)| (p.as_str(), r)).collect();
        let mut out = Vec::new();
        rows_sharing_a_wavefront(&mut out, &view);
        out
    }

    const ASSIST: &str = "template<typename T> __device__ inline T shuffle(T v, int src) { return __shfl_sync(0xffffffff, v, src); }\n\
template<typename T> __device__ inline T shuffle(T v, int src, int ws) { return __shfl_sync(0xffffffff, v, src, ws); }\n\
template<typename T> __device__ inline T shuffle_down(T v, int d) { return __shfl_down_sync(0xffffffff, v, d); }\n";

    const NORM: &str = "#include \"assist.h\"\n\
__device__ inline void normalize(float* f) {\n\
  float norm = f[threadIdx.x];\n\
  norm += shuffle_down(norm, 16);\n\
  norm += shuffle_down(norm, 8);\n\
  norm = popsift::shuffle(norm, 0);\n\
  f[threadIdx.x] /= norm;\n\
}\n\
__global__ void normalize_histogram(float* d) { normalize(d + blockIdx.x * 1024 + threadIdx.y * 32); }\n";

    #[test]
    fn a_wrapper_read_in_rows_that_share_a_wavefront() {
        let launch = "#include \"norm.h\"\nvoid go(float* d) {\n  dim3 block;\n  block.x = 32;\n  block.y = 32;\n  block.z = 1;\n  normalize_histogram<<<4, block>>>(d);\n}\n";
        // The wrapper alone, reached only from the rows, is reported inside.
        let f = run(&[("assist.h", ASSIST), ("norm.h", NORM), ("desc.cu", launch)]);
        let at: Vec<(&str, u32)> = f.iter().map(|x| (x.path.as_str(), x.line)).collect();
        assert_eq!(at, [("assist.h", 1)], "{f:#?}");
        // Called from a kernel of 64-wide blocks too, at the call in the rows.
        let other = "#include \"assist.h\"\n__global__ void other(float* d) { d[0] = shuffle(d[0], 1); }\nvoid run(float* d) { other<<<1, 64>>>(d); }\n";
        let f = run(&[
            ("assist.h", ASSIST),
            ("norm.h", NORM),
            ("desc.cu", launch),
            ("other.cu", other),
        ]);
        assert_eq!(f.len(), 1, "{f:#?}");
        let x = &f[0];
        assert_eq!(
            (x.rule.as_str(), x.path.as_str(), x.line),
            ("HP112", "norm.h", 6)
        );
        assert_eq!(x.status, Status::Remediation);
        assert!(
            x.message.contains("`popsift::shuffle(norm, 0)`"),
            "{}",
            x.message
        );
        assert!(x.message.contains("assist.h:1"), "{}", x.message);
        assert!(
            x.message.contains("`block.x = 32` at desc.cu:4"),
            "{}",
            x.message
        );
        assert!(x
            .suggestion
            .as_deref()
            .unwrap()
            .contains("overload that takes a width"));
    }

    #[test]
    fn one_row_blocks_and_other_launches_are_left_alone() {
        // A block of one 32-thread row: the wavefront's other half does not run.
        let one = "#include \"norm.h\"\nvoid go(float* d) { dim3 block(32, 1); normalize_histogram<<<4, block>>>(d); }\n";
        assert!(run(&[("assist.h", ASSIST), ("norm.h", NORM), ("a.cu", one)]).is_empty());
        let one = "#include \"norm.h\"\nvoid go(float* d) { normalize_histogram<<<4, 32>>>(d); }\n";
        assert!(run(&[("assist.h", ASSIST), ("norm.h", NORM), ("a.cu", one)]).is_empty());
        let one = "#include \"norm.h\"\nvoid go(float* d) { dim3 b; b.x = 32; b.y = 32; b.y = 1; normalize_histogram<<<4, b>>>(d); }\n";
        assert!(run(&[("assist.h", ASSIST), ("norm.h", NORM), ("a.cu", one)]).is_empty());
        // Launched elsewhere with 64-wide rows too: its rows are not known to be warps.
        let two = "#include \"norm.h\"\nvoid go(float* d) { dim3 b(32, 32); normalize_histogram<<<4, b>>>(d); dim3 c(64, 16); normalize_histogram<<<4, c>>>(d); }\n";
        assert!(run(&[("assist.h", ASSIST), ("norm.h", NORM), ("a.cu", two)]).is_empty());
    }

    #[test]
    fn direct_reads_and_votes_are_reported_and_widths_are_not() {
        let k = "__global__ void k(float* d, int* o) {\n\
  float v = d[threadIdx.x];\n\
  float a = __shfl_sync(0xffffffff, v, 0);\n\
  float b = __shfl_sync(0xffffffff, v, 0, 32);\n\
  float c = __shfl_down_sync(0xffffffff, v, 16);\n\
  if (__any_sync(0xffffffff, v > 0)) o[0] = 1;\n\
}\n\
void go(float* d, int* o) { k<<<1, dim3(32, 8)>>>(d, o); }\n";
        let f = run(&[("k.cu", k)]);
        let lines: Vec<u32> = f.iter().map(|x| x.line).collect();
        assert_eq!(lines, [3, 6], "{f:#?}");
        assert!(f[1].message.contains("vote answers for both rows"));
        assert_eq!(
            (f[0].status, f[1].status),
            (Status::Remediation, Status::Unknown)
        );
    }
}
