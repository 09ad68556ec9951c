//! The remediation report as Markdown, for a ticket, a pull request or `$GITHUB_STEP_SUMMARY`:
//! the gate board in migration order, the verdict line, then every fact by status, most harmful
//! first ([`super::order`]), with its location, what, why, the suggested action, the phase and
//! the category; a decision (a CMake build, a CI lane) is one item with its counts.

use super::mdtext::{cell, code, inline};
use crate::catalog;
use crate::finding::Finding;
use crate::gate::Status;
use crate::report::Report;
use std::io::{self, Write};

/// Writes the report. Findings a baseline comparison found new are listed first within their
/// group and tagged.
pub fn write(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    // Items are listed until the report nears GitHub's comment limit (65 536 characters); the
    // rest are counted with a pointer to the complete formats.
    let written = std::cell::RefCell::new(0usize);
    let mut omitted = 0usize;
    let mut w = Counting {
        inner: w,
        n: &written,
    };
    let w = &mut w;
    writeln!(w, "# hipport remediation report")?;
    writeln!(w)?;
    writeln!(
        w,
        "Target: {} · {} files scanned · {} {}",
        inline(&r.target.describe_with_config()),
        r.summary.files_scanned,
        r.tool.name,
        r.tool.version
    )?;
    let open = r.findings.len() - r.summary.by_status.get("PASS").copied().unwrap_or(0);
    if open > 0 {
        writeln!(w)?;
        writeln!(
            w,
            "To act on: **{}** distinct fact(s) in {open} non-PASS finding(s).",
            r.summary.open_facts
        )?;
    }
    writeln!(w)?;
    board(r, w)?;
    if let Some(b) = &r.baseline {
        writeln!(w, "{} items are new since the baseline.", b.new)?;
    }
    for status in Status::ALL {
        let items: Vec<(usize, &Finding)> = r
            .findings
            .iter()
            .enumerate()
            .filter(|(_, f)| f.status == status)
            .filter(|(_, f)| status != Status::Pass || r.decision(f).is_some())
            .collect();
        if items.is_empty() {
            continue;
        }
        writeln!(w)?;
        let title = if status == Status::Pass {
            crate::finding::DecisionKind::Accepted.to_string()
        } else {
            status.to_string()
        };
        writeln!(w, "## {title} ({})", items.len())?;
        writeln!(w)?;
        // Most harmful first ([`super::order`]), new findings first within that order when a
        // baseline was compared; the budget then drops the least harmful.
        let listed: Vec<Finding> = items.iter().map(|(_, f)| (*f).clone()).collect();
        let mut facts = crate::rules::facts::groups_by_harm(&listed);
        facts.sort_by_key(|g| !Report::is_new(g.first));
        for g in facts {
            if *written.borrow() > ITEMS_BUDGET {
                omitted += g.counts.values().sum::<usize>();
                continue;
            }
            let mut buf = Vec::new();
            item(r, g.first, Report::is_new(g.first), &mut buf)?;
            if let Some(note) = crate::rules::facts::decision_note(&g) {
                writeln!(buf, "  - {}", inline(&note))?;
            } else if !g.others.is_empty() {
                writeln!(
                    buf,
                    "  - one dependency fact: {}",
                    crate::rules::facts::others_note(&g.others, 20)
                )?;
            }
            if g.lines.len() > 1 && g.decision.is_none() {
                writeln!(
                    buf,
                    "  - {} occurrences in this file: {}",
                    g.lines.len(),
                    crate::rules::facts::lines_note(&g.lines, 20)
                )?;
            }
            // An item that would cross the budget is counted, not cut.
            if *written.borrow() + buf.len() > ITEMS_BUDGET {
                omitted += g.counts.values().sum::<usize>();
                continue;
            }
            w.write_all(&buf)?;
        }
    }
    if omitted > 0 {
        writeln!(w)?;
        writeln!(
            w,
            "{omitted} more item(s) are not listed, to fit a pull-request comment: the full list is in `hipport scan --format json` or `--format sarif` (or narrow this report with `--status`, `--category`, `--rule`, `--path`)."
        )?;
    }
    if !r.errors.is_empty() {
        writeln!(w)?;
        writeln!(w, "## Files not analysed ({})", r.errors.len())?;
        writeln!(w)?;
        let mut unlisted = 0usize;
        for e in &r.errors {
            let line = format!("- {}: {}\n", code(&e.path), inline(&e.error));
            if *written.borrow() + line.len() > BUDGET - CLOSING {
                unlisted += 1;
                continue;
            }
            w.write_all(line.as_bytes())?;
        }
        if unlisted > 0 {
            writeln!(
                w,
                "- {unlisted} more: see `hipport scan --format json` (`errors`)."
            )?;
        }
    }
    Ok(())
}

