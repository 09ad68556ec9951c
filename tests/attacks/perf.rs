//! Issue 23 items 3 and 4 replayed against the binary: performance evidence that is not real
//! (a vLLM run that completed nothing, negative or non-finite values in every format and typed
//! into the record, a duplicated JSON key) never reads as PASS, and every benchmark or compare
//! input is read bounded (`/dev/zero`, a FIFO, a file past the limit: exit 2 at once).

#[allow(unused_imports)]
use super::*;

const LIMIT: Duration = Duration::from_secs(20);

/// A project with a target, one absolute requirement and no baseline run.
fn perf_project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join(".git")).unwrap();
    write(
        &r.join("k.cu"),
        "__global__ void k(float *x) { x[0] = 1.0f; }\n",
    );
    for args in [
        vec!["record", "init"],
        tuple::MI300X_TARGET.to_vec(),
        vec![
            "record",
            "production",
            "--precision",
            "bf16",
            "--gpus",
            "1",
            "--require",
            "p99_ttft_ms<=250",
        ],
    ] {
        let o = hipport(r, &args);
        assert_eq!(o.code, Some(0), "{args:?}: {}", o.text());
    }
    d
}

const MACHINE: &[&str] = &[
    "--no-probe",
    "--gpu",
    "Instinct MI300X:gfx942",
    "--rocm",
    "6.4.1",
    "--gpus",
    "1",
];

/// `record perf candidate FILE` on the target machine, within [`LIMIT`].
fn record_candidate(dir: &Path, file: &str) -> Run {
    let mut args = vec!["record", "perf", "candidate", file];
    args.extend_from_slice(MACHINE);
    run_limited(dir, &args, LIMIT)
}

/// The performance gate as `gate --format json` reports it.
fn performance(dir: &Path) -> serde_json::Value {
    let o = run_limited(dir, &["gate", "--format", "json"], LIMIT);
    assert_eq!(o.code, Some(1), "{}", o.text());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "performance")
        .unwrap()
        .clone()
}

/// A file refused by `record perf`: exit 2 naming the file and `field`, the record untouched.
fn refused(dir: &Path, file: &str, body: &str, field: &str) {
    write(&dir.join(file), body);
    let before = std::fs::read(dir.join("hipport-migration.toml")).unwrap();
    let o = record_candidate(dir, file);
    assert_eq!(o.code, Some(2), "{file}: {}", o.text());
    assert!(
        o.stderr.contains(file) && o.stderr.contains(&format!("`{field}`")),
        "{file} must be named with `{field}`: {}",
        o.text()
    );
    assert!(!o.stdout.contains("PASS"), "{}", o.text());
    let after = std::fs::read(dir.join("hipport-migration.toml")).unwrap();
    assert_eq!(before, after, "{file}: the record changed");
}

/// Appends a hand-typed candidate run to the record (TOML accepts `inf`, `-inf` and `nan`).
fn type_candidate(dir: &Path, format: &str, conditions: &str, metrics: &str) {
    let p = dir.join("hipport-migration.toml");
    let mut rec = std::fs::read_to_string(&p).unwrap();
    rec.push_str(&format!(
        "\n[perf.candidate]\npath = \"typed.json\"\nformat = \"{format}\"\n\n\
         [perf.candidate.conditions]\n{conditions}\n\n\
         [perf.candidate.machine]\ngpu = \"Instinct MI300X\"\ngfx = \"gfx942\"\ngpus = 1\nrocm = \"6.4.1\"\n\n\
         [perf.candidate.metrics]\n{metrics}\n"
    ));
    std::fs::write(&p, rec).unwrap();
}

