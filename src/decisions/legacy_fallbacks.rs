//! The project's generation tests that give HIP a fallback for NVIDIA GPUs no current CUDA
//! toolkit targets, one decision. Each such HP401 is UNKNOWN
//! ([`crate::rules::arch_check::arms_with_code`]): the arm every current NVIDIA GPU compiles
//! would build for AMD as ported, and nothing verified that the fallback HIP compiles instead
//! computes the same. What a porter decides is once per project: make HIP compile the current
//! arms (`|| defined(__HIP_DEVICE_COMPILE__)` on each test), or check each fallback. So the
//! project's own such findings fold into the first, which names the count and the places.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::rules::arch_check::LEGACY_FALLBACK;

fn key(f: &Finding) -> Option<String> {
    (f.rule == "HP401" && f.message.contains(LEGACY_FALLBACK) && super::kind::own(&f.path))
        .then(|| "legacy-fallback".to_string())
}

/// The decision per project: every open HP401 on such a test, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let places: Vec<String> = g
                .members
                .iter()
                .take(6)
                .map(|f| format!("`{}:{}`", f.path, f.line))
                .collect();
            format!(
                " — one decision for the project's {} such tests in {} file{} ({}{}), {} more folded here: make HIP compile the arms current NVIDIA GPUs run, or check each fallback",
                g.members.len(),
                g.files(),
                if g.files() == 1 { "" } else { "s" },
                places.join(", "),
                if g.members.len() > 6 { ", …" } else { "" },
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                "the project's fallbacks for NVIDIA GPUs no current toolkit targets are one decision",
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;

    /// Two generation tests whose fallbacks only pre-sm_75 GPUs run fold into one decision;
    /// twin: a file with one such test keeps its own finding, unchanged.
    #[test]
    fn a_projects_legacy_fallbacks_are_one_decision() {
        let helper = |name: &str, fast: &str| {
            format!("__device__ unsigned {name}(unsigned x) {{\n#if __CUDA_ARCH__ >= 300\n  return {fast}(x);\n#else\n  unsigned n = 0;\n  for (; x; x &= x - 1) ++n;\n  return n;\n#endif\n}}\n")
        };
        let src = format!("{}{}", helper("a", "__popc"), helper("b", "__clz"));
        let mut f = hazard_findings(&src);
        let k = super::kind(&f);
        crate::decisions::fold(&mut f, &k);
        let open: Vec<_> = f
            .iter()
            .filter(|f| f.rule == "HP401" && f.status != Status::Pass)
            .collect();
        assert!(
            open.len() == 1
                && open[0].status == Status::Unknown
                && open[0]
                    .message
                    .contains("one decision for the project's 2 such tests"),
            "{f:#?}"
        );
        let mut one = hazard_findings(&helper("a", "__popc"));
        let k = super::kind(&one);
        crate::decisions::fold(&mut one, &k);
        let open: Vec<_> = one
            .iter()
            .filter(|f| f.rule == "HP401" && f.status != Status::Pass)
            .collect();
        assert!(
            open.len() == 1 && !open[0].message.contains("one decision"),
            "{one:#?}"
        );
    }
}
