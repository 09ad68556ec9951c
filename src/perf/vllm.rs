//! vLLM's benchmark results (`benchmark_serving.py --save-result`,
//! `benchmark_throughput.py --output-json`, `benchmark_latency.py --output-json`) read into
//! metrics and conditions. Every vLLM metric is a time or a rate, so a negative or non-finite
//! one is an error naming it; a run that completed no request (`completed: 0`, vLLM then writes
//! latencies of 0) or timed nothing is an error, never a fast run.

use super::evidence::count;
use super::formats::{scalar, Format, Ingested};
use super::json::{num, shown, Num};
use serde_json::{Map, Value};

/// Result keys that are not measurements or that hold per-request arrays.
const SKIP: &[&str] = &[
    "date",
    "tokenizer_id",
    "input_lens",
    "output_lens",
    "ttfts",
    "itls",
    "generated_texts",
    "errors",
    "completed",
    "failed",
    "total_input_tokens",
    "total_output_tokens",
    "total_num_tokens",
    "percentiles",
    "latencies",
];

/// A request or token count the file states: absent, or a whole number >= 0.
fn stated_count(o: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match num(v) {
            Num::Finite(x) if count(x).is_some() => Ok(count(x)),
            _ => Err(format!("`{key}` is not a whole number >= 0")),
        },
    }
}

pub(super) fn serving_or_throughput(
    o: &Map<String, Value>,
    format: Format,
) -> Result<Ingested, String> {
    let mut ing = Ingested::new(format);
    ing.all_non_negative = true;
    // The run's work first: a run that completed nothing has no latency to judge.
    let completed = stated_count(o, "completed")?;
    let failed = stated_count(o, "failed")?;
    if completed == Some(0) {
        return Err(format!(
            "`completed` is 0 ({} failed): the run completed no request, so its latencies and throughputs measured nothing",
            failed.unwrap_or(0)
        ));
    }
    if format == Format::VllmThroughput {
        for key in ["num_requests", "total_num_tokens"] {
            if stated_count(o, key)? == Some(0) {
                return Err(format!("`{key}` is 0: the run did no work"));
            }
        }
    }
    match completed {
        Some(n) => ing
            .found
            .add("completed_requests", &n.to_string(), false),
        None if format == Format::VllmServing => ing.notes.push(
            "the file does not say how many requests completed (`completed`): a requirement with no baseline cannot pass on it".into(),
        ),
        None => {}
    }
    // Failed requests say whether both runs did the same work: compared like a condition.
    if let Some(n) = failed.filter(|n| *n > 0) {
        ing.found.add("failed_requests", &n.to_string(), false);
    }
    for (k, v) in o {
        let key = k.trim_end_matches(':'); // vLLM writes "request_goodput:"
        if SKIP.contains(&key) {
            continue;
        }
        let measured =
            super::conditions::canonical(key).is_none() && !super::conditions::is_machine_key(key);
        match (v, num(v)) {
            (_, Num::Finite(x)) if measured => ing.metric(key.to_string(), x)?,
            (_, Num::NonFinite) if measured => {
                return Err(format!(
                    "`{}` is not a finite number, so not a measurement",
                    shown(key)
                ))
            }
            (Value::Null | Value::Array(_) | Value::Object(_), _) => {}
            (other, _) => {
                if let Some(s) = scalar(other) {
                    ing.found.add(key, &s, true);
                }
            }
        }
    }
    if !ing.found.unused.is_empty() {
        let unused: Vec<String> = std::mem::take(&mut ing.found.unused)
            .iter()
            .map(|k| shown(k))
            .collect();
        ing.notes.push(format!(
            "not conditions hipport knows, ignored: {} (pass them with --conditions if they matter)",
            unused.join(", ")
        ));
    }
    Ok(ing)
}

/// `avg_latency` → `avg_latency_s`; `percentiles["99"]` → `p99_latency_s`.
pub(super) fn latency(o: &Map<String, Value>) -> Result<Ingested, String> {
    let mut ing = Ingested::new(Format::VllmLatency);
    ing.all_non_negative = true;
    if let Some(n) = o.get("latencies").and_then(Value::as_array).map(Vec::len) {
        if n == 0 {
            return Err("`latencies` is empty: no iteration was timed".into());
        }
        ing.notes.push(format!("{n} timed iteration(s)"));
    }
    if let Some(v) = o.get("avg_latency") {
        ing.metric_json("avg_latency_s", "avg_latency", v)?;
    }
    if let Some(p) = o.get("percentiles").and_then(Value::as_object) {
        for (k, v) in p {
            let pct = k.trim_end_matches(".0");
            if pct.is_empty() || !pct.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                return Err(format!("percentiles: `{}` is not a percentage", shown(k)));
            }
            ing.metric_json(&format!("p{pct}_latency_s"), &format!("percentiles.{k}"), v)?;
        }
    }
    Ok(ing)
}

#[cfg(test)]
mod tests {
    use super::super::formats::ingest;

    #[test]
    fn a_run_that_completed_nothing_is_an_error_not_a_fast_run() {
        let e = ingest(
            r#"{"completed": 0, "failed": 100, "request_throughput": 0.0, "p99_ttft_ms": 0.0}"#,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`completed` is 0 (100 failed)"), "{e}");
        let e = ingest(
            r#"{"completed": 10, "request_throughput": 1.0, "p99_ttft_ms": -3.0}"#,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`p99_ttft_ms` is -3"), "{e}");
        let e = ingest(
            r#"{"completed": 10, "request_throughput": 1.0, "p99_ttft_ms": Infinity}"#,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`p99_ttft_ms` is not a finite number"), "{e}");
        let e = ingest(r#"{"completed": -1, "request_throughput": 1.0}"#, None).unwrap_err();
        assert!(e.contains("`completed` is not a whole number"), "{e}");
        let i = ingest(r#"{"request_throughput": 3.1}"#, None).unwrap();
        assert!(i.notes[0].contains("does not say how many requests completed"));
    }

    #[test]
    fn throughput_and_latency_runs_that_did_nothing_are_errors() {
        let e = ingest(
            r#"{"requests_per_second": 0.0, "tokens_per_second": 0.0, "num_requests": 0}"#,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`num_requests` is 0"), "{e}");
        let e = ingest(
            r#"{"avg_latency": 0.0, "latencies": [], "percentiles": {"99": 0.0}}"#,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`latencies` is empty"), "{e}");
        let e = ingest(
            r#"{"avg_latency": NaN, "latencies": [1.0], "percentiles": {"99": 1.0}}"#,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`avg_latency`"), "{e}");
    }
}
