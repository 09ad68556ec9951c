//! NVIDIA CI lanes of a project that already runs CI on AMD GPUs. DeepSpeed has
//! `amd-mi200.yml` (`runs-on: [self-hosted, amd, mi200]`) next to twenty `nv-*.yml` workflows
//! whose jobs run only on NVIDIA runners; torchao has `regression_test_rocm.yml` next to its
//! H100 workflows. Those NVIDIA workflows test the CUDA build: their runner labels, NGC images,
//! CUDA wheel indexes and nvidia-smi calls are right where they are, and the project's ROCm
//! testing lives in its AMD lane. So when some workflow of the project runs on an AMD runner,
//! the findings of every workflow whose jobs all run on NVIDIA runners become PASS, naming the
//! AMD lane, and so does every NVIDIA runner label (HP875) of a workflow that mixes NVIDIA and
//! other jobs. A project without an AMD lane keeps them all: its CI has to gain one.
//!
//! Runner labels are read line by line from `runs-on:` (a scalar, a `[...]` list or a block
//! list); labels written as expressions (`${{ matrix.runner }}`) say nothing and are skipped.

use super::deployment::nvidia_runner_label;
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeMap;

/// A GitHub Actions workflow file, by its path.
pub fn is_workflow(path: &str) -> bool {
    path.contains(".github/workflows/") && (path.ends_with(".yml") || path.ends_with(".yaml"))
}

/// A runner label that names AMD GPU machines (`amd`, `rocm`, `mi300x`, `gfx942`).
pub(crate) fn amd_runner_label(label: &str) -> bool {
    let lower = label.to_ascii_lowercase();
    lower
        .split(['-', '_', '.', ' '])
        .any(|w| matches!(w, "rocm" | "radeon" | "instinct") || amd_gpu_word(w))
}

/// Whether one lower-case word of a name names AMD or one of its GPUs: `amd`, `mi300x`,
/// `gfx942` (a digit right after the prefix: `midsize` is no GPU). Shared by CI runner labels
/// and by file names that say which platform they configure ([`super::platform_siblings`]).
pub(crate) fn amd_gpu_word(w: &str) -> bool {
    let digits_after = |p: &str| {
        w.strip_prefix(p)
            .is_some_and(|d| d.chars().next().is_some_and(|c| c.is_ascii_digit()))
    };
    w == "amd" || digits_after("mi") || digits_after("gfx")
}

/// The label sets of every `runs-on:` of a workflow, expressions left out.
fn runs_on(text: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let clean = |s: &str| s.trim().trim_matches(['"', '\'']).to_string();
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let body = body.strip_prefix("- ").unwrap_or(body).trim_start();
        let Some(value) = body.strip_prefix("runs-on:") else {
            continue;
        };
        let value = value.split(" #").next().unwrap_or("").trim();
        let mut labels: Vec<String> = Vec::new();
        if let Some(list) = value.strip_prefix('[') {
            labels.extend(list.trim_end_matches(']').split(',').map(clean));
        } else if value.is_empty() {
            let indent = line.len() - line.trim_start().len();
            for next in &lines[i + 1..] {
                let t = next.trim_start();
                if next.len() - t.len() <= indent || !t.starts_with('-') {
                    break;
                }
                labels.push(clean(&t[1..]));
            }
        } else {
            labels.push(clean(value));
        }
        labels.retain(|l| !l.is_empty() && !l.contains("${{"));
        if !labels.is_empty() {
            out.push(labels);
        }
    }
    out
}

