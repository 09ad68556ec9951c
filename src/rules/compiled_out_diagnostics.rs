//! Arms whose code only feeds diagnostic output. A version gate around the lines that print a
//! device's memory clock (`gpuinfo->push_back(PrintStr("Memory Clock rate: %d", …))`), around
//! the fields only those lines read (`g.clockratemem = prop.memoryClockRate;`), or around the
//! text of an error the program throws anyway (`err = cublasGetStatusString(rc)` beside
//! `err = ""`) changes what the ROCm build prints, not what it computes.

use crate::lex::Tok;
use crate::model::syntax::Src;
use std::collections::HashMap;
use std::ops::Range;

/// Name parts of calls that write text for people (`printf`, `PrintStr`, `LOG`, `cerr`).
const OUTPUT_WORDS: [&str; 10] = [
    "print", "log", "puts", "cout", "cerr", "clog", "trace", "warn", "message", "report",
];

/// A file's code tokens outside directives (indices into the lexer's tokens) and where each
/// name occurs among them: built once per file, on its first HP304 chain.
pub(super) struct Code<'a> {
    toks: Vec<usize>,
    by_name: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Code<'a> {
    pub(super) fn of(s: &Src<'a>) -> Self {
        let toks: Vec<usize> = s
            .lexed
            .tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind != Tok::Comment && !t.in_directive())
            .map(|(i, _)| i)
            .collect();
        let mut by_name: HashMap<&'a str, Vec<usize>> = HashMap::new();
        for (k, &i) in toks.iter().enumerate() {
            if s.lexed.tokens[i].kind == Tok::Ident {
                by_name.entry(s.tok(i)).or_default().push(k);
            }
        }
        Code { toks, by_name }
    }
}

/// The statement around position `k` of `toks`: from after the previous `;`, `{` or `}` to the
/// next `;` (or brace), as a range of positions.
fn statement(s: &Src, toks: &[usize], k: usize) -> Range<usize> {
    let ends = |i: usize| matches!(s.tok(toks[i]), ";" | "{" | "}");
    let start = (0..k).rev().find(|&i| ends(i)).map_or(0, |i| i + 1);
    let end = (k..toks.len()).find(|&i| ends(i)).unwrap_or(toks.len());
    start..end
}

/// Whether a statement writes text for people: it has a string literal and either throws or
/// calls something named for output (`fprintf`, `PrintStr`, `std::cerr <<`).
fn writes_text(s: &Src, toks: &[usize], st: &Range<usize>) -> bool {
    let mut literal = false;
    let mut output = false;
    for &i in &toks[st.clone()] {
        let t = &s.lexed.tokens[i];
        match t.kind {
            Tok::Str => literal = true,
            Tok::Ident => {
                let w = s.tok(i).to_ascii_lowercase();
                output |= w == "throw" || OUTPUT_WORDS.iter().any(|o| w.contains(o));
            }
            _ => {}
        }
    }
    literal && output
}

/// The name a statement assigns or declares (`g.clockratemem = …` → `clockratemem`,
/// `const char *err = …` → `err`): the identifier right before its first top-level `=`.
fn assigned(s: &Src, toks: &[usize], st: &Range<usize>) -> Option<usize> {
    let eq = st.clone().find(|&k| {
        s.tok(toks[k]) == "="
            && k > st.start
            && !matches!(s.tok(toks[k - 1]), "=" | "!" | "<" | ">")
    })?;
    (s.lexed.tokens[toks[eq - 1]].kind == Tok::Ident).then_some(eq - 1)
}

/// Whether the name at position `j` is declared there without a value (`int clock;`, a
/// member of the struct the arm fills).
fn declares(s: &Src, toks: &[usize], j: usize) -> bool {
    let before = j.checked_sub(1).map(|k| toks[k]);
    let after = toks.get(j + 1).map_or("", |&k| s.tok(k));
    matches!(after, ";" | "," | "[")
        && before
            .is_some_and(|k| s.lexed.tokens[k].kind == Tok::Ident || matches!(s.tok(k), "*" | "&"))
}

/// Whether the statement declares the local at position `at` (`const char *err = …`: a type
/// before the name, no `.`/`->`).
fn declares_local(s: &Src, toks: &[usize], st: &Range<usize>, at: usize) -> bool {
    at > st.start && {
        let k = toks[at - 1];
        s.lexed.tokens[k].kind == Tok::Ident || matches!(s.tok(k), "*" | "&")
    }
}

/// The position of the `}` that closes the block around position `from` (the file's end when
/// none does).
fn block_end(s: &Src, toks: &[usize], from: usize) -> usize {
    let mut depth = 0i32;
    for (k, &i) in toks.iter().enumerate().skip(from + 1) {
        match s.tok(i) {
            "{" => depth += 1,
            "}" if depth == 0 => return k,
            "}" => depth -= 1,
            _ => {}
        }
    }
    toks.len()
}

/// Whether every statement of `body` writes text for people, or assigns a name the rest of the
/// file reads only in such statements (and reads somewhere). Returns the first output call's
/// name for the message.
pub(super) fn only_diagnostics(s: &Src, code: &Code, body: &Range<usize>) -> Option<String> {
    let toks = &code.toks;
    let start_of = |k: usize| s.lexed.tokens[toks[k]].start as usize;
    let first = toks.partition_point(|&i| (s.lexed.tokens[i].start as usize) < body.start);
    let end = toks.partition_point(|&i| (s.lexed.tokens[i].start as usize) < body.end);
    if first >= end || !body.contains(&start_of(first)) {
        return None;
    }
    let last = end - 1;
    let toks = toks.as_slice();
    let mut k = first;
    let mut any = false;
    while k <= last {
        let st = statement(s, toks, k);
        let next = st.end + 1;
        if st.is_empty() {
            k = next;
            continue;
        }
        // A statement that crosses the arm's edges is not the arm's alone.
        if st.start < first || st.end > last + 1 {
            return None;
        }
        if !writes_text(s, toks, &st) {
            let at = assigned(s, toks, &st)?;
            let name = s.tok(toks[at]);
            // A local the arm declares is read only up to the end of its block; a member or a
            // global anywhere in the file.
            let scope = if declares_local(s, toks, &st, at) {
                first..block_end(s, toks, last)
            } else {
                0..toks.len()
            };
            let mut read = false;
            let uses = code.by_name.get(name).map_or(&[][..], Vec::as_slice);
            for &j in uses
                .iter()
                .filter(|&&j| scope.contains(&j) && !(first..=last).contains(&j))
            {
                let other = statement(s, toks, j);
                if assigned(s, toks, &other) == Some(j) || declares(s, toks, j) {
                    continue;
                }
                if !writes_text(s, toks, &other) {
                    return None;
                }
                read = true;
            }
            if !read {
                return None;
            }
        }
        any = true;
        k = next;
    }
    any.then(|| "diagnostic output".to_string())
}
