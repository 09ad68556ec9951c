//! Warp-level intrinsics written inside the file's function-like macros (nheqminer's
//! `#define CHECK_DUP(a) __any(…)`): calls a port leaves as written, since every use of the
//! macro shares its body. The translator reports them where the macro is used in functions of
//! 32-lane logical warps; the lane ids of such functions are settled naming them.

use crate::lex::Lexed;

use super::{SHUFFLES, VOTES};

/// The ballots a macro body may keep in 32 bits (`__activemask` takes no predicate).
const BALLOTS: &[&str] = &["__ballot_sync", "__ballot"];

/// One intrinsic call in a macro body.
pub(crate) struct MacroCall {
    /// The macro's name.
    pub(crate) macro_name: String,
    /// The intrinsic's name token.
    pub(crate) tok: usize,
    /// The intrinsic's name.
    pub(crate) name: &'static str,
}

impl MacroCall {
    pub(crate) fn is_vote(&self) -> bool {
        VOTES.contains(&self.name)
    }
    pub(crate) fn is_ballot(&self) -> bool {
        BALLOTS.contains(&self.name)
    }
}

/// The votes, ballots and width-less shuffles called in the bodies of the file's function-like
/// macros (a shuffle given a width is what AMD's ports write already).
pub(crate) fn macro_calls(src: &[u8], lexed: &Lexed) -> Vec<MacroCall> {
    let text = |j: usize| lexed.tokens[j].text(src);
    let mut out = Vec::new();
    for d in lexed.directives.iter().filter(|d| d.name == "define") {
        let Some((n, toks)) = super::exchange::function_like(src, lexed, d) else {
            continue;
        };
        // A compat spelling of an intrinsic itself (`#define __shfl_xor_sync(m, v, l)
        // __shfl_xor(v, l)` under the project's ROCm switch) is the intrinsic: its calls are
        // rewritten where they are written.
        if VOTES
            .iter()
            .chain(BALLOTS)
            .chain(SHUFFLES)
            .any(|x| x.as_bytes() == text(n))
        {
            continue;
        }
        let Some(body) = toks.iter().position(|&j| text(j) == b")").map(|k| k + 1) else {
            continue;
        };
        for k in body..toks.len() {
            let Some(name) = VOTES
                .iter()
                .chain(BALLOTS)
                .chain(SHUFFLES)
                .find(|x| x.as_bytes() == text(toks[k]))
            else {
                continue;
            };
            if toks.get(k + 1).is_none_or(|&c| text(c) != b"(") {
                continue;
            }
            if SHUFFLES.contains(name) && width_given(src, lexed, &toks[k..], name) {
                continue;
            }
            out.push(MacroCall {
                macro_name: String::from_utf8_lossy(text(n)).into_owned(),
                tok: toks[k],
                name,
            });
        }
    }
    out
}

/// Whether the shuffle whose name starts `rest` passes a width (one more argument than its
/// width-less form).
fn width_given(src: &[u8], lexed: &Lexed, rest: &[usize], name: &str) -> bool {
    let mut depth = 0i32;
    let mut args = 1;
    for &j in rest.iter().skip(1) {
        match lexed.tokens[j].text(src) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b"," if depth == 1 => args += 1,
            _ => {}
        }
    }
    args > if name.ends_with("_sync") { 3 } else { 2 }
}
