//! The one gate board every view prints: `gate`, `report` (HTML), `scan --format markdown`, the
//! GitHub step summary and the scan JSON all show the board `verdict::board` computes
//! for the project's migration record (when there is one) and a scan report — so two views of
//! the same tree can never disagree about a gate or about how many files were scanned.
//!
//! Also the verdict counts a report prints under the board: the open findings plus the gates
//! without evidence.

use crate::gate::{Gate, Status};
use crate::record::{Record, RecordError};
use crate::report::Report;
use std::path::{Path, PathBuf};

pub use crate::verdict::{Board, GateLine};

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

/// The migration record at `root`: `None` when there is none, an error when it cannot be read.
pub fn load_record(root: &Path) -> Result<Option<Record>, RecordError> {
    match Record::load(&Record::path_in(root)) {
        Ok(r) => Ok(Some(r)),
        Err(RecordError::Missing { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The board for the project at `root` and a scan of it (or why the scan failed), with the
/// record it was read from. `gate` and `report` stop on a record that cannot be read.
pub fn for_project(
    root: &Path,
    scan: Result<&Report, &str>,
) -> Result<(Board, Option<Record>), RecordError> {
    let rec = load_record(root)?;
    Ok((crate::verdict::board(root, rec.as_ref(), scan), rec))
}

/// The board a report carries: the project's (located by the first path, as the target is),
/// computed after the scan is complete. A record that cannot be read is said in the notes and
/// the board shows no recorded gate (`hipport gate` reports the error itself).
pub fn attach(paths: &[PathBuf], r: &mut Report) {
    let root = paths
        .first()
        .map(|p| crate::settings::root_of(p))
        .unwrap_or_else(|| PathBuf::from("."));
    r.board = match for_project(&root, Ok(r)) {
        Ok((b, _)) => b,
        Err(e) => {
            let mut b = crate::verdict::board(&root, None, Ok(r));
            b.notes = vec![format!(
                "the migration record cannot be read ({e}): every recorded gate is UNKNOWN"
            )];
            b
        }
    };
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
    pub fn of(r: &Report, board: &Board) -> Verdict {
        let unknown_findings = r.count(Status::Unknown) + r.errors.len();
        let unknown_gates = board
            .gates
            .iter()
            .filter(|g| g.status == Status::Unknown)
            .count();
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
            return crate::verdict::Readiness::Ready.to_string();
        }
        let mut s = format!(
            "{}: {} REMEDIATION, {} UNKNOWN",
            crate::verdict::Readiness::NotReady,
            self.remediation,
            self.unknown
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
    fn without_a_record_the_target_comes_from_the_scan_and_nothing_is_ready() {
        let r = empty(true);
        let b = &r.board;
        let ids: Vec<&str> = b.gates.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(ids, GATES.map(|g| g.0));
        assert_eq!(b.gates[2].status, Status::Pass, "{:?}", b.gates[2]);
        let v = Verdict::of(&r, b);
        // Inventory with no file scanned is UNKNOWN, as are the eight gates without evidence.
        assert_eq!(v.line(), "NOT READY: 0 REMEDIATION, 9 UNKNOWN");
        assert_eq!(empty(false).board.gates[2].status, Status::Unknown);
        // A named ROCm without a GPU architecture is not an exact target either.
        let mut r = empty(true);
        r.target.offload_arch.clear();
        let b = crate::verdict::board(Path::new("."), None, Ok(&r));
        assert_eq!(b.gates[2].status, Status::Unknown);
    }
}
