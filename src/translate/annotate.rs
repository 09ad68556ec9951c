//! `--annotate`: a review comment above each flagged line, so that an annotated diff carries its
//! reasons: `// hipport HP101 [REMEDIATION/CORRECTNESS]: message`. A comment that is already
//! there is not added again, so rerunning changes nothing.

use crate::edit::Edit;
use crate::finding::Finding;
use crate::lex::Lexed;
use crate::source::LineIndex;

pub fn comment_text(f: &Finding) -> String {
    let msg = f.message.replace(['\r', '\n'], " ");
    format!("// hipport {} [{}/{}]: {}", f.rule, f.status, f.phase, msg)
}

/// Insertion edits for `findings` (positions in `src`).
pub fn annotate(src: &[u8], lexed: &Lexed, findings: &[Finding]) -> Vec<Edit> {
    let lines = LineIndex::new(src);
    let nl = crate::source::newline_of(src);
    let mut edits: Vec<Edit> = Vec::new();
    let mut seen: Vec<(usize, String)> = Vec::new();
    for f in findings {
        let mut at = statement_start(src, lexed, f.byte_range.0.min(src.len()));
        // Inside a multi-line directive (a macro body), annotate above the directive.
        if let Some(d) = lexed
            .directives
            .iter()
            .find(|d| d.start <= at && at <= d.end)
        {
            at = d.start;
        }
        let line0 = lines.line_of(at);
        let start = lines.line_start(line0);
        let indent: String = src[start..]
            .iter()
            .take_while(|c| **c == b' ' || **c == b'\t')
            .map(|&c| c as char)
            .collect();
        let text = comment_text(f);
        if seen.iter().any(|(s, t)| *s == start && *t == text) {
            continue;
        }
        // Already annotated by an earlier run: one of the comment lines just above says so.
        let mut k = line0;
        let mut present = false;
        while k > 0 {
            let ps = lines.line_start(k - 1);
            let pe = start.max(ps);
            let prev = String::from_utf8_lossy(&src[ps..lines.line_start(k).min(pe.max(ps))]);
            let prev = prev.trim();
            if !prev.starts_with("// hipport ") {
                break;
            }
            if prev == text {
                present = true;
                break;
            }
            k -= 1;
        }
        if present {
            continue;
        }
        seen.push((start, text.clone()));
        edits.push(Edit::insert(start, format!("{indent}{text}{nl}")));
    }
    edits
}

/// The start of the statement holding `offset`: the first code token after the previous `;`,
/// `{` or `}` (or directive), so a call spread over several lines is annotated above its first.
fn statement_start(src: &[u8], lexed: &Lexed, offset: usize) -> usize {
    use crate::lex::Tok;
    let toks = &lexed.tokens;
    let Some(mut i) = toks.iter().position(|t| t.end as usize > offset) else {
        return offset;
    };
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
