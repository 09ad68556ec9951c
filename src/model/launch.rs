//! Where a kernel launch is in a file's tokens: `ns::k<T, N><<<g, b, s, st>>>`, its kernel
//! expression and its configuration split at top-level commas. The translator rewrites launches
//! with it (`--launch-syntax hip`) and the project passes read block shapes with it. Every scan
//! is bounded (the template arguments by [`TEMPLATE_SCAN_LIMIT`] tokens, the configuration by
//! the next `>>>`, `<<<` or `;`), so a file full of unterminated `<<<` is read in linear time.

use crate::lex::{Lexed, Tok};

/// How many tokens the backward scan over a kernel's template arguments may visit.
pub const TEMPLATE_SCAN_LIMIT: usize = 512;

fn text<'a>(src: &'a [u8], l: &Lexed, i: usize) -> &'a [u8] {
    l.tokens[i].text(src)
}

/// Whether tokens `i..i+3` are `ccc` (`<<<`, `>>>`), written together.
pub fn is_triple(src: &[u8], l: &Lexed, i: usize, c: u8) -> bool {
    let t = &l.tokens;
    i + 2 < t.len()
        && (0..3).all(|k| t[i + k].kind == Tok::Punct && text(src, l, i + k) == [c])
        && t[i + 1].start == t[i].end
        && t[i + 2].start == t[i + 1].end
}

/// A launch whose `<<<` is a token the caller found.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The first token of the kernel expression (`ns` of `ns::k`).
    pub name_start: usize,
    /// The kernel's name token (`k`).
    pub name: usize,
    /// The kernel is written with template arguments.
    pub templated: bool,
    /// The configuration's arguments, as token ranges `[a, b)`.
    pub config: Vec<(usize, usize)>,
    /// The first token of `>>>`.
    pub close: usize,
}

/// The launch whose `<<<` is token `open`, when it is one outside a directive.
pub fn at(src: &[u8], l: &Lexed, open: usize) -> Option<Launch> {
    if l.tokens[open].in_directive() {
        return None;
    }
    // The kernel expression before `<<<`: `ns::name<T, N>`.
    let mut j = l.prev_code(open)?;
    let mut templated = false;
    if text(src, l, j) == b">" {
        let mut depth = 0;
        let mut steps = 0;
        loop {
            steps += 1;
            if steps > TEMPLATE_SCAN_LIMIT || l.tokens[j].in_directive() {
                return None;
            }
            match text(src, l, j) {
                b">" => depth += 1,
                b"<" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b";" | b"{" | b"}" => return None,
                _ => {}
            }
            j = l.prev_code(j)?;
        }
        templated = true;
        j = l.prev_code(j)?;
    }
    if l.tokens[j].kind != Tok::Ident || l.tokens[j].in_directive() {
        return None;
    }
    let mut name_start = j;
    while let Some(c) = l.prev_code(name_start) {
        if text(src, l, c) != b"::" || l.tokens[c].in_directive() {
            break;
        }
        match l.prev_code(c) {
            Some(q) if l.tokens[q].kind == Tok::Ident && !l.tokens[q].in_directive() => {
                name_start = q
            }
            _ => {
                name_start = c;
                break;
            }
        }
    }
    // Configuration between <<< and >>>, split at top-level commas. The scan ends at the first
    // `>>>`, `<<<` or `;`, so a run of unterminated launches is scanned once in total.
    let mut k = open + 3;
    let mut depth = 0;
    let mut config: Vec<(usize, usize)> = Vec::new();
    let mut arg_start = k;
    loop {
        if k >= l.tokens.len() || l.tokens[k].in_directive() {
            return None;
        }
        if is_triple(src, l, k, b'>') {
            if depth != 0 {
                return None;
            }
            config.push((arg_start, k));
            break;
        }
        if is_triple(src, l, k, b'<') {
            return None;
        }
        match text(src, l, k) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => depth -= 1,
            b"," if depth == 0 => {
                config.push((arg_start, k));
                arg_start = k + 1;
            }
            b";" => return None,
            _ => {}
        }
        k += 1;
    }
    let name = j;
    Some(Launch {
        name_start,
        name,
        templated,
        config,
        close: k,
    })
}
