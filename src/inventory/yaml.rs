//! YAML through tree-sitter-yaml: Kubernetes and Helm manifests, compose files and conda
//! environments. Each scalar is seen with its key path, so `nvidia.com/gpu` as a resource key,
//! `runtimeClassName: nvidia`, env entries, images and probe commands are told apart; the same
//! text in a comment or an unrelated value is not flagged. Helm templates parse with errors
//! around `{{ }}` and still yield their plain parts.

use super::dockerfile;
use super::packages;
use super::shell;
use super::ts::{self, Lang};
use super::words::{self, Cx, Site, Word};
use super::{build, deployment, Out};
use crate::kinds::yaml::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Manifest,
    Compose,
    Conda,
}

/// A scalar with the keys above it (`-` for a sequence item).
#[derive(Clone, Debug)]
struct Scalar {
    path: Vec<String>,
    text: String,
    range: Range<usize>,
    is_key: bool,
}

/// A sequence of scalars under a key (commands in exec form).
struct Seq {
    path: Vec<String>,
    items: Vec<Word>,
}

fn scalar_text(n: Node, src: &[u8]) -> Option<(String, Range<usize>)> {
    let n = if n.node_kind() == K::FlowNode || n.node_kind() == K::BlockNode {
        n.named_child(0)?
    } else {
        n
    };
    super::yaml_tree::scalar(n, src)
}

fn collect(
    n: Node,
    src: &[u8],
    path: &mut Vec<String>,
    scalars: &mut Vec<Scalar>,
    seqs: &mut Vec<Seq>,
) {
    match n.node_kind() {
        K::BlockMappingPair | K::FlowPair => {
            let key = n.field(F::Key).and_then(|k| scalar_text(k, src));
            let Some((k, kr)) = key else { return };
            scalars.push(Scalar {
                path: path.clone(),
                text: k.clone(),
                range: kr,
                is_key: true,
            });
            path.push(k);
            if let Some(v) = n.field(F::Value) {
                collect(v, src, path, scalars, seqs);
            }
            path.pop();
        }
        K::BlockSequence | K::FlowSequence => {
            let mut items = Vec::new();
            for item in ts::named_children(n) {
                let node = if item.node_kind() == K::BlockSequenceItem {
                    item.named_child(0)
                } else {
                    Some(item)
                };
                let Some(node) = node else { continue };
                if let Some((t, r)) = scalar_text(node, src) {
                    items.push(Word::new(t, r));
                }
                path.push("-".into());
                collect(node, src, path, scalars, seqs);
                path.pop();
            }
            seqs.push(Seq {
                path: path.clone(),
                items,
            });
        }
        K::PlainScalar | K::DoubleQuoteScalar | K::SingleQuoteScalar | K::BlockScalar => {
            if let Some((t, r)) = scalar_text(n, src) {
                scalars.push(Scalar {
                    path: path.clone(),
                    text: t,
                    range: r,
                    is_key: false,
                });
            }
        }
        _ => {
            for c in ts::named_children(n) {
                collect(c, src, path, scalars, seqs);
            }
        }
    }
}

fn last(path: &[String]) -> &str {
    path.iter()
        .rev()
        .find(|p| *p != "-")
        .map_or("", |s| s.as_str())
}

fn probe_of(path: &[String]) -> Option<&'static str> {
    path.iter().find_map(|p| match p.as_str() {
        "readinessProbe" => Some("the readiness probe"),
        "livenessProbe" => Some("the liveness probe"),
        "startupProbe" => Some("the startup probe"),
        "healthcheck" => Some("the healthcheck"),
        _ => None,
    })
}

/// A GitHub action that installs the CUDA toolkit: `Jimver/cuda-toolkit@v0.2.30`,
/// `N-Storm/cuda-toolkit@v1`, `…/setup-cuda@v1` (by the action's repository name).
fn cuda_toolkit_action(uses: &str) -> bool {
    let action = uses.split('@').next().unwrap_or("");
    let Some(repo) = action.split('/').nth(1) else {
        return false;
    };
    let r = repo.to_ascii_lowercase();
    r == "cuda-toolkit" || r == "setup-cuda" || r == "setup-cuda-toolkit" || r == "install-cuda"
}

const COMMAND_KEYS: &[&str] = &["command", "args", "entrypoint", "test"];

pub fn scan(out: &mut Out, flavor: Flavor) {
    let src = out.src();
    let Some(tree) = ts::parse(Lang::Yaml, src) else {
        return;
    };
    let mut scalars = Vec::new();
    let mut seqs = Vec::new();
    collect(
        tree.root_node(),
        src,
        &mut Vec::new(),
        &mut scalars,
        &mut seqs,
    );
    match flavor {
        Flavor::Conda => conda(out, &scalars),
        Flavor::Manifest => manifest(out, &scalars, &seqs, Site::Deployment),
        Flavor::Compose => manifest(out, &scalars, &seqs, Site::Container),
    }
}

