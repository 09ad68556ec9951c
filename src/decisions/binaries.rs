//! The project's prebuilt CUDA binaries, one decision. Binaries kept in the tree that embed
//! CUDA device code or link the CUDA runtime (HP900–HP903: `.so`, `.a`, wheels; HP905: kept in
//! Git LFS, unread) have no source
//! here: each needs a ROCm build from its vendor or a replacement, and a porter takes that
//! decision once for the set (cuPCL ships six closed `libcuda*.so` beside six demo Makefiles;
//! tensorrt_demos one TensorRT plugin per TensorRT version). So the project's open binary
//! findings fold into the first.
//!
//! A folder whose only GPU code is such a binary goes with it: its build files (a demo
//! Makefile that requires `/usr/local/cuda`, links `cudart` and the binary) have nothing to
//! port before the binary has a ROCm build. A build file's finding joins the decision when a
//! binary lies in its folder or below and no CUDA source, nor any source with a finding, lies
//! under that folder (a folder with GPU code of its own keeps its build's decision: Lidar AI's
//! `3DSparseConvolution/` builds `src/voxelization.cu` beside its `libspconv`).

use super::kind::{Kind, Min};
use crate::finding::Finding;

const BINARY_RULES: [&str; 5] = ["HP900", "HP901", "HP902", "HP903", "HP905"];

fn is_binary(f: &Finding) -> bool {
    BINARY_RULES.contains(&f.rule.as_str())
}

fn dir_of(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(d, _)| d)
}

fn under(dir: &str, p: &str) -> bool {
    dir.is_empty() || p.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The decision: every open binary finding, and the build files' findings of folders whose
/// only open GPU work is a binary (see the module documentation).
pub fn kind(all: &[Finding], cuda_sources: &[String]) -> Kind {
    let open: Vec<&Finding> = all
        .iter()
        .filter(|f| f.status != crate::gate::Status::Pass)
        .collect();
    let binaries: Vec<String> = open
        .iter()
        .filter(|f| is_binary(f))
        .map(|f| f.path.clone())
        .collect();
    // CUDA sources, with or without findings, and sources with any finding (PASS included):
    // a folder with them has GPU code of its own to build (gathered only where there are
    // binaries).
    let sources: Vec<String> = if binaries.is_empty() {
        Vec::new()
    } else {
        all.iter()
            .filter(|f| crate::walk::is_source(&f.path))
            .map(|f| f.path.clone())
            .chain(cuda_sources.iter().cloned())
            .collect()
    };
    Kind {
        key: Box::new(move |f| {
            if is_binary(f) {
                return Some(String::new());
            }
            let d = dir_of(&f.path);
            (crate::inventory::kind::is_build(&f.path)
                && !d.is_empty()
                && binaries.iter().any(|b| under(d, b))
                && !sources.iter().any(|s| under(d, s)))
            .then(String::new)
        }),
        head: |m| m.iter().position(|f| is_binary(f)),
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let bins: Vec<&&Finding> = g.members.iter().filter(|f| is_binary(f)).collect();
            let shown: Vec<String> = bins
                .iter()
                .take(4)
                .map(|f| format!("`{}`", f.path))
                .collect();
            let more = bins.len().saturating_sub(shown.len());
            let builds = g.members.len() - bins.len();
            format!(
                " — one decision for the project's prebuilt CUDA binaries: {} binar{} with no source in the tree ({}{}); get ROCm builds from their vendor or replace them{} ({} more folded here)",
                bins.len(),
                if bins.len() == 1 { "y" } else { "ies" },
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() },
                if builds > 0 {
                    format!(", and the build files that only link them ({builds} findings) go with them")
                } else {
                    String::new()
                },
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's prebuilt CUDA binaries are one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{open_rules as open, said};
    use crate::gate::Status;

    fn bin(path: &str) -> Finding {
        said(
            "HP901",
            Status::Unknown,
            path,
            1,
            "prebuilt binary embeds CUDA device code (.nv_fatbin): no source",
        )
    }

    /// cuPCL's shape: closed libraries in two modules, each beside a demo Makefile that runs
    /// nvcc and links cudart, and no CUDA source: one open finding. Twins: a module with a
    /// kernel of its own keeps its Makefile's finding; a lone binary is no group.
    #[test]
    fn closed_binaries_and_the_builds_that_only_link_them_are_one_decision() {
        let mut fs = vec![
            said(
                "HP850",
                Status::Remediation,
                "cuICP/Makefile",
                53,
                "runs nvcc",
            ),
            bin("cuICP/lib/libcudaicp.so"),
            said(
                "HP850",
                Status::Remediation,
                "cuNDT/Makefile",
                53,
                "runs nvcc",
            ),
            bin("cuNDT/lib/libcudandt.so"),
            said("HP850", Status::Remediation, "own/Makefile", 9, "runs nvcc"),
            bin("own/lib/libown.so"),
            said("HP102", Status::Remediation, "own/k.cu", 3, "lane"),
            said(
                "HP850",
                Status::Remediation,
                "ported/Makefile",
                9,
                "runs nvcc",
            ),
            bin("ported/lib/libp.so"),
            said("HP001", Status::Pass, "ported/src/p.cu", 3, "translated"),
            said(
                "HP850",
                Status::Remediation,
                "kernels/Makefile",
                9,
                "runs nvcc",
            ),
            bin("kernels/lib/libk.so"),
        ];
        let k = kind(&fs, &["kernels/src/v.cu".to_string()]);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [
                ("HP901", "cuICP/lib/libcudaicp.so", 1),
                ("HP850", "own/Makefile", 9),
                ("HP102", "own/k.cu", 3),
                ("HP850", "ported/Makefile", 9),
                ("HP850", "kernels/Makefile", 9)
            ]
        );
        assert!(
            fs[1].message.contains("5 binaries with no source"),
            "{}",
            fs[1].message
        );
        assert!(fs[1].message.contains("(2 findings)"), "{}", fs[1].message);
        let mut one = vec![
            bin("lib/libx.so"),
            said("HP850", Status::Remediation, "Makefile", 1, "runs nvcc"),
        ];
        let k = kind(&one, &[]);
        crate::decisions::fold(&mut one, &k);
        assert_eq!(open(&one).len(), 2);
    }
}
