//! Conditions: what a benchmark ran (model, batch, lengths, concurrency, precision, …), named one
//! way whatever the tool called them (`batch_size` → `batch`, `max_concurrency` → `concurrency`,
//! `torch.bfloat16` → `BF16`, `8.0` → `8`), so a CUDA run and a ROCm run can be compared key by
//! key. Keys that describe the machine (`gpu`, `rocm`, …) are not conditions: they go to the run's
//! machine, which the gate checks against the target tuple instead.

use crate::record::perf::Machine;
use std::collections::BTreeMap;

/// Accepted spellings → the canonical condition key.
const KEYS: &[(&str, &[&str])] = &[
    ("model", &["model", "model_id", "model_name", "model_path"]),
    ("model_revision", &["model_revision", "revision"]),
    ("batch", &["batch", "batch_size", "bs", "global_batch_size"]),
    (
        "input_len",
        &[
            "input_len",
            "prompt_len",
            "random_input_len",
            "sonnet_input_len",
            "isl",
            "input_length",
            "input_tokens",
        ],
    ),
    (
        "output_len",
        &[
            "output_len",
            "random_output_len",
            "sonnet_output_len",
            "sharegpt_output_len",
            "osl",
            "output_length",
            "output_tokens",
            "max_tokens",
        ],
    ),
    (
        "context_len",
        &[
            "context_len",
            "seq_len",
            "sequence_length",
            "max_model_len",
            "context_length",
        ],
    ),
    ("concurrency", &["concurrency", "max_concurrency"]),
    ("precision", &["precision", "dtype", "torch_dtype"]),
    ("kv_cache_dtype", &["kv_cache_dtype"]),
    ("quantization", &["quantization", "quant"]),
    ("tp", &["tp", "tensor_parallel_size", "tp_size"]),
    ("pp", &["pp", "pipeline_parallel_size", "pp_size"]),
    ("num_prompts", &["num_prompts", "num_requests"]),
    ("request_rate", &["request_rate", "qps"]),
    ("burstiness", &["burstiness"]),
    ("dataset", &["dataset", "dataset_name", "dataset_path"]),
    ("backend", &["backend"]),
    ("num_threads", &["num_threads", "threads"]),
    ("acceptance", &["acceptance", "quality", "accuracy_target"]),
];

/// Keys that describe the machine a run used.
const MACHINE_KEYS: &[&str] = &[
    "gpu",
    "gpu_name",
    "device",
    "device_name",
    "gfx",
    "gpus",
    "num_gpus",
    "gpu_count",
    "rocm",
    "rocm_version",
    "cuda",
    "cuda_version",
    "hip",
    "hip_version",
    "torch",
    "torch_version",
    "host",
    "hostname",
    "host_name",
];

/// The canonical key of a known condition spelling.
pub fn canonical(key: &str) -> Option<&'static str> {
    let k = key.trim().to_ascii_lowercase().replace('-', "_");
    KEYS.iter()
        .find(|(_, spellings)| spellings.contains(&k.as_str()))
        .map(|(c, _)| *c)
}

pub fn is_machine_key(key: &str) -> bool {
    let k = key.trim().to_ascii_lowercase().replace('-', "_");
    MACHINE_KEYS.contains(&k.as_str())
}

/// A value in one spelling: numbers without a trailing `.0`, precisions as `BF16`.
pub fn normalize_value(key: &str, value: &str) -> String {
    let v = value.trim();
    if key == "precision" || key == "kv_cache_dtype" {
        return precision(v);
    }
    if let Ok(n) = v.parse::<f64>() {
        if n.is_finite() {
            return format!("{n}"); // every digit kept: 12.75 and 12.78 stay different
        }
    }
    v.to_string()
}

fn precision(v: &str) -> String {
    let l = v.to_ascii_lowercase();
    let l = l.strip_prefix("torch.").unwrap_or(&l);
    let named = match l {
        "bfloat16" | "bf16" => "BF16",
        "float16" | "half" | "fp16" => "FP16",
        "float32" | "float" | "fp32" => "FP32",
        "float64" | "double" | "fp64" => "FP64",
        "tf32" => "TF32",
        "float8_e4m3fn" | "float8_e4m3fnuz" | "fp8_e4m3" => "FP8-E4M3",
        "float8_e5m2" | "float8_e5m2fnuz" | "fp8_e5m2" => "FP8-E5M2",
        "int8" => "INT8",
        _ => "",
    };
    if !named.is_empty() {
        return named.to_string();
    }
    crate::record::normalize_precision(l).unwrap_or_else(|_| v.to_string())
}

/// Conditions and machine facts read from one source (a file's fields or `--conditions`).
#[derive(Debug, Default)]
pub struct Found {
    pub conditions: BTreeMap<String, String>,
    pub machine: Machine,
    /// Keys that were neither a known condition nor a machine fact, for the run's notes.
    pub unused: Vec<String>,
}

