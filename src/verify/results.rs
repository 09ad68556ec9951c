//! The results of one verify run: a row per unit and a summary, written as JSON under
//! `.hipport/` and hashed into the migration record as BUILD-gate evidence.

use super::classify::{self, Outcome};
use super::hipcc::UnitCommand;
use super::VerifySettings;
use crate::gate::Status;
use crate::report::FileError;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct UnitResult {
    pub path: String,
    /// `PASS` or `BUILD FAIL (…)`.
    pub result: String,
    pub kind: Outcome,
    pub status: Status,
    /// The first error line; `null` on PASS.
    pub error: Option<String>,
    pub command: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl UnitResult {
    pub fn new(c: &UnitCommand, hipcc: &Path, ok: bool, output: &str) -> UnitResult {
        let (kind, error) = if ok {
            (Outcome::Pass, None)
        } else {
            let (k, e) = classify::classify(output);
            (k, Some(e))
        };
        UnitResult {
            path: c.rel.clone(),
            result: kind.label().to_string(),
            kind,
            status: kind.status(),
            error,
            command: c.display(hipcc),
            notes: c.notes.clone(),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Summary {
    pub units: usize,
    pub pass: usize,
    pub missing_header: usize,
    pub unported_api: usize,
    pub other: usize,
    /// The BUILD gate status these results support.
    pub status: Status,
}

impl Summary {
    pub fn of(rows: &[UnitResult]) -> Summary {
        let count = |k: Outcome| rows.iter().filter(|r| r.kind == k).count();
        let mut s = Summary {
            units: rows.len(),
            pass: count(Outcome::Pass),
            missing_header: count(Outcome::MissingHeader),
            unported_api: count(Outcome::UnportedApi),
            other: count(Outcome::Other),
            status: Status::Unknown,
        };
        s.status = if s.units == 0 {
            Status::Unknown
        } else if s.pass == s.units {
            Status::Pass
        } else if s.unported_api > 0 {
            Status::Remediation
        } else {
            Status::Unknown
        };
        s
    }
    /// Units that did not compile.
    pub fn failed(&self) -> usize {
        self.units - self.pass
    }
    /// `3 units: 1 PASS, 1 missing ROCm library header, 1 un-ported API, 0 other`.
    pub fn describe(&self) -> String {
        format!(
            "{} units: {} PASS, {} missing ROCm library header, {} un-ported API, {} other",
            self.units, self.pass, self.missing_header, self.unported_api, self.other
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VerifyResults {
    pub schema_version: u32,
    pub tool: String,
    pub date: String,
    pub hipcc: String,
    pub hipcc_version: String,
    pub rocm: String,
    pub offload_arch: Vec<String>,
    /// `syntax-only` or `objects`.
    pub mode: String,
    /// `per-file` or the compilation database used.
    pub commands_from: String,
    pub out: String,
    pub units: Vec<UnitResult>,
    pub summary: Summary,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FileErrorRow>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileErrorRow {
    pub path: String,
    pub error: String,
}

impl VerifyResults {
    pub fn new(
        s: &VerifySettings,
        commands_from: String,
        units: Vec<UnitResult>,
        errors: Vec<FileError>,
    ) -> Self {
        VerifyResults {
            schema_version: SCHEMA_VERSION,
            tool: format!("hipport {}", env!("CARGO_PKG_VERSION")),
            date: crate::record::date::now(),
            hipcc: s.hipcc.path.display().to_string(),
            hipcc_version: s.hipcc.version.clone(),
            rocm: s.target.rocm.to_string(),
            offload_arch: s.offload_arch.clone(),
            mode: if s.full { "objects" } else { "syntax-only" }.into(),
            commands_from,
            out: s.out.display().to_string(),
            summary: Summary::of(&units),
            units,
            errors: errors
                .into_iter()
                .map(|e| FileErrorRow {
                    path: e.path,
                    error: e.error,
                })
                .collect(),
        }
    }

    /// With `--only`: keeps the earlier rows of units not re-checked, when the earlier run had
    /// the same target, architectures and mode and the unit still exists.
    pub fn merge_previous(&mut self, previous: &VerifyResults, still_units: &[String]) {
        if previous.rocm != self.rocm
            || previous.offload_arch != self.offload_arch
            || previous.mode != self.mode
        {
            return;
        }
        for row in &previous.units {
            if !self.units.iter().any(|r| r.path == row.path) && still_units.contains(&row.path) {
                self.units.push(row.clone());
            }
        }
        self.units.sort_by(|a, b| a.path.cmp(&b.path));
        self.summary = Summary::of(&self.units);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &str, kind: Outcome) -> UnitResult {
        UnitResult {
            path: path.into(),
            result: kind.label().into(),
            kind,
            status: kind.status(),
            error: None,
            command: String::new(),
            notes: vec![],
        }
    }

    #[test]
    fn summary_status_is_never_blocker() {
        let s = Summary::of(&[row("a", Outcome::Pass)]);
        assert_eq!(s.status, Status::Pass);
        let s = Summary::of(&[row("a", Outcome::Pass), row("b", Outcome::MissingHeader)]);
        assert_eq!(s.status, Status::Unknown);
        let s = Summary::of(&[
            row("a", Outcome::UnportedApi),
            row("b", Outcome::MissingHeader),
        ]);
        assert_eq!(s.status, Status::Remediation);
        assert_eq!(s.failed(), 2);
        assert_eq!(Summary::of(&[]).status, Status::Unknown);
    }
}
