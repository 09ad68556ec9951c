//! Which steps of a GitHub Actions workflow the project's ROCm CI runs. A job with
//! `matrix: {toolkit_type: [cuda, rocm]}` runs its `if: matrix.toolkit_type == 'cuda'` steps only
//! in the CUDA lane: the ROCm lane of the same job replaces them, so what they do (nvcc, CUDA
//! wheel indexes) is the CUDA build's business, not porting work. This module expands each job's
//! `strategy.matrix` (axes, `include:`, `exclude:`) into lanes, gives each lane its platform
//! (from its matrix values, its runner labels and the job's container), evaluates job and step
//! `if:` per lane (`==`, `!=`, `&&`, `||`, `!`, `contains`, `startsWith`, `endsWith`, with
//! `env:` of the workflow, job and step substituted; anything else is unknown and stays live),
//! and answers:
//! - [`Model::dead`]: byte ranges (steps, jobs) the ROCm CI never runs, with the deciding
//!   condition, for the file's findings to become PASS;
//! - [`Model::runs`]: the `env:` in scope of each `run:` block, so `${ROCM_INDEX}` is read as the
//!   ROCm index it is;
//! - [`Model::callers`]: the local actions (`uses: ./.github/actions/x`) each step calls, and
//!   whether only CUDA lanes call them, for composite actions to be judged by their callers.
//!
//! A job with only CUDA lanes in a workflow without a ROCm lane keeps everything: its CI has to
//! gain one.
//!
//! Each lane also gets its runner's operating system from its `runs-on:` labels
//! (`windows-2022`, `macos-14`, `ubuntu-22.04`), which `runner.os` reads: the ROCm builds this
//! tool targets run on Linux, so a job or step that runs only in Windows or macOS lanes is not
//! the ROCm build's, in any workflow (`runner_os`).

use super::ci_lanes::amd_runner_label;
use super::deployment::nvidia_runner_label;
use super::gha_expr::{eval, substitute, Scope};
use super::yaml_tree::{tree, Y};
use std::collections::BTreeMap;
use std::ops::Range;

/// The platform a matrix value, runner label, image or name speaks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Cuda,
    Rocm,
    Neutral,
}

/// The platform named by a word list (`rocm7.2`, `cu124`, `nvidia/cuda:12.4`, `gfx942`).
pub fn platform_of(text: &str) -> Platform {
    let lower = text.to_ascii_lowercase();
    let (mut cuda, mut rocm) = (false, false);
    for w in lower.split(|c: char| !c.is_ascii_alphanumeric()) {
        let digits_after = |p: &str| {
            w.strip_prefix(p)
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        };
        if w.starts_with("rocm")
            || matches!(w, "hip" | "amd" | "amdgpu")
            || digits_after("gfx")
            || digits_after("mi")
        {
            rocm = true;
        } else if w.starts_with("cuda")
            || matches!(w, "nvidia" | "nvcc" | "cudnn")
            || digits_after("cu")
        {
            cuda = true;
        }
    }
    match (cuda, rocm) {
        (true, false) => Platform::Cuda,
        (false, true) => Platform::Rocm,
        _ => Platform::Neutral,
    }
}

/// A matrix value that switches its axis off (`none`, `''`, `false`, `cpu`): the axis' name then
/// says nothing about the lane.
pub(crate) fn off(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "" | "none" | "null" | "false" | "0" | "off" | "no" | "cpu"
    )
}

/// One lane of a job: its matrix values (`toolkit_type` → `cuda`), platform, runner OS and a
/// label.
#[derive(Clone, Debug)]
struct Lane {
    vars: BTreeMap<String, String>,
    platform: Platform,
    os: Option<&'static str>,
}

/// The operating system a runner label names, as `runner.os` spells it.
pub(crate) fn runner_os(label: &str) -> Option<&'static str> {
    let l = label.trim().to_ascii_lowercase();
    if l.starts_with("windows") {
        Some("Windows")
    } else if l.starts_with("macos") {
        Some("macOS")
    } else if l.starts_with("ubuntu") || l == "linux" || l.starts_with("linux.") {
        Some("Linux")
    } else {
        None
    }
}

