//! Fail-fast guards for Hopper and later. NVIDIA/cudaqx's real-time decoder checks
//! `if (props.major < 9) throw std::runtime_error(…)` before it relies on device-side graph
//! launch: on NVIDIA the guard stops older GPUs from reaching code they cannot run. Every AMD
//! GPU reports a major of 9 or more, so the guard never fires on AMD and the ROCm build runs
//! what it protects, which the tool has not verified exists there (HIP has no device-side graph
//! launch, no TMA, no thread-block clusters). Such a test is a thing to check (UNKNOWN), not a
//! test that "only gates code for older NVIDIA GPUs" (PASS).
//!
//! A guard is an `if` of its own (not an arm of an `else if` chain) whose test is false on every
//! AMD GPU, whose threshold is Hopper's or later (major 9 … 15, or 90 … 150 as one number), and
//! whose arm stops: a `throw`, `abort()`/`exit()`, an assertion, or a `return` beside an error
//! message. Twins: the same guard for Volta or Ampere (`major < 7`: what it protects, tensor
//! cores and asynchronous copies, other rules follow where it is used), an arm that takes a
//! slower path instead of stopping.

use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::Src;
use tree_sitter::Node;

/// The UNKNOWN message for a capability test `b` that is such a guard.
pub(super) fn guards(s: &Src, b: Node) -> Option<String> {
    let own = super::enclosing_if(b)?;
    if own.parent().is_some_and(|p| p.node_kind() == K::ElseClause) {
        return None;
    }
    let test = s.text(b);
    let threshold = test
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse::<u32>().ok())
        .max()?;
    // A major alone (`props.major < 9`) or the capability as one number (`cc < 90`); `13` in
    // `major * 10 + minor < 13` (cuda-samples' double-precision test) is compute 1.3.
    let major_only = test.contains("major") && !test.contains("minor");
    if !((major_only && (9..=15).contains(&threshold)) || (90..=150).contains(&threshold)) {
        return None;
    }
    let arm = s.text(own.field(F::Consequence)?);
    let lower = arm.to_ascii_lowercase();
    let has = |w: &str| lower.contains(w);
    let stops = has("throw")
        || has("abort(")
        || has("exit(")
        || has("terminate(")
        || has("assert")
        || has("torch_check")
        || (has("return")
            && [
                "err",
                "fail",
                "printf",
                "cerr",
                "not supported",
                "unsupported",
                "require",
            ]
            .iter()
            .any(|w| has(w)));
    stops.then(|| {
        format!(
            "`{test}` is false on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12): the guard \
             stops NVIDIA GPUs older than Hopper from running the code after it, and every AMD \
             GPU passes it, so the ROCm build runs what it protects; the tool has not verified \
             that this exists on the target (HIP has no device-side graph launch, TMA or \
             thread-block clusters): check what the code after the guard needs, and stop the \
             ROCm build where the target lacks it"
        )
    })
}
