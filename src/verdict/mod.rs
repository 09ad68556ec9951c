//! The gate board and the pre-purchase verdict: each of the ten gates with its status, evidence
//! and age — inventory from a fresh scan, build from the stored verify results, functional,
//! precision and distributed from the test matrix, the rest from the migration record — and
//! `MIGRATION READY` only when every gate is PASS. A person's BLOCKER in the record always wins.

pub mod derive;
pub mod render;

use crate::finding::Category;
use crate::gate::{Gate, Status};
use crate::record::{self, date, GateRow, Record};
use crate::report::Report;
use serde::Serialize;
use std::path::Path;

#[derive(Clone, Debug, Serialize)]
pub struct GateLine {
    pub name: Gate,
    pub status: Status,
    /// Where the status comes from: record, scan, verify, test matrix.
    pub source: String,
    pub evidence: String,
    pub age: String,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_items: Option<usize>,
    /// The performance gate's metric table, when derived from benchmark runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perf: Option<crate::perf::judge::PerfTable>,
}

crate::vocabulary! {
    /// The board's verdict.
    pub enum Readiness {
        Ready = "MIGRATION READY",
        NotReady = "NOT READY",
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Board {
    pub gates: Vec<GateLine>,
    pub ready: bool,
    pub verdict: Readiness,
    /// Why not ready: one line per gate that is not PASS.
    pub blocking: Vec<String>,
    pub critical_unknowns: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Default for Board {
    /// No gate computed yet (a report before its scan is complete).
    fn default() -> Board {
        Board {
            gates: Vec::new(),
            ready: false,
            verdict: Readiness::NotReady,
            blocking: Vec::new(),
            critical_unknowns: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// The command that fills a gate: every "not tested" row names it.
pub fn fill_command(gate: Gate) -> &'static str {
    match gate {
        Gate::Baseline => "hipport record baseline",
        Gate::Inventory => "hipport scan",
        Gate::Target => "hipport record target --rocm X.Y.Z --gpu GPU",
        Gate::Build => "hipport verify",
        Gate::Functional | Gate::Precision | Gate::Distributed => {
            "hipport record production and hipport record test"
        }
        Gate::Correctness => "hipport compare BASELINE CANDIDATE --record",
        Gate::Operations => "hipport record gate operations --status … --evidence FILE",
        Gate::Performance => "hipport record production --require and hipport record perf",
    }
}

/// Gates whose status is derived from other evidence, and the command that provides it: a row
/// a person wrote for them (other than a BLOCKER) is not what the board shows.
pub fn derived_from(gate: Gate) -> Option<&'static str> {
    match gate {
        Gate::Inventory => Some("a fresh scan (`hipport scan`)"),
        Gate::Build => Some("`hipport verify`"),
        Gate::Functional | Gate::Precision | Gate::Distributed => {
            Some("the test matrix (`hipport record test` against `hipport record production`)")
        }
        Gate::Performance => Some(
            "benchmark runs (`hipport record perf`) against `hipport record production --require`",
        ),
        Gate::Baseline | Gate::Target | Gate::Correctness | Gate::Operations => None,
    }
}

/// `set by NAME`: who recorded a row with `hipport record gate` (a person, not a derivation).
fn set_by(row: &GateRow) -> String {
    let who = row.recorded_by.trim();
    if who.is_empty() {
        "set by a person".into()
    } else {
        format!("set by {who}")
    }
}

/// The FROM column of a gate a person set.
const PERSON: &str = "person";

/// Builds the board for the project at `root` from its record (if any) and a fresh scan.
pub fn board(root: &Path, rec: Option<&Record>, scan: Result<&Report, &str>) -> Board {
    let empty = Record::new("");
    let r = rec.unwrap_or(&empty);
    let mut notes = Vec::new();
    if rec.is_none() {
        notes.push(format!(
            "no {} here: every recorded gate is UNKNOWN (create it with `hipport record init`)",
            record::FILE_NAME
        ));
    }
    notes.extend(r.perf.candidates_note());
    let mut critical = Vec::new();
    let mut gates = Vec::new();
    for gate in Gate::ALL {
        let name = gate.as_str();
        let stored = rec.and_then(|r| r.gate(name));
        let mut line = match gate {
            Gate::Inventory => inventory(scan, &mut critical),
            Gate::Build => build(root, stored, r),
            Gate::Functional => matrix(gate, derive::functional(r), r, &mut critical),
            Gate::Precision => matrix(gate, derive::precision(r), r, &mut critical),
            Gate::Distributed => matrix(gate, derive::distributed(r), r, &mut critical),
            Gate::Performance if crate::perf::judge::applies(r) => {
                performance(root, r, &mut critical)
            }
            Gate::Performance => GateLine {
                reason: format!(
                    "not tested: {} — fill with `{}`",
                    gate.question(),
                    fill_command(gate)
                ),
                ..recorded(gate, None, r)
            },
            Gate::Target if rec.is_none() => scan_target(scan),
            Gate::Baseline | Gate::Target | Gate::Correctness | Gate::Operations => {
                recorded(gate, stored, r)
            }
        };
        // A person's BLOCKER outranks any derivation.
        if let Some(s) = stored.filter(|s| s.status == Status::Blocker) {
            line.status = Status::Blocker;
            line.reason = format!("{} ({})", s.note, set_by(s));
            line.source = PERSON.into();
            line.age = date::age(&s.date);
        } else if let (Some(s), Some(from)) = (stored, derived_from(gate)) {
            // A person's row on a derived gate is never silently dropped: say it is not used.
            let by_person =
                s.details.is_empty() && (s.status != Status::Unknown || !s.evidence.is_empty());
            if by_person && gate != Gate::Build {
                notes.push(format!(
                    "{}: the {} recorded in the record ({}) is not used: this gate comes from {from}",
                    gate.as_str(),
                    s.status,
                    set_by(s)
                ));
            }
        }
        gates.push(line);
    }
    if let Ok(rep) = scan {
        let native = rep.count_category(Category::NativeExtension);
        let functional_pass = gates
            .iter()
            .any(|g| g.name == Gate::Functional && g.status == Status::Pass);
        if native > 0 && !functional_pass {
            critical.push(format!("untested custom operator: {native} native-extension finding(s) and no passing functional test"));
        }
    }
    critical.sort();
    critical.dedup();
    let blocking: Vec<String> = gates
        .iter()
        .filter_map(|g| match g.status {
            Status::Pass => None,
            Status::Unknown => Some(match g.reason.strip_prefix("not tested: ") {
                Some(why) => format!("{}: not tested — {why}", g.name),
                None if g.reason.starts_with("not tested") => format!("{}: {}", g.name, g.reason),
                None => format!("{}: not tested — {}", g.name, g.reason),
            }),
            Status::Remediation => Some(match g.open_items {
                Some(n) => format!("{}: REMEDIATION, {n} open item(s) — {}", g.name, g.reason),
                None => format!("{}: REMEDIATION — {}", g.name, g.reason),
            }),
            Status::Blocker => Some(format!("{}: BLOCKER — {}", g.name, g.reason)),
        })
        .collect();
    let ready = blocking.is_empty();
    Board {
        gates,
        ready,
        verdict: if ready {
            Readiness::Ready
        } else {
            Readiness::NotReady
        },
        blocking,
        critical_unknowns: critical,
        notes,
    }
}

/// A gate derived from the `[[test]]` matrix against `[production]`.
fn matrix(gate: Gate, d: derive::Derived, r: &Record, critical: &mut Vec<String>) -> GateLine {
    critical.extend(d.critical.clone());
    GateLine {
        name: gate,
        status: d.status,
        source: "test matrix".into(),
        evidence: format!("{} [[test]] row(s) vs [production]", r.tests.len()),
        age: latest_test_age(r),
        reason: d.reason,
        open_items: d.open_items,
        perf: None,
    }
}

fn latest_test_age(r: &Record) -> String {
    r.tests
        .iter()
        .map(|t| t.date.as_str())
        .max()
        .map_or("-".into(), date::age)
}

/// Inventory: PASS only when every finding is PASS; REMEDIATION with the open items otherwise.
fn inventory(scan: Result<&Report, &str>, critical: &mut Vec<String>) -> GateLine {
    let mut line = GateLine {
        name: Gate::Inventory,
        status: Status::Unknown,
        source: "scan".into(),
        evidence: "hipport scan (fresh)".into(),
        age: "now".into(),
        reason: String::new(),
        open_items: None,
        perf: None,
    };
    let rep = match scan {
        Err(e) => {
            line.reason = format!("the scan failed: {e}");
            return line;
        }
        Ok(r) => r,
    };
    let open_in = |c: Category| {
        rep.findings
            .iter()
            .filter(|f| f.category == c && f.status != Status::Pass)
            .count()
    };
    let ptx = open_in(Category::InlineAsm) + open_in(Category::PtxArtifact);
    if ptx > 0 {
        critical.push(format!(
            "PTX path without a port: {ptx} inline-asm/PTX finding(s)"
        ));
    }
    let bin = open_in(Category::BinaryDependency);
    if bin > 0 {
        critical.push(format!("unverified binary dependency: {bin} finding(s)"));
    }
    let mon = open_in(Category::Monitoring);
    if mon > 0 {
        critical.push(format!("NVIDIA-only monitoring: {mon} finding(s)"));
    }
    let open = rep
        .findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .count();
    line.evidence = format!(
        "hipport scan (fresh, ROCm {}): {} file(s), {} finding(s)",
        rep.target.rocm,
        rep.summary.files_scanned,
        rep.findings.len()
    );
    if !rep.errors.is_empty() {
        line.reason = format!("{} file(s) could not be scanned", rep.errors.len());
    } else if rep.summary.files_scanned == 0 {
        line.reason = "no source files found to scan".into();
    } else if rep.count(Status::Blocker) > 0 {
        line.status = Status::Blocker;
        line.reason = format!("{} BLOCKER finding(s)", rep.count(Status::Blocker));
        line.open_items = Some(open);
    } else if open > 0 {
        line.status = Status::Remediation;
        line.open_items = Some(open);
        line.reason = format!(
            "{} REMEDIATION and {} UNKNOWN finding(s)",
            rep.count(Status::Remediation),
            rep.count(Status::Unknown)
        );
    } else {
        line.status = Status::Pass;
        line.reason = "every finding is PASS".into();
    }
    line
}

/// Performance: derived from `[[production.requirements]]` and the `[perf]` runs.
fn performance(root: &Path, r: &Record, critical: &mut Vec<String>) -> GateLine {
    let g = crate::perf::judge::performance(r, root);
    critical.extend(g.critical.iter().cloned());
    GateLine {
        name: Gate::Performance,
        status: g.status,
        source: "benchmarks".into(),
        evidence: g.evidence,
        age: if g.date.is_empty() {
            "-".into()
        } else {
            date::age(&g.date)
        },
        reason: g.reason,
        open_items: g.open_items,
        perf: Some(g.table),
    }
}

/// Build: the record's row written by `verify`, trusted only while its results file is
/// unchanged and only for the ROCm release line it was compiled for.
fn build(root: &Path, stored: Option<&GateRow>, r: &Record) -> GateLine {
    let mut line = recorded(Gate::Build, stored, &Record::default());
    line.source = "verify".into();
    let Some(row) = stored else {
        line.reason = format!(
            "not tested: {} — fill with `{}`",
            Gate::Build.question(),
            fill_command(Gate::Build)
        );
        return line;
    };
    if row.status == Status::Blocker {
        return line;
    }
    if row.status != Status::Unknown || !row.evidence.is_empty() {
        // What verify wrote, without the "set by" a person's row carries.
        line.reason = if row.note.is_empty() {
            row.status.to_string()
        } else {
            row.note.clone()
        };
    }
    if !row.evidence.path.is_empty() && !row.evidence.sha256.is_empty() {
        let p = root.join(&row.evidence.path);
        match record::sha256_file(&p) {
            Err(_) => {
                line.status = Status::Unknown;
                line.reason = format!(
                    "evidence {} is missing: re-run `hipport verify`",
                    row.evidence.path
                );
            }
            Ok(h) if h != row.evidence.sha256 => {
                line.status = Status::Unknown;
                line.reason = format!(
                    "evidence {} changed since it was recorded: re-run `hipport verify`",
                    row.evidence.path
                );
            }
            Ok(_) => {}
        }
    }
    if line.status == Status::Remediation {
        line.open_items = row.details.get("failed").and_then(|f| f.parse().ok());
    }
    if let Some(why) = other_release(row, &r.target.rocm).or_else(|| other_arch(row, &r.target.gfx))
    {
        line.status = Status::Unknown;
        line.open_items = None;
        line.reason = why;
    }
    line
}

/// `evidence for gfx90a, target gfx942` when the build evidence was compiled for other GPU
/// architectures than the recorded target's.
fn other_arch(row: &GateRow, gfx: &str) -> Option<String> {
    let gfx = gfx.trim();
    let archs = row.details.get("offload_arch")?;
    let built = archs.split(',').any(|a| a.split(':').next() == Some(gfx));
    (!gfx.is_empty() && !built).then(|| {
        format!("evidence for {archs}, target {gfx}: re-run `hipport verify --offload-arch {gfx}`")
    })
}

/// `evidence for 5.2, target 7.2.4` when the build evidence was compiled for another ROCm
/// release line than the recorded target.
fn other_release(row: &GateRow, target: &str) -> Option<String> {
    // The HIP release of the compiler that produced it; else the translation target.
    let ev = row.details.get("hip").or_else(|| row.details.get("rocm"))?;
    let (Ok(e), Ok(t)) = (
        ev.parse::<crate::version::Version>(),
        target.parse::<crate::version::Version>(),
    ) else {
        return None;
    };
    (!e.same_minor(&t)).then(|| {
        format!(
            "evidence for {ev}, target {target}: re-run `hipport verify` with a ROCm {}.{} hipcc",
            t.major, t.minor
        )
    })
}

/// Target without a migration record: what the scan was configured with (`hipport.toml` or
/// `--rocm`/`--offload-arch`), PASS only for an exact release and a GPU architecture.
fn scan_target(scan: Result<&Report, &str>) -> GateLine {
    let mut line = recorded(Gate::Target, None, &Record::default());
    let Ok(rep) = scan else {
        return line;
    };
    let t = &rep.target;
    line.source = "scan".into();
    line.evidence = format!("target {}", t.describe());
    (line.status, line.reason) = if t.rocm_explicit && !t.offload_arch.is_empty() {
        (Status::Pass, format!("exact target {}", t.describe()))
    } else if t.rocm_explicit {
        (
            Status::Unknown,
            format!(
                "ROCm {} named, GPU architecture not — fill with `{}`",
                t.rocm,
                fill_command(Gate::Target)
            ),
        )
    } else {
        (
            Status::Unknown,
            format!(
                "defaulted to ROCm {}: not an exact target — fill with `{}`",
                t.rocm,
                fill_command(Gate::Target)
            ),
        )
    };
    line
}

/// A gate as the record holds it; PASS without evidence is not PASS.
fn recorded(gate: Gate, stored: Option<&GateRow>, r: &Record) -> GateLine {
    let Some(row) = stored else {
        return GateLine {
            name: gate,
            status: Status::Unknown,
            source: "record".into(),
            evidence: String::new(),
            age: "-".into(),
            reason: format!(
                "not tested: {} — fill with `{}`",
                gate.question(),
                fill_command(gate)
            ),
            open_items: None,
            perf: None,
        };
    };
    // The row `record init` wrote: nothing recorded yet.
    let untouched = row.status == Status::Unknown && row.evidence.is_empty();
    let mut line = GateLine {
        name: gate,
        status: row.status,
        // A row a hipport command wrote from what it ran names it (`compare`); else a person.
        source: match row.details.get("tool") {
            _ if untouched => "record".into(),
            Some(tool) => tool.clone(),
            None => PERSON.into(),
        },
        evidence: row.evidence.describe(),
        age: date::age(&row.date),
        reason: if untouched {
            format!(
                "not tested: {} — fill with `{}`",
                gate.question(),
                fill_command(gate)
            )
        } else if row.details.contains_key("tool") {
            row.note.clone()
        } else if row.note.is_empty() {
            format!("{} ({})", row.status, set_by(row))
        } else {
            format!("{} ({})", row.note, set_by(row))
        },
        open_items: None,
        perf: None,
    };
    if row.status == Status::Pass && row.evidence.is_empty() {
        line.status = Status::Unknown;
        line.reason = "recorded PASS without evidence: evidence beats \"should work\"".into();
    }
    if gate == Gate::Target
        && row.status == Status::Pass
        && (r.target.rocm.is_empty() || r.target.gfx.is_empty())
    {
        line.status = Status::Unknown;
        line.reason =
            "the [target] tuple is incomplete (rocm, gfx): run `hipport record target`".into();
    }
    if gate == Gate::Baseline && row.status == Status::Pass {
        let missing = r.baseline.missing();
        if !missing.is_empty() {
            line.reason = format!(
                "{} (note: [baseline] still lacks {})",
                line.reason,
                missing.join(", ")
            );
        }
    }
    line
}

#[cfg(test)]
mod build_tests {
    use super::*;

    #[test]
    fn build_evidence_for_other_architectures_is_not_evidence_for_the_target() {
        let mut rec = Record::new("t");
        rec.target.rocm = "5.2.3".into();
        rec.target.gfx = "gfx942".into();
        let row = rec.gates.iter_mut().find(|g| g.name == "build").unwrap();
        row.status = Status::Pass;
        row.evidence.command = "hipport verify .".into();
        row.details.insert("hip".into(), "5.2".into());
        row.details.insert("offload_arch".into(), "gfx90a".into());
        let stored = rec.gate("build").cloned();
        let line = build(Path::new("."), stored.as_ref(), &rec);
        assert_eq!(line.status, Status::Unknown);
        assert!(
            line.reason.contains("evidence for gfx90a, target gfx942"),
            "{}",
            line.reason
        );
        rec.target.gfx = "gfx90a".into();
        let line = build(Path::new("."), stored.as_ref(), &rec);
        assert_eq!(line.status, Status::Pass, "{}", line.reason);
    }
}
