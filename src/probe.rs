//! `probe`: the basic runtime gate as JSON evidence — Python and PyTorch versions,
//! `torch.version.cuda` and `torch.version.hip`, whether a device is visible and its name, a tiny
//! tensor operation, and whether `rocminfo`/`amd-smi`/`rocm-smi` exist. On a machine without a
//! GPU or torch it still answers, listing what is missing; the status is PASS only when a ROCm
//! build of torch ran the operation on a visible GPU.

use crate::gate::Status;
use crate::verify::hipcc::on_path;
use serde::Serialize;
use std::process::Command;

/// Runs inside Python; prints one JSON object whatever happens.
const TORCH_PROBE: &str = r#"
import json, platform
out = {"python": platform.python_version()}
try:
    import torch
    out["torch"] = torch.__version__
    out["cuda"] = getattr(torch.version, "cuda", None)
    out["hip"] = getattr(torch.version, "hip", None)
    try:
        out["device_visible"] = bool(torch.cuda.is_available())
        out["device_count"] = torch.cuda.device_count()
        out["device_name"] = torch.cuda.get_device_name(0) if out["device_visible"] else None
        dev = "cuda" if out["device_visible"] else "cpu"
        x = torch.ones(2, 2, device=dev)
        v = float((x @ x).sum().item())
        out["tensor_op"] = {"device": dev, "op": "ones(2,2) @ ones(2,2) sum", "value": v, "ok": v == 8.0}
    except Exception as e:
        out["device_error"] = repr(e)
except Exception as e:
    out["torch_error"] = repr(e)
print(json.dumps(out))
"#;

#[derive(Debug, Serialize)]
pub struct Probe {
    pub tool: String,
    pub date: String,
    pub status: Status,
    pub kernel: Option<String>,
    pub python: Option<serde_json::Value>,
    pub tools: Vec<ToolPresence>,
    /// rocminfo's `gfx…` agent names, when it ran.
    pub gfx: Vec<String>,
    pub missing: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct ToolPresence {
    pub name: &'static str,
    pub path: Option<String>,
}

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(cmd).args(args).output().ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
}

pub fn probe(python: &str) -> Probe {
    let mut missing = Vec::new();
    let tools: Vec<ToolPresence> = ["rocminfo", "amd-smi", "rocm-smi", "hipcc"]
        .into_iter()
        .map(|name| ToolPresence {
            name,
            path: on_path(name).map(|p| p.display().to_string()),
        })
        .collect();
    for t in tools
        .iter()
        .filter(|t| t.path.is_none() && t.name != "hipcc")
    {
        missing.push(format!("{} not on PATH", t.name));
    }
    let gfx: Vec<String> = output("rocminfo", &[])
        .map(|s| {
            let mut g: Vec<String> = s
                .split_whitespace()
                .filter(|w| w.starts_with("gfx"))
                .map(str::to_string)
                .collect();
            g.sort();
            g.dedup();
            g
        })
        .unwrap_or_default();
    if on_path("rocminfo").is_some() && gfx.is_empty() {
        missing.push(
            "rocminfo lists no GPU agent (no AMD GPU visible, or no access to /dev/kfd)".into(),
        );
    }
    let py = output(python, &["-c", TORCH_PROBE])
        .and_then(|s| serde_json::from_str::<serde_json::Value>(s.trim()).ok());
    let mut status = Status::Unknown;
    match &py {
        None => missing.push(format!("{python} not found or failed")),
        Some(v) => {
            if v.get("torch").is_none() {
                missing.push("PyTorch not importable".into());
            } else if v["hip"].is_null() {
                missing.push(if v["cuda"].is_null() {
                    "this PyTorch is a CPU build (torch.version.hip is None)".to_string()
                } else {
                    "this PyTorch is a CUDA build (torch.version.hip is None): install a ROCm build"
                        .to_string()
                });
            }
            if v["device_visible"] != serde_json::Value::Bool(true) && v.get("torch").is_some() {
                missing.push("no GPU visible to PyTorch".into());
            }
            let op_ok = v["tensor_op"]["ok"] == serde_json::Value::Bool(true);
            let on_gpu = v["tensor_op"]["device"] == "cuda";
            if !op_ok && v.get("torch").is_some() {
                missing.push("the tensor operation did not give the right answer".into());
            }
            if op_ok && on_gpu && !v["hip"].is_null() {
                status = Status::Pass;
            }
        }
    }
    Probe {
        tool: format!("hipport {}", env!("CARGO_PKG_VERSION")),
        date: crate::record::date::now(),
        status,
        kernel: output("uname", &["-r"]).map(|s| s.trim().to_string()),
        python: py,
        tools,
        gfx,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_without_python() {
        let p = probe("/nonexistent/python3");
        assert_eq!(p.status, Status::Unknown);
        assert!(p.missing.iter().any(|m| m.contains("not found")));
        let json = serde_json::to_value(&p).unwrap();
        assert!(json["tools"].as_array().unwrap().len() == 4);
    }
}
