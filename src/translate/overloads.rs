//! User definitions that HIP's headers already provide: arithmetic operators on vector types
//! (`float4 operator+=(float4&, float4)`, from cuda-samples' helper_math.h and many copies of
//! it), and `atomicAdd(double*, double)` / `atomicMax(float*, float)`-style atomics that CUDA
//! lacked on older architectures. Under hipcc they are redefinitions or ambiguous overloads, so
//! each is wrapped in `#if !defined(__HIP__)` … `#endif` and flagged (HP008).
//!
//! The guard only ever touches what it can prove is HIP's own signature: a non-template free
//! function or operator at file scope (never a member, never inside a class, namespace,
//! `extern "C"` block or a parse error), whose parameters have exactly the shape HIP declares.
//! `__HIP__` is defined by clang itself in HIP mode (hipcc 5.2: `hipcc -x hip -dM -E` lists
//! `__HIP__` and `__HIPCC__`, not `__HIP_PLATFORM_AMD__`, which `hip_common.h` defines), so the
//! guard holds even for a definition that comes before any HIP header. Every pass over the
//! file is linear: directives, tokens and braces are walked once, never per definition.

use super::rules;
use super::Pass;
use crate::edit::Edit;
use crate::lex::{Lexed, Tok};

/// The macro the guard tests: defined by clang in HIP mode, before any header.
pub const GUARD_MACRO: &str = "__HIP__";
pub const GUARD_OPEN: &str = "#if !defined(__HIP__)";
pub const GUARD_CLOSE: &str = "#endif  // !defined(__HIP__)";

/// Macros whose `#ifndef`/`#if !defined(…)` region is already HIP-free (the guard of an earlier
/// hipport release tested `__HIP_PLATFORM_AMD__`; projects write any of these by hand).
const HIP_MACROS: &[&str] = &[
    "__HIP__",
    "__HIPCC__",
    "__HIP_PLATFORM_AMD__",
    "__HIP_PLATFORM_HCC__",
];

const INT_BASES: &[&str] = &[
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
];

/// The base of a HIP vector type name (`float4` → `float`), if it is one.
fn vector_base(t: &str) -> Option<&str> {
    let last = t.chars().last()?;
    if !('1'..='4').contains(&last) {
        return None;
    }
    let base = &t[..t.len() - 1];
    (INT_BASES.contains(&base) || base == "float" || base == "double").then_some(base)
}

fn is_vector_type(t: &str) -> bool {
    vector_base(t).is_some()
}

fn is_scalar(t: &str) -> bool {
    matches!(
        t,
        "float"
            | "double"
            | "int"
            | "unsigned"
            | "unsigned int"
            | "uint"
            | "char"
            | "signed char"
            | "unsigned char"
            | "short"
            | "unsigned short"
            | "long"
            | "unsigned long"
            | "long long"
            | "unsigned long long"
            | "size_t"
    )
}

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum By {
    Value,
    Ref,
    Ptr,
}

/// Operators HIP defines on its vector types, and which of them need an integer element type.
fn operator_shape_ok(op: &str, params: &[(String, By)]) -> bool {
    const ARITH: &[&str] = &["+", "-", "*", "/"];
    const INTEGRAL: &[&str] = &["%", "&", "|", "^", "<<", ">>"];
    const COMPOUND: &[&str] = &["+=", "-=", "*=", "/="];
    const COMPOUND_INT: &[&str] = &["%=", "&=", "|=", "^=", "<<=", ">>="];
    if params.iter().any(|(_, how)| *how == By::Ptr) {
        return false;
    }
    let vec_bases: Vec<&str> = params.iter().filter_map(|(t, _)| vector_base(t)).collect();
    let Some(&base) = vec_bases.first() else {
        return false;
    };
    // Mixed vector types (`float3 * float4`) are not HIP's.
    let vec_ty = params
        .iter()
        .find(|(t, _)| is_vector_type(t))
        .map(|(t, _)| t.as_str())
        .unwrap_or("");
    if params.iter().any(|(t, _)| is_vector_type(t) && t != vec_ty) {
        return false;
    }
    let integral = INT_BASES.contains(&base);
    let other_ok = |t: &str| t == vec_ty || is_scalar(t);
    match params {
        [(a, how)] => {
            a == vec_ty
                && match op {
                    "-" => true,
                    "~" => integral,
                    "++" | "--" => *how == By::Ref,
                    _ => false,
                }
        }
        [(a, how_a), (b, _)] => {
            if ARITH.contains(&op) || (integral && INTEGRAL.contains(&op)) {
                (a == vec_ty && other_ok(b)) || (b == vec_ty && other_ok(a))
            } else if COMPOUND.contains(&op) || (integral && COMPOUND_INT.contains(&op)) {
                // A member of HIP's vector type: the left operand is the vector, by reference.
                a == vec_ty
                    && *how_a == By::Ref
                    && (b == vec_ty || (COMPOUND.contains(&op) && is_scalar(b)))
            } else if matches!(op, "++" | "--") {
                a == vec_ty && *how_a == By::Ref && b == "int"
            } else {
                false
            }
        }
        _ => false,
    }
}

