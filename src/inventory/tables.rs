//! The hand-kept inventory tables in `mappings/hand/` (embedded, so builds need nothing outside
//! the repository): Python packages and their ROCm path, NVIDIA container images and their ROCm
//! replacements, NCCL variables as RCCL treats them, and the per-release install suggestions
//! (ROCm dev image, rocm/pytorch image, PyTorch wheel index) that image and package findings
//! follow for the target release. Every row carries its source URL.

use crate::mappings::hand::{HandError, HandTable};
use crate::version::Version;
use std::sync::OnceLock;

pub const PYTHON_PACKAGES: &str = include_str!("../../mappings/hand/python_packages.tsv");
pub const CONTAINERS: &str = include_str!("../../mappings/hand/containers.tsv");
pub const NCCL_ENV: &str = include_str!("../../mappings/hand/nccl_env.tsv");
pub const ROCM_STACKS: &str = include_str!("../../mappings/hand/rocm_stacks.tsv");

/// One row of `rocm_stacks.tsv`: what to install for one ROCm release.
#[derive(Clone, Debug)]
pub struct Stack {
    pub rocm: Version,
    pub dev_image: Option<String>,
    pub pytorch_image: Option<String>,
    pub torch_index: Option<String>,
    pub torch: Option<String>,
    pub note: String,
    pub source: String,
}

/// Which suggestion of a [`Stack`] row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackItem {
    DevImage,
    PytorchImage,
    TorchIndex,
}

