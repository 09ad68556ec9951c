//! Reading the benchmark results people already have into metrics and conditions:
//!
//! - Google Benchmark `--benchmark_format=json`: `context` (user `--benchmark_context` keys become
//!   conditions) and `benchmarks[]` rows (`name`, `run_type`, `aggregate_name`, `real_time`,
//!   `cpu_time`, `time_unit`, `items_per_second`, `bytes_per_second`, user counters).
//! - pytest-benchmark `--benchmark-json`: `machine_info`, `commit_info`, `benchmarks[]` with
//!   `name`, `params`, `extra_info` and `stats` (`min max mean stddev median iqr ops`, seconds).
//! - vLLM `benchmark_serving.py --save-result`: `model_id`, `backend`, `num_prompts`,
//!   `request_rate`, `max_concurrency`, `--metadata` keys, and the result dict
//!   (`request_throughput`, `output_throughput`, `total_token_throughput`,
//!   `{mean,median,std,pNN}_{ttft,tpot,itl,e2el}_ms`).
//! - vLLM `benchmark_throughput.py --output-json`: `elapsed_time`, `num_requests`,
//!   `total_num_tokens`, `requests_per_second`, `tokens_per_second` (no conditions: give them as flags).
//! - vLLM `benchmark_latency.py --output-json`: `avg_latency`, `latencies`, `percentiles`
//!   (`"10" … "99"`), in seconds, for one batch run to completion (conditions as flags).
//! - `torch.utils.benchmark`-style CSV: one row per measurement, label columns (`label`,
//!   `sub_label`, `description`), condition columns and numeric statistic columns (`median_us`…).
//! - plain JSON (`{"metrics": {…}, "conditions": {…}}` or a flat object) and plain CSV
//!   (`metric,value[,unit]`).
//!
//! The format is detected from the content. JSON is read strictly ([`super::json`]: a repeated
//! key is an error); the vLLM readers live in `vllm.rs`. A metric must be evidence
//! ([`super::evidence`]): `NaN`, `Infinity` or a negative time or rate is an error naming the
//! field, never a skipped or accepted value.

use super::conditions::Found;
use super::csv;
use super::json::{num, shown, Num};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The formats `record perf` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    GoogleBenchmark,
    PytestBenchmark,
    VllmServing,
    VllmThroughput,
    VllmLatency,
    TorchCsv,
    PlainJson,
    PlainCsv,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::GoogleBenchmark => "google-benchmark",
            Format::PytestBenchmark => "pytest-benchmark",
            Format::VllmServing => "vllm-serving",
            Format::VllmThroughput => "vllm-throughput",
            Format::VllmLatency => "vllm-latency",
            Format::TorchCsv => "torch-csv",
            Format::PlainJson => "plain-json",
            Format::PlainCsv => "plain-csv",
        }
    }
}

/// What one result file holds.
#[derive(Debug)]
pub struct Ingested {
    pub format: Format,
    pub metrics: BTreeMap<String, f64>,
    pub found: Found,
    pub notes: Vec<String>,
    /// Every metric of the format is a time or a rate (vLLM, pytest-benchmark): none negative.
    pub(super) all_non_negative: bool,
}

impl Ingested {
    pub(super) fn new(format: Format) -> Ingested {
        Ingested {
            format,
            metrics: BTreeMap::new(),
            found: Found::default(),
            notes: Vec::new(),
            all_non_negative: false,
        }
    }
    /// Adds a metric; whitespace is dropped from the name so a requirement can name it. A
    /// non-finite value, or a negative time or rate, is an error naming it.
    pub(super) fn metric(&mut self, name: String, v: f64) -> Result<(), String> {
        let name: String = name.chars().filter(|c| !c.is_whitespace()).collect();
        super::evidence::check_value(&name, v, self.all_non_negative)?;
        if self.metrics.insert(name.clone(), v).is_some() {
            return Err(format!(
                "metric `{}` appears twice: rename one (hipport will not pick one)",
                shown(&name)
            ));
        }
        Ok(())
    }
    /// Adds the JSON value at `field` as metric `name` when it is a number; a non-finite one
    /// (`NaN`, `Infinity`) is an error naming `field`, anything else is not a measurement.
    pub(super) fn metric_json(&mut self, name: &str, field: &str, v: &Value) -> Result<(), String> {
        match num(v) {
            Num::Finite(x) => self.metric(name.to_string(), x),
            Num::NonFinite => Err(format!(
                "`{}` is not a finite number, so not a measurement",
                shown(field)
            )),
            Num::Other => Ok(()),
        }
    }
}

