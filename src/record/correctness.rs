//! `hipport compare A B --record`: the correctness gate written from a comparison that was run,
//! never from a command line someone typed as evidence. The row names both files (hashed, inside
//! the project), the tolerance and the numbers, so a reader sees what PASS or FAIL means.

use super::{date, whoami, Evidence, GateRow, Record, RecordError};
use crate::compare::Comparison;
use crate::gate::{Phase, Status};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the comparison was: the two files as evidence, checked before anything is compared.
#[derive(Debug)]
pub struct Inputs {
    pub record: PathBuf,
    pub baseline: Evidence,
    pub candidate: Evidence,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordCompareError {
    #[error("--record: {0}")]
    Evidence(String),
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// The record's directory, where evidence paths are relative to.
fn dir_of(record: &Path) -> &Path {
    record
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

impl Inputs {
    /// Both outputs must be files inside the project holding `record`.
    pub fn check(
        record: &Path,
        baseline: &Path,
        candidate: &Path,
    ) -> Result<Inputs, RecordCompareError> {
        let dir = dir_of(record);
        let ev = |p: &Path| {
            Evidence::from_arg(&p.to_string_lossy(), dir).map_err(RecordCompareError::Evidence)
        };
        Ok(Inputs {
            record: record.to_path_buf(),
            baseline: ev(baseline)?,
            candidate: ev(candidate)?,
        })
    }
}

/// The gate row a comparison supports: PASS within tolerance, REMEDIATION outside it, UNKNOWN
/// when there were no numbers to compare.
pub fn row(i: &Inputs, c: &Comparison, command: &str, by: &str) -> GateRow {
    let (status, phase) = if c.elements == 0 {
        (Status::Unknown, None)
    } else if c.pass {
        (Status::Pass, None)
    } else {
        (Status::Remediation, Some(Phase::Correctness))
    };
    let verdict = match status {
        Status::Pass => "PASS",
        Status::Unknown => "no numbers compared",
        _ => "FAIL",
    };
    let note = format!(
        "compare {verdict}: {} vs {}: {} of {} element(s) outside rtol {:e}, atol {:e}; max abs error {:e}, max rel error {:e}",
        i.baseline.path,
        i.candidate.path,
        c.mismatched,
        c.elements,
        c.rtol,
        c.atol,
        c.max_abs_error,
        c.max_rel_error
    );
    let mut details = BTreeMap::new();
    for (k, v) in [
        ("tool", "compare".to_string()),
        ("baseline", i.baseline.path.clone()),
        ("baseline_sha256", i.baseline.sha256.clone()),
        ("candidate", i.candidate.path.clone()),
        ("elements", c.elements.to_string()),
        ("mismatched", c.mismatched.to_string()),
        ("rtol", format!("{:e}", c.rtol)),
        ("atol", format!("{:e}", c.atol)),
        ("max_abs_error", format!("{:e}", c.max_abs_error)),
        ("max_rel_error", format!("{:e}", c.max_rel_error)),
    ] {
        details.insert(k.to_string(), v);
    }
    GateRow {
        name: "correctness".into(),
        status,
        phase,
        evidence: Evidence {
            command: command.to_string(),
            ..i.candidate.clone()
        },
        date: date::now(),
        recorded_by: by.to_string(),
        note,
        details,
    }
}

/// Writes the row into the record (created when missing); a person's BLOCKER is kept.
/// Returns the status the board will show for the gate.
pub fn save(i: &Inputs, row: GateRow) -> Result<Status, RecordCompareError> {
    let mut r = match Record::load(&i.record) {
        Ok(r) => r,
        Err(RecordError::Missing { .. }) => Record::new(&whoami()),
        Err(e) => return Err(e.into()),
    };
    if let Some(b) = r
        .gate("correctness")
        .filter(|g| g.status == Status::Blocker)
    {
        return Ok(b.status);
    }
    let status = row.status;
    r.set_gate(row);
    r.save(&i.record)?;
    Ok(status)
}
