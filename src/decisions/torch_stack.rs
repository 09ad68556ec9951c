//! The project's PyTorch wheels, one decision. A project names `torch` (and `torchvision`,
//! `torchaudio`, `triton`) in many manifests: its own requirements, each example's and each
//! doc build's (ColossalAI: 44 open HP820, 38 of them `torch` in example requirements). On ROCm
//! every one of them is satisfied by the same step: install the PyTorch stack from PyTorch's
//! ROCm index (a ROCm torch already installed satisfies an unpinned `torch`). So the project's
//! open HP820 findings whose ROCm path is that index fold into one, held by the manifest nearest
//! the project's root, which counts the rest and names the first places; the rest stay in JSON
//! as PASS naming it. Packages with another ROCm path (flash-attn, vllm, bitsandbytes) keep
//! their own findings. A folder with its own `setup.py` or `pyproject.toml` is its own package
//! and its own decision.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// What an HP820 whose ROCm path is PyTorch's ROCm index says.
const ROCM_INDEX: &str = "ROCm path: ROCm index URL (";

/// The package a manifest belongs to: the nearest folder above it holding a `setup.py` or
/// `pyproject.toml` with findings (its own package), else the project's root.
fn package_root<'a>(path: &str, roots: &'a [String]) -> &'a str {
    roots
        .iter()
        .filter(|r| r.is_empty() || path.starts_with(&format!("{r}/")))
        .max_by_key(|r| r.len())
        .map_or("", |r| r.as_str())
}

fn key(f: &Finding, roots: &[String]) -> Option<String> {
    (f.rule == "HP820" && f.message.contains(ROCM_INDEX) && super::kind::own(&f.path))
        .then(|| format!("pytorch-rocm-index\u{0}{}", package_root(&f.path, roots)))
}

/// The package an HP820/HP821 names (`torch is CUDA-specific; …`, `k2 is a CUDA build …`).
fn package(f: &Finding) -> &str {
    f.message.split(" is ").next().unwrap_or("")
}

/// The manifest nearest the root holds the decision (fewest folders, then report order).
fn nearest_root(m: &[&Finding]) -> Option<usize> {
    (0..m.len()).min_by_key(|&i| (m[i].path.matches('/').count(), i))
}

/// The folders of the Python packages the findings show (a `setup.py` or `pyproject.toml`).
fn package_roots(findings: &[Finding]) -> Vec<String> {
    let mut roots: Vec<String> = findings
        .iter()
        .filter_map(|f| {
            let (dir, file) = f.path.rsplit_once('/').unwrap_or(("", f.path.as_str()));
            matches!(file, "setup.py" | "pyproject.toml").then(|| dir.to_string())
        })
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The project's PyTorch-index decision: every open HP820 on it, held by the shallowest.
pub fn kind(findings: &[Finding]) -> Kind {
    let roots = package_roots(findings);
    Kind {
        key: Box::new(move |f| key(f, &roots)),
        head: nearest_root,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let mut packages: Vec<&str> = g.members.iter().map(|f| package(f)).collect();
            packages.sort_unstable();
            packages.dedup();
            let shown: Vec<String> = packages.iter().map(|p| format!("`{p}`")).collect();
            format!(
                " — one decision for the project's PyTorch wheels ({}): install them from PyTorch's ROCm index once, and every manifest that names them is satisfied; {} places in {} files ({}), {} more folded here",
                shown.join(", "),
                g.members.len(),
                g.files(),
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's PyTorch wheels are one decision")
        }),
    }
}

/// What an install finding on a CUDA runtime wheel says (`nvidia-cublas-cu12`, dependencies of
/// a CUDA build of PyTorch; the `nvidia-*` row of `mappings/hand/python_packages.tsv`).
const RUNTIME_WHEEL: &str = "is CUDA-specific; ROCm path: not needed (drop the pin";

