//! `record baseline`: what can be read off the current machine about the CUDA baseline —
//! `git rev-parse HEAD`, `nvidia-smi`, `nvcc --version`, and torch through Python when present.
//! Anything missing stays empty for a person to fill; a machine with none of these tools is fine.

use super::Baseline;
use std::path::Path;
use std::process::Command;

/// What was detected, with one line per source saying what it gave or why not.
pub struct Detected {
    pub baseline: Baseline,
    pub notes: Vec<String>,
}

fn run(cmd: &str, args: &[&str], dir: &Path) -> Result<String, String> {
    match Command::new(cmd).args(args).current_dir(dir).output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        Ok(o) => Err(format!(
            "`{cmd}` failed: {}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
        )),
        Err(_) => Err(format!("`{cmd}` not found")),
    }
}

pub fn detect(root: &Path) -> Detected {
    let mut b = Baseline::default();
    let mut notes = Vec::new();
    match run("git", &["rev-parse", "HEAD"], root) {
        Ok(c) => {
            notes.push(format!("repo_commit from git: {c}"));
            b.repo_commit = c;
        }
        Err(e) => notes.push(format!("repo_commit: {e}")),
    }
    match run(
        "nvidia-smi",
        &["--query-gpu=name,driver_version", "--format=csv,noheader"],
        root,
    ) {
        Ok(out) => {
            if let Some((gpu, driver)) = parse_smi(&out) {
                notes.push(format!(
                    "gpu and cuda_driver from nvidia-smi: {gpu}, {driver}"
                ));
                b.gpu = gpu;
                b.cuda_driver = driver;
            }
        }
        Err(e) => notes.push(format!("gpu, cuda_driver: {e}")),
    }
    match run("nvcc", &["--version"], root) {
        Ok(out) => match parse_nvcc(&out) {
            Some(v) => {
                notes.push(format!("cuda_toolkit from nvcc: {v}"));
                b.cuda_toolkit = v;
            }
            None => notes.push("cuda_toolkit: nvcc --version printed no release".into()),
        },
        Err(e) => notes.push(format!("cuda_toolkit: {e}")),
    }
    let probe = "import json, torch; print(json.dumps({'torch': torch.__version__, 'cuda': torch.version.cuda}))";
    match run("python3", &["-c", probe], root) {
        Ok(out) => {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&out) {
                if let Some(t) = v["torch"].as_str() {
                    b.frameworks.insert("torch".into(), t.to_string());
                    notes.push(format!("frameworks.torch from python3: {t}"));
                }
                if b.cuda_toolkit.is_empty() {
                    if let Some(c) = v["cuda"].as_str() {
                        b.cuda_toolkit = c.to_string();
                        notes.push(format!("cuda_toolkit from torch.version.cuda: {c}"));
                    }
                }
            }
        }
        Err(_) => notes.push("frameworks: no python3 with torch".into()),
    }
    Detected { baseline: b, notes }
}

/// `NVIDIA A100-SXM4-80GB, 535.104.05` (first GPU) → name and driver; several GPUs are noted.
pub fn parse_smi(out: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
    let (name, driver) = lines.first()?.split_once(',')?;
    let name = if lines.len() > 1 {
        format!("{} x {}", lines.len(), name.trim())
    } else {
        name.trim().to_string()
    };
    Some((name, driver.trim().to_string()))
}

/// `Cuda compilation tools, release 12.1, V12.1.105` → `12.1.105`.
pub fn parse_nvcc(out: &str) -> Option<String> {
    let line = out.lines().find(|l| l.contains("release"))?;
    if let Some(v) = line
        .rsplit(", V")
        .next()
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    {
        return Some(v.trim().to_string());
    }
    let rel = line.split("release ").nth(1)?;
    Some(rel.split(',').next()?.trim().to_string())
}

/// Fills only the empty fields of `into` from `found`: a person's entries are never overwritten.
pub fn merge(into: &mut Baseline, found: Baseline) {
    for (dst, src) in [
        (&mut into.repo_commit, found.repo_commit),
        (&mut into.cuda_toolkit, found.cuda_toolkit),
        (&mut into.cuda_driver, found.cuda_driver),
        (&mut into.gpu, found.gpu),
    ] {
        if dst.trim().is_empty() {
            *dst = src;
        }
    }
    for (k, v) in found.frameworks {
        into.frameworks.entry(k).or_insert(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tool_output() {
        assert_eq!(
            parse_smi("NVIDIA A100-SXM4-80GB, 535.104.05\nNVIDIA A100-SXM4-80GB, 535.104.05\n"),
            Some(("2 x NVIDIA A100-SXM4-80GB".into(), "535.104.05".into()))
        );
        assert_eq!(
            parse_nvcc("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.1, V12.1.105\nBuild cuda_12.1.r12.1/compiler.32688072_0\n"),
            Some("12.1.105".into())
        );
    }

    #[test]
    fn detection_works_without_tools_and_merge_keeps_entries() {
        let d = tempfile::tempdir().unwrap();
        let found = detect(d.path());
        assert!(!found.notes.is_empty());
        let mut b = Baseline {
            gpu: "H100".into(),
            ..Default::default()
        };
        merge(
            &mut b,
            Baseline {
                gpu: "A100".into(),
                cuda_toolkit: "12.1.105".into(),
                ..Default::default()
            },
        );
        assert_eq!(b.gpu, "H100");
        assert_eq!(b.cuda_toolkit, "12.1.105");
    }
}