/// Programs that check, format or document code without running it on a GPU.
const TOOLING: [&str; 22] = [
    "ruff",
    "flake8",
    "black",
    "isort",
    "mypy",
    "pylint",
    "pyright",
    "pre-commit",
    "codespell",
    "yapf",
    "clang-format",
    "cpplint",
    "pydocstyle",
    "sphinx-build",
    "sphinx-apidoc",
    "mkdocs",
    "doc8",
    "twine",
    "check-manifest",
    "interrogate",
    "autoflake",
    "pyupgrade",
];

/// Programs that set a job up (install, move around, print) rather than do its work.
const SETUP: [&str; 31] = [
    // Publishing what the tools built (docs uploaded to a bucket or a pages branch).
    "touch",
    "aws",
    "gsutil",
    "rsync",
    "tar",
    "zip",
    "ghp-import",
    "pip",
    "pip3",
    "conda",
    "mamba",
    "micromamba",
    "uv",
    "apt",
    "apt-get",
    "sudo",
    "echo",
    "cd",
    "export",
    "mkdir",
    "cp",
    "mv",
    "ls",
    "cat",
    "git",
    "curl",
    "wget",
    "source",
    "set",
    "rm",
    "printf",
];

/// The checking and documentation tools a job runs, when that is all its `run:` steps do
/// besides setting up (`pip install torch ruff` then `ruff check .`: torch is installed to be
/// imported by a linter, not to use a GPU). `None` when any command is something else
/// (`pytest`, `python train.py`, `make`), or when it runs no such tool.
fn tooling_only(job: &Y) -> Option<Vec<String>> {
    let mut tools: Vec<String> = Vec::new();
    for step in job.get("steps").map_or(&[][..], |s| s.items()) {
        let Some(run) = step.get("run").and_then(Y::str) else {
            continue;
        };
        for line in run.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            for cmd in line
                .split(['&', ';', '|'])
                .map(str::trim)
                .filter(|c| !c.is_empty())
            {
                let mut words = cmd
                    .split_whitespace()
                    .skip_while(|w| w.contains('=') && !w.starts_with('-'));
                let mut first = words.next().unwrap_or("");
                if matches!(first, "python" | "python3") {
                    if words.next() != Some("-m") {
                        return None;
                    }
                    first = words.next().unwrap_or("");
                }
                if first == "make" {
                    if words.all(|w| {
                        matches!(w, "html" | "docs" | "doc" | "linkcheck" | "-C" | "docs/")
                    }) {
                        tools.push("make docs".into());
                        continue;
                    }
                    return None;
                }
                if SETUP.contains(&first) || first.is_empty() || first == "\\" {
                    continue;
                }
                if !TOOLING.contains(&first) {
                    return None;
                }
                if !tools.iter().any(|t| t == first) {
                    tools.push(first.to_string());
                }
            }
        }
    }
    (!tools.is_empty()).then_some(tools)
}

/// Whether a lane runs on another OS than Linux.
fn off_linux(l: &Lane) -> bool {
    l.os.is_some_and(|o| o != "Linux")
}

impl Lane {
    fn label(&self) -> String {
        if self.vars.is_empty() {
            return "the job".into();
        }
        let kv: Vec<String> = self.vars.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        format!("`{}`", kv.join(", "))
    }
}

const MAX_LANES: usize = 256;

fn flat(prefix: &str, y: &Y, out: &mut BTreeMap<String, String>) {
    match y {
        Y::Str(s, _) => {
            out.insert(prefix.to_string(), s.clone());
        }
        Y::Map(kv, _) => {
            for (k, v) in kv {
                flat(&format!("{prefix}.{k}"), v, out);
            }
        }
        _ => {}
    }
}

