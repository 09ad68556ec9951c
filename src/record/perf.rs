//! Performance evidence in the migration record: the requirements production sets
//! (`[[production.requirements]]`, each a `METRIC OP THRESHOLD` line with who set it) and the two
//! benchmark runs the performance gate compares (`[perf.baseline]`, `[perf.candidate]`): their
//! metrics, the conditions they ran under, the machine, and the result file's sha256.
//!
//! A requirement is absolute (`p99_latency_ms<=250`) or relative to the CUDA baseline
//! (`step_time_s<=1.1*baseline`). Parsing rejects anything else with a reason.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// One requirement as stored: the text a person gave, who gave it and when.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RequirementRow {
    /// `tokens_per_s>=1500`, `p99_latency_ms<=250`, `step_time_s<=1.1*baseline`.
    pub require: String,
    pub set_by: String,
    pub date: String,
}

/// The comparison a requirement asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Le,
    Lt,
    Ge,
    Gt,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Ge => ">=",
            Op::Gt => ">",
        }
    }
    /// Whether `value OP threshold` holds.
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Op::Le => value <= threshold,
            Op::Lt => value < threshold,
            Op::Ge => value >= threshold,
            Op::Gt => value > threshold,
        }
    }
    /// The comparison a value that misses the requirement shows: `<=` missed is `>`.
    pub fn missed(self) -> &'static str {
        match self {
            Op::Le => ">",
            Op::Lt => ">=",
            Op::Ge => "<",
            Op::Gt => "<=",
        }
    }
}

/// A parsed requirement.
#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    pub metric: String,
    pub op: Op,
    /// The absolute threshold, or the factor applied to the baseline's value.
    pub value: f64,
    pub relative: bool,
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.relative {
            write!(
                f,
                "{}{}{}*baseline",
                self.metric,
                self.op.as_str(),
                self.value
            )
        } else {
            write!(f, "{}{}{}", self.metric, self.op.as_str(), self.value)
        }
    }
}

impl Requirement {
    /// A scaling requirement (its metric names scaling) needs the production GPU count.
    pub fn is_scaling(&self) -> bool {
        self.metric.to_ascii_lowercase().contains("scaling")
    }
}

/// `1500`, `312.4`, `1.25`, `0.0001234`: a measured number rounded for display (four
/// significant digits below 1, three decimals below 100, one above). Never used for stored
/// values, which keep every digit (`f64`'s shortest form, `8` not `8.0`).
pub fn num(v: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !v.is_finite() || (v.fract() == 0.0 && v.abs() < 1e15) {
        format!("{v}")
    } else if v.abs() >= 100.0 {
        trim(format!("{v:.1}"))
    } else if v.abs() >= 1.0 {
        trim(format!("{v:.3}"))
    } else {
        let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 17) as usize;
        trim(format!("{v:.digits$}"))
    }
}

