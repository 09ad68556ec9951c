//! python-package rules and the requirement-spec reader shared by every packaging format:
//! CUDA-only wheels, local versions such as `+cu121`, and CUDA PyTorch indexes. Packages not in
//! `mappings/hand/python_packages.tsv` and without a CUDA marker are not flagged.

use super::tables::{self, RocmPath};
use super::words::Site;
use super::Out;
use crate::registry::RuleInfo;
use std::ops::Range;

rule!(CUDA_PACKAGE_WITH_ROCM_PATH, "HP820", PythonPackage, Remediation, Install,
    summary: "A CUDA-specific Python package that has a known ROCm path (ROCm wheel, ROCm index, source build).",
    why: "The package as pinned installs a CUDA build (or CUDA runtime libraries) that cannot use AMD GPUs.",
    bad: "torch==2.3.1+cu121\nflash-attn==2.5.9",
    good: "--index-url https://download.pytorch.org/whl/rocm6.2\ntorch==2.3.1+rocm6.2",
    fix: "Follow the ROCm path the message names (from mappings/hand/python_packages.tsv, with its source).",
    refs: ["https://pytorch.org/get-started/locally/"],
);

rule!(CUDA_PACKAGE_NO_KNOWN_ROCM, "HP821", PythonPackage, Unknown, Install,
    summary: "A CUDA-specific Python package with no known ROCm build.",
    why: "hipport knows no ROCm build of it; the feature it provides needs a replacement or a port.",
    bad: "tensorrt==10.0.1\npycuda",
    good: "# replaced by an AMD alternative, or made optional on ROCm",
    fix: "Check the alternative named in the message; make the dependency optional on ROCm or replace the feature.",
    refs: ["https://rocm.docs.amd.com/en/latest/"],
);

rule!(CUDA_WHEEL_INDEX_URL, "HP822", PythonPackage, Remediation, Install,
    summary: "A CUDA PyTorch wheel index (`download.pytorch.org/whl/cu12x`), or another project's wheel page of CUDA builds (`data.pyg.org/whl/torch-2.1.0+cu121.html`, `data.dgl.ai/wheels/cu121/repo.html`).",
    why: "The index serves CUDA builds of torch, torchvision, torchaudio and triton.",
    bad: "--extra-index-url https://download.pytorch.org/whl/cu121",
    good: "--index-url https://download.pytorch.org/whl/rocm6.2",
    fix: "Point at the ROCm index for your ROCm release (e.g. https://download.pytorch.org/whl/rocm6.2), and prefer --index-url so PyPI's CUDA wheels cannot win.",
    refs: ["https://pytorch.org/get-started/locally/", "https://github.com/Comfy-Org/comfy-cli/pull/379"],
);

pub const RULES: &[&RuleInfo] = &[
    &CUDA_PACKAGE_WITH_ROCM_PATH,
    &CUDA_PACKAGE_NO_KNOWN_ROCM,
    &CUDA_WHEEL_INDEX_URL,
];

/// A parsed requirement: the name's span and any CUDA marker in the rest of it.
#[derive(Debug, PartialEq, Eq)]
pub struct Req {
    pub name: String,
    pub name_range: Range<usize>,
    /// `cu121` from `+cu121`, or `cuda12` from an extra `[cuda12]`.
    pub cuda_marker: Option<String>,
    /// The pinned version says another build: `+cpu`, `+rocm6.2` (`torch==1.8.0+cpu`).
    pub other_build: bool,
}

