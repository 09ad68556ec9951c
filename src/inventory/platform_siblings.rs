//! Per-machine or per-lane configuration files named for their platform, in one folder. Kripke
//! keeps CMake initial caches in `host-configs/`: `llnl-blueos-P100-nvcc-clang.cmake` for an
//! NVIDIA machine beside `llnl-toss4-MI250X-rocm5-vernal.cmake` for an AMD one. The NVIDIA
//! file configures the CUDA build of one machine; the project's ROCm build has its own
//! siblings, so the NVIDIA file's findings ask for nothing: they become PASS naming a ROCm
//! sibling. A folder without a ROCm-named sibling keeps its findings (the port's work), and so
//! does a file whose name says nothing of the platform.

use crate::finding::Finding;
use crate::gate::Status;

/// Script and configuration extensions this reading covers (not code: a `.cu` beside a `.hip`
/// is the counterparts' rule).
const CONFIG: &[&str] = &[
    "cmake", "sh", "bash", "yml", "yaml", "env", "cfg", "ini", "toml", "txt", "mk",
];

/// The platform a file name names by its words (split at `-`, `_`, `.`): `Some(true)` for ROCm
/// (`rocm5`, `hip`, `amd`, `mi250x`, `gfx90a`), `Some(false)` for NVIDIA (`nvcc`, `cuda12`,
/// `p100`, `v100`, `a100`, `h100`, `sm80`), `None` for neither or both.
fn named_platform(name: &str) -> Option<bool> {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let mut side = None;
    for w in stem.split(['-', '_', '.']).map(str::to_ascii_lowercase) {
        let rocm = w.starts_with("rocm") || w == "hip" || super::ci_lanes::amd_gpu_word(&w);
        let nvidia = w == "nvcc"
            || w == "nvidia"
            || w.starts_with("cuda")
            || ["p100", "v100", "a100", "h100", "b200", "gh200"].contains(&w.as_str())
            || w.strip_prefix("sm")
                .is_some_and(|d| d.starts_with(|c: char| c.is_ascii_digit()));
        let s = match (rocm, nvidia) {
            (true, false) => true,
            (false, true) => false,
            (true, true) => return None,
            _ => continue,
        };
        if side.is_some_and(|x| x != s) {
            return None;
        }
        side = Some(s);
    }
    side
}

/// Settles the open findings of NVIDIA-named configuration files that have a ROCm-named sibling
/// of the same extension in the same folder (`paths`: every file of the tree).
pub fn pass_nvidia_configs_beside_rocm_ones(findings: &mut [Finding], paths: &[&str]) {
    let split = |p: &str| -> (String, String, String) {
        let (dir, name) = p.rsplit_once('/').unwrap_or(("", p));
        let ext = name
            .rsplit_once('.')
            .map_or("", |(_, e)| e)
            .to_ascii_lowercase();
        (dir.to_string(), name.to_string(), ext)
    };
    let mut rocm: std::collections::BTreeMap<(String, String), String> = Default::default();
    for p in paths {
        let (dir, name, ext) = split(p);
        if CONFIG.contains(&ext.as_str()) && named_platform(&name) == Some(true) {
            rocm.entry((dir, ext)).or_insert(p.to_string());
        }
    }
    if rocm.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        if f.status == Status::Pass || !matches!(f.rule.get(2..3), Some("8") | Some("9")) {
            continue;
        }
        let (dir, name, ext) = split(&f.path);
        if named_platform(&name) != Some(false) {
            continue;
        }
        if let Some(sibling) = rocm.get(&(dir, ext)) {
            f.settle(&format!(
                " (a configuration named for an NVIDIA machine or lane; the project keeps ROCm ones beside it, e.g. `{sibling}`)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kripke's `host-configs/` (BSD-3-Clause). Twins: a folder without a ROCm-named sibling,
    /// and a file whose name says nothing of the platform.
    #[test]
    fn nvidia_configs_beside_rocm_ones_are_pass() {
        let paths = [
            "host-configs/llnl-blueos-P100-nvcc-clang.cmake",
            "host-configs/llnl-toss4-MI250X-rocm5-vernal.cmake",
            "host-configs/llnl-toss3-gcc7.1.cmake",
            "other/summit-cuda11.cmake",
        ];
        let mut fs = vec![
            Finding::bare(
                "HP844",
                "host-configs/llnl-blueos-P100-nvcc-clang.cmake",
                26,
            ),
            Finding::bare("HP844", "host-configs/llnl-toss3-gcc7.1.cmake", 3),
            Finding::bare("HP844", "other/summit-cuda11.cmake", 3),
            Finding::bare("HP001", "host-configs/llnl-blueos-P100-nvcc-clang.cmake", 2),
        ];
        pass_nvidia_configs_beside_rocm_ones(&mut fs, &paths);
        let st: Vec<Status> = fs.iter().map(|f| f.status).collect();
        assert_eq!(
            st,
            [
                Status::Pass,
                Status::Remediation,
                Status::Remediation,
                Status::Remediation
            ]
        );
        assert!(fs[0].message.contains("MI250X-rocm5"), "{}", fs[0].message);
        assert_eq!(
            named_platform("llnl-toss4-MI100-rocm4-nevada.cmake"),
            Some(true)
        );
        assert_eq!(named_platform("build-hip-on-cuda.sh"), None);
        assert_eq!(named_platform("smoke.sh"), None);
    }
}
