//! What the arm HIP compiles in place of a `__CUDA_ARCH__` branch holds ([`Alt`]): code, only
//! diagnostics, a stub, or a failure.

use super::Alt;
use crate::lex::Tok;
use crate::model::macro_env::Known;
use crate::model::syntax::Src;
use std::collections::BTreeMap;
use std::ops::Range;

/// What the branch body `r` holds, as the arm HIP compiles instead of a `__CUDA_ARCH__` branch:
/// [`Alt::Code`] at the first statement that is neither a diagnostic (`printf`, `#pragma`,
/// `#warning`) nor a failure (`#error`, `static_assert(false)`, `__trap()`, `assert(0)`); a
/// failure or a `#define`/`#include` inside a nested conditional counts as code (it may not be
/// compiled).
pub(super) fn arm_holds(
    s: &Src,
    r: Range<usize>,
    switches: &BTreeMap<String, (Known, super::super::hip_pins::By)>,
) -> Alt {
    let toks = &s.lexed.tokens;
    let mut i = toks.partition_point(|t| (t.start as usize) < r.start);
    let mut depth = 0usize;
    let mut fails: Option<Alt> = None;
    let mut stmt: Vec<usize> = Vec::new();
    let mut parens = 0i32;
    while i < toks.len() && (toks[i].start as usize) < r.end {
        let t = toks[i];
        if t.kind == Tok::Comment {
            i += 1;
            continue;
        }
        if t.in_directive() {
            let d = &s.lexed.directives[t.directive as usize];
            match d.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" => depth = depth.saturating_sub(1),
                "else" | "elif" | "elifdef" | "elifndef" | "pragma" | "warning" | "line" | "" => {}
                "error" if depth == 0 => return Alt::BuildError,
                _ => return Alt::Code,
            }
            i = d.tokens.end.max(i + 1);
            continue;
        }
        let text = s.tok(i);
        match text {
            "{" | "}" if stmt.is_empty() => {}
            ";" if parens == 0 => {
                // After a trap, a `return` is never reached (dgl's `__trap(); return
                // static_cast<Type>(0);`): it hands nothing back.
                let unreachable =
                    fails == Some(Alt::Trap) && stmt.first().is_some_and(|&j| s.tok(j) == "return");
                let kind = if unreachable {
                    Some(Alt::Empty)
                } else {
                    statement_kind(s, &stmt, switches)
                };
                match kind {
                    Some(a) if depth == 0 => {
                        if a != Alt::Empty {
                            fails = Some(a);
                        }
                    }
                    Some(Alt::Empty) => {}
                    _ => return Alt::Code,
                }
                stmt.clear();
            }
            _ => {
                parens += match text {
                    "(" => 1,
                    ")" => -1,
                    _ => 0,
                };
                stmt.push(i);
            }
        }
        i += 1;
    }
    if !stmt.is_empty() {
        return Alt::Code;
    }
    fails.unwrap_or(Alt::Empty)
}

/// Whether region `r` holds only `return <constant>;` statements (at least one), comments and
/// diagnostics: a stub or a per-GPU value.
pub(super) fn returns_constant(s: &Src, r: Range<usize>) -> bool {
    let toks = &s.lexed.tokens;
    let a = toks.partition_point(|t| (t.start as usize) < r.start);
    let b = toks.partition_point(|t| (t.start as usize) < r.end);
    let returns = toks[a..b].iter().enumerate().any(|(k, t)| {
        t.kind == Tok::Ident
            && !t.in_directive()
            && s.tok(a + k) == "return"
            && s.lexed.next_code(a + k).is_some_and(|n| s.tok(n) != ";")
    });
    returns && arm_holds(s, r, &BTreeMap::new()) == Alt::Empty
}

/// A statement (its code tokens, no `;`) of an arm that holds no code: a diagnostic
/// ([`Alt::Empty`]), a build failure or a trap; `None` for anything else.
/// `switches` are project macros a CUDA-side test sets for HIP: `assert(ARCH_SM80)` is
/// `assert(0)` there.
fn statement_kind(
    s: &Src,
    stmt: &[usize],
    switches: &BTreeMap<String, (Known, super::super::hip_pins::By)>,
) -> Option<Alt> {
    let w = |k: usize| stmt.get(k).map_or("", |&j| s.tok(j));
    let falsy = |k: usize| {
        matches!(w(k), "0" | "false")
            || (stmt.len() == 4
                && switches
                    .get(w(k))
                    .is_some_and(|(v, _)| *v == Known::Value(0)))
            || (w(k) == "!"
                && stmt
                    .get(k + 1)
                    .is_some_and(|&j| s.lexed.tokens[j].kind == Tok::Str))
    };
    if stmt.is_empty() {
        return Some(Alt::Empty);
    }
    let call = w(1) == "(" && w(stmt.len() - 1) == ")";
    // `return;`, `return 0;`, `return false;`, `return nullptr;`, `return {};`: a stub that
    // hands back a constant instead of what the branch computes.
    let constant = |k: usize| {
        let rest: Vec<&str> = (k..stmt.len()).map(w).collect();
        match rest.as_slice() {
            [] | ["{", "}"] => true,
            [one] => {
                matches!(*one, "false" | "true" | "nullptr" | "NULL")
                    || stmt
                        .get(k)
                        .is_some_and(|&j| s.lexed.tokens[j].kind == Tok::Number)
            }
            ["-", _] => stmt
                .get(k + 1)
                .is_some_and(|&j| s.lexed.tokens[j].kind == Tok::Number),
            _ => false,
        }
    };
    // `asm volatile("trap;")`: PTX's trap, as the CUDA arm of such a chain writes it.
    let ptx_trap = matches!(w(0), "asm" | "__asm__" | "__asm")
        && stmt.iter().any(|&j| {
            s.lexed.tokens[j].kind == Tok::Str
                && s.tok(j)
                    .trim_matches('"')
                    .trim()
                    .trim_end_matches(';')
                    .trim()
                    == "trap"
        })
        && stmt
            .iter()
            .filter(|&&j| s.lexed.tokens[j].kind == Tok::Str)
            .count()
            == 1;
    // `(void)address;`: silences an unused parameter, computes nothing.
    let discard = stmt.len() == 4
        && w(0) == "("
        && w(1) == "void"
        && w(2) == ")"
        && stmt
            .get(3)
            .is_some_and(|&j| s.lexed.tokens[j].kind == Tok::Ident);
    match w(0) {
        _ if discard => Some(Alt::Empty),
        "return" if constant(1) => Some(Alt::Empty),
        _ if ptx_trap => Some(Alt::Trap),
        "printf" | "fprintf" | "puts" if call => Some(Alt::Empty),
        "static_assert" if call && falsy(2) => Some(Alt::BuildError),
        "__trap" | "__builtin_trap" | "abort" if call && stmt.len() == 3 => Some(Alt::Trap),
        "assert" if call && falsy(2) => Some(Alt::Trap),
        _ => None,
    }
}
