//! The performance gate through the binary: requirements set with `record production --require`,
//! two benchmark files recorded with `record perf`, and what `hipport gate` derives — PASS for a
//! comparable candidate that meets every requirement, UNKNOWN naming a differing condition or
//! machine, REMEDIATION with the numbers — while the verdict stays NOT READY.

#[path = "common/tuple.rs"]
mod tuple;
use std::path::Path;
use std::process::{Command, Output};

fn hipport(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(args)
        .current_dir(dir)
        .env("HIPPORT_USER", "perf-lead")
        .output()
        .expect("run hipport")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let o = hipport(dir, args);
    assert!(o.status.success(), "{args:?}: {}", text(&o));
    text(&o)
}

/// A project with a target tuple (MI300X, ROCm 6.4.1), BF16 production on one GPU with three
/// requirements, the testdata files copied in and the CUDA baseline recorded.
fn project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/perf");
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), d.path().join(e.file_name())).unwrap();
    }
    std::fs::write(
        d.path().join("k.cu"),
        "__global__ void k(float* x) { x[0] = 1.0f; }\n",
    )
    .unwrap();
    ok(d.path(), &["record", "init"]);
    ok(d.path(), tuple::MI300X_TARGET);
    let out = ok(
        d.path(),
        &[
            "record",
            "production",
            "--precision",
            "bf16",
            "--gpus",
            "1",
            "--require",
            "tokens_per_s>=18000",
            "--require",
            "p99_ttft_ms<=250",
            "--require",
            "p99_latency_ms<=1.1*baseline",
        ],
    );
    assert!(
        out.contains("requires p99_ttft_ms<=250 (set by perf-lead)"),
        "{out}"
    );
    ok(
        d.path(),
        &[
            "record",
            "perf",
            "baseline",
            "vllm_serving_cuda_a100.json",
            "--no-probe",
            "--cuda",
            "12.4",
            "--gpus",
            "1",
        ],
    );
    d
}

fn candidate(d: &Path, file: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "record",
        "perf",
        "candidate",
        file,
        "--no-probe",
        "--gpu",
        "Instinct MI300X:gfx942",
        "--rocm",
        "6.4.1",
        "--gpus",
        "1",
    ];
    args.extend_from_slice(extra);
    ok(d, &args)
}

