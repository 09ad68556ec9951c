//! One file's driver-API context management, one decision. A file that creates a context and
//! makes it current (`cuCtxCreate` … `cuCtxSetCurrent` … `cuCtxDestroy`) gets HP501 at each call;
//! what a porter decides is once per file: move that file to the device's primary context
//! (`hipSetDevice`, `hipDevicePrimaryCtxRetain`) or keep HIP's deprecated context calls where
//! one context per device is all the code makes. So the file's open HP501 findings fold into
//! the first, which names the calls and their lines; the rest stay in JSON as PASS naming it.

use super::kind::{Kind, Min};
use crate::finding::Finding;

const CONTEXT_RULE: &str = "HP501";

/// The decision per file: every open HP501 in it, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| (f.rule == CONTEXT_RULE).then(|| f.path.clone())),
        head: super::kind::first,
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

    /// gpu-burn's create and set-current in one file are one decision; twin: another file's
    /// context call is its own.
    #[test]
    fn one_files_context_calls_are_one_decision() {
        let mut fs = vec![
            ctx("cuCtxCreate", "gpu_burn-drv.cpp", 116),
            ctx("cuCtxSetCurrent", "gpu_burn-drv.cpp", 163),
            ctx("cuCtxPushCurrent", "other.cpp", 10),
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
}