/// Parses `METRIC OP THRESHOLD` where THRESHOLD is a number, `baseline`, `K*baseline` or
/// `baseline*K`. Metric names may hold `/ . : < >` (benchmark names like `BM_Gemm<float>/4096`):
/// the operator is the last one in the text, since a threshold holds none.
pub fn parse_requirement(text: &str) -> Result<Requirement, String> {
    let t = text.trim();
    let bytes = t.as_bytes();
    let Some(pos) = bytes.iter().rposition(|b| matches!(b, b'<' | b'>' | b'=')) else {
        return Err(format!(
            "`{t}`: no comparison: write METRIC<=N, METRIC>=N or METRIC<=K*baseline"
        ));
    };
    let (start, op) = match bytes[pos] {
        b'=' if pos > 0 && bytes[pos - 1] == b'<' => (pos - 1, Op::Le),
        b'=' if pos > 0 && bytes[pos - 1] == b'>' => (pos - 1, Op::Ge),
        b'=' => {
            return Err(format!(
                "`{t}`: equality is not a performance requirement: use <=, >=, < or >"
            ))
        }
        b'<' => (pos, Op::Lt),
        _ => (pos, Op::Gt),
    };
    let metric = t[..start].trim();
    let rhs = t[pos + 1..].trim();
    if metric.is_empty() {
        return Err(format!("`{t}`: no metric before `{}`", op.as_str()));
    }
    if metric.ends_with(['<', '=', '!']) {
        return Err(format!(
            "`{t}`: `{}{}` is not a comparison: use <=, >=, < or >",
            &metric[metric.len() - 1..],
            op.as_str()
        ));
    }
    if metric.chars().any(char::is_whitespace) {
        return Err(format!("`{t}`: the metric `{metric}` contains a space"));
    }
    if rhs.is_empty() {
        return Err(format!("`{t}`: no threshold after `{}`", op.as_str()));
    }
    let number = |s: &str, what: &str| -> Result<f64, String> {
        let s = s.trim();
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            Ok(_) => Err(format!("`{t}`: the {what} `{s}` must be a finite number >= 0")),
            Err(_) => Err(format!(
                "`{t}`: the {what} `{s}` is not a number (units go in the metric name, e.g. p99_latency_ms<=250)"
            )),
        }
    };
    let lower = rhs.to_ascii_lowercase();
    let (value, relative) = if lower == "baseline" {
        (1.0, true)
    } else if let Some(k) = lower
        .strip_suffix("baseline")
        .map(|k| k.trim_end().trim_end_matches(['*', 'x', '×']))
        .filter(|_| lower.ends_with("baseline"))
    {
        (number(k, "factor")?, true)
    } else if let Some(k) = lower.strip_prefix("baseline") {
        let k = k.trim_start();
        let Some(k) = k.strip_prefix(['*', 'x', '×']) else {
            return Err(format!(
                "`{t}`: expected K*baseline or baseline*K, got `{rhs}`"
            ));
        };
        (number(k, "factor")?, true)
    } else if lower.contains(['*', '×']) || lower.contains("base") {
        return Err(format!("`{t}`: `{rhs}` is neither a number nor K*baseline"));
    } else {
        (number(rhs, "threshold")?, false)
    };
    if relative && value == 0.0 {
        return Err(format!(
            "`{t}`: a factor of 0 times the baseline means nothing"
        ));
    }
    Ok(Requirement {
        metric: metric.to_string(),
        op,
        value,
        relative,
    })
}

/// The runs the performance gate compares: one baseline, and the candidate it judges — the
/// one recorded last, or recorded again by name. Other candidates are kept by name, never
/// silently replaced.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Perf {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<PerfRun>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<PerfRun>,
    /// The judged candidate's name (`record perf candidate FILE --name NAME`; default: the
    /// file's stem).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub candidate_name: String,
    /// Other candidates, by name: kept as evidence, not judged.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub other_candidates: BTreeMap<String, PerfRun>,
}

impl Perf {
    pub fn is_empty(&self) -> bool {
        self.baseline.is_none() && self.candidate.is_none()
    }

    /// Makes `run` the judged candidate under `name`. The candidate judged until now is kept
    /// under its own name unless it has the same one. Returns what happened, for the user.
    pub fn add_candidate(&mut self, name: &str, run: PerfRun) -> String {
        self.other_candidates.remove(name);
        let said = match self.candidate.take() {
            Some(old)
                if self.candidate_name == name
                    || self.candidate_name.is_empty() && name.is_empty() =>
            {
                format!("replaces candidate `{name}` recorded {}", old.date)
            }
            Some(old) => {
                let old_name = if self.candidate_name.is_empty() {
                    "candidate-1".to_string()
                } else {
                    self.candidate_name.clone()
                };
                let said = format!("candidate `{old_name}` kept, no longer judged");
                self.other_candidates.insert(old_name, old);
                said
            }
            None => "the first candidate".to_string(),
        };
        self.candidate = Some(run);
        self.candidate_name = name.to_string();
        said
    }

    /// `judged: b; kept: a, c` when more than one candidate is recorded.
    pub fn candidates_note(&self) -> Option<String> {
        if self.other_candidates.is_empty() {
            return None;
        }
        let kept: Vec<&str> = self.other_candidates.keys().map(String::as_str).collect();
        Some(format!(
            "performance judges candidate `{}` (recorded last); also kept, not judged: {} (record one again with `hipport record perf candidate FILE --name NAME` to judge it)",
            self.candidate_name,
            kept.join(", ")
        ))
    }
}