/// The project's gate board (the one `hipport gate` prints: [`crate::board`]) and the verdict.
fn board(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, "## Gates")?;
    writeln!(w)?;
    for n in &r.board.notes {
        writeln!(w, "> {}", cell(n))?;
        writeln!(w)?;
    }
    writeln!(w, "| # | Gate | Status | Evidence | From |")?;
    writeln!(w, "|---|------|--------|----------|------|")?;
    for (i, g) in r.board.gates.iter().enumerate() {
        let evidence = if g.evidence.is_empty() {
            g.reason.clone()
        } else {
            format!("{}; {}", g.reason, g.evidence)
        };
        writeln!(
            w,
            "| {} | {} | {} | {} | {} |",
            i + 1,
            cell(g.name.title()),
            g.status,
            cell(&evidence),
            cell(&g.source)
        )?;
    }
    writeln!(w)?;
    let v = r.verdict();
    writeln!(w, "## Verdict")?;
    writeln!(w)?;
    writeln!(w, "{}", v.line())?;
    writeln!(w)?;
    for l in &r.board.blocking {
        writeln!(w, "- {}", cell(l))?;
    }
    if !r.board.blocking.is_empty() {
        writeln!(w)?;
    }
    writeln!(
        w,
        "UNKNOWN counts {} findings or unanalysed files and {} gates without evidence.",
        v.unknown_findings, v.unknown_gates
    )?;
    Ok(())
}

fn item(r: &Report, f: &Finding, is_new: bool, w: &mut dyn Write) -> io::Result<()> {
    let rule = catalog::by_code(&f.rule);
    writeln!(
        w,
        "- {}{} **{}** {}: {}",
        if is_new { "**NEW** " } else { "" },
        code(&format!("{}:{}:{}", f.path, f.line, f.column)),
        inline(&f.rule),
        f.rule_name,
        inline(&f.message)
    )?;
    if let Some(rule) = rule {
        writeln!(w, "  - Why: {}", rule.why)?;
    }
    let action = f
        .suggestion
        .as_deref()
        .or(rule.map(|r| r.fix))
        .unwrap_or("see `hipport explain`");
    writeln!(w, "  - Action: {}", inline(action))?;
    if let Some(fix) = &f.fix {
        writeln!(w, "  - Fix: replace with {}", code(fix))?;
    }
    writeln!(w, "  - Phase: {} · category: {}", f.phase, f.category)?;
    if let Some(d) = r.decision(f) {
        let by =
            d.by.as_deref()
                .map(|b| format!(" by {}", inline(b)))
                .unwrap_or_default();
        writeln!(w, "  - Decision: {}{by}: {}", d.decision, inline(&d.reason))?;
    }
    Ok(())
}

/// The most bytes a Markdown report holds (GitHub's comment limit is 65 536 characters): the
/// summary, board and verdict come first, items are listed while they fit in
/// [`ITEMS_BUDGET`], and the closing lines (the count of unlisted items, the files not
/// analysed) fit in the rest.
pub const BUDGET: usize = 55_000;
/// Room kept for the closing lines.
const CLOSING: usize = 200;
/// Where listing items stops (whole items only).
pub const ITEMS_BUDGET: usize = BUDGET - 1_500;

/// A writer that counts the bytes written through it.
struct Counting<'a, 'b> {
    inner: &'a mut dyn Write,
    n: &'b std::cell::RefCell<usize>,
}

impl Write for Counting<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let k = self.inner.write(buf)?;
        *self.n.borrow_mut() += k;
        Ok(k)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
