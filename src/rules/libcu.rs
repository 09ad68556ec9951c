//! A project built on libcu++ takes one decision about it. libcu++ (`cuda::std::`,
//! `cuda::atomic`, `cuda::thread_scope_*`, headers `<cuda/std/…>`, `<cuda/barrier>`) has no
//! counterpart under HIP's own names, and the translator says so on every use: cuCollections
//! gives 341 open findings, 21 of 25 read on held-out code were this one fact line by line
//! (docs/heldout.md). What a porter decides is whether the code moves to AMD's port of libcu++
//! (libhipcxx), to the standard library, or stays out of the ROCm build; once decided, the
//! per-line edits follow mechanically (libhipcxx: <https://github.com/ROCm/libhipcxx>).
//!
//! So the open translator findings on libcu++ — "namespace `cuda…` has no HIP counterpart"
//! (HP001), the `<cuda/…>` headers with none (HP004) and libcu++'s atomics outside system
//! scope (HP707) — are folded into the project's first
//! one, which says how many it holds and in how many files; every folded finding stays in
//! JSON/SARIF as PASS naming it. A single use is left as it is. Uses in a vendored library or
//! a folder the project marks as not maintained are those decisions', not the project's
//! (`kind::own`).

use crate::decisions::kind::{self, Kind, Min};
use crate::finding::Finding;

/// Whether a finding is the translator saying libcu++ has no HIP counterpart.
fn is_libcu(f: &Finding) -> bool {
    (f.rule == "HP001" && f.message.starts_with("namespace `cuda"))
        || (f.rule == "HP004" && f.message.starts_with("`cuda/"))
        // `cuda::atomic`/`cuda::atomic_ref` at device or block scope (cuCollections' 64): the
        // libcu++ move carries them; a system-scope one is also a coherence fact and stays.
        || (f.rule == "HP707"
            && f.message.starts_with("libcu++ `cuda::")
            && !f.message.contains("thread_scope_system"))
}

/// The libcu++ decision: the project's open libcu++ findings, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| (is_libcu(f) && kind::own(&f.path)).then(String::new)),
        head: kind::first,
        folds: kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the project's use of libcu++ (`cuda::std`, `cuda::atomic`, \
                 `<cuda/…>`): {} more uses in {} files are folded here; move it to libhipcxx \
                 (AMD's port of libcu++) or the standard library, or leave that code out of the ROCm \
                 build",
                g.folded.len(),
                g.files()
            )
        }),
        note: Box::new(|g| kind::folded_into(g, "the project's use of libcu++ is one decision")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Status;

    /// This decision alone, as the scan applies it.
    fn fold(findings: &mut [Finding]) {
        let k = kind(findings);
        crate::decisions::fold(findings, &k);
    }

    fn f(rule: &str, path: &str, line: u32, msg: &str) -> Finding {
        Finding {
            message: msg.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    #[test]
    fn libcu_uses_are_one_decision() {
        let ns = "namespace `cuda` has no HIP counterpart";
        let mut fs = vec![
            f("HP001", "a.cuh", 3, ns),
            f(
                "HP001",
                "b.cu",
                7,
                "namespace `cuda::std` has no HIP counterpart",
            ),
            f(
                "HP004",
                "b.cu",
                1,
                "`cuda/std/atomic` has no HIP counterpart in ROCm 7.2",
            ),
            f(
                "HP001",
                "b.cu",
                9,
                "`cudaFoo` has no HIP equivalent (runtime API)",
            ),
        ];
        fold(&mut fs);
        let open: Vec<u32> = fs
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| f.line)
            .collect();
        // Twin: another unported API is its own fact.
        assert_eq!(open, [3, 9]);
        assert!(
            fs[0].message.contains("2 more uses in 2 files"),
            "{}",
            fs[0].message
        );
        // Twin: a vendored library's uses are not the project's.
        let mut lib = vec![
            f("HP001", "third_party/cccl/a.cuh", 3, ns),
            f("HP001", "a.cu", 3, ns),
        ];
        fold(&mut lib);
        assert!(lib.iter().all(|f| f.status != Status::Pass));
        // A single use stays as it is.
        let mut one = vec![f("HP001", "a.cuh", 3, ns)];
        fold(&mut one);
        assert!(!one[0].message.contains("one decision"));
        // libcu++'s atomics at device or block scope go with the move (cuCollections); twin: a
        // system-scope one is also a coherence fact.
        let atomic = |name: &str| {
            format!("libcu++ `cuda::{name}` is not part of HIP; scopes map to `__hip_atomic_*` memory scopes")
        };
        let mut at = vec![
            f("HP001", "a.cu", 3, ns),
            f("HP707", "a.cu", 5, &atomic("atomic_ref")),
            f("HP707", "b.cu", 6, &atomic("thread_scope_system")),
        ];
        fold(&mut at);
        assert_eq!(at[1].status, Status::Pass, "{}", at[1].message);
        assert_ne!(at[2].status, Status::Pass);
    }
}