/// One benchmark result as evidence.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PerfRun {
    /// The result file as given, and its sha256.
    pub path: String,
    pub sha256: String,
    /// google-benchmark, pytest-benchmark, vllm-serving, vllm-throughput, vllm-latency, torch-csv, plain-json, plain-csv.
    pub format: String,
    pub date: String,
    pub recorded_by: String,
    /// What the run ran: model, batch, input_len, output_len, concurrency, precision, … (normalized).
    pub conditions: BTreeMap<String, String>,
    pub machine: Machine,
    /// Metric name → value; the unit is the name's suffix (`_ms`, `_s`, `_per_s`, …).
    pub metrics: BTreeMap<String, f64>,
    /// What ingestion noticed: skipped rows, where each condition came from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The machine a run was measured on.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Machine {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub gpu: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub gfx: String,
    /// GPUs the run used (0 when unknown).
    #[serde(skip_serializing_if = "is_zero")]
    pub gpus: u32,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub rocm: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cuda: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub torch: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host: String,
    /// Where each field came from (file, flags, probe of the recording host).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub source: String,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Machine {
    /// `MI300X gfx942 x8, ROCm 6.4.1`, or `unknown machine`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let gpu = [self.gpu.as_str(), self.gfx.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        if !gpu.is_empty() {
            parts.push(if self.gpus > 0 {
                format!("{gpu} x{}", self.gpus)
            } else {
                gpu
            });
        } else if self.gpus > 0 {
            parts.push(format!("{} GPU(s)", self.gpus));
        }
        if !self.rocm.is_empty() {
            parts.push(format!("ROCm {}", self.rocm));
        }
        if !self.cuda.is_empty() {
            parts.push(format!("CUDA {}", self.cuda));
        }
        if parts.is_empty() {
            "unknown machine".into()
        } else {
            parts.join(", ")
        }
    }
}

/// The unit a metric's name ends with, for display.
pub fn unit_of(metric: &str) -> &'static str {
    let m = metric.to_ascii_lowercase();
    let tail = m.rsplit(['.', '/']).next().unwrap_or(&m);
    if tail.ends_with("_per_s")
        || tail.ends_with("_per_second")
        || tail.ends_with("throughput")
        || tail.ends_with("goodput")
    {
        "/s"
    } else if tail.ends_with("_ms") {
        "ms"
    } else if tail.ends_with("_us") {
        "us"
    } else if tail.ends_with("_ns") {
        "ns"
    } else if tail.ends_with("_s") || tail.ends_with("_sec") {
        "s"
    } else if tail.ends_with("_gb") || tail.ends_with("_gib") {
        "GB"
    } else if tail.ends_with("_mb") || tail.ends_with("_mib") {
        "MB"
    } else {
        ""
    }
}

/// Requirement names that mean a format's own metric: `tokens_per_s` is vLLM's
/// `total_token_throughput` (serving) or `tokens_per_second` (offline throughput).
const ALIASES: &[(&str, &[&str])] = &[
    (
        "tokens_per_s",
        &["total_token_throughput", "tokens_per_second"],
    ),
    (
        "output_tokens_per_s",
        &["output_throughput", "output_tokens_per_second"],
    ),
    (
        "requests_per_s",
        &["request_throughput", "requests_per_second"],
    ),
    ("p99_latency_ms", &["p99_e2el_ms"]),
    ("p95_latency_ms", &["p95_e2el_ms"]),
    ("p90_latency_ms", &["p90_e2el_ms"]),
    ("p50_latency_ms", &["median_e2el_ms", "p50_e2el_ms"]),
    ("mean_latency_ms", &["mean_e2el_ms"]),
    ("median_latency_ms", &["median_e2el_ms", "p50_e2el_ms"]),
    ("p50_ttft_ms", &["median_ttft_ms"]),
    ("p50_itl_ms", &["median_itl_ms"]),
    ("p50_tpot_ms", &["median_tpot_ms"]),
];

const TIME_UNITS: &[(&str, f64)] = &[("_ns", 1e-9), ("_us", 1e-6), ("_ms", 1e-3), ("_s", 1.0)];

