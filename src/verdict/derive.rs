//! The functional, precision and distributed gates, derived from the `[[test]]` matrix against
//! `[production]`. The workflow's rules hold here: model load PASS is not workload PASS, a
//! surrogate precision is not the production precision, and single GPU PASS is not distributed
//! PASS — each leaves its gate UNKNOWN, saying why.

use crate::gate::Status;
use crate::record::{InputClass, Record, TestRow};

/// A derived gate: status, reason, open items, and a critical unknown when the workflow names one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derived {
    pub status: Status,
    pub reason: String,
    pub open_items: Option<usize>,
    pub critical: Option<String>,
}

fn derived(status: Status, reason: impl Into<String>) -> Derived {
    Derived {
        status,
        reason: reason.into(),
        open_items: None,
        critical: None,
    }
}

fn workload_pass(t: &TestRow) -> bool {
    t.status == Status::Pass && t.input_class != InputClass::Smoke
}

/// Failing rows among `rows`: BLOCKER (with the first note) or REMEDIATION with the count.
fn failures<'a>(rows: impl Iterator<Item = &'a TestRow> + Clone) -> Option<Derived> {
    if let Some(b) = rows.clone().find(|t| t.status == Status::Blocker) {
        return Some(derived(
            Status::Blocker,
            format!("{}: {}", b.workload, b.note),
        ));
    }
    let failed = rows.filter(|t| t.status == Status::Remediation).count();
    (failed > 0).then(|| Derived {
        open_items: Some(failed),
        ..derived(
            Status::Remediation,
            format!("{failed} failing test(s) to fix"),
        )
    })
}

pub fn functional(r: &Record) -> Derived {
    if r.tests.is_empty() {
        return derived(
            Status::Unknown,
            "not tested: no [[test]] rows — fill with `hipport record test`",
        );
    }
    if let Some(f) = failures(r.tests.iter()) {
        return f;
    }
    let not_run = r
        .tests
        .iter()
        .filter(|t| t.status == Status::Unknown)
        .count();
    if not_run > 0 {
        return derived(
            Status::Unknown,
            format!("{not_run} test(s) recorded UNKNOWN (not run) — record the result with `hipport record test`"),
        );
    }
    let passing: Vec<&TestRow> = r.tests.iter().filter(|t| workload_pass(t)).collect();
    if passing.is_empty() {
        return derived(
            Status::Unknown,
            "only smoke tests passed: model load PASS is not workload PASS — add representative or boundary tests with `hipport record test --input-class representative`",
        );
    }
    let engine = r.production.engine.trim();
    if !engine.is_empty()
        && !passing
            .iter()
            .any(|t| t.engine.eq_ignore_ascii_case(engine))
    {
        return Derived {
            critical: Some(format!(
                "serving engine untested: no passing representative test on {engine}"
            )),
            ..derived(
                Status::Unknown,
                format!("no passing representative test on the production engine {engine} — fill with `hipport record test --engine {engine}`"),
            )
        };
    }
    let boundary = passing
        .iter()
        .filter(|t| t.input_class == InputClass::Boundary)
        .count();
    derived(
        Status::Pass,
        format!(
            "{} representative/boundary test(s) PASS ({boundary} boundary)",
            passing.len()
        ),
    )
}

pub fn precision(r: &Record) -> Derived {
    let want = r.production.precision.trim();
    if want.is_empty() {
        return derived(
            Status::Unknown,
            "production precision not declared — fill with `hipport record production --precision P`",
        );
    }
    let at: Vec<&TestRow> = r
        .tests
        .iter()
        .filter(|t| t.precision.eq_ignore_ascii_case(want))
        .collect();
    if let Some(f) = failures(at.iter().copied()) {
        return f;
    }
    if at.iter().any(|t| workload_pass(t)) {
        return derived(
            Status::Pass,
            format!("representative test(s) PASS at {want}"),
        );
    }
    let mut others: Vec<&str> = r
        .tests
        .iter()
        .filter(|t| workload_pass(t) && !t.precision.eq_ignore_ascii_case(want))
        .map(|t| t.precision.as_str())
        .collect();
    others.sort();
    others.dedup();
    if others.is_empty() {
        return derived(
            Status::Unknown,
            format!("not tested at the production precision {want} — fill with `hipport record test --precision {want}`"),
        );
    }
    let why = format!(
        "surrogate precision: tested {}, production runs {want}",
        others.join(", ")
    );
    Derived {
        critical: Some(why.clone()),
        ..derived(Status::Unknown, why)
    }
}

