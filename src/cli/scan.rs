//! `hipport scan`: report findings, change nothing.

use super::common::{ConfigArgs, TargetArgs, WalkArgs};
use crate::gate::exit;
use crate::settings::{Request, Settings};
use clap::Args;
use std::path::PathBuf;

/// The report formats (owned by the renderers).
pub use crate::render::Format as ScanFormat;

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Files or directories to scan.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[arg(long, value_enum, default_value_t = ScanFormat::Text)]
    pub format: ScanFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Also write the Markdown report to FILE (default with --format github: $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub view: super::view::ViewArgs,
}

impl ScanArgs {
    pub fn request(&self) -> Request {
        super::common::request(&self.paths, &self.target, &self.walk, &self.config)
    }
}

pub fn run(a: ScanArgs, settings: &Settings) -> anyhow::Result<i32> {
    let mut report = settings.scan()?;
    a.view.apply(&mut report)?;
    if a.format == ScanFormat::Html {
        if a.paths.len() != 1 {
            anyhow::bail!("--format html takes one PATH: the project directory");
        }
        let page = super::report::page(&a.paths[0], settings, &report)?;
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        crate::render::html::write(&page, &mut out)?;
        std::io::Write::flush(&mut out)?;
    } else {
        super::output::print(&report, a.format)?;
    }
    if let Some(file) = super::output::summary_path(a.summary.as_deref(), a.format) {
        super::output::write_summary(&file, &report)?;
    }
    for e in &report.errors {
        crate::errln!("hipport: {}: {}", e.path, e.error);
    }
    Ok(if report.errors.is_empty() {
        exit::OK
    } else {
        exit::ERROR
    })
}
