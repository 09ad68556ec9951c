//! One file's driver-API context management, one decision. A file that creates a context and
//! makes it current (`cuCtxCreate` … `cuCtxSetCurrent` … `cuCtxDestroy`) gets HP501 at each call;
//! what a porter decides is once per file: move that file to the device's primary context
//! (`hipSetDevice`, `hipDevicePrimaryCtxRetain`) or keep HIP's deprecated context calls where
//! one context per device is all the code makes. So the file's open HP501 findings fold into
//! the first, which names the calls and their lines; the rest stay in JSON as PASS naming it.

use super::kind::{Kind, Min};
use crate::finding::Finding;

const CONTEXT_RULE: &str = "HP501";

/// Whether a finding is HP501 at a call that creates a context.
fn creates(f: &Finding) -> bool {
    f.rule == CONTEXT_RULE
        && (f.message.starts_with("`cuCtxCreate") || f.message.starts_with("`cudaCtxCreate"))
}

/// The decision per file: every open HP501 in it, held by the first. Where one file of the
/// project creates contexts, the files that only push, pop or set them (gvdb's `PUSH_CTX` /
/// `POP_CTX` around the context its allocator creates) use that context: their calls join the
/// creating file's decision, held by its create.
pub fn kind(all: &[Finding]) -> Kind {
    let creators: std::collections::BTreeSet<String> = all
        .iter()
        .filter(|f| creates(f))
        .map(|f| f.path.clone())
        .collect();
    let only = (creators.len() == 1).then(|| creators.into_iter().next().unwrap());
    Kind {
        key: Box::new(move |f| {
            (f.rule == CONTEXT_RULE).then(|| only.clone().unwrap_or_else(|| f.path.clone()))
        }),
        head: |m| Some(m.iter().position(|f| creates(f)).unwrap_or(0)),
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let mut calls: Vec<String> = Vec::new();
            for f in &g.members {
                if let Some(n) = f.message.split('`').nth(1) {
                    let n = format!("`{n}` (line {})", f.line);
                    if !calls.contains(&n) {
                        calls.push(n);
                    }
                }
            }
            format!(
                " — one decision for this file's context management: {} ({} more folded here); move it to the device's primary context, or keep HIP's deprecated context calls where the file makes one context per device",
                calls.join(", "),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "this file's context management is one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{open_rules as open, said};
    use crate::gate::Status;

    fn ctx(call: &str, path: &str, line: u32) -> Finding {
        let m = format!("`{call}`: HIP's context API is deprecated and contexts are per-device primary contexts");
        said(CONTEXT_RULE, Status::Remediation, path, line, &m)
    }

    /// gpu-burn's create and set-current in one file are one decision; twin: another file
    /// that creates its own context is its own.
    #[test]
    fn one_files_context_calls_are_one_decision() {
        let mut fs = vec![
            ctx("cuCtxCreate", "gpu_burn-drv.cpp", 116),
            ctx("cuCtxSetCurrent", "gpu_burn-drv.cpp", 163),
            ctx("cuCtxCreate", "other.cpp", 10),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        assert_eq!(open(&fs).len(), 2, "{:?}", open(&fs));
        assert!(
            fs[0].message.contains(
                "`cuCtxCreate` (line 116), `cuCtxSetCurrent` (line 163) (1 more folded here)"
            ),
            "{}",
            fs[0].message
        );
        assert_eq!(fs[1].status, Status::Pass);
        assert_eq!(fs[2].status, Status::Remediation);
    }

    /// gvdb-voxels: the allocator creates the one context; two other files push and pop it.
    /// One decision, held by the create. Twin: with two files creating contexts, each file
    /// is its own decision.
    #[test]
    fn files_that_only_push_the_one_created_context_join_its_decision() {
        let mut fs = vec![
            ctx("cuCtxPushCurrent", "a/export.cpp", 506),
            ctx("cuCtxPopCurrent", "a/export.cpp", 718),
            ctx("cuCtxGetCurrent", "lib/allocator.cpp", 1078),
            ctx("cuCtxCreate", "lib/allocator.cpp", 1108),
            ctx("cuCtxPushCurrent", "lib/volume.cpp", 41),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        let open_now = open(&fs);
        assert_eq!(open_now.len(), 1, "{open_now:?}");
        assert_eq!(fs[3].status, Status::Remediation);
        assert!(
            fs[3].message.contains("(4 more folded here)"),
            "{}",
            fs[3].message
        );
        let mut two = vec![
            ctx("cuCtxCreate", "a.cpp", 1),
            ctx("cuCtxCreate", "b.cpp", 1),
            ctx("cuCtxPushCurrent", "c.cpp", 1),
            ctx("cuCtxPopCurrent", "c.cpp", 2),
        ];
        crate::decisions::fold_all(&mut two, &[]);
        assert_eq!(open(&two).len(), 3, "{:?}", open(&two));
    }
}