fn gate_json(d: &Path) -> serde_json::Value {
    let o = hipport(d, &["gate", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "performance")
        .unwrap()
        .clone()
}

#[test]
fn a_comparable_candidate_meeting_every_requirement_passes_and_the_verdict_stays_not_ready() {
    let d = project();
    let out = candidate(d.path(), "vllm_serving_rocm_mi300x.json", &[]);
    assert!(
        out.contains("concurrency=64") && out.contains("precision=BF16"),
        "{out}"
    );
    let o = hipport(d.path(), &["gate"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("performance  PASS"), "{t}");
    assert!(t.contains("3 requirement(s) met on comparable runs"), "{t}");
    assert!(
        t.contains("p99_ttft_ms 188.6 ms <= 250 ms; baseline 201 ms"),
        "{t}"
    );
    assert!(
        t.contains("tokens_per_s>=18000 [total_token_throughput]"),
        "{t}"
    );
    assert!(t.contains("0.94x"), "the ratio is shown: {t}");
    assert!(
        t.contains("VERDICT: NOT READY") && t.contains("  - functional: not tested"),
        "{t}"
    );
    let p = gate_json(d.path());
    assert_eq!(p["status"], "PASS");
    assert_eq!(p["source"], "benchmarks");
    let rows = p["perf"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1]["requirement"], "p99_ttft_ms<=250");
    assert_eq!(rows[1]["candidate"], 188.6);
    assert_eq!(rows[1]["baseline"], 201.0);
    assert_eq!(rows[1]["set_by"], "perf-lead");
    assert_eq!(
        p["perf"]["candidate"]["conditions"]["model"],
        "meta-llama/Llama-3.1-8B-Instruct"
    );
    let html = hipport(d.path(), &["report", ".", "-o", "-"]);
    let page = String::from_utf8_lossy(&html.stdout);
    assert!(
        page.contains("<h3 id=\"perf-h\">Performance: the requirement is the gate</h3>"),
        "{}",
        text(&html)
    );
    assert!(
        page.contains("<code>p99_ttft_ms&lt;=250</code>"),
        "escaped requirement"
    );
    assert!(
        page.contains("<td>201 ms</td><td>188.6 ms</td><td>0.94x</td>"),
        "metric row"
    );
    let md = text(&hipport(d.path(), &["gate", "--format", "markdown"]));
    assert!(md.contains("### Performance"), "{md}");
    assert!(
        md.contains("| `p99_ttft_ms<=250` | 201 ms | 188.6 ms | 0.94x | **PASS** |"),
        "{md}"
    );
}

#[test]
fn a_candidate_missing_a_threshold_is_remediation_with_the_numbers() {
    let d = project();
    candidate(d.path(), "vllm_serving_rocm_mi300x_slow.json", &[]);
    let p = gate_json(d.path());
    assert_eq!(p["status"], "REMEDIATION");
    assert_eq!(p["open_items"], 1);
    assert_eq!(
        p["reason"],
        "p99_ttft_ms 312.4 ms > 250 ms; baseline 201 ms"
    );
    let t = text(&hipport(d.path(), &["gate"]));
    assert!(
        t.contains("performance: REMEDIATION, 1 open item(s) — p99_ttft_ms 312.4 ms > 250 ms"),
        "{t}"
    );
}

#[test]
fn a_candidate_at_another_batch_or_precision_is_unknown_naming_it() {
    let d = project();
    ok(
        d.path(),
        &[
            "record",
            "perf",
            "baseline",
            "vllm_serving_cuda_a100.json",
            "--no-probe",
            "--conditions",
            "batch=8",
        ],
    );
    candidate(
        d.path(),
        "vllm_serving_rocm_mi300x.json",
        &["--conditions", "batch=16"],
    );
    let p = gate_json(d.path());
    assert_eq!(p["status"], "UNKNOWN");
    assert_eq!(p["reason"], "not comparable: batch 8 vs 16");
    let d = project();
    candidate(d.path(), "vllm_serving_rocm_mi300x_fp16.json", &[]);
    let p = gate_json(d.path());
    assert_eq!(p["status"], "UNKNOWN");
    let why = p["reason"].as_str().unwrap();
    assert!(
        why.contains("not comparable: precision BF16 vs FP16"),
        "{why}"
    );
    assert!(
        why.contains("the candidate ran FP16, production runs BF16"),
        "{why}"
    );
    assert_eq!(p["perf"]["problems"].as_array().unwrap().len(), 2);
}

#[test]
fn a_candidate_measured_off_the_target_is_unknown() {
    let d = project();
    ok(
        d.path(),
        &[
            "record",
            "perf",
            "candidate",
            "vllm_serving_rocm_mi300x.json",
            "--no-probe",
            "--gfx",
            "gfx90a",
            "--rocm",
            "6.4.1",
        ],
    );
    let p = gate_json(d.path());
    assert_eq!(p["status"], "UNKNOWN");
    assert!(p["reason"]
        .as_str()
        .unwrap()
        .contains("candidate measured on gfx90a, the target is gfx942"));
}

#[test]
fn a_scaling_requirement_on_fewer_gpus_than_production_is_unknown() {
    let d = project();
    ok(
        d.path(),
        &[
            "record",
            "production",
            "--gpus",
            "8",
            "--clear-requirements",
            "--require",
            "scaling_efficiency>=0.9",
            "--require",
            "step_time_s<=1.1*baseline",
        ],
    );
    ok(
        d.path(),
        &[
            "record",
            "perf",
            "baseline",
            "plain_baseline.csv",
            "--no-probe",
        ],
    );
    ok(
        d.path(),
        &[
            "record",
            "perf",
            "candidate",
            "plain_candidate.json",
            "--no-probe",
        ],
    );
    let p = gate_json(d.path());
    assert_eq!(p["status"], "UNKNOWN", "{p}");
    let rows = p["perf"]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["status"], "UNKNOWN");
    assert!(rows[0]["reason"]
        .as_str()
        .unwrap()
        .contains("measured on 1 GPU(s); production runs 8"));
    let t = text(&hipport(d.path(), &["gate"]));
    assert!(
        t.contains("Critical unknowns:\n")
            && t.contains("  - fewer GPUs than production: scaling_efficiency>=0.9"),
        "{t}"
    );
    assert_eq!(rows[1]["status"], "PASS", "{}", rows[1]);
    assert!(
        (rows[1]["threshold"].as_f64().unwrap() - 0.9922).abs() < 1e-9,
        "{}",
        rows[1]
    );
}

