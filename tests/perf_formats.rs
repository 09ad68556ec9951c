//! Every benchmark format `record perf` reads, on the files under testdata/perf/ (generated in
//! the shape each tool writes): the metrics, the conditions detected from the file, and what is
//! skipped.

use hipport::perf::formats::{ingest, Format, Ingested};

fn read(name: &str) -> Ingested {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/perf")
        .join(name);
    let text = std::fs::read_to_string(&p).unwrap();
    ingest(&text, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn vllm_serving_result_with_metadata_and_per_request_arrays() {
    let i = read("vllm_serving_cuda_a100.json");
    assert_eq!(i.format, Format::VllmServing);
    assert_eq!(i.metrics["total_token_throughput"], 20000.0);
    assert_eq!(i.metrics["p99_ttft_ms"], 201.0);
    for k in [
        "mean_itl_ms",
        "median_tpot_ms",
        "p90_e2el_ms",
        "request_throughput",
        "output_throughput",
        "duration",
    ] {
        assert!(i.metrics.contains_key(k), "{k}");
    }
    // Per-request arrays, token counts and the null goodput are not metrics.
    for k in [
        "ttfts",
        "itls",
        "completed",
        "total_input_tokens",
        "request_goodput",
        "num_prompts",
        "max_concurrency",
    ] {
        assert!(!i.metrics.contains_key(k), "{k} is not a metric");
    }
    let c = &i.found.conditions;
    assert_eq!(c["model"], "meta-llama/Llama-3.1-8B-Instruct");
    assert_eq!(c["concurrency"], "64");
    assert_eq!(c["precision"], "BF16");
    assert_eq!(
        (c["input_len"].as_str(), c["output_len"].as_str()),
        ("1024", "128")
    );
    assert_eq!(c["tp"], "1");
    assert_eq!(c["request_rate"], "inf");
    assert_eq!(c["completed_requests"], "200");
    assert!(!c.contains_key("failed_requests"));
    assert_eq!(i.found.machine.gpu, "NVIDIA A100-SXM4-80GB");
    assert!(!c.contains_key("gpu") && !c.contains_key("date"));
}

#[test]
fn vllm_serving_nan_is_an_error_naming_the_field() {
    // Python writes NaN for a statistic it could not compute: not a measurement, and not
    // silently dropped either (a dropped value could hide a run that did not work).
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/perf/vllm_serving_rocm_mi300x.json");
    let text = std::fs::read_to_string(p)
        .unwrap()
        .replace("\"std_itl_ms\": 5.12", "\"std_itl_ms\": NaN");
    let e = ingest(&text, None).unwrap_err();
    assert!(e.contains("`std_itl_ms` is not a finite number"), "{e}");
    let i = read("vllm_serving_rocm_mi300x.json");
    assert_eq!(i.metrics["std_itl_ms"], 5.12);
    assert_eq!(i.metrics["p99_ttft_ms"], 188.6);
    let fp16 = read("vllm_serving_rocm_mi300x_fp16.json");
    assert_eq!(fp16.found.conditions["precision"], "FP16");
}

#[test]
fn vllm_throughput_has_metrics_and_the_request_count() {
    let i = read("vllm_throughput_rocm_mi300x.json");
    assert_eq!(i.format, Format::VllmThroughput);
    assert_eq!(i.metrics["tokens_per_second"], 20897.200283);
    assert_eq!(i.metrics["requests_per_second"], 18.139931);
    assert!(i.metrics.contains_key("elapsed_time"));
    assert!(!i.metrics.contains_key("num_requests"));
    // The workload size is the only condition the file holds.
    assert_eq!(i.found.conditions.len(), 1);
    assert_eq!(i.found.conditions["num_prompts"], "1000");
}

#[test]
fn google_benchmark_aggregates_counters_context_and_errors() {
    let i = read("google_benchmark_rocm.json");
    assert_eq!(i.format, Format::GoogleBenchmark);
    // Aggregates replace the repetitions; the unit comes from time_unit.
    assert_eq!(
        i.metrics["BM_GemmHalf/4096/4096/4096_median.real_time_us"],
        1098.285
    );
    assert!(i
        .metrics
        .contains_key("BM_GemmHalf/4096/4096/4096_mean.cpu_time_us"));
    assert!(i
        .metrics
        .contains_key("BM_GemmHalf/4096/4096/4096_mean.TFLOPS"));
    assert!(i.metrics.contains_key("BM_LayerNorm/8192_cv.real_time"));
    assert!(!i
        .metrics
        .contains_key("BM_GemmHalf/4096/4096/4096.real_time_us"));
    // --benchmark_context keys are conditions; the library's own are not.
    assert_eq!(i.found.conditions["precision"], "FP16");
    assert_eq!(i.found.conditions["batch"], "8");
    assert!(!i.found.conditions.contains_key("num_cpus"));
    assert_eq!(i.found.machine.host, "mi300x-node-2");
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("BM_GemmFp8") && n.contains("FP8 GEMM not supported")),
        "{:?}",
        i.notes
    );
    assert!(!i.metrics.keys().any(|k| k.starts_with("BM_GemmFp8")));
}

