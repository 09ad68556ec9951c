//! Reading the small files a project keeps for hipport (`hipport.toml`, the baseline, the
//! migration record) from a repository hipport did not write. Such a file is a link to
//! `/proc/self/environ`, a FIFO or a huge blob as easily as a real file, and whatever a parser
//! says about it lands in CI logs. So: a file that is not regular, or a link that resolves
//! outside the project, is refused by name without being opened; reads are bounded; and parse
//! errors are reduced to a position and a message with quoted text redacted
//! ([`redact`]): no error carries the file's contents.

use std::io;
use std::path::Path;

/// The most bytes read from a configuration, baseline or record file.
pub const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// Reads `file` as UTF-8 text after checking it: a regular file (links followed), below the
/// project directory `project` when it is a link, and at most `limit` bytes. Errors name the
/// file and the reason, never its contents.
pub fn read_text(file: &Path, project: &Path, limit: u64) -> io::Result<String> {
    let link = std::fs::symlink_metadata(file)?;
    if link.file_type().is_symlink() {
        let target = std::fs::canonicalize(file)?;
        let root = std::fs::canonicalize(project)?;
        if !target.starts_with(&root) {
            return Err(io::Error::other(format!(
                "{} is a symbolic link that resolves outside the project ({}): not read",
                file.display(),
                root.display()
            )));
        }
    }
    let bytes = crate::safety::read_regular_bounded(file, limit)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", file.display())))?;
    String::from_utf8(bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is not UTF-8 text (invalid byte at offset {})",
                file.display(),
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The directory a project file belongs to: its parent (`.` for a bare name).
pub fn project_of(file: &Path) -> &Path {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A parser's message with every quoted stretch (`"…"`, `'…'`, and `` `…` `` longer than 40
/// characters) replaced by `…`, control characters dropped, and at most 200 characters: key
/// names and expectations stay, values read from the file do not.
pub fn redact(message: &str) -> String {
    let mut out = String::new();
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                // The quoted text is skipped, not kept.
                chars.by_ref().take_while(|&d| d != c).for_each(drop);
                out.push(c);
                out.push('…');
                out.push(c);
            }
            '`' => {
                let quoted: String = chars.by_ref().take_while(|&d| d != '`').collect();
                out.push('`');
                if quoted.chars().count() > 40 || quoted.chars().any(char::is_control) {
                    out.push('…');
                } else {
                    out.push_str(&quoted);
                }
                out.push('`');
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    if out.chars().count() > 200 {
        out = out.chars().take(200).collect::<String>() + "…";
    }
    out
}

/// Line and column (1-based) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, col)
}

/// A TOML error as `line L, column C: message`, without the excerpt of the file `toml` adds.
pub fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let msg = redact(e.message());
    match e.span() {
        Some(span) => {
            let (l, c) = line_col(text, span.start);
            format!("line {l}, column {c}: {msg}")
        }
        None => msg,
    }
}

/// A JSON error as `line L, column C: message` with quoted values redacted.
pub fn json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    // serde_json appends " at line L column C"; keep the position, redact the rest.
    let head = msg
        .rsplit_once(" at line ")
        .map_or(msg.as_str(), |(h, _)| h);
    if e.line() > 0 {
        format!("line {}, column {}: {}", e.line(), e.column(), redact(head))
    } else {
        redact(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_from_the_file_never_reach_the_message() {
        let m = redact("invalid type: string \"AWS_SECRET=abc\", expected a boolean");
        assert_eq!(m, "invalid type: string \"…\", expected a boolean");
        assert_eq!(redact("unknown field `rocm`"), "unknown field `rocm`");
        let long = format!("unknown field `{}`", "X".repeat(100));
        assert_eq!(redact(&long), "unknown field `…`");
        let text = "a = 1\nPATH=/secret\n";
        let e = toml::from_str::<toml::Table>(text).unwrap_err();
        let shown = toml_error(text, &e);
        assert!(shown.starts_with("line 2"), "{shown}");
        assert!(!shown.contains("secret"), "{shown}");
        let e = serde_json::from_str::<u32>("\"TOKEN=1\"").unwrap_err();
        assert!(!json_error(&e).contains("TOKEN"), "{}", json_error(&e));
    }

    #[test]
    fn links_out_of_the_project_and_non_regular_files_are_not_read() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "x = 1\n").unwrap();
        let link = d.path().join("hipport.toml");
        std::os::unix::fs::symlink(outside.path().join("secret"), &link).unwrap();
        let e = read_text(&link, d.path(), MAX_SETTINGS_BYTES).unwrap_err();
        assert!(e.to_string().contains("outside the project"), "{e}");
        std::fs::write(d.path().join("real"), "x = 1\n").unwrap();
        let inner = d.path().join("inner.toml");
        std::os::unix::fs::symlink(d.path().join("real"), &inner).unwrap();
        assert_eq!(read_text(&inner, d.path(), 100).unwrap(), "x = 1\n");
        let e = read_text(d.path(), d.path(), 100).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        std::fs::write(d.path().join("big"), "x".repeat(200)).unwrap();
        let e = read_text(&d.path().join("big"), d.path(), 100).unwrap_err();
        assert!(e.to_string().contains("limit"), "{e}");
    }
}