/// Reads `text` as `format`, or detects the format when `None`.
pub fn ingest(text: &str, format: Option<Format>) -> Result<Ingested, String> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let json = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        Some(super::json::parse(trimmed).map_err(|e| format!("not valid JSON: {e}"))?)
    } else {
        None
    };
    let format = match (format, &json) {
        (Some(f), _) => f,
        (None, Some(v)) => detect_json(v),
        (None, None) => detect_csv(trimmed)?,
    };
    let need_json = || {
        json.as_ref()
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{}: expected a JSON object", format.as_str()))
    };
    let ing = match format {
        Format::GoogleBenchmark => google_benchmark(need_json()?),
        Format::PytestBenchmark => pytest_benchmark(need_json()?),
        Format::VllmServing => super::vllm::serving_or_throughput(need_json()?, format),
        Format::VllmThroughput => super::vllm::serving_or_throughput(need_json()?, format),
        Format::VllmLatency => super::vllm::latency(need_json()?),
        Format::PlainJson => plain_json(need_json()?),
        Format::TorchCsv => torch_csv(trimmed),
        Format::PlainCsv => plain_csv(trimmed),
    }?;
    if ing.metrics.is_empty() {
        return Err(format!(
            "{}: no numeric metric found in the file",
            format.as_str()
        ));
    }
    Ok(ing)
}

fn detect_json(v: &Value) -> Format {
    let Some(o) = v.as_object() else {
        return Format::PlainJson;
    };
    let rows = o.get("benchmarks").and_then(Value::as_array);
    if let Some(rows) = rows {
        if o.contains_key("machine_info") || rows.iter().any(|b| b.get("stats").is_some()) {
            return Format::PytestBenchmark;
        }
        if o.contains_key("context") || rows.iter().any(|b| b.get("real_time").is_some()) {
            return Format::GoogleBenchmark;
        }
    }
    if ["request_throughput", "output_throughput", "mean_ttft_ms"]
        .iter()
        .any(|k| o.contains_key(*k))
    {
        return Format::VllmServing;
    }
    if o.contains_key("requests_per_second") && o.contains_key("tokens_per_second") {
        return Format::VllmThroughput;
    }
    if o.contains_key("avg_latency") && o.get("percentiles").is_some_and(Value::is_object) {
        return Format::VllmLatency;
    }
    Format::PlainJson
}

fn detect_csv(text: &str) -> Result<Format, String> {
    let t = csv::parse(text)?;
    let h: Vec<String> = t.header.iter().map(|c| c.to_ascii_lowercase()).collect();
    Ok(if h.len() <= 3 && h[0] == "metric" && h[1] == "value" {
        Format::PlainCsv
    } else {
        Format::TorchCsv
    })
}

pub(super) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `ns` → `_ns`; Google Benchmark's `time_unit` values.
fn time_suffix(unit: &str) -> Result<&'static str, String> {
    match unit {
        "ns" => Ok("ns"),
        "us" => Ok("us"),
        "ms" => Ok("ms"),
        "s" => Ok("s"),
        u => Err(format!("unknown time_unit `{}`", shown(u))),
    }
}

/// Context keys Google Benchmark writes itself; any other key came from `--benchmark_context`.
const GBENCH_CONTEXT: &[&str] = &[
    "date",
    "host_name",
    "executable",
    "num_cpus",
    "mhz_per_cpu",
    "cpu_scaling_enabled",
    "caches",
    "load_avg",
    "library_build_type",
    "library_version",
    "json_schema_version",
    "aslr_enabled",
];

