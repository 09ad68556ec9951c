//! distributed rules: `NCCL_*` tuning carried into a ROCm deployment. RCCL reads most NCCL
//! variables, but values tuned for NVLink/InfiniBand NVIDIA clusters are not tuned for AMD
//! topologies, and some (NVLS, CollNet) do nothing at all. All of it surfaces as PERFORMANCE.

use super::tables::{self, RcclStatus};
use super::Out;
use crate::registry::RuleInfo;
use std::ops::Range;

rule!(NCCL_TUNING_ENV, "HP890", Distributed, Remediation, Performance,
    summary: "An `NCCL_*` tuning variable that RCCL also reads.",
    why: "RCCL honours the variable, but a value tuned on an NVIDIA cluster (NVLink, its NICs, its channel counts) is not a value tuned for AMD xGMI and your network.",
    bad: "export NCCL_MIN_NCHANNELS=32",
    good: "# start from RCCL defaults; re-tune with rccl-tests on the AMD cluster",
    fix: "Re-tune for RCCL and your topology, don't carry NVIDIA tuning blindly: drop it, measure with rccl-tests, then set what helps.",
    refs: ["https://rocm.docs.amd.com/projects/rccl/en/latest/api-reference/env-variables.html"],
);

rule!(NCCL_ENV_IGNORED_BY_RCCL, "HP891", Distributed, Remediation, Performance,
    summary: "An `NCCL_*` variable for an NVIDIA-only mechanism (NVLink SHARP, CollNet) that RCCL ignores.",
    why: "The mechanism does not exist on AMD hardware, so the setting does nothing and any tuning that relied on it is lost.",
    bad: "NCCL_NVLS_ENABLE=1",
    good: "# removed: no NVLS on AMD",
    fix: "Remove it; re-tune the collective performance with RCCL on the target topology.",
    refs: ["https://github.com/ROCm/rccl/blob/8232b998835a0b76b2833cd49541c73f845374ad/src/transport/nvls.cc"],
);

rule!(NCCL_ENV_DIFFERENT_MEANING, "HP892", Distributed, Remediation, Performance,
    summary: "An `NCCL_*` variable whose values name NVIDIA links (e.g. `NCCL_P2P_LEVEL=NVL`).",
    why: "On AMD the GPU links are xGMI and PCIe; values naming NVLink select different paths than intended.",
    bad: "NCCL_P2P_LEVEL=NVL",
    good: "# unset; let RCCL pick peer-to-peer paths on xGMI",
    fix: "Unset it, or re-derive the value for the AMD topology.",
    refs: ["https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"],
);

rule!(NCCL_DEBUG_ENV, "HP893", Distributed, Pass, Performance,
    summary: "An `NCCL_DEBUG*` logging variable: RCCL honours it.",
    why: "Logging variables carry over unchanged.",
    bad: "NCCL_DEBUG=INFO",
    good: "NCCL_DEBUG=INFO  # unchanged",
    fix: "Nothing to do.",
    refs: ["https://rocm.docs.amd.com/projects/rccl/en/latest/api-reference/env-variables.html"],
);

rule!(NCCL_PYTORCH_ENV, "HP894", Distributed, Pass, Performance,
    summary: "An `NCCL_*` variable that PyTorch's `ProcessGroupNCCL` reads (`NCCL_ASYNC_ERROR_HANDLING`, `NCCL_BLOCKING_WAIT`, `NCCL_DESYNC_DEBUG`: older names of `TORCH_NCCL_*`).",
    why: "ROCm PyTorch builds the same `ProcessGroupNCCL` on RCCL, so the variable means the same thing there; it is not NCCL tuning.",
    bad: "os.environ[\"NCCL_ASYNC_ERROR_HANDLING\"] = \"0\"",
    good: "os.environ[\"NCCL_ASYNC_ERROR_HANDLING\"] = \"0\"  # unchanged on ROCm PyTorch",
    fix: "Nothing to do (newer PyTorch reads the `TORCH_NCCL_*` name).",
    refs: ["https://pytorch.org/docs/stable/torch_nccl_environment_variables.html"],
);

pub const RULES: &[&RuleInfo] = &[
    &NCCL_TUNING_ENV,
    &NCCL_ENV_IGNORED_BY_RCCL,
    &NCCL_ENV_DIFFERENT_MEANING,
    &NCCL_DEBUG_ENV,
    &NCCL_PYTORCH_ENV,
];

