//! Helpers shared by `scan` and `check` around the project tree.

use anyhow::Context;
use std::path::Path;

pub use crate::settings::root_of;

/// Writes `text` to `file` atomically, creating or replacing it: never through a symlink or
/// into a FIFO, a device or a read-only file (a repository may commit `hipport-baseline.json`
/// as a link to a file outside it).
pub fn write_file(file: &Path, text: &str) -> anyhow::Result<()> {
    crate::safety::write_atomic(file, text.as_bytes(), None, None)
        .with_context(|| format!("cannot write {}", file.display()))
}
