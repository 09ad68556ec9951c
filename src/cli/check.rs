//! `hipport check PATH`: the scan compared with a committed baseline, for CI. Exit 0 when every
//! non-PASS finding is in the baseline, 1 when new ones (that `--fail-on` selects) appear, 2 on
//! usage, configuration or I/O errors, including a missing baseline file.

use super::common::{ConfigArgs, TargetArgs, WalkArgs};
use super::output;
use super::project::{root_of, write_file};
use super::scan::ScanFormat;
use crate::baseline::{self, Baseline};
use crate::catalog;
use crate::finding::{Category, Finding};
use crate::gate::{exit, Status};
use crate::report::{BaselineSummary, Report};
use crate::settings::{Request, Settings};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The directory (or file) to check; finding paths and the baseline are relative to it
    /// (default: the current directory).
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,
    /// The baseline file (default: PATH/hipport-baseline.json).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the current findings as the new baseline (creating it, or shrinking it after fixes).
    #[arg(long)]
    pub update_baseline: bool,
    /// What fails the check, comma-separated: categories (inline-asm), rule codes (HP001),
    /// status=REMEDIATION|UNKNOWN|BLOCKER, or `any` (default: any new non-PASS finding).
    #[arg(long, value_name = "WHAT,...", value_delimiter = ',')]
    pub fail_on: Vec<String>,
    #[arg(long, alias = "output-format", value_enum, default_value_t = ScanFormat::Text)]
    pub format: ScanFormat,
    /// Write the report to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the Markdown report to FILE (default with --format github: $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub view: super::view::ViewArgs,
}

/// Which new findings fail the check.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FailOn {
    pub categories: Vec<Category>,
    pub statuses: Vec<Status>,
    pub rules: Vec<String>,
}

impl FailOn {
    pub fn parse(terms: &[String]) -> Result<FailOn, String> {
        let mut f = FailOn::default();
        for t in terms.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
            if t.eq_ignore_ascii_case("any") {
                f.statuses
                    .extend([Status::Blocker, Status::Remediation, Status::Unknown]);
            } else if let Some(s) = t.strip_prefix("status=") {
                let st = Status::parse(s)
                    .filter(|s| *s != Status::Pass)
                    .ok_or_else(|| {
                        format!("--fail-on {t}: expected status=BLOCKER, REMEDIATION or UNKNOWN")
                    })?;
                f.statuses.push(st);
            } else if let Some(c) = Category::parse(t.strip_prefix("category=").unwrap_or(t)) {
                f.categories.push(c);
            } else if let Some(r) = catalog::by_code(t.strip_prefix("rule=").unwrap_or(t)) {
                f.rules.push(r.id.code.to_string());
            } else {
                return Err(format!(
                    "--fail-on {t}: not a category, rule code or status=… (see `hipport explain all`)"
                ));
            }
        }
        Ok(f)
    }
    pub fn fails(&self, f: &Finding) -> bool {
        if f.status == Status::Pass {
            return false;
        }
        let any = self.categories.is_empty() && self.statuses.is_empty() && self.rules.is_empty();
        any || self.categories.contains(&f.category)
            || self.statuses.contains(&f.status)
            || self.rules.contains(&f.rule)
    }
}

impl CheckArgs {
    pub fn request(&self) -> Request {
        let paths = std::slice::from_ref(&self.path);
        super::common::request(paths, &self.target, &self.walk, &self.config)
    }
}

