//! The project's own ROCm switches are one decision. A project that ports itself tests its HIP
//! switch (`MFEM_USE_HIP`, `USE_ROCM`) and, where it builds on libraries that port themselves
//! too, theirs (`RAJA_ENABLE_HIP`, `HYPRE_USING_HIP`, `PETSC_HAVE_HIP`): each is an HP303
//! UNKNOWN ("check that the HIP build defines it") when no build file of the project defines
//! it. What a porter checks is once: configure the HIP build, and the HIP builds of the
//! libraries these switches come from, so that each is defined. Listed one per switch they were
//! 8 findings of mfem's 15.
//!
//! So the project's open HP303 findings fold into the first, which names every switch and where
//! it is first tested; a switch the build defines is already PASS and not a member.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::rules::project_build::switches::switch_of;

/// "`A` (`a.hpp:3`), `B` (`b.cpp:9`)": each member's switch and place, in report order.
fn switches(members: &[&Finding]) -> String {
    members
        .iter()
        .filter_map(|f| switch_of(f).map(|n| format!("`{n}` (`{}:{}`)", f.path, f.line)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The decision: every open HP303 of the project's own code, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (super::kind::own(&f.path) && switch_of(f).is_some())
                .then(|| "rocm-switches".to_string())
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision: the HIP build must define each of the {} ROCm switches this project tests, its own and those of the libraries it builds on (configure those libraries' HIP builds): {}; {} more folded here",
                g.members.len(),
                switches(&g.members),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's ROCm switches are one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{open, said};
    use crate::gate::Status;

    fn hp303(path: &str, line: u32, name: &str) -> Finding {
        said(
            "HP303",
            Status::Unknown,
            path,
            line,
            &format!("this project ports itself when `{name}` is defined: hipport reads its `{name}` branches as the HIP build; check that the HIP build defines it"),
        )
    }

    /// mfem: one switch of its own, four of the libraries it builds on; one decision naming all.
    #[test]
    fn the_projects_rocm_switches_are_one_decision() {
        let mut fs = vec![
            hp303("general/backends.hpp", 47, "MFEM_USE_CUDA_OR_HIP"),
            hp303("general/device.hpp", 274, "RAJA_ENABLE_HIP"),
            said("HP304", Status::Remediation, "general/device.cpp", 629, "m"),
            hp303("general/forall.hpp", 1286, "HYPRE_USING_HIP"),
            hp303("linalg/petsc.cpp", 119, "PETSC_HAVE_HIP"),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("general/backends.hpp", 47), ("general/device.cpp", 629)]
        );
        let head = &fs[0].message;
        assert!(head.contains("4 ROCm switches"), "{head}");
        assert!(
            head.contains("`RAJA_ENABLE_HIP` (`general/device.hpp:274`)"),
            "{head}"
        );
        assert!(fs[1]
            .message
            .contains("folded into `general/backends.hpp:47`"));
        assert_eq!(fs[1].status, Status::Pass);
    }

    /// Twins: one switch stays as it is; a PASS HP303 (the build defines it) is no member; a
    /// vendored library's switch is its own decision.
    #[test]
    fn one_switch_or_defined_or_vendored_ones_stay() {
        let mut one = vec![
            hp303("csrc/k.cu", 3, "USE_ROCM"),
            Finding {
                status: Status::Pass,
                ..hp303("csrc/j.cu", 3, "OTHER_HIP")
            },
            hp303("third_party/lib/x.h", 9, "LIB_USE_HIP"),
        ];
        let k = kind(&one);
        super::super::fold(&mut one, &k);
        assert_eq!(open(&one), [("csrc/k.cu", 3), ("third_party/lib/x.h", 9)]);
        assert!(!one[0].message.contains("one decision"));
    }
}
