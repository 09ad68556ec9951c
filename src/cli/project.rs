//! Helpers shared by `scan` and `check` around the project tree: baseline excerpts and writes.

use anyhow::Context;
use std::path::Path;

pub use crate::settings::root_of;

/// Reads the flagged code of each finding, for baseline excerpts.
pub fn code_reader(root: &Path) -> impl Fn(&crate::finding::Finding) -> String + '_ {
    move |f| {
        std::fs::read(root.join(&f.path))
            .ok()
            .and_then(|b| b.get(f.byte_range.0..f.byte_range.1).map(<[u8]>::to_vec))
            .map(|code| crate::baseline::excerpt(&code))
            .unwrap_or_default()
    }
}

/// Writes `text` to `file`, creating or replacing it.
pub fn write_file(file: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(file, text).with_context(|| format!("cannot write {}", file.display()))
}
