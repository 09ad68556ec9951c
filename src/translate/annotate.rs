//! `--annotate`: a review comment above each flagged line, so that an annotated diff carries its
//! reasons: `// hipport HP101 [REMEDIATION/CORRECTNESS]: message`.
//!
//! Rerunning must change nothing, so a note is not added where the lines just above its
//! statement already carry it: the same text, or a note of the same rule (a message may name
//! the code as it was spelled before the port, `__shfl_down_sync` on the first run and
//! `__shfl_down` on the second). A note goes only where a comment is legal and stays one: at
//! the start of a line that is not inside a comment, a string, a directive or a line continued
//! by a backslash. Lines end at `\n`, `\r\n` or a lone `\r`, as compilers read them.

use crate::edit::Edit;
use crate::finding::Finding;
use crate::lex::{Lexed, Tok};

/// Which findings get a note: the project's rule levels and `--select`/`--ignore`, set once by
/// `port --annotate` before the files are translated (suppression comments are already applied
/// to the findings the pipeline passes in). Unset, every finding gets one.
type Filter = Box<dyn Fn(&Finding) -> bool + Send + Sync>;
static FILTER: std::sync::OnceLock<Filter> = std::sync::OnceLock::new();

/// Sets the filter of this process's annotations; a second call is ignored.
pub fn set_filter(keep: Filter) {
    let _ = FILTER.set(keep);
}

pub fn comment_text(f: &Finding) -> String {
    let msg = f.message.replace(['\r', '\n'], " ");
    format!("// hipport {} [{}/{}]: {}", f.rule, f.status, f.phase, msg)
}

/// The rule code of a note line (`HP104` in `// hipport HP104 [...]: ...`).
fn code_of(note: &str) -> Option<&str> {
    note.strip_prefix("// hipport ")?.split_whitespace().next()
}

/// Insertion edits for `findings` (positions in `src`).
pub fn annotate(src: &[u8], lexed: &Lexed, findings: &[Finding]) -> Vec<Edit> {
    let lines = Lines::new(src);
    let nl = crate::source::newline_of(src);
    // Line start → the notes wanted there, each once, in the order of the findings.
    let mut groups: Vec<(usize, Vec<String>)> = Vec::new();
    let mut slot: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for f in findings
        .iter()
        .filter(|f| FILTER.get().is_none_or(|keep| keep(f)))
    {
        let start = anchor(src, lexed, &lines, f.byte_range.0.min(src.len()));
        let text = comment_text(f);
        let g = *slot.entry(start).or_insert_with(|| {
            groups.push((start, Vec::new()));
            groups.len() - 1
        });
        if !groups[g].1.contains(&text) {
            groups[g].1.push(text);
        }
    }
    let mut edits = Vec::new();
    for (start, wanted) in groups {
        let mut existing: Vec<Option<String>> = lines
            .notes_above(src, start)
            .into_iter()
            .map(Some)
            .collect();
        let mut take = |pred: &dyn Fn(&str) -> bool| {
            existing
                .iter_mut()
                .find(|e| e.as_deref().is_some_and(pred))
                .map(|e| *e = None)
                .is_some()
        };
        // Exact matches first, so that a same-rule match never takes another note's line.
        let missing: Vec<String> = wanted
            .into_iter()
            .filter(|t| !take(&|e: &str| e == t))
            .collect();
        let indent: String = src[start..]
            .iter()
            .take_while(|c| **c == b' ' || **c == b'\t')
            .map(|&c| c as char)
            .collect();
        for t in missing {
            let code = code_of(&t);
            if code.is_some() && take(&|e: &str| code_of(e) == code) {
                continue;
            }
            edits.push(Edit::insert(start, format!("{indent}{t}{nl}")));
        }
    }
    edits
}

/// Where the note for a finding at `offset` goes: the start of the line of its statement,
/// moved up while that line start lies inside a multi-line token (a block comment, a raw
/// string), a directive, or after a backslash-newline.
fn anchor(src: &[u8], lexed: &Lexed, lines: &Lines, offset: usize) -> usize {
    let mut at = statement_start(src, lexed, offset);
    loop {
        // Inside a directive (a macro body): above the directive.
        if let Some(d) = directive_at(lexed, at).filter(|d| d.start < at) {
            at = d.start;
            continue;
        }
        let ls = lines.start_of(at);
        if let Some(t) = token_across(lexed, ls) {
            at = t;
            continue;
        }
        if let Some(d) = directive_at(lexed, ls).filter(|d| d.start < ls) {
            at = d.start;
            continue;
        }
        if continued(src, ls) {
            at = ls - 1;
            continue;
        }
        return ls;
    }
}

