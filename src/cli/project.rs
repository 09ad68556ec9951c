//! Helpers shared by `scan` and `check` around the project tree.

use anyhow::Context;
use std::path::Path;

pub use crate::settings::root_of;

/// Writes `text` to `file`, creating or replacing it.
pub fn write_file(file: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(file, text).with_context(|| format!("cannot write {}", file.display()))
}
