//! Printing the gate board: text for terminals, markdown for reports and pull requests, JSON
//! for pipelines. Pure functions of the board.

use super::Board;
use crate::perf::judge::{ratio, show, PerfTable, RunSummary};
use std::io::{self, Write};

fn perf_table(b: &Board) -> Option<&PerfTable> {
    b.gates.iter().find_map(|g| g.perf.as_ref())
}

fn value(v: Option<f64>, unit: &str) -> String {
    v.map_or("-".into(), |v| show(v, unit))
}

fn conditions(r: &RunSummary) -> String {
    if r.conditions.is_empty() {
        return "none stated".into();
    }
    r.conditions
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn runs(t: &PerfTable) -> Vec<(&'static str, &RunSummary)> {
    [("baseline", &t.baseline), ("candidate", &t.candidate)]
        .into_iter()
        .filter_map(|(w, r)| r.as_ref().map(|r| (w, r)))
        .collect()
}

/// The performance gate's metric table under the board.
fn perf_text(t: &PerfTable, w: &mut impl Write) -> io::Result<()> {
    writeln!(
        w,
        "\nPerformance (the requirement is the gate; the ratio is for information):"
    )?;
    let names: Vec<String> = t
        .rows
        .iter()
        .map(|r| {
            if r.read_as.is_empty() {
                r.requirement.clone()
            } else {
                format!("{} [{}]", r.requirement, r.read_as)
            }
        })
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(11);
    if !t.rows.is_empty() {
        writeln!(
            w,
            "  {:<width$} {:>12} {:>12} {:>6}  {:<11} DETAIL",
            "REQUIREMENT", "BASELINE", "CANDIDATE", "RATIO", "STATUS"
        )?;
    }
    for (r, name) in t.rows.iter().zip(&names) {
        writeln!(
            w,
            "  {:<width$} {:>12} {:>12} {:>6}  {:<11} {}",
            name,
            value(r.baseline, &r.unit),
            value(r.candidate, &r.unit),
            ratio(r.ratio),
            r.status.as_str(),
            r.reason
        )?;
    }
    for (which, r) in runs(t) {
        writeln!(
            w,
            "  {which}: {} [{}], {}; conditions: {}",
            r.path,
            r.format,
            r.machine,
            conditions(r)
        )?;
    }
    for p in &t.problems {
        writeln!(w, "  ! {p}")?;
    }
    Ok(())
}

fn perf_markdown(t: &PerfTable, w: &mut impl Write) -> io::Result<()> {
    writeln!(w, "\n### Performance\n")?;
    if !t.rows.is_empty() {
        writeln!(
            w,
            "| Requirement | Baseline | Candidate | Ratio (info) | Status | Detail |"
        )?;
        writeln!(w, "|---|---|---|---|---|---|")?;
        for r in &t.rows {
            let name = if r.read_as.is_empty() {
                code(&r.requirement)
            } else {
                format!("{} (read as {})", code(&r.requirement), code(&r.read_as))
            };
            writeln!(
                w,
                "| {} | {} | {} | {} | **{}** | {} |",
                name.replace('|', "\\|"),
                value(r.baseline, &r.unit),
                value(r.candidate, &r.unit),
                ratio(r.ratio),
                r.status,
                cell(&r.reason)
            )?;
        }
        writeln!(w)?;
    }
    for (which, r) in runs(t) {
        writeln!(
            w,
            "- {which}: {} ({}), {}; conditions: {}",
            code(&r.path),
            r.format,
            cell(&r.machine),
            cell(&conditions(r))
        )?;
    }
    for p in &t.problems {
        writeln!(w, "- **{}**", cell(p))?;
    }
    Ok(())
}

pub fn text(b: &Board, w: &mut impl Write) -> io::Result<()> {
    for n in &b.notes {
        writeln!(w, "note: {n}")?;
    }
    writeln!(
        w,
        "{:<12} {:<12} {:<9} {:<12} EVIDENCE / REASON",
        "GATE", "STATUS", "AGE", "FROM"
    )?;
    for g in &b.gates {
        let ev = if g.evidence.is_empty() {
            String::new()
        } else {
            format!("{}; ", g.evidence)
        };
        writeln!(
            w,
            "{:<12} {:<12} {:<9} {:<12} {ev}{}",
            g.name.as_str(),
            g.status.as_str(),
            g.age,
            g.source,
            g.reason
        )?;
    }
    if let Some(t) = perf_table(b) {
        perf_text(t, w)?;
    }
    writeln!(w)?;
    writeln!(w, "VERDICT: {}", b.verdict)?;
    for l in &b.blocking {
        writeln!(w, "  - {l}")?;
    }
    if !b.critical_unknowns.is_empty() {
        writeln!(w, "Critical unknowns:")?;
        for c in &b.critical_unknowns {
            writeln!(w, "  - {c}")?;
        }
    }
    Ok(())
}

use crate::render::mdtext::{cell, code};

pub fn markdown(b: &Board, w: &mut impl Write) -> io::Result<()> {
    writeln!(w, "## Migration gates\n")?;
    for n in &b.notes {
        writeln!(w, "> {}\n", cell(n))?;
    }
    writeln!(w, "| Gate | Status | Age | From | Evidence | Reason |")?;
    writeln!(w, "|---|---|---|---|---|---|")?;
    for g in &b.gates {
        writeln!(
            w,
            "| {} | **{}** | {} | {} | {} | {} |",
            g.name.as_str(),
            g.status,
            cell(&g.age),
            cell(&g.source),
            cell(&g.evidence),
            cell(&g.reason)
        )?;
    }
    if let Some(t) = perf_table(b) {
        perf_markdown(t, w)?;
    }
    writeln!(w, "\n**Verdict: {}**\n", b.verdict)?;
    for l in &b.blocking {
        writeln!(w, "- {}", cell(l))?;
    }
    if !b.critical_unknowns.is_empty() {
        writeln!(w, "\n**Critical unknowns**\n")?;
        for c in &b.critical_unknowns {
            writeln!(w, "- {}", cell(c))?;
        }
    }
    Ok(())
}

pub fn json(b: &Board, w: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, b)?;
    writeln!(w)
}
