//! Entry point of the hazard rules run by `scan`: each family module gets the file and its tree.

use crate::finding::Finding;
use crate::mappings::Target;
use crate::rules::FileCtx;
use tree_sitter::Tree;

/// Runs every hazard family over one file.
pub fn check(_ctx: &FileCtx, _tree: Option<&Tree>, _target: &Target) -> Vec<Finding> {
    Vec::new()
}