#[test]
fn pytest_benchmark_stats_in_seconds_and_shared_params_as_conditions() {
    let i = read("pytest_benchmark_rocm.json");
    assert_eq!(i.format, Format::PytestBenchmark);
    assert_eq!(i.metrics["test_train_step[bf16-32].mean_s"], 0.447);
    assert!(i
        .metrics
        .contains_key("test_optimizer_step[bf16-32].median_s"));
    assert!(i.metrics.contains_key("test_train_step[bf16-32].ops_per_s"));
    assert!(!i.metrics.keys().any(|k| k.ends_with(".rounds")));
    let c = &i.found.conditions;
    assert_eq!(
        (c["precision"].as_str(), c["batch"].as_str()),
        ("BF16", "32")
    );
    assert_eq!(
        (c["model"].as_str(), c["input_len"].as_str()),
        ("resnet50", "224")
    );
    assert!(i.notes.iter().any(|n| n.starts_with("commit 5f1c9e2a")));
}

#[test]
fn torch_benchmark_csv_rows_named_by_label_and_varying_batch() {
    let i = read("torch_benchmark_rocm.csv");
    assert_eq!(i.format, Format::TorchCsv);
    assert_eq!(
        i.metrics["bmm/[8,1024,1024]/torch.bmm/batch=8.median_us"],
        412.8
    );
    assert_eq!(
        i.metrics["softmax/[16,32,2048]/torch.softmax/batch=16.iqr_us"],
        1.3
    );
    assert_eq!(i.metrics.len(), 12);
    assert_eq!(i.found.conditions["precision"], "FP16");
    assert_eq!(i.found.conditions["num_threads"], "1");
    assert!(!i.found.conditions.contains_key("batch"));
}

#[test]
fn plain_json_and_csv_with_conditions_and_machine() {
    let j = read("plain_candidate.json");
    assert_eq!(j.format, Format::PlainJson);
    assert_eq!(j.metrics["step_time_s"], 0.947);
    assert_eq!(j.found.conditions["batch"], "1024");
    assert_eq!(j.found.conditions["context_len"], "4096");
    assert_eq!(
        (
            j.found.machine.gfx.as_str(),
            j.found.machine.rocm.as_str(),
            j.found.machine.gpus
        ),
        ("gfx942", "6.4.1", 1)
    );
    let c = read("plain_baseline.csv");
    assert_eq!(c.format, Format::PlainCsv);
    assert_eq!(c.metrics["step_time_s"], 0.902);
    assert_eq!(c.found.conditions, j.found.conditions);
}

#[test]
fn a_forced_format_that_does_not_fit_is_an_error() {
    let e = ingest("metric,value\nx,1\n", Some(Format::VllmServing)).unwrap_err();
    assert!(e.contains("expected a JSON object"), "{e}");
    let e = ingest(r#"{"metrics": {"x": "fast"}}"#, None).unwrap_err();
    assert!(
        e.contains("`metrics.x`: expected a number, got a string"),
        "{e}"
    );
    assert!(!e.contains("fast"), "the value is not echoed: {e}");
}

#[test]
fn vllm_latency_percentiles_in_seconds_answer_a_millisecond_requirement() {
    let i = read("vllm_latency_rocm_mi300x.json");
    assert_eq!(i.format, Format::VllmLatency);
    assert_eq!(i.metrics["avg_latency_s"], 1.2843190273339868);
    assert_eq!(i.metrics["p99_latency_s"], 1.310988461971283);
    assert_eq!(i.metrics.len(), 7);
    let (v, from) = hipport::record::perf::lookup(&i.metrics, "p99_latency_ms").unwrap();
    assert!((v - 1310.988461971283).abs() < 1e-6);
    assert_eq!(from, "p99_latency_s");
    assert!(i.notes.contains(&"6 timed iteration(s)".to_string()));
}
