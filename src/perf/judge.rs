//! The performance gate, derived from the record and never guessed: the candidate run must have
//! been measured on the recorded target, the baseline and the candidate must have run the same
//! thing (every declared condition equal), and then every requirement is checked against the
//! candidate's numbers. Different conditions or machine → UNKNOWN naming the difference; a missed
//! requirement → REMEDIATION with the gap; every requirement met → PASS. Never BLOCKER. The ratio
//! to the baseline is shown for information only: the requirement is the gate.

use super::evidence;
use crate::gate::Status;
use crate::record::perf::{self, lookup, num, parse_requirement, unit_of, PerfRun, Requirement};
use crate::record::{sha256_hex, Record};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One requirement checked.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PerfRow {
    pub requirement: String,
    pub set_by: String,
    /// The metric name read from the runs when it differs from the requirement's (an alias).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub read_as: String,
    pub unit: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// candidate / baseline, for information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    pub status: Status,
    pub reason: String,
}

/// A run as the board shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunSummary {
    pub path: String,
    pub sha256: String,
    pub format: String,
    pub date: String,
    pub machine: String,
    pub conditions: BTreeMap<String, String>,
    pub metrics: usize,
}

/// The metric table of the performance gate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PerfTable {
    pub rows: Vec<PerfRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<RunSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<RunSummary>,
    /// Why the runs cannot be judged as they stand (not comparable, wrong machine, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// The derived gate.
#[derive(Clone, Debug, PartialEq)]
pub struct PerfGate {
    pub status: Status,
    pub reason: String,
    pub open_items: Option<usize>,
    pub evidence: String,
    pub date: String,
    pub table: PerfTable,
    /// Critical unknowns the workflow names (fewer GPUs than production, surrogate precision).
    pub critical: Vec<String>,
}

/// Whether the record holds anything the performance gate is derived from.
pub fn applies(r: &Record) -> bool {
    !r.production.requirements.is_empty() || !r.perf.is_empty()
}

fn summary(run: &PerfRun) -> RunSummary {
    RunSummary {
        path: run.path.clone(),
        sha256: run.sha256.clone(),
        format: run.format.clone(),
        date: run.date.clone(),
        machine: run.machine.describe(),
        conditions: run.conditions.clone(),
        metrics: run.metrics.len(),
    }
}

/// `12.5 ms`, `1650/s`, `0.91 s`, `3`.
pub fn show(v: f64, unit: &str) -> String {
    match unit {
        "" => num(v),
        "/s" => format!("{}/s", num(v)),
        u => format!("{} {u}", num(v)),
    }
}

fn exact(v: f64, unit: &str) -> String {
    match unit {
        "" => format!("{v}"),
        "/s" => format!("{v}/s"),
        u => format!("{v} {u}"),
    }
}

/// Conditions that differ between the runs: `batch 8 vs 16`, `concurrency 64 vs not stated`.
pub fn differences(base: &PerfRun, cand: &PerfRun) -> Vec<String> {
    let keys: BTreeSet<&String> = base
        .conditions
        .keys()
        .chain(cand.conditions.keys())
        .collect();
    keys.into_iter()
        .filter_map(|k| {
            let (b, c) = (base.conditions.get(k), cand.conditions.get(k));
            (b != c).then(|| {
                format!(
                    "{k} {} vs {}",
                    b.map_or("not stated", String::as_str),
                    c.map_or("not stated", String::as_str)
                )
            })
        })
        .collect()
}

/// The recorded file changed since it was recorded (a missing file is fine: the numbers are in
/// the record). Re-read like any benchmark file: regular, bounded, never blocking.
fn drift(root: &Path, which: &str, run: &PerfRun) -> Option<String> {
    if run.path.is_empty() || run.sha256.is_empty() {
        return None;
    }
    let p = Path::new(&run.path);
    let full = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    };
    match crate::safety::read_regular_bounded(&full, evidence::MAX_BENCHMARK_BYTES) {
        Ok(bytes) if sha256_hex(&bytes) != run.sha256 => Some(format!(
            "the {which} file {} changed since it was recorded: record it again (hipport record perf {which} {})",
            run.path, run.path
        )),
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => Some(format!(
            "the {which} file {} cannot be checked against the record ({e}): record it again",
            run.path
        )),
    }
}