#[test]
fn bad_requirements_are_refused_and_leave_the_record_alone() {
    let d = project();
    let before = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    for (bad, why) in [
        (
            "tokens_per_s==1500",
            "equality is not a performance requirement",
        ),
        ("p99_latency_ms<=250ms", "is not a number"),
        (
            "step_time_s<=1.1*basline",
            "neither a number nor K*baseline",
        ),
        ("tokens_per_s", "no comparison"),
    ] {
        let o = hipport(d.path(), &["record", "production", "--require", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        assert!(text(&o).contains(why), "{bad}: {}", text(&o));
    }
    let o = hipport(d.path(), &["record", "production"]);
    assert_eq!(o.status.code(), Some(2));
    let after = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    assert_eq!(before, after);
    // A slip in direction is said, not refused.
    let o = hipport(
        d.path(),
        &[
            "record",
            "production",
            "--require",
            "tokens_per_s<=1500",
            "--require",
            "p99_ttft_ms>=250",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("tokens_per_s is a rate (higher is better)"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("p99_ttft_ms is a time (lower is better)"),
        "{}",
        text(&o)
    );
    let before = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    let o = hipport(
        d.path(),
        &["record", "perf", "candidate", "missing.json", "--no-probe"],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = hipport(
        d.path(),
        &["record", "perf", "candidate", "k.cu", "--no-probe"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let after = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    assert_eq!(before, after);
}

#[test]
fn a_requirement_on_the_same_metric_replaces_the_old_one_and_the_record_round_trips() {
    let d = project();
    ok(
        d.path(),
        &["record", "production", "--require", "p99_ttft_ms<=300"],
    );
    let rec = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    assert!(rec.contains("require = \"p99_ttft_ms<=300\""), "{rec}");
    assert!(!rec.contains("p99_ttft_ms<=250"), "{rec}");
    assert!(
        rec.contains("precision = \"BF16\""),
        "production kept: {rec}"
    );
    assert!(
        rec.contains("[perf.baseline.metrics]") && rec.contains("p99_ttft_ms = 201.0"),
        "{rec}"
    );
    let parsed = hipport::record::Record::parse(&rec).unwrap();
    assert_eq!(parsed.production.requirements.len(), 3);
    assert_eq!(parsed.perf.baseline.unwrap().machine.cuda, "12.4");
    // Editing the recorded file afterwards makes the evidence stale.
    candidate(d.path(), "vllm_serving_rocm_mi300x.json", &[]);
    std::fs::write(d.path().join("vllm_serving_rocm_mi300x.json"), "{}").unwrap();
    let p = gate_json(d.path());
    assert_eq!(p["status"], "UNKNOWN");
    assert!(p["reason"]
        .as_str()
        .unwrap()
        .contains("changed since it was recorded"));
}

#[test]
fn each_format_records_through_the_binary() {
    let d = project();
    for (file, format) in [
        ("google_benchmark_cuda.json", "google-benchmark"),
        ("pytest_benchmark_cuda.json", "pytest-benchmark"),
        ("vllm_throughput_cuda_a100.json", "vllm-throughput"),
        ("torch_benchmark_rocm.csv", "torch-csv"),
        ("plain_baseline.csv", "plain-csv"),
    ] {
        let out = ok(
            d.path(),
            &["record", "perf", "baseline", file, "--no-probe"],
        );
        assert!(out.contains(&format!("({format})")), "{file}: {out}");
    }
    // The probe of this host answers without a GPU; what it cannot tell stays empty.
    ok(
        d.path(),
        &[
            "record",
            "perf",
            "candidate",
            "vllm_throughput_rocm_mi300x.json",
            "--conditions",
            "model=llama",
            "batch=8",
        ],
    );
    let rec = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    let r = hipport::record::Record::parse(&rec).unwrap();
    let c = r.perf.candidate.unwrap();
    assert_eq!(c.conditions["batch"], "8");
    assert_eq!(c.conditions["model"], "llama");
    assert_eq!(c.format, "vllm-throughput");
}
