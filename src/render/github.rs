//! GitHub Actions workflow-command annotations: one `::error`/`::warning` line per
//! non-PASS finding, escaped as GitHub documents (`%`, CR and LF in the message; also `:` and
//! `,` in properties), new findings first when a baseline is used. The Markdown report goes to
//! the job summary (`$GITHUB_STEP_SUMMARY`) separately, see [`crate::render::markdown`].

use crate::finding::Finding;
use crate::gate::Status;
use crate::report::Report;
use std::io::{self, Write};

/// Escapes a message (the data after `::`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`file=`, `title=`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The workflow command of a status; PASS findings are not annotated.
pub fn command(s: Status) -> Option<&'static str> {
    match s {
        Status::Blocker => Some("error"),
        Status::Remediation => Some("warning"),
        // Not verified is not harmless: a warning titled [UNKNOWN], never a notice.
        Status::Unknown => Some("warning"),
        Status::Pass => None,
    }
}

/// One annotation line (without the newline).
pub fn annotation(f: &Finding, is_new: bool, decision: Option<&str>) -> Option<String> {
    let cmd = command(f.status)?;
    let title = format!(
        "{}{} {} [{}]",
        if is_new { "new: " } else { "" },
        f.rule,
        f.rule_name,
        f.status
    );
    let mut msg = f.message.clone();
    if let Some(s) = &f.suggestion {
        msg.push_str(&format!("\nSuggested: {s}"));
    }
    if let Some(d) = decision {
        msg.push_str(&format!("\nDecision: {d}"));
    }
    msg.push_str(&format!("\nPhase: {}, category: {}", f.phase, f.category));
    Some(format!(
        "::{cmd} file={},line={},endLine={},col={},endColumn={},title={}::{}",
        escape_property(&f.path),
        f.line,
        f.end_line.max(f.line),
        f.column,
        f.end_column,
        escape_property(&title),
        escape_data(&msg)
    ))
}

/// Annotations per rule and file: GitHub shows about ten per step, so repeats of one rule in
/// one file are summarised in the job summary (the Markdown report) instead.
pub const MAX_PER_RULE_AND_FILE: usize = 3;

/// Writes the annotations, one per fact (`rules::facts::groups`: a decision such as a
/// CMake build is one annotation with its counts), at most [`MAX_PER_RULE_AND_FILE`] per rule
/// and file, in the order that makes the first ones count (GitHub shows about ten warnings and
/// ten errors per step and drops the rest): new findings (against a baseline) first, then by
/// harm ([`super::order`]), and the first occurrence of every rule in every file before any
/// repeat of the same harm.
pub fn write(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    let mut seen: std::collections::HashMap<(&str, &str), usize> = std::collections::HashMap::new();
    let mut baselined = 0usize;
    // `check`: what the baseline holds is not this change's doing; only new findings are
    // annotated (the job summary still lists every item).
    let annotated: Vec<Finding> = r
        .findings
        .iter()
        .filter(|f| command(f.status).is_some())
        .filter(|f| {
            let old = f.baseline == Some(crate::finding::BaselineState::Unchanged);
            baselined += usize::from(old);
            !old
        })
        .cloned()
        .collect();
    let facts = crate::rules::facts::groups(&annotated);
    let mut order = Vec::new();
    for g in &facts {
        let f = g.first;
        let n = seen.entry((f.rule.as_str(), f.path.as_str())).or_default();
        *n += 1;
        order.push((!Report::is_new(f), super::order::finding_harm(f), *n, g));
    }
    // Stable: the report's order (by path and line) within each group.
    order.sort_by_key(|(old, harm, nth, _)| (*old, *harm, *nth));
    let mut held = 0usize;
    for (_, _, nth, g) in order {
        let f = g.first;
        if nth > MAX_PER_RULE_AND_FILE {
            held += g.counts.values().sum::<usize>();
            continue;
        }
        let mut d = r
            .decision(f)
            .map(|d| format!("{}: {}", d.decision, d.reason));
        let note = crate::rules::facts::decision_note(g).or_else(|| {
            (g.lines.len() > 1).then(|| {
                format!(
                    "{} occurrences in this file: {}",
                    g.lines.len(),
                    crate::rules::facts::lines_note(&g.lines, 12)
                )
            })
        });
        if let Some(note) = note {
            let mut annotation = f.clone();
            annotation.message = format!("{}\n{note}", f.message);
            if let Some(line) = annotation_line(&annotation, d.take()) {
                writeln!(w, "{line}")?;
            }
            continue;
        }
        if let Some(line) = annotation_line(f, d.take()) {
            writeln!(w, "{line}")?;
        }
    }
    if baselined > 0 {
        writeln!(
            w,
            "hipport: {baselined} finding(s) in the baseline not annotated (only new findings are)"
        )?;
    }
    if held > 0 {
        // Not a workflow command: a log line pointing to the job summary, which lists them.
        writeln!(
            w,
            "hipport: {held} more finding(s) not annotated (at most {MAX_PER_RULE_AND_FILE} per rule and file); the job summary lists them"
        )?;
    }
    for e in &r.errors {
        writeln!(
            w,
            "::error file={},title=hipport could not analyse this file::{}",
            escape_property(&e.path),
            escape_data(&e.error)
        )?;
    }
    Ok(())
}

