//! `hipport scan`: report findings, change nothing.

use super::common::{ConfigArgs, TargetArgs, WalkArgs};
use crate::gate::exit;
use crate::settings::{Request, Settings};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScanFormat {
    #[default]
    Text,
    Json,
    /// Remediation report with the gate board, for tickets and pull requests.
    Markdown,
    /// SARIF 2.1.0, for GitHub code scanning and review tools.
    Sarif,
    /// GitHub Actions annotations (and the Markdown job summary).
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
    /// JUnit XML: one failing test case per item.
    Junit,
    /// The self-contained HTML review page (as `hipport report`).
    Html,
}

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
}

impl ScanArgs {
    pub fn request(&self) -> Request {
        super::common::request(&self.paths, &self.target, &self.walk, &self.config)
    }
}

pub fn run(a: ScanArgs, settings: &Settings) -> anyhow::Result<i32> {
    let (report, sources) = settings.scan_with_sources()?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        ScanFormat::Text => {
            use codespan_reporting::term::termcolor::{Ansi, NoColor};
            use std::io::IsTerminal;
            let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            if colour {
                crate::render::text::render(&report, &sources, &mut Ansi::new(&mut out))?;
            } else {
                crate::render::text::render(&report, &sources, &mut NoColor::new(&mut out))?;
            }
        }
        ScanFormat::Html => {
            if a.paths.len() != 1 {
                anyhow::bail!("--format html takes one PATH: the project directory");
            }
            let page = super::report::page(&a.paths[0], settings, &report, None)?;
            crate::render::html::write(&page, &mut out)?;
        }
        f => super::output::render(f, &report, None, &mut out)?,
    }
    if let Some(file) = super::output::summary_path(a.summary.as_deref(), a.format) {
        super::output::write_summary(&file, &report, None)?;
    }
    for e in &report.errors {
        eprintln!("hipport: {}: {}", e.path, e.error);
    }
    out.flush()?;
    Ok(if report.errors.is_empty() {
        exit::OK
    } else {
        exit::ERROR
    })
}
