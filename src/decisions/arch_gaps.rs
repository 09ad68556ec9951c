//! One file's kernels that HIP compiles to nothing, one decision. A file written for NVIDIA GPU
//! generations (torchsparse's implicit-GEMM convolutions: `#if __CUDA_ARCH__ >= 750` around
//! tensor-core PTX in every kernel, nothing in the `#else`) has one HP401 per function whose work
//! silently disappears under HIP, each already holding that function's PTX ("one rewrite of
//! `f`"). What a porter decides is once per file: write AMD paths for these kernels (the same
//! technique for all of them), or leave the file out of the ROCm build. So the file's open
//! HP401 findings on arms without code fold into the first, which names the functions and
//! places; the rest stay in JSON as PASS naming it.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// What an HP401 on an arm without code says ([`crate::rules::arch_check::arms_without_code`]
/// writes it): nothing, a trap, or a build stop in the branch's place.
const NO_CODE: [&str; 3] = [
    "HIP compiles an arm with no code",
    "HIP compiles an arm that only traps",
    "HIP compiles an arm that stops the build",
];

/// The function an HP401 names (`… computes in `f` silently …`), if any.
fn function(f: &Finding) -> Option<&str> {
    let (_, rest) = f.message.split_once("what the branch computes in `")?;
    rest.split('`').next()
}

fn key(f: &Finding) -> Option<String> {
    (f.rule == "HP401"
        && NO_CODE.iter().any(|m| f.message.contains(m))
        && super::kind::own(&f.path))
    .then(|| f.path.clone())
}

/// The decision per file: every open HP401 on an arm without code, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let mut names: Vec<&str> = g.members.iter().filter_map(|f| function(f)).collect();
            names.dedup();
            let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
            let more = names.len().saturating_sub(4);
            let lines: Vec<String> = g.members.iter().map(|f| f.line.to_string()).collect();
            format!(
                " — one decision for this file's work that HIP compiles to nothing: {} places (lines {}) in {} function{} ({}{}), {} more folded here; write AMD paths for them together, or leave the file out of the ROCm build",
                g.members.len(),
                lines.join(", "),
                names.len().max(1),
                if names.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() },
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "this file's arms without code are one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;

    /// torchsparse's shape: two kernels whose tensor-core arms HIP compiles to nothing fold
    /// into one finding per file. Twin: a file with one such kernel keeps its own finding, and
    /// an arm whose alternative holds code is not an arm without code.
    #[test]
    fn a_files_kernels_without_an_amd_arm_are_one_decision() {
        let kernel = |name: &str| {
            format!("__global__ void {name}(float* o) {{\n#if __CUDA_ARCH__ >= 800\n  o[threadIdx.x] = 1.f;\n#endif\n}}\n")
        };
        let src = format!("{}{}", kernel("a"), kernel("b"));
        let mut f = hazard_findings(&src);
        let k = super::kind(&f);
        crate::decisions::fold(&mut f, &k);
        let open: Vec<_> = f
            .iter()
            .filter(|f| f.rule == "HP401" && f.status != Status::Pass)
            .collect();
        assert_eq!(open.len(), 1, "{f:#?}");
        assert!(
            open[0]
                .message
                .contains("2 places (lines 2, 7) in 2 functions (`a`, `b`)"),
            "{}",
            open[0].message
        );
        let mut one = hazard_findings(&kernel("a"));
        let k = super::kind(&one);
        crate::decisions::fold(&mut one, &k);
        let o: Vec<_> = one
            .iter()
            .filter(|f| f.rule == "HP401" && f.status != Status::Pass)
            .collect();
        assert_eq!(o.len(), 1);
        assert!(!o[0].message.contains("one decision"), "{}", o[0].message);
    }
}
