//! The results of one verify run: a row per unit and a summary, written as JSON under
//! `.hipport/` and hashed into the migration record as BUILD-gate evidence.

use super::classify::{self, Outcome};
use super::deps::Deps;
use super::hipcc::{Hipcc, UnitCommand};
use super::VerifySettings;
use crate::gate::Status;
use crate::report::FileError;
use serde::{Deserialize, Serialize};

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
    /// The header of the first error when it is "file not found".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_header: Option<String>,
    /// Which dependency is missing and how to get it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl UnitResult {
    pub fn new(c: &UnitCommand, hipcc: &Hipcc, ok: bool, output: &str, deps: &Deps) -> UnitResult {
        let (mut kind, error) = if ok {
            (Outcome::Pass, None)
        } else {
            let (k, e) = classify::classify(output);
            (k, Some(e))
        };
        let missing_header = if ok {
            None
        } else {
            classify::first_missing_header(output)
        };
        let mut hint = None;
        if let (Some(h), Outcome::Other | Outcome::MissingHeader | Outcome::MissingThirdParty) =
            (&missing_header, kind)
        {
            if let Some((o, why)) = super::packages::lookup(h) {
                kind = o;
                hint = Some(why.to_string());
            }
        }
        if let (Some(h), Outcome::Other | Outcome::MissingThirdParty) = (&missing_header, kind) {
            if let Some(e) = deps.explain(h, c) {
                kind = e.outcome;
                hint = Some(e.hint);
            }
        }
        UnitResult {
            path: c.rel.clone(),
            result: kind.label().to_string(),
            kind,
            status: kind.status(),
            error,
            command: c.display(hipcc),
            notes: c.notes.clone(),
            missing_header,
            hint,
        }
    }
}

/// Failed units grouped by the header their first error could not find.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct HeaderGroup {
    pub header: String,
    pub units: usize,
    pub kind: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Up to three of the units, for a person to try first.
    pub examples: Vec<String>,
}

/// Groups failed rows by first missing header, most units first.
pub fn group_by_header(rows: &[UnitResult]) -> Vec<HeaderGroup> {
    let mut groups: Vec<HeaderGroup> = Vec::new();
    for r in rows {
        let Some(h) = &r.missing_header else { continue };
        match groups.iter_mut().find(|g| &g.header == h) {
            Some(g) => {
                g.units += 1;
                if g.examples.len() < 3 {
                    g.examples.push(r.path.clone());
                }
            }
            None => groups.push(HeaderGroup {
                header: h.clone(),
                units: 1,
                kind: r.kind,
                hint: r.hint.clone(),
                examples: vec![r.path.clone()],
            }),
        }
    }
    groups.sort_by(|a, b| b.units.cmp(&a.units).then(a.header.cmp(&b.header)));
    groups
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Summary {
    pub units: usize,
    pub pass: usize,
    pub missing_header: usize,
    pub unported_api: usize,
    #[serde(default)]
    pub missing_third_party: usize,
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
            missing_third_party: count(Outcome::MissingThirdParty),
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
    /// `3 units: 1 PASS, 1 missing ROCm library header, 0 missing third-party header, 1 un-ported API, 0 other`.
    pub fn describe(&self) -> String {
        format!(
            "{} units: {} PASS, {} missing ROCm library header, {} missing third-party header, {} un-ported API, {} other",
            self.units,
            self.pass,
            self.missing_header,
            self.missing_third_party,
            self.unported_api,
            self.other
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
    /// The HIP release (major.minor) of the compiler, from its `--version`: build evidence
    /// counts only from an identified HIP clang.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hip: Option<String>,
    /// Why these results are not evidence for the named target (another HIP release line or
    /// architecture): the BUILD gate is then UNKNOWN for the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_mismatch: Option<String>,
    /// `syntax-only` or `objects`.
    pub mode: String,
    /// `per-file` or the compilation database used.
    pub commands_from: String,
    pub out: String,
    /// How the compiler ran: clang directly (with hipcc's flags) or hipcc.
    #[serde(default)]
    pub compiler: String,
    /// Flags every unit got beyond its own: the project's ROCm switch, `-I`/`-D`/`--std`/
    /// `--extra-arg`, PyTorch's include directories, each with where it came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_flags: Vec<AddedFlag>,
    /// Flags of hipport.toml's `[verify]` that did not pass the allow-list, each with why (the
    /// database's are in each unit's notes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped_flags: Vec<String>,
    pub units: Vec<UnitResult>,
    pub summary: Summary,
    /// Failed units by the header their first error could not find.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_headers: Vec<HeaderGroup>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FileErrorRow>,
}

/// A flag verify added to every unit, and why.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct AddedFlag {
    pub flag: String,
    /// `rocm-switch (src/a.cu:12)`, `--define`, `hipport.toml [verify]`, `torch`, ….
    pub from: String,
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
            hip: s.hipcc.hip.as_ref().map(ToString::to_string),
            target_mismatch: None,
            mode: if s.full { "objects" } else { "syntax-only" }.into(),
            commands_from,
            out: s.out.display().to_string(),
            compiler: s.hipcc.describe_driver(),
            added_flags: s.added.clone(),
            dropped_flags: Vec::new(),
            summary: {
                let mut sum = Summary::of(&units);
                // A unit that could not be translated or compiled as named was not verified:
                // the units that were cannot make the whole build PASS.
                if sum.status == Status::Pass && errors.iter().any(|e| super::is_unit(&e.path)) {
                    sum.status = Status::Unknown;
                }
                sum
            },
            missing_headers: group_by_header(&units),
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
    /// the same target, compiler release, architectures and mode and the unit still exists.
    pub fn merge_previous(&mut self, previous: &VerifyResults, still_units: &[String]) {
        if previous.rocm != self.rocm
            || previous.hip != self.hip
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
        self.missing_headers = group_by_header(&self.units);
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
            missing_header: None,
            hint: None,
        }
    }

    #[test]
    fn failures_group_by_first_missing_header() {
        let mut a = row("a.cu", Outcome::MissingThirdParty);
        a.missing_header = Some("torch/extension.h".into());
        a.hint = Some("install PyTorch".into());
        let mut b = a.clone();
        b.path = "b.cu".into();
        let mut c = row("c.cu", Outcome::Other);
        c.missing_header = Some("cutlass/cutlass.h".into());
        let g = group_by_header(&[a, b, c, row("d.cu", Outcome::Pass)]);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].header, "torch/extension.h");
        assert_eq!(g[0].units, 2);
        assert_eq!(g[0].examples, ["a.cu", "b.cu"]);
        assert_eq!(g[0].hint.as_deref(), Some("install PyTorch"));
        assert_eq!(g[1].units, 1);
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
