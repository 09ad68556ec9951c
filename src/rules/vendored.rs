//! One decision per vendored third-party component. A project that carries a copy of another
//! library (`third_party/flashinfer/`, `3rdparty/cutlass/`, `vendor/turbomind/`) gets that
//! library's findings line by line: fastllm's `third_party/` holds 850 open findings of
//! FlashInfer, DeepGEMM, TurboMind and CUTLASS. Measured on held-out projects
//! (docs/heldout.md), every one of them was real and none was something to do line by line: a
//! porter takes one decision per vendored library — use that library's ROCm build or port, port
//! it upstream, or leave it out of the ROCm build — and the per-line findings only matter to
//! whoever then ports the library, where they come back when its own tree is scanned.
//!
//! So the open findings under `<vendor folder>/<component>/` (a folder below one named
//! `third_party`, `3rdparty`, `3rd_party`, `3rd-party`, `thirdparty`, `third-party`, `vendor`, `vendored`, `external` or
//! `extern`) are folded into the component's first open finding, which says how many it holds,
//! by rule and file; every folded finding stays in JSON/SARIF as PASS naming it. Files directly
//! in the vendor folder (a prebuilt `libfoo.so`, a build script) and components with a single
//! finding are left alone.

use crate::decisions::kind::{self, Kind, Min};
use crate::finding::Finding;
pub use crate::model::folders::{component_of, is_vendor_dir};

/// The vendored-component decision: the open findings of a component, held by its first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| component_of(&f.path)),
        head: kind::first,
        folds: kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the vendored component `{}/`: {} more findings in {} files \
                 are folded here ({}); use that library's ROCm build or port, port it \
                 upstream, or leave it out of the ROCm build",
                g.key,
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            kind::folded_into(
                g,
                &format!("the vendored component `{}/` is one decision", g.key),
            )
        }),
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

    fn f(path: &str, line: u32) -> Finding {
        Finding {
            message: "m".into(),
            ..Finding::bare("HP201", path, line)
        }
    }

    #[test]
    fn components_are_folders_below_a_vendor_folder() {
        assert_eq!(
            component_of("third_party/flashinfer/attn/a.cuh").as_deref(),
            Some("third_party/flashinfer")
        );
        assert_eq!(
            component_of("x/3rdparty/cutlass/include/c.h").as_deref(),
            Some("x/3rdparty/cutlass")
        );
        // nekRS keeps hypre in `3rd_party/`.
        assert_eq!(
            component_of("3rd_party/hypre/src/utilities/nvtx.c").as_deref(),
            Some("3rd_party/hypre")
        );
        // Twins: a file directly in the vendor folder, a folder merely named like one, the
        // project's own code.
        assert_eq!(component_of("third_party/libfastops.so"), None);
        assert_eq!(component_of("third_party_utils/x/a.cu"), None);
        assert_eq!(component_of("src/kernels/a.cu"), None);
        // An unpacked release beside the project's own code (kilonerf's `cuda/cub-1.8.0/`) is
        // a copy too; a folder named after a toolkit version, or a file, is not.
        assert_eq!(
            component_of("cuda/cub-1.8.0/cub/block/block_reduce.cuh").as_deref(),
            Some("cuda/cub-1.8.0")
        );
        assert_eq!(
            component_of("deps/json-v3.11.2/include/j.hpp").as_deref(),
            Some("deps/json-v3.11.2")
        );
        assert_eq!(component_of("docker/cuda-12.1/Dockerfile"), None);
        assert_eq!(component_of("cuda/kernels-1/a.cu"), None);
        assert_eq!(component_of("pkg/cub-1.8.0.tar.gz"), None);
    }

    #[test]
    fn one_open_finding_per_component() {
        let mut fs = vec![
            f("third_party/fi/a.cuh", 3),
            f("third_party/fi/b.cuh", 9),
            f("third_party/fi/b.cuh", 12),
            f("third_party/solo/x.cu", 1),
            f("src/k.cu", 5),
            f("src/k.cu", 6),
        ];
        fold(&mut fs);
        let open: Vec<(&str, u32)> = fs
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| (f.path.as_str(), f.line))
            .collect();
        assert_eq!(
            open,
            [
                ("third_party/fi/a.cuh", 3),
                ("third_party/solo/x.cu", 1),
                ("src/k.cu", 5),
                ("src/k.cu", 6)
            ]
        );
        assert!(
            fs[0].message.contains("2 more findings in 2 files"),
            "{}",
            fs[0].message
        );
        assert!(fs[1]
            .message
            .contains("folded into `third_party/fi/a.cuh:3`"));
    }
}
