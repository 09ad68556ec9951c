//! Reading a source file: size, binary and encoding checks, BOM and line-ending facts, and the
//! line index that turns byte offsets into 1-based line and column positions.
//!
//! A refusal is a reason, never a silent skip: callers report it with the path.

use std::path::Path;

/// The largest file that is read at all (bigger files are refused with a reason).
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("binary file (NUL byte at offset {0}): skipped")]
    Binary(usize),
    #[error("UTF-16/UTF-32 encoded file: not supported, convert it to UTF-8")]
    Utf16,
    #[error("file is {size} bytes, over the limit of {limit} bytes (raise --max-file-size)")]
    TooLarge { size: u64, limit: u64 },
}

pub use crate::lines::{LineIndex, UTF8_BOM};

/// The bytes of a file and what was learned reading them. Non-UTF-8 bytes are kept as they are:
/// edits only ever touch ASCII identifiers and directives, so they survive byte for byte.
pub struct SourceText {
    pub bytes: Vec<u8>,
}

impl SourceText {
    pub fn new(bytes: Vec<u8>) -> Self {
        SourceText { bytes }
    }
    pub fn has_bom(&self) -> bool {
        self.bytes.starts_with(UTF8_BOM)
    }
    /// The line ending the file uses most (`\r\n` if any line ends so before the first `\n`).
    pub fn newline(&self) -> &'static str {
        newline_of(&self.bytes)
    }
}

pub fn newline_of(bytes: &[u8]) -> &'static str {
    match memchr::memchr(b'\n', bytes) {
        Some(i) if i > 0 && bytes[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Checks bytes already in memory.
pub fn check_bytes(bytes: &[u8]) -> Result<(), ReadError> {
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err(ReadError::Utf16);
    }
    // Binary detection as git does it: a NUL byte in the first 8000 bytes.
    let head = &bytes[..bytes.len().min(8000)];
    if let Some(i) = memchr::memchr(0, head) {
        return Err(ReadError::Binary(i));
    }
    Ok(())
}

pub fn read(path: &Path, max_bytes: u64) -> Result<SourceText, ReadError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::Io(std::io::Error::other(format!(
            "{}, not a regular file",
            crate::safety::kind_of(&meta)
        ))));
    }
    if meta.len() > max_bytes {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            limit: max_bytes,
        });
    }
    let bytes = std::fs::read(path)?;
    check_bytes(&bytes)?;
    Ok(SourceText { bytes })
}

/// Writes `bytes` to `dest` through a temporary file in the same directory and a rename, so a
/// reader never sees a half-written file and no temporary or backup file is left behind (see
/// [`crate::safety::write_atomic`]: never onto a symlink, FIFO, device or read-only file). The
/// permissions are those of `like` (the input a translation came from), else of the file being
/// replaced, else 0644.
pub fn write_atomic(dest: &Path, bytes: &[u8], like: Option<&Path>) -> std::io::Result<()> {
    crate::safety::write_atomic(dest, bytes, like, None)
}

/// One file as every pass of a command reads it, computed once: its bytes, line index and
/// tokens, and (when a pass needs it) its tree. Translation, the hazard rules (which build their
/// node index and HIP-side model from it), suppressions and the annotated translation all borrow
/// it; nothing lexes or parses the file again.
pub struct SourceFile<'p> {
    /// Path relative to the root given, `/`-separated.
    pub path: &'p str,
    pub bytes: Vec<u8>,
    pub lines: LineIndex,
    pub lexed: crate::lex::Lexed,
    /// The tree-sitter tree, when parsed; [`SourceFile::drop_tree`] frees it (≈ 30× the file)
    /// as soon as the passes that read it are done.
    pub tree: Option<tree_sitter::Tree>,
}

impl<'p> SourceFile<'p> {
    /// Indexes and lexes `bytes` (once); no tree yet ([`SourceFile::parse`]).
    pub fn new(path: &'p str, bytes: Vec<u8>) -> Self {
        let lines = LineIndex::new(&bytes);
        let lexed = crate::lex::lex(&bytes);
        SourceFile {
            path,
            bytes,
            lines,
            lexed,
            tree: None,
        }
    }
    /// Parses the file (once: a second call keeps the first tree).
    pub fn parse(&mut self) {
        if self.tree.is_none() {
            self.tree = crate::parse::parse(&self.bytes);
        }
    }
    /// Frees the tree.
    pub fn drop_tree(&mut self) {
        self.tree = None;
    }
    /// The context a rule needs to report a finding in this file.
    pub fn ctx(&self) -> crate::registry::FileCtx<'_> {
        crate::registry::FileCtx {
            path: self.path,
            src: &self.bytes,
            lines: &self.lines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Position;

    #[test]
    fn positions_are_one_based_code_points() {
        let src = "ab\néx = 1;\r\nz".as_bytes();
        let idx = LineIndex::new(src);
        assert_eq!(idx.position(src, 0), Position { line: 1, column: 1 });
        let x = src.iter().position(|&b| b == b'x').unwrap();
        assert_eq!(idx.position(src, x), Position { line: 2, column: 2 });
        let z = src.len() - 1;
        assert_eq!(idx.position(src, z), Position { line: 3, column: 1 });
    }

    #[test]
    fn refuses_binary_and_utf16() {
        assert!(matches!(check_bytes(b"ab\0c"), Err(ReadError::Binary(2))));
        assert!(matches!(check_bytes(b"\xFF\xFEa\0"), Err(ReadError::Utf16)));
        assert!(check_bytes(b"int x; // \xff latin-1\n").is_ok());
    }

    #[test]
    fn newline_style() {
        assert_eq!(newline_of(b"a\r\nb\n"), "\r\n");
        assert_eq!(newline_of(b"a\nb\r\n"), "\n");
        assert_eq!(newline_of(b"a"), "\n");
    }
}
