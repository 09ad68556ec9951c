//! The project's tests gated on NVIDIA compute capability, one check. lmdeploy marks forty
//! kernel tests `@pytest.mark.skipif(torch.cuda.get_device_capability()[0] < 9)`: Ampere skips
//! them, every AMD GPU (ROCm reports 9.x and later) runs them. Each mark is an UNKNOWN HP811
//! ([`crate::inventory::py_capability::amd_skip_ranges`]) that asks the same thing: run the
//! suite on the target. So a Python package's such checks fold into the first, which counts
//! them and names the first places; the rest stay in JSON as PASS naming it.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use crate::inventory::py_capability::AMD_SKIP;

fn key(f: &Finding) -> Option<String> {
    (f.rule == "HP811"
        && f.status == Status::Unknown
        && f.message.contains(AMD_SKIP)
        && super::kind::own(&f.path))
    .then(|| "capability-skips".to_string())
}

/// The check: every capability skip AMD GPUs answer alike, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one check for the project's tests gated on NVIDIA compute capability: {} skips in {} files ({}) behave alike on every AMD GPU; run the suite on the target and fix or re-gate what fails there ({} more folded here)",
                g.members.len(),
                g.files(),
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(|g| super::kind::folded_into(g, "the capability-gated tests are one check")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open;

    fn skip(path: &str, line: u32) -> Finding {
        Finding {
            message: format!("`cc[0] < 9` in a skip is false {AMD_SKIP}: the mark needs no change"),
            status: Status::Unknown,
            ..Finding::bare("HP811", path, line)
        }
    }

    #[test]
    fn capability_skips_amd_answers_alike_are_one_check() {
        let mut fs = vec![
            skip("tests/a.py", 9),
            skip("tests/b.py", 27),
            skip("tests/b.py", 72),
            // A code path (not a skip) keeps its own finding.
            Finding {
                message: "threshold on torch.cuda.get_device_capability()".into(),
                ..Finding::bare("HP811", "pkg/k.py", 58)
            },
        ];
        super::super::fold(&mut fs, &kind(&[]));
        assert_eq!(open(&fs), [("tests/a.py", 9), ("pkg/k.py", 58)]);
        assert!(
            fs[0].message.contains("3 skips in 2 files"),
            "{}",
            fs[0].message
        );
    }
}
