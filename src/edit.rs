//! Text edits over a byte buffer. Knows nothing of parsers or mappings.
//!
//! An edit replaces a byte range with new text. Applying a set of edits keeps every byte outside
//! the edited ranges as it was (CRLF, tabs, BOM, invalid UTF-8 in comments), which is what makes
//! the output of `port` reviewable as a diff.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

impl Edit {
    pub fn replace(start: usize, end: usize, replacement: impl Into<String>) -> Edit {
        Edit {
            start,
            end,
            replacement: replacement.into(),
        }
    }
    pub fn insert(at: usize, text: impl Into<String>) -> Edit {
        Edit::replace(at, at, text)
    }
    pub fn delete(start: usize, end: usize) -> Edit {
        Edit::replace(start, end, "")
    }
}

/// Edits that could not be applied because they overlap an earlier one.
#[derive(Debug, Default)]
pub struct Applied {
    pub output: Vec<u8>,
    pub conflicts: Vec<Edit>,
}

/// Applies edits in order of position. Insertions at the same offset keep their given order.
/// An edit overlapping one already taken is returned as a conflict, never dropped silently.
pub fn apply(src: &[u8], edits: &[Edit]) -> Applied {
    let mut sorted: Vec<(usize, &Edit)> = edits.iter().enumerate().collect();
    sorted.sort_by_key(|(i, e)| (e.start, e.end, *i));
    let mut out = Vec::with_capacity(src.len() + src.len() / 16);
    let mut conflicts = Vec::new();
    let mut pos = 0usize;
    for (_, e) in sorted {
        if e.start < pos || e.end < e.start || e.end > src.len() {
            conflicts.push(e.clone());
            continue;
        }
        out.extend_from_slice(&src[pos..e.start]);
        out.extend_from_slice(e.replacement.as_bytes());
        pos = e.end;
    }
    out.extend_from_slice(&src[pos..]);
    Applied {
        output: out,
        conflicts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_and_keeps_bytes_outside() {
        let src = b"a\r\nfoo(x);\xff\n";
        let out = apply(
            src,
            &[Edit::replace(3, 6, "barbaz"), Edit::insert(0, "// h\r\n")],
        );
        assert_eq!(out.output, b"// h\r\na\r\nbarbaz(x);\xff\n");
        assert!(out.conflicts.is_empty());
    }

    #[test]
    fn overlapping_edit_is_a_conflict() {
        let out = apply(
            b"abcdef",
            &[Edit::replace(1, 4, "X"), Edit::replace(2, 3, "Y")],
        );
        assert_eq!(out.output, b"aXef");
        assert_eq!(out.conflicts.len(), 1);
    }
}
