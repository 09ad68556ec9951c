//! Warp-level calls that may reach the project's own overload of the intrinsic. A project that
//! shuffles its own types defines the intrinsic's name for them in its namespace (curobo's
//! `__device__ CollisionPair __shfl_down_sync(const unsigned, const CollisionPair&, const int&)`);
//! C++ finds it from any unqualified call by argument-dependent lookup, so a template's
//! `__shfl_down_sync(mask, val, offset)` calls HIP's function for a `float` and the project's
//! for a `CollisionPair`. A rewrite that changes the call's shape (width 32 as a fourth
//! argument, the mask-less `__shfl_down` of a target without `_sync` forms) matches HIP's
//! function only, and the instantiation for the project's type stops at "no matching
//! function". The model marks such calls once per file; the rewrites ask it and give way
//! unless the overload takes the rewritten call (a width parameter of its own).
//!
//! A call reaches no overload when its value argument has a type HIP's intrinsic takes: a
//! literal, a cast to a scalar type, a vector component (`p.x`), or a name declared with a
//! scalar type. Anything else (a template parameter's type, a class, an expression whose type
//! the tokens do not show) may reach it.

use super::View;
use crate::lex::Tok;
use crate::model::own::OwnRef;
use crate::model::project::Visible;
use std::collections::BTreeMap;

/// The project's overload a call may reach, and why.
#[derive(Clone, Debug)]
pub(crate) struct Overload {
    /// `ns::__shfl_down_sync`.
    pub(crate) qualified: String,
    /// `path:line` of its definition.
    pub(crate) at: String,
    /// The arguments it takes: without defaults, in all.
    pub(crate) arity: (usize, usize),
    /// Why the call may reach it (`` `val` is a `ValueType` ``).
    pub(crate) why: String,
}

/// Types HIP's warp intrinsics take (and their spellings through `<cstdint>`).
const SCALARS: &[&str] = &[
    "bool",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "unsigned",
    "signed",
    "size_t",
    "ptrdiff_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "uint",
    "ushort",
    "uchar",
    "ulong",
];

fn scalar(t: &[u8]) -> bool {
    SCALARS.iter().any(|s| s.as_bytes() == t)
}

/// The calls of the file (token index of the name) that may reach an overload the project
/// defines in its own namespace: in this file (`path`) or in any project header (`env`).
pub(super) fn reached(v: &View, path: &str, env: &Visible) -> BTreeMap<usize, Overload> {
    let mut defs: BTreeMap<String, Vec<OwnRef>> = env
        .overloads
        .iter()
        .filter(|(name, _)| super::warp_level_name(name.as_bytes()))
        .map(|(name, refs)| (name.clone(), refs.clone()))
        .collect();
    let own = crate::model::own::sweep(
        v.src,
        v.lexed,
        &|n| super::warp_level_name(n.as_bytes()),
        &|s| matches!(s, "cub" | "cuda" | "thrust" | "cooperative_groups" | "cg"),
        &|_| false,
    );
    for d in own.defs {
        if d.member || !d.body || d.scope.is_empty() {
            continue;
        }
        defs.entry(d.name).or_default().push(OwnRef {
            at: format!("{path}:{}", d.line),
            scope: d.scope,
            member: false,
            body: true,
            arity: d.arity,
        });
    }
    let mut out = BTreeMap::new();
    if defs.is_empty() {
        return out;
    }
    for i in 0..v.lexed.tokens.len() {
        if !v.code(i) || v.lexed.tokens[i].kind != Tok::Ident {
            continue;
        }
        let Ok(name) = std::str::from_utf8(v.t(i)) else {
            continue;
        };
        let Some(found) = defs.get(name) else {
            continue;
        };
        if !v.is(v.next(i), "(") || !unqualified_call(v, i) {
            continue;
        }
        let Some(args) = args(v, i) else { continue };
        let value = if name.ends_with("_sync") { 1 } else { 0 };
        let Some(&(a, b)) = args.get(value) else {
            continue;
        };
        let Some(why) = may_reach(v, i, a, b) else {
            continue;
        };
        let d = &found[0];
        out.insert(
            i,
            Overload {
                qualified: format!("{}::{name}", d.scope),
                at: d.at.clone(),
                arity: d.arity,
                why,
            },
        );
    }
    out
}

/// A call, not a declaration (`T __shfl_down_sync(`), member (`a.f(`) or qualified name
/// (`::f(`, `ns::f(`).
fn unqualified_call(v: &View, i: usize) -> bool {
    let Some(p) = v.prev(i) else { return true };
    let t = v.t(p);
    if matches!(t, b"::" | b"." | b"->" | b"*" | b"&" | b">") {
        return false;
    }
    v.lexed.tokens[p].kind != Tok::Ident
        || crate::translate::compat::NOT_A_TYPE.contains(&t)
        || matches!(t, b"return" | b"else" | b"do" | b"case")
}

