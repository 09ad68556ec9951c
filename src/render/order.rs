//! Order by harm: the one sort key every view for people uses (text, concise, Markdown, GitHub
//! and GitLab annotations, the HTML page), so the first item of each is the one that hurts most
//! if nobody acts. Status first (BLOCKER, REMEDIATION, UNKNOWN, PASS), then the product's own
//! code before its tests, benchmarks and examples (a wrong answer in a unit test's host constant
//! hurts less than one in a kernel the product runs), then the phase where the
//! problem surfaces (wrong results and runtime failures, which no build catches, before build,
//! init, import and install failures, which announce themselves; within each of those two
//! groups, decisions that hold other findings before single lines), then the category (64-lane
//! and other silent-correctness families first, build plumbing last), then the place. Size
//! budgets list items in this order, so they drop the least harmful first. JSON, SARIF and
//! baselines keep the report's path order: they are data, not a reading order.

use crate::finding::{Category, Finding};
use crate::gate::{Phase, Status};

/// BLOCKER, REMEDIATION, UNKNOWN, PASS.
pub fn status_rank(s: Status) -> u8 {
    match s {
        Status::Blocker => 0,
        Status::Remediation => 1,
        Status::Unknown => 2,
        Status::Pass => 3,
    }
}

/// Failures nothing announces (wrong results, then a crash at run time, then slowness) before
/// failures the build or the installer reports itself.
pub fn phase_rank(p: Phase) -> u8 {
    match p {
        Phase::Correctness => 0,
        Phase::Runtime => 1,
        Phase::Performance => 2,
        Phase::Build => 3,
        Phase::Init => 4,
        Phase::Import => 5,
        Phase::Install => 6,
    }
}

/// The weight of a category: the 64-lane wavefront first, then the families whose failure is
/// silent or subtle (architecture and version tests that pick another code path, inline PTX,
/// device features, the driver API), then libraries and APIs the build will name, then the
/// repository's deployment, packaging and build plumbing.
pub fn category_rank(c: Category) -> u8 {
    match c {
        Category::WarpSize => 0,
        Category::ArchCheck => 1,
        Category::VersionCheck => 2,
        Category::InlineAsm => 3,
        Category::DeviceFeature => 4,
        Category::DriverApi => 5,
        Category::PtxArtifact => 6,
        Category::Distributed => 7,
        Category::Library => 8,
        Category::UnsupportedApi => 9,
        Category::DeprecatedApi => 10,
        Category::FrameworkNamespace => 11,
        Category::NativeExtension => 12,
        Category::BinaryDependency => 13,
        Category::Monitoring => 14,
        Category::Deployment => 15,
        Category::Container => 16,
        Category::PythonPackage => 17,
        Category::BuildSystem => 18,
        Category::Coverage => 19,
    }
}

/// The harm of a status, phase and category: smaller is more harmful.
pub fn harm(status: Status, phase: Phase, category: Category) -> (u8, u8, u8) {
    (
        status_rank(status),
        phase_rank(phase),
        category_rank(category),
    )
}

/// Folders of code the product does not ship: tests, benchmarks, examples, samples, demos.
const AUXILIARY_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "unittest",
    "unittests",
    "benchmark",
    "benchmarks",
    "bench",
    "example",
    "examples",
    "sample",
    "samples",
    "demo",
    "demos",
];

/// Whether a path is code the product does not ship (1) or its own (0): in a folder of
/// `AUXILIARY_DIRS`, or a file named as a test (`test_x.cu`, `x_test.cpp`, `x_tests.py`).
pub fn auxiliary(path: &str) -> u8 {
    let mut parts = path.split('/');
    let file = parts.next_back().unwrap_or("");
    let stem = file.split('.').next().unwrap_or(file).to_ascii_lowercase();
    let dir = parts.any(|d| AUXILIARY_DIRS.contains(&d.to_ascii_lowercase().as_str()));
    let named = stem.starts_with("test_") || stem.ends_with("_test") || stem.ends_with("_tests");
    u8::from(dir || named)
}

/// The harm of one finding, smaller first.
pub type Harm = (u8, u8, u8, u8, u8, u8);

/// The harm of one finding: status, the product's code before its tests, examples and the code
/// its build sets aside (a decision on a folder no build compiles), failures
/// nothing announces (wrong results, run-time failures) before the rest, then a decision
/// (a finding that holds others: a component to rewrite, a build to move) before a single
/// line of the same weight, then phase and category. A porter reads the decisions of a group
/// first: one of them settles many lines, and a single line is often a detail of one.
pub fn finding_harm(f: &Finding) -> Harm {
    let (s, p, c) = harm(f.status, f.phase, f.category);
    let announced = u8::from(p > phase_rank(Phase::Runtime));
    (
        s,
        auxiliary(&f.path).max(u8::from(f.set_aside)),
        announced,
        u8::from(f.holds == 0),
        p,
        c,
    )
}

/// The sort key of a finding in every view for people: its harm, then the place.
#[allow(clippy::type_complexity)]
pub fn key(f: &Finding) -> (Harm, &str, u32, u32, &str, &str) {
    (
        finding_harm(f),
        &f.path,
        f.line,
        f.column,
        &f.rule,
        &f.message,
    )
}