/// Whether `name` is a variable NCCL reads. Install locations that builds and scripts name
/// after NCCL (`NCCL_HOME`, `NCCL_ROOT_DIR`, `NCCL_INCLUDE_DIR`, `NCCL_LIB_PATH`) are not: NCCL
/// never reads them, and the library they lead to is flagged where it is linked. Nor are the
/// versions install scripts and Dockerfiles pin (`NCCL_VERSION=2.30.7-1+cuda13.3`, `NCCL_VER`).
pub fn is_nccl_var(name: &str) -> bool {
    let location = [
        "_HOME", "_ROOT", "_DIR", "_PATH", "_PREFIX", "_VERSION", "_VER",
    ]
    .iter()
    .any(|end| name.ends_with(end));
    name.len() > 5
        && name.starts_with("NCCL_")
        && !location
        && name[5..]
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// NCCL's algorithms that RCCL does not build on AMD hardware (NVLink SHARP, CollNet).
const NVIDIA_ONLY_ALGOS: &[&str] = &[
    "NVLS",
    "NVLSTREE",
    "COLLNET",
    "COLLNETDIRECT",
    "COLLNETCHAIN",
];

/// Why a value leaves RCCL as it runs anyway, if it does: an ignored mechanism switched off
/// (`NCCL_NVLS_ENABLE=0`), or `NCCL_ALGO` excluding only algorithms RCCL does not have
/// (`^NVLS`).
fn inert_value(name: &str, status: Option<RcclStatus>, value: &str) -> Option<&'static str> {
    let v = value.trim().trim_matches(|c| c == '"' || c == '\'');
    if status == Some(RcclStatus::Ignored)
        && matches!(
            v.to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off" | "disable" | "disabled"
        )
    {
        return Some("this value switches the NVIDIA-only mechanism off, which is how RCCL runs anyway: nothing to change");
    }
    if name == "NCCL_ALGO" {
        if let Some(ex) = v.strip_prefix('^') {
            let all = ex
                .split(',')
                .map(|a| a.trim().to_ascii_uppercase())
                .all(|a| NVIDIA_ONLY_ALGOS.contains(&a.as_str()));
            if all && !ex.trim().is_empty() {
                return Some("it only excludes algorithms RCCL does not have (NVLS, CollNet), so RCCL keeps its own choice: nothing to change");
            }
        }
    }
    None
}

/// Raises the rule for setting `name` (an `NCCL_*` variable) at `range`, to `value` where the
/// setting's text gives it (`None`: not known).
pub fn nccl_setting(out: &mut Out, name: &str, range: Range<usize>, value: Option<&str>) {
    let row = tables::get().nccl(name);
    if let Some(why) = value.and_then(|v| inert_value(name, row.map(|r| r.status), v)) {
        let rule = match row.map(|r| r.status) {
            Some(RcclStatus::Ignored) => &NCCL_ENV_IGNORED_BY_RCCL,
            _ => &NCCL_TUNING_ENV,
        };
        out.push_pass(
            rule,
            range,
            format!("{name}={}: {why}", value.unwrap_or("").trim()),
        );
        return;
    }
    if let Some(r) = row.filter(|r| r.status == RcclStatus::Fabric) {
        out.push_pass(
            &NCCL_TUNING_ENV,
            range,
            format!("{name} is a setting of the network fabric ({}): it stays while the AMD nodes use that fabric", r.note),
        );
        return;
    }
    let (rule, msg) = match row.map(|r| r.status) {
        Some(RcclStatus::Ignored) => (
            &NCCL_ENV_IGNORED_BY_RCCL,
            format!("RCCL ignores {name}: {}", row.map(|r| r.note.as_str()).unwrap_or("")),
        ),
        Some(RcclStatus::DifferentMeaning) => (
            &NCCL_ENV_DIFFERENT_MEANING,
            format!("{name} means something different on AMD: {}; re-tune for RCCL and your topology", row.map(|r| r.note.as_str()).unwrap_or("")),
        ),
        Some(RcclStatus::Diagnostic) => (&NCCL_DEBUG_ENV, format!("{name} is logging only; RCCL honours it")),
        Some(RcclStatus::Pytorch) => (
            &NCCL_PYTORCH_ENV,
            format!("{name} is read by PyTorch's ProcessGroupNCCL, which ROCm PyTorch builds on RCCL: unchanged"),
        ),
        Some(RcclStatus::Honoured) | Some(RcclStatus::Fabric) => (
            &NCCL_TUNING_ENV,
            format!("{name} is NCCL tuning ({}): re-tune for RCCL and your topology, don't carry NVIDIA tuning blindly", row.map(|r| r.note.as_str()).unwrap_or("")),
        ),
        None => (
            &NCCL_TUNING_ENV,
            format!("{name} is NCCL tuning that hipport's table does not know: check the RCCL docs, re-tune for RCCL and your topology, don't carry NVIDIA tuning blindly"),
        ),
    };
    if row.is_some_and(|r| r.status == RcclStatus::Pytorch) {
        out.push(rule, range, msg, None);
        return;
    }
    let source = row.map(|r| r.source.split(" ; ").next().unwrap_or("").to_string());
    let suggestion = match source {
        Some(s) if !s.is_empty() => Some(format!(
            "measure with rccl-tests on the AMD cluster; see {s}"
        )),
        _ => Some("measure with rccl-tests on the AMD cluster".to_string()),
    };
    out.push(rule, range, msg, suggestion);
}
