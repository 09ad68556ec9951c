//! Printing the gate board: text for terminals, markdown for reports and pull requests, JSON
//! for pipelines. Pure functions of the board.

use super::Board;
use std::io::{self, Write};

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
            g.name,
            g.status.as_str(),
            g.age,
            g.source,
            g.reason
        )?;
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

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

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
            g.name,
            g.status,
            cell(&g.age),
            cell(&g.source),
            cell(&g.evidence),
            cell(&g.reason)
        )?;
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
