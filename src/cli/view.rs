//! What a person asks to see of a report: `--show-pass` (text hides PASS by default) and the
//! `--status`, `--category`, `--rule`, `--path` filters, which apply to every format. The
//! analysis is not changed: only the findings printed (and their counts) are.

use crate::finding::{Category, Finding};
use crate::gate::Status;
use crate::report::Report;
use clap::Args;

#[derive(Args, Debug, Default, Clone)]
pub struct ViewArgs {
    /// Show PASS findings (work `hipport port` did, code HIP never compiles) in the text view;
    /// they are always counted in the summary and kept in JSON and SARIF.
    #[arg(long)]
    pub show_pass: bool,
    /// Only findings with these statuses (PASS, REMEDIATION, UNKNOWN, BLOCKER), comma-separated.
    #[arg(
        long = "status",
        id = "view_status",
        value_name = "STATUS,...",
        value_delimiter = ','
    )]
    pub status: Vec<String>,
    /// Only findings of these categories (e.g. warp-size,inline-asm), comma-separated.
    #[arg(
        long = "category",
        id = "view_category",
        value_name = "CATEGORY,...",
        value_delimiter = ','
    )]
    pub category: Vec<String>,
    /// Only findings of these rules (codes like HP102 or names), comma-separated.
    #[arg(
        long = "rule",
        id = "view_rule",
        value_name = "RULE,...",
        value_delimiter = ','
    )]
    pub rule: Vec<String>,
    /// Only findings under these paths (a file, a directory prefix, or a glob like `src/**/*.cu`).
    #[arg(long = "path", id = "view_path", value_name = "PATH")]
    pub path: Vec<String>,
}

impl ViewArgs {
    /// Applies the filters to the report; an unknown status, category or rule is an error.
    pub fn apply(&self, r: &mut Report) -> anyhow::Result<()> {
        let statuses = self
            .status
            .iter()
            .map(|s| {
                Status::parse(&s.trim().to_ascii_uppercase()).ok_or_else(|| {
                    anyhow::anyhow!("--status {s}: not one of PASS, REMEDIATION, UNKNOWN, BLOCKER")
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let categories = self
            .category
            .iter()
            .map(|c| {
                Category::parse(c)
                    .ok_or_else(|| anyhow::anyhow!("--category {c}: unknown category"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let rules = self
            .rule
            .iter()
            .map(|c| {
                crate::catalog::by_code(c.trim())
                    .map(|r| r.id.code)
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "--rule {c}: no such rule (`hipport explain all` lists them)"
                        )
                    })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut globs = globset::GlobSetBuilder::new();
        for p in &self.path {
            globs.add(
                globset::Glob::new(p.trim_end_matches('/'))
                    .map_err(|e| anyhow::anyhow!("--path {p}: {e}"))?,
            );
        }
        let globs = globs.build()?;
        let prefixes: Vec<String> = self
            .path
            .iter()
            .map(|p| p.trim_start_matches("./").trim_end_matches('/').to_string())
            .collect();
        let keep = |f: &Finding| {
            (statuses.is_empty() || statuses.contains(&f.status))
                && (categories.is_empty() || categories.contains(&f.category))
                && (rules.is_empty() || rules.contains(&f.rule.as_str()))
                && (prefixes.is_empty()
                    || globs.is_match(&f.path)
                    || prefixes.iter().any(|p| {
                        f.path == *p || f.path.starts_with(&format!("{p}/")) || p.is_empty()
                    }))
        };
        r.retain_findings(keep);
        r.show_pass = self.show_pass || statuses.contains(&Status::Pass);
        Ok(())
    }
}
