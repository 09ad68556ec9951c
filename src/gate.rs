//! The migration vocabulary: gate statuses, failure phases and process exit codes.
//!
//! These words are a contract with users' scripts and CI (they appear verbatim in JSON, SARIF
//! and baselines): add variants, never rename them.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The status of one item or gate. `Blocker` is only ever set by a person (configuration or
/// the migration record); analysis never produces it on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    Blocker,
    Remediation,
    Unknown,
    Pass,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Blocker,
        Status::Remediation,
        Status::Unknown,
        Status::Pass,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Remediation => "REMEDIATION",
            Status::Blocker => "BLOCKER",
            Status::Unknown => "UNKNOWN",
        }
    }
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL
            .into_iter()
            .find(|st| st.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a problem would surface if nothing is done about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Phase {
    Install,
    Build,
    Import,
    Init,
    Runtime,
    Correctness,
    Performance,
}

impl Phase {
    pub const ALL: [Phase; 7] = [
        Phase::Install,
        Phase::Build,
        Phase::Import,
        Phase::Init,
        Phase::Runtime,
        Phase::Correctness,
        Phase::Performance,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Install => "INSTALL",
            Phase::Build => "BUILD",
            Phase::Import => "IMPORT",
            Phase::Init => "INIT",
            Phase::Runtime => "RUNTIME",
            Phase::Correctness => "CORRECTNESS",
            Phase::Performance => "PERFORMANCE",
        }
    }
    pub fn parse(s: &str) -> Option<Phase> {
        Phase::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Process exit codes, documented in the README.
pub mod exit {
    /// Success; nothing that the mode reports.
    pub const OK: i32 = 0;
    /// The mode ran and reports findings (new findings for `check`, NOT READY for `gate`).
    pub const FINDINGS: i32 = 1;
    /// Usage, configuration or I/O error.
    pub const ERROR: i32 = 2;
}