/// Parses a PEP 508 requirement (or conda spec) at `offset` in the file. Returns `None` for
/// options, paths and URLs.
pub fn parse_req(spec: &str, offset: usize) -> Option<Req> {
    let lead = spec.len() - spec.trim_start().len();
    let s = spec.trim_start();
    if let Some(req) = vcs_req(s, offset + lead) {
        return Some(req);
    }
    if s.is_empty() || s.starts_with('-') || s.starts_with('.') || s.starts_with('/') {
        return None;
    }
    // `name @ git+https://…` (PEP 508 direct reference): the name, nothing pinned.
    let direct = s.contains("://");
    if direct && !s.split("://").next().unwrap_or("").contains('@') {
        return None;
    }
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let name = &s[..end];
    let rest = if direct {
        ""
    } else {
        s[end..].split(';').next().unwrap_or("")
    };
    // The versions of the spec (`==2.3.1+cu121`, conda's `=2.3.1+cu121`), each read as PEP 440.
    let versions = || {
        rest.split(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '!' | '-' | '_'))
        })
    };
    let mut cuda_marker = versions().find_map(cuda_local_label);
    let other_build = versions().any(|v| {
        v.parse::<pep440_rs::Version>().is_ok_and(|v| {
            v.local().iter().any(|seg| {
                matches!(seg, pep440_rs::LocalSegment::String(s) if s == "cpu" || s.starts_with("rocm"))
            })
        })
    });
    if cuda_marker.is_none() && rest.starts_with('[') {
        let extras = rest[1..].split(']').next().unwrap_or("");
        cuda_marker = extras
            .split(',')
            .map(str::trim)
            .find(|e| e.starts_with("cuda") || e.starts_with("and-cuda"))
            .map(str::to_string);
    }
    Some(Req {
        name: name.to_string(),
        name_range: offset + lead..offset + lead + end,
        cuda_marker,
        other_build,
    })
}

/// A bare VCS requirement (`git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch`,
/// `git+https://host/o/r.git@v1#egg=name`): pip builds it from source. Its name is the
/// `#egg=` name, else the repository's (the last path segment, without `.git` and `@ref`); the
/// span is the whole requirement.
fn vcs_req(s: &str, at: usize) -> Option<Req> {
    let url = ["git+", "hg+", "svn+", "bzr+"]
        .iter()
        .find_map(|p| s.strip_prefix(p))?;
    let token = s.split_whitespace().next().unwrap_or(s);
    let (path, fragment) = url.split_once('#').unwrap_or((url, ""));
    let egg = fragment
        .split('&')
        .find_map(|kv| kv.strip_prefix("egg="))
        .filter(|n| !n.is_empty());
    let path = path.split('?').next().unwrap_or(path);
    let after_host = path.split_once("://").map_or(path, |(_, r)| r);
    let repo = after_host
        .split('/')
        .skip(1)
        .filter(|p| !p.is_empty())
        .last()?;
    let repo = repo.split('@').next().unwrap_or(repo);
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    let name = egg.unwrap_or(repo);
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return None;
    }
    Some(Req {
        name: name.to_string(),
        name_range: at..at + token.len(),
        cuda_marker: None,
        other_build: false,
    })
}

/// The CUDA build label of a PEP 440 version's local part (`2.3.1+cu121` → `cu121`, k2's and
/// kaldifeat's `1.24.4+cuda12.1.torch2.2.1` → `cuda12`), read with `pep440_rs`; `None` for
/// another label (`+cpu`, `+rocm6.2`) or for text that is no version.
pub fn cuda_local_label(version: &str) -> Option<String> {
    let v: pep440_rs::Version = version.trim().parse().ok()?;
    v.local().iter().find_map(|seg| match seg {
        pep440_rs::LocalSegment::String(s) => {
            let digits = s.strip_prefix("cuda").or_else(|| s.strip_prefix("cu"))?;
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| s.clone())
        }
        _ => None,
    })
}

/// A CUDA suffix in the package name itself (`-cu12`, `-cuda12x`, `-cu11`).
fn cuda_suffix(norm: &str) -> Option<&str> {
    norm.split('-').skip(1).find(|p| {
        let digits = p.strip_prefix("cuda").or_else(|| p.strip_prefix("cu"));
        digits.is_some_and(|d| {
            d.starts_with("1")
                && d.trim_end_matches('x').chars().all(|c| c.is_ascii_digit())
                && !d.is_empty()
        })
    })
}

