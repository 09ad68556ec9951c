//! GitLab CI read on the same model as GitHub Actions ([`super::gha`]), where it is cheap: each
//! job's lanes (`parallel: matrix:` entries expanded; one lane without) get a platform from their
//! variables, the job's name, image and runner tags; a job whose lanes are all CUDA, in a file
//! where another job has a ROCm lane, is one the project's ROCm CI never runs (the ROCm job
//! replaces it). The literal `variables:` of the file and job are the `env` of its `script:`
//! blocks, so `$ROCM_INDEX` reads as its value. `rules: if:` stays unknown: it decides whether a
//! job runs, not which platform it tests.

use super::ci_lanes::amd_runner_label;
use super::deployment::nvidia_runner_label;
use super::gha::{off, platform_of, Model, Platform};
use super::yaml_tree::{tree, Y};
use std::collections::BTreeMap;

/// A GitLab CI file, by path (`.gitlab-ci.yml`, `.gitlab/ci/*.yml`).
pub fn is_gitlab_ci(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == ".gitlab-ci.yml"
        || name == ".gitlab-ci.yaml"
        || ((path.starts_with(".gitlab/") || path.contains("/.gitlab/"))
            && (name.ends_with(".yml") || name.ends_with(".yaml")))
}

const RESERVED: &[&str] = &[
    "stages",
    "variables",
    "default",
    "include",
    "workflow",
    "image",
    "services",
    "before_script",
    "after_script",
    "cache",
];

fn literal(y: Option<&Y>, into: &mut BTreeMap<String, String>) {
    for (k, v) in y.map_or(&[][..], |y| y.pairs()) {
        let s = v.str().or_else(|| v.get("value").and_then(Y::str));
        if let Some(s) = s {
            into.insert(k.clone(), s.to_string());
        }
    }
}

/// The platform of one lane: its variables (value, or name when the value is not off).
fn lane_platform(vars: &BTreeMap<String, String>, base: Platform) -> Platform {
    let mut seen = Platform::Neutral;
    for (k, v) in vars {
        let p = match platform_of(v) {
            Platform::Neutral if !off(v) => platform_of(k),
            p => p,
        };
        seen = match (seen, p) {
            (x, Platform::Neutral) => x,
            (Platform::Neutral, q) => q,
            (x, q) if x == q => x,
            _ => return Platform::Neutral,
        };
    }
    if seen == Platform::Neutral {
        base
    } else {
        seen
    }
}

/// A GitLab CI file read into a [`Model`] (dead jobs and each script's variables).
pub fn model(src: &[u8]) -> Model {
    let mut m = Model::default();
    let Some(Y::Map(top, _)) = tree(src) else {
        return m;
    };
    let mut global = BTreeMap::new();
    literal(
        top.iter().find(|(k, _)| k == "variables").map(|(_, v)| v),
        &mut global,
    );
    // (job name, job, platforms of its lanes)
    let mut jobs: Vec<(&str, &Y, Vec<Platform>)> = Vec::new();
    for (name, job) in &top {
        if name.starts_with('.') || RESERVED.contains(&name.as_str()) || !matches!(job, Y::Map(..))
        {
            continue;
        }
        let mut vars = global.clone();
        literal(job.get("variables"), &mut vars);
        for key in ["script", "before_script", "after_script"] {
            if let Some(s) = job.get(key) {
                let blocks: Vec<&Y> = match s {
                    Y::Seq(items, _) => items.iter().collect(),
                    other => vec![other],
                };
                for b in blocks {
                    m.runs.push((b.range(), vars.clone()));
                }
            }
        }
        let image = job
            .get("image")
            .and_then(|i| i.str().or(i.get("name").and_then(Y::str)));
        let tags: Vec<&str> = job.get("tags").map_or(Vec::new(), |t| {
            t.items().iter().filter_map(Y::str).collect()
        });
        let base = [Some(name.as_str()), image]
            .into_iter()
            .flatten()
            .map(platform_of)
            .chain(tags.iter().map(|t| {
                if amd_runner_label(t) {
                    Platform::Rocm
                } else if nvidia_runner_label(t) {
                    Platform::Cuda
                } else {
                    Platform::Neutral
                }
            }))
            .find(|p| *p != Platform::Neutral)
            .unwrap_or(Platform::Neutral);
        let job_vars = {
            let mut v = BTreeMap::new();
            literal(job.get("variables"), &mut v);
            v
        };
        let mut lanes: Vec<BTreeMap<String, String>> = Vec::new();
        for entry in job
            .get("parallel")
            .and_then(|p| p.get("matrix"))
            .map_or(&[][..], |x| x.items())
        {
            let mut partial: Vec<BTreeMap<String, String>> = vec![job_vars.clone()];
            for (k, v) in entry.pairs() {
                let vals: Vec<&str> = match v {
                    Y::Seq(items, _) => items.iter().filter_map(Y::str).collect(),
                    other => other.str().into_iter().collect(),
                };
                partial = partial
                    .iter()
                    .flat_map(|l| {
                        vals.iter().map(move |x| {
                            let mut l = l.clone();
                            l.insert(k.clone(), x.to_string());
                            l
                        })
                    })
                    .take(256)
                    .collect();
            }
            lanes.extend(partial);
        }
        if lanes.is_empty() {
            lanes.push(job_vars);
        }
        let plats = lanes.iter().map(|l| lane_platform(l, base)).collect();
        jobs.push((name, job, plats));
    }
    let rocm_job = jobs
        .iter()
        .find(|(_, _, p)| p.contains(&Platform::Rocm))
        .map(|(n, _, _)| n.to_string());
    let Some(rocm_job) = rocm_job else { return m };
    for (name, job, plats) in &jobs {
        if plats.iter().all(|p| *p == Platform::Cuda) {
            m.dead.push((
                job.range(),
                format!(
                    "in CI job `{name}`, which runs only CUDA lanes: the ROCm job `{rocm_job}` replaces it in the project's ROCm CI"
                ),
            ));
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};
    use crate::gate::Status;

    fn open(src: &str) -> Vec<(String, u32)> {
        scan_bytes(".gitlab-ci.yml", FileKind::Yaml, src.as_bytes())
            .into_iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| (f.rule, f.line))
            .collect()
    }

    #[test]
    fn cuda_jobs_beside_a_rocm_lane_are_pass() {
        let src = "variables:\n  IDX: rocm7.2\nbuild-cuda:\n  image: nvidia/cuda:12.4.0-devel-ubuntu22.04\n  script:\n    - nvcc -o k k.cu\ntest:\n  parallel:\n    matrix:\n      - BACKEND: [rocm]\n  script:\n    - pip install torch --index-url https://download.pytorch.org/whl/$IDX\n    - nvidia-smi\n";
        // Only the unconditional nvidia-smi of the ROCm job stays.
        assert_eq!(open(src), vec![("HP880".into(), 13)]);
        // The twin: without a ROCm lane, the CUDA job is porting work.
        let cuda_only = src.replace("BACKEND: [rocm]", "BACKEND: [cpu]");
        let o = open(&cuda_only);
        assert!(o.contains(&("HP850".into(), 6)), "{o:?}");
        assert!(o.contains(&("HP860".into(), 4)), "{o:?}");
        assert!(super::is_gitlab_ci(".gitlab/ci/gpu.yml"));
        assert!(!super::is_gitlab_ci("ci/gpu.yml"));
    }
}