/// One manifest's pins of NVIDIA's CUDA runtime wheels, one decision. A `pip freeze` record or
/// a lock export lists the dozen `nvidia-*-cu12` wheels a CUDA build of PyTorch pulls in
/// (DROID-SLAM's `requirements_frozen.txt`: 14 pins, one finding each): they are one fact of
/// that file, gone once it is regenerated against ROCm PyTorch. Runs after [`kind`].
pub fn runtime_wheels(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (f.rule == "HP820" && f.message.contains(RUNTIME_WHEEL) && super::kind::own(&f.path))
                .then(|| format!("runtime-wheels\u{0}{}", f.path))
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let mut names: Vec<&str> = g.members.iter().map(|f| package(f)).collect();
            names.dedup();
            let shown: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
            let more = if names.len() > shown.len() {
                ", …"
            } else {
                ""
            };
            format!(
                " — one decision for this file's {} NVIDIA CUDA runtime wheels ({}{more}): they come with a CUDA build of PyTorch; drop them, or regenerate the file against ROCm PyTorch ({} more folded here)",
                g.members.len(),
                shown.join(", "),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "this file's CUDA runtime wheels are one decision")
        }),
    }
}

/// One package with no drop-in ROCm wheel named in many places (PyCUDA in five CI steps, a
/// Dockerfile and a setup script; `flash-attn` in three manifests): the project takes one
/// decision per Python package (a folder with its own `setup.py` or `pyproject.toml` is its
/// own): drop it from the ROCm stack, or install its ROCm build or port. Its open install
/// findings (HP820/HP821 `<pkg> is CUDA-specific; ROCm path: …`) fold into the place nearest
/// the root. Runs after [`kind`], which holds the PyTorch wheels.
pub fn packages(findings: &[Finding]) -> Kind {
    let roots = package_roots(findings);
    Kind {
        key: Box::new(move |f| {
            (matches!(f.rule.as_str(), "HP820" | "HP821")
                && f.message.contains(" is CUDA-specific; ROCm path: ")
                && super::kind::own(&f.path))
            .then(|| {
                format!(
                    "package\u{0}{}\u{0}{}",
                    package_root(&f.path, &roots),
                    package(f)
                )
            })
        }),
        head: nearest_root,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for `{}` across the package: {} places in {} files ({}), {} more folded here",
                package(g.head),
                g.members.len(),
                g.files(),
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                &format!("`{}` is one decision across the package", package(g.head)),
            )
        }),
    }
}

/// What an install finding on a RAPIDS package says (`mappings/hand/python_packages.tsv`).
const RAPIDS: &str = "RAPIDS publishes builds for NVIDIA GPUs only";

/// What an install finding on a wheel named for a CUDA release says when the table has no row
/// for it (`packages::check_req`).
const CUDA_BUILD: &str = "and hipport knows no ROCm build of it";