impl Found {
    /// Files its `key = value` as a condition or a machine fact. With `only_known`, a key that is
    /// neither a known condition nor a machine key is listed as unused instead.
    pub fn add(&mut self, key: &str, value: &str, only_known: bool) {
        let value = value.trim();
        if value.is_empty() || value.eq_ignore_ascii_case("none") || value == "null" {
            return;
        }
        if is_machine_key(key) {
            set_machine(&mut self.machine, key, value);
            return;
        }
        let k = match canonical(key) {
            Some(c) => c.to_string(),
            None if only_known => {
                self.unused.push(key.to_string());
                return;
            }
            None => key.trim().to_ascii_lowercase().replace('-', "_"),
        };
        let v = normalize_value(&k, value);
        self.conditions.insert(k, v);
    }
}

fn set_machine(m: &mut Machine, key: &str, value: &str) {
    let k = key.trim().to_ascii_lowercase().replace('-', "_");
    match k.as_str() {
        "gpu" | "gpu_name" | "device" | "device_name" => {
            if let Some((name, gfx)) = value
                .rsplit_once([':', ' '])
                .filter(|(_, g)| g.starts_with("gfx"))
            {
                m.gpu = name.trim().to_string();
                m.gfx = gfx.to_string();
            } else if value.starts_with("gfx") {
                m.gfx = value.to_string();
            } else {
                m.gpu = value.to_string();
            }
        }
        "gfx" => m.gfx = value.to_string(),
        "gpus" | "num_gpus" | "gpu_count" => {
            if let Ok(n) = value.parse::<f64>() {
                if n >= 1.0 && n.fract() == 0.0 {
                    m.gpus = n as u32;
                }
            }
        }
        "rocm" | "rocm_version" => m.rocm = value.trim_start_matches("rocm-").to_string(),
        // A HIP build number (6.4.43482) is not a ROCm release: never compared with the target.
        "hip" | "hip_version" => {}
        "cuda" | "cuda_version" => m.cuda = value.to_string(),
        "torch" | "torch_version" => m.torch = value.to_string(),
        _ => m.host = value.to_string(),
    }
}

/// `KEY=VALUE` flags: every key is kept (known spellings made canonical).
pub fn from_flags(items: &[String]) -> Result<Found, String> {
    let mut f = Found::default();
    for it in items {
        let Some((k, v)) = it.split_once('=') else {
            return Err(format!(
                "--conditions `{it}`: expected KEY=VALUE, e.g. batch=8"
            ));
        };
        if k.trim().is_empty() || v.trim().is_empty() {
            return Err(format!(
                "--conditions `{it}`: expected KEY=VALUE with both parts"
            ));
        }
        f.add(k, v, false);
    }
    Ok(f)
}

/// Fills the empty fields of `into` from `from`.
pub fn merge_machine(into: &mut Machine, from: &Machine) {
    for (dst, src) in [
        (&mut into.gpu, &from.gpu),
        (&mut into.gfx, &from.gfx),
        (&mut into.rocm, &from.rocm),
        (&mut into.cuda, &from.cuda),
        (&mut into.torch, &from.torch),
        (&mut into.host, &from.host),
    ] {
        if dst.is_empty() {
            dst.clone_from(src);
        }
    }
    if into.gpus == 0 {
        into.gpus = from.gpus;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_become_one_key_and_values_one_form() {
        let mut f = Found::default();
        f.add("batch_size", "8.0", true);
        f.add("request_rate", "12.75", true);
        f.add("max_concurrency", "64", true);
        f.add("dtype", "torch.bfloat16", true);
        f.add("model_id", "meta-llama/Llama-3.1-8B-Instruct", true);
        f.add("gpu", "Instinct MI300X:gfx942", true);
        f.add("rocm_version", "6.4.1", true);
        f.add("temperature", "0", true);
        f.add("max_concurrency", "None", true);
        assert_eq!(f.conditions["batch"], "8");
        assert_eq!(f.conditions["request_rate"], "12.75");
        assert_eq!(f.conditions["concurrency"], "64");
        assert_eq!(f.conditions["precision"], "BF16");
        assert_eq!(f.conditions["model"], "meta-llama/Llama-3.1-8B-Instruct");
        assert_eq!(
            (f.machine.gpu.as_str(), f.machine.gfx.as_str()),
            ("Instinct MI300X", "gfx942")
        );
        assert_eq!(f.machine.rocm, "6.4.1");
        assert_eq!(f.unused, ["temperature"]);
        assert!(!f.conditions.contains_key("gpu"));
    }

    #[test]
    fn flags_keep_unknown_keys_and_reject_malformed() {
        let f = from_flags(&["Batch=16".into(), "scheduler=chunked".into()]).unwrap();
        assert_eq!(f.conditions["batch"], "16");
        assert_eq!(f.conditions["scheduler"], "chunked");
        assert!(from_flags(&["batch".into()])
            .unwrap_err()
            .contains("KEY=VALUE"));
        assert!(from_flags(&["batch=".into()]).is_err());
    }
}