pub fn distributed(r: &Record) -> Derived {
    let p = &r.production;
    if p.gpus == 0 {
        return derived(
            Status::Unknown,
            "production GPU count not declared — fill with `hipport record production --gpus N`",
        );
    }
    let nodes = p.nodes.max(1);
    if p.gpus == 1 && nodes == 1 {
        return derived(
            Status::Pass,
            "production runs on one GPU: nothing distributed to test",
        );
    }
    let full: Vec<&TestRow> = r
        .tests
        .iter()
        .filter(|t| t.gpus >= p.gpus && t.nodes >= nodes)
        .collect();
    if let Some(f) = failures(full.iter().copied()) {
        return f;
    }
    if full.iter().any(|t| workload_pass(t)) {
        return derived(
            Status::Pass,
            format!("passing test(s) on {} GPU(s) x {nodes} node(s)", p.gpus),
        );
    }
    let (g, n) = r
        .tests
        .iter()
        .filter(|t| t.status == Status::Pass)
        .map(|t| (t.gpus, t.nodes))
        .max()
        .unwrap_or((0, 0));
    let why = if g == 0 {
        format!(
            "not tested: production needs {} GPU(s) x {nodes} node(s) — fill with `hipport record test --gpus {} --nodes {nodes}`",
            p.gpus, p.gpus
        )
    } else if g == 1 && n <= 1 {
        format!(
            "single GPU PASS is not distributed PASS: production needs {} GPU(s) x {nodes} node(s)",
            p.gpus
        )
    } else {
        format!("fewer GPUs tested than production needs: tested {g} x {n}, production needs {} x {nodes}", p.gpus)
    };
    Derived {
        critical: (g > 0).then(|| why.clone()),
        ..derived(Status::Unknown, why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Evidence, Production};

    fn test(class: InputClass, precision: &str, gpus: u32, status: Status) -> TestRow {
        TestRow {
            workload: "chat".into(),
            input_class: class,
            dimension: String::new(),
            precision: precision.into(),
            gpus,
            nodes: 1,
            engine: "vllm".into(),
            attention_backend: String::new(),
            status,
            evidence: Evidence::default(),
            date: String::new(),
            recorded_by: String::new(),
            note: String::new(),
        }
    }

    fn record(tests: Vec<TestRow>) -> Record {
        Record {
            production: Production {
                precision: "FP8".into(),
                gpus: 8,
                nodes: 1,
                engine: "vllm".into(),
                ..Default::default()
            },
            tests,
            ..Record::new("t")
        }
    }

    #[test]
    fn smoke_only_matrix_is_unknown() {
        let r = record(vec![test(InputClass::Smoke, "FP8", 8, Status::Pass)]);
        let f = functional(&r);
        assert_eq!(f.status, Status::Unknown);
        assert!(f.reason.contains("model load PASS is not workload PASS"));
    }

    #[test]
    fn surrogate_precision_and_single_gpu_are_unknown() {
        let r = record(vec![test(
            InputClass::Representative,
            "BF16",
            1,
            Status::Pass,
        )]);
        assert_eq!(functional(&r).status, Status::Pass);
        let p = precision(&r);
        assert_eq!(p.status, Status::Unknown);
        assert!(p.critical.unwrap().contains("surrogate precision"));
        let d = distributed(&r);
        assert_eq!(d.status, Status::Unknown);
        assert!(d.reason.contains("single GPU PASS is not distributed PASS"));
    }

    #[test]
    fn full_matrix_passes_and_failures_count() {
        let r = record(vec![test(InputClass::Boundary, "FP8", 8, Status::Pass)]);
        assert_eq!(functional(&r).status, Status::Pass);
        assert_eq!(precision(&r).status, Status::Pass);
        assert_eq!(distributed(&r).status, Status::Pass);
        let r = record(vec![
            test(InputClass::Boundary, "FP8", 8, Status::Pass),
            test(InputClass::Boundary, "FP8", 8, Status::Remediation),
        ]);
        let f = functional(&r);
        assert_eq!((f.status, f.open_items), (Status::Remediation, Some(1)));
    }

    #[test]
    fn untested_engine_is_a_critical_unknown() {
        let mut t = test(InputClass::Representative, "FP8", 8, Status::Pass);
        t.engine = "hf".into();
        let f = functional(&record(vec![t]));
        assert_eq!(f.status, Status::Unknown);
        assert!(f.critical.unwrap().contains("serving engine untested"));
    }
}
