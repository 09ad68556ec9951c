//! Git-style unified diffs (`a/` and `b/` paths relative to the root), applicable with
//! `git apply`. Works on bytes: CRLF, tabs and non-UTF-8 bytes are shown exactly. A name with
//! a control character, a quote, a backslash or a non-ASCII byte is written as git writes it
//! (C-style, in double quotes, octal escapes), so `git apply` takes it byte for byte instead of
//! rejecting the whole diff.

use std::io::{self, Write};

/// `prefix` + `name` as a path in a diff header: as it is when plain, else quoted as git does.
pub fn quote_path(prefix: &str, name: &[u8]) -> Vec<u8> {
    let plain = name
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    let mut out = Vec::with_capacity(prefix.len() + name.len() + 2);
    if plain {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(name);
        return out;
    }
    out.push(b'"');
    out.extend_from_slice(prefix.as_bytes());
    for &b in name {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\x07' => out.extend_from_slice(b"\\a"),
            b'\x08' => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\x0b' => out.extend_from_slice(b"\\v"),
            b'\x0c' => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    out.push(b'"');
    out
}

/// The `diff --git`, `---` and `+++` lines for `name` (`/dev/null` as the old side of a new file).
fn header(w: &mut dyn Write, name: &[u8], new_file: bool) -> io::Result<()> {
    let (a, b) = (quote_path("a/", name), quote_path("b/", name));
    w.write_all(b"diff --git ")?;
    w.write_all(&a)?;
    w.write_all(b" ")?;
    w.write_all(&b)?;
    if new_file {
        w.write_all(b"\nnew file mode 100644\n--- /dev/null")?;
    } else {
        w.write_all(b"\n--- ")?;
        w.write_all(&a)?;
    }
    w.write_all(b"\n+++ ")?;
    w.write_all(&b)?;
    w.write_all(b"\n")
}

/// The line diff of `old` and `new`, every line taken as newline-terminated, so a last line
/// without one gets git's `\ No newline at end of file` marker.
fn line_diff<'a>(old: &'a [u8], new: &'a [u8]) -> similar::TextDiff<'a, 'a, [u8]> {
    similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .newline_terminated(true)
        .diff_lines(old, new)
}

/// A file the port creates (`hipport_compat.h`), as a git "new file" diff.
pub fn write_new_file(w: &mut dyn Write, rel: &str, new: &[u8]) -> io::Result<()> {
    header(w, rel.as_bytes(), true)?;
    line_diff(b"", new).unified_diff().to_writer(w)
}

/// Writes the diff of one file; nothing when `old == new`. `rel` is the name relative to the
/// root, `/`-separated, byte-exact.
pub fn write_file_diff(
    w: &mut dyn Write,
    rel: impl AsRef<[u8]>,
    old: &[u8],
    new: &[u8],
) -> io::Result<()> {
    write_file_diff_styled(w, rel, old, new, false)
}

/// ANSI styles of a coloured diff, as `git diff --color`: file headers bold, hunk headers cyan,
/// removed lines red, added lines green.
const BOLD: &[u8] = b"\x1b[1m";
const CYAN: &[u8] = b"\x1b[36m";
const RED: &[u8] = b"\x1b[31m";
const GREEN: &[u8] = b"\x1b[32m";
const RESET: &[u8] = b"\x1b[0m";

/// [`write_file_diff`], coloured when `colour` (a terminal, or `--color always`). Hunks, their
/// `@@` headers and the missing-newline marker are `similar`'s unified diff (context 3); only
/// the colours are painted here.
pub fn write_file_diff_styled(
    w: &mut dyn Write,
    rel: impl AsRef<[u8]>,
    old: &[u8],
    new: &[u8],
    colour: bool,
) -> io::Result<()> {
    if old == new {
        return Ok(());
    }
    let diff = line_diff(old, new);
    let udiff = diff.unified_diff();
    if !colour {
        header(w, rel.as_ref(), false)?;
        return udiff.to_writer(w);
    }
    w.write_all(BOLD)?;
    header(w, rel.as_ref(), false)?;
    w.write_all(RESET)?;
    for hunk in udiff.iter_hunks() {
        w.write_all(CYAN)?;
        write!(w, "{}", hunk.header())?;
        w.write_all(RESET)?;
        writeln!(w)?;
        for change in hunk.iter_changes() {
            let style = match change.tag() {
                similar::ChangeTag::Equal => None,
                similar::ChangeTag::Delete => Some(RED),
                similar::ChangeTag::Insert => Some(GREEN),
            };
            let line: &[u8] = change.value();
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            w.write_all(style.unwrap_or_default())?;
            write!(w, "{}", change.tag())?;
            w.write_all(body)?;
            if style.is_some() {
                w.write_all(RESET)?;
            }
            if body.len() < line.len() {
                w.write_all(b"\n")?;
            } else {
                w.write_all(b"\n\\ No newline at end of file\n")?;
            }
        }
    }
    Ok(())
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

    #[test]
    fn names_git_would_quote_are_quoted_as_git_does() {
        assert_eq!(quote_path("a/", b"src/k 1.cu"), b"a/src/k 1.cu");
        assert_eq!(
            quote_path("b/", b"d\xe9j\xa0/x\ny\t\"q\"\\.cu"),
            b"\"b/d\\351j\\240/x\\ny\\t\\\"q\\\"\\\\.cu\""
        );
        let mut out = Vec::new();
        write_file_diff(&mut out, b"n\nl.cu", b"a\n", b"b\n").unwrap();
        assert!(out.starts_with(
            b"diff --git \"a/n\\nl.cu\" \"b/n\\nl.cu\"\n--- \"a/n\\nl.cu\"\n+++ \"b/n\\nl.cu\"\n@@"
        ));
    }

    #[test]
    fn a_new_file_is_one_hunk_from_nothing() {
        let mut out = Vec::new();
        write_new_file(&mut out, "h.h", b"#pragma once\r\nint x;\n").unwrap();
        assert_eq!(
            out,
            b"diff --git a/h.h b/h.h\nnew file mode 100644\n--- /dev/null\n+++ b/h.h\n@@ -0,0 +1,2 @@\n+#pragma once\r\n+int x;\n"
        );
        let mut out = Vec::new();
        write_new_file(&mut out, "h.h", b"a").unwrap();
        assert!(out.ends_with(b"@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n"));
    }

    #[test]
    fn colour_paints_the_same_lines() {
        let (old, new) = (b"x\ncudaFree(p);".as_slice(), b"x\nhipFree(p);".as_slice());
        let mut plain = Vec::new();
        write_file_diff(&mut plain, "a.cu", old, new).unwrap();
        let mut painted = Vec::new();
        write_file_diff_styled(&mut painted, "a.cu", old, new, true).unwrap();
        assert_ne!(plain, painted);
        let mut stripped = String::from_utf8(painted).unwrap();
        for style in ["\x1b[1m", "\x1b[36m", "\x1b[31m", "\x1b[32m", "\x1b[0m"] {
            stripped = stripped.replace(style, "");
        }
        assert_eq!(stripped.as_bytes(), plain.as_slice());
        let mut none = Vec::new();
        write_file_diff_styled(&mut none, "a.cu", old, old, true).unwrap();
        assert!(none.is_empty(), "no diff for equal content");
    }
}
