//! `scan` as text for people: codespan-reporting diagnostics grouped by file (the source line
//! with a label, a note with the rule's reason, a help line with the fix), then a summary by
//! status and category. A pure function of the report, the file contents and a writer; the
//! caller decides about colour.

use crate::finding::Finding;
use crate::gate::Status;
use crate::report::Report;
use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::WriteColor, Config};
use std::collections::BTreeMap;
use std::io;

pub use crate::report::Sources;

fn severity(s: Status) -> Severity {
    match s {
        Status::Blocker => Severity::Error,
        Status::Remediation => Severity::Warning,
        // Not verified is not harmless: shown at warning level, the message says UNKNOWN.
        Status::Unknown => Severity::Warning,
        Status::Pass => Severity::Help,
    }
}

fn diagnostic(f: &Finding, shown: &str, file: Option<usize>) -> Diagnostic<usize> {
    let mut d = Diagnostic::new(severity(f.status))
        .with_code(f.rule.as_str())
        .with_message(format!(
            "{} [{} {}/{}]",
            f.message, f.category, f.status, f.phase
        ));
    if let Some(id) = file {
        d = d
            .with_labels(vec![Label::primary(id, f.byte_range.0..f.byte_range.1)
                .with_message(f.rule_name.as_str())]);
    } else {
        d = d.with_notes(vec![format!("at {shown}:{}:{}", f.line, f.column)]);
    }
    let mut notes = Vec::new();
    if let Some(rule) = crate::catalog::by_code(&f.rule) {
        notes.push(format!("note: {}", rule.why));
    }
    if let Some(s) = &f.suggestion {
        notes.push(format!("help: {s}"));
    } else if let Some(rule) = crate::catalog::by_code(&f.rule) {
        notes.push(format!("help: {}", rule.fix));
    }
    notes.push(format!("explain: hipport explain {}", f.rule));
    d.notes.extend(notes);
    d
}

/// Writes every fact as a diagnostic, most harmful first ([`super::order`]), then the summary.
pub fn render(report: &Report, w: &mut dyn WriteColor) -> io::Result<()> {
    let sources = &report.sources;
    let config = Config::default();
    let mut files = SimpleFiles::new();
    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    let mut current: Option<&str> = None;
    // PASS items (work the port did, code HIP never compiles) are counted, not listed, unless
    // asked for; repeats of one fact in a file are one entry with the lines.
    let shown: Vec<Finding> = report
        .findings
        .iter()
        .filter(|f| report.show_pass || f.status != Status::Pass)
        .cloned()
        .collect();
    let groups = crate::rules::facts::groups_by_harm(&shown);
    index(report, &groups, w)?;
    for g in groups {
        let f = g.first;
        if current != Some(f.path.as_str()) {
            current = Some(f.path.as_str());
            writeln!(w, "── {} ──", report.shown_path(&f.path))?;
        }
        let id = match ids.get(f.path.as_str()) {
            Some(id) => Some(*id),
            None => sources.get(&f.path).map(|b| {
                let id = files.add(
                    report.shown_path(&f.path),
                    String::from_utf8_lossy(b).into_owned(),
                );
                ids.insert(f.path.as_str(), id);
                id
            }),
        };
        // A range that no longer fits the text (file changed) falls back to a position note.
        let id = id.filter(|i| {
            files
                .get(*i)
                .is_ok_and(|sf| f.byte_range.1 <= sf.source().len())
        });
        let mut d = diagnostic(f, &report.shown_path(&f.path), id);
        if g.lines.len() > 1 && g.decision.is_none() {
            d.notes.insert(
                0,
                format!(
                    "{} occurrences in this file: {}",
                    g.lines.len(),
                    crate::rules::facts::lines_note(&g.lines, 12)
                ),
            );
        }
        if let Some(note) = crate::rules::facts::decision_note(&g) {
            d.notes.insert(0, note);
        } else if !g.others.is_empty() {
            d.notes.insert(
                0,
                format!(
                    "one dependency fact: {}",
                    crate::rules::facts::others_note(&g.others, 12)
                ),
            );
        }
        term::emit_to_write_style(w, &config, &files, &d).map_err(io::Error::other)?;
    }
    let hidden = report.findings.len() - shown.len();
    if hidden > 0 {
        writeln!(
            w,
            "{hidden} PASS finding(s) not listed (done by `hipport port`, or in code HIP never compiles): --show-pass lists them"
        )?;
    }
    per_file_and_rule(&shown, w)?;
    summary(report, w)
}

/// How many entries the index at the top lists before pointing below.
const INDEX: usize = 15;

/// The first screen: what a person must act on, one line per fact, most harmful first, before
/// the diagnostics with their source lines (a terminal shows about eight of those). Only where
/// there is more than one open fact.
fn index(
    report: &Report,
    groups: &[crate::rules::facts::Group],
    w: &mut dyn WriteColor,
) -> io::Result<()> {
    let open: Vec<&crate::rules::facts::Group> = groups
        .iter()
        .filter(|g| g.first.status != Status::Pass)
        .collect();
    if open.len() < 2 {
        return Ok(());
    }
    writeln!(w, "{} open item(s), most harmful first:", open.len())?;
    for g in open.iter().take(INDEX) {
        let f = g.first;
        let mut msg: String = f.message.replace(['\r', '\n'], " ");
        if msg.chars().count() > 110 {
            msg = format!("{}…", msg.chars().take(109).collect::<String>());
        }
        writeln!(
            w,
            "  {:<11} {} {}:{}  {}",
            f.status.as_str(),
            f.rule,
            report.shown_path(&f.path),
            f.line,
            msg
        )?;
    }
    if open.len() > INDEX {
        writeln!(w, "  … and {} more below", open.len() - INDEX)?;
    }
    writeln!(w)
}

