//! Arms for CUDA before 3.2 that HIP compiles. CUDA 3.2 moved its memory sizes to `size_t`
//! (the `_v2` driver API: `cuMemGetInfo(size_t*, size_t*)`, `cuDeviceTotalMem(size_t*, …)`);
//! code that still builds for older toolkits keeps `#if CUDA_VERSION >= 3020` / `size_t n;` /
//! `#else` / `unsigned int n;`. HIP defines no `CUDA_VERSION`, so it takes the old arm, and
//! HIP's API follows current CUDA: the `unsigned int*` it passes stops the build (beagle-lib's
//! `GPUInterfaceCUDA.cpp`). Not a lost feature: a build error whose fix is the condition.

use super::{code_tokens, Src};
use crate::lex::Tok;
use std::ops::Range;

/// The type words the two arms may differ by.
const TYPE_WORDS: &[&str] = &["size_t", "unsigned", "int", "long", "std", "::"];

/// The variables HIP's arm declares with a 32-bit type where CUDA's arm declares the same
/// statements with `size_t`, whose address some call of a CUDA API in the file takes, with that
/// call's name. `None` unless the arms are the same tokens once the type words are dropped.
pub(super) fn narrow_sizes(
    s: &Src,
    hip: &Range<usize>,
    cuda: &Range<usize>,
) -> Option<(Vec<String>, String)> {
    let (h, c) = (code_tokens(s, hip), code_tokens(s, cuda));
    let strip = |v: &[usize]| -> Vec<&str> {
        v.iter()
            .map(|&i| s.tok(i))
            .filter(|t| !TYPE_WORDS.contains(t))
            .collect()
    };
    let (hs, cs) = (strip(&h), strip(&c));
    if hs.is_empty() || hs != cs {
        return None;
    }
    let has = |v: &[usize], w: &str| v.iter().any(|&i| s.tok(i) == w);
    if !has(&c, "size_t") || has(&h, "size_t") || !has(&h, "int") && !has(&h, "unsigned") {
        return None;
    }
    // The names HIP's arm declares: an identifier right after a type word.
    let declared: Vec<String> = h
        .windows(2)
        .filter(|w| {
            matches!(s.tok(w[0]), "int" | "unsigned" | "long")
                && s.lexed.tokens[w[1]].kind == Tok::Ident
                && !TYPE_WORDS.contains(&s.tok(w[1]))
        })
        .map(|w| s.tok(w[1]).to_string())
        .collect();
    // `&name` as an argument of a CUDA API call anywhere in the file (inside the arm, or after
    // `#endif`: `cuDeviceTotalMem(&total, dev)`).
    let toks = &s.lexed.tokens;
    let all: Vec<usize> = (0..toks.len())
        .filter(|&i| toks[i].kind != Tok::Comment && !toks[i].in_directive())
        .collect();
    for (k, &i) in all.iter().enumerate() {
        if s.tok(i) != "&" || k + 1 >= all.len() || !declared.iter().any(|d| d == s.tok(all[k + 1]))
        {
            continue;
        }
        let mut depth = 0i32;
        for j in (0..k).rev() {
            match s.tok(all[j]) {
                ")" => depth += 1,
                "(" if depth > 0 => depth -= 1,
                "(" => {
                    let callee = j.checked_sub(1).map_or("", |p| s.tok(all[p]));
                    if callee.starts_with("cu") && toks[all[j - 1]].kind == Tok::Ident {
                        return Some((declared, callee.to_string()));
                    }
                    break;
                }
                ";" | "{" | "}" => break,
                _ => {}
            }
        }
    }
    None
}