/// The directive whose line (continuations included) holds `at`.
fn directive_at(lexed: &Lexed, at: usize) -> Option<&crate::lex::Directive> {
    let ds = &lexed.directives;
    let i = ds.partition_point(|d| d.start <= at).checked_sub(1)?;
    Some(&ds[i]).filter(|d| at <= d.end)
}

/// The start of a token that begins before `at` and ends after it.
fn token_across(lexed: &Lexed, at: usize) -> Option<usize> {
    let ts = &lexed.tokens;
    let i = ts
        .partition_point(|t| (t.start as usize) < at)
        .checked_sub(1)?;
    let t = ts[i];
    (t.end as usize > at).then_some(t.start as usize)
}

/// Whether the line starting at `ls` continues the one before it (a backslash before the line
/// end): a note there would join that line.
fn continued(src: &[u8], ls: usize) -> bool {
    let mut k = ls;
    if k > 0 && src[k - 1] == b'\n' {
        k -= 1;
    }
    if k > 0 && src[k - 1] == b'\r' {
        k -= 1;
    }
    k < ls && k > 0 && src[k - 1] == b'\\'
}

/// Line starts, with `\n`, `\r\n` and a lone `\r` each ending a line.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(src: &[u8]) -> Lines {
        let mut starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', src) {
            if src[i] == b'\n' || src.get(i + 1) != Some(&b'\n') {
                starts.push(i + 1);
            }
        }
        Lines { starts }
    }

    fn start_of(&self, at: usize) -> usize {
        let i = self.starts.partition_point(|&s| s <= at);
        self.starts[i.saturating_sub(1)]
    }

    /// The `// hipport ` note lines directly above the line starting at `start`, trimmed.
    fn notes_above(&self, src: &[u8], start: usize) -> Vec<String> {
        let mut out = Vec::new();
        let Ok(mut k) = self.starts.binary_search(&start) else {
            return out;
        };
        while k > 0 {
            let line = &src[self.starts[k - 1]..self.starts[k]];
            let text = String::from_utf8_lossy(line);
            let text = text.trim();
            if !text.starts_with("// hipport ") {
                break;
            }
            out.push(text.to_string());
            k -= 1;
        }
        out
    }
}

/// The start of the statement holding `offset`: the first code token after the previous `;`,
/// `{` or `}` (or directive), so a call spread over several lines is annotated above its first.
fn statement_start(src: &[u8], lexed: &Lexed, offset: usize) -> usize {
    let toks = &lexed.tokens;
    let mut i = toks.partition_point(|t| t.end as usize <= offset);
    if i == toks.len() {
        return offset;
    }
    if toks[i].in_directive() {
        return offset;
    }
    let mut start = toks[i].start as usize;
    while i > 0 {
        i -= 1;
        let t = &toks[i];
        if t.kind == Tok::Comment {
            continue;
        }
        if t.in_directive() || matches!(t.text(src), b";" | b"{" | b"}") {
            break;
        }
        start = t.start as usize;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_cr_ends_a_line_and_crlf_counts_once() {
        let l = Lines::new(b"a\rb\r\nc\nd");
        assert_eq!(l.starts, vec![0, 2, 5, 7]);
        assert_eq!(l.start_of(3), 2);
        assert_eq!(l.start_of(8), 7);
    }

    #[test]
    fn a_line_after_a_backslash_newline_is_a_continuation() {
        assert!(continued(b"a \\\nb", 4));
        assert!(continued(b"a \\\r\nb", 5));
        assert!(!continued(b"a\nb", 2));
        assert!(!continued(b"b", 0));
    }

    #[test]
    fn notes_are_read_above_a_line_and_matched_by_code() {
        let src = b"x;\n  // hipport HP104 [REMEDIATION/CORRECTNESS]: old\n  y;\n";
        let l = Lines::new(src);
        let notes = l.notes_above(src, src.len() - b"  y;\n".len());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(code_of(&notes[0]), Some("HP104"));
        assert_eq!(code_of("// not a note"), None);
    }
}
