//! A CMake build that compiles CUDA, and a CI workflow that builds or tests the CUDA way, are
//! each one decision ([`crate::rules::facts::decision`]): `find_package(CUDA)`, the
//! `-gencode` list, `CUDA_NVCC_FLAGS` and `cuda_add_library()` of a FindCUDA build all change
//! together when the build moves to HIP (cudpp: 28 such lines over six CMake files), a
//! Makefile's nvcc rules, flags and libraries move to hipcc together, and a CI lane is kept,
//! mirrored for ROCm or retired as a whole. The text report already shows each
//! as one entry; this kind makes JSON and SARIF say the same: the project's open CMake build
//! findings fold into the first in report order, and the workflows' into their first, with
//! the count, the rules and the files; the rest stay as PASS naming it. A single finding stays
//! as it is; the CI workflows are one decision for the project (a ROCm lane beside the CUDA
//! ones), not one per file. Findings of a vendored library or of a folder the project marks as not maintained
//! belong to those decisions.

use super::kind::{Group, Kind, Min};
use crate::finding::Finding;
use std::collections::BTreeMap;

/// "`CMakeLists.txt`, `src/a/CMakeLists.txt` and 4 more": the files of the group.
fn files(g: &Group) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for f in &g.members {
        if !seen.contains(&f.path.as_str()) {
            seen.push(&f.path);
        }
    }
    let shown: Vec<String> = seen.iter().take(3).map(|p| format!("`{p}`")).collect();
    match seen.len() {
        0..=3 => shown.join(", "),
        n => format!("{} and {} more", shown.join(", "), n - 3),
    }
}

/// The folder a CI configuration sits in (`mamba/` for `mamba/.github/workflows/x.yml`, `""`
/// at the top), for a path inside `.github/`.
pub(crate) fn ci_root(path: &str) -> Option<String> {
    if path.starts_with(".github/") {
        return Some(String::new());
    }
    path.find("/.github/").map(|i| path[..i + 1].to_string())
}

/// The head of a group: its first member in a CI workflow (the lane, not a helper script or
/// composite action the lane runs), else its first.
fn workflow_first(members: &[&Finding]) -> Option<usize> {
    Some(
        members
            .iter()
            .position(|f| {
                f.path.contains(".github/workflows/") || f.path.ends_with(".gitlab-ci.yml")
            })
            .unwrap_or(0),
    )
}

/// The head of a group: [`workflow_first`], and in the CMake build's group its first finding in
/// a CMake file (not in a probe the build runs).
fn build_first(members: &[&Finding]) -> Option<usize> {
    let cmake = crate::rules::project_build::probes::is_cmake;
    if members.iter().any(|f| cmake(&f.path)) && !members.iter().any(|f| ci_root(&f.path).is_some())
    {
        return members.iter().position(|f| cmake(&f.path));
    }
    workflow_first(members)
}

/// The CUDA-build decisions: the project's CMake build, and each CI workflow file.
pub fn kind(findings: &[Finding]) -> Kind {
    kind_with(findings, &BTreeMap::new())
}

/// The tree's facts [`kind_with`] reads: the CUDA programs the CMake build runs while it
/// configures (asked only where a `.cu` file has an open finding; a project with a HIP build
/// has already settled them as its CUDA build's).
pub fn tree_facts(
    findings: &[Finding],
    rels: &[&str],
    build_files: &[(&str, &[u8])],
) -> BTreeMap<String, (String, usize)> {
    if findings
        .iter()
        .any(|f| f.path.ends_with(".cu") && f.status != crate::gate::Status::Pass)
    {
        crate::rules::project_build::probes::probe_files(rels, build_files)
    } else {
        BTreeMap::new()
    }
}