#[test]
fn a_vllm_run_that_completed_no_request_is_never_a_pass() {
    let d = perf_project();
    let r = d.path();
    // The issue's file: every request failed, vLLM wrote latencies of 0.
    refused(
        r,
        "failed.json",
        r#"{"backend": "vllm", "model_id": "m", "num_prompts": 100, "completed": 0, "failed": 100,
            "duration": 1.0, "request_throughput": 0.0, "output_throughput": 0.0,
            "total_token_throughput": 0.0, "mean_ttft_ms": 0.0, "median_ttft_ms": 0.0,
            "p99_ttft_ms": 0.0, "mean_e2el_ms": 0.0, "p99_e2el_ms": 0.0}"#,
        "completed",
    );
    // The same numbers typed into the record: UNKNOWN naming the count, not PASS.
    type_candidate(
        r,
        "vllm-serving",
        "completed_requests = \"0\"\nfailed_requests = \"100\"",
        "p99_ttft_ms = 0.0\nrequest_throughput = 0.0",
    );
    let p = performance(r);
    assert_eq!(p["status"], "UNKNOWN", "{p}");
    let reason = p["reason"].as_str().unwrap();
    assert!(
        reason.contains("completed no request (completed_requests = 0)"),
        "{reason}"
    );
}

#[test]
fn a_requirement_without_a_baseline_passes_only_on_a_run_that_did_work() {
    let d = perf_project();
    let r = d.path();
    // A vLLM serving run that does not say how many requests completed.
    type_candidate(r, "vllm-serving", "", "p99_ttft_ms = 12.0");
    let p = performance(r);
    assert_eq!(p["status"], "UNKNOWN", "{p}");
    assert!(
        p["reason"]
            .as_str()
            .unwrap()
            .contains("does not say how many requests completed"),
        "{p}"
    );
    // A latency of exactly 0 was not measured, whatever the format.
    let d = perf_project();
    type_candidate(d.path(), "plain-json", "", "p99_ttft_ms = 0.0");
    let p = performance(d.path());
    assert_eq!(p["status"], "UNKNOWN", "{p}");
    assert!(
        p["reason"]
            .as_str()
            .unwrap()
            .contains("p99_ttft_ms is 0: no work was measured"),
        "{p}"
    );
    // The control: the same requirement on a run that completed requests passes.
    let d = perf_project();
    write(
        &d.path().join("ok.json"),
        r#"{"completed": 100, "request_throughput": 9.5, "p99_ttft_ms": 120.0}"#,
    );
    let o = record_candidate(d.path(), "ok.json");
    assert_eq!(o.code, Some(0), "{}", o.text());
    assert_eq!(performance(d.path())["status"], "PASS");
}