/// The concise form (`--format concise`, as ruff's): one line per non-PASS finding,
/// `path:line:col: STATUS RULE message`, paths as a terminal here opens them; then the summary
/// line, most harmful first ([`super::order`]). PASS findings are listed only with
/// `--show-pass`.
pub fn concise(report: &Report, w: &mut dyn WriteColor) -> io::Result<()> {
    let mut listed: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| report.show_pass || f.status != Status::Pass)
        .collect();
    super::order::sort(&mut listed);
    for f in listed {
        writeln!(
            w,
            "{}:{}:{}: {} {} {}",
            report.shown_path(&f.path),
            f.line,
            f.column,
            f.status,
            f.rule,
            f.message.replace(['\r', '\n'], " ")
        )?;
    }
    let s = &report.summary;
    writeln!(
        w,
        "{} finding(s) in {} of {} file(s): BLOCKER {}, REMEDIATION {}, UNKNOWN {}",
        report.findings.len(),
        s.files_with_findings,
        s.files_scanned,
        s.by_status.get("BLOCKER").copied().unwrap_or(0),
        s.by_status.get("REMEDIATION").copied().unwrap_or(0),
        s.by_status.get("UNKNOWN").copied().unwrap_or(0),
    )
}

/// Where the work is: the files and the rules with the most findings listed above.
fn per_file_and_rule(shown: &[Finding], w: &mut dyn WriteColor) -> io::Result<()> {
    if shown.is_empty() {
        return Ok(());
    }
    let mut by_file: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_rule: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for f in shown {
        *by_file.entry(f.path.as_str()).or_default() += 1;
        *by_rule
            .entry((f.rule.as_str(), f.rule_name.as_str()))
            .or_default() += 1;
    }
    let top = |v: Vec<(String, usize)>| -> String {
        let mut v = v;
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let n = v.len();
        let mut parts: Vec<String> = v.iter().take(10).map(|(k, c)| format!("{k} {c}")).collect();
        if n > 10 {
            parts.push(format!("and {} more", n - 10));
        }
        parts.join(", ")
    };
    writeln!(
        w,
        "by file: {}",
        top(by_file
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect())
    )?;
    writeln!(
        w,
        "by rule: {}",
        top(by_rule
            .into_iter()
            .map(|((c, n), v)| (format!("{c} {n}"), v))
            .collect())
    )
}

fn summary(report: &Report, w: &mut dyn WriteColor) -> io::Result<()> {
    let s = &report.summary;
    writeln!(
        w,
        "summary: {} finding(s) in {} of {} file(s), target {}",
        report.findings.len(),
        s.files_with_findings,
        s.files_scanned,
        report.target.describe_with_config()
    )?;
    let statuses: Vec<String> = s
        .by_status
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(w, "  by status:   {}", statuses.join(", "))?;
    let open = report.findings.len() - s.by_status.get("PASS").copied().unwrap_or(0);
    if open > 0 {
        writeln!(
            w,
            "  to act on:   {} distinct fact(s) in {open} non-PASS finding(s) (repeats in a file and one dependency across manifests count once)",
            s.open_facts
        )?;
    }
    if !s.by_category.is_empty() {
        let cats: Vec<String> = s
            .by_category
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        writeln!(w, "  by category: {}", cats.join(", "))?;
    }
    writeln!(
        w,
        "  translated one-to-one (PASS): {} name(s); suppressed in code: {}; files with parse errors: {}",
        s.translated_names, s.suppressed, s.parse_errors_files
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::TargetInfo;
    use codespan_reporting::term::termcolor::NoColor;

    #[test]
    fn renders_snippet_note_help_and_summary() {
        let src = b"__global__ void k() {\n  int lane = threadIdx.x % 32;\n}\n".to_vec();
        let lines = crate::source::LineIndex::new(&src);
        let ctx = crate::rules::FileCtx {
            path: "k.cu",
            src: &src,
            lines: &lines,
        };
        let start = 37;
        let f = ctx.finding(
            &crate::rules::warp_size::LANE_WARP_ARITHMETIC,
            start..start + 16,
            "`% 32` computes a lane id".into(),
            Some("use warpSize".into()),
        );
        let target = TargetInfo {
            rocm: "6.3.0".into(),
            roc: false,
            experimental: false,
            offload_arch: vec![],
            rocm_explicit: true,
            config: "none".into(),
        };
        let mut report = Report::new(target, vec![f], vec![]);
        report.sources.insert("k.cu".into(), src);
        let mut out = NoColor::new(Vec::new());
        render(&report, &mut out).unwrap();
        let text = String::from_utf8(out.into_inner()).unwrap();
        assert!(text.contains("warning[HP102]"), "{text}");
        assert!(text.contains("threadIdx.x % 32"), "{text}");
        assert!(
            text.contains("= note:") && text.contains("= help: use warpSize"),
            "{text}"
        );
        assert!(text.contains("by category: warp-size 1"), "{text}");
    }
}