/// Checks one requirement; raises at most one finding on its name.
pub fn check_req(out: &mut Out, req: &Req) {
    // `torch==1.8.0+cpu`: the pin names a CPU (or ROCm) build, not the CUDA wheel.
    if req.other_build {
        return;
    }
    let norm = tables::normalize(&req.name);
    let marker = req
        .cuda_marker
        .clone()
        .or_else(|| cuda_suffix(&norm).map(str::to_string));
    match tables::get().package(&norm) {
        Some(row) if row.path == RocmPath::Portable => {}
        Some(row) => {
            let rule = if row.path == RocmPath::NoneKnown {
                &CUDA_PACKAGE_NO_KNOWN_ROCM
            } else {
                &CUDA_PACKAGE_WITH_ROCM_PATH
            };
            let what = match &marker {
                Some(m) => format!("{} ({m} build)", req.name),
                None => req.name.clone(),
            };
            let alternative = with_target_index(&row.alternative, out.rocm);
            let msg = format!(
                "{what} is CUDA-specific; ROCm path: {} ({}){}",
                row.path.as_str(),
                alternative,
                if row.note.is_empty() {
                    String::new()
                } else {
                    format!("; {}", row.note)
                }
            );
            let src = row.source.split(" ; ").next().unwrap_or("").to_string();
            out.push(
                rule,
                req.name_range.clone(),
                msg,
                Some(format!("{alternative} (source: {src})")),
            );
        }
        None => {
            if let Some(m) = marker {
                out.push(
                    &CUDA_PACKAGE_NO_KNOWN_ROCM,
                    req.name_range.clone(),
                    format!(
                        "{} is a CUDA build ({m}) and hipport knows no ROCm build of it",
                        req.name
                    ),
                    Some(
                        "look for a ROCm build from the vendor, or make it optional on ROCm".into(),
                    ),
                );
            }
        }
    }
}

/// `python_packages.tsv` names the PyTorch ROCm index of one release
/// (`https://download.pytorch.org/whl/rocm6.2`); the suggestion names the target release's.
fn with_target_index(text: &str, rocm: crate::version::Version) -> String {
    const PREFIX: &str = "https://download.pytorch.org/whl/rocm";
    let Some(at) = text.find(PREFIX) else {
        return text.to_string();
    };
    let Some((index, _)) = tables::get().torch_index(rocm) else {
        return text.to_string();
    };
    let end = text[at + PREFIX.len()..]
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or(text.len(), |i| at + PREFIX.len() + i);
    let end = if text[..end].ends_with('.') {
        end - 1
    } else {
        end
    };
    let old = &text[at..end];
    let tag = &old["https://download.pytorch.org/whl/".len()..];
    let new_tag = &index["https://download.pytorch.org/whl/".len().min(index.len())..];
    text.replace(old, index)
        .replace(&format!("+{tag}"), &format!("+{new_tag}"))
}

