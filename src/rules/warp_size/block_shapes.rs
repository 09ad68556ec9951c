//! The numbers a file gives a launch's block: a literal, a name the file defines as a number
//! (`#define THREADS 32`, `const int kThreads = 32;`), the arguments of a `dim3` shape, and the
//! extents member assignments give a `dim3 block;` (`block.x = 32; block.y = 32;`). Read by
//! [`super::launch_rows`] from each file's single lex.

use super::launch_rows::text;
use crate::lex::{Lexed, Tok};
use std::collections::HashMap;

/// The value of one token: a number, or a name the file defines as one (`#define THREADS 32`,
/// `const int kThreads = 32;`).
pub(super) fn value_of(src: &[u8], lexed: &Lexed, a: usize, names: &Names) -> Option<u64> {
    match lexed.tokens[a].kind {
        Tok::Number => {
            crate::model::syntax::int_value(&String::from_utf8_lossy(text(src, lexed, a)))
        }
        // The nearest definition before the use: a name given different values in different
        // functions (`const int threads_per_block = 128;` … `= 32;`) takes the one above it.
        Tok::Ident => names
            .get(text(src, lexed, a))?
            .iter()
            .rev()
            .find(|(at, _)| *at < a)
            .map(|(_, v)| *v),
        _ => None,
    }
}

/// The first argument of a `dim3` shape starting at token `open` (`(` or `{`), when it is one
/// token with a known value: the block's x extent.
pub(super) fn first_value(src: &[u8], lexed: &Lexed, open: usize, names: &Names) -> Option<u64> {
    let a = lexed.next_code(open)?;
    lexed
        .next_code(a)
        .filter(|&c| matches!(text(src, lexed, c), b"," | b")" | b"}"))?;
    value_of(src, lexed, a, names)
}

/// Whether the `dim3` shape opened at token `open` (`(` or `{`) is one row: every argument
/// after the first is one token worth 1 (`dim3(32)`, `dim3(32, 1)`).
pub(super) fn one_row(src: &[u8], lexed: &Lexed, open: usize, names: &Names) -> bool {
    let mut depth = 0i32;
    let mut args: Vec<Vec<usize>> = vec![Vec::new()];
    let mut j = open;
    for _ in 0..256 {
        let Some(n) = lexed.next_code(j) else {
            return false;
        };
        j = n;
        match text(src, lexed, j) {
            b"(" | b"{" | b"[" => depth += 1,
            b")" | b"}" | b"]" if depth == 0 => {
                return args[1..].iter().all(
                    |a| matches!(a.as_slice(), [t] if value_of(src, lexed, *t, names) == Some(1)),
                );
            }
            b")" | b"}" | b"]" => depth -= 1,
            b"," if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(a) = args.last_mut() {
            a.push(j);
        }
    }
    false
}

/// The extents a `dim3 name;` declared at token `decl` is given by member assignments before
/// the launch at token `launch` (`block.x = 32; block.y = 32;`): the last `x` assigned (its
/// value and value token) and whether `y` and `z` stay 1.
pub(super) fn assigned_shape(
    src: &[u8],
    lexed: &Lexed,
    decl: usize,
    launch: usize,
    names: &Names,
) -> Option<(u64, usize, bool)> {
    let name = text(src, lexed, decl);
    let (mut x, mut y_one, mut z_one) = (None, true, true);
    for k in decl + 1..launch {
        if text(src, lexed, k) != name || lexed.tokens[k].kind != Tok::Ident {
            continue;
        }
        let dot = lexed.next_code(k).filter(|&d| text(src, lexed, d) == b".");
        let member = dot.and_then(|d| lexed.next_code(d));
        let eq = member
            .and_then(|m| lexed.next_code(m))
            .filter(|&e| text(src, lexed, e) == b"=");
        let value = eq.and_then(|e| lexed.next_code(e));
        let semi = value
            .and_then(|v| lexed.next_code(v))
            .is_some_and(|c| text(src, lexed, c) == b";");
        let (Some(m), Some(v)) = (member, value) else {
            continue;
        };
        let known = if semi {
            value_of(src, lexed, v, names)
        } else {
            None
        };
        match text(src, lexed, m) {
            b"x" => x = known.map(|n| (n, v)),
            b"y" => y_one = known == Some(1),
            b"z" => z_one = known == Some(1),
            _ => {}
        }
    }
    x.map(|(n, v)| (n, v, y_one && z_one))
}

/// Names a file gives a number: `#define NAME 32` (or `(32)`) and `const`/`constexpr`
/// declarations `NAME = 32;`, each with the token where it is defined, in file order.
pub(super) type Names = HashMap<Vec<u8>, Vec<(usize, u64)>>;

pub(super) fn numeric_names(src: &[u8], lexed: &Lexed) -> Names {
    let mut names = Names::new();
    // Name token `n` given the number at token `v`.
    let mut record = |n: usize, v: usize| {
        if lexed.tokens[v].kind != Tok::Number {
            return;
        }
        if let Some(x) =
            crate::model::syntax::int_value(&String::from_utf8_lossy(text(src, lexed, v)))
        {
            names
                .entry(text(src, lexed, n).to_vec())
                .or_default()
                .push((n, x));
        }
    };
    for d in lexed.directives.iter().filter(|d| d.name == "define") {
        let toks: Vec<usize> = lexed.directive_words(d);
        let value = match toks.as_slice() {
            [_, _, _, v] => Some(*v),
            [_, _, _, o, v, c] if text(src, lexed, *o) == b"(" && text(src, lexed, *c) == b")" => {
                Some(*v)
            }
            _ => None,
        };
        let (Some(v), Some(&n)) = (value, toks.get(2)) else {
            continue;
        };
        if src.get(lexed.tokens[n].end as usize) != Some(&b'(') {
            record(n, v);
        }
    }
    // `const int NAME = 32;`: a name, `=`, a number, `;`, after `const` or `constexpr` within
    // the few tokens before.
    let code: Vec<usize> = lexed.code_tokens().map(|(i, _)| i).collect();
    for (k, w) in code.windows(4).enumerate() {
        let [n, eq, v, semi] = [w[0], w[1], w[2], w[3]];
        let constant = || {
            code[k.saturating_sub(4)..k]
                .iter()
                .any(|&c| matches!(text(src, lexed, c), b"const" | b"constexpr"))
        };
        if lexed.tokens[n].kind == Tok::Ident
            && text(src, lexed, eq) == b"="
            && text(src, lexed, semi) == b";"
            && constant()
        {
            record(n, v);
        }
    }
    for defs in names.values_mut() {
        defs.sort_unstable();
    }
    names
}