/// Sorts findings by harm (stable).
pub fn sort(findings: &mut [&Finding]) {
    findings.sort_by(|a, b| key(a).cmp(&key(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_wrong_results_before_build_plumbing() {
        let warp = harm(Status::Remediation, Phase::Correctness, Category::WarpSize);
        let cmake = harm(Status::Remediation, Phase::Build, Category::BuildSystem);
        let unknown = harm(Status::Unknown, Phase::Correctness, Category::WarpSize);
        let blocker = harm(Status::Blocker, Phase::Install, Category::BuildSystem);
        assert!(blocker < warp && warp < cmake && cmake < unknown);
        // Same status and phase: the 64-lane family before a library rename.
        assert!(
            harm(Status::Remediation, Phase::Build, Category::WarpSize)
                < harm(Status::Remediation, Phase::Build, Category::Library)
        );
        // Every category and phase has its own rank (no silent ties).
        let mut c: Vec<u8> = Category::ALL.iter().map(|c| category_rank(*c)).collect();
        c.sort();
        c.dedup();
        assert_eq!(c.len(), Category::ALL.len());
        let mut p: Vec<u8> = Phase::ALL.iter().map(|p| phase_rank(*p)).collect();
        p.sort();
        p.dedup();
        assert_eq!(p.len(), Phase::ALL.len());
    }

    /// flash_attention_inference: a run script's `ncu` (PERFORMANCE, one line) came before the
    /// CUTLASS rewrite and the CMake move (BUILD decisions holding 46 and 7 findings); less_slow:
    /// an include guard on `__CUDA_ARCH__` before the decision on the file's empty kernels
    /// (both CORRECTNESS). Decisions come first within failures nothing announces and within
    /// those that announce themselves; a silent single line still precedes a build decision.
    /// Bonsai's kernel file no build compiles: its decision (a CORRECTNESS head holding eight)
    /// comes after a single BUILD line of the product's code. Twin: the same decision on code
    /// the build compiles comes first.
    #[test]
    fn decisions_on_code_set_aside_come_after_the_products_code() {
        let mut unbuilt = Finding {
            phase: Phase::Correctness,
            category: Category::WarpSize,
            holds: 8,
            set_aside: true,
            ..Finding::bare("HP101", "runtime/CUDAkernels/dev_approximate_gravity.cu", 9)
        };
        let live = Finding {
            phase: Phase::Build,
            category: Category::WarpSize,
            ..Finding::bare("HP103", "runtime/CUDAkernels/warp_new.cu", 27)
        };
        assert!(finding_harm(&live) < finding_harm(&unbuilt));
        unbuilt.set_aside = false;
        assert!(finding_harm(&unbuilt) < finding_harm(&live));
    }

    #[test]
    fn decisions_before_single_lines_of_the_same_group() {
        let f = |rule: &str, phase, category, holds| Finding {
            phase,
            category,
            holds,
            ..Finding::bare(rule, "src/k.cu", 1)
        };
        let ncu = f("HP883", Phase::Performance, Category::Monitoring, 0);
        let cutlass = f("HP603", Phase::Build, Category::Library, 46);
        let guard = f("HP401", Phase::Correctness, Category::ArchCheck, 0);
        let empty = f("HP401", Phase::Correctness, Category::ArchCheck, 5);
        let warp = f("HP102", Phase::Correctness, Category::WarpSize, 0);
        assert!(key(&cutlass) < key(&ncu));
        assert!(key(&empty) < key(&guard));
        assert!(key(&empty) < key(&warp) && key(&warp) < key(&cutlass));
        let single_build = f("HP001", Phase::Build, Category::UnsupportedApi, 0);
        assert!(key(&cutlass) < key(&single_build));
    }

    /// libgpuarray: a host unit test's `warpSize = 32` (CORRECTNESS, warp-size) comes after the
    /// product's BUILD findings of the same status; a PASS stays last wherever it is.
    #[test]
    fn the_products_code_before_its_tests_and_examples() {
        let f = |path: &str, phase, category, status| Finding {
            phase,
            category,
            status,
            ..Finding::bare("HP000", path, 1)
        };
        let test = f(
            "tests/check_elemwise.c",
            Phase::Correctness,
            Category::WarpSize,
            Status::Remediation,
        );
        let product = f(
            "src/gpuarray_blas_cuda.c",
            Phase::Build,
            Category::Library,
            Status::Remediation,
        );
        let unknown = f(
            "src/k.cu",
            Phase::Correctness,
            Category::WarpSize,
            Status::Unknown,
        );
        assert!(key(&product) < key(&test) && key(&test) < key(&unknown));
        for aux in [
            "examples/a/k.cu",
            "benchmarks/b.cu",
            "src/test_k.cu",
            "lib/k_test.cpp",
            "Samples/x.cu",
        ] {
            assert_eq!(auxiliary(aux), 1, "{aux}");
        }
        for own in [
            "src/k.cu",
            "src/testing_utils/x.h",
            "contest/k.cu",
            "src/latest.cu",
        ] {
            assert_eq!(auxiliary(own), 0, "{own}");
        }
    }
}
