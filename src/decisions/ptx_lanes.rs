//! Kernels whose 32-lane logical warps rest on one inline-PTX shuffle, one decision. The
//! warp-size findings of a kernel that meets only a PTX shuffle helper (`warp_scan` on
//! `shfl.up.b32`) and names no wavefront quantity are marked by
//! [`crate::rules::warp_size::ptx_lanes`] with the place of the helper file's first PTX
//! shuffle; they fold into that shuffle's HP201 (or into the HP201 that holds it), whose rewrite
//! with width 32 keeps every such kernel's meaning on 64-lane wavefronts.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use crate::rules::warp_size::ptx_lanes::MARK;
use std::collections::BTreeMap;

/// The `path:line` a marked finding names.
fn marked(f: &Finding) -> Option<&str> {
    let (_, rest) = f.message.split_once(MARK)?;
    rest.split('`').next()
}

/// The decision per PTX shuffle, held by its HP201.
pub fn kind(findings: &[Finding]) -> Kind {
    // An HP201 folded into another (one PTX family in one file) is held there.
    let held: BTreeMap<String, String> = findings
        .iter()
        .filter(|f| f.rule == "HP201")
        .filter_map(|f| {
            let at = f.folded_into.as_ref()?.at.clone();
            Some((format!("{}:{}", f.path, f.line), at))
        })
        .collect();
    Kind {
        key: Box::new(move |f| {
            if f.rule == "HP201" && f.status != Status::Pass {
                return Some(format!("{}:{}", f.path, f.line));
            }
            let at = marked(f)?;
            Some(held.get(at).cloned().unwrap_or_else(|| at.to_string()))
        }),
        head: |m| m.iter().position(|f| f.rule == "HP201"),
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — the 32-lane logical warps of {} warp-size findings in {} file{} rest on this shuffle (first at {}): written as a HIP shuffle of width 32 it keeps their meaning on 64-lane wavefronts",
                g.folded.len(),
                g.files().saturating_sub(1).max(1),
                if g.files() > 2 { "s" } else { "" },
                g.first_places(2)
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                "the kernel's 32-lane logical warps hold once that PTX shuffle is written with width 32",
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{f, open};

    /// Two kernels' marked findings fold into the helper's HP201, also where that HP201 is
    /// itself held by the file's first PTX finding; an unmarked HP102 stays open.
    #[test]
    fn marked_findings_fold_into_the_shuffle() {
        let mut fs = vec![
            f("HP201", "common/intrinsics.h", 16),
            f("HP102", "solver/a.cu", 40),
            f("HP105", "solver/b.cu", 12),
            f("HP102", "solver/c.cu", 7),
        ];
        fs[1].message = format!("m — built on the {MARK}common/intrinsics.h:16` that spans");
        fs[2].message = format!("m — built on the {MARK}common/intrinsics.h:16` that spans");
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(open(&fs), [("common/intrinsics.h", 16), ("solver/c.cu", 7)]);
        assert_eq!(fs[0].holds, 2);
        assert!(fs[1]
            .message
            .contains("folded into `common/intrinsics.h:16`"));
    }
}
