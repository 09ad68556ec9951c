//! In-code suppressions: `// hipport: allow(HP101) reason` on the flagged line or on the line
//! above silences that rule there (several codes: `allow(HP101, HP703)`). Suppressed findings
//! are counted, never silently lost, so the summary shows how many a file hides.

use crate::finding::Finding;
use crate::lex::{Lexed, Tok};
use crate::source::LineIndex;
use std::collections::HashSet;

/// (0-based line, rule code) pairs allowed by comments in `src`.
pub fn allowances(src: &[u8], lexed: &Lexed, lines: &LineIndex) -> HashSet<(usize, String)> {
    let mut out = HashSet::new();
    for t in lexed.tokens.iter().filter(|t| t.kind == Tok::Comment) {
        let text = String::from_utf8_lossy(t.text(src));
        let mut rest: &str = &text;
        while let Some(p) = rest.find("hipport: allow(") {
            let after = &rest[p + "hipport: allow(".len()..];
            let Some(close) = after.find(')') else { break };
            let line = lines.line_of(t.start as usize + (text.len() - rest.len()) + p);
            for code in after[..close].split(',') {
                let code = code.trim().to_ascii_uppercase();
                if !code.is_empty() {
                    out.insert((line, code.clone()));
                    out.insert((line + 1, code));
                }
            }
            rest = &after[close..];
        }
    }
    out
}

/// Removes suppressed findings from `findings` (the file's tokens and line index already at
/// hand) and returns how many were removed.
pub fn apply_lexed(
    src: &[u8],
    lexed: &crate::lex::Lexed,
    lines: &LineIndex,
    findings: &mut Vec<Finding>,
) -> usize {
    if memchr::memmem::find(src, b"hipport: allow(").is_none() {
        return 0;
    }
    let allowed = allowances(src, lexed, lines);
    let before = findings.len();
    findings.retain(|f| !allowed.contains(&(f.line as usize - 1, f.rule.to_ascii_uppercase())));
    before - findings.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_line_and_line_above() {
        let src = b"// hipport: allow(HP101) tile size\nint a = x % 32;\nint b = y % 32; // hipport: allow(hp102, HP103) ok\nint c = z % 32;\n";
        let lexed = crate::lex::lex(src);
        let lines = LineIndex::new(src);
        let a = allowances(src, &lexed, &lines);
        assert!(a.contains(&(1, "HP101".into())));
        assert!(a.contains(&(2, "HP102".into())) && a.contains(&(2, "HP103".into())));
        assert!(!a.contains(&(3, "HP101".into())));
    }
}