/// The candidate's machine against the `[target]` tuple.
fn target_problems(r: &Record, cand: &PerfRun) -> Vec<String> {
    let t = &r.target;
    let m = &cand.machine;
    let mut out = Vec::new();
    if t.gfx.is_empty() && t.rocm.is_empty() {
        out.push("no [target] tuple recorded: nothing says the candidate ran on the production target (hipport record target)".into());
        return out;
    }
    if !t.gfx.is_empty() {
        if m.gfx.is_empty() {
            out.push(format!(
                "the candidate's GPU architecture is not recorded: cannot tell it ran on the target {} (record perf candidate … --gfx {})",
                t.gfx, t.gfx
            ));
        } else if !m.gfx.eq_ignore_ascii_case(&t.gfx) {
            out.push(format!(
                "candidate measured on {}, the target is {}: not the recorded target",
                m.gfx, t.gfx
            ));
        }
    }
    if !t.rocm.is_empty() {
        if m.rocm.is_empty() {
            out.push(format!(
                "the candidate's ROCm release is not recorded: cannot tell it ran on the target ROCm {} (record perf candidate … --rocm {})",
                t.rocm, t.rocm
            ));
        } else if m.rocm != t.rocm {
            out.push(format!(
                "candidate measured on ROCm {}, the target is ROCm {}: not the recorded target",
                m.rocm, t.rocm
            ));
        }
    }
    out
}

fn row(
    q: &Requirement,
    set_by: &str,
    r: &Record,
    base: Option<&PerfRun>,
    cand: &PerfRun,
) -> PerfRow {
    let unit = unit_of(&q.metric).to_string();
    let b = base.and_then(|b| lookup(&b.metrics, &q.metric));
    let c = lookup(&cand.metrics, &q.metric);
    let read_as = c
        .as_ref()
        .or(b.as_ref())
        .map(|(_, from)| from.clone())
        .filter(|from| *from != q.metric)
        .unwrap_or_default();
    let mut out = PerfRow {
        requirement: q.to_string(),
        set_by: set_by.to_string(),
        read_as,
        unit: unit.clone(),
        baseline: b.as_ref().map(|x| x.0),
        candidate: c.as_ref().map(|x| x.0),
        threshold: None,
        ratio: match (&b, &c) {
            (Some((bv, _)), Some((cv, _))) if *bv != 0.0 => Some(cv / bv),
            _ => None,
        },
        status: Status::Unknown,
        reason: String::new(),
    };
    let Some((cv, _)) = c else {
        out.reason = format!(
            "the candidate has no {} ({})",
            q.metric,
            near(&q.metric, cand)
        );
        return out;
    };
    let threshold = if q.relative {
        match (base, &b) {
            (None, _) => {
                out.reason = format!("{} is relative to the baseline, and no baseline run is recorded (hipport record perf baseline FILE)", q.metric);
                return out;
            }
            (Some(_), None) => {
                out.reason = format!("the baseline has no {}", q.metric);
                return out;
            }
            (Some(_), Some((bv, _))) => q.value * bv,
        }
    } else {
        q.value
    };
    out.threshold = Some(threshold);
    // A value that measured nothing cannot meet a requirement: with no baseline to compare the
    // run with, it must come from a run that completed work; a time is never exactly 0.
    let work = if base.is_none() {
        evidence::work_shown(cand, &q.metric, cv)
    } else if cv == 0.0 && evidence::is_time(&q.metric) {
        Err(format!(
            "the candidate's {} is 0: no time was measured",
            q.metric
        ))
    } else {
        Ok(())
    };
    if let Err(e) = work {
        out.reason = e;
        return out;
    }
    if q.is_scaling() {
        let need = r.production.gpus.max(1) * r.production.nodes.max(1);
        let had = cand.machine.gpus;
        if r.production.gpus == 0 {
            out.reason = "a scaling requirement, and [production] declares no GPU count".into();
            return out;
        }
        if had < need {
            out.reason = if had == 0 {
                format!("a scaling requirement: the candidate's GPU count is not recorded; production runs {need} (record perf candidate … --gpus N)")
            } else {
                format!("a scaling requirement measured on {had} GPU(s); production runs {need}: fewer GPUs than production")
            };
            return out;
        }
    }
    let base_note = match &b {
        Some((bv, _)) => format!("; baseline {}", show(*bv, &unit)),
        None => String::new(),
    };
    // Rounded for reading, unless rounding would make the two sides look equal.
    let (c_s, t_s) = match (show(cv, &unit), show(threshold, &unit)) {
        (c, t) if c == t => (exact(cv, &unit), exact(threshold, &unit)),
        pair => pair,
    };
    let shown = if q.relative {
        format!("{t_s} ({} x baseline)", q.value)
    } else {
        t_s
    };
    let (status, op) = if q.op.holds(cv, threshold) {
        (Status::Pass, q.op.as_str())
    } else {
        (Status::Remediation, q.op.missed())
    };
    out.status = status;
    out.reason = format!("{} {c_s} {op} {shown}{base_note}", q.metric);
    out
}

