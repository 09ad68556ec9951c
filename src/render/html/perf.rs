//! The performance gate's metric table on the HTML page, under the gate board: each requirement
//! with the baseline, the candidate, the ratio (for information) and the verdict, then the two
//! runs' conditions and machines and what keeps them from being judged. Shown only when the gate
//! was derived from benchmark runs; every text goes through [`super::escape`].

use super::model::Page;
use super::{escape, pill};
use crate::perf::judge::{ratio, show, RunSummary};
use std::fmt::Write as _;

fn run_line(which: &str, r: &RunSummary) -> String {
    let conditions = if r.conditions.is_empty() {
        "none stated".to_string()
    } else {
        r.conditions
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "<li>{which}: <code>{}</code> ({}), {}; conditions: {}</li>",
        escape(&r.path),
        escape(&r.format),
        escape(&r.machine),
        escape(&conditions)
    )
}

pub(super) fn section(page: &Page, h: &mut String) {
    let Some(t) = page.board.gates.iter().find_map(|g| g.perf.as_ref()) else {
        return;
    };
    h.push_str("<h3 id=\"perf-h\">Performance: the requirement is the gate</h3>\n");
    if !t.rows.is_empty() {
        h.push_str("<table class=\"board\" id=\"perf\" aria-labelledby=\"perf-h\">\n<thead><tr><th scope=\"col\">Requirement</th><th scope=\"col\">Baseline</th><th scope=\"col\">Candidate</th><th scope=\"col\">Ratio (information)</th><th scope=\"col\">Status</th><th scope=\"col\">Detail</th></tr></thead>\n<tbody>\n");
        for r in &t.rows {
            let read_as = if r.read_as.is_empty() {
                String::new()
            } else {
                format!(
                    "<span class=\"ev\"> read as <code>{}</code></span>",
                    escape(&r.read_as)
                )
            };
            let value = |v: Option<f64>| v.map_or("-".to_string(), |v| escape(&show(v, &r.unit)));
            let _ = writeln!(
                h,
                "<tr data-status=\"{}\"><th scope=\"row\"><code>{}</code>{read_as}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}<span class=\"ev\"> — set by {}</span></td></tr>",
                r.status.as_str(),
                escape(&r.requirement),
                value(r.baseline),
                value(r.candidate),
                escape(&ratio(r.ratio)),
                pill(r.status),
                escape(&r.reason),
                escape(&r.set_by),
            );
        }
        h.push_str("</tbody>\n</table>\n");
    }
    h.push_str("<ul class=\"more\">\n");
    for (which, r) in [("baseline", &t.baseline), ("candidate", &t.candidate)] {
        if let Some(r) = r {
            h.push_str(&run_line(which, r));
            h.push('\n');
        }
    }
    for p in &t.problems {
        let _ = writeln!(h, "<li><strong>{}</strong></li>", escape(p));
    }
    h.push_str("</ul>\n");
}
