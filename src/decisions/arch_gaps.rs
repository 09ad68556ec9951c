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

/// An HP401 on an arm without code.
fn no_code(f: &Finding) -> bool {
    NO_CODE.iter().any(|m| f.message.contains(m))
}

/// Arms without code, and tests whose branch only includes headers
/// ([`crate::rules::arch_check::includes_only`]): the code using those headers is what the
/// decision is about.
fn key(f: &Finding) -> Option<String> {
    let includes = f
        .message
        .contains(crate::rules::arch_check::includes_only::INCLUDES_ONLY);
    (f.rule == "HP401" && (no_code(f) || includes) && super::kind::own(&f.path))
        .then(|| f.path.clone())
}

/// The decision per file: every open HP401 on an arm without code, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        // Held by an arm without code: include guards alone are no such decision.
        head: |m| m.iter().position(|f| no_code(f)),
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let arms: Vec<&&Finding> = g.members.iter().filter(|f| no_code(f)).collect();
            let guards = g.members.len() - arms.len();
            let mut names: Vec<&str> = arms.iter().filter_map(|f| function(f)).collect();
            names.dedup();
            let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
            let more = names.len().saturating_sub(4);
            let lines: Vec<String> = arms.iter().map(|f| f.line.to_string()).collect();
            let guards = match guards {
                0 => String::new(),
                1 => " and 1 test that only includes headers for them".to_string(),
                n => format!(" and {n} tests that only include headers for them"),
            };
            format!(
                " — one decision for this file's work that HIP compiles to nothing: {} places (lines {}) in {} function{} ({}{}){guards}, {} more folded here; write AMD paths for them together, or leave the file out of the ROCm build",
                arms.len(),
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
    use crate::finding::Finding;
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;

    /// This decision applied alone; the HP401 findings left open.
    fn folded_open(f: &mut [Finding]) -> Vec<Finding> {
        let k = super::kind(f);
        crate::decisions::fold(f, &k);
        f.iter()
            .filter(|f| f.rule == "HP401" && f.status != Status::Pass)
            .cloned()
            .collect()
    }

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
        let open = folded_open(&mut f);
        assert_eq!(open.len(), 1, "{f:#?}");
        assert!(
            open[0]
                .message
                .contains("2 places (lines 2, 7) in 2 functions (`a`, `b`)"),
            "{}",
            open[0].message
        );
        let mut one = hazard_findings(&kernel("a"));
        let o = folded_open(&mut one);
        assert_eq!(o.len(), 1);
        assert!(!o[0].message.contains("one decision"), "{}", o[0].message);
    }

    /// less_slow: `#if (__CUDA_ARCH__ >= 700)` around `#include <cuda_fp16.h>` alone is held by
    /// the file's decision on its kernels without an AMD arm. Twins: such a guard in a file
    /// with no arm without code stays its own finding (it holds no decision), and a guarded
    /// branch with a declaration beside the include is no include-only guard.
    #[test]
    fn include_only_guards_go_with_the_files_arms_without_code() {
        let guard = "#if (__CUDA_ARCH__ >= 700)\n#include <cuda_fp16.h> // `half`\n#endif\n";
        let kernel = |name: &str| {
            format!("__global__ void {name}(float* o) {{\n#if __CUDA_ARCH__ >= 800\n  o[threadIdx.x] = 1.f;\n#endif\n}}\n")
        };
        let src = format!("{guard}{}{}", kernel("a"), kernel("b"));
        let mut f = hazard_findings(&src);
        let g = f
            .iter()
            .find(|x| x.rule == "HP401" && x.line == 1)
            .expect("the guard");
        assert!(
            g.message.contains("the branch only includes `cuda_fp16.h`"),
            "{}",
            g.message
        );
        let open = folded_open(&mut f);
        assert_eq!(open.len(), 1, "{f:#?}");
        assert_eq!(open[0].line, 5);
        assert!(
            open[0].message.contains(
                "(lines 5, 10) in 2 functions (`a`, `b`) and 1 test that only includes headers"
            ),
            "{}",
            open[0].message
        );
        let mut alone = hazard_findings(&format!(
            "{guard}__global__ void k(float* o) {{ o[0] = 1.f; }}\n"
        ));
        assert_eq!(folded_open(&mut alone).len(), 1);
        let declared = src.replace(
            "#include <cuda_fp16.h> // `half`\n",
            "#include <cuda_fp16.h>\ntypedef half h;\n",
        );
        let f = hazard_findings(&declared);
        assert!(f
            .iter()
            .filter(|x| x.rule == "HP401" && x.line == 1)
            .all(|x| !x.message.contains("only includes")));
    }
}