/// The argument token ranges (half-open) of the call at `i`.
fn args(v: &View, i: usize) -> Option<Vec<(usize, usize)>> {
    let open = v.next(i)?;
    let close = v.matching(open)?;
    Some(
        super::votes::arguments(v, open, close)
            .into_iter()
            .map(|(a, b)| (a, b + 1))
            .collect(),
    )
}

/// Why the value argument `a..b` may have a type of the project's (`None`: a scalar HIP's
/// intrinsic takes).
fn may_reach(v: &View, call: usize, a: usize, b: usize) -> Option<String> {
    let toks: Vec<usize> = (a..b).filter(|&j| v.code(j)).collect();
    let text = || {
        let (s, e) = (
            v.lexed.tokens[*toks.first()?].start as usize,
            v.lexed.tokens[*toks.last()?].end as usize,
        );
        Some(String::from_utf8_lossy(&v.src[s..e]).into_owned())
    };
    match toks[..] {
        [n] if v.lexed.tokens[n].kind == Tok::Number => return None,
        [n] if v.lexed.tokens[n].kind == Tok::Ident => {
            let name = String::from_utf8_lossy(v.t(n)).into_owned();
            return match declared_type(v, call, v.t(n)) {
                Some(ty) if scalar(&ty) => None,
                Some(ty) => Some(format!("`{name}` is a `{}`", String::from_utf8_lossy(&ty))),
                None => Some(format!("the port does not see the type of `{name}`")),
            };
        }
        _ => {}
    }
    // A vector component (`p.x`, `c[i].w`).
    if toks.len() >= 3
        && matches!(v.t(toks[toks.len() - 1]), b"x" | b"y" | b"z" | b"w")
        && matches!(v.t(toks[toks.len() - 2]), b"." | b"->")
    {
        return None;
    }
    // A cast to a scalar: `(float)e`, `static_cast<float>(e)`, `float(e)`.
    let first = toks.first().map(|&j| v.t(j));
    let second = toks.get(1).map(|&j| v.t(j));
    let third = toks.get(2).map(|&j| v.t(j));
    let cast = match (first, second, third) {
        (Some(b"("), Some(t), Some(b")")) => scalar(t),
        (Some(b"static_cast"), Some(b"<"), Some(t)) => scalar(t),
        (Some(t), Some(b"("), _) => scalar(t),
        _ => false,
    };
    if cast {
        return None;
    }
    Some(format!(
        "the port does not see the type of `{}`",
        text().unwrap_or_default()
    ))
}

/// The last type word of the nearest declaration of `name` before token `call`
/// (`const ValueType& val` → `ValueType`, `unsigned long long m` → `long`).
fn declared_type(v: &View, call: usize, name: &[u8]) -> Option<Vec<u8>> {
    for j in (0..call).rev() {
        if !v.code(j) || v.t(j) != name {
            continue;
        }
        let next = v.next(j).map(|n| v.t(n));
        if !matches!(next, Some(b"=" | b";" | b"," | b")" | b"[" | b"{" | b":")) {
            continue;
        }
        let mut p = v.prev(j);
        while let Some(k) = p.filter(|&k| {
            matches!(
                v.t(k),
                b"&" | b"*" | b"&&" | b"const" | b"volatile" | b"__restrict__" | b"__restrict"
            )
        }) {
            p = v.prev(k);
        }
        let Some(k) = p else { continue };
        let t = v.t(k);
        if v.lexed.tokens[k].kind == Tok::Ident
            && !crate::translate::compat::NOT_A_TYPE.contains(&t)
            && !matches!(t, b"return" | b"else" | b"case" | b"goto")
        {
            return Some(t.to_vec());
        }
        // `std::vector<T> x`, `Pair<T> x`: the template's name.
        if t == b">" {
            return angle_open(v, k)
                .and_then(|o| v.prev(o))
                .map(|n| v.t(n).to_vec());
        }
    }
    None
}

/// The `<` matching the `>` at `close`.
fn angle_open(v: &View, close: usize) -> Option<usize> {
    let mut depth = 0i32;
    for j in (0..=close).rev() {
        if !v.code(j) {
            continue;
        }
        match v.t(j) {
            b">" => depth += 1,
            b"<" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            b";" | b"{" | b"}" => return None,
            _ => {}
        }
    }
    None
}