/// Whether a URL is a CUDA PyTorch index (`.../whl/cu121`, `.../whl/nightly/cu124`), also with
/// the CUDA version in a variable (`cu${TORCH_CUDA_VERSION}`, `cu${{ matrix.cuda }}`, `cu{cuda}`).
pub fn is_cuda_index(url: &str) -> bool {
    let Some(i) = url.find("download.pytorch.org/whl/") else {
        return false;
    };
    url[i + "download.pytorch.org/whl/".len()..]
        .split('/')
        .any(|seg| {
            seg.strip_prefix("cu").is_some_and(|d| {
                (!d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
                    || d.starts_with('$')
                    || d.starts_with('{')
            })
        })
}

/// Whether a URL is a PyTorch wheel index of another platform (`.../whl/rocm6.2`,
/// `.../whl/nightly/rocm7.0`, `.../whl/cpu`, `.../whl/xpu`): what it installs is no CUDA build.
pub fn is_non_cuda_index(url: &str) -> bool {
    let Some(i) = url.find("download.pytorch.org/whl/") else {
        return false;
    };
    url[i + "download.pytorch.org/whl/".len()..]
        .split('/')
        .any(|seg| {
            seg == "cpu"
                || seg == "xpu"
                || seg.strip_prefix("rocm").is_some_and(|d| {
                    !d.is_empty() && d.chars().all(|c| c.is_ascii_digit() || c == '.')
                })
        })
}

/// Whether a wheel index or find-links URL names another platform's wheels in its path (a
/// `xpu`, `cpu` or `rocmX.Y` folder), and no CUDA one.
pub fn is_other_platform_url(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let segs: Vec<&str> = rest.split('/').skip(1).collect();
    let cuda = segs.iter().any(|s| {
        s.strip_prefix("cu")
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
            || s.contains("cuda")
    });
    !cuda
        && segs.iter().any(|s| {
            *s == "xpu"
                || *s == "cpu"
                || s.strip_prefix("rocm").is_some_and(|d| {
                    !d.is_empty() && d.chars().all(|c| c.is_ascii_digit() || c == '.')
                })
        })
}

/// Whether a URL is another project's wheel page of CUDA builds: a path segment that is the
/// CUDA tag (`data.dgl.ai/wheels/cu121/repo.html`, `download.openmmlab.com/mmcv/dist/cu113/…`)
/// or a page named for a CUDA build of torch (`data.pyg.org/whl/torch-2.1.0+cu121.html`).
/// PyTorch's own index is [`is_cuda_index`]; a CUDA version in a variable is not read.
pub fn is_cuda_wheel_page(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https") || rest.contains("download.pytorch.org/whl/") {
        return false;
    }
    let tag = |t: &str| {
        t.strip_prefix("cu")
            .is_some_and(|d| (2..=3).contains(&d.len()) && d.chars().all(|c| c.is_ascii_digit()))
    };
    rest.split('/').skip(1).any(|seg| {
        tag(seg)
            || seg.split_once("+cu").is_some_and(|(_, v)| {
                let v = v.strip_suffix(".html").unwrap_or(v);
                tag(&format!("cu{v}"))
            })
    })
}

