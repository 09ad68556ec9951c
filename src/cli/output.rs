//! The report formats shared by `scan` and `check` beyond plain text, and the Markdown job
//! summary (`--summary FILE`, or `$GITHUB_STEP_SUMMARY` with `--format github`).

use super::scan::ScanFormat;
use crate::render::{github, gitlab, junit, markdown, sarif};
use crate::report::Report;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Renders a structured format; `new` marks findings new since a baseline. Text is the caller's.
pub fn render(
    format: ScanFormat,
    r: &Report,
    new: Option<&[bool]>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        ScanFormat::Text => Ok(()),
        ScanFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, r)?;
            writeln!(out)
        }
        ScanFormat::Markdown => markdown::write(r, new, out),
        ScanFormat::Sarif => sarif::write(r, new, out),
        ScanFormat::Github => github::write(r, new, out),
        ScanFormat::Gitlab => gitlab::write(r, out),
        ScanFormat::Junit => junit::write(r, out),
        // The page needs the project (the port, the board): `scan` and `check` write it.
        ScanFormat::Html => Err(std::io::Error::other(
            "--format html is written by scan, check and report, not from a report alone",
        )),
    }
}

/// Where the Markdown summary goes: the flag, else `$GITHUB_STEP_SUMMARY` for `--format github`.
pub fn summary_path(flag: Option<&Path>, format: ScanFormat) -> Option<PathBuf> {
    flag.map(Path::to_path_buf).or_else(|| {
        (format == ScanFormat::Github)
            .then(|| std::env::var_os("GITHUB_STEP_SUMMARY"))
            .flatten()
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

/// Appends the Markdown report to the summary file (GitHub collects appended step summaries).
pub fn write_summary(file: &Path, r: &Report, new: Option<&[bool]>) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    markdown::write(r, new, &mut buf)?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .with_context(|| format!("cannot write summary {}", file.display()))?;
    f.write_all(&buf)
        .with_context(|| format!("cannot write summary {}", file.display()))
}
