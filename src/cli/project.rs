//! Settings from flags and `hipport.toml` together: finds and checks the configuration, lets
//! flags override it, runs the scan and applies rule levels, suppressions and decisions. Shared by
//! `scan` and `check` so both see the same files, target and findings.

use super::common::{TargetArgs, WalkArgs};
use crate::config::{self, Config};
use crate::report::Report;
use crate::scan::ScanSettings;
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// Read this configuration instead of the nearest hipport.toml above the scanned path.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore hipport.toml.
    #[arg(long)]
    pub no_config: bool,
}

/// Scan settings with the configuration they came from.
pub struct Project {
    pub settings: ScanSettings,
    pub config: Option<Config>,
    pub rocm_explicit: bool,
    pub offload_arch: Vec<String>,
}

impl Project {
    pub fn resolve(
        paths: &[PathBuf],
        target: &TargetArgs,
        walk: &WalkArgs,
        cfg: &ConfigArgs,
    ) -> anyhow::Result<Project> {
        let file = match (&cfg.config, cfg.no_config) {
            (_, true) => None,
            (Some(f), false) => Some(f.clone()),
            (None, false) => paths.first().and_then(|p| config::find(p)),
        };
        let config = file.map(|f| config::load(&f)).transpose()?;
        let mut t = target.clone();
        if let Some(c) = &config {
            if t.rocm.is_none() {
                t.rocm = c.rocm.clone();
            }
            t.roc |= c.roc.unwrap_or(false);
            t.experimental |= c.experimental.unwrap_or(false);
        }
        let rocm_explicit = t
            .rocm
            .as_deref()
            .is_some_and(|v| v.trim().split('.').count() == 3);
        let target = t.target().map_err(anyhow::Error::msg)?;
        let mut w = walk.options();
        if let Some(c) = &config {
            if walk.include.is_empty() {
                w.include = c.include.clone();
            }
            if walk.exclude.is_empty() {
                w.exclude = c.exclude.clone();
            }
        }
        let offload_arch = config
            .as_ref()
            .map(|c| c.offload_arch.clone())
            .unwrap_or_default();
        Ok(Project {
            settings: ScanSettings {
                paths: paths.to_vec(),
                target,
                walk: w,
                max_file_size: walk.max_file_size,
            },
            config,
            rocm_explicit,
            offload_arch,
        })
    }

    /// Scans and applies the configuration.
    pub fn scan(&self) -> anyhow::Result<Report> {
        self.scan_with_sources().map(|(r, _)| r)
    }

    /// `scan`, also returning the contents of the files with findings (for text diagnostics).
    pub fn scan_with_sources(&self) -> anyhow::Result<(Report, crate::render::text::Sources)> {
        let (mut report, sources) =
            crate::scan::scan_with_sources(&self.settings).map_err(anyhow::Error::msg)?;
        report.target.rocm_explicit = self.rocm_explicit;
        report.target.offload_arch = self.offload_arch.clone();
        if let Some(c) = &self.config {
            let prefix = self.settings.paths.first().and_then(|p| prefix(c, p));
            report = c.apply(report, prefix.as_deref());
        }
        Ok((report, sources))
    }
}

/// The directory that finding paths are relative to: the path itself, or a file's directory.
pub fn root_of(p: &Path) -> PathBuf {
    if p.is_file() {
        p.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    } else {
        p.to_path_buf()
    }
}

/// The scanned root relative to the configuration's directory, `/`-separated.
fn prefix(c: &Config, scanned: &Path) -> Option<String> {
    let dir = c.file.parent()?.canonicalize().ok()?;
    let root = root_of(scanned).canonicalize().ok()?;
    let rel = root.strip_prefix(&dir).ok()?;
    Some(crate::walk::rel_string(rel))
}

/// Reads the flagged code of each finding, for baseline excerpts.
pub fn code_reader(root: &Path) -> impl Fn(&crate::finding::Finding) -> String + '_ {
    move |f| {
        std::fs::read(root.join(&f.path))
            .ok()
            .and_then(|b| b.get(f.byte_range.0..f.byte_range.1).map(<[u8]>::to_vec))
            .map(|code| crate::baseline::excerpt(&code))
            .unwrap_or_default()
    }
}

/// Writes `text` to `file`, creating or replacing it.
pub fn write_file(file: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(file, text).with_context(|| format!("cannot write {}", file.display()))
}