fn annotation_line(f: &Finding, decision: Option<String>) -> Option<String> {
    annotation(f, Report::is_new(f), decision.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, rule: &str, status: Status, line: u32) -> Finding {
        let src = "x\n".repeat(30);
        let lines = crate::source::LineIndex::new(src.as_bytes());
        let ctx = crate::rules::FileCtx {
            path,
            src: src.as_bytes(),
            lines: &lines,
        };
        let start = (line as usize - 1) * 2;
        let mut f = ctx.finding(
            crate::catalog::by_code("HP102").unwrap(),
            start..start + 1,
            format!("{rule} at {line}"),
            None,
        );
        f.rule = rule.to_string();
        f.status = status;
        f
    }

    /// The first annotations GitHub shows are the severest and the most varied: a file with
    /// many repeats of one rule does not push another file's BLOCKER or first finding out.
    #[test]
    fn severest_and_first_occurrences_come_first() {
        let mut findings = Vec::new();
        for line in 1..=20 {
            findings.push(finding("a.cu", "HP102", Status::Remediation, line));
        }
        findings.push(finding("b.cu", "HP401", Status::Remediation, 1));
        findings.push(finding("z.cu", "HP999", Status::Blocker, 1));
        findings.push(finding("c.cu", "HP710", Status::Unknown, 1));
        findings.push(finding("d.cu", "HP001", Status::Pass, 1));
        let target = crate::report::TargetInfo {
            rocm: "6.3.0".into(),
            roc: false,
            experimental: false,
            rocm_explicit: true,
            offload_arch: Vec::new(),
            config: "none".into(),
        };
        let r = Report::new(target, findings, Vec::new());
        let mut out = Vec::new();
        write(&r, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("::error file=z.cu,"), "{out}");
        assert!(lines[1].starts_with("::warning file=a.cu,line=1,"), "{out}");
        assert!(lines[2].starts_with("::warning file=b.cu,"), "{out}");
        assert!(lines[3].starts_with("::warning file=a.cu,line=2,"), "{out}");
        assert!(lines[4].starts_with("::warning file=a.cu,line=3,"), "{out}");
        assert!(lines[5].starts_with("::warning file=c.cu,"), "{out}");
        assert_eq!(lines.iter().filter(|l| l.starts_with("::")).count(), 6);
        assert!(
            lines[6].contains("17 more finding(s) not annotated"),
            "{out}"
        );
    }

    #[test]
    fn escapes_as_documented() {
        assert_eq!(escape_data("100%\r\nok: a,b"), "100%25%0D%0Aok: a,b");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