pub fn run(a: CheckArgs, settings: &Settings) -> anyhow::Result<i32> {
    let fail_on = FailOn::parse(&a.fail_on).map_err(anyhow::Error::msg)?;
    if !a.path.exists() {
        anyhow::bail!("{}: no such file or directory", a.path.display());
    }
    let root = root_of(&a.path);
    let file = a
        .baseline
        .clone()
        .unwrap_or_else(|| root.join(baseline::DEFAULT_FILE));
    let report = crate::scan::scan_and_apply(settings, a.format == ScanFormat::Html)?;
    for e in &report.errors {
        crate::errln!("hipport: {}: {}", e.path, e.error);
    }
    let io_status = if report.errors.is_empty() {
        exit::OK
    } else {
        exit::ERROR
    };
    if a.update_baseline {
        // A file that could not be read or processed has no findings in the report; a baseline
        // written now would silently drop them.
        if !report.errors.is_empty() {
            crate::errln!(
                "hipport check: {} file(s) failed: {} not written (fix or exclude them first)",
                report.errors.len(),
                file.display()
            );
            return Ok(exit::ERROR);
        }
        let old = Baseline::load(&file).ok();
        let new = Baseline::from_report(&report);
        write_file(&file, &new.to_json())?;
        let was = old.as_ref().map_or(0, Baseline::total);
        crate::errln!(
            "hipport check: wrote {} ({} findings in {} entries; was {was})",
            file.display(),
            new.total(),
            new.entries.len()
        );
        return Ok(io_status);
    }
    let base = Baseline::load(&file)?;
    let mut report = report;
    baseline::compare(&base, &mut report, &file.display().to_string());
    let failing: Vec<usize> = (0..report.findings.len())
        .filter(|&i| Report::is_new(&report.findings[i]) && fail_on.fails(&report.findings[i]))
        .collect();
    let Some(cmp) = report.baseline.as_ref() else {
        anyhow::bail!("the baseline comparison is missing (an engine defect: please report)");
    };
    let verdict = verdict_line(cmp, failing.len());
    if a.format == ScanFormat::Text || a.format == ScanFormat::Html {
        let mut out = Vec::new();
        if a.format == ScanFormat::Text {
            text(&report, cmp, &failing, &verdict, &mut out)?;
        } else {
            let page = super::report::page(&a.path, settings, &report)?;
            crate::render::html::write(&page, &mut out)?;
        }
        output::emit(a.output.as_deref(), &out)?;
    } else {
        // The view filters what is printed; the verdict above counts every new finding.
        let mut shown = report.clone();
        a.view.apply(&mut shown)?;
        output::print_to(&shown, a.format, a.output.as_deref())?;
    }
    if let Some(s) = output::summary_path(a.summary.as_deref(), a.format) {
        let mut shown = report.clone();
        a.view.apply(&mut shown)?;
        output::write_summary(&s, &shown)?;
    }
    if a.format != ScanFormat::Text {
        crate::errln!("{verdict}");
    }
    Ok(if io_status != exit::OK {
        io_status
    } else if failing.is_empty() {
        exit::OK
    } else {
        exit::FINDINGS
    })
}

/// A finding's one line with its path as a terminal here opens it.
fn shown_line(r: &Report, f: &Finding) -> String {
    let mut shown = f.clone();
    shown.path = r.shown_path(&f.path);
    shown.one_line()
}

fn verdict_line(cmp: &BaselineSummary, failing: usize) -> String {
    format!(
        "hipport check: {} new ({failing} failing), {} unchanged, {} fixed against {}: {}",
        cmp.new,
        cmp.unchanged,
        cmp.fixed_count(),
        cmp.file,
        if failing > 0 { "FAIL" } else { "ok" }
    )
}

/// The text form of a comparison: new findings (marked FAIL where `--fail-on` selects them),
/// fixed baseline entries, the verdict line.
fn text(
    r: &Report,
    cmp: &BaselineSummary,
    failing: &[usize],
    verdict: &str,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    if cmp.new > 0 {
        writeln!(w, "new findings (not in the baseline):")?;
        for (i, f) in r
            .findings
            .iter()
            .enumerate()
            .filter(|(_, f)| Report::is_new(f))
        {
            let mark = if failing.contains(&i) { "FAIL" } else { "new " };
            writeln!(w, "  {mark} {}", shown_line(r, f))?;
        }
    }
    if !cmp.fixed.is_empty() {
        writeln!(w, "fixed (in the baseline, no longer found):")?;
        for e in &cmp.fixed {
            let times = if e.count > 1 {
                format!(" ×{}", e.count)
            } else {
                String::new()
            };
            writeln!(
                w,
                "  {}: {} {}{times} `{}`",
                e.path, e.rule, e.category, e.code
            )?;
        }
        writeln!(w, "  (run with --update-baseline to shrink the baseline)")?;
    }
    writeln!(w, "{verdict}")
}