/// [`kind`] with the CUDA programs the project's CMake build compiles and runs while it
/// configures (`probes`, [`crate::rules::project_build::probes::probe_files`], each with where
/// CMake runs it): a probe's findings (halmd's `cmake/cuda_arch.cu`, whose nvcc error text
/// names the architecture) are the CMake build's: the move to HIP replaces the probe with HIP's
/// own architecture setting. The project's Makefiles are one decision, as its CMake build is:
/// a fragment another Makefile includes (graphblast's `common.mk`, with the `-gencode` flags
/// and `-lcublas`) is part of that build, and Makefiles of separate programs (a book's 53
/// chapter samples, each with `CUDA_PATH=/usr/local/cuda` and an nvcc rule) all take the one
/// same change: nvcc to hipcc, the CUDA libraries to ROCm's.
pub fn kind_with(findings: &[Finding], probes: &BTreeMap<String, (String, usize)>) -> Kind {
    let probes = probes.clone();
    // The roots of the tree's CI configurations (`""`, or `mamba/` in a tree of several
    // projects): a CI script belongs to the CI of the deepest root above it.
    let roots: Vec<String> = findings
        .iter()
        .filter_map(|f| ci_root(&f.path))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    // Shell scripts with build findings on two lines or more: one line is one edit already
    // ([`super::per_file::same_line`]).
    let mut lines: BTreeMap<&str, std::collections::BTreeSet<u32>> = BTreeMap::new();
    for f in findings.iter().filter(|f| build_script(f)) {
        lines.entry(f.path.as_str()).or_default().insert(f.line);
    }
    let scripts: std::collections::BTreeSet<String> = lines
        .into_iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(p, _)| p.to_string())
        .collect();
    Kind {
        key: Box::new(move |f| {
            if !super::kind::own(&f.path) {
                return None;
            }
            if makefile(f) {
                return Some("make".to_string());
            }
            if probes.contains_key(&f.path) {
                return Some("cmake".to_string());
            }
            let Some(d) = crate::rules::facts::decision(f) else {
                // A shell script that builds with nvcc line by line (PoseCNN's `lib/make.sh`:
                // 11 nvcc compiles, 11 links with `-lcudart`): one move to hipcc.
                return (build_script(f) && scripts.contains(&f.path))
                    .then(|| format!("script:{}", f.path));
            };
            Some(if d.starts_with("a CI") {
                // The project's CI as a whole: what a porter decides is to mirror a lane for
                // ROCm (k2: five CUDA workflows, one question), not one answer per file.
                let root = roots
                    .iter()
                    .filter(|r| f.path.starts_with(r.as_str()))
                    .max_by_key(|r| r.len())
                    .map_or("", |r| r.as_str());
                format!("ci:{root}")
            } else {
                "cmake".to_string()
            })
        }),
        head: build_first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let what = if g.key == "cmake" {
                "the CMake build compiles CUDA: move it to HIP as a whole (`find_package(hip)` or \
                 `enable_language(HIP)`, `--offload-arch=gfx…` for the architecture list, HIP \
                 targets for `cuda_add_*`, HIP flags for nvcc's)"
            } else if g.key == "make" && g.files() > 1 {
                "the project's Makefiles build with nvcc: move their rules, flags and libraries \
                 to hipcc and the ROCm libraries, the same change in each"
            } else if g.key == "make" {
                "this Makefile builds with nvcc: move its rules, flags and libraries to hipcc and \
                 the ROCm libraries as a whole"
            } else if g.key.starts_with("script:") {
                "this script builds with nvcc: move its compile and link lines, flags and \
                 libraries to hipcc and the ROCm libraries as a whole"
            } else {
                "the project's CI builds or tests the CUDA way: keep those lanes, and mirror one \
                 for ROCm (a ROCm container or AMD runner, hipcc or the ROCm PyTorch wheels)"
            };
            format!(
                " — one decision: {what}; {} findings in {} ({}), {} more folded here",
                g.members.len(),
                files(g),
                g.by_rule(),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            let what = if g.key == "cmake" {
                "the CMake build's move to HIP is one decision"
            } else if g.key == "make" {
                "the Makefiles' move to hipcc is one decision"
            } else if g.key.starts_with("script:") {
                "the build script's move to hipcc is one decision"
            } else {
                "a ROCm lane for the project's CI is one decision"
            };
            super::kind::folded_into(g, what)
        }),
    }
}