/// Raises the index rule for a CUDA index URL at `range` (container files use their own rule),
/// or for another project's wheel page of CUDA builds ([`is_cuda_wheel_page`]).
pub fn check_index(out: &mut Out, url: &str, range: Range<usize>, site: Site) {
    let rule = if site == Site::Container {
        &super::container::CUDA_WHEEL_INDEX_IN_CONTAINER
    } else {
        &CUDA_WHEEL_INDEX_URL
    };
    if is_cuda_wheel_page(url) {
        out.push(
            rule,
            range,
            format!("wheel page of CUDA builds {url}: the extension packages it serves (compiled against a CUDA torch) do not load with a ROCm torch, and the page has no ROCm builds"),
            Some("drop the page on ROCm and build those packages from source against the ROCm torch (PyTorch hipifies their CUDA extensions), or point at ROCm wheels where the project publishes them".into()),
        );
        return;
    }
    if !is_cuda_index(url) {
        return;
    }
    let (rocm, built_for) = match tables::get().torch_index(out.rocm) {
        Some((index, s)) => (index.to_string(), s.rocm),
        None => (
            "https://download.pytorch.org/whl/rocm6.2".to_string(),
            out.rocm,
        ),
    };
    let msg = format!(
        "CUDA PyTorch wheel index {url}: its wheels do not use AMD GPUs; use the ROCm index for \
         your ROCm release (target ROCm {}: {rocm}, wheels built for ROCm {built_for})",
        out.rocm
    );
    out.push(rule, range, msg, Some(format!("--index-url {rocm}")));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_requirements() {
        let r = parse_req("  torch==2.3.1+cu121 ; python_version>'3.8'", 10).unwrap();
        assert_eq!(r.name, "torch");
        assert_eq!(r.name_range, 12..17);
        assert_eq!(r.cuda_marker.as_deref(), Some("cu121"));
        let r = parse_req("jax[cuda12]>=0.4", 0).unwrap();
        assert_eq!(r.cuda_marker.as_deref(), Some("cuda12"));
        assert!(parse_req("-r other.txt", 0).is_none());
        // VCS requirements: the `#egg=` name, else the repository's; the span is the whole
        // requirement. Twins: a plain URL to an archive and a local path stay unread.
        let tcnn = "git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch";
        let r = parse_req(tcnn, 10).unwrap();
        assert_eq!(
            (r.name.as_str(), r.name_range),
            ("tiny-cuda-nn", 10..10 + tcnn.len())
        );
        let egg = parse_req("git+https://h/o/r.git@v1.0#egg=flash_attn", 0).unwrap();
        assert_eq!(egg.name, "flash_attn");
        assert_eq!(
            parse_req("git+https://h/o/repo.git@main", 0).unwrap().name,
            "repo"
        );
        let direct = parse_req("flash-attn @ git+https://github.com/x/y.git", 0).unwrap();
        assert_eq!(
            (direct.name.as_str(), direct.cuda_marker),
            ("flash-attn", None)
        );
        assert!(parse_req("https://x/y.tar.gz", 0).is_none());
        assert!(parse_req("./local/pkg", 0).is_none());
        assert_eq!(parse_req("requests>=2", 0).unwrap().cuda_marker, None);
        // A pin of the CPU or ROCm build is no CUDA wheel (torch-points-kernels' CI).
        assert!(parse_req("torch==1.8.0+cpu", 0).unwrap().other_build);
        assert!(parse_req("torch==2.4.0+rocm6.1", 0).unwrap().other_build);
        assert!(!parse_req("torch==2.4.0+cu121", 0).unwrap().other_build);
        assert!(!parse_req("torch>=2", 0).unwrap().other_build);
        // conda's single `=`, and a label after the CUDA one.
        let r = parse_req("pytorch=2.1.0+cu118.post1", 0).unwrap();
        assert_eq!(r.cuda_marker.as_deref(), Some("cu118"));
        // Not a CUDA build: another local label, or `+cu` outside a version.
        assert_eq!(parse_req("torch==2.3.1+cpu", 0).unwrap().cuda_marker, None);
        assert_eq!(
            parse_req("torch==2.3.1+rocm6.2", 0).unwrap().cuda_marker,
            None
        );
        assert_eq!(parse_req("torch==2.3.1+cuda", 0).unwrap().cuda_marker, None);
    }

    #[test]
    fn cuda_local_labels_are_read_as_pep440() {
        assert_eq!(cuda_local_label("2.3.1+cu121").as_deref(), Some("cu121"));
        assert_eq!(cuda_local_label(" 2.3.1+CU121 ").as_deref(), Some("cu121"));
        assert_eq!(
            cuda_local_label("1.24.4.dev20240223+cuda12.1.torch2.2.1").as_deref(),
            Some("cuda12")
        );
        assert_eq!(cuda_local_label("1.24.4.dev20231022+cpu.torch1.13.1"), None);
        assert_eq!(cuda_local_label("1.0+cudnn8"), None);
        assert_eq!(cuda_local_label("2.3.1+cpu"), None);
        assert_eq!(cuda_local_label("2.3.1"), None);
        assert_eq!(cuda_local_label("not a version+cu121"), None);
    }

    /// Other projects' wheel pages of CUDA builds (PyG, DGL, OpenMMLab). Twins: their CPU
    /// pages, a variable CUDA tag, a repository path that names CUDA, PyTorch's own index
    /// (read by [`is_cuda_index`]).
    #[test]
    fn cuda_wheel_pages_of_other_projects() {
        for url in [
            "https://data.pyg.org/whl/torch-1.9.0+cu102.html",
            "https://pytorch-geometric.com/whl/torch-1.8.0+cu111.html",
            "https://data.dgl.ai/wheels/cu121/repo.html",
            "https://download.openmmlab.com/mmcv/dist/cu113/torch1.11/index.html",
        ] {
            assert!(is_cuda_wheel_page(url), "{url}");
        }
        for url in [
            "https://data.pyg.org/whl/torch-2.1.0+cpu.html",
            "https://data.pyg.org/whl/torch-${TORCH}+${CUDA}.html",
            "https://github.com/org/cu-kernels/releases",
            "https://download.pytorch.org/whl/cu121",
            "data.pyg.org/whl/torch-1.9.0+cu102.html",
            "https://example.com/docs/cuda/index.html",
        ] {
            assert!(!is_cuda_wheel_page(url), "{url}");
        }
    }

    #[test]
    fn cuda_indexes_and_suffixes() {
        assert!(is_cuda_index("https://download.pytorch.org/whl/cu121"));
        assert!(is_cuda_index(
            "https://download.pytorch.org/whl/nightly/cu124/"
        ));
        assert!(!is_cuda_index("https://download.pytorch.org/whl/rocm6.2"));
        assert!(!is_cuda_index("https://download.pytorch.org/whl/cpu"));
        // mamba's workflow: the CUDA version in a shell variable or a matrix expression.
        assert!(is_cuda_index(
            "https://download.pytorch.org/whl/cu${TORCH_CUDA_VERSION}"
        ));
        assert!(is_cuda_index(
            "https://download.pytorch.org/whl/nightly/cu${TORCH_CUDA_VERSION}/torch-2.6%2Bcu126.whl"
        ));
        assert!(is_cuda_index(
            "https://download.pytorch.org/whl/cu${{ matrix.cuda }}"
        ));
        assert!(!is_cuda_index(
            "https://download.pytorch.org/whl/${BACKEND}"
        ));
        assert!(!is_cuda_index(
            "https://download.pytorch.org/whl/cuda_tools"
        ));
        assert_eq!(cuda_suffix("cudf-cu12"), Some("cu12"));
        assert_eq!(cuda_suffix("jax-cuda12-plugin"), Some("cuda12"));
        assert_eq!(cuda_suffix("cupy-cuda12x"), Some("cuda12x"));
        assert_eq!(cuda_suffix("curl-cffi"), None);
    }

    #[test]
    fn torch_suggestion_names_the_target_index() {
        use super::super::{kind::FileKind, scan_bytes_for};
        let sugg = |v: &str| -> String {
            scan_bytes_for(
                "requirements.txt",
                FileKind::Requirements,
                b"torch==2.3.1\n",
                v.parse().unwrap(),
            )
            .into_iter()
            .find(|f| f.rule == "HP820")
            .and_then(|f| f.suggestion)
            .unwrap_or_default()
        };
        let s52 = sugg("5.2.0");
        assert!(
            s52.contains("https://download.pytorch.org/whl/rocm5.2 "),
            "{s52}"
        );
        assert!(s52.contains("+rocm5.2)"), "{s52}");
        let s71 = sugg("7.1.1");
        assert!(
            s71.contains("https://download.pytorch.org/whl/rocm7.1 "),
            "{s71}"
        );
        assert!(!s71.contains("rocm6.2"), "{s71}");
    }

    /// torch-harmonics' docs extra: `nvidia-sphinx-theme` is a documentation theme, not one of
    /// the `nvidia-*` CUDA runtime wheels. Twin: `nvidia-cublas-cu12` is one.
    #[test]
    fn a_portable_name_under_a_wider_pattern_is_no_finding() {
        use super::super::{kind::FileKind, scan_bytes_for};
        let rules = |text: &[u8]| -> Vec<String> {
            scan_bytes_for(
                "requirements.txt",
                FileKind::Requirements,
                text,
                "7.0.0".parse().unwrap(),
            )
            .into_iter()
            .filter(|f| f.status != crate::gate::Status::Pass)
            .map(|f| f.rule)
            .collect()
        };
        assert!(rules(b"nvidia-sphinx-theme>=0.0.8\n").is_empty());
        assert_eq!(rules(b"nvidia-cublas-cu12\n"), ["HP820"]);
        // The plain `cupy` source package builds against CUDA unless told HIP (pytorch-pwc,
        // softmax-splatting); RAPIDS packages have no ROCm build (h2o4gpu's `dask-cuda`). Twin:
        // a ROCm CuPy wheel and plain `dask` are no finding.
        assert_eq!(rules(b"cupy>=5.0.0\n"), ["HP820"]);
        assert_eq!(rules(b"dask-cuda\ncudf-cu12==24.8\n"), ["HP821", "HP821"]);
        assert!(rules(b"cupy-rocm-5-0\ndask[distributed]\n").is_empty());
    }
}

