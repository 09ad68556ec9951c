//! `hipport scan`: report findings, change nothing. Exit codes as ruff's: 1 when a finding at or
//! above `--fail-on` (default BLOCKER) is reported, 0 otherwise or with `--exit-zero`, 2 when a
//! file or path could not be read.

use super::common::{ConfigArgs, TargetArgs, WalkArgs};
use crate::gate::{exit, Status};
use crate::report::Report;
use crate::settings::{Request, Settings};
use clap::Args;
use std::path::PathBuf;

/// The report formats (owned by the renderers).
pub use crate::render::Format as ScanFormat;

/// The lowest status that makes `scan` exit 1.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FailOn {
    /// A BLOCKER finding.
    #[default]
    Blocker,
    /// A BLOCKER or REMEDIATION finding.
    Remediation,
    /// Any finding that is not PASS (BLOCKER, REMEDIATION or UNKNOWN).
    Unknown,
    /// Nothing: exit 0 whatever is found (as --exit-zero).
    Never,
}

impl FailOn {
    /// Whether a finding of this status fails the scan.
    pub fn fails(self, s: Status) -> bool {
        match self {
            FailOn::Blocker => s == Status::Blocker,
            FailOn::Remediation => matches!(s, Status::Blocker | Status::Remediation),
            FailOn::Unknown => s != Status::Pass,
            FailOn::Never => false,
        }
    }
}

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Files or directories to scan (default: the current directory).
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[arg(long, alias = "output-format", value_enum, default_value_t = ScanFormat::Text)]
    pub format: ScanFormat,
    /// Write the report to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit 1 when a finding at or above this status is reported.
    #[arg(long, value_enum, default_value_t = FailOn::Blocker, value_name = "STATUS")]
    pub fail_on: FailOn,
    /// Exit 0 whatever is found (errors reading files still exit 2).
    #[arg(long)]
    pub exit_zero: bool,
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
    let mut report = crate::scan::scan_and_apply(settings, a.format == ScanFormat::Html)?;
    a.view.apply(&mut report)?;
    if a.format == ScanFormat::Html {
        if a.paths.len() != 1 {
            anyhow::bail!("--format html takes one PATH: the project directory");
        }
        let page = super::report::page(&a.paths[0], settings, &report)?;
        let mut buf = Vec::new();
        crate::render::html::write(&page, &mut buf)?;
        super::output::emit(a.output.as_deref(), &buf)?;
    } else {
        super::output::print_to(&report, a.format, a.output.as_deref())?;
    }
    if let Some(file) = super::output::summary_path(a.summary.as_deref(), a.format) {
        super::output::write_summary(&file, &report)?;
    }
    for e in &report.errors {
        crate::errln!("hipport: {}: {}", e.path, e.error);
    }
    Ok(code(&report, a.fail_on, a.exit_zero))
}

/// The exit code of a scan: 2 for files not read, else 1 when a finding reaches `fail_on`.
fn code(report: &Report, fail_on: FailOn, exit_zero: bool) -> i32 {
    if !report.errors.is_empty() {
        exit::ERROR
    } else if !exit_zero && report.findings.iter().any(|f| fail_on.fails(f.status)) {
        exit::FINDINGS
    } else {
        exit::OK
    }
}
