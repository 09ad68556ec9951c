//! Project-wide repeats: a fact the project states at many places that a porter settles once.
//!
//! A project's `__launch_bounds__` minimum is one decision. HP711 fires on each kernel whose
//! `__launch_bounds__` passes a second argument: CUDA reads it as the minimum number of blocks
//! per SM, HIP as the minimum number of waves per EU, so the occupancy it asks for changes
//! meaning (a performance question, not a build failure). A project that tunes its kernels
//! this way writes it on every kernel, usually from one constant (sxyu/svox2: 26 kernels over
//! `MIN_BLOCKS_PER_SM`); what a porter decides is once: drop the argument for AMD, or compute
//! waves per EU from the block size for the target, and apply that everywhere.
//!
//! So are a project's PyTorch extensions (HP830 on each `CUDAExtension` / `load(...)`: build
//! them against ROCm PyTorch, which hipifies them) and their nvcc-only flags (HP831 on each
//! call: gate the one flag list on `torch.version.hip`): BlinkDL/RWKV-LM states both at ~30
//! `load()` calls, one per model version's script, with the same copied flag list.
//!
//! So are device clock reads (HP703 on each `clock()`/`clock64()`: nunchaku times its attention
//! and LoRA kernels at nine places in three files; what a porter decides is once, whether the
//! counts feed anything but profiling).
//!
//! So are managed-memory hints and prefetches (HP706 on each `cudaMemAdvise` /
//! `cudaMemPrefetchAsync`): whether they do anything on AMD depends on the target's XNACK mode,
//! one question about the target, not one per call (rapidsai/rmm: six calls in five files).
//!
//! So are grid-wide cooperative kernels (HP705 on each `this_grid()` and each cooperative
//! launch): supranational/sppark launches nine of them through one `launch_coop` helper; what a
//! porter checks is the grid each launch asks for against what the AMD device holds at once, a
//! question of the launch sizing, asked once.
//!
//! So the project's own open findings of each of these rules fold into the rule's first in
//! report order, which says how many places in how many files it holds and where the first ones
//! are; the rest stay in JSON/SARIF as PASS naming it. A single place stays as it is. Places in
//! a vendored library or a folder the project marks as not maintained belong to those decisions.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// The launch-bounds rule.
const HP711: &str = crate::rules::device_feature::LAUNCH_BOUNDS_MIN_BLOCKS
    .id
    .code;

/// How many first places the head's message lists.
const SHOWN: usize = 4;

/// The rules whose open findings are one project-wide decision each: what the decision is,
/// and the note the folded findings carry.
const PROJECT_WIDE: &[(&str, &str, &str)] = &[
    (
        crate::inventory::native_ext::TORCH_CUDA_EXTENSION.id.code,
        "the project's PyTorch extensions are built against ROCm PyTorch, which hipifies them at \
         build time",
        "building the project's extensions on ROCm PyTorch is one decision",
    ),
    (
        crate::inventory::native_ext::NVCC_ONLY_EXTENSION_FLAG
            .id
            .code,
        "the project's nvcc-only extension flags: gate the flag list on the ROCm build once \
         (`torch.version.hip` in a PyTorch build; hipcc takes `--offload-arch=gfx…` and clang \
         options)",
        "gating the project's nvcc-only flags is one decision",
    ),
    (
        crate::rules::device_feature::DEVICE_CLOCK_TIMING.id.code,
        "the project's device clock reads (`clock()`, `clock64()`) count shader cycles at a \
         rate that varies on AMD: where a timing feeds a decision (a timeout, a schedule), use \
         `wall_clock64()` with the device's wall-clock rate; profiling counters need nothing",
        "what the project's device clock reads feed is one decision",
    ),
    (
        crate::rules::device_feature::MANAGED_MEMORY_HINTS.id.code,
        "the project's managed-memory hints and prefetches take effect on AMD only with XNACK \
         page migration (`HSA_XNACK=1` on a GPU that supports it): check the target once, or \
         keep hot data in explicit device allocations",
        "whether the target migrates managed memory (XNACK) is one decision",
    ),
    (
        crate::rules::device_feature::COOPERATIVE_LAUNCH.id.code,
        "the project's grid-wide cooperative kernels (`this_grid()`, cooperative launches): a \
         cooperative launch fails when its grid exceeds the blocks the device holds at once, \
         which differ on AMD; size each cooperative launch's grid from the occupancy API on the \
         target (`hipOccupancyMaxActiveBlocksPerMultiprocessor` × CUs), once where one launcher \
         serves them all",
        "sizing the project's cooperative grids on AMD is one decision",
    ),
];

fn project_wide(code: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
    PROJECT_WIDE.iter().find(|(c, _, _)| *c == code)
}

/// The project-wide decisions of [`PROJECT_WIDE`]: every open finding of each rule (a PyTorch
/// extension, an nvcc-only flag list, a managed-memory hint), held by its rule's first.
pub fn extensions(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (project_wide(&f.rule).is_some() && super::kind::own(&f.path)).then(|| f.rule.clone())
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let what = project_wide(g.key).map_or("", |r| r.1);
            format!(
                " — one decision: {what}; {} places in {} files (first at {}), {} more folded here",
                g.members.len(),
                g.files(),
                g.first_places(SHOWN),
                g.folded.len()
            )
        }),
        note: Box::new(|g| super::kind::folded_into(g, project_wide(g.key).map_or("", |r| r.2))),
    }
}

