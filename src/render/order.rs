//! Order by harm: the one sort key every view for people uses (text, concise, Markdown, GitHub
//! and GitLab annotations, the HTML page), so the first item of each is the one that hurts most
//! if nobody acts. Status first (BLOCKER, REMEDIATION, UNKNOWN, PASS), then the phase where the
//! problem surfaces (wrong results and runtime failures, which no build catches, before build,
//! init, import and install failures, which announce themselves), then the category (64-lane
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

/// The sort key of a finding in every view for people: harm, then the place.
pub fn key(f: &Finding) -> ((u8, u8, u8), &str, u32, u32, &str, &str) {
    (
        harm(f.status, f.phase, f.category),
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
}