/// Finds `metric` among `metrics`: by its name, a documented alias, or the same name in another
/// time unit (converted). Returns the value and the name it was read from.
pub fn lookup(metrics: &BTreeMap<String, f64>, metric: &str) -> Option<(f64, String)> {
    let direct = |name: &str| metrics.get(name).map(|v| (*v, name.to_string()));
    let with_aliases = |name: &str| {
        direct(name).or_else(|| {
            ALIASES
                .iter()
                .find(|(a, _)| *a == name)
                .and_then(|(_, natives)| natives.iter().find_map(|n| direct(n)))
        })
    };
    if let Some(hit) = with_aliases(metric) {
        return Some(hit);
    }
    if metric.ends_with("_per_s") {
        return None;
    }
    let (stem, scale) = TIME_UNITS
        .iter()
        .find_map(|(suf, s)| metric.strip_suffix(suf).map(|stem| (stem, *s)))?;
    TIME_UNITS.iter().find_map(|(suf, s)| {
        let other = format!("{stem}{suf}");
        (other != metric)
            .then(|| with_aliases(&other))
            .flatten()
            .map(|(v, from)| (v * s / scale, from))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_absolute_and_relative_requirements() {
        let r = parse_requirement("tokens_per_s>=1500").unwrap();
        assert_eq!(
            (r.metric.as_str(), r.op, r.value, r.relative),
            ("tokens_per_s", Op::Ge, 1500.0, false)
        );
        let r = parse_requirement(" p99_latency_ms <= 250 ").unwrap();
        assert_eq!((r.op, r.value), (Op::Le, 250.0));
        let r = parse_requirement("step_time_s<=1.1*baseline").unwrap();
        assert_eq!((r.op, r.value, r.relative), (Op::Le, 1.1, true));
        assert_eq!(r.to_string(), "step_time_s<=1.1*baseline");
        let r = parse_requirement("tokens_per_s>=baseline*0.9").unwrap();
        assert_eq!((r.value, r.relative), (0.9, true));
        let r = parse_requirement("tokens_per_s>=baseline").unwrap();
        assert_eq!((r.value, r.relative), (1.0, true));
        let r = parse_requirement("BM_Gemm<float>/4096.real_time_ns<=2e6").unwrap();
        assert_eq!(
            (r.metric.as_str(), r.value),
            ("BM_Gemm<float>/4096.real_time_ns", 2e6)
        );
        let r = parse_requirement("BM_Gemm<float>>1").unwrap();
        assert_eq!((r.metric.as_str(), r.op), ("BM_Gemm<float>", Op::Gt));
    }

    #[test]
    fn rejects_bad_requirements_with_a_reason() {
        for (bad, why) in [
            ("tokens_per_s", "no comparison"),
            ("tokens_per_s==1500", "equality"),
            ("tokens_per_s=1500", "equality"),
            (">=1500", "no metric"),
            ("tokens_per_s>=", "no threshold"),
            ("p99_latency_ms<=250ms", "not a number"),
            ("p99_latency_ms<=-1", "finite number >= 0"),
            (
                "step_time_s<=1.1*basline",
                "neither a number nor K*baseline",
            ),
            ("step_time_s<=abc*baseline", "factor `abc`"),
            ("step_time_s<=0*baseline", "factor of 0"),
            ("p99 latency<=250", "contains a space"),
            ("tokens_per_s=>1500", "is not a comparison"),
        ] {
            let e = parse_requirement(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn looks_up_aliases_and_converts_time_units() {
        let mut m = BTreeMap::new();
        m.insert("total_token_throughput".to_string(), 1800.0);
        m.insert("p99_e2el_ms".to_string(), 240.0);
        m.insert("BM_Step.real_time_ns".to_string(), 2_500_000.0);
        assert_eq!(
            lookup(&m, "tokens_per_s"),
            Some((1800.0, "total_token_throughput".into()))
        );
        assert_eq!(
            lookup(&m, "p99_latency_s"),
            Some((0.24, "p99_e2el_ms".into()))
        );
        assert_eq!(
            lookup(&m, "BM_Step.real_time_ms"),
            Some((2.5, "BM_Step.real_time_ns".into()))
        );
        assert_eq!(lookup(&m, "p95_latency_ms"), None);
        assert_eq!(unit_of("p99_ttft_ms"), "ms");
        assert_eq!(unit_of("output_throughput"), "/s");
        assert_eq!(unit_of("test_step.mean_s"), "s");
        assert_eq!(num(1500.0), "1500");
        assert_eq!(num(0.2412), "0.2412");
        assert_eq!(num(0.000012346), "0.00001235");
        assert_eq!(num(312.44), "312.4");
        assert_eq!(num(8.0), "8");
        // Stored requirements keep every digit.
        let r = parse_requirement("tokens_per_s>=1234.5678").unwrap();
        assert_eq!(r.to_string(), "tokens_per_s>=1234.5678");
    }
}