/// The lanes of a job's `strategy.matrix` (one empty lane without a matrix); `None` when the
/// matrix is computed (`${{ fromJSON(...) }}`) or too large: its lanes are unknown.
fn lanes(matrix: Option<&Y>) -> Option<Vec<BTreeMap<String, String>>> {
    let Some(m) = matrix else {
        return Some(vec![BTreeMap::new()]);
    };
    let Y::Map(axes, _) = m else { return None };
    let mut out: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
    let mut names = Vec::new();
    for (k, v) in axes {
        if k == "include" || k == "exclude" {
            continue;
        }
        let Y::Seq(vals, _) = v else { return None };
        names.push(k.clone());
        let mut next = Vec::new();
        for lane in &out {
            for val in vals {
                let mut l = lane.clone();
                flat(k, val, &mut l);
                next.push(l);
            }
        }
        if next.len() > MAX_LANES {
            return None;
        }
        out = next;
    }
    if names.is_empty() {
        out.clear();
    }
    let entry = |y: &Y| {
        let mut m = BTreeMap::new();
        for (k, v) in y.pairs() {
            flat(k, v, &mut m);
        }
        m
    };
    let matches = |lane: &BTreeMap<String, String>, e: &BTreeMap<String, String>, only: bool| {
        e.iter().all(|(k, v)| {
            (only
                && !names
                    .iter()
                    .any(|n| k == n || k.starts_with(&format!("{n}."))))
                || lane.get(k).is_some_and(|x| x.eq_ignore_ascii_case(v))
        })
    };
    if let Some(ex) = m.get("exclude") {
        for e in ex.items().iter().map(entry) {
            out.retain(|l| !matches(l, &e, false));
        }
    }
    if let Some(inc) = m.get("include") {
        for e in inc.items().iter().map(entry) {
            let touches_axis = e.keys().any(|k| {
                names
                    .iter()
                    .any(|n| k == n || k.starts_with(&format!("{n}.")))
            });
            let mut hit = false;
            if touches_axis {
                for l in out.iter_mut().filter(|l| matches(l, &e, true)) {
                    l.extend(e.clone());
                    hit = true;
                }
            }
            if !hit {
                out.push(e);
            }
        }
    }
    (out.len() <= MAX_LANES && !out.is_empty()).then_some(out)
}

/// The literal entries of an `env:` map (values with expressions are left out: they are per
/// lane or per run).
fn literal_env(y: Option<&Y>, into: &mut BTreeMap<String, String>) {
    for (k, v) in y.map_or(&[][..], |y| y.pairs()) {
        if let Some(s) = v.str().filter(|s| !s.contains("${{")) {
            into.insert(k.clone(), s.to_string());
        }
    }
}

/// A step that calls a local action (`uses: ./.github/actions/build`).
#[derive(Clone, Debug)]
pub struct Caller {
    /// The action's folder, relative to the repository root (`.github/actions/build`).
    pub action: String,
    /// The ROCm CI never runs this call (it runs only in CUDA lanes of a job with a ROCm lane).
    pub cuda_only: bool,
    /// The step's line, for messages.
    pub line: usize,
}

/// What one workflow (or composite action) file says about the ROCm CI.
#[derive(Default, Debug)]
pub struct Model {
    /// Byte ranges the ROCm CI never runs, with why.
    pub dead: Vec<(Range<usize>, String)>,
    /// Each `run:` block's byte range with the literal `env:` in scope there.
    pub runs: Vec<(Range<usize>, BTreeMap<String, String>)>,
    /// Local actions called, by step.
    pub callers: Vec<Caller>,
}

