//! The migration gate board: the ten gates in the order a migration passes them, and the status
//! that static evidence (a scan report) supports for each.
//!
//! A scan can prove little: the dependency inventory (every finding PASS) and whether an exact
//! ROCm target was named. Build needs a verified build; the runtime gates need tests that were
//! run. Those stay UNKNOWN, and the verdict is never READY while anything is UNKNOWN. `hipport
//! gate` (issue 6) reuses [`GATES`] and replaces UNKNOWN with recorded evidence.

use crate::gate::{Gate, Status};
use crate::report::Report;

/// Gate ids and titles in migration order, from [`Gate`] (the one list).
pub const GATES: [(&str, &str); 10] = {
    let mut out = [("", ""); 10];
    let mut i = 0;
    while i < Gate::ALL.len() {
        out[i] = (Gate::ALL[i].as_str(), Gate::ALL[i].title());
        i += 1;
    }
    out
};

/// One gate with its status and the evidence (or lack of it) behind the status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateRow {
    pub id: &'static str,
    pub title: &'static str,
    pub status: Status,
    pub note: String,
}

/// The board as a scan report supports it.
pub fn static_board(r: &Report) -> Vec<GateRow> {
    Gate::ALL
        .iter()
        .map(|&gate| {
            let (status, note) = match gate {
                Gate::Baseline => (
                    Status::Unknown,
                    "not recorded: build and run the CUDA version to keep reference outputs".into(),
                ),
                Gate::Inventory => inventory(r),
                Gate::Target if r.target.rocm_explicit && !r.target.offload_arch.is_empty() => (
                    Status::Pass,
                    format!("target {}", r.target.describe()),
                ),
                Gate::Target if r.target.rocm_explicit => (
                    Status::Unknown,
                    format!(
                        "ROCm {} named, GPU architecture not: set [target] offload_arch in hipport.toml (the full tuple goes in the migration record: hipport record target)",
                        r.target.rocm
                    ),
                ),
                Gate::Target => (
                    Status::Unknown,
                    format!(
                        "defaulted to ROCm {}: name an exact X.Y.Z release (--rocm or hipport.toml)",
                        r.target.rocm
                    ),
                ),
                Gate::Build => (Status::Unknown, "not verified: no HIP build recorded".into()),
                Gate::Functional
                | Gate::Correctness
                | Gate::Precision
                | Gate::Distributed
                | Gate::Operations
                | Gate::Performance => (Status::Unknown, "not tested".into()),
            };
            GateRow {
                id: gate.as_str(),
                title: gate.title(),
                status,
                note,
            }
        })
        .collect()
}

fn inventory(r: &Report) -> (Status, String) {
    let (b, m, u) = (
        r.count(Status::Blocker),
        r.count(Status::Remediation),
        r.count(Status::Unknown),
    );
    let errors = r.errors.len();
    let status = if b > 0 {
        Status::Blocker
    } else if m > 0 {
        Status::Remediation
    } else if u > 0 || errors > 0 {
        Status::Unknown
    } else {
        Status::Pass
    };
    let mut note = format!(
        "{} files scanned: {b} BLOCKER, {m} REMEDIATION, {u} UNKNOWN",
        r.summary.files_scanned
    );
    if errors > 0 {
        note.push_str(&format!(", {errors} files not analysed"));
    }
    (status, note)
}

/// The go/no-go verdict: counts of items that stand between the code and READY.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub blocker: usize,
    pub remediation: usize,
    /// UNKNOWN findings plus gates without evidence.
    pub unknown: usize,
    pub unknown_findings: usize,
    pub unknown_gates: usize,
}

impl Verdict {
    pub fn of(r: &Report, board: &[GateRow]) -> Verdict {
        let unknown_findings = r.count(Status::Unknown) + r.errors.len();
        let unknown_gates = board.iter().filter(|g| g.status == Status::Unknown).count();
        Verdict {
            blocker: r.count(Status::Blocker),
            remediation: r.count(Status::Remediation),
            unknown: unknown_findings + unknown_gates,
            unknown_findings,
            unknown_gates,
        }
    }
    pub fn ready(&self) -> bool {
        self.blocker == 0 && self.remediation == 0 && self.unknown == 0
    }
    /// `NOT READY: N REMEDIATION, M UNKNOWN` (`, K BLOCKER` appended when a person decided any).
    pub fn line(&self) -> String {
        if self.ready() {
            return "READY".into();
        }
        let mut s = format!(
            "NOT READY: {} REMEDIATION, {} UNKNOWN",
            self.remediation, self.unknown
        );
        if self.blocker > 0 {
            s.push_str(&format!(", {} BLOCKER", self.blocker));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::TargetInfo;

    fn empty(explicit: bool) -> Report {
        let t = TargetInfo {
            rocm: "6.2.0".into(),
            roc: false,
            experimental: false,
            rocm_explicit: explicit,
            offload_arch: vec!["gfx90a".into()],
            config: "none".into(),
        };
        Report::new(t, vec![], vec![])
    }

    #[test]
    fn empty_scan_passes_inventory_but_is_never_ready() {
        let r = empty(true);
        let b = static_board(&r);
        let ids: Vec<&str> = b.iter().map(|g| g.id).collect();
        assert_eq!(ids, GATES.map(|g| g.0));
        assert_eq!(b[1].status, Status::Pass);
        assert_eq!(b[2].status, Status::Pass);
        let v = Verdict::of(&r, &b);
        assert_eq!(v.line(), "NOT READY: 0 REMEDIATION, 8 UNKNOWN");
        let b = static_board(&empty(false));
        assert_eq!(b[2].status, Status::Unknown);
        // A named ROCm without a GPU architecture is not an exact target either.
        let mut r = empty(true);
        r.target.offload_arch.clear();
        assert_eq!(static_board(&r)[2].status, Status::Unknown);
    }
}