#[test]
fn negative_latencies_are_errors_in_csv_plain_json_and_vllm() {
    let d = perf_project();
    let r = d.path();
    refused(
        r,
        "neg.csv",
        "metric,value\np99_ttft_ms,-5\n",
        "p99_ttft_ms",
    );
    refused(
        r,
        "neg.json",
        r#"{"metrics": {"p99_ttft_ms": -5}}"#,
        "p99_ttft_ms",
    );
    refused(r, "flat.json", r#"{"p99_ttft_ms": -5}"#, "p99_ttft_ms");
    refused(
        r,
        "neg_vllm.json",
        r#"{"completed": 100, "request_throughput": 9.5, "p99_ttft_ms": -5.0}"#,
        "p99_ttft_ms",
    );
    refused(
        r,
        "neg_rate.json",
        r#"{"completed": 100, "request_throughput": -9.5, "p99_ttft_ms": 5.0}"#,
        "request_throughput",
    );
    // Typed into the record: UNKNOWN naming the field.
    type_candidate(r, "plain-json", "", "p99_ttft_ms = -5.0");
    let p = performance(r);
    assert_eq!(p["status"], "UNKNOWN", "{p}");
    assert!(
        p["reason"]
            .as_str()
            .unwrap()
            .contains("`p99_ttft_ms` is -5"),
        "{p}"
    );
}

#[test]
fn non_finite_values_are_refused_in_files_flags_and_the_record() {
    let d = perf_project();
    let r = d.path();
    refused(
        r,
        "inf.csv",
        "metric,value\np99_ttft_ms,inf\n",
        "p99_ttft_ms",
    );
    refused(
        r,
        "nan.csv",
        "metric,value\np99_ttft_ms,NaN\n",
        "p99_ttft_ms",
    );
    refused(
        r,
        "inf.json",
        r#"{"metrics": {"p99_ttft_ms": -Infinity}}"#,
        "metrics.p99_ttft_ms",
    );
    refused(
        r,
        "nan_vllm.json",
        r#"{"completed": 100, "request_throughput": 9.5, "p99_ttft_ms": NaN}"#,
        "p99_ttft_ms",
    );
    refused(
        r,
        "inf_str.json",
        r#"{"completed": 100, "request_throughput": 9.5, "p99_ttft_ms": "inf"}"#,
        "p99_ttft_ms",
    );
    // A threshold cannot be non-finite either.
    for q in ["p99_ttft_ms<=inf", "tokens_per_s>=-inf", "p99_ttft_ms<=nan"] {
        let o = run_limited(r, &["record", "production", "--require", q], LIMIT);
        assert_eq!(o.code, Some(2), "{q}: {}", o.text());
    }
    // `inf` and `-inf` typed into the record: never PASS, the field named.
    for (value, shown) in [("inf", "inf"), ("-inf", "-inf"), ("nan", "NaN")] {
        let d = perf_project();
        type_candidate(
            d.path(),
            "plain-json",
            "",
            &format!("p99_ttft_ms = {value}\ntokens_per_s = 10.0"),
        );
        let p = performance(d.path());
        assert_eq!(p["status"], "UNKNOWN", "{value}: {p}");
        assert!(
            p["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("`p99_ttft_ms` is {shown}")),
            "{value}: {p}"
        );
    }
}

#[test]
fn a_duplicated_json_key_is_an_error_naming_the_key() {
    let d = perf_project();
    let r = d.path();
    refused(
        r,
        "dup.json",
        r#"{"metrics": {"p99_ttft_ms": 900, "p99_ttft_ms": 100}}"#,
        "metrics.p99_ttft_ms",
    );
    refused(
        r,
        "dup_vllm.json",
        r#"{"completed": 100, "completed": 0, "request_throughput": 9.5, "p99_ttft_ms": 1.0}"#,
        "completed",
    );
}

#[test]
fn errors_name_the_field_never_the_files_text() {
    let d = perf_project();
    let r = d.path();
    let secret = "AWS_SECRET_ACCESS_KEY=hunter2";
    for (file, body) in [
        (
            "s1.json",
            format!(r#"{{"metrics": {{"p99_ttft_ms": "{secret}"}}}}"#),
        ),
        ("s2.json", format!(r#"{{"x": 1, "{secret}\n": 2, "#)),
    ] {
        write(&r.join(file), body);
        let o = record_candidate(r, file);
        assert_eq!(o.code, Some(2), "{file}: {}", o.text());
        assert!(!o.text().contains("hunter2"), "{file}: {}", o.text());
    }
}

#[test]
fn endless_blocking_and_oversized_inputs_end_at_once_with_exit_2() {
    let d = perf_project();
    let r = d.path();
    let start = Instant::now();
    let o = record_candidate(r, "/dev/zero");
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert!(o.stderr.contains("a device"), "{}", o.text());
    mkfifo(&r.join("bench.json"));
    let o = record_candidate(r, "bench.json");
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert!(o.stderr.contains("FIFO"), "{}", o.text());
    for args in [
        ["compare", "bench.json", "/dev/zero"],
        ["compare", "/dev/zero", "bench.json"],
    ] {
        let o = run_limited(r, &args, LIMIT);
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.text());
    }
    // One byte over 64 MiB (sparse: no disk used): refused by size before any read.
    let big = std::fs::File::create(r.join("big.json")).unwrap();
    big.set_len((64 << 20) + 1).unwrap();
    let o = record_candidate(r, "big.json");
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert!(o.stderr.contains("64 MiB limit"), "{}", o.text());
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "{:?}",
        start.elapsed()
    );
    // A recorded result replaced by a FIFO: the gate says so instead of hanging on the hash.
    write(
        &r.join("ok.json"),
        r#"{"completed": 100, "request_throughput": 9.5, "p99_ttft_ms": 120.0}"#,
    );
    assert_eq!(record_candidate(r, "ok.json").code, Some(0));
    std::fs::remove_file(r.join("ok.json")).unwrap();
    mkfifo(&r.join("ok.json"));
    let p = performance(r);
    assert_eq!(p["status"], "UNKNOWN", "{p}");
    assert!(
        p["reason"]
            .as_str()
            .unwrap()
            .contains("cannot be checked against the record (a FIFO"),
        "{p}"
    );
}