/// Packages whose CUDA part is one submodule, and that submodule as the import findings name it:
/// the rest of the package installs and runs on ROCm as it is (numba's CPU `@jit`).
const CUDA_SUBMODULES: &[(&str, &str)] = &[("numba", "`numba.cuda`")];

/// An install line's HP821 on such a package is PASS when no Python file of the project imports
/// its CUDA submodule (torch-points-kernels: `numba` pinned in CI and a Dockerfile, used only as
/// `@numba.jit` on the CPU); where one does, the import findings carry the fact.
pub fn settle_submodule_packages(findings: &mut [crate::finding::Finding]) {
    use crate::gate::Status;
    for (package, module) in CUDA_SUBMODULES {
        let imported = findings
            .iter()
            .any(|f| f.path.ends_with(".py") && f.message.contains(module));
        let install_line = |f: &crate::finding::Finding| {
            f.rule == CUDA_PACKAGE_NO_KNOWN_ROCM.id.code
                && f.status != Status::Pass
                && !f.path.ends_with(".py")
                && (f
                    .message
                    .starts_with(&format!("{package} is CUDA-specific"))
                    || f.message.starts_with(&format!("{package} (")))
        };
        for f in findings.iter_mut().filter(|f| install_line(f)) {
            if imported {
                f.message.push_str(&format!(
                    " (the project imports {module}: see those imports)"
                ));
                continue;
            }
            f.settle(&format!(
                " — no Python file of the project imports {module}: {package} runs on the CPU here and installs on ROCm as it is (nothing to change)"
            ));
        }
    }
}