/// Code tokens (no comments, no directive lines), as indices into the lexed tokens.
pub(super) fn code_tokens(l: &Lexed) -> Vec<usize> {
    (0..l.tokens.len())
        .filter(|&i| l.tokens[i].kind != Tok::Comment && !l.tokens[i].in_directive())
        .collect()
}

/// For each code position, the code position of its matching closer (`usize::MAX` if none).
pub(super) fn matching(src: &[u8], l: &Lexed, code: &[usize]) -> Vec<usize> {
    let mut m = vec![usize::MAX; code.len()];
    let mut stack: Vec<(usize, u8)> = Vec::new();
    for (k, &i) in code.iter().enumerate() {
        let t = &l.tokens[i];
        if t.kind != Tok::Punct {
            continue;
        }
        let open = match t.text(src) {
            b"(" | b"[" | b"{" => {
                stack.push((k, t.text(src)[0]));
                continue;
            }
            b")" => b'(',
            b"]" => b'[',
            b"}" => b'{',
            _ => continue,
        };
        if let Some(j) = stack.iter().rposition(|&(_, o)| o == open) {
            m[stack[j].0] = k;
            stack.truncate(j);
        }
    }
    m
}

/// The parameter shapes of a parameter list (code positions `a..b`, without the parentheses).
fn params(src: &[u8], l: &Lexed, code: &[usize], a: usize, b: usize) -> Option<Vec<(String, By)>> {
    let mut out = Vec::new();
    if a == b {
        return Some(out);
    }
    let text = |k: usize| l.tokens[code[k]].text(src);
    for part in (a..b).collect::<Vec<_>>().split(|&k| text(k) == b",") {
        let mut words: Vec<&str> = Vec::new();
        let mut how = By::Value;
        for &k in part {
            let t = &l.tokens[code[k]];
            match (t.kind, text(k)) {
                (Tok::Ident, b"const") => {}
                (Tok::Ident, w) => words.push(std::str::from_utf8(w).ok()?),
                (Tok::Punct, b"&") if how == By::Value && !words.is_empty() => how = By::Ref,
                (Tok::Punct, b"*") if how == By::Value && !words.is_empty() => how = By::Ptr,
                _ => return None, // defaults, arrays, `&&`, templates, function types…
            }
        }
        let ty = match words.len() {
            0 => return None,
            1 => words[0].to_string(),
            n => words[..n - 1].join(" "),
        };
        out.push((ty, how));
    }
    Some(out)
}

