//! GitLab Code Quality JSON: one issue per non-PASS finding with description, check name,
//! fingerprint, severity and location. GitLab compares reports by fingerprint, so repeated
//! identical findings in one file get an occurrence suffix to keep fingerprints unique (counted
//! in the report's path order, so the suffixes do not depend on the listing order). Issues are
//! listed most harmful first ([`super::order`]).

use crate::gate::Status;
use crate::report::Report;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: IssueLocation<'a>,
}

#[derive(Serialize)]
struct IssueLocation<'a> {
    path: &'a str,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u32,
}

/// Code Quality severity of a status.
pub fn severity(s: Status) -> &'static str {
    match s {
        Status::Blocker => "blocker",
        Status::Remediation => "major",
        Status::Unknown => "minor",
        Status::Pass => "info",
    }
}

pub fn write(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut issues = Vec::new();
    // `check`: findings the baseline holds are not reported as this change's issues.
    let reported = |f: &&crate::finding::Finding| {
        f.status != Status::Pass && f.baseline != Some(crate::finding::BaselineState::Unchanged)
    };
    for f in r.findings.iter().filter(reported) {
        let n = seen.entry(f.fingerprint.as_str()).or_default();
        *n += 1;
        let fingerprint = if *n == 1 {
            f.fingerprint.clone()
        } else {
            format!("{}-{}", f.fingerprint, n)
        };
        let harm = super::order::finding_harm(f);
        issues.push((
            harm,
            Issue {
                description: format!("{} {}: {}", f.rule, f.status, f.message),
                check_name: &f.rule,
                fingerprint,
                severity: severity(f.status),
                location: IssueLocation {
                    path: &f.path,
                    lines: Lines { begin: f.line },
                },
            },
        ));
    }
    // Stable: the report's order within one harm.
    issues.sort_by_key(|(harm, _)| *harm);
    let issues: Vec<Issue> = issues.into_iter().map(|(_, i)| i).collect();
    serde_json::to_writer_pretty(&mut *w, &issues)?;
    writeln!(w)
}