/// An import of a package the tree itself is (nvdiffrast's samples import `nvdiffrast`, whose
/// `nvdiffrast/__init__.py` is in the tree) is no dependency on an NVIDIA-only build: the
/// project's own sources are scanned and ported here. Its HP821 is PASS. A package folder is
/// one with an `__init__.py` at the root or one folder down (`src/X/`, `python/X/`), or one
/// beside a `setup.py`/`pyproject.toml` that installs it (a monorepo's
/// `python/cuspatial/cuspatial/`). A manifest's requirement on such a package (cuspatial's
/// `python/cuproj/pyproject.toml` requiring `cuspatial`) is the same: the tree's own package.
pub fn settle_own_package_imports(findings: &mut [crate::finding::Finding], rels: &[&str]) {
    use crate::gate::Status;
    let manifest = |dir: &str| {
        ["setup.py", "pyproject.toml"].iter().any(|m| {
            let want = if dir.is_empty() {
                m.to_string()
            } else {
                format!("{dir}/{m}")
            };
            rels.contains(&want.as_str())
        })
    };
    // `loose`: an import's package may sit one folder down without a manifest (nvdiffrast's
    // samples run from the tree); a requirement names what a manifest installs, so its folder
    // sits beside one (or in its `src/`): `cuslines/cuda_python/` is a subpackage, not the
    // `cuda-python` a manifest requires.
    let own = |top: &str, loose: bool| {
        rels.iter().any(|r| {
            r.strip_suffix("/__init__.py").is_some_and(|d| {
                let parts: Vec<&str> = d.split('/').collect();
                let parent = parts[..parts.len() - 1].join("/");
                let installed = manifest(&parent)
                    || parent
                        .strip_suffix("src")
                        .is_some_and(|p| manifest(p.trim_end_matches('/')));
                parts.last() == Some(&top) && ((loose && parts.len() <= 2) || installed)
            })
        })
    };
    for f in findings.iter_mut().filter(|f| {
        matches!(f.rule.as_str(), "HP820" | "HP821")
            && f.status != Status::Pass
            && (f.message.starts_with("imports ") || f.message.contains(" is CUDA-specific; "))
    }) {
        let import = f.message.starts_with("imports ");
        let top = if import {
            super::declared_imports::top_module(&f.message)
        } else {
            f.message
                .split(" is CUDA-specific; ")
                .next()
                .filter(|n| !n.contains(' '))
                .map(|n| n.to_ascii_lowercase().replace(['-', '.'], "_"))
        };
        let Some(top) = top else {
            continue;
        };
        if own(&top, import) {
            f.settle(&format!(
                " — `{top}` is this project's own package: its sources are in this tree, scanned and ported with it"
            ));
        }
    }
}