fn conda(out: &mut Out, scalars: &[Scalar]) {
    for s in scalars.iter().filter(|s| !s.is_key) {
        let p: Vec<&str> = s.path.iter().map(|x| x.as_str()).collect();
        let spec = s.text.rsplit("::").next().unwrap_or(&s.text);
        let offset = s.range.start + (s.text.len() - spec.len());
        match p.as_slice() {
            ["dependencies", "-"] | ["dependencies", "-", "pip", "-"] => {
                if spec.contains("download.pytorch.org/whl/") {
                    packages::check_index(
                        out,
                        spec.rsplit(' ').next().unwrap_or(spec),
                        s.range.clone(),
                        Site::Build,
                    );
                } else if let Some(req) = packages::parse_req(spec, offset) {
                    packages::check_req(out, &req);
                }
            }
            _ => {}
        }
    }
}

fn manifest(out: &mut Out, scalars: &[Scalar], seqs: &[Seq], site: Site) {
    // A GitHub workflow or composite action: which steps the ROCm CI runs, and the `env:` of each
    // `run:` block.
    let path = out.ctx.path;
    let ci = if super::ci_lanes::is_workflow(path) || super::gha::is_action(path) {
        Some(super::gha::model(out.src()))
    } else if super::gitlab::is_gitlab_ci(path) {
        Some(super::gitlab::model(out.src()))
    } else {
        None
    };
    let mut command_seq_paths: Vec<&[String]> = Vec::new();
    for q in seqs {
        if COMMAND_KEYS.contains(&last(&q.path)) && q.path.last().map(|s| s.as_str()) != Some("-") {
            command_seq_paths.push(&q.path);
            words::command(
                out,
                &q.items,
                site,
                Cx {
                    probe: probe_of(&q.path),
                },
            );
        }
    }
    for (i, s) in scalars.iter().enumerate() {
        let key = last(&s.path);
        let in_env = s.path.iter().any(|p| p == "env" || p == "environment");
        if s.is_key {
            if s.text == "nvidia.com/gpu" && s.path.iter().any(|p| p == "limits" || p == "requests")
            {
                out.push(
                    &deployment::K8S_NVIDIA_GPU_RESOURCE,
                    s.range.clone(),
                    "requests nvidia.com/gpu: AMD nodes advertise amd.com/gpu".into(),
                    Some("amd.com/gpu (with the AMD GPU device plugin or GPU Operator)".into()),
                );
            } else if s.text.starts_with("nvidia.com/")
                && s.path
                    .iter()
                    .any(|p| p == "nodeSelector" || p == "labels" || p == "matchLabels")
            {
                out.push(
                    &deployment::K8S_NVIDIA_NODE_SELECTOR,
                    s.range.clone(),
                    format!("selects on NVIDIA node label {}", s.text),
                    Some("the AMD node labeller's amd.com/gpu.* labels".into()),
                );
            } else if in_env && key == "environment" {
                // compose `environment: {NAME: value}`
                let value = scalars
                    .get(i + 1)
                    .filter(|v| !v.is_key && v.path.last() == Some(&s.text));
                let (vt, vr) = value.map_or((String::new(), s.range.end..s.range.end), |v| {
                    (v.text.clone(), v.range.clone())
                });
                words::setting(out, &s.text, s.range.clone(), &vt, vr, site);
            }
            continue;
        }
        match key {
            "runtimeClassName" | "runtime" if s.text == "nvidia" => {
                out.push(
                    &deployment::K8S_NVIDIA_RUNTIME_CLASS,
                    s.range.clone(),
                    format!("{key}: nvidia needs the NVIDIA container toolkit"),
                    Some("remove it; request amd.com/gpu / pass /dev/kfd and /dev/dri".into()),
                );
            }
            "driver" if s.text == "nvidia" => {
                out.push(
                    &deployment::COMPOSE_NVIDIA_GPU_RESERVATION,
                    s.range.clone(),
                    "GPU reservation through the NVIDIA driver".into(),
                    Some("devices: [/dev/kfd, /dev/dri] and group_add: [video]".into()),
                );
            }
            "apiVersion" if s.text.starts_with("nvidia.com/") => {
                out.push(
                    &deployment::K8S_NVIDIA_GPU_OPERATOR,
                    s.range.clone(),
                    format!("{} object of NVIDIA's GPU operator", s.text),
                    Some("AMD GPU Operator (DeviceConfig, amd.com/v1alpha1)".into()),
                );
            }
            "key" if s.text.starts_with("nvidia.com/") => {
                out.push(
                    &deployment::K8S_NVIDIA_NODE_SELECTOR,
                    s.range.clone(),
                    format!("selects or tolerates on NVIDIA label {}", s.text),
                    Some(
                        "the AMD node labeller's amd.com/gpu.* labels, or amd.com/gpu taints"
                            .into(),
                    ),
                );
            }
            "runs-on" | "-"
                if s.path.iter().any(|p| p == "runs-on")
                    && deployment::nvidia_runner_label(&s.text) =>
            {
                out.push(
                    &deployment::CI_NVIDIA_RUNNER_LABEL,
                    s.range.clone(),
                    format!(
                        "CI job runs on a runner labelled {} (an NVIDIA GPU machine)",
                        s.text
                    ),
                    Some("a runner label of your AMD GPU machines".into()),
                );
            }
            // A CI step that installs the CUDA toolkit (`uses: Jimver/cuda-toolkit@v0.2.30`):
            // the job then builds with nvcc.
            "uses" if cuda_toolkit_action(&s.text) => {
                out.push(
                    &build::NVCC_INVOCATION,
                    s.range.clone(),
                    format!(
                        "CI step installs the CUDA toolkit with `{}`: the job builds with nvcc",
                        s.text
                    ),
                    Some("run the job in a ROCm image (rocm/dev-ubuntu-*) or install ROCm, and build with hipcc".into()),
                );
            }
            "image" => dockerfile::image_ref(out, &s.text, s.range.clone()),
            // Helm values: image: {repository: nvcr.io/nvidia/..., tag: ...}
            "repository" if s.path.iter().any(|p| p == "image") => {
                dockerfile::image_ref(out, &s.text, s.range.clone())
            }
            "name" if in_env => {
                let value = scalars[i + 1..].iter().take(3).find(|v| {
                    !v.is_key && last(&v.path) == "value" && v.path.len() == s.path.len()
                });
                let (vt, vr) = value.map_or((String::new(), s.range.end..s.range.end), |v| {
                    (v.text.clone(), v.range.clone())
                });
                words::setting(out, &s.text, s.range.clone(), &vt, vr, site);
            }
            "-" if in_env => {
                if let Some((n, v)) = s.text.split_once('=') {
                    let vr = s.range.start + n.len() + 1..s.range.end;
                    words::setting(out, n, s.range.start..s.range.start + n.len(), v, vr, site);
                }
            }
            k if COMMAND_KEYS.contains(&k) && s.path.last().map(|x| x.as_str()) != Some("-") => {
                let ws = words::split(&s.text, s.range.start);
                words::command(
                    out,
                    &ws,
                    site,
                    Cx {
                        probe: probe_of(&s.path),
                    },
                );
            }
            "run" | "script" => {
                let src = out.src();
                let none = std::collections::BTreeMap::new();
                let env = ci
                    .as_ref()
                    .and_then(|m| {
                        m.runs
                            .iter()
                            .find(|(r, _)| r.contains(&s.range.start) || *r == s.range)
                    })
                    .map_or(&none, |(_, e)| e);
                shell::scan_fragment_env(
                    out,
                    s.range.start,
                    &src[s.range.clone()],
                    site,
                    Cx {
                        probe: probe_of(&s.path),
                    },
                    env,
                );
            }
            _ => {}
        }
    }
    if let Some(m) = ci {
        out.pass_within(&m.dead, &[], |why| format!(" ({why})"));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    fn rules(kind: FileKind, src: &str) -> Vec<(String, u32)> {
        scan_bytes("x.yaml", kind, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

    /// faiss' `build_cmake` composite action: its own ROCm switch (`inputs.rocm`) decides a
    /// step's `if:` and the arms of a `run:` block; with the switch on (the ROCm build) the
    /// NVIDIA steps and the CUDA wheel index never run. Twins: the same action with a switch
    /// that is not ROCm's (`inputs.cuda`) keeps them open.
    #[test]
    fn a_composite_actions_rocm_switch_decides_its_steps_and_arms() {
        use crate::gate::Status;
        let src = "name: b\ninputs:\n  rocm:\n    default: OFF\nruns:\n  using: composite\n  steps:\n    - shell: bash\n      run: |\n        if [ \"${{ inputs.rocm }}\" = \"ON\" ]; then\n          pip install torch --index-url https://download.pytorch.org/whl/rocm6.4\n        elif [ \"${{ inputs.gpu }}\" = \"ON\" ]; then\n          pip install torch --index-url https://download.pytorch.org/whl/cu128\n        fi\n    - name: NVIDIA info\n      if: inputs.gpu == 'ON' && inputs.rocm != 'ON'\n      shell: bash\n      run: nvidia-smi\n";
        let open = |src: &str| -> Vec<(String, u32)> {
            scan_bytes(
                ".github/actions/b/action.yml",
                FileKind::Yaml,
                src.as_bytes(),
            )
            .into_iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| (f.rule, f.line))
            .collect()
        };
        assert!(open(src).is_empty(), "{:?}", open(src));
        let f = scan_bytes(
            ".github/actions/b/action.yml",
            FileKind::Yaml,
            src.as_bytes(),
        );
        let m = &f
            .iter()
            .find(|f| f.line == 13)
            .expect("the CUDA index")
            .message;
        assert!(
            m.contains("`elif [ \"${{ inputs.gpu }}\" = \"ON\" ]` arm"),
            "{m}"
        );
        let other = src.replace("inputs.rocm", "inputs.cuda");
        let o = open(&other);
        assert!(
            o.iter().any(|(_, l)| *l == 13) && o.iter().any(|(_, l)| *l == 18),
            "{o:?}"
        );
    }

    #[test]
    fn kubernetes_manifest() {
        let src = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      runtimeClassName: nvidia\n      nodeSelector:\n        nvidia.com/gpu.product: A100\n      containers:\n        - name: app\n          image: nvcr.io/nvidia/pytorch:24.01-py3\n          env:\n            - name: NCCL_NVLS_ENABLE\n              value: \"1\"\n          readinessProbe:\n            exec:\n              command: [\"nvidia-smi\"]\n          resources:\n            limits:\n              nvidia.com/gpu: 1 # nvidia.com/gpu in a comment\n          args: [\"--note\", \"nvidia.com/gpu is just text here\"]\n";
        let r = rules(FileKind::Yaml, src);
        assert!(r.contains(&("HP871".into(), 6)), "{r:?}");
        assert!(r.contains(&("HP872".into(), 8)), "{r:?}");
        assert!(r.contains(&("HP860".into(), 11)), "{r:?}");
        assert!(r.contains(&("HP891".into(), 13)), "{r:?}");
        assert!(r.contains(&("HP880".into(), 17)), "{r:?}");
        assert!(r.contains(&("HP870".into(), 20)), "{r:?}");
        assert_eq!(r.len(), 6, "{r:?}");
    }

    #[test]
    fn github_workflow_cuda_toolkit_action() {
        let src = "jobs:\n  build:\n    steps:\n      - uses: actions/checkout@v4\n      - name: Install CUDA\n        uses: Jimver/cuda-toolkit@v0.2.30\n        with:\n          cuda: 12.4.0\n      - uses: actions/setup-python@v5\n      - uses: someone/cuda-toolkit-docs@v1\n";
        let r = rules(FileKind::Yaml, src);
        let hp850: Vec<u32> = r
            .iter()
            .filter(|(c, _)| c == "HP850")
            .map(|x| x.1)
            .collect();
        // The toolkit installer only; checkout, setup-python and an unrelated action are not.
        assert_eq!(hp850, [6], "{r:?}");
    }

    #[test]
    fn github_workflow_runner_labels() {
        let src = "jobs:\n  test:\n    runs-on: [self-hosted, gpu, nvidia-a100]\n    steps:\n      - run: nvidia-smi\n  lint:\n    runs-on: ubuntu-latest\n  amd:\n    runs-on: [self-hosted, rocm, mi300x]\n  single:\n    runs-on: linux-cuda12\n";
        let r = rules(FileKind::Yaml, src);
        assert!(r.contains(&("HP875".into(), 3)), "{r:?}");
        assert!(r.contains(&("HP880".into(), 5)), "{r:?}");
        assert!(r.contains(&("HP875".into(), 11)), "{r:?}");
        let hp875 = r.iter().filter(|(c, _)| c == "HP875").count();
        assert_eq!(
            hp875, 2,
            "gpu, ubuntu-latest, rocm, mi300x are not NVIDIA labels: {r:?}"
        );
    }

    #[test]
    fn conda_environment() {
        let src = "name: x\nchannels: [pytorch, nvidia]\ndependencies:\n  - python=3.10\n  - pytorch-cuda=12.1\n  - pip:\n    - flash-attn==2.5.9\n    - requests\n";
        let r = rules(FileKind::CondaEnv, src);
        assert_eq!(r, vec![("HP820".to_string(), 5), ("HP820".to_string(), 7)]);
    }

    #[test]
    fn compose_file() {
        let src = "services:\n  app:\n    image: nvidia/cuda:12.1.0-runtime-ubuntu22.04\n    environment:\n      NVIDIA_VISIBLE_DEVICES: all\n    deploy:\n      resources:\n        reservations:\n          devices:\n            - driver: nvidia\n              count: all\n              capabilities: [gpu]\n";
        let r = rules(FileKind::Compose, src);
        assert!(r.contains(&("HP860".into(), 3)), "{r:?}");
        assert!(r.contains(&("HP861".into(), 5)), "{r:?}");
        assert!(r.contains(&("HP874".into(), 10)), "{r:?}");
    }
}
