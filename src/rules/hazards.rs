//! Entry point of the hazard rules run by `scan`: each family module gets the file, its tokens
//! and its tree, and adds findings. One finding per rule and line: a line that matches a rule
//! twice (two `% 32` in one expression) is one thing for a reviewer to look at. Branches that
//! an explicit HIP platform test already separates (`#ifndef USE_ROCM`) are left alone.

use crate::finding::Finding;
use crate::mappings::Target;
use crate::rules::syntax::Src;
use crate::rules::{
    arch_check, device_feature, driver_api, inline_asm, library, version_check, warp_size, FileCtx,
};
use tree_sitter::Tree;

/// Runs every hazard family over one file.
pub fn check(ctx: &FileCtx, tree: Option<&Tree>, target: &Target) -> Vec<Finding> {
    check_with(ctx, tree, target, &mut Vec::new())
}

/// Runs every hazard family over one file, and drops from `translated` (the translator's
/// findings for the same file) those in branches an explicit HIP/ROCm platform test makes
/// HIP-specific (never compiled by HIP, or written for HIP only): there they are not porting
/// problems. The file is lexed and its branches evaluated once for both.
pub fn check_with(
    ctx: &FileCtx,
    tree: Option<&Tree>,
    target: &Target,
    translated: &mut Vec<Finding>,
) -> Vec<Finding> {
    let lexed = crate::lex::lex(ctx.src);
    let index = crate::rules::syntax::Index::new(ctx, tree);
    let s = Src::new(ctx, &lexed, tree, &index);
    let mut out = Vec::new();
    warp_size::check(&s, &mut out);
    inline_asm::check(&s, &mut out);
    version_check::check(&s, &mut out);
    arch_check::check(&s, &mut out);
    driver_api::check(&s, &mut out);
    library::check(&s, target, &mut out);
    device_feature::check(&s, &mut out);
    let regions = crate::rules::cond::hip_specific_regions(&s);
    let outside = |f: &Finding| !regions.iter().any(|r| r.contains(&f.byte_range.0));
    out.retain(outside);
    translated.retain(outside);
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert((f.rule.clone(), f.line)));
    out
}