/// A workflow's jobs, or a composite action's steps, read into a [`Model`].
pub fn model(src: &[u8]) -> Model {
    let mut m = Model::default();
    let Some(root) = tree(src) else { return m };
    let line = |b: usize| {
        src[..b.min(src.len())]
            .iter()
            .filter(|&&c| c == b'\n')
            .count()
            + 1
    };
    let mut wf_env = BTreeMap::new();
    literal_env(root.get("env"), &mut wf_env);
    // A composite action: its steps with the action's env.
    if let Some(steps) = root.get("runs").and_then(|r| r.get("steps")) {
        for s in steps.items() {
            let mut env = wf_env.clone();
            literal_env(s.get("env"), &mut env);
            // A step its own condition keeps off the ROCm build: `if: inputs.gpu == 'ON' &&
            // inputs.rocm != 'ON'` (the action's ROCm switch is on there).
            if let Some(cond) = s.get("if").and_then(Y::str) {
                let empty = BTreeMap::new();
                let scope = Scope {
                    matrix: &empty,
                    env: &env,
                    runner_os: None,
                    rocm_build: true,
                };
                if eval(cond, &scope) == Some(false) {
                    m.dead.push((
                        s.range(),
                        format!(
                            "a step of this action under `if: {}` (line {}), false where the action's ROCm switch is on: the project's ROCm CI does not run it",
                            cond.trim(),
                            line(s.range().start)
                        ),
                    ));
                }
            }
            if let Some(r) = s.get("run") {
                m.runs.push((r.range(), env));
            }
        }
        return m;
    }
    let Some(Y::Map(jobs, _)) = root.get("jobs") else {
        return m;
    };
    struct Job<'a> {
        id: &'a str,
        y: &'a Y,
        lanes: Option<Vec<Lane>>,
        env: BTreeMap<String, String>,
    }
    let mut read: Vec<Job> = Vec::new();
    for (id, job) in jobs {
        let mut env = wf_env.clone();
        literal_env(job.get("env"), &mut env);
        let base = [
            Some(id.as_str()),
            job.get("name").and_then(Y::str),
            job.get("container")
                .and_then(|c| c.str().or(c.get("image").and_then(Y::str))),
        ]
        .into_iter()
        .flatten()
        .map(platform_of)
        .find(|p| *p != Platform::Neutral)
        .unwrap_or(Platform::Neutral);
        let labels: Vec<&str> = match job.get("runs-on") {
            Some(Y::Str(s, _)) => vec![s.as_str()],
            Some(Y::Seq(v, _)) => v.iter().filter_map(Y::str).collect(),
            _ => Vec::new(),
        };
        let lanes = lanes(job.get("strategy").and_then(|s| s.get("matrix"))).map(|ls| {
            ls.into_iter()
                .map(|vars| {
                    let scope = Scope {
                        matrix: &vars,
                        env: &env,
                        runner_os: None,
                        rocm_build: false,
                    };
                    let mut p = Platform::Neutral;
                    let os = labels
                        .iter()
                        .filter_map(|l| substitute(l, &scope))
                        .find_map(|l| runner_os(&l));
                    let mut seen = |q: Platform| {
                        p = match (p, q) {
                            (x, Platform::Neutral) => x,
                            (Platform::Neutral, q) => q,
                            (x, q) if x == q => x,
                            _ => Platform::Neutral,
                        };
                    };
                    for (k, v) in &vars {
                        let from_value = platform_of(v);
                        if from_value != Platform::Neutral {
                            seen(from_value);
                        } else if !off(v) {
                            seen(platform_of(k));
                        }
                    }
                    for l in &labels {
                        if let Some(l) = substitute(l, &scope) {
                            if amd_runner_label(&l) {
                                seen(Platform::Rocm);
                            } else if nvidia_runner_label(&l) {
                                seen(Platform::Cuda);
                            }
                        }
                    }
                    if p == Platform::Neutral {
                        p = base;
                    }
                    Lane {
                        vars,
                        platform: p,
                        os,
                    }
                })
                .collect::<Vec<_>>()
        });
        // A matrix written as one expression (`${{ fromJson(…) }}`) has lanes nobody can list,
        // but a literal macOS or Windows runner says where every one of them runs, and a literal
        // NVIDIA (or AMD) GPU runner which GPU they all run on (hidet's `run-test-l4`).
        let lanes = lanes.or_else(|| {
            let literal = || labels.iter().filter(|l| !l.contains("${{"));
            let os = literal()
                .find_map(|l| runner_os(l))
                .filter(|os| *os != "Linux");
            let gpu = if literal().any(|l| amd_runner_label(l)) {
                Some(Platform::Rocm)
            } else if literal().any(|l| nvidia_runner_label(l)) {
                Some(Platform::Cuda)
            } else {
                None
            };
            if os.is_none() && gpu.is_none() {
                return None;
            }
            Some(vec![Lane {
                vars: BTreeMap::new(),
                platform: gpu.unwrap_or(base),
                os,
            }])
        });
        read.push(Job {
            id,
            y: job,
            lanes,
            env,
        });
    }
    let rocm_job = read
        .iter()
        .find(|j| {
            j.lanes
                .as_ref()
                .is_some_and(|ls| ls.iter().any(|l| l.platform == Platform::Rocm))
        })
        .map(|j| j.id.to_string());
    for job in &read {
        let Some(lanes) = &job.lanes else {
            // Unknown lanes: every step may run for ROCm; still record runs and callers.
            for s in job.y.get("steps").map_or(&[][..], |s| s.items()) {
                let mut env = job.env.clone();
                literal_env(s.get("env"), &mut env);
                if let Some(r) = s.get("run") {
                    m.runs.push((r.range(), env));
                }
                if let Some(a) = s.get("uses").and_then(Y::str).and_then(local_action) {
                    m.callers.push(Caller {
                        action: a,
                        cuda_only: false,
                        line: line(s.range().start),
                    });
                }
            }
            continue;
        };
        let has_rocm = lanes.iter().any(|l| l.platform == Platform::Rocm);
        let job_if = job.y.get("if").and_then(Y::str);
        let live: Vec<&Lane> = lanes
            .iter()
            .filter(|l| {
                job_if.is_none_or(|c| {
                    eval(
                        c,
                        &Scope {
                            matrix: &l.vars,
                            env: &job.env,
                            runner_os: l.os,
                            rocm_build: false,
                        },
                    ) != Some(false)
                })
            })
            .collect();
        // A job whose lanes are all CUDA, beside a job with a ROCm lane in the same workflow.
        let job_cuda_only = !has_rocm
            && !live.is_empty()
            && live.iter().all(|l| l.platform == Platform::Cuda)
            && rocm_job.is_some();
        if job_cuda_only {
            m.dead.push((
                job.y.range(),
                format!(
                    "in CI job `{}`, which runs only CUDA lanes: the workflow's ROCm lane, job `{}`, replaces it in the project's ROCm CI",
                    job.id,
                    rocm_job.as_deref().unwrap_or("")
                ),
            ));
        }
        // Every lane on Windows or macOS runners: not the ROCm build's OS.
        let job_off_linux = !live.is_empty() && live.iter().all(|l| off_linux(l));
        if job_off_linux {
            let oses: std::collections::BTreeSet<&str> = live.iter().filter_map(|l| l.os).collect();
            let oses: Vec<&str> = oses.into_iter().collect();
            m.dead.push((
                job.y.range(),
                format!(
                    "in CI job `{}`, which runs only on {} runners: the ROCm build's target OS is Linux",
                    job.id,
                    oses.join(" and ")
                ),
            ));
        }
        if !job_off_linux && !job_cuda_only {
            if let Some(tools) = tooling_only(job.y) {
                m.dead.push((
                    job.y.range(),
                    format!(
                        "in CI job `{}`, which runs only {}: it installs packages to import or document them, and runs no GPU code",
                        job.id,
                        tools
                            .iter()
                            .map(|t| format!("`{t}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        for s in job.y.get("steps").map_or(&[][..], |s| s.items()) {
            let mut env = job.env.clone();
            literal_env(s.get("env"), &mut env);
            let cond = s.get("if").and_then(Y::str);
            let step_live: Vec<&&Lane> = live
                .iter()
                .filter(|l| {
                    cond.is_none_or(|c| {
                        eval(
                            c,
                            &Scope {
                                matrix: &l.vars,
                                env: &env,
                                runner_os: l.os,
                                rocm_build: false,
                            },
                        ) != Some(false)
                    })
                })
                .collect();
            let cuda_only = job_cuda_only
                || (has_rocm
                    && cond.is_some()
                    && step_live.iter().all(|l| l.platform == Platform::Cuda));
            // A step only Windows/macOS lanes run (`if: runner.os == 'Windows'`).
            if !job_off_linux
                && cond.is_some()
                && !step_live.is_empty()
                && step_live.len() < live.len()
                && step_live.iter().all(|l| off_linux(l))
            {
                m.dead.push((
                    s.range(),
                    format!(
                        "a CI step under `if: {}` (line {}), which runs only in the job's {} lanes: the ROCm build's target OS is Linux",
                        cond.unwrap_or("").trim(),
                        line(s.range().start),
                        step_live.iter().filter_map(|l| l.os).next().unwrap_or("non-Linux")
                    ),
                ));
            }
            if cuda_only && !job_cuda_only {
                let rocm_lane = lanes
                    .iter()
                    .find(|l| l.platform == Platform::Rocm)
                    .map(Lane::label)
                    .unwrap_or_default();
                let runs_in = if step_live.is_empty() {
                    "in no lane of the job".to_string()
                } else {
                    let ls: Vec<String> = step_live.iter().map(|l| l.label()).collect();
                    format!("only in the job's CUDA lanes ({})", ls.join("; "))
                };
                m.dead.push((
                    s.range(),
                    format!(
                        "a CI step under `if: {}` (line {}), which runs {runs_in}: job `{}`'s ROCm lane {rocm_lane} replaces it in the project's ROCm CI",
                        cond.unwrap_or("").trim(),
                        line(s.range().start),
                        job.id
                    ),
                ));
            }
            if let Some(r) = s.get("run") {
                m.runs.push((r.range(), env));
            }
            if let Some(a) = s.get("uses").and_then(Y::str).and_then(local_action) {
                m.callers.push(Caller {
                    action: a,
                    cuda_only,
                    line: line(s.range().start),
                });
            }
        }
    }
    m
}

/// The folder of a local action (`./.github/actions/build` → `.github/actions/build`).
fn local_action(uses: &str) -> Option<String> {
    let p = uses.strip_prefix("./")?;
    Some(p.trim_end_matches('/').to_string())
}

/// A composite action's definition file, by path (`.github/actions/x/action.yml`).
pub fn is_action(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "action.yml" | "action.yaml")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATRIX: &str = "env:\n  ROCM_INDEX: rocm7.2\njobs:\n  build:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        toolkit_type: ['cuda', 'rocm']\n    steps:\n      - uses: actions/checkout@v4\n      - name: cuda\n        if: matrix.toolkit_type == 'cuda'\n        run: nvcc k.cu\n      - if: matrix.toolkit_type != 'cuda'\n        run: hipcc k.cu\n      - if: ${{ matrix.toolkit_type == 'cuda' || env.ROCM_INDEX == 'rocm7.2' }}\n        run: make\n      - if: matrix.toolkit_type == 'cuda'\n        uses: ./.github/actions/cuda\n";

    #[test]
    fn cuda_steps_of_a_job_with_a_rocm_lane_are_dead() {
        let m = model(MATRIX.as_bytes());
        let dead = dead_lines(&m, MATRIX);
        // The `cuda` step (line 11) and the action call (line 18); not hipcc nor the `||` step.
        assert_eq!(dead, [11, 18], "{:?}", m.dead);
        assert!(m.dead[0].1.contains("`if: matrix.toolkit_type == 'cuda'`"));
        assert!(m.dead[0].1.contains("`toolkit_type: rocm`"));
        assert_eq!(m.callers.len(), 1);
        assert!(m.callers[0].cuda_only);
        assert_eq!(
            m.runs[0].1.get("ROCM_INDEX").map(String::as_str),
            Some("rocm7.2")
        );
    }

    #[test]
    fn a_matrix_of_cuda_lanes_only_keeps_its_steps() {
        let only = MATRIX.replace("['cuda', 'rocm']", "['cuda', 'cpu']");
        let m = model(only.as_bytes());
        assert!(m.dead.is_empty(), "{:?}", m.dead);
        assert!(!m.callers[0].cuda_only);
        // A computed matrix: lanes unknown, nothing dead.
        let computed = MATRIX.replace(
            "        toolkit_type: ['cuda', 'rocm']\n",
            "        toolkit_type: ${{ fromJSON(inputs.t) }}\n",
        );
        assert!(model(computed.as_bytes()).dead.is_empty());
    }

    /// The line each dead range of `m` starts on.
    fn dead_lines(m: &Model, src: &str) -> Vec<usize> {
        m.dead
            .iter()
            .map(|(r, _)| src[..r.start].lines().count())
            .collect()
    }

    #[test]
    fn platforms() {
        assert_eq!(platform_of("rocm7.2"), Platform::Rocm);
        assert_eq!(platform_of("cu124"), Platform::Cuda);
        assert_eq!(platform_of("ubuntu-latest"), Platform::Neutral);
        assert_eq!(platform_of("custom"), Platform::Neutral);
    }

    /// AutoGPTQ's quality job installs torch for `ruff`; a docs job for Sphinx. Twins: a job
    /// that also runs the tests, and a `python` script, are GPU work.
    #[test]
    fn jobs_that_only_lint_or_document_run_no_gpu_code() {
        let src = "jobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: |\n          pip install torch ruff  # the linter imports nothing\n          ruff check . && python -m black --check .\n  docs:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pip install torch sphinx\n      - run: make -C docs html\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pip install torch ruff\n      - run: ruff check .\n      - run: pytest tests\n  script:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pip install torch\n      - run: python bench.py\n";
        let m = model(src.as_bytes());
        assert_eq!(dead_lines(&m, src), [3, 10], "{:?}", m.dead);
        assert!(
            m.dead[0].1.contains("runs only `ruff`, `black`"),
            "{:?}",
            m.dead
        );
        assert!(
            m.dead[1].1.contains("runs only `make docs`"),
            "{:?}",
            m.dead
        );
    }

    /// PyTorch-Encoding's docs workflow: torch is installed for Sphinx to import the package,
    /// the docs are built and published. Twin: the same job running the tests uses the GPU.
    #[test]
    fn a_docs_job_that_builds_and_publishes_runs_no_gpu_code() {
        let src = "name: Build Docs\njobs:\n  docs:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v1\n      - run: |\n          python -m pip install --upgrade pip\n          pip install pytest torch\n      - run: |\n          cd docs/\n          make html\n          touch build/html/.nojekyll\n          aws s3 sync build/html/ s3://bucket/docs/ --acl public-read\n";
        let m = model(src.as_bytes());
        assert_eq!(dead_lines(&m, src), [4], "{:?}", m.dead);
        let tests = src.replace("make html", "pytest tests/");
        assert!(model(tests.as_bytes()).dead.is_empty());
    }

    #[test]
    fn a_macos_runner_with_an_expression_matrix_is_not_the_rocm_build() {
        // k2-fsa/k2's build-cpu-macos.yml: the matrix comes from another job's output.
        let src = "jobs:\n  build:\n    runs-on: macos-latest\n    strategy:\n      matrix:\n        ${{ fromJson(needs.gen.outputs.matrix) }}\n    steps:\n      - run: pip install torch==${{ matrix.torch }}\n  lin:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        ${{ fromJson(needs.gen.outputs.matrix) }}\n    steps:\n      - run: pip install torch==${{ matrix.torch }}\n";
        let m = model(src.as_bytes());
        // The macOS job is dead as a whole; the Linux job's lanes are not known, so not judged.
        assert_eq!(dead_lines(&m, src), [3], "{:?}", m.dead);
    }

    /// hidet's tests.yaml: `run-test-l4` takes its matrix from another job's output but runs on
    /// a literal NVIDIA GPU runner; beside the workflow's ROCm job (`[self-hosted, rocm]`) it
    /// is a CUDA-only job. Twin: the same job on a generic runner stays unjudged.
    #[test]
    fn an_nvidia_runner_with_an_expression_matrix_is_a_cuda_lane() {
        let src = "jobs:\n  run-test-l4:\n    runs-on: linux-amd64-gpu-l4-latest-1\n    strategy:\n      matrix: ${{ fromJSON(needs.dirs.outputs.matrix) }}\n    container:\n      image: nvidia/cuda:12.8.1-devel-ubuntu22.04\n    steps:\n      - run: pytest ${{ matrix.path }}\n  run-test-amdgpu:\n    runs-on: [self-hosted, rocm]\n    steps:\n      - run: pytest tests\n";
        let m = model(src.as_bytes());
        assert_eq!(dead_lines(&m, src), [3], "{:?}", m.dead);
        assert!(
            m.dead[0].1.contains("job `run-test-amdgpu`"),
            "{}",
            m.dead[0].1
        );
        let generic = src.replace("linux-amd64-gpu-l4-latest-1", "ubuntu-latest");
        assert!(model(generic.as_bytes()).dead.is_empty());
    }

    #[test]
    fn windows_and_macos_lanes_are_not_the_rocm_build() {
        let src = "jobs:\n  win:\n    runs-on: [windows-2022]\n    steps:\n      - run: nvcc k.cu\n  both:\n    runs-on: ${{ matrix.os }}\n    strategy:\n      matrix:\n        os: [ubuntu-22.04, macos-14]\n    steps:\n      - if: runner.os == 'macOS'\n        run: nvcc k.cu\n      - if: runner.os == 'Linux'\n        run: nvcc k.cu\n      - run: nvcc k.cu\n";
        let m = model(src.as_bytes());
        let dead = dead_lines(&m, src);
        // The Windows job and the macOS-only step; the Linux step and the step every lane runs
        // stay.
        assert_eq!(dead, [3, 12], "{:?}", m.dead);
        assert!(
            m.dead[0].1.contains("only on Windows runners"),
            "{}",
            m.dead[0].1
        );
        assert!(
            m.dead[1].1.contains("target OS is Linux"),
            "{}",
            m.dead[1].1
        );
        assert!(m.dead[1].1.contains("macOS lanes"), "{}", m.dead[1].1);
    }

    #[test]
    fn include_entries_runner_labels_and_cuda_only_jobs() {
        let src = "jobs:\n  test:\n    runs-on: ${{ matrix.runner }}\n    strategy:\n      matrix:\n        include:\n          - runner: linux.rocm.gpu.mi300\n          - runner: linux.g5.4xlarge.nvidia.gpu\n            cuda: '12.4'\n    steps:\n      - if: matrix.cuda\n        run: nvidia-smi\n  nv:\n    runs-on: [self-hosted, h100]\n    steps:\n      - run: nvidia-smi\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ruff .\n";
        let m = model(src.as_bytes());
        let dead = dead_lines(&m, src);
        // The `if: matrix.cuda` step, and the whole NVIDIA job; the lint job runs no GPU code.
        assert_eq!(dead, [11, 14, 18], "{:?}", m.dead);
        assert!(m.dead[2].1.contains("runs only `ruff`"), "{}", m.dead[2].1);
        assert!(m.dead[1].1.contains("job `test`"), "{}", m.dead[1].1);
    }
}