/// Definitions HIP already provides, found with the lexer alone: a name (`operator+`,
/// `atomicAdd`) at brace depth 0, preceded back to the previous `;`/`}` (or the file start) by
/// nothing but names, `&` and `*` (so no `template<…>`, no `S<T>::`, no attribute or macro
/// call), with a parameter list of HIP's shape and a body. The decision depends only on the
/// tokens of the definition and its brace depth, never on a parse that text elsewhere in the
/// file (an inserted include, a rewritten launch, a syntax error) could change, so a rerun on
/// the output decides exactly as the first run did. Linear in the file.
fn definitions(src: &[u8], l: &Lexed) -> Vec<(usize, usize, String)> {
    let code = code_tokens(l);
    let m = matching(src, l, &code);
    let text = |k: usize| l.tokens[code[k]].text(src);
    let kind = |k: usize| l.tokens[code[k]].kind;
    let mut out = Vec::new();
    let mut depth = 0i64;
    // The first code position of the current top-level declaration.
    let mut decl_start = 0usize;
    let mut k = 0;
    while k < code.len() {
        match (kind(k), text(k)) {
            (Tok::Punct, b"{") => depth += 1,
            (Tok::Punct, b"}") => {
                depth -= 1;
                if depth <= 0 {
                    decl_start = k + 1;
                }
            }
            (Tok::Punct, b";") if depth <= 0 => decl_start = k + 1,
            (Tok::Ident, name) if depth == 0 => {
                let (what, open) = match name {
                    b"operator" => {
                        // The operator's punctuation, glued together: `+`, `+=`, `<<=`.
                        let mut j = k + 1;
                        let mut op = String::new();
                        while j < code.len()
                            && kind(j) == Tok::Punct
                            && text(j) != b"("
                            && op.len() < 3
                            && (op.is_empty()
                                || l.tokens[code[j]].start == l.tokens[code[j - 1]].end)
                        {
                            op.push_str(std::str::from_utf8(text(j)).unwrap_or("?"));
                            j += 1;
                        }
                        (Some(op), j)
                    }
                    b"atomicAdd" | b"atomicSub" | b"atomicMax" | b"atomicMin" => (None, k + 1),
                    _ => {
                        k += 1;
                        continue;
                    }
                };
                let close = m.get(open).copied().unwrap_or(usize::MAX);
                let ok_head = (decl_start..k).all(|j| {
                    kind(j) == Tok::Ident
                        || (kind(j) == Tok::Punct && matches!(text(j), b"&" | b"*"))
                }) && (decl_start..k).any(|j| kind(j) == Tok::Ident);
                if open < code.len()
                    && text(open) == b"("
                    && close != usize::MAX
                    && close + 1 < code.len()
                    && text(close + 1) == b"{"
                    && m[close + 1] != usize::MAX
                    && ok_head
                {
                    let body_end = m[close + 1];
                    let ps = params(src, l, &code, open + 1, close);
                    let found = match (&what, ps) {
                        (Some(op), Some(ps)) if !op.is_empty() => operator_shape_ok(op, &ps)
                            .then(|| format!("`operator{op}` on HIP vector types")),
                        (None, Some(ps)) => match ps.as_slice() {
                            [(t, By::Ptr), (v, By::Value)]
                                if matches!(t.as_str(), "float" | "double") && t == v =>
                            {
                                Some(format!("`{}({t}*, {v})`", String::from_utf8_lossy(name)))
                            }
                            _ => None,
                        },
                        _ => None,
                    };
                    if let Some(w) = found {
                        out.push((
                            l.tokens[code[decl_start]].start as usize,
                            l.tokens[code[body_end]].end as usize,
                            w,
                        ));
                    }
                    // Continue after the body: nothing inside it is at file scope.
                    k = body_end + 1;
                    decl_start = k;
                    continue;
                }
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// A guarded region: line-aligned start and end, and the definitions (start, end, what) in it.
type Block = (usize, usize, Vec<(usize, usize, String)>);

/// The start of the line holding `at`. A lone CR ends a line too (compilers read it so), which
/// keeps this pass and the include pass in agreement on CR-only line ends.
fn line_start(src: &[u8], at: usize) -> usize {
    memchr::memrchr2(b'\n', b'\r', &src[..at]).map_or(0, |i| i + 1)
}

fn line_end_after(src: &[u8], at: usize) -> usize {
    match memchr::memchr(b'\n', &src[at..]) {
        Some(i) => at + i + 1,
        None => src.len(),
    }
}

/// Whether a file may hold such definitions (a byte search, before any parse).
pub fn may_apply(src: &[u8]) -> bool {
    memchr::memmem::find(src, b"operator").is_some()
        || memchr::memmem::find(src, b"atomicAdd").is_some()
        || memchr::memmem::find(src, b"atomicSub").is_some()
        || memchr::memmem::find(src, b"atomicM").is_some()
}

/// The index of the first token starting at or after `at`.
fn token_at_or_after(l: &Lexed, at: usize) -> usize {
    l.tokens.partition_point(|t| (t.start as usize) < at)
}

/// Whether `at` falls strictly inside a token (a comment, a string, a name).
fn inside_token(l: &Lexed, at: usize) -> bool {
    let i = token_at_or_after(l, at);
    i > 0 && l.tokens[i - 1].end as usize > at
}

/// When `at` falls inside a comment, the offset where that comment ends.
fn crossing(l: &Lexed, at: usize) -> Option<usize> {
    let i = token_at_or_after(l, at);
    let t = l.tokens.get(i.checked_sub(1)?)?;
    (t.kind == Tok::Comment && t.end as usize > at).then_some(t.end as usize)
}

/// Whether `src[a..b]` holds only blank space and whole comments. Looks only at the tokens in
/// the range, so checking every gap between definitions is linear over the file.
fn only_blank_or_comments(src: &[u8], l: &Lexed, a: usize, b: usize) -> bool {
    if a > b || inside_token(l, a) {
        return false;
    }
    let mut covered = a;
    for t in &l.tokens[token_at_or_after(l, a)..] {
        let (s, e) = (t.start as usize, t.end as usize);
        if s >= b {
            break;
        }
        if t.kind != Tok::Comment || e > b {
            return false;
        }
        if !src[covered..s].iter().all(|c| c.is_ascii_whitespace()) {
            return false;
        }
        covered = e;
    }
    src[covered..b].iter().all(|c| c.is_ascii_whitespace())
}

/// Whether a directive tests one of [`HIP_MACROS`] as a whole condition: `Some(false)` for
/// `#ifndef __HIP__` / `#if !defined(__HIP_PLATFORM_AMD__)` (a region HIP does not compile),
/// `Some(true)` for `#ifdef __HIPCC__` / `#if defined(__HIP__)` (a region only HIP compiles,
/// whose `#else` is HIP-free), `None` otherwise.
pub(super) fn hip_test(src: &[u8], d: &crate::lex::Directive) -> Option<bool> {
    let text: String = String::from_utf8_lossy(&src[d.start..d.end])
        .split_whitespace()
        .collect();
    let negated = |m: &str| {
        text == format!("#ifndef{m}")
            || text == format!("#if!defined({m})")
            || text == format!("#if!defined{m}")
    };
    let plain = |m: &str| {
        text == format!("#ifdef{m}")
            || text == format!("#ifdefined({m})")
            || text == format!("#ifdefined{m}")
    };
    HIP_MACROS.iter().find_map(|m| {
        if negated(m) {
            Some(false)
        } else if plain(m) {
            Some(true)
        } else {
            None
        }
    })
}

/// Whether a directive opens a region HIP does not compile.
fn is_hip_free_open(src: &[u8], d: &crate::lex::Directive) -> bool {
    hip_test(src, d) == Some(false)
}

/// Brace depth at each `{`/`}` of code (directives excluded), for a binary search by offset.
fn brace_depths(src: &[u8], l: &Lexed) -> Vec<(usize, i32)> {
    let mut depth = 0i32;
    let mut out = Vec::new();
    for t in &l.tokens {
        if t.kind != Tok::Punct || t.in_directive() {
            continue;
        }
        match t.text(src) {
            b"{" => depth += 1,
            b"}" => depth -= 1,
            _ => continue,
        }
        out.push((t.start as usize, depth));
    }
    out
}

/// The brace depth of code at `at`.
fn depth_at(braces: &[(usize, i32)], at: usize) -> i32 {
    match braces.partition_point(|&(b, _)| b < at) {
        0 => 0,
        i => braces[i - 1].1,
    }
}

/// The line-aligned span a guard around the definition `s..e` covers, or `None` when the
/// definition cannot be guarded on lines of its own (inside a macro body, a line shared with
/// other code, a line continuation).
pub(super) fn guard_span(src: &[u8], l: &Lexed, s: usize, e: usize) -> Option<(usize, usize)> {
    // The lexer must agree that a definition starts here in code (not inside a comment or
    // string the parser read differently, e.g. an unterminated one) and outside a macro body.
    let first = l.tokens.get(token_at_or_after(l, s))?;
    if first.start as usize != s || first.kind != Tok::Ident || first.in_directive() {
        return None;
    }
    let dirs = &l.directives;
    let d_next = dirs.partition_point(|d| d.start < s);
    if d_next > 0 && dirs[d_next - 1].end > s {
        return None; // inside a directive (a macro body)
    }
    let line_end = line_end_after(src, e);
    // The guard lines go on lines of their own: nothing but blanks and whole comments may
    // share the definition's first and last line, and no line continuation may join them.
    // A comment that crosses the line boundary (`*/ float4 operator+…`, `} /* …`) moves the
    // guard line next to the definition instead, on a line break of its own.
    let k = s - super::includes::line_indent(src, s);
    let line = line_start(src, k);
    let continued = line >= 2 && {
        let before = &src[..line - 1];
        let before = before.strip_suffix(b"\r").unwrap_or(before);
        before.ends_with(b"\\")
    };
    let start = if line == k {
        k
    } else {
        match crossing(l, line) {
            // Behind a line continuation the guard cannot open the line; it goes next to the
            // definition on a line break of its own, as a rerun (which sees the include the
            // port inserts there) places it.
            None if only_blank_or_comments(src, l, line, k) => {
                if continued {
                    k
                } else {
                    line
                }
            }
            Some(c) if only_blank_or_comments(src, l, c, k) => k,
            _ => return None,
        }
    };
    let end = match crossing(l, line_end) {
        None if only_blank_or_comments(src, l, e, line_end) => line_end,
        Some(c) if only_blank_or_comments(src, l, e, c) => e,
        _ => return None,
    };
    Some((start, end))
}

/// What a user definition's body does, for the guard.
enum Body {
    /// Only the parameters, their components (`.x` … `.w`), `make_*` constructors and operators:
    /// the component-wise operation HIP defines (`true`), or anything else (`false`).
    Simple(bool),
    /// `a = a OP b;`: whatever the file's `OP` is.
    Delegates(String),
}

/// `+` of "`uint2 operator+(uint2, uint2)`", the operator a definition's description names.
fn operator_of(what: &str) -> String {
    what.split_once("operator")
        .map(|(_, r)| {
            r.trim_start()
                .chars()
                .take_while(|c| "+-*/%^&|~!<>=".contains(*c))
                .collect()
        })
        .unwrap_or_default()
}

/// The body of the definition in `s..e` read as a [`Body`].
fn body_kind(src: &[u8], l: &Lexed, s: usize, e: usize) -> Body {
    // The definition's tokens, found by binary search (a file of many operators stays linear).
    let from = l.tokens.partition_point(|t| (t.start as usize) < s);
    let to = l.tokens.partition_point(|t| (t.start as usize) < e);
    let toks: Vec<&crate::lex::Token> = l.tokens[from..to]
        .iter()
        .filter(|t| t.kind != Tok::Comment)
        .collect();
    let Some(open) = toks.iter().position(|t| t.text(src) == b"{") else {
        return Body::Simple(false);
    };
    let head: Vec<&[u8]> = toks[..open]
        .iter()
        .filter(|t| t.kind == Tok::Ident)
        .map(|t| t.text(src))
        .collect();
    let body: Vec<&[u8]> = toks[open + 1..toks.len().saturating_sub(1)]
        .iter()
        .map(|t| t.text(src))
        .collect();
    // `a = a OP b ;`
    if let [a, b"=", a2, op @ .., b, b";"] = body.as_slice() {
        if a == a2 && head.contains(a) && head.contains(b) && !op.is_empty() {
            let op: Vec<u8> = op.concat();
            if op.iter().all(|c| c.is_ascii_punctuation()) {
                return Body::Delegates(String::from_utf8_lossy(&op).into_owned());
            }
        }
    }
    // Locals declared with a type the head names (`int3 res;` before `res.x = lh.x - rh.x;`
    // … `return res;`, Swin3D's `attn_utils.cuh`).
    let locals: Vec<&[u8]> = body
        .windows(3)
        .filter(|w| {
            head.contains(&w[0])
                && !head.contains(&w[1])
                && w[1]
                    .first()
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                && matches!(w[2], b";" | b"=")
        })
        .map(|w| w[1])
        .collect();
    let ok = toks[open + 1..].iter().all(|t| {
        t.kind != Tok::Ident || {
            let w = t.text(src);
            head.contains(&w)
                || locals.contains(&w)
                || matches!(w, b"return" | b"x" | b"y" | b"z" | b"w" | b"const")
                || w.starts_with(b"make_")
        }
    });
    Body::Simple(ok)
}

pub(super) fn run(p: &mut Pass) {
    let src = p.src();
    if !may_apply(src) {
        return;
    }
    let l = p.lexed;
    let mut defs = definitions(src, l);
    // A definition that is not HIP's component-wise operation (ccminer's `uint2 operator+` is a
    // 64-bit add with carry) would change results if HIP's replaced it: it is not guarded, and
    // stays a finding to rename.
    let kinds: Vec<(String, Body)> = defs
        .iter()
        .map(|(s, e, what)| {
            let op = operator_of(what);
            // Only operators on vector types have HIP's component-wise meaning to compare with
            // (an atomic's is the atomic operation).
            let body = if op.is_empty() {
                Body::Simple(true)
            } else {
                body_kind(src, l, *s, *e)
            };
            (op, body)
        })
        .collect();
    // The operators some definition of which is not component-wise.
    let other_meaning: std::collections::HashSet<&str> = kinds
        .iter()
        .filter(|(_, b)| matches!(b, Body::Simple(false)))
        .map(|(o, _)| o.as_str())
        .collect();
    let elementwise = |i: usize| match &kinds[i].1 {
        Body::Simple(b) => *b,
        // `a = a + b;` is what the file's own `+` is (HIP's, if the file has none).
        Body::Delegates(op) => !other_meaning.contains(op.as_str()),
    };
    let differ: Vec<usize> = (0..defs.len()).filter(|&i| !elementwise(i)).collect();
    for &i in differ.iter().rev() {
        let (s, e, what) = defs.remove(i);
        let head_end = memchr::memchr(b'{', &src[s..e]).map_or(e, |k| s + k);
        let mut f = p.ctx.finding(
            &rules::HIP_DEFINES_OVERLOAD,
            s..head_end,
            format!("{what} is already defined by HIP, component by component, but this definition computes something else (its body is not the component-wise operation): guarding it out would change the results, keeping it is ambiguous under hipcc, so `hipport port` leaves it"),
            Some("rename it to a function (`add64(a, b)`) and call that where the code means this operation".into()),
        );
        f.status = crate::gate::Status::Remediation;
        f.phase = crate::gate::Phase::Build;
        p.findings.push(f);
    }
    let braces = brace_depths(src, l);
    let dirs = &l.directives;
    let nl = crate::source::newline_of(src);
    // Merge neighbours separated only by blank space and comments into one guarded block.
    let mut blocks: Vec<Block> = Vec::new();
    for (s, e, what) in defs {
        // Only at file scope, as the lexer's braces see it.
        if depth_at(&braces, s) != 0 {
            continue;
        }
        let Some((start, end)) = guard_span(src, l, s, e) else {
            continue;
        };
        match blocks.last_mut() {
            Some(last) if only_blank_or_comments(src, l, last.1, start) => {
                last.1 = end;
                last.2.push((s, e, what));
            }
            _ => blocks.push((start, end, vec![(s, e, what)])),
        }
    }
    // One forward walk over the directives decides which blocks an earlier run (or the
    // project) already keeps from HIP.
    let mut stack: Vec<bool> = Vec::new();
    let mut di = 0;
    for (start, end, items) in blocks {
        while di < dirs.len() && dirs[di].start < start {
            let d = &dirs[di];
            match d.name.as_str() {
                "if" | "ifdef" | "ifndef" => stack.push(is_hip_free_open(src, d)),
                "else" | "elif" | "elifdef" | "elifndef" => {
                    if let Some(top) = stack.last_mut() {
                        *top = false;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                _ => {}
            }
            di += 1;
        }
        if stack.iter().any(|g| *g) {
            continue;
        }
        let lead_at = |at: usize| {
            if at > 0 && src[at - 1] != b'\n' {
                nl
            } else {
                ""
            }
        };
        let lead = lead_at(end);
        p.edits.push(Edit::insert(
            start,
            format!("{}{GUARD_OPEN}{nl}", lead_at(start)),
        ));
        // The guard closes before anything else inserted at the same offset (the implicit
        // runtime include must never land inside the guard).
        let close = Edit::insert(end, format!("{lead}{GUARD_CLOSE}{nl}"));
        match p.edits.iter().position(|x| x.start == end && x.end == end) {
            Some(i) => p.edits.insert(i, close),
            None => p.edits.push(close),
        }
        p.stats.fixups += 1;
        for (s, e, what) in items {
            let head_end = memchr::memchr(b'{', &src[s..e]).map_or(e, |i| s + i);
            let f = p.ctx.finding(
                &rules::HIP_DEFINES_OVERLOAD,
                s..head_end,
                format!("{what} is already defined by HIP: this definition was guarded out for HIP (`hipport port` wraps it in `#if !defined(__HIP__)`, so HIP's own is used)"),
                Some("check that HIP's version has the semantics this code expects, then delete the guarded copy".into()),
            );
            p.findings.push(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_type_names() {
        for t in ["float4", "int2", "uchar4", "double2", "ulonglong2"] {
            assert!(is_vector_type(t), "{t}");
        }
        for t in ["float", "Float4", "float5", "vec4", "int"] {
            assert!(!is_vector_type(t), "{t}");
        }
    }

    fn port(path: &str, src: &str) -> String {
        let opts = crate::translate::Options::for_tests("5.2", true);
        let t =
            crate::translate::translate_bytes(path, src.as_bytes(), crate::mappings::get(), &opts);
        assert_eq!(t.conflicts, 0);
        String::from_utf8(t.output).unwrap()
    }

    const OP: &str = "inline __device__ float2 operator+(float2 a, float2 b) { return a; }\n";

    /// ccminer's `uint2` operators: `^` is HIP's component-wise one (guarded); `+` is a 64-bit
    /// add and `+=` delegates to it: guarding them would hand the code HIP's component-wise
    /// ones, so they stay, with HP008 REMEDIATION to rename them.
    #[test]
    fn operators_with_another_meaning_are_not_guarded() {
        let src = "static __device__ uint2 operator^ (uint2 a, uint2 b) { return make_uint2(a.x ^ b.x, a.y ^ b.y); }\n\nstatic __device__ uint2 operator+ (uint2 a, uint2 b) {\n\treturn vectorize(devectorize(a) + devectorize(b));\n}\nstatic __device__ void operator+= (uint2 &a, uint2 b) { a = a + b; }\n";
        let opts = crate::translate::Options::for_tests("5.2", true);
        let t =
            crate::translate::translate_bytes("h.h", src.as_bytes(), crate::mappings::get(), &opts);
        let out = String::from_utf8(t.output).unwrap();
        assert_eq!(out.matches(GUARD_OPEN).count(), 1, "{out}");
        assert!(out.starts_with(GUARD_OPEN), "{out}");
        let open: Vec<(u32, String)> = t
            .findings
            .iter()
            .filter(|f| f.rule == "HP008")
            .map(|f| (f.line, f.status.as_str().to_string()))
            .collect();
        assert!(open.contains(&(3, "REMEDIATION".into())), "{open:?}");
        assert!(open.contains(&(6, "REMEDIATION".into())), "{open:?}");
        assert_eq!(port("h.h", &out), out);
    }

    /// Swin3D's `attn_utils.cuh` (MIT): the result built in a local of the head's type,
    /// component by component, is HIP's component-wise operation: guarded, no REMEDIATION.
    /// Twin: a local filled by a call of something else keeps the finding.
    #[test]
    fn component_wise_bodies_through_a_local_are_guarded() {
        let src = "__device__ __forceinline__ int3 operator-(int3 &lh, const int3 &rh)\n{\n    int3 res;\n    res.x = lh.x - rh.x;\n    res.y = lh.y - rh.y;\n    res.z = lh.z - rh.z;\n    return res;\n}\n";
        let opts = crate::translate::Options::for_tests("5.2", true);
        let open = |src: &str| {
            crate::translate::translate_bytes(
                "u.cuh",
                src.as_bytes(),
                crate::mappings::get(),
                &opts,
            )
            .findings
            .iter()
            .filter(|f| f.rule == "HP008" && f.status.as_str() == "REMEDIATION")
            .count()
        };
        assert_eq!(open(src), 0);
        assert!(port("u.cuh", src).contains(GUARD_OPEN));
        assert_eq!(open(&src.replace("lh.y - rh.y", "clamp(lh.y - rh.y)")), 1);
    }

    #[test]
    fn guards_free_operators_once() {
        let out = port("a.h", OP);
        assert_eq!(out, format!("{GUARD_OPEN}\n{OP}{GUARD_CLOSE}\n"));
        // A rerun finds its own guard, and the guard of earlier releases, and adds nothing.
        assert_eq!(port("a.h", &out), out);
        let old = format!("#if !defined(__HIP_PLATFORM_AMD__)\n{OP}#endif\n");
        assert_eq!(port("a.h", &old), old);
        // In the `#else` of a HIP test the code is HIP's: guarded.
        let els = format!("#ifndef __HIP__\nint a;\n#else\n{OP}#endif\n");
        assert!(port("a.h", &els).contains(GUARD_OPEN));
    }

    /// A lone CR ends a line for the compiler and for this pass as for the include pass: after
    /// a backslash-newline and a CR the definition is guarded on the first run, not the second
    /// (found by tests/props.rs).
    #[test]
    fn lone_cr_line_ends_are_guarded_once() {
        for src in [format!("\\\n\r{OP}"), format!("int a;\r{OP}")] {
            let once = port("a.cu", &src);
            assert_eq!(port("a.cu", &once), once, "{src:?}");
        }
        let once = port("a.cu", &format!("\\\n\r{OP}"));
        assert!(once.contains(GUARD_OPEN), "{once:?}");
    }

    #[test]
    fn never_touches_members_templates_or_user_scopes() {
        for src in [
            "struct S {\n  __device__ float2 operator()(const float2 &a, const float2 &b) const { return a; }\n};\n",
            "struct S {\n  friend float2 operator+(float2 a, float2 b) { return a; }\n};\n",
            "template <typename T> __device__ T operator+(T a, T b) { return a; }\n",
            "template <> __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
            "namespace ns {\ninline __device__ float2 operator+(float2 a, float2 b) { return a; }\n}\n",
            "extern \"C\" {\n__device__ double atomicAdd(double *p, double v) { return v; }\n}\n",
            "float2 S<float>::operator()(float2 a, float2 b) { return a; }\n",
            "__device__ double atomicAdd(double *p, float v) { return v; }\n",
            "__device__ double atomicAdd(double **p, double v) { return v; }\n",
        ] {
            assert_eq!(port("a.h", src), src, "{src}");
        }
    }

    #[test]
    fn guard_lines_never_land_in_comments_strings_or_code() {
        for src in [
            // An unterminated comment: the parser may still see a definition; the lexer does not.
            "/* open\ninline __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
            // Code sharing the first or last line.
            "int x; inline __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
            "inline __device__ float2 operator+(float2 a, float2 b) { return a; } int y;\n",
            // A macro body.
            "#define OPS \\\ninline __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
        ] {
            let out = port("a.h", src);
            assert_eq!(out, port("a.h", &out), "rerun changes {src:?}");
            assert!(!out.contains(GUARD_OPEN), "{src:?} → {out}");
        }
    }

    #[test]
    fn comments_crossing_the_line_keep_the_guard_on_its_own_line() {
        let src = format!("/* a\nb */ {}", OP.replace('\n', " /* c\nd */\n"));
        let out = port("a.h", &src);
        assert_eq!(
            out,
            format!(
                "/* a\nb */\n{GUARD_OPEN}\n {}\n{GUARD_CLOSE}\n /* c\nd */\n",
                OP.trim_end()
            )
        );
        assert_eq!(port("a.h", &out), out);
    }

    #[test]
    fn implicit_include_comes_before_the_guard() {
        let src =
            format!("// helpers\n{OP}__global__ void k(float2 *p) {{ p[0] = p[0] + p[1]; }}\n");
        let out = port("a.cu", &src);
        let inc = out.find("#include <hip/hip_runtime.h>").unwrap();
        let open = out.find(GUARD_OPEN).unwrap();
        assert!(inc < open, "{out}");
    }

    fn sig(v: &[(&str, By)]) -> Vec<(String, By)> {
        v.iter().map(|(t, h)| (t.to_string(), *h)).collect()
    }

    #[test]
    fn operator_shapes_are_hips_only() {
        use By::*;
        assert!(operator_shape_ok(
            "+",
            &sig(&[("float4", Value), ("float4", Value)])
        ));
        assert!(operator_shape_ok(
            "*",
            &sig(&[("float", Value), ("float4", Ref)])
        ));
        assert!(operator_shape_ok(
            "+=",
            &sig(&[("float4", Ref), ("float4", Value)])
        ));
        assert!(operator_shape_ok(
            "*=",
            &sig(&[("float2", Ref), ("float", Value)])
        ));
        assert!(operator_shape_ok("-", &sig(&[("float2", Ref)])));
        assert!(operator_shape_ok(
            "&",
            &sig(&[("int2", Value), ("int2", Value)])
        ));
        // Not HIP's: mixed vectors, by-value compound assignment, float bit ops, pointers,
        // comparison operators (HIP's return a different type), three parameters.
        assert!(!operator_shape_ok(
            "*",
            &sig(&[("float3", Value), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "+=",
            &sig(&[("float4", Value), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "&",
            &sig(&[("float2", Value), ("float2", Value)])
        ));
        assert!(!operator_shape_ok(
            "+",
            &sig(&[("float4", Ptr), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "==",
            &sig(&[("float4", Value), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "()",
            &sig(&[("float2", Ref), ("float2", Ref)])
        ));
        assert!(!operator_shape_ok(
            "+",
            &sig(&[("MyVec", Value), ("MyVec", Value)])
        ));
        assert!(!operator_shape_ok(
            "+",
            &sig(&[("float4", Value), ("float4", Value), ("float4", Value)])
        ));
    }
}