/// A stack of packages with no ROCm build that a Python package needs, one decision per
/// package root: the install findings (HP820/HP821 of `rules`) whose message says `marker`,
/// held by the manifest nearest the root. `what` names the stack in the head's message, `why`
/// says what the porter decides; `shown` caps the names listed.
fn stack(
    findings: &[Finding],
    rules: &'static [&'static str],
    marker: &'static str,
    what: &'static str,
    why: &'static str,
    shown: usize,
) -> Kind {
    let roots = package_roots(findings);
    Kind {
        key: Box::new(move |f| {
            (rules.contains(&f.rule.as_str())
                && f.message.contains(marker)
                && super::kind::own(&f.path))
            .then(|| format!("{what}\u{0}{}", package_root(&f.path, &roots)))
        }),
        head: nearest_root,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(move |g| {
            let mut names: Vec<&str> = g.members.iter().map(|f| package(f)).collect();
            names.sort_unstable();
            names.dedup();
            let listed: Vec<String> = names.iter().take(shown).map(|n| format!("`{n}`")).collect();
            format!(
                " — one decision for the {what} this package needs ({}{}): {why}; {} places in {} files ({}), {} more folded here",
                listed.join(", "),
                if names.len() > shown { ", …" } else { "" },
                g.members.len(),
                g.files(),
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(move |g| {
            super::kind::folded_into(g, &format!("the {what} the package needs is one decision"))
        }),
    }
}

/// The RAPIDS packages a Python package depends on, one decision (cuML's `pyproject.toml`
/// names cudf, rmm, pylibraft, raft-dask, dask-cudf and dask-cuda): the stack has no ROCm
/// build, so the porter decides once whether the package runs without it or waits for a port.
/// Runs before [`packages`], which holds each other package.
pub fn rapids(findings: &[Finding]) -> Kind {
    stack(
        findings,
        &["HP820", "HP821"],
        RAPIDS,
        "RAPIDS stack",
        "none of it has a ROCm build",
        usize::MAX,
    )
}

/// The wheels named for a CUDA release (`custatevec-cu12`, `f'cutensornet-cu{major}'`) that a
/// Python package needs and hipport knows no ROCm build of, one decision: they are one vendor
/// stack built for CUDA (cuQuantum's five libraries in one `install_requires`), so the porter
/// decides once whether the package runs without them or waits for ROCm builds. Runs after
/// [`rapids`] and before [`packages`].
pub fn cuda_builds(findings: &[Finding]) -> Kind {
    stack(
        findings,
        &["HP821"],
        CUDA_BUILD,
        "CUDA builds",
        "hipport knows a ROCm build of none of them; run the package without them on ROCm or wait for the vendor's ROCm builds",
        6,
    )
}

#[cfg(test)]
mod tests {
    use crate::finding::Finding;
    use crate::gate::Status;

    fn hp820(path: &str, pkg: &str, how: &str) -> Finding {
        Finding {
            message: format!("{pkg} is CUDA-specific; ROCm path: {how}"),
            status: Status::Remediation,
            ..Finding::bare("HP820", path, 1)
        }
    }

    /// cuQuantum's Python package: the wheels named for a CUDA release that hipport knows no ROCm
    /// build of are one decision; twin: a table row with no ROCm build (`cuda-python`) keeps its
    /// own.
    #[test]
    fn the_cuda_builds_a_package_needs_are_one_decision() {
        let unknown = |pkg: &str, line: u32| Finding {
            message: format!("{pkg} is a CUDA build (cu12) and hipport knows no ROCm build of it"),
            status: Status::Unknown,
            ..Finding::bare("HP821", "python/setup.py", line)
        };
        let mut fs = vec![
            unknown("custatevec-cu12", 39),
            unknown("cutensornet-cu12", 40),
            Finding {
                message: "cuda-python is CUDA-specific; ROCm path: none known".into(),
                status: Status::Unknown,
                ..Finding::bare("HP821", "python/setup.py", 47)
            },
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        let open: Vec<u32> = fs
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| f.line)
            .collect();
        assert_eq!(open, [39, 47]);
        assert!(
            fs[0]
                .message
                .contains("`custatevec-cu12`, `cutensornet-cu12`"),
            "{}",
            fs[0].message
        );
    }

    /// cuML: its RAPIDS dependencies in one manifest are one decision; twin: numba, another
    /// package with no ROCm build, keeps its own.
    #[test]
    fn the_rapids_stack_is_one_decision() {
        let none = |what: &str| {
            format!(
                "none known (no ROCm build: {what}); RAPIDS publishes builds for NVIDIA GPUs only"
            )
        };
        let mut f = vec![
            hp820(
                "python/cuml/pyproject.toml",
                "cudf",
                &none("the pandas API"),
            ),
            hp820("python/cuml/pyproject.toml", "rmm", &none("a port")),
            hp820("python/cuml/pyproject.toml", "dask-cuda", &none("dask")),
            hp820(
                "python/cuml/pyproject.toml",
                "numba",
                "none known (numba-hip)",
            ),
        ];
        for x in &mut f {
            x.rule = "HP821".into();
        }
        let k = super::rapids(&f);
        crate::decisions::fold(&mut f, &k);
        let open: Vec<&str> = f
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| x.message.split(' ').next().unwrap_or(""))
            .collect();
        assert_eq!(open, ["cudf", "numba"], "{f:#?}");
        assert!(
            f[0].message.contains("`cudf`, `dask-cuda`, `rmm`"),
            "{}",
            f[0].message
        );
    }

    /// DROID-SLAM's freeze record: the CUDA runtime wheels of one file are one decision; twin:
    /// the same wheel in another file is that file's.
    #[test]
    fn one_files_cuda_runtime_wheels_are_one_decision() {
        let drop = "not needed (drop the pin: the ROCm PyTorch wheels bring their ROCm libraries)";
        let mut f = vec![
            hp820(
                "requirements_frozen.txt",
                "nvidia-cublas-cu12 (cu12 build)",
                drop,
            ),
            hp820(
                "requirements_frozen.txt",
                "nvidia-cudnn-cu12 (cu12 build)",
                drop,
            ),
            hp820(
                "requirements_frozen.txt",
                "nvidia-nccl-cu12 (cu12 build)",
                drop,
            ),
            hp820(
                "docker/requirements.txt",
                "nvidia-cublas-cu12 (cu12 build)",
                drop,
            ),
        ];
        let k = super::runtime_wheels(&f);
        crate::decisions::fold(&mut f, &k);
        let open: Vec<&str> = crate::decisions::test_support::open(&f)
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        assert_eq!(open, ["requirements_frozen.txt", "docker/requirements.txt"]);
        assert!(
            f[0].message
                .contains("this file's 3 NVIDIA CUDA runtime wheels"),
            "{}",
            f[0].message
        );
    }

    /// mmdeploy's shape: PyCUDA installed by several CI steps and a Dockerfile is one decision;
    /// twin: another package keeps its own, a single place stays as it is.
    #[test]
    fn one_package_installed_in_many_places_is_one_decision() {
        let none = "none known (hip-python (HIP bindings; a port, not a drop-in))";
        let mut f = vec![
            hp820(".github/workflows/build.yml", "pycuda", none),
            hp820(".github/workflows/regression-test.yml", "pycuda", none),
            hp820("docker/Release/Dockerfile", "pycuda", none),
            hp820("requirements.txt", "nvshmem4py", "none known"),
        ];
        for x in &mut f {
            x.rule = "HP821".into();
        }
        let k = super::packages(&f);
        crate::decisions::fold(&mut f, &k);
        let open: Vec<&str> = crate::decisions::test_support::open(&f)
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        assert_eq!(open, [".github/workflows/build.yml", "requirements.txt"]);
        assert!(
            f[0].message
                .contains("one decision for `pycuda` across the package: 3 places in 3 files"),
            "{}",
            f[0].message
        );
        assert!(!f[3].message.contains("decision"));
    }

    /// ColossalAI's shape: `torch` in the root requirements and in examples, `torchvision`
    /// elsewhere: one open finding at the root manifest. Twin: `flash-attn` (a source build)
    /// keeps its own.
    #[test]
    fn the_projects_pytorch_wheels_are_one_decision() {
        let idx = "ROCm index URL (torch from https://download.pytorch.org/whl/rocm7.2)";
        let mut f = vec![
            hp820("examples/a/requirements.txt", "torch", idx),
            hp820("requirements/requirements.txt", "torch", idx),
            hp820("examples/b/requirements.txt", "torchvision", idx),
            hp820(
                "examples/b/requirements.txt",
                "flash-attn",
                "source build (…)",
            ),
        ];
        let k = super::kind(&f);
        crate::decisions::fold(&mut f, &k);
        let open: Vec<&Finding> = f.iter().filter(|f| f.status != Status::Pass).collect();
        assert_eq!(open.len(), 2, "{f:#?}");
        let head = open
            .iter()
            .find(|f| f.message.contains("one decision"))
            .unwrap();
        assert_eq!(head.path, "requirements/requirements.txt");
        assert!(
            head.message.contains("(`torch`, `torchvision`)"),
            "{}",
            head.message
        );
        assert!(open.iter().any(|f| f.message.starts_with("flash-attn")));
        // A folder with its own package manifest is its own decision.
        let mut two = vec![
            hp820("setup.py", "torch", idx),
            hp820("requirements.txt", "torch", idx),
            hp820("tools/ext/pyproject.toml", "torch", idx),
        ];
        let k = super::kind(&two);
        crate::decisions::fold(&mut two, &k);
        assert_eq!(
            two.iter().filter(|f| f.status != Status::Pass).count(),
            2,
            "{two:#?}"
        );
    }
}
