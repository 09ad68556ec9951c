//! The word-level highlight of the review page: which words of a changed line differ from its
//! counterpart on the other side. Kept apart from the page model because it is a question about
//! two strings only; the spans are in UTF-16 units because the page's script slices with them.

/// The words that differ between an old and a new line, as spans of each: the lines are cut
/// into identifiers, numbers, single punctuation characters and runs of spaces, and `similar`
/// diffs the two token lists (Myers, deterministic). A pair of lines with less than half of
/// their tokens in common is a rewrite, not an edit: nothing is highlighted.
pub(super) fn changed_words(a: &str, b: &str) -> (Vec<[u32; 2]>, Vec<[u32; 2]>) {
    fn tokens(s: &str) -> Vec<&str> {
        let class = |c: char| {
            if c.is_alphanumeric() || c == '_' {
                0
            } else if c.is_whitespace() {
                1
            } else {
                2
            }
        };
        let mut out = Vec::new();
        let mut start = 0;
        let mut prev: Option<u8> = None;
        for (i, c) in s.char_indices() {
            let k = class(c);
            if prev.is_some_and(|p| p != k || k == 2) {
                out.push(&s[start..i]);
                start = i;
            }
            prev = Some(k);
        }
        if start < s.len() {
            out.push(&s[start..]);
        }
        out
    }
    let (ta, tb) = (tokens(a), tokens(b));
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &ta, &tb);
    if similar::diff_ratio(&ops, ta.len(), tb.len()) < 0.5 {
        return (Vec::new(), Vec::new());
    }
    // UTF-16 offset of each token start (the script's string indices), and of the end.
    let offsets = |t: &[&str]| -> Vec<u32> {
        let mut v = Vec::with_capacity(t.len() + 1);
        let mut at = 0u32;
        v.push(0);
        for tok in t {
            at += tok.encode_utf16().count() as u32;
            v.push(at);
        }
        v
    };
    let (oa, ob) = (offsets(&ta), offsets(&tb));
    let mut spans = (Vec::new(), Vec::new());
    let add = |v: &mut Vec<[u32; 2]>, at: &[u32], r: std::ops::Range<usize>| {
        if r.is_empty() {
            return;
        }
        let (s, e) = (at[r.start], at[r.end]);
        match v.last_mut() {
            Some(last) if last[1] == s => last[1] = e,
            _ => v.push([s, e]),
        }
    };
    for op in &ops {
        if op.tag() != similar::DiffTag::Equal {
            add(&mut spans.0, &oa, op.old_range());
            add(&mut spans.1, &ob, op.new_range());
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_words_mark_the_renamed_identifiers_only() {
        let (a, b) = changed_words(
            "  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);",
            "  hipMemcpy(d, h, n, hipMemcpyHostToDevice);",
        );
        assert_eq!(a, [[2, 12], [22, 44]]);
        assert_eq!(b, [[2, 11], [21, 42]]);
        // UTF-16 offsets: `é` is one unit, `😀` two.
        let (a, b) = changed_words("é 😀 cudaFree(p);", "é 😀 hipFree(p);");
        assert_eq!((a, b), (vec![[5, 13]], vec![[5, 12]]));
    }

    #[test]
    fn a_rewritten_line_has_no_word_highlight() {
        let (a, b) = changed_words("int x = 1;", "return foo(bar);");
        assert!(a.is_empty() && b.is_empty());
        let (a, b) = changed_words("same line", "same line");
        assert!(a.is_empty() && b.is_empty(), "equal lines: nothing to mark");
    }
}
