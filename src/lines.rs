//! Where a byte sits in a file: the line index every finding and diagnostic is placed with, and
//! the byte-order mark a reader keeps. Below the lexer, the parser and the rule vocabulary,
//! which all place offsets.

use crate::finding::Position;

/// The UTF-8 byte-order mark.
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Byte offset → 1-based line and column (columns in Unicode scalar values; invalid UTF-8
/// bytes count one each).
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(bytes: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        LineIndex { starts }
    }
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
    /// 0-based line of an offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }
    pub fn line_start(&self, line0: usize) -> usize {
        self.starts[line0.min(self.starts.len() - 1)]
    }
    pub fn position(&self, bytes: &[u8], offset: usize) -> Position {
        let offset = offset.min(bytes.len());
        let line0 = self.line_of(offset);
        let start = self.starts[line0];
        let seg = &bytes[start..offset];
        // Count bytes that do not continue a UTF-8 sequence.
        let column = seg.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32 + 1;
        Position {
            line: line0 as u32 + 1,
            column,
        }
    }
}