/// The launch-bounds decision: the project's open HP711 findings, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| (f.rule == HP711 && super::kind::own(&f.path)).then(String::new)),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the project's launch bounds: {} kernels in {} files pass a \
                 minimum (first at {}), {} more folded here. Decide once how CUDA's minimum \
                 blocks per SM maps to AMD's minimum waves per EU for the target (drop it, or \
                 compute it from the block size) and apply it to every kernel",
                g.members.len(),
                g.files(),
                g.first_places(SHOWN),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's launch-bounds minimum is one decision")
        }),
    }
}

/// The project's own refusals of ROCm are one decision. A library that picks kernels per
/// device writes `if IS_ROCM: raise NotImplementedError("Marlin kernel is not supported on
/// ROCm.")` in each kernel's validation (GPTQModel: seven kernels). Each is HP813 (the arm the
/// ROCm build takes raises), and each is the project's deliberate statement, not an accident of
/// a CUDA-only test: what a porter decides is once, whether any of those code paths is needed on
/// ROCm. So the open HP813 findings whose test names the ROCm side itself (`IS_ROCM`,
/// `torch.version.hip`) fold into the first, which names the places; a CUDA-only test that
/// raises on ROCm by accident (`if not torch.version.cuda: raise`) stays its own.
pub fn rocm_refusals(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (f.rule == crate::inventory::version_check::ROCM_ARM_FAILS.id.code
                && super::kind::own(&f.path)
                && crate::inventory::platform::predicate::rocm_name(f.excerpt.trim()))
            .then(String::new)
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision: the project itself refuses these code paths on ROCm, {} places in {} files (first at {}), {} more folded here; decide whether any of them is needed on ROCm (then port it), or accept the project's choice",
                g.members.len(),
                g.files(),
                g.first_places(SHOWN),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's own refusals of ROCm are one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(path: &str, line: u32) -> Finding {
        Finding {
            message: "`__launch_bounds__` second argument: min blocks per SM in CUDA, min waves per EU in HIP".into(),
            ..Finding::bare("HP711", path, line)
        }
    }

    use crate::decisions::test_support::open_rules as open;

    #[test]
    fn launch_bounds_of_many_kernels_are_one_decision() {
        let mut fs = vec![
            bounds("csrc/a.cu", 10),
            bounds("csrc/a.cu", 40),
            bounds("csrc/b.cu", 7),
            Finding {
                message: "m".into(),
                ..Finding::bare("HP102", "csrc/a.cu", 12)
            },
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP711", "csrc/a.cu", 10), ("HP102", "csrc/a.cu", 12)]
        );
        assert!(
            fs[0].message.contains("3 kernels in 2 files"),
            "{}",
            fs[0].message
        );
        assert!(fs[2].message.contains("folded into `csrc/a.cu:10`"));
        // The extension rules: each its own project-wide decision.
        let ext = crate::decisions::test_support::f;
        let mut fs = vec![
            ext("HP830", "v4/train.py", 10),
            ext("HP831", "v4/train.py", 10),
            ext("HP830", "v5/train.py", 12),
            ext("HP831", "v5/train.py", 12),
            ext("HP831", "v6/run.py", 3),
        ];
        let k = extensions(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP830", "v4/train.py", 10), ("HP831", "v4/train.py", 10)]
        );
        assert!(
            fs[1].message.contains("3 places in 3 files"),
            "{}",
            fs[1].message
        );
        // Managed-memory hints: one question about the target's XNACK mode, asked once.
        let mut fs = vec![
            ext("HP706", "src/prefetch.cpp", 27),
            ext("HP706", "src/pool.cpp", 43),
            ext("HP706", "src/pool.cpp", 50),
        ];
        let k = extensions(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(open(&fs), [("HP706", "src/prefetch.cpp", 27)]);
        assert!(fs[2].message.contains("folded into `src/prefetch.cpp:27`"));
        assert!(fs[0].message.contains("XNACK"), "{}", fs[0].message);
        // sppark: cooperative kernels in several files and the one launcher that runs them.
        let mut fs = vec![
            ext("HP705", "msm/sort.cuh", 147),
            ext("HP705", "ntt/kernels.cu", 207),
            ext("HP705", "util/gpu_t.cuh", 129),
        ];
        let k = extensions(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(open(&fs), [("HP705", "msm/sort.cuh", 147)]);
        assert!(fs[0].message.contains("occupancy API"), "{}", fs[0].message);
        // The twin: one kernel is its own finding.
        let mut one = vec![bounds("csrc/a.cu", 10)];
        let k = kind(&one);
        super::super::fold(&mut one, &k);
        assert_eq!(open(&one), [("HP711", "csrc/a.cu", 10)]);
        assert!(!one[0].message.contains("one decision"));
    }

    /// GPTQModel: `if IS_ROCM: raise` in several kernels' validation is one decision. Twin: a
    /// CUDA-only test that raises on ROCm stays its own.
    #[test]
    fn the_projects_own_rocm_refusals_are_one_decision() {
        let refuse = |path: &str, line: u32, test: &str| Finding {
            message: format!("`{test}` holds on ROCm builds of PyTorch: on ROCm this arm raises"),
            excerpt: test.into(),
            ..Finding::bare("HP813", path, line)
        };
        let mut fs = vec![
            refuse("q/marlin.py", 233, "IS_ROCM"),
            refuse("q/machete.py", 201, "IS_ROCM"),
            refuse("q/qqq.py", 260, "torch.version.hip"),
            refuse("q/loader.py", 12, "not torch.version.cuda"),
        ];
        let k = rocm_refusals(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP813", "q/marlin.py", 233), ("HP813", "q/loader.py", 12)]
        );
        assert!(
            fs[0].message.contains("3 places in 3 files"),
            "{}",
            fs[0].message
        );
    }
}
