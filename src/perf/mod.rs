//! Benchmark results as evidence for the performance gate: read a result file in the format a
//! tool wrote it ([`formats`]), name its conditions one way ([`conditions`]), record the machine
//! (the file's own facts, then flags, then a `probe` of this host for what is still
//! empty), and judge the gate from the record ([`judge`]). A number counts only if it is
//! evidence ([`evidence`]: finite, a time or rate never negative, from a run that did work);
//! a result file is read only if it is a regular file of at most 64 MiB.

pub mod conditions;
pub mod csv;
pub mod evidence;
pub mod formats;
pub mod json;
pub mod judge;
mod vllm;

use crate::record::perf::{Machine, PerfRun};
use conditions::{merge_machine, Found};
use formats::Format;
use std::path::Path;

/// What `record perf` was told besides the file.
#[derive(Clone, Debug, Default)]
pub struct RunInput {
    pub format: Option<Format>,
    /// `KEY=VALUE` conditions; they override the file's.
    pub conditions: Vec<String>,
    /// Machine facts from flags; they override the file's.
    pub machine: Machine,
    /// Probe this host for what is still unknown (off when the run was measured elsewhere).
    pub probe: bool,
}

/// Reads `file` (a regular file of at most [`evidence::MAX_BENCHMARK_BYTES`]) and builds the
/// run; `shown_path` is how the record names it.
pub fn ingest_run(file: &Path, shown_path: &str, input: &RunInput) -> Result<PerfRun, String> {
    let bytes = crate::safety::read_regular_bounded(file, evidence::MAX_BENCHMARK_BYTES)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| format!("{}: not UTF-8 text", file.display()))?;
    let ing =
        formats::ingest(text, input.format).map_err(|e| format!("{}: {e}", file.display()))?;
    let flags = conditions::from_flags(&input.conditions)?;
    let mut notes = ing.notes;
    let Found {
        mut conditions,
        machine: file_machine,
        ..
    } = ing.found;
    for (k, v) in flags.conditions {
        if let Some(old) = conditions.get(&k).filter(|old| **old != v) {
            notes.push(format!(
                "condition {k}: the file says {old}, --conditions says {v} (kept {v})"
            ));
        }
        conditions.insert(k, v);
    }
    let mut machine = input.machine.clone();
    merge_machine(&mut machine, &flags.machine);
    let mut sources = Vec::new();
    if machine != Machine::default() {
        sources.push("flags");
    }
    let before = machine.clone();
    merge_machine(&mut machine, &file_machine);
    if machine != before {
        sources.push("file");
    }
    if input.probe {
        let before = machine.clone();
        merge_machine(&mut machine, &probe_host());
        if machine != before {
            sources.push("probe of the recording host");
        }
    }
    machine.source = sources.join(", ");
    Ok(PerfRun {
        path: shown_path.to_string(),
        sha256: crate::record::sha256_hex(&bytes),
        format: ing.format.as_str().to_string(),
        date: crate::record::date::now(),
        recorded_by: String::new(),
        conditions,
        machine,
        metrics: ing.metrics,
        notes,
    })
}

/// This host as `probe` sees it: the GPU PyTorch reports, rocminfo's gfx, the ROCm release
/// (`/opt/rocm/.info/version`; `torch.version.hip` is a HIP build number, not a release), `torch.version.cuda`. Works without a GPU
/// (every field then stays empty).
pub fn probe_host() -> Machine {
    let p = crate::probe::probe("python3");
    let mut m = Machine::default();
    if let Some(py) = &p.python {
        let s = |k: &str| py.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
        m.gpu = s("device_name");
        m.cuda = s("cuda");
        m.torch = s("torch");
        if py.get("device_visible").and_then(|v| v.as_bool()) == Some(true) {
            m.gpus = py.get("device_count").and_then(|v| v.as_u64()).unwrap_or(0) as u32;
        }
    }
    let version = crate::safety::read_regular_bounded(Path::new("/opt/rocm/.info/version"), 4096);
    if let Ok(v) = version.map(|b| String::from_utf8_lossy(&b).into_owned()) {
        if let Some(release) = v.trim().split('-').next().filter(|r| !r.is_empty()) {
            m.rocm = release.to_string();
        }
    }
    if p.gfx.len() == 1 {
        m.gfx = p.gfx[0].clone();
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_the_file_and_say_so() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("r.json");
        std::fs::write(
            &f,
            r#"{"metrics": {"tokens_per_s": 1600}, "conditions": {"batch": 8, "gpu": "MI300X:gfx942"}}"#,
        )
        .unwrap();
        let input = RunInput {
            conditions: vec!["batch=16".into(), "model=llama".into()],
            machine: Machine {
                rocm: "6.4.1".into(),
                ..Default::default()
            },
            ..Default::default()
        };
        let run = ingest_run(&f, "r.json", &input).unwrap();
        assert_eq!(run.conditions["batch"], "16");
        assert_eq!(run.conditions["model"], "llama");
        assert!(
            run.notes.iter().any(|n| n.contains("the file says 8")),
            "{:?}",
            run.notes
        );
        assert_eq!(run.machine.gfx, "gfx942");
        assert_eq!(run.machine.rocm, "6.4.1");
        assert_eq!(run.machine.source, "flags, file");
        assert_eq!(run.sha256.len(), 64);
        assert_eq!(run.format, "plain-json");
    }
}
