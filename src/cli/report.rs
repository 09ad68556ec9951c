//! `hipport report PATH`: the self-contained HTML review page, and the gathering of what it
//! shows, shared with `scan --format html` and `check --format html`: the scan report as given,
//! the board exactly as `hipport gate` computes it, the port of each file for the same target,
//! the text of non-source files with findings, and the project's name, commit and the date.

use super::common::{ConfigArgs, TargetArgs, WalkArgs};
use crate::gate::exit;
use crate::record::{self, Record};
use crate::render::html::{self, BoardSource, FileText, Input, Page};
use crate::report::Report;
use crate::settings::{root_of, Request, Settings};
use anyhow::Context;
use clap::Args;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The project directory (default: the current directory).
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Where to write the page (`-` for stdout).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        default_value = "hipport-report.html"
    )]
    pub output: PathBuf,
}

impl ReportArgs {
    pub fn request(&self) -> Request {
        let paths = std::slice::from_ref(&self.path);
        super::common::request(paths, &self.target, &self.walk, &self.config)
    }
}

pub fn run(a: ReportArgs, settings: &Settings) -> anyhow::Result<i32> {
    if !a.path.exists() {
        anyhow::bail!("{}: no such file or directory", a.path.display());
    }
    let report = crate::scan::scan_and_apply(settings, true)?;
    for e in &report.errors {
        crate::errln!("hipport: {}: {}", e.path, e.error);
    }
    let page = page(&a.path, settings, &report)?;
    let mut buf = Vec::new();
    html::write(&page, &mut buf)?;
    if a.output == Path::new("-") {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        out.write_all(&buf)?;
        out.flush()?;
    } else {
        crate::source::write_atomic(&a.output, &buf, None)
            .with_context(|| format!("cannot write {}", a.output.display()))?;
        crate::errln!(
            "hipport report: wrote {} ({} KB): {}, {} findings ({} open) in {} files",
            a.output.display(),
            buf.len().div_ceil(1024),
            page.board.verdict,
            page.summary.findings,
            page.summary.open,
            page.files.len()
        );
    }
    Ok(if report.errors.is_empty() {
        exit::OK
    } else {
        exit::ERROR
    })
}

/// Builds the page model for the project at `path` from a scan `report` made with `settings`.
/// The board is `hipport gate`'s for the same report. `new` marks findings new since a
/// baseline (`check`).
pub fn page(path: &Path, settings: &Settings, report: &Report) -> anyhow::Result<Page> {
    let root = root_of(path);
    let (board, rec) = super::gate::board_of(&root, Ok(report))?;
    let files = file_texts(&root, settings, report);
    let target_tuple = rec.as_ref().map(tuple).unwrap_or_default();
    Ok(Page::build(Input {
        report,
        board: &board,
        board_source: if rec.is_some() {
            BoardSource::Record
        } else {
            BoardSource::Scan
        },
        target_tuple,
        files,
        project: project_name(&root),
        commit: commit(&root),
        generated: generated(),
    }))
}

/// The port of every source file for the report's target (changed files and files with
/// findings), as the scan made it ([`Report::ported`]: the page never translates the tree a
/// second time), then the text of the other files with findings (CMake, Dockerfile, YAML, …).
fn file_texts(root: &Path, s: &Settings, report: &Report) -> Vec<FileText> {
    let with_findings: BTreeSet<&str> = report.findings.iter().map(|f| f.path.as_str()).collect();
    let mut out = Vec::new();
    let shown = |path: &str, old: &[u8], new: &[u8]| old != new || with_findings.contains(path);
    if let Some(ported) = &report.ported {
        for (path, (old, new)) in ported {
            if shown(path, old, new) {
                out.push(FileText {
                    path: path.clone(),
                    old: Some(old.clone()),
                    new: Some(new.clone()),
                    note: None,
                });
            }
        }
    }
    let done: BTreeSet<String> = out.iter().map(|t| t.path.clone()).collect();
    for p in with_findings.into_iter().filter(|p| !done.contains(*p)) {
        let (old, note) = match crate::source::read(&root.join(p), s.max_file_size) {
            Ok(t) => (Some(t.bytes), None),
            Err(e) => (None, Some(format!("text not shown: {e}"))),
        };
        out.push(FileText {
            path: p.to_string(),
            old,
            new: None,
            note,
        });
    }
    out
}

fn tuple(r: &Record) -> Vec<(String, String)> {
    let t = &r.target;
    let mut v: Vec<(String, String)> = [
        ("rocm", &t.rocm),
        ("gfx", &t.gfx),
        ("gpu", &t.gpu),
        ("os", &t.os),
        ("kernel", &t.kernel),
        ("python", &t.python),
        ("driver", &t.driver),
        ("container", &t.container_tag),
    ]
    .into_iter()
    .filter(|(_, v)| !v.trim().is_empty())
    .map(|(k, v)| (k.to_string(), v.clone()))
    .collect();
    v.extend(t.frameworks.iter().map(|(k, v)| (k.clone(), v.clone())));
    v
}

fn project_name(root: &Path) -> String {
    std::fs::canonicalize(root)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| root.display().to_string())
}

/// `git rev-parse HEAD` of the work tree holding `root` (arguments only, never a shell).
fn commit(root: &Path) -> Option<String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "HEAD"]).filter(|h| !h.is_empty())?;
    let dirty = git(&["status", "--porcelain", "--untracked-files=no", "--", "."])
        .is_some_and(|s| !s.is_empty());
    Some(if dirty {
        format!("{head} (uncommitted changes)")
    } else {
        head
    })
}

/// Now in UTC, or `$SOURCE_DATE_EPOCH` when set (reproducible pages).
fn generated() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(record::date::unix_now);
    record::date::format_unix(secs)
}