/// Marks PASS the open findings of every workflow whose jobs all run on NVIDIA runners, when
/// another workflow of the project runs on AMD runners. `workflows` are (path, contents).
pub fn pass_nvidia_lanes(findings: &mut [Finding], workflows: &[(String, Vec<u8>)]) {
    let mut amd_lane: Option<&str> = None;
    let mut nvidia_only: BTreeMap<&str, ()> = BTreeMap::new();
    for (path, bytes) in workflows {
        let text = String::from_utf8_lossy(bytes);
        let sets = runs_on(&text);
        if sets.iter().flatten().any(|l| amd_runner_label(l)) {
            amd_lane.get_or_insert(path.as_str());
            continue;
        }
        if !sets.is_empty()
            && sets
                .iter()
                .all(|s| s.iter().any(|l| nvidia_runner_label(l)))
        {
            nvidia_only.insert(path.as_str(), ());
        }
    }
    let Some(amd) = amd_lane else { return };
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        if nvidia_only.contains_key(f.path.as_str()) {
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (a CI workflow whose jobs all run on NVIDIA runners: the project tests its ROCm build in its AMD lane, `{amd}`)"
            ));
        } else if f.rule == super::deployment::CI_NVIDIA_RUNNER_LABEL.id.code
            && is_workflow(&f.path)
        {
            // In a workflow that also has other jobs, the NVIDIA runner label itself still only
            // picks the NVIDIA machines of that job.
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (the job's NVIDIA lane: the project tests its ROCm build in its AMD lane, `{amd}`)"
            ));
        }
    }
}

/// Whether a workflow builds or tests for ROCm: a ROCm container image (`rocm/pytorch:…`,
/// `rocm/dev-ubuntu-22.04`), the ROCm PyTorch wheel index, hipcc, or a ROCm install
/// (`amdgpu-install`, `/opt/rocm`).
fn builds_for_rocm(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let image = lower.match_indices("rocm/").any(|(i, _)| {
        let before = lower[..i].chars().next_back();
        !before.is_some_and(|c| {
            c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-' || c == '.'
        }) && lower[i + 5..].starts_with(|c: char| c.is_ascii_lowercase())
    });
    image
        || lower.contains("download.pytorch.org/whl/rocm")
        || lower.contains("hipcc")
        || lower.contains("amdgpu-install")
        || lower.contains("/opt/rocm")
}

/// Marks PASS the open findings of the project's CUDA CI lanes (the CI decision,
/// `rules::facts::decision`: workflows and the CI's own scripts) when another
/// workflow of the project already builds or tests for ROCm (`builds_for_rocm`): the decision
/// those findings ask for, a ROCm lane beside the CUDA ones, is taken (AutoGPTQ's
/// `build_wheels_rocm.yml` beside its CUDA wheel and lint workflows). A project whose CI has no
/// such workflow keeps them.
pub fn pass_cuda_lanes_beside_a_rocm_lane(
    findings: &mut [Finding],
    workflows: &[(String, Vec<u8>)],
) {
    let rocm_lanes: Vec<(&str, String)> = workflows
        .iter()
        .filter(|(_, b)| builds_for_rocm(&String::from_utf8_lossy(b)))
        .filter_map(|(p, _)| Some((p.as_str(), crate::decisions::cuda_build::ci_root(p)?)))
        .collect();
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        // The ROCm lane of this finding's project (the CI root above it), not another's.
        let Some(rocm) = rocm_lanes
            .iter()
            .filter(|(p, root)| *p != f.path && f.path.starts_with(root.as_str()))
            .max_by_key(|(_, root)| root.len())
            .map(|(p, _)| *p)
        else {
            continue;
        };
        if crate::rules::facts::decision(f).is_some_and(|d| d.starts_with("a CI")) {
            f.settle(&format!(
                " (a CUDA lane of the project's CI, which already builds for ROCm in `{rocm}`: this lane stays as it is)"
            ));
        }
    }
}