/// Row fields that are not measurements.
const GBENCH_FIELDS: &[&str] = &[
    "name",
    "family_index",
    "per_family_instance_index",
    "run_name",
    "run_type",
    "repetitions",
    "repetition_index",
    "threads",
    "iterations",
    "real_time",
    "cpu_time",
    "time_unit",
    "aggregate_name",
    "aggregate_unit",
    "error_occurred",
    "error_message",
    "big_o",
    "rms",
    "label",
];

fn google_benchmark(o: &Map<String, Value>) -> Result<Ingested, String> {
    let mut ing = Ingested::new(Format::GoogleBenchmark);
    if let Some(ctx) = o.get("context").and_then(Value::as_object) {
        for (k, v) in ctx {
            if GBENCH_CONTEXT.contains(&k.as_str()) {
                continue;
            }
            if let Some(s) = scalar(v) {
                ing.found.add(k, &s, false);
            }
        }
        if let Some(h) = ctx.get("host_name").and_then(Value::as_str) {
            ing.found.machine.host = h.to_string();
        }
        if ctx.get("library_build_type").and_then(Value::as_str) == Some("debug") {
            ing.notes.push(
                "the benchmark library was a debug build: timings may not be representative".into(),
            );
        }
    }
    let rows = o
        .get("benchmarks")
        .and_then(Value::as_array)
        .ok_or("google-benchmark: no `benchmarks` array")?;
    let aggregated: Vec<&str> = rows
        .iter()
        .filter(|r| r.get("run_type").and_then(Value::as_str) == Some("aggregate"))
        .filter_map(|r| r.get("run_name").and_then(Value::as_str))
        .collect();
    for r in rows {
        let Some(name) = r.get("name").and_then(Value::as_str) else {
            continue;
        };
        if r.get("error_occurred").and_then(Value::as_bool) == Some(true) {
            ing.notes.push(format!(
                "{}: the benchmark reported an error ({}), no metrics taken",
                shown(name),
                shown(
                    r.get("error_message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                )
            ));
            continue;
        }
        let is_aggregate = r.get("run_type").and_then(Value::as_str) == Some("aggregate");
        let run_name = r.get("run_name").and_then(Value::as_str).unwrap_or(name);
        if !is_aggregate && aggregated.contains(&run_name) {
            continue; // the repetitions are summarized by the aggregate rows
        }
        if !is_aggregate && r.get("iterations").and_then(Value::as_f64) == Some(0.0) {
            return Err(format!(
                "`{}.iterations` is 0: the benchmark ran no iteration, so it measured nothing",
                shown(name)
            ));
        }
        let percentage = r.get("aggregate_unit").and_then(Value::as_str) == Some("percentage");
        let unit = time_suffix(r.get("time_unit").and_then(Value::as_str).unwrap_or("ns"))
            .map_err(|e| format!("{}: {e}", shown(name)))?;
        for t in ["real_time", "cpu_time"] {
            if let Some(v) = r.get(t) {
                let metric = if percentage {
                    format!("{name}.{t}")
                } else {
                    format!("{name}.{t}_{unit}")
                };
                ing.metric_json(&metric, &format!("{name}.{t}"), v)?;
            }
        }
        if let Some(fields) = r.as_object() {
            for (k, v) in fields {
                if GBENCH_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                let metric = format!("{name}.{k}");
                ing.metric_json(&metric, &metric, v)?;
            }
        }
    }
    Ok(ing)
}

const PYTEST_STATS: &[(&str, &str)] = &[
    ("min", "min_s"),
    ("max", "max_s"),
    ("mean", "mean_s"),
    ("stddev", "stddev_s"),
    ("median", "median_s"),
    ("iqr", "iqr_s"),
    ("ops", "ops_per_s"),
];

fn pytest_benchmark(o: &Map<String, Value>) -> Result<Ingested, String> {
    let mut ing = Ingested::new(Format::PytestBenchmark);
    ing.all_non_negative = true;
    let rows = o
        .get("benchmarks")
        .and_then(Value::as_array)
        .ok_or("pytest-benchmark: no `benchmarks` array")?;
    if let Some(m) = o.get("machine_info").and_then(Value::as_object) {
        if let Some(n) = m.get("node").and_then(Value::as_str) {
            ing.found.machine.host = n.to_string();
        }
    }
    if let Some(id) = o
        .get("commit_info")
        .and_then(|c| c.get("id"))
        .and_then(Value::as_str)
    {
        ing.notes.push(format!("commit {id} (commit_info)"));
    }
    // A param or extra_info key with one value across every benchmark describes the run.
    let mut shared: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (i, b) in rows.iter().enumerate() {
        let mut here: BTreeMap<String, String> = BTreeMap::new();
        for section in ["params", "extra_info"] {
            if let Some(m) = b.get(section).and_then(Value::as_object) {
                for (k, v) in m {
                    if let Some(s) = scalar(v) {
                        here.insert(k.clone(), s);
                    }
                }
            }
        }
        if i == 0 {
            shared = here.into_iter().map(|(k, v)| (k, Some(v))).collect();
        } else {
            for (k, v) in shared.iter_mut() {
                if here.get(k) != v.as_ref() {
                    *v = None;
                }
            }
        }
    }
    for (k, v) in &shared {
        if let Some(v) = v {
            ing.found.add(k, v, false);
        }
    }
    for b in rows {
        let Some(name) = b.get("name").and_then(Value::as_str) else {
            continue;
        };
        let Some(stats) = b.get("stats").and_then(Value::as_object) else {
            ing.notes
                .push(format!("{}: no stats (skipped or failed)", shown(name)));
            continue;
        };
        if stats.get("rounds").and_then(Value::as_f64) == Some(0.0) {
            return Err(format!(
                "`{}.stats.rounds` is 0: the benchmark ran no round, so it measured nothing",
                shown(name)
            ));
        }
        for (k, metric) in PYTEST_STATS {
            if let Some(v) = stats.get(*k) {
                ing.metric_json(&format!("{name}.{metric}"), &format!("{name}.stats.{k}"), v)?;
            }
        }
    }
    Ok(ing)
}

/// What a JSON value is, in words, for an error that must not echo it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn plain_json(o: &Map<String, Value>) -> Result<Ingested, String> {
    let mut ing = Ingested::new(Format::PlainJson);
    let metrics = o.get("metrics").and_then(Value::as_object);
    if let Some(m) = metrics {
        for (k, v) in m {
            match num(v) {
                Num::Finite(x) => ing.metric(k.clone(), x)?,
                Num::NonFinite => {
                    return Err(format!(
                        "`metrics.{}` is not a finite number, so not a measurement",
                        shown(k)
                    ))
                }
                Num::Other => {
                    return Err(format!(
                        "`metrics.{}`: expected a number, got {}",
                        shown(k),
                        kind(v)
                    ))
                }
            }
        }
        for section in ["conditions", "machine"] {
            if let Some(c) = o.get(section).and_then(Value::as_object) {
                for (k, v) in c {
                    if let Some(s) = scalar(v) {
                        ing.found.add(k, &s, false);
                    }
                }
            }
        }
        return Ok(ing);
    }
    for (k, v) in o {
        let measured =
            super::conditions::canonical(k).is_none() && !super::conditions::is_machine_key(k);
        match v {
            Value::Number(_) | Value::String(_) if measured && num(v) != Num::Other => {
                ing.metric_json(k, k, v)?
            }
            Value::Object(_) | Value::Array(_) | Value::Null => ing.notes.push(format!(
                "{}: not a number or a condition, ignored",
                shown(k)
            )),
            other => {
                if let Some(s) = scalar(other) {
                    ing.found.add(k, &s, false);
                }
            }
        }
    }
    Ok(ing)
}

fn plain_csv(text: &str) -> Result<Ingested, String> {
    let mut ing = Ingested::new(Format::PlainCsv);
    let t = csv::parse(text)?;
    let has_unit = t.header.len() == 3 && t.header[2].eq_ignore_ascii_case("unit");
    if t.header.len() == 3 && !has_unit {
        return Err(format!(
            "plain CSV: expected columns metric,value[,unit], got {}",
            t.header.join(",")
        ));
    }
    for (line, f) in &t.rows {
        let (name, value) = (f[0].as_str(), f[1].as_str());
        if super::conditions::canonical(name).is_some() || super::conditions::is_machine_key(name) {
            ing.found.add(name, value, false);
            continue;
        }
        let Ok(v) = value.parse::<f64>() else {
            ing.found.add(name, value, false);
            continue;
        };
        let unit = if has_unit {
            f[2].to_ascii_lowercase()
        } else {
            String::new()
        };
        let named = crate::record::perf::unit_of(name);
        let metric = match unit.as_str() {
            "" => name.to_string(),
            "ms" | "s" | "us" | "ns" if named.is_empty() => format!("{name}_{unit}"),
            u if named.is_empty() || named == u => {
                if named.is_empty() {
                    ing.notes.push(format!(
                        "line {line}: unit `{}` of {} kept only in the note",
                        shown(u),
                        shown(name)
                    ));
                }
                name.to_string()
            }
            u => {
                return Err(format!(
                    "line {line}: {} says `{named}` in its name but `{}` in the unit column",
                    shown(name),
                    shown(u)
                ))
            }
        };
        ing.metric(metric, v)?;
    }
    Ok(ing)
}

const TORCH_LABELS: &[&str] = &["label", "sub_label", "description", "name", "task_spec"];

fn torch_csv(text: &str) -> Result<Ingested, String> {
    let mut ing = Ingested::new(Format::TorchCsv);
    let t = csv::parse(text)?;
    let lower: Vec<String> = t.header.iter().map(|h| h.to_ascii_lowercase()).collect();
    let labels: Vec<usize> = (0..lower.len())
        .filter(|&i| TORCH_LABELS.contains(&lower[i].as_str()))
        .collect();
    let numeric = |i: usize| {
        t.rows
            .iter()
            .all(|(_, r)| r[i].is_empty() || r[i].parse::<f64>().is_ok())
    };
    let cond_cols: Vec<usize> = (0..lower.len())
        .filter(|&i| !labels.contains(&i))
        .filter(|&i| {
            super::conditions::canonical(&lower[i]).is_some()
                || super::conditions::is_machine_key(&lower[i])
                || lower[i] == "env"
                || !numeric(i)
        })
        .collect();
    let metric_cols: Vec<usize> = (0..lower.len())
        .filter(|&i| !labels.contains(&i) && !cond_cols.contains(&i))
        .collect();
    if metric_cols.is_empty() {
        return Err("torch CSV: no numeric statistic column (e.g. median_us, mean_us)".into());
    }
    // A condition column with one value describes the run; one that varies names the row.
    let varying: Vec<usize> = cond_cols
        .iter()
        .copied()
        .filter(|&i| t.rows.iter().any(|(_, r)| r[i] != t.rows[0].1[i]))
        .collect();
    if let Some((_, first)) = t.rows.first() {
        for &i in cond_cols.iter().filter(|i| !varying.contains(i)) {
            ing.found.add(&t.header[i], &first[i], false);
        }
    }
    for (line, r) in &t.rows {
        let mut id: Vec<String> = labels
            .iter()
            .map(|&i| r[i].clone())
            .filter(|s| !s.is_empty())
            .collect();
        for &i in &varying {
            let key = super::conditions::canonical(&lower[i]).unwrap_or(&lower[i]);
            id.push(format!("{key}={}", r[i]));
        }
        if id.is_empty() && t.rows.len() > 1 {
            return Err(format!(
                "line {line}: rows need a label, sub_label or description column to tell them apart"
            ));
        }
        let prefix = if id.is_empty() {
            String::new()
        } else {
            format!("{}.", id.join("/"))
        };
        for &i in &metric_cols {
            if let Ok(v) = r[i].parse::<f64>() {
                ing.metric(format!("{prefix}{}", t.header[i]), v)?;
            }
        }
    }
    Ok(ing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_format_from_content() {
        let d = |s: &str| ingest(s, None).map(|i| i.format);
        assert_eq!(
            d(
                r#"{"context": {}, "benchmarks": [{"name": "BM_x", "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"}]}"#
            ),
            Ok(Format::GoogleBenchmark)
        );
        assert_eq!(
            d(r#"{"machine_info": {}, "benchmarks": [{"name": "t", "stats": {"mean": 1.0}}]}"#),
            Ok(Format::PytestBenchmark)
        );
        assert_eq!(d(r#"{"request_throughput": 3.1}"#), Ok(Format::VllmServing));
        assert_eq!(
            d(r#"{"requests_per_second": 3.1, "tokens_per_second": 900.0}"#),
            Ok(Format::VllmThroughput)
        );
        assert_eq!(d(r#"{"step_time_s": 0.9}"#), Ok(Format::PlainJson));
        assert_eq!(d("metric,value\nstep_time_s,0.9\n"), Ok(Format::PlainCsv));
        assert_eq!(d("label,median_us\nmm,12.5\n"), Ok(Format::TorchCsv));
        assert!(d(r#"{"name": "x"}"#)
            .unwrap_err()
            .contains("no numeric metric"));
        assert!(d("{not json").unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn failed_requests_are_compared_like_conditions() {
        let i = ingest(
            r#"{"num_prompts": 200, "completed": 197, "failed": 3, "request_throughput": 9.8}"#,
            None,
        )
        .unwrap();
        assert_eq!(i.found.conditions["completed_requests"], "197");
        assert_eq!(i.found.conditions["failed_requests"], "3");
        assert_eq!(i.found.conditions["num_prompts"], "200");
        assert_eq!(i.metrics.len(), 1);
    }

    #[test]
    fn duplicate_metrics_are_an_error_not_a_choice() {
        let e = ingest("metric,value\nx_ms,1\nx_ms,2\n", None).unwrap_err();
        assert!(e.contains("appears twice"), "{e}");
    }

    #[test]
    fn plain_csv_units_and_conditions() {
        let i = ingest("metric,value,unit\nstep_time,0.91,s\nbatch,16,\nprecision,bf16,\ntokens_per_s,1650,/s\n", None).unwrap();
        assert_eq!(i.metrics["step_time_s"], 0.91);
        assert_eq!(i.metrics["tokens_per_s"], 1650.0);
        assert_eq!(i.found.conditions["batch"], "16");
        assert_eq!(i.found.conditions["precision"], "BF16");
        let e = ingest("metric,value,unit\np99_ms,1,s\n", None).unwrap_err();
        assert!(e.contains("`ms` in its name but `s`"), "{e}");
    }

    #[test]
    fn torch_csv_rows_named_by_labels_and_varying_conditions() {
        let i = ingest(
            "label,sub_label,description,batch,dtype,num_threads,median_us,mean_us,iqr_us\n\
             matmul,fp16,torch.mm,8,float16,1,12.5,12.9,0.4\n\
             matmul,fp16,torch.mm,16,float16,1,23.0,23.4,0.6\n",
            None,
        )
        .unwrap();
        assert_eq!(i.metrics["matmul/fp16/torch.mm/batch=8.median_us"], 12.5);
        assert_eq!(i.metrics["matmul/fp16/torch.mm/batch=16.iqr_us"], 0.6);
        assert_eq!(i.found.conditions["precision"], "FP16");
        assert_eq!(i.found.conditions["num_threads"], "1");
        assert!(!i.found.conditions.contains_key("batch"));
        let i = ingest("label,sub_label,median_us\nbmm,\"[8, 1024]\",4.5\n", None).unwrap();
        assert_eq!(i.metrics["bmm/[8,1024].median_us"], 4.5);
    }
}