impl Stack {
    pub fn get(&self, item: StackItem) -> Option<&str> {
        match item {
            StackItem::DevImage => self.dev_image.as_deref(),
            StackItem::PytorchImage => self.pytorch_image.as_deref(),
            StackItem::TorchIndex => self.torch_index.as_deref(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RocmPath {
    RocmWheel,
    IndexUrl,
    SourceBuild,
    NotNeeded,
    NoneKnown,
    /// Not CUDA-specific although a wider pattern matches its name (`nvidia-sphinx-theme`, a
    /// documentation theme, beside `nvidia-*` runtime wheels): no finding.
    Portable,
}

impl RocmPath {
    fn parse(s: &str) -> Option<RocmPath> {
        Some(match s {
            "rocm-wheel" => RocmPath::RocmWheel,
            "index-url" => RocmPath::IndexUrl,
            "source-build" => RocmPath::SourceBuild,
            "not-needed" => RocmPath::NotNeeded,
            "none-known" => RocmPath::NoneKnown,
            "portable" => RocmPath::Portable,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            RocmPath::RocmWheel => "ROCm wheel",
            RocmPath::IndexUrl => "ROCm index URL",
            RocmPath::SourceBuild => "source build",
            RocmPath::NotNeeded => "not needed",
            RocmPath::NoneKnown => "none known",
            RocmPath::Portable => "portable",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Package {
    pub pattern: String,
    pub path: RocmPath,
    pub alternative: String,
    pub note: String,
    pub source: String,
}

#[derive(Clone, Debug)]
pub struct Image {
    pub pattern: String,
    pub rocm_image: String,
    pub note: String,
    pub source: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcclStatus {
    Honoured,
    Ignored,
    DifferentMeaning,
    Diagnostic,
    /// Read by PyTorch's `ProcessGroupNCCL` (an older name of a `TORCH_NCCL_*` variable), which
    /// ROCm PyTorch builds on RCCL: unchanged.
    Pytorch,
    /// A property of the network fabric (InfiniBand timeouts and retries, service levels), which
    /// RCCL reads with NCCL's meaning: it goes with the fabric, not with the GPU vendor.
    Fabric,
}

#[derive(Clone, Debug)]
pub struct NcclVar {
    pub name: String,
    pub status: RcclStatus,
    pub note: String,
    pub source: String,
}

pub struct Tables {
    pub packages: Vec<Package>,
    pub images: Vec<Image>,
    pub nccl: Vec<NcclVar>,
    /// Sorted by release.
    pub stacks: Vec<Stack>,
}

fn bad(t: &HandTable, line: usize, message: String) -> HandError {
    HandError {
        file: t.file.clone(),
        line,
        message,
    }
}

pub fn load() -> Result<Tables, HandError> {
    let t = HandTable::parse(
        "python_packages.tsv",
        PYTHON_PACKAGES,
        &["pattern", "rocm_status", "rocm_alternative", "source"],
    )?;
    let mut packages = Vec::new();
    for r in t.iter() {
        let path = RocmPath::parse(r.get("rocm_status")).ok_or_else(|| {
            bad(
                &t,
                r.line,
                format!("bad rocm_status `{}`", r.get("rocm_status")),
            )
        })?;
        if r.get("source").is_empty() {
            return Err(bad(&t, r.line, "missing source".into()));
        }
        packages.push(Package {
            pattern: r.get("pattern").to_string(),
            path,
            alternative: r.get("rocm_alternative").to_string(),
            note: r.get("note").to_string(),
            source: r.get("source").to_string(),
        });
    }
    let t = HandTable::parse(
        "containers.tsv",
        CONTAINERS,
        &["pattern", "rocm_image", "source"],
    )?;
    let images: Vec<Image> = t
        .iter()
        .map(|r| Image {
            pattern: r.get("pattern").to_string(),
            rocm_image: r.get("rocm_image").to_string(),
            note: r.get("note").to_string(),
            source: r.get("source").to_string(),
        })
        .collect();
    let t = HandTable::parse(
        "nccl_env.tsv",
        NCCL_ENV,
        &["variable", "rccl_status", "source"],
    )?;
    let mut nccl = Vec::new();
    for r in t.iter() {
        let status = match r.get("rccl_status") {
            "honoured" => RcclStatus::Honoured,
            "ignored" => RcclStatus::Ignored,
            "different-meaning" => RcclStatus::DifferentMeaning,
            "diagnostic" => RcclStatus::Diagnostic,
            "pytorch" => RcclStatus::Pytorch,
            "fabric" => RcclStatus::Fabric,
            s => return Err(bad(&t, r.line, format!("bad rccl_status `{s}`"))),
        };
        nccl.push(NcclVar {
            name: r.get("variable").to_string(),
            status,
            note: r.get("note").to_string(),
            source: r.get("source").to_string(),
        });
    }
    let t = HandTable::parse(
        "rocm_stacks.tsv",
        ROCM_STACKS,
        &[
            "rocm",
            "dev_image",
            "pytorch_image",
            "torch_index",
            "source",
        ],
    )?;
    let mut stacks = Vec::new();
    for r in t.iter() {
        let rocm = r
            .version("rocm")?
            .ok_or_else(|| bad(&t, r.line, "missing rocm".into()))?;
        if !r.get("source").starts_with("https://") {
            return Err(bad(&t, r.line, "missing source".into()));
        }
        let cell = |c: &str| r.opt(c).map(str::to_string);
        stacks.push(Stack {
            rocm,
            dev_image: cell("dev_image"),
            pytorch_image: cell("pytorch_image"),
            torch_index: cell("torch_index"),
            torch: cell("torch"),
            note: r.get("note").to_string(),
            source: r.get("source").to_string(),
        });
    }
    stacks.sort_by_key(|s| s.rocm);
    // Image placeholders must name a known item.
    for i in &images {
        let i: &Image = i;
        if i.rocm_image.starts_with('{') && placeholder(&i.rocm_image).is_none() {
            return Err(HandError {
                file: "containers.tsv".into(),
                line: 0,
                message: format!("unknown placeholder `{}`", i.rocm_image),
            });
        }
    }
    Ok(Tables {
        packages,
        images,
        nccl,
        stacks,
    })
}

/// The tables, loaded once. They are embedded and checked by a unit test, so a failure here is a
/// build defect.
pub fn get() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| load().expect("embedded inventory tables are well-formed"))
}

/// `{dev}` / `{pytorch}` in `containers.tsv`: the target release's image from `rocm_stacks.tsv`.
fn placeholder(s: &str) -> Option<StackItem> {
    match s {
        "{dev}" => Some(StackItem::DevImage),
        "{pytorch}" => Some(StackItem::PytorchImage),
        _ => None,
    }
}

/// PEP 503 normalisation: lowercase, runs of `-`, `_`, `.` become one `-`.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

impl Tables {
    /// The row for a (normalised) package name: an exact row first, else the longest prefix.
    pub fn package(&self, name: &str) -> Option<&Package> {
        self.packages
            .iter()
            .filter(|p| matches(&p.pattern, name))
            .max_by_key(|p| (!p.pattern.ends_with('*'), p.pattern.len()))
    }
    /// The row for an image reference (`registry/repo[:tag]`), longest prefix wins.
    pub fn image(&self, image: &str) -> Option<&Image> {
        let image = image.strip_prefix("docker.io/").unwrap_or(image);
        self.images
            .iter()
            .filter(|i| image.starts_with(&i.pattern))
            .max_by_key(|i| i.pattern.len())
    }
    /// The row for `item` and a target release: the newest release line at or below the target
    /// that fills `item`; a target older than every such row gets the oldest one.
    pub fn stack(&self, item: StackItem, target: Version) -> Option<&Stack> {
        let line = |v: Version| (v.major, v.minor);
        let filled = self.stacks.iter().filter(|s| s.get(item).is_some());
        filled
            .clone()
            .rfind(|s| line(s.rocm) <= line(target))
            .or_else(|| filled.clone().next())
    }

    /// The image an `Image` row suggests for `target` (placeholders resolved), with the
    /// stack row it came from.
    pub fn rocm_image(&self, row: &Image, target: Version) -> (String, Option<&Stack>) {
        match placeholder(&row.rocm_image).and_then(|item| {
            self.stack(item, target)
                .and_then(|s| Some((s.get(item)?.to_string(), s)))
        }) {
            Some((image, s)) => (image, Some(s)),
            None => (row.rocm_image.clone(), None),
        }
    }

    /// The PyTorch wheel index for `target`.
    pub fn torch_index(&self, target: Version) -> Option<(&str, &Stack)> {
        let s = self.stack(StackItem::TorchIndex, target)?;
        Some((s.torch_index.as_deref()?, s))
    }

    pub fn nccl(&self, name: &str) -> Option<&NcclVar> {
        self.nccl.iter().find(|v| v.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_load_and_look_up() {
        let t = load().unwrap();
        assert_eq!(t.package("torch").unwrap().path, RocmPath::IndexUrl);
        assert_eq!(t.package("nvidia-cublas-cu12").unwrap().pattern, "nvidia-*");
        assert_eq!(t.package("nvidia-ml-py").unwrap().pattern, "nvidia-ml-py");
        assert_eq!(
            t.package("cupy-cuda12x").unwrap().path,
            RocmPath::SourceBuild
        );
        assert!(t.package("requests").is_none());
        assert_eq!(
            t.image("nvcr.io/nvidia/pytorch:24.01-py3").unwrap().pattern,
            "nvcr.io/nvidia/pytorch"
        );
        assert!(t.image("nvidia/cuda:12.1.0-devel-ubuntu22.04").is_some());
        assert!(t.image("ubuntu:22.04").is_none());
        assert_eq!(
            t.nccl("NCCL_NVLS_ENABLE").unwrap().status,
            RcclStatus::Ignored
        );
        assert_eq!(
            t.nccl("NCCL_ASYNC_ERROR_HANDLING").unwrap().status,
            RcclStatus::Pytorch
        );
    }

    #[test]
    fn every_row_has_a_source() {
        let t = load().unwrap();
        assert!(t.packages.iter().all(|p| p.source.starts_with("https://")));
        assert!(t.images.iter().all(|p| p.source.starts_with("https://")));
        assert!(t.nccl.iter().all(|p| p.source.starts_with("https://")));
    }

    #[test]
    fn suggestions_follow_the_target_release() {
        let t = load().unwrap();
        let v = |s: &str| s.parse::<Version>().unwrap();
        let cuda = t.image("nvidia/cuda:12.1.0-devel-ubuntu22.04").unwrap();
        assert_eq!(
            t.rocm_image(cuda, v("5.2.0")).0,
            "rocm/dev-ubuntu-20.04:5.2.3"
        );
        assert_eq!(
            t.rocm_image(cuda, v("6.2.0")).0,
            "rocm/dev-ubuntu-22.04:6.2.4"
        );
        assert_eq!(
            t.rocm_image(cuda, v("7.2.4")).0,
            "rocm/dev-ubuntu-24.04:7.2.4"
        );
        // 6.4 has no checked dev image: the newest line below it.
        assert_eq!(
            t.rocm_image(cuda, v("6.4.1")).0,
            "rocm/dev-ubuntu-22.04:6.2.4"
        );
        // Older than every row: the oldest row, which names its own release.
        let (img, row) = t.rocm_image(cuda, v("5.0.0"));
        assert_eq!(img, "rocm/dev-ubuntu-20.04:5.2.3");
        assert_eq!(row.unwrap().rocm, v("5.2.3"));
        let pt = t.image("nvcr.io/nvidia/pytorch:24.01-py3").unwrap();
        assert!(t
            .rocm_image(pt, v("5.2.0"))
            .0
            .starts_with("rocm/pytorch:rocm5.2"));
        assert!(t
            .rocm_image(pt, v("7.2.0"))
            .0
            .starts_with("rocm/pytorch:rocm7.2"));
        assert_eq!(
            t.torch_index(v("5.2.0")).unwrap().0,
            "https://download.pytorch.org/whl/rocm5.2"
        );
        assert_eq!(
            t.torch_index(v("6.2.0")).unwrap().0,
            "https://download.pytorch.org/whl/rocm6.2.4"
        );
        assert_eq!(
            t.torch_index(v("7.1.0")).unwrap().0,
            "https://download.pytorch.org/whl/rocm7.1"
        );
        // A fixed image (no placeholder) stays as written.
        let plugin = t.image("nvcr.io/nvidia/k8s-device-plugin:v0.14").unwrap();
        assert_eq!(t.rocm_image(plugin, v("5.2.0")).0, plugin.rocm_image);
        assert!(t.stacks.iter().all(|s| s.source.starts_with("https://")));
    }

    #[test]
    fn normalises_names() {
        assert_eq!(normalize("Flash_Attn"), "flash-attn");
        assert_eq!(normalize("nvidia.ml..py"), "nvidia-ml-py");
    }
}