/// Marks PASS the open findings of each composite action (`.github/actions/x/action.yml`) that
/// only CUDA-only CI steps call (steps the project's ROCm lane replaces, see
/// [`super::gha::model`]), naming the callers. An action with any other caller keeps its
/// findings; one no workflow calls is left to [`super::scripts::fold_unrun`].
pub fn pass_cuda_only_actions(findings: &mut [Finding], workflows: &[(String, Vec<u8>)]) {
    // action folder -> (every caller is CUDA-only, callers as `path:line`)
    let mut callers: BTreeMap<String, (bool, Vec<String>)> = BTreeMap::new();
    for (path, bytes) in workflows {
        for c in super::gha::model(bytes).callers {
            let e = callers.entry(c.action).or_insert((true, Vec::new()));
            e.0 &= c.cuda_only;
            e.1.push(format!("{path}:{}", c.line));
        }
    }
    for f in findings.iter_mut() {
        if f.status == Status::Pass || !super::gha::is_action(&f.path) {
            continue;
        }
        let dir = f.path.rsplit_once('/').map_or("", |(d, _)| d);
        if let Some((true, by)) = callers.get(dir) {
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (a composite action called only from CI steps the project's ROCm lane replaces: `{}`)",
                by.join("`, `")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Category;
    use crate::gate::Phase;

    fn f(path: &str, rule: &str) -> Finding {
        Finding {
            category: Category::Deployment,
            phase: Phase::Init,
            message: "m".into(),
            ..Finding::bare(rule, path, 1)
        }
    }

    /// AutoGPTQ's shape: a ROCm wheel workflow on a GitHub runner (a ROCm container) beside
    /// CUDA wheel and lint workflows; their CI findings are the CI decision, taken. Twins: the
    /// ROCm workflow's own findings, a source file's, and a project whose only mention of
    /// ROCm is a comment-free name (`rocm_smi_lib/`) keep theirs.
    #[test]
    fn cuda_lanes_pass_beside_a_workflow_that_builds_for_rocm() {
        let rocm = "jobs:\n  build:\n    runs-on: ubuntu-latest\n    container: rocm/dev-ubuntu-22.04:6.2\n    steps:\n      - run: pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n";
        let cuda = "jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pip install torch --index-url https://download.pytorch.org/whl/cu121\n";
        let at = |path: &str, rule: &str| Finding {
            status: Status::Remediation,
            ..f(path, rule)
        };
        let mut fs = vec![
            at(".github/workflows/build_wheels_pypi_linux.yml", "HP863"),
            at(".github/workflows/test_quality.yml", "HP820"),
            at("tools/ci/gpu-check.sh", "HP880"),
            at(".github/workflows/build_wheels_rocm.yml", "HP820"),
            at("setup.py", "HP843"),
        ];
        let wfs = [
            wf(".github/workflows/build_wheels_pypi_linux.yml", cuda),
            wf(".github/workflows/test_quality.yml", cuda),
            wf(".github/workflows/build_wheels_rocm.yml", rocm),
        ];
        pass_cuda_lanes_beside_a_rocm_lane(&mut fs, &wfs);
        let st: Vec<Status> = fs.iter().map(|x| x.status).collect();
        assert_eq!(
            st,
            [
                Status::Pass,
                Status::Pass,
                Status::Pass,
                Status::Remediation,
                Status::Remediation
            ]
        );
        assert!(
            fs[0]
                .message
                .contains("`.github/workflows/build_wheels_rocm.yml`"),
            "{}",
            fs[0].message
        );
        let mut fs = vec![at(".github/workflows/test_quality.yml", "HP820")];
        let wfs = [
            wf(".github/workflows/test_quality.yml", cuda),
            wf(".github/workflows/deps.yml", "jobs:\n  a:\n    steps:\n      - run: git clone https://github.com/x/amd_rocm/stuff\n"),
        ];
        pass_cuda_lanes_beside_a_rocm_lane(&mut fs, &wfs);
        assert_eq!(fs[0].status, Status::Remediation);
        // In a tree of several projects, another project's ROCm lane is not this one's.
        let mut fs = vec![at("mamba/.github/workflows/_build.yml", "HP850")];
        let wfs = [
            wf("mamba/.github/workflows/_build.yml", cuda),
            wf("ao/.github/workflows/rocm.yml", rocm),
        ];
        pass_cuda_lanes_beside_a_rocm_lane(&mut fs, &wfs);
        assert_eq!(fs[0].status, Status::Remediation);
    }

    const AMD: &str = "jobs:\n  amd-tests:\n    runs-on: [self-hosted, amd, mi200]\n";
    const NV: &str = "jobs:\n  unit-tests:\n    runs-on: [self-hosted, nvidia, cu124, v100]\n";
    const NV_BLOCK: &str = "jobs:\n  a:\n    runs-on:\n      - self-hosted\n      - h100\n  b:\n    runs-on: linux.g5.4xlarge.nvidia.gpu\n";
    // One NVIDIA job and one CPU job: not an NVIDIA-only lane.
    const MIXED: &str =
        "jobs:\n  a:\n    runs-on: [self-hosted, nvidia]\n  b:\n    runs-on: ubuntu-24.04\n";

    fn wf(path: &str, text: &str) -> (String, Vec<u8>) {
        (path.to_string(), text.as_bytes().to_vec())
    }

    #[test]
    fn nvidia_lanes_pass_when_the_project_has_an_amd_lane() {
        let mut fs = vec![
            f(".github/workflows/nv-inference.yml", "HP875"),
            f(".github/workflows/nv-h100.yml", "HP880"),
            f(".github/workflows/mixed.yml", "HP820"),
            f(".github/workflows/amd-mi200.yml", "HP880"),
            f(".github/workflows/mixed.yml", "HP875"),
        ];
        let wfs = [
            wf(".github/workflows/nv-inference.yml", NV),
            wf(".github/workflows/nv-h100.yml", NV_BLOCK),
            wf(".github/workflows/mixed.yml", MIXED),
            wf(".github/workflows/amd-mi200.yml", AMD),
        ];
        pass_nvidia_lanes(&mut fs, &wfs);
        let st: Vec<Status> = fs.iter().map(|x| x.status).collect();
        // The mixed workflow keeps its other findings; its NVIDIA runner label is the NVIDIA lane.
        assert_eq!(
            st,
            [
                Status::Pass,
                Status::Pass,
                Status::Remediation,
                Status::Remediation,
                Status::Pass
            ]
        );
        assert!(fs[0]
            .message
            .contains("AMD lane, `.github/workflows/amd-mi200.yml`"));
    }

    #[test]
    fn composite_actions_are_judged_by_their_callers() {
        let job = |cond: &str| {
            format!("jobs:\n  b:\n    strategy:\n      matrix:\n        tk: [cuda, rocm]\n    steps:\n      - if: {cond}\n        uses: ./.github/actions/cuda\n")
        };
        for (cond, want) in [
            ("matrix.tk == 'cuda'", Status::Pass),
            ("matrix.tk != 'cpu'", Status::Remediation),
        ] {
            let mut fs = vec![f(".github/actions/cuda/action.yml", "HP850")];
            pass_cuda_only_actions(&mut fs, &[wf(".github/workflows/ci.yml", &job(cond))]);
            assert_eq!(fs[0].status, want, "{cond}");
            if want == Status::Pass {
                assert!(
                    fs[0].message.contains("`.github/workflows/ci.yml:7`"),
                    "{}",
                    fs[0].message
                );
            }
        }
    }

    #[test]
    fn without_an_amd_lane_nothing_changes() {
        let mut fs = vec![f(".github/workflows/nv-inference.yml", "HP875")];
        let wfs = [
            wf(".github/workflows/nv-inference.yml", NV),
            wf(
                ".github/workflows/matrix.yml",
                "jobs:\n  a:\n    runs-on: ${{ matrix.runner }}\n",
            ),
        ];
        pass_nvidia_lanes(&mut fs, &wfs);
        assert_eq!(fs[0].status, Status::Remediation);
        assert!(amd_runner_label("linux.rocm.gpu.ecosystem.gfx950.1"));
        assert!(amd_runner_label("mi300x"));
        assert!(!amd_runner_label("ubuntu-latest"));
        assert!(!amd_runner_label("macos-14"));
        assert!(!amd_runner_label("midsize"));
    }
}
