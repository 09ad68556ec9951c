//! The functions a header defines and the names each calls, read from tokens for the project
//! model: which of the project's functions do warp-level work, so that a function in another
//! file calling one is not judged to "exchange nothing". graphvite's kernels count warps with
//! `thread_id / kWarpSize` and call `model.forward(…)`, whose body in
//! `include/instance/model/knowledge_graph.h` reduces through the project's `SUM` macro: the
//! kernel's 32-lane groups meet that reduction.

use crate::lex::{Tok, NO_DIRECTIVE};
use crate::model::project::FnCalls;

/// Names that open a parenthesised statement head, never a function definition's name.
const NOT_FUNCTIONS: [&[u8]; 12] = [
    b"if",
    b"for",
    b"while",
    b"switch",
    b"catch",
    b"return",
    b"sizeof",
    b"decltype",
    b"alignas",
    b"__attribute__",
    b"__launch_bounds__",
    b"defined",
];

/// At most this many called names are kept per function.
const MAX_CALLS: usize = 64;

/// The device functions a file defines (a name, its parameter list and a `{` body, with
/// `const`, `noexcept`, `override` or `final` between; `__device__`, `__global__` or a macro
/// naming the device before the name), each with whether its body does warp-level work
/// itself (a warp primitive, or a call of one of the file's warp-work macros; a name that
/// only sounds warp-level, `Scanner::scan`, is not) and the names it calls (`name(`, or a kernel launched
/// `name<<<…>>>`), deduplicated, in order.
pub(crate) fn function_calls(src: &[u8], lexed: &crate::lex::Lexed) -> Vec<FnCalls> {
    let toks = &lexed.tokens;
    let code: Vec<usize> = (0..toks.len())
        .filter(|&i| toks[i].kind != Tok::Comment && toks[i].directive == NO_DIRECTIVE)
        .collect();
    let t = |k: usize| toks[code[k]].text(src);
    // Matching brackets, by position in `code`.
    let mut partner: Vec<Option<usize>> = vec![None; code.len()];
    let (mut parens, mut braces) = (Vec::new(), Vec::new());
    for k in 0..code.len() {
        match t(k) {
            b"(" => parens.push(k),
            b")" => {
                if let Some(o) = parens.pop() {
                    partner[k] = Some(o);
                    partner[o] = Some(k);
                }
            }
            b"{" => braces.push(k),
            b"}" => {
                if let Some(o) = braces.pop() {
                    partner[k] = Some(o);
                    partner[o] = Some(k);
                }
            }
            _ => {}
        }
    }
    let macros = super::exchange::warp_work_macros(src, lexed);
    let mut out = Vec::new();
    for k in 0..code.len() {
        if t(k) != b"{" {
            continue;
        }
        let Some(end) = partner[k] else { continue };
        let mut p = k;
        while p > 0 && matches!(t(p - 1), b"const" | b"noexcept" | b"override" | b"final") {
            p -= 1;
        }
        if p == 0 || t(p - 1) != b")" {
            continue;
        }
        let Some(open) = partner[p - 1].filter(|&o| o > 0) else {
            continue;
        };
        let name = t(open - 1);
        if toks[code[open - 1]].kind != Tok::Ident || NOT_FUNCTIONS.contains(&name) {
            continue;
        }
        // Device code only: the head before the name (back to the previous statement or
        // block) says `__device__`/`__global__` or a project macro for it (`CUTLASS_DEVICE`,
        // `HOST_DEVICE_INLINE`). Host functions are no lanes' code.
        let device = (0..open - 1)
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
            if toks[code[j]].kind != Tok::Ident {
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
            if called && calls.len() < MAX_CALLS && !NOT_FUNCTIONS.contains(&w) {
                let w = String::from_utf8_lossy(w);
                if !calls.iter().any(|c| *c == w) {
                    calls.push(w.into_owned());
                }
            }
        }
        out.push(FnCalls {
            name: String::from_utf8_lossy(name).into_owned(),
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
