//! The functions a header defines and the names each calls, read from tokens for the project
//! model: which of the project's functions do warp-level work, so that a function in another
//! file calling one is not judged to "exchange nothing". graphvite's kernels count warps with
//! `thread_id / kWarpSize` and call `model.forward(…)`, whose body in
//! `include/instance/model/knowledge_graph.h` reduces through the project's `SUM` macro: the
//! kernel's 32-lane groups meet that reduction.

use crate::model::project::FnCalls;
use crate::model::token_fns::{Block, Code};

/// At most this many called names are kept per function.
const MAX_CALLS: usize = 64;

/// The device functions a file defines (a body [`Code::block`] reads as a function's, with
/// `__device__`, `__global__` or a macro naming the device before the name), each with whether
/// its body does warp-level work itself (a warp primitive, or a call of one of the file's
/// warp-work macros; a name that only sounds warp-level, `Scanner::scan`, is not) and the names
/// it calls (`name(`, or a kernel launched `name<<<…>>>`), deduplicated, in order.
pub(crate) fn function_calls(src: &[u8], lexed: &crate::lex::Lexed) -> Vec<FnCalls> {
    let c = Code::of(src, lexed);
    let t = |k: usize| c.t(k);
    let macros = super::exchange::warp_work_macros(src, lexed);
    let mut out = Vec::new();
    for k in 0..c.toks.len() {
        if t(k) != b"{" {
            continue;
        }
        let (Block::Function(at), Some(end)) = (c.block(k), c.close(k)) else {
            continue;
        };
        // Device code only: the head before the name (back to the previous statement or
        // block) says `__device__`/`__global__` or a project macro for it (`CUTLASS_DEVICE`,
        // `HOST_DEVICE_INLINE`). Host functions are no lanes' code.
        let device = (0..at)
            .rev()
            .take_while(|&h| !matches!(t(h), b";" | b"{" | b"}"))
            .any(|h| {
                let w = t(h).to_ascii_lowercase();
                w == b"__global__" || w.windows(6).any(|x| x == b"device")
            });
        if !device {
            continue;
        }
        let mut direct = false;
        let mut calls: Vec<String> = Vec::new();
        for j in k + 1..end {
            if !c.ident(j) {
                continue;
            }
            let w = t(j);
            let next = |n: usize| (j + n < end).then(|| t(j + n));
            let launched = next(1) == Some(b"<<<")
                || (next(1) == Some(b"<<") && next(2) == Some(b"<"))
                || (next(1) == Some(b"<") && next(2) == Some(b"<") && next(3) == Some(b"<"));
            let called = next(1) == Some(b"(") || launched;
            if (super::exchange::exchanges(w) && w != b"warpSize")
                || (called && macros.iter().any(|m| m.as_bytes() == w))
            {
                direct = true;
            }
            if called && calls.len() < MAX_CALLS && !crate::model::token_fns::keyword_head(w) {
                let w = String::from_utf8_lossy(w);
                if !calls.iter().any(|c| *c == w) {
                    calls.push(w.into_owned());
                }
            }
        }
        out.push(FnCalls {
            name: String::from_utf8_lossy(t(at)).into_owned(),
            direct,
            calls,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(src: &str) -> Vec<FnCalls> {
        function_calls(src.as_bytes(), &crate::lex::lex(src.as_bytes()))
    }

    /// graphvite's shape (Apache-2.0): a model method reducing through the project's macro, a
    /// kernel calling the method. Twins: a control statement is no function; a body without
    /// warp-level work is not direct.
    #[test]
    fn functions_with_their_calls_and_direct_warp_work() {
        let src = "#define SUM(x) WarpReduce(x)\nstruct M {\n  __host__ __device__\n  static void forward(float &o) { o = SUM(o); }\n};\n__global__ void k(M m, float *p) {\n  if (p) { m.forward(*p); }\n}\nHOST_DEVICE int plain(int a) { return a + 1; }\nint host(int a) { return __shfl_sync(0xffffffff, a, 0); }\n";
        let got = calls(src);
        let names: Vec<(&str, bool)> = got.iter().map(|c| (c.name.as_str(), c.direct)).collect();
        assert_eq!(names, [("forward", true), ("k", false), ("plain", false)]);
        assert_eq!(got[1].calls, ["forward"]);
        assert!(got[2].calls.is_empty());
    }
}