/// The workflow's critical unknowns among the table's problems and rows.
fn critical_unknowns(t: &PerfTable) -> Vec<String> {
    let mut out: Vec<String> = t
        .problems
        .iter()
        .filter(|p| p.ends_with("surrogate precision"))
        .map(|p| format!("surrogate precision in the performance run: {p}"))
        .collect();
    out.extend(
        t.rows
            .iter()
            .filter(|r| {
                r.status == Status::Unknown && r.reason.ends_with("fewer GPUs than production")
            })
            .map(|r| format!("fewer GPUs than production: {} {}", r.requirement, r.reason)),
    );
    out
}

/// The run's metric names that share a word with `metric` (`p99`, `ttft`), else its first names.
fn near(metric: &str, run: &PerfRun) -> String {
    let words = |m: &str| -> Vec<String> {
        m.to_ascii_lowercase()
            .split(['_', '.', '/', '-'])
            .filter(|w| w.len() > 1 && !matches!(*w, "ms" | "us" | "ns" | "per"))
            .map(str::to_string)
            .collect()
    };
    let want = words(metric);
    let mut scored: Vec<(usize, &String)> = run
        .metrics
        .keys()
        .map(|k| (words(k).iter().filter(|w| want.contains(w)).count(), k))
        .filter(|(n, _)| *n > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let (label, names): (&str, Vec<&String>) = if scored.is_empty() {
        ("it has", run.metrics.keys().take(6).collect())
    } else {
        ("closest", scored.iter().take(6).map(|(_, k)| *k).collect())
    };
    let more = if names.len() < run.metrics.len() {
        ", …"
    } else {
        ""
    };
    let list: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    format!("{label}: {}{more}", list.join(", "))
}

/// Derives the performance gate for the project at `root`.
pub fn performance(r: &Record, root: &Path) -> PerfGate {
    let base = r.perf.baseline.as_ref();
    let cand = r.perf.candidate.as_ref();
    let mut table = PerfTable {
        rows: Vec::new(),
        baseline: base.map(summary),
        candidate: cand.map(summary),
        problems: Vec::new(),
    };
    let evidence = [("candidate", cand), ("baseline", base)]
        .iter()
        .filter_map(|(w, run)| run.map(|run| format!("{w} {}", describe_file(run))))
        .collect::<Vec<_>>()
        .join(" vs ");
    let date = cand.or(base).map(|c| c.date.clone()).unwrap_or_default();
    let gate = |status, reason: String, open_items, table: PerfTable| PerfGate {
        status,
        reason,
        open_items,
        evidence: evidence.clone(),
        date: date.clone(),
        critical: critical_unknowns(&table),
        table,
    };
    let mut reqs = Vec::new();
    for q in &r.production.requirements {
        match parse_requirement(&q.require) {
            Ok(p) => reqs.push((p, q.set_by.clone())),
            Err(e) => table.problems.push(format!("requirement {e}")),
        }
    }
    if reqs.is_empty() && table.problems.is_empty() {
        return gate(
            Status::Unknown,
            "no performance requirement declared: hipport record production --require 'METRIC<=N' (or >=, or K*baseline)".into(),
            None,
            table,
        );
    }
    let Some(cand) = cand else {
        return gate(
            Status::Unknown,
            "no candidate run recorded: hipport record perf candidate FILE".into(),
            None,
            table,
        );
    };
    table.rows = reqs
        .iter()
        .map(|(q, by)| row(q, by, r, base, cand))
        .collect();
    let mut problems = std::mem::take(&mut table.problems);
    for (which, run) in [("candidate", Some(cand)), ("baseline", base)] {
        if let Some(d) = run.and_then(|run| drift(root, which, run)) {
            problems.push(d);
        }
    }
    for (which, run) in [("candidate", Some(cand)), ("baseline", base)] {
        if let Some(run) = run {
            problems.extend(evidence::run_problems(which, run));
        }
    }
    problems.extend(target_problems(r, cand));
    if let Some(b) = base {
        let diffs = differences(b, cand);
        if !diffs.is_empty() {
            problems.push(format!("not comparable: {}", diffs.join("; ")));
        } else if b.conditions.is_empty() {
            problems.push("no conditions recorded for either run: nothing shows they ran the same thing (record perf … --conditions model=… batch=… precision=…)".into());
        }
    }
    let want = r.production.precision.trim();
    if let Some(p) = cand.conditions.get("precision") {
        if !want.is_empty() && !p.eq_ignore_ascii_case(want) {
            problems.push(format!(
                "the candidate ran {p}, production runs {want}: surrogate precision"
            ));
        }
    }
    if !problems.is_empty() {
        table.problems.clone_from(&problems);
        return gate(Status::Unknown, problems.join("; "), None, table);
    }
    let missed: Vec<&PerfRow> = table
        .rows
        .iter()
        .filter(|x| x.status == Status::Remediation)
        .collect();
    let unknown: Vec<&PerfRow> = table
        .rows
        .iter()
        .filter(|x| x.status == Status::Unknown)
        .collect();
    if !missed.is_empty() {
        let mut reason = missed
            .iter()
            .map(|x| x.reason.clone())
            .collect::<Vec<_>>()
            .join("; ");
        if !unknown.is_empty() {
            reason.push_str(&format!(
                " ({} more requirement(s) not judged)",
                unknown.len()
            ));
        }
        let n = missed.len();
        return gate(Status::Remediation, reason, Some(n), table);
    }
    if !unknown.is_empty() {
        let reason = unknown
            .iter()
            .map(|x| x.reason.clone())
            .collect::<Vec<_>>()
            .join("; ");
        return gate(Status::Unknown, reason, None, table);
    }
    let n = table.rows.len();
    let on = if base.is_some() {
        "comparable runs"
    } else {
        "the candidate run"
    };
    gate(
        Status::Pass,
        format!(
            "{n} requirement(s) met on {on} ({})",
            cand.machine.describe()
        ),
        None,
        table,
    )
}

fn describe_file(run: &PerfRun) -> String {
    if run.sha256.len() >= 12 {
        format!("{} (sha256 {}…)", run.path, &run.sha256[..12])
    } else {
        run.path.clone()
    }
}

/// A display helper for renderers: `1.12x` or `-`.
pub fn ratio(r: Option<f64>) -> String {
    r.map_or("-".into(), |x| {
        format!("{}x", perf::num((x * 100.0).round() / 100.0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::perf::{Machine, Perf, RequirementRow};

    fn run(conds: &[(&str, &str)], metrics: &[(&str, f64)]) -> PerfRun {
        PerfRun {
            path: "r.json".into(),
            format: "plain-json".into(),
            conditions: conds
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Default::default()
        }
    }

    fn candidate(conds: &[(&str, &str)], metrics: &[(&str, f64)]) -> PerfRun {
        PerfRun {
            machine: Machine {
                gfx: "gfx942".into(),
                rocm: "6.4.1".into(),
                gpus: 1,
                ..Default::default()
            },
            ..run(conds, metrics)
        }
    }

    fn record(reqs: &[&str], base: Option<PerfRun>, cand: Option<PerfRun>) -> Record {
        let mut r = Record::new("t");
        r.target.gfx = "gfx942".into();
        r.target.rocm = "6.4.1".into();
        r.production.precision = "BF16".into();
        r.production.gpus = 1;
        r.production.nodes = 1;
        r.production.requirements = reqs
            .iter()
            .map(|q| RequirementRow {
                require: q.to_string(),
                set_by: "lead".into(),
                date: String::new(),
            })
            .collect();
        r.perf = Perf {
            baseline: base,
            candidate: cand,
            ..Default::default()
        };
        r
    }

    fn judge(r: &Record) -> PerfGate {
        performance(r, Path::new("/nonexistent"))
    }

    const C: &[(&str, &str)] = &[("batch", "8"), ("precision", "BF16")];

    #[test]
    fn comparable_runs_meeting_every_requirement_pass_with_ratio_for_information() {
        let r = record(
            &["p99_latency_ms<=250", "tokens_per_s>=0.9*baseline"],
            Some(run(
                C,
                &[("p99_latency_ms", 201.0), ("tokens_per_s", 2000.0)],
            )),
            Some(candidate(
                C,
                &[("p99_latency_ms", 240.0), ("tokens_per_s", 1850.0)],
            )),
        );
        let g = judge(&r);
        assert_eq!(g.status, Status::Pass, "{}", g.reason);
        assert!(
            g.reason.contains("2 requirement(s) met on comparable runs"),
            "{}",
            g.reason
        );
        let row = &g.table.rows[0];
        assert_eq!((row.baseline, row.candidate), (Some(201.0), Some(240.0)));
        assert!((row.ratio.unwrap() - 240.0 / 201.0).abs() < 1e-9);
        assert_eq!(g.table.rows[1].threshold, Some(1800.0));
    }

    #[test]
    fn a_missed_requirement_is_remediation_with_the_numbers() {
        let r = record(
            &["p99_latency_ms<=250", "tokens_per_s>=1500"],
            Some(run(
                C,
                &[("p99_latency_ms", 201.0), ("tokens_per_s", 1700.0)],
            )),
            Some(candidate(
                C,
                &[("p99_latency_ms", 312.0), ("tokens_per_s", 1600.0)],
            )),
        );
        let g = judge(&r);
        assert_eq!((g.status, g.open_items), (Status::Remediation, Some(1)));
        assert_eq!(g.reason, "p99_latency_ms 312 ms > 250 ms; baseline 201 ms");
        let r = record(
            &["p99_latency_ms<=250"],
            None,
            Some(candidate(C, &[("p99_latency_ms", 250.04)])),
        );
        assert_eq!(judge(&r).reason, "p99_latency_ms 250.04 ms > 250 ms");
        let r = record(
            &["step_time_s<=1.1*baseline"],
            Some(run(C, &[("step_time_s", 1.0)])),
            Some(candidate(C, &[("step_time_s", 1.25)])),
        );
        let g = judge(&r);
        assert_eq!(g.status, Status::Remediation);
        assert!(
            g.reason
                .contains("step_time_s 1.25 s > 1.1 s (1.1 x baseline); baseline 1 s"),
            "{}",
            g.reason
        );
    }

    #[test]
    fn differing_or_one_sided_conditions_are_not_comparable() {
        let m = &[("p99_latency_ms", 100.0)];
        let r = record(
            &["p99_latency_ms<=250"],
            Some(run(&[("batch", "8"), ("precision", "BF16")], m)),
            Some(candidate(
                &[
                    ("batch", "16"),
                    ("precision", "BF16"),
                    ("concurrency", "64"),
                ],
                m,
            )),
        );
        let g = judge(&r);
        assert_eq!(g.status, Status::Unknown);
        assert_eq!(
            g.reason,
            "not comparable: batch 8 vs 16; concurrency not stated vs 64"
        );
        let r = record(
            &["p99_latency_ms<=250"],
            Some(run(&[], m)),
            Some(candidate(&[], m)),
        );
        assert!(judge(&r)
            .reason
            .contains("no conditions recorded for either run"));
    }

    #[test]
    fn a_candidate_off_target_or_at_a_surrogate_precision_is_unknown() {
        let m = &[("p99_latency_ms", 100.0)];
        let mut c = candidate(C, m);
        c.machine.gfx = "gfx90a".into();
        let g = judge(&record(&["p99_latency_ms<=250"], None, Some(c.clone())));
        assert_eq!(g.status, Status::Unknown);
        assert!(
            g.reason
                .contains("candidate measured on gfx90a, the target is gfx942"),
            "{}",
            g.reason
        );
        c.machine.gfx.clear();
        c.machine.rocm = "6.3.0".into();
        let g = judge(&record(&["p99_latency_ms<=250"], None, Some(c)));
        assert!(
            g.reason.contains("architecture is not recorded"),
            "{}",
            g.reason
        );
        assert!(
            g.reason.contains("ROCm 6.3.0, the target is ROCm 6.4.1"),
            "{}",
            g.reason
        );
        let c = candidate(&[("precision", "FP16")], m);
        let g = judge(&record(&["p99_latency_ms<=250"], None, Some(c)));
        assert!(
            g.reason
                .contains("the candidate ran FP16, production runs BF16"),
            "{}",
            g.reason
        );
        assert!(
            g.critical[0].starts_with("surrogate precision in the performance run"),
            "{:?}",
            g.critical
        );
        let mut r = record(&["p99_latency_ms<=250"], None, Some(candidate(C, m)));
        r.target = Default::default();
        assert!(judge(&r).reason.contains("no [target] tuple recorded"));
    }

    #[test]
    fn missing_pieces_leave_the_gate_unknown_never_blocker() {
        let m = &[("p99_latency_ms", 100.0)];
        let g = judge(&record(&[], None, Some(candidate(C, m))));
        assert!(g.reason.starts_with("no performance requirement declared"));
        let g = judge(&record(&["p99_latency_ms<=250"], Some(run(C, m)), None));
        assert!(g.reason.starts_with("no candidate run recorded"));
        let g = judge(&record(
            &["tokens_per_s>=1500"],
            None,
            Some(candidate(C, m)),
        ));
        assert_eq!(g.status, Status::Unknown);
        assert!(
            g.reason
                .contains("the candidate has no tokens_per_s (it has: p99_latency_ms)"),
            "{}",
            g.reason
        );
        let c = candidate(
            C,
            &[
                ("mean_ttft_ms", 50.0),
                ("p99_ttft_ms", 90.0),
                ("p99_itl_ms", 9.0),
                ("duration", 3.0),
            ],
        );
        let g = judge(&record(&["ttft_p99_ms<=100"], None, Some(c)));
        assert!(
            g.reason
                .ends_with("(closest: p99_ttft_ms, mean_ttft_ms, p99_itl_ms, …)"),
            "{}",
            g.reason
        );
        let g = judge(&record(
            &["p99_latency_ms<=baseline"],
            None,
            Some(candidate(C, m)),
        ));
        assert!(
            g.reason.contains("no baseline run is recorded"),
            "{}",
            g.reason
        );
        // One requirement met, one not judged: UNKNOWN, not PASS.
        let g = judge(&record(
            &["p99_latency_ms<=250", "tokens_per_s>=1500"],
            None,
            Some(candidate(C, m)),
        ));
        assert_eq!(g.status, Status::Unknown);
        assert_eq!(g.table.rows[0].status, Status::Pass);
    }

    #[test]
    fn scaling_requirements_need_the_production_gpu_count() {
        let m = &[("scaling_efficiency", 0.95), ("step_time_s", 0.9)];
        let mut r = record(
            &["scaling_efficiency>=0.9", "step_time_s<=1"],
            None,
            Some(candidate(C, m)),
        );
        r.production.gpus = 8;
        let g = judge(&r);
        assert_eq!(g.status, Status::Unknown);
        assert!(
            g.reason.contains("measured on 1 GPU(s); production runs 8"),
            "{}",
            g.reason
        );
        assert_eq!(g.critical.len(), 1);
        assert!(
            g.critical[0].starts_with("fewer GPUs than production: scaling_efficiency>=0.9"),
            "{:?}",
            g.critical
        );
        assert_eq!(g.table.rows[1].status, Status::Pass);
        r.perf.candidate.as_mut().unwrap().machine.gpus = 8;
        assert_eq!(judge(&r).status, Status::Pass);
    }

    #[test]
    fn a_changed_result_file_is_unknown() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("r.json"), "{}").unwrap();
        let mut c = candidate(C, &[("p99_latency_ms", 100.0)]);
        c.sha256 = "0".repeat(64);
        let r = record(&["p99_latency_ms<=250"], None, Some(c));
        let g = performance(&r, d.path());
        assert!(
            g.reason.contains("changed since it was recorded"),
            "{}",
            g.reason
        );
    }

    #[test]
    fn the_record_round_trips_requirements_and_runs() {
        let mut r = record(
            &["tokens_per_s>=1500", "step_time_s<=1.1*baseline"],
            Some(run(C, &[("BM_Gemm<float>/4096.real_time_us", 1210.5)])),
            Some(candidate(C, &[("tokens_per_s", 1600.0)])),
        );
        r.perf.candidate.as_mut().unwrap().notes.push("x".into());
        let text = toml::to_string_pretty(&r).unwrap();
        assert!(text.contains("[[production.requirements]]"), "{text}");
        assert_eq!(Record::parse(&text).unwrap(), r);
        let bad = text.replace("tokens_per_s>=1500", "tokens_per_s=1500");
        assert!(Record::parse(&bad).unwrap_err().contains("equality"));
    }
}
