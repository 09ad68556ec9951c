//! Git-style unified diffs (`a/` and `b/` paths relative to the root), applicable with
//! `git apply`. Works on bytes: CRLF, tabs and non-UTF-8 bytes are shown exactly.

use std::io::{self, Write};

/// Writes the diff of one file; nothing when `old == new`.
/// A file the port creates (`hipport_compat.h`), as a git "new file" diff.
pub fn write_new_file(w: &mut dyn Write, rel: &str, new: &[u8]) -> io::Result<()> {
    let text = String::from_utf8_lossy(new);
    let lines: Vec<&str> = text.lines().collect();
    writeln!(w, "diff --git a/{rel} b/{rel}")?;
    writeln!(w, "new file mode 100644")?;
    writeln!(w, "--- /dev/null")?;
    writeln!(w, "+++ b/{rel}")?;
    writeln!(w, "@@ -0,0 +1,{} @@", lines.len())?;
    for l in lines {
        writeln!(w, "+{l}")?;
    }
    Ok(())
}

pub fn write_file_diff(w: &mut dyn Write, rel: &str, old: &[u8], new: &[u8]) -> io::Result<()> {
    if old == new {
        return Ok(());
    }
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_lines(old, new);
    writeln!(w, "diff --git a/{rel} b/{rel}")?;
    writeln!(w, "--- a/{rel}")?;
    writeln!(w, "+++ b/{rel}")?;
    for group in diff.grouped_ops(3) {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        writeln!(
            w,
            "@@ -{} +{} @@",
            hunk_range(old_range.start, old_range.len()),
            hunk_range(new_range.start, new_range.len())
        )?;
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Equal => b' ',
                    similar::ChangeTag::Delete => b'-',
                    similar::ChangeTag::Insert => b'+',
                };
                let line: &[u8] = change.value();
                w.write_all(&[sign])?;
                w.write_all(line)?;
                if !line.ends_with(b"\n") {
                    w.write_all(b"\n\\ No newline at end of file\n")?;
                }
            }
        }
    }
    Ok(())
}

fn hunk_range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{}", start + 1, len),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_diff_with_missing_newline() {
        let mut out = Vec::new();
        write_file_diff(&mut out, "a.cu", b"x\ncudaFree(p);", b"x\nhipFree(p);").unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(
            s,
            "diff --git a/a.cu b/a.cu\n--- a/a.cu\n+++ b/a.cu\n@@ -1,2 +1,2 @@\n x\n-cudaFree(p);\n\\ No newline at end of file\n+hipFree(p);\n\\ No newline at end of file\n"
        );
    }
}
