//! GitHub Actions workflow-command annotations: one `::error`/`::warning`/`::notice` line per
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
        Status::Unknown => Some("notice"),
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

/// Writes the annotations, new ones (against a baseline) first, at most
/// [`MAX_PER_RULE_AND_FILE`] per rule and file.
pub fn write(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    let mut order: Vec<&Finding> = r.findings.iter().collect();
    order.sort_by_key(|f| !Report::is_new(f));
    let mut per: std::collections::HashMap<(&str, &str), usize> = std::collections::HashMap::new();
    let mut held = 0usize;
    for f in order {
        let d = r
            .decision(f)
            .map(|d| format!("{}: {}", d.decision, d.reason));
        if let Some(line) = annotation(f, Report::is_new(f), d.as_deref()) {
            let n = per.entry((f.rule.as_str(), f.path.as_str())).or_default();
            *n += 1;
            if *n > MAX_PER_RULE_AND_FILE {
                held += 1;
                continue;
            }
            writeln!(w, "{line}")?;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_documented() {
        assert_eq!(escape_data("100%\r\nok: a,b"), "100%25%0D%0Aok: a,b");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