/// A build-inventory finding (HP84x–HP85x: nvcc runs, flags, architectures, CUDA libraries
/// and paths) of a shell script (`*.sh`, `*.bash`) that no CI decision holds.
fn build_script(f: &Finding) -> bool {
    (f.path.ends_with(".sh") || f.path.ends_with(".bash"))
        && f.rule.starts_with("HP8")
        && matches!(f.rule.get(3..4), Some("4" | "5"))
}

/// Whether a path names a Makefile (`Makefile`, `GNUmakefile`, `*.mk`).
pub(crate) fn is_makefile_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    crate::inventory::kind::by_name(name) == Some(crate::inventory::kind::FileKind::Make)
        || name.ends_with(".mk")
}

/// A build-inventory finding (HP81x–HP85x: nvcc runs, nvcc flags, architecture lists, CUDA
/// libraries; HP880: nvidia-smi run to pick the architectures) of a Makefile (`Makefile`,
/// `GNUmakefile`, `*.mk`): the file's move to hipcc is one decision, as a CMake build's is.
pub(crate) fn makefile(f: &Finding) -> bool {
    is_makefile_name(&f.path)
        && f.rule.starts_with("HP8")
        && (matches!(f.rule.get(3..4), Some("1" | "4" | "5")) || f.rule == "HP880")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::decisions::test_support::f as at;

    use crate::decisions::test_support::open_rules as open;

    #[test]
    fn a_cmake_cuda_build_and_the_ci_workflows_are_one_decision_each() {
        let mut fs = vec![
            at("HP841", "CMakeLists.txt", 9),
            at("HP844", "CMakeLists.txt", 111),
            at("HP843", "src/lib/CMakeLists.txt", 96),
            at("HP845", "src/lib/CMakeLists.txt", 187),
            at("HP850", ".github/workflows/ci.yml", 10),
            at("HP843", ".github/workflows/ci.yml", 12),
            at("HP850", ".github/workflows/nightly.yml", 7),
            at("HP812", "Makefile", 281),
            at("HP844", "Makefile", 425),
            at("HP850", "Makefile", 605),
            // Not build decisions: an arch list in a shell script, a kernel hazard.
            at("HP843", "scripts/env.sh", 3),
            at("HP102", "src/lib/k.cu", 4),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [
                ("HP841", "CMakeLists.txt", 9),
                ("HP850", ".github/workflows/ci.yml", 10),
                ("HP812", "Makefile", 281),
                ("HP843", "scripts/env.sh", 3),
                ("HP102", "src/lib/k.cu", 4),
            ]
        );
        assert!(
            fs[0]
                .message
                .contains("4 findings in `CMakeLists.txt`, `src/lib/CMakeLists.txt`"),
            "{}",
            fs[0].message
        );
        assert!(fs[3].message.contains("folded into `CMakeLists.txt:9`"));
        // The twin: a single CMake line is its own finding.
        let mut one = vec![at("HP841", "CMakeLists.txt", 9)];
        let k = kind(&one);
        super::super::fold(&mut one, &k);
        assert_eq!(open(&one), [("HP841", "CMakeLists.txt", 9)]);
    }

    /// graphblast: `Makefile` opens with `include common.mk`, which holds the `-gencode` flags
    /// and `-lcublas`: one Makefile build, one decision. A book's chapter samples, each with
    /// its own Makefile, take the same change: one decision naming the files. Twin: the
    /// project's CMake build stays its own decision beside them.
    #[test]
    fn the_projects_makefiles_are_one_decision() {
        let mut fs = vec![
            at("HP850", "Makefile", 18),
            at("HP850", "Makefile", 22),
            at("HP843", "common.mk", 2),
            at("HP851", "common.mk", 16),
            at("HP852", "ch01/hello/Makefile", 1),
            at("HP852", "ch02/sgemm/Makefile", 1),
            at("HP841", "CMakeLists.txt", 9),
            at("HP843", "CMakeLists.txt", 12),
        ];
        let k = kind_with(&fs, &BTreeMap::new());
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP850", "Makefile", 18), ("HP841", "CMakeLists.txt", 9)]
        );
        assert!(
            fs[0]
                .message
                .contains("the project's Makefiles build with nvcc")
                && fs[0].message.contains("6 findings"),
            "{}",
            fs[0].message
        );
        assert!(
            fs[5].message.contains("folded into `Makefile:18`"),
            "{}",
            fs[5].message
        );
        // QuickRunCUDA's `$(shell nvidia-smi …)` feeding the `-gencode` flags moves with the
        // Makefile: one more finding of the decision, not an item of its own.
        let mut smi = vec![at("HP850", "Makefile", 8), at("HP880", "Makefile", 2)];
        let k = kind_with(&smi, &BTreeMap::new());
        super::super::fold(&mut smi, &k);
        assert_eq!(open(&smi), [("HP850", "Makefile", 8)]);
        // PoseCNN's `lib/make.sh`: nvcc compiles and `-lcudart` links on many lines, one move.
        let mut sh = vec![
            at("HP850", "lib/make.sh", 10),
            at("HP851", "lib/make.sh", 14),
            at("HP850", "lib/make.sh", 21),
            at("HP851", "lib/make.sh", 25),
        ];
        let k = kind_with(&sh, &BTreeMap::new());
        super::super::fold(&mut sh, &k);
        assert_eq!(open(&sh), [("HP850", "lib/make.sh", 10)]);
        assert!(
            sh[0].message.contains("this script builds with nvcc"),
            "{}",
            sh[0].message
        );
        // A lone Makefile keeps the singular.
        let mut one = vec![at("HP850", "Makefile", 3), at("HP851", "Makefile", 4)];
        let k = kind_with(&one, &BTreeMap::new());
        super::super::fold(&mut one, &k);
        assert!(
            one[0].message.contains("this Makefile builds with nvcc"),
            "{}",
            one[0].message
        );
    }

    /// halmd: `try_compile(… cmake/cuda_arch.cu …)` reads the architecture from nvcc's error
    /// text; the probe's `__CUDA_ARCH__` tests are the CMake build's move, headed by the CMake
    /// file although the probe's path sorts first. Twin: a `.cu` the build does not run stays
    /// its own finding.
    #[test]
    fn a_configure_probe_is_the_cmake_builds_decision() {
        let mut fs = vec![
            at("HP401", "CMake/arch.cu", 22),
            at("HP840", "CMakeLists.txt", 69),
            at("HP843", "cmake/platform.cmake", 3),
            at("HP401", "src/k.cu", 5),
        ];
        let probes = BTreeMap::from([(
            "CMake/arch.cu".to_string(),
            ("CMakeLists.txt".to_string(), 106),
        )]);
        let k = kind_with(&fs, &probes);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP840", "CMakeLists.txt", 69), ("HP401", "src/k.cu", 5)]
        );
        assert!(
            fs[0].message.contains("folded into `CMakeLists.txt:69`"),
            "{}",
            fs[0].message
        );
    }

    /// mxnet: `nvcc` run by the top `CMakeLists.txt` to guess the architectures, the CUDA
    /// toolkit paths of `cmake/Modules/FindCUDNN.cmake` and a vendored `FindCUDAToolkit.cmake`
    /// are the CMake build's move, not facts of their own. Twins: the same rules in a shell
    /// script and in a Python file stay apart.
    #[test]
    fn nvcc_runs_and_toolkit_paths_of_cmake_files_are_the_cmake_move() {
        let mut fs = vec![
            at("HP850", "CMakeLists.txt", 163),
            at("HP840", "CMakeLists.txt", 167),
            at("HP852", "cmake/Modules/FindCUDNN.cmake", 20),
            at("HP850", "cmake/upstream/FindCUDAToolkit.cmake", 514),
            at("HP851", "src/CMakeLists.txt", 3),
            at("HP852", "tools/env.sh", 2),
            at("HP852", "setup.py", 40),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [
                ("HP850", "CMakeLists.txt", 163),
                ("HP852", "tools/env.sh", 2),
                ("HP852", "setup.py", 40),
            ]
        );
        assert!(fs[0].message.contains("5 findings"), "{}", fs[0].message);
    }
}
