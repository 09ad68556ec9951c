//! Renderers: pure functions of a [`Report`] and a writer, one file per format, chosen by one
//! match in [`render`]. Analysis never prints. (`diff` and `stats` render `port`'s per-file
//! results, not a report.)

use crate::report::Report;
use codespan_reporting::term::termcolor::WriteColor;
use std::io;

pub mod diff;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod junit;
pub mod markdown;
pub(crate) mod mdtext;
pub mod order;
pub mod sarif;
pub mod stats;
pub mod text;

/// The report formats of `scan` and `check`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    /// One line per finding, `path:line:col: STATUS RULE message` (as ruff's concise).
    Concise,
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

/// Renders the report in a format. Only text uses colour, when the writer supports it.
pub fn render(r: &Report, format: Format, w: &mut dyn WriteColor) -> io::Result<()> {
    match format {
        Format::Text => text::render(r, w),
        Format::Concise => text::concise(r, w),
        Format::Json => {
            serde_json::to_writer_pretty(&mut *w, r)?;
            writeln!(w)
        }
        Format::Markdown => markdown::write(r, w),
        Format::Sarif => sarif::write(r, w),
        Format::Github => github::write(r, w),
        Format::Gitlab => gitlab::write(r, w),
        Format::Junit => junit::write(r, w),
        // The page shows the port and the gate board of the project, beyond the report:
        // `scan`, `check` and `report` build it (`cli::report::page`) and `html::write` it.
        Format::Html => Err(io::Error::other(
            "--format html is written by scan, check and report, not from a report alone",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::Format;
    use crate::finding::{Category, Finding};
    use crate::gate::{Phase, Status};
    use crate::report::{Report, TargetInfo};
    use clap::ValueEnum;

    /// One REMEDIATION finding per category, each in its own file.
    fn every_category() -> Report {
        let findings = Category::ALL
            .iter()
            .enumerate()
            .map(|(i, c)| Finding {
                rule: "HP001".into(),
                rule_name: "unported-api".into(),
                category: *c,
                status: Status::Remediation,
                phase: Phase::Build,
                path: format!("f{i:02}.cu"),
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 2,
                message: format!("item of {c}"),
                suggestion: None,
                fix: None,
                fingerprint: format!("{i:016x}"),
                byte_range: (0, 1),
                excerpt: String::new(),
                baseline: None,
                folded_into: None,
                holds: 0,
                set_aside: false,
            })
            .collect();
        let t = TargetInfo {
            rocm: "6.2.0".into(),
            roc: false,
            experimental: false,
            rocm_explicit: true,
            offload_arch: vec![],
            config: "none".into(),
        };
        Report::new(t, findings, vec![])
    }

    fn render(r: &Report, format: Format) -> String {
        let mut w = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
        super::render(r, format, &mut w).unwrap();
        String::from_utf8(w.into_inner()).unwrap()
    }

    #[test]
    fn every_category_reaches_every_renderer() {
        let r = every_category();
        for &format in Format::value_variants() {
            if format == Format::Html {
                continue; // needs the project: tests/html_report.rs
            }
            let out = render(&r, format);
            if format == Format::Gitlab {
                // GitLab Code Quality has no category field: one issue per finding.
                let issues: serde_json::Value = serde_json::from_str(&out).unwrap();
                assert_eq!(issues.as_array().unwrap().len(), Category::ALL.len());
                continue;
            }
            for c in Category::ALL {
                assert!(
                    out.contains(&format!("item of {c}")) && out.contains(c.as_str()),
                    "{format:?} lost category {c}:\n{out}"
                );
            }
        }
    }
}
