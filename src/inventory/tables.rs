//! The hand-kept inventory tables in `mappings/hand/` (embedded, so builds need nothing outside
//! the repository): Python packages and their ROCm path, NVIDIA container images and their ROCm
//! replacements, and NCCL variables as RCCL treats them. Every row carries its source URL.

use crate::mappings::hand::{HandError, HandTable};
use std::sync::OnceLock;

pub const PYTHON_PACKAGES: &str = include_str!("../../mappings/hand/python_packages.tsv");
pub const CONTAINERS: &str = include_str!("../../mappings/hand/containers.tsv");
pub const NCCL_ENV: &str = include_str!("../../mappings/hand/nccl_env.tsv");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RocmPath {
    RocmWheel,
    IndexUrl,
    SourceBuild,
    NotNeeded,
    NoneKnown,
}

impl RocmPath {
    fn parse(s: &str) -> Option<RocmPath> {
        Some(match s {
            "rocm-wheel" => RocmPath::RocmWheel,
            "index-url" => RocmPath::IndexUrl,
            "source-build" => RocmPath::SourceBuild,
            "not-needed" => RocmPath::NotNeeded,
            "none-known" => RocmPath::NoneKnown,
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
    let images = t
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
            s => return Err(bad(&t, r.line, format!("bad rccl_status `{s}`"))),
        };
        nccl.push(NcclVar {
            name: r.get("variable").to_string(),
            status,
            note: r.get("note").to_string(),
            source: r.get("source").to_string(),
        });
    }
    Ok(Tables {
        packages,
        images,
        nccl,
    })
}

/// The tables, loaded once. They are embedded and checked by a unit test, so a failure here is a
/// build defect.
pub fn get() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| load().expect("embedded inventory tables are well-formed"))
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
    }

    #[test]
    fn every_row_has_a_source() {
        let t = load().unwrap();
        assert!(t.packages.iter().all(|p| p.source.starts_with("https://")));
        assert!(t.images.iter().all(|p| p.source.starts_with("https://")));
        assert!(t.nccl.iter().all(|p| p.source.starts_with("https://")));
    }

    #[test]
    fn normalises_names() {
        assert_eq!(normalize("Flash_Attn"), "flash-attn");
        assert_eq!(normalize("nvidia.ml..py"), "nvidia-ml-py");
    }
}