#[cfg(test)]
mod own_package_tests {
    use super::*;
    use crate::finding::Finding;
    use crate::gate::Status;

    /// nvdiffrast's samples import `nvdiffrast`, the package the tree holds: PASS. Twin: the
    /// same import in a project without the package folder stays open.
    #[test]
    fn imports_of_the_projects_own_package_are_pass() {
        let import = || {
            let mut f = Finding::bare("HP821", "samples/torch/cube.py", 18);
            f.status = Status::Unknown;
            f.message = "imports nvdiffrast (`nvdiffrast`; its ops build as a PyTorch CUDA extension, no ROCm build published): NVIDIA-only, no ROCm build".into();
            f
        };
        let mut fs = vec![import()];
        settle_own_package_imports(
            &mut fs,
            &["nvdiffrast/__init__.py", "samples/torch/cube.py"],
        );
        assert_eq!(fs[0].status, Status::Pass);
        assert!(fs[0].message.contains("own package"), "{}", fs[0].message);
        let mut fs = vec![import()];
        settle_own_package_imports(
            &mut fs,
            &["samples/torch/cube.py", "lib/a/b/nvdiffrast/__init__.py"],
        );
        assert_eq!(fs[0].status, Status::Unknown);
        // cuspatial's monorepo: `python/cuproj` requires `cuspatial`, installed from
        // `python/cuspatial/` (its `pyproject.toml` beside the package folder). Twin: a deep
        // package folder with no manifest beside it is not known to be installed from here.
        let req = || {
            let mut f = Finding::bare("HP821", "python/cuproj/pyproject.toml", 46);
            f.status = Status::Unknown;
            f.message = "cuspatial is CUDA-specific; ROCm path: none known".into();
            f
        };
        let mut fs = vec![req()];
        settle_own_package_imports(
            &mut fs,
            &[
                "python/cuspatial/pyproject.toml",
                "python/cuspatial/cuspatial/__init__.py",
            ],
        );
        assert_eq!(fs[0].status, Status::Pass);
        let mut fs = vec![req()];
        settle_own_package_imports(&mut fs, &["python/cuspatial/cuspatial/__init__.py"]);
        assert_eq!(fs[0].status, Status::Unknown);
        // GPUStreamlines: a subpackage named like the requirement (`cuslines/cuda_python/`)
        // is not the package a manifest installs.
        let mut fs = vec![req()];
        fs[0].message = "cuda-python is CUDA-specific; ROCm path: none known".into();
        settle_own_package_imports(
            &mut fs,
            &[
                "pyproject.toml",
                "cuslines/__init__.py",
                "cuslines/cuda_python/__init__.py",
            ],
        );
        assert_eq!(fs[0].status, Status::Unknown);
    }
}

#[cfg(test)]
mod submodule_tests {
    use super::*;
    use crate::finding::Finding;
    use crate::gate::Status;

    fn f(rule: &str, path: &str, message: &str) -> Finding {
        Finding {
            message: message.into(),
            status: Status::Unknown,
            ..Finding::bare(rule, path, 1)
        }
    }

    #[test]
    fn numba_without_its_cuda_target_is_nothing_to_change() {
        let install = "numba is CUDA-specific; ROCm path: none known";
        let mut fs = vec![f("HP821", ".devcontainer/Dockerfile", install)];
        settle_submodule_packages(&mut fs);
        assert_eq!(fs[0].status, Status::Pass);
        // Twin: a module that imports `numba.cuda` keeps the install line open.
        let mut fs = vec![
            f("HP821", "requirements.txt", install),
            f(
                "HP821",
                "pkg/kernels.py",
                &format!(
                    "imports {}: NVIDIA-only, no ROCm build",
                    crate::inventory::python::NUMBA_CUDA
                ),
            ),
        ];
        settle_submodule_packages(&mut fs);
        assert_eq!(fs[0].status, Status::Unknown);
    }
}
