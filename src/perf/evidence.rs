//! What makes a benchmark number evidence, checked once when a file is read and again when the
//! gate is derived from the record (which a person may have edited: TOML accepts `inf` and
//! `nan`). A measurement is finite; a latency, a duration or a throughput is never negative; a
//! run that completed no request measured nothing; a time of exactly 0 was not measured. A
//! value that fails is named (which run, which field), never passed over: a forged or empty run
//! must not read as a met requirement.
//!
//! Input limits (every read is bounded, regular files only): a benchmark result file is read up
//! to [`MAX_BENCHMARK_BYTES`]; the same limit applies when the gate re-hashes a recorded file.

use crate::record::perf::{unit_of, PerfRun};

/// The largest benchmark result `record perf` reads (a vLLM file with per-request arrays for
/// 100 000 requests is about 20 MiB).
pub const MAX_BENCHMARK_BYTES: u64 = 64 << 20;

/// Words in a metric's name that make it a time, a rate or an amount of work: never negative.
const NON_NEGATIVE_WORDS: &[&str] = &[
    "latency",
    "throughput",
    "goodput",
    "ttft",
    "tpot",
    "itl",
    "e2el",
    "time",
    "duration",
    "elapsed",
    "tokens",
    "requests",
    "bandwidth",
    "flops",
    "per_s",
    "per_second",
    "qps",
    "rps",
];

/// Whether a negative value of `metric` is impossible (a time, a rate, a size).
pub fn never_negative(metric: &str) -> bool {
    let m = metric.to_ascii_lowercase();
    !unit_of(&m).is_empty() || NON_NEGATIVE_WORDS.iter().any(|w| m.contains(w))
}

/// Whether `metric` is measured in time (`_ms`, `_s`, …): 0 is then not a measurement.
pub fn is_time(metric: &str) -> bool {
    matches!(unit_of(metric), "ms" | "us" | "ns" | "s")
}

/// Checks one value; `all_non_negative` for formats whose every metric is a time or a rate
/// (vLLM, pytest-benchmark). The error names the field, never the file's text.
pub fn check_value(metric: &str, v: f64, all_non_negative: bool) -> Result<(), String> {
    let name = super::json::shown(metric);
    if !v.is_finite() {
        return Err(format!(
            "`{name}` is {v}: not a finite number, so not a measurement"
        ));
    }
    if v < 0.0 && (all_non_negative || never_negative(metric)) {
        return Err(format!(
            "`{name}` is {v}: a time, a rate or an amount of work is never negative"
        ));
    }
    Ok(())
}

/// A request count from a file or a condition: a finite whole number >= 0.
pub fn count(v: f64) -> Option<u64> {
    (v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 1e18).then_some(v as u64)
}

/// Why a recorded run is not evidence at all: non-finite or negative metrics, no metric, a
/// stated request count of zero. `which` is `candidate` or `baseline`.
pub fn run_problems(which: &str, run: &PerfRun) -> Vec<String> {
    let mut out = Vec::new();
    let strict = matches!(
        run.format.as_str(),
        "vllm-serving" | "vllm-throughput" | "vllm-latency" | "pytest-benchmark"
    );
    if run.metrics.is_empty() {
        out.push(format!("the {which} run has no metric: an empty run"));
    }
    for (k, v) in &run.metrics {
        if let Err(e) = check_value(k, *v, strict) {
            out.push(format!("the {which} run's {e}"));
        }
    }
    for key in ["completed_requests", "num_prompts"] {
        let Some(text) = run.conditions.get(key) else {
            continue;
        };
        match text.parse::<f64>().ok().and_then(count) {
            Some(0) => out.push(format!(
                "the {which} run completed no request ({key} = 0): it measured nothing"
            )),
            Some(_) => {}
            None => out.push(format!(
                "the {which} run's {key} is not a whole number of requests"
            )),
        }
    }
    out
}

/// Whether the candidate's `value` of `metric` comes from a run that completed work, for a
/// requirement with no baseline to compare the run with: a vLLM serving run must say it
/// completed requests, and no value may be exactly 0.
pub fn work_shown(run: &PerfRun, metric: &str, value: f64) -> Result<(), String> {
    let completed = run
        .conditions
        .get("completed_requests")
        .and_then(|t| t.parse::<f64>().ok())
        .and_then(count);
    if run.format == "vllm-serving" && completed.is_none() {
        return Err(
            "the candidate does not say how many requests completed (vLLM's `completed`): with no baseline, nothing shows the run did work".into(),
        );
    }
    if completed == Some(0) {
        return Err("the candidate completed no request: it measured nothing".into());
    }
    if value == 0.0 {
        return Err(format!(
            "the candidate's {} is 0: no work was measured",
            super::json::shown(metric)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_what_is_not_a_measurement() {
        assert!(check_value("p99_ttft_ms", f64::INFINITY, false)
            .unwrap_err()
            .contains("`p99_ttft_ms` is inf"));
        assert!(check_value("x", f64::NAN, false).is_err());
        assert!(check_value("p99_ttft_ms", -1.0, false)
            .unwrap_err()
            .contains("never negative"));
        assert!(check_value("tokens_per_second", -5.0, false).is_err());
        assert!(check_value("BM_x.real_time_ns", -5.0, false).is_err());
        // A unitless score may be negative, except in formats of times and rates.
        assert!(check_value("delta_score", -0.5, false).is_ok());
        assert!(check_value("delta_score", -0.5, true).is_err());
        assert!(is_time("p99_ttft_ms") && !is_time("tokens_per_s"));
    }

    #[test]
    fn a_run_that_completed_nothing_is_named() {
        let mut run = PerfRun {
            format: "vllm-serving".into(),
            ..Default::default()
        };
        run.metrics.insert("p99_ttft_ms".into(), 0.0);
        assert!(work_shown(&run, "p99_ttft_ms", 5.0)
            .unwrap_err()
            .contains("does not say how many requests completed"));
        run.conditions
            .insert("completed_requests".into(), "0".into());
        let p = run_problems("candidate", &run);
        assert!(p[0].contains("completed no request"), "{p:?}");
        run.conditions
            .insert("completed_requests".into(), "100".into());
        assert!(run_problems("candidate", &run).is_empty());
        assert!(work_shown(&run, "p99_ttft_ms", 0.0)
            .unwrap_err()
            .contains("is 0"));
        assert!(work_shown(&run, "p99_ttft_ms", 12.0).is_ok());
        run.metrics.insert("mean_ttft_ms".into(), f64::NEG_INFINITY);
        let p = run_problems("candidate", &run);
        assert!(p[0].contains("`mean_ttft_ms` is -inf"), "{p:?}");
    }
}
