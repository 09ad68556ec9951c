//! The self-contained HTML review page (`hipport report`, `--format html`): a pure function of
//! the page's data model ([`model::Page`]) and a writer.
//!
//! The first screen is static HTML: the verdict and what blocks it, the gate board, and the open
//! items grouped by rule with where they are and what to do; then the summary (counts and an
//! inline SVG chart), the file list and the rules' explanations. The file list is rendered by a
//! small hand-written script from the model, embedded as JSON in a
//! `<script type="application/json">` block. Promises:
//! - every byte of source, path and message reaches the page HTML-escaped ([`escape`]) or as
//!   JSON with `<`, `>` and `&` written as `\u003c`, `\u003e`, `\u0026` ([`json_for_script`]),
//!   so `</script>` in a source line cannot end the data block; the script only sets
//!   `textContent`;
//! - nothing is fetched: the Content-Security-Policy allows no source but the page's own script
//!   and style, by hash, so even markup that escaped escaping could not run or load anything.

pub mod model;
mod perf;
mod words;

use crate::gate::Status;
pub use model::{BoardSource, FileText, Input, Page};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::io::{self, Write};

const SCRIPT: &str = include_str!("html/page.js");
const STYLE: &str = include_str!("html/page.css");
/// The id of the data block.
pub const DATA_ID: &str = "hipport-data";

/// HTML-escapes text for element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The model as JSON safe inside `<script type="application/json">`: `<`, `>` and `&` only
/// occur inside JSON strings, where `\u003c`, `\u003e` and `\u0026` mean the same characters.
pub fn json_for_script(page: &Page) -> String {
    let json = serde_json::to_string(page).expect("the page model serialises");
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

/// Reads the model back out of a page written by [`write()`] (tests, tools).
pub fn read_model(html: &str) -> Option<Page> {
    let open = format!("<script type=\"application/json\" id=\"{DATA_ID}\">");
    let start = html.find(&open)? + open.len();
    let end = start + html[start..].find("</script>")?;
    serde_json::from_str(&html[start..end]).ok()
}

fn csp_hash(text: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(text.as_bytes())))
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Writes the whole page.
pub fn write(page: &Page, w: &mut dyn Write) -> io::Result<()> {
    let mut h = String::with_capacity(64 * 1024);
    let verdict_class = if page.board.ready {
        "ready"
    } else {
        "not-ready"
    };
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'\">\n\
<meta name=\"generator\" content=\"{}\">\n<title>{} — {} · hipport review</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
<a class=\"skip\" href=\"#review\">Skip to the files and findings</a>\n",
        csp_hash(SCRIPT),
        csp_hash(STYLE),
        escape(&page.tool),
        escape(&page.board.verdict),
        escape(&page.project),
    );
    header(page, &mut h);
    h.push_str("<main>\n");
    let _ = write!(
        h,
        "<section id=\"overview\" aria-labelledby=\"verdict-h\">\n<h2 id=\"verdict-h\" class=\"visually-hidden\">Verdict</h2>\n\
<div class=\"verdict {verdict_class}\" id=\"verdict\" data-verdict=\"{}\"><strong>{}</strong><span class=\"why\">{}</span></div>\n",
        escape(&page.board.verdict),
        escape(&page.board.verdict),
        escape(&verdict_why(page)),
    );
    if !page.board.critical_unknowns.is_empty() {
        let list: Vec<String> = page
            .board
            .critical_unknowns
            .iter()
            .map(|c| escape(c))
            .collect();
        let _ = writeln!(
            h,
            "<p class=\"critical\" id=\"critical\"><strong>Critical unknowns:</strong> {}.</p>",
            list.join("; ")
        );
    }
    h.push_str("<div class=\"first\">\n");
    board(page, &mut h);
    todo(page, &mut h);
    h.push_str("</div>\n</section>\n");
    summary(page, &mut h);
    review(page, &mut h);
    rules(page, &mut h);
    errors(page, &mut h);
    h.push_str("</main>\n");
    let _ = write!(
        h,
        "<script type=\"application/json\" id=\"{DATA_ID}\">{}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        json_for_script(page)
    );
    w.write_all(h.as_bytes())
}

fn header(page: &Page, h: &mut String) {
    let _ = write!(
        h,
        "<header class=\"top\">\n<h1>hipport review · <span class=\"proj\">{}</span></h1>\n<dl class=\"meta\">",
        escape(&page.project)
    );
    let tuple = if page.target.tuple.is_empty() {
        page.target.scan.clone()
    } else {
        page.target
            .tuple
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let board_from = match page.board.source {
        BoardSource::Record => "migration record + fresh scan",
        BoardSource::Scan => "fresh scan (no migration record)",
    };
    let items = [
        (
            "Commit",
            page.commit
                .clone()
                .unwrap_or_else(|| "not a git work tree".into()),
        ),
        ("Target", tuple),
        ("Findings for", page.target.scan.clone()),
        ("Board from", board_from.to_string()),
        ("Tool", page.tool.clone()),
        ("Generated", page.generated.clone()),
    ];
    for (k, v) in items {
        let _ = write!(h, "<div><dt>{k}</dt><dd>{}</dd></div>", escape(&v));
    }
    h.push_str("</dl>\n</header>\n");
}

/// One line under the verdict: what stands between the code and READY.
fn verdict_why(page: &Page) -> String {
    if page.board.ready {
        return "every gate is PASS".into();
    }
    let count = |s: Status| page.board.gates.iter().filter(|g| g.status == s).count();
    let mut parts = Vec::new();
    for g in page
        .board
        .gates
        .iter()
        .filter(|g| g.status == Status::Blocker)
    {
        parts.push(format!("{} is BLOCKED: {}", g.title, g.reason));
    }
    for g in page
        .board
        .gates
        .iter()
        .filter(|g| g.status == Status::Remediation)
    {
        let n = g
            .open_items
            .map(|n| format!("{n} open items"))
            .unwrap_or_else(|| g.reason.clone());
        parts.push(format!("{} needs remediation ({n})", g.title));
    }
    let u = count(Status::Unknown);
    if u > 0 {
        parts.push(format!(
            "{u} of {} gates have no evidence yet",
            page.board.gates.len()
        ));
    }
    parts.join(" · ")
}

fn pill(s: Status) -> String {
    format!("<span class=\"pill s-{0}\">{0}</span>", s.as_str())
}

fn board(page: &Page, h: &mut String) {
    let _ = write!(
        h,
        "<div>\n<h2 id=\"board-h\">What blocks us: the gate board</h2>\n<table class=\"board\" id=\"board\" aria-labelledby=\"board-h\">\n\
<thead><tr><th scope=\"col\">#</th><th scope=\"col\">Gate</th><th scope=\"col\">Status</th><th scope=\"col\">Evidence / reason</th></tr></thead>\n<tbody>\n"
    );
    for (i, g) in page.board.gates.iter().enumerate() {
        let ev = if g.evidence.is_empty() {
            String::new()
        } else {
            format!("{}; ", g.evidence)
        };
        let _ = writeln!(
            h,
            "<tr data-gate=\"{}\" data-status=\"{}\"><td class=\"num\">{}</td><th scope=\"row\">{}</th><td>{}</td><td>{}<span class=\"ev\"> — from {}, {}{}</span></td></tr>",
            escape(&g.name),
            g.status.as_str(),
            i + 1,
            escape(&g.title),
            pill(g.status),
            escape(&g.reason),
            escape(&g.source),
            if g.age == "-" { "no date".to_string() } else { format!("age {}", escape(&g.age)) },
            if ev.is_empty() { String::new() } else { format!("; {}", escape(ev.trim_end_matches("; "))) },
        );
    }
    let _ = write!(
        h,
        "</tbody>\n</table>\n<p class=\"more\" id=\"board-source\">{}</p>\n",
        escape(&page.board.source_note)
    );
    for n in &page.board.notes {
        let _ = writeln!(h, "<p class=\"more\">Note: {}</p>", escape(n));
    }
    perf::section(page, h);
    h.push_str("</div>\n");
}

const TODO_ROWS: usize = 8;

fn todo(page: &Page, h: &mut String) {
    let open: Vec<_> = page.summary.by_rule.iter().filter(|r| r.open > 0).collect();
    let _ = write!(
        h,
        "<div>\n<h2 id=\"todo-h\">Where, and what to do: {} open items</h2>\n",
        page.summary.open
    );
    if open.is_empty() {
        h.push_str("<p>No open findings: every finding is PASS. What remains is evidence for the gates on the left.</p>\n</div>\n");
        return;
    }
    h.push_str("<ol class=\"todo\" aria-labelledby=\"todo-h\">\n");
    for r in open.iter().take(TODO_ROWS) {
        let places: Vec<String> = r
            .places
            .iter()
            .map(|p| {
                format!(
                    "<a href=\"#item={}\">{}:{}</a>",
                    p.finding,
                    escape(&p.path),
                    p.line
                )
            })
            .collect();
        let more = if r.open > r.places.len() { " …" } else { "" };
        let _ = writeln!(
            h,
            "<li data-rule=\"{0}\"><p class=\"what\">{2} <b>{1}×</b> <a href=\"#rule={0}\">{0}</a> {3} <span class=\"places\">in {4}{more}</span></p><p class=\"act\">{5}</p></li>",
            escape(&r.rule),
            r.open,
            pill(r.status),
            escape(&r.name),
            places.join(", "),
            escape(&first_sentence(&r.action)),
        );
    }
    h.push_str("</ol>\n");
    if open.len() > TODO_ROWS {
        let rest: usize = open.iter().skip(TODO_ROWS).map(|r| r.open).sum();
        let _ = writeln!(
            h,
            "<p class=\"more\">{rest} more open items under {} other rules: see <a href=\"#summary\">the summary</a>.</p>",
            open.len() - TODO_ROWS
        );
    }
    h.push_str("</div>\n");
}

fn first_sentence(s: &str) -> String {
    const MAX: usize = 160;
    // A sentence ends at ". " before a capital (not at "e.g. " or "vs. ").
    let end = s
        .match_indices(". ")
        .find(|(i, _)| s[i + 2..].starts_with(|c: char| c.is_uppercase()))
        .map(|(i, _)| i + 1)
        .unwrap_or(s.len())
        .min(s.char_indices().nth(MAX).map_or(s.len(), |(i, _)| i));
    if end < s.len() {
        format!("{}…", s[..end].trim_end_matches('.'))
    } else {
        s.to_string()
    }
}

fn summary(page: &Page, h: &mut String) {
    let s = &page.summary;
    let _ = write!(
        h,
        "<section id=\"summary\" aria-labelledby=\"summary-h\">\n<h2 id=\"summary-h\">Summary: {} findings in {} of {} files scanned; the port changes {} files</h2>\n<div class=\"cards\">",
        s.findings, s.files_with_findings, s.files_scanned, s.files_changed
    );
    for st in Status::ALL {
        let n = s.by_status.get(st.as_str()).copied().unwrap_or(0);
        let _ = write!(
            h,
            "<a class=\"card s-{0}\" href=\"#status={0}\" data-status=\"{0}\" data-count=\"{n}\"><b>{n}</b>{0}</a>",
            st.as_str()
        );
    }
    let _ = write!(
        h,
        "</div>\n<p class=\"more\">Besides the findings: {} CUDA names translated one-to-one (PASS), {} findings suppressed in code or configuration.</p>\n<div class=\"grid2\">\n<figure>\n",
        s.translated_names, s.suppressed
    );
    chart(page, h);
    h.push_str("</figure>\n");
    // Category × status table: the chart's numbers, readable without colour.
    h.push_str("<table class=\"counts\" id=\"by-category\"><caption class=\"visually-hidden\">Findings by category and status</caption><thead><tr><th scope=\"col\">Category</th>");
    for st in Status::ALL {
        let _ = write!(h, "<th scope=\"col\" class=\"num\">{}</th>", st.as_str());
    }
    h.push_str("</tr></thead><tbody>");
    for (cat, by) in &s.by_category {
        let _ = write!(
            h,
            "<tr><th scope=\"row\"><a href=\"#category={0}\">{0}</a></th>",
            escape(cat)
        );
        for st in Status::ALL {
            let _ = write!(
                h,
                "<td class=\"num\">{}</td>",
                by.get(st.as_str()).copied().unwrap_or(0)
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>\n");
    h.push_str("<table class=\"counts\" id=\"by-rule\"><caption class=\"visually-hidden\">Findings by rule</caption><thead><tr><th scope=\"col\">Rule</th><th scope=\"col\">Status</th><th scope=\"col\" class=\"num\">Open</th><th scope=\"col\" class=\"num\">All</th></tr></thead><tbody>");
    for r in &s.by_rule {
        let _ = write!(
            h,
            "<tr><th scope=\"row\"><a href=\"#rule={0}\">{0}</a> {1}</th><td>{2}</td><td class=\"num\">{3}</td><td class=\"num\">{4}</td></tr>",
            escape(&r.rule),
            escape(&r.name),
            pill(r.status),
            r.open,
            r.total
        );
    }
    h.push_str("</tbody></table>\n");
    h.push_str("<table class=\"counts\" id=\"by-phase\"><caption class=\"visually-hidden\">Findings by the phase where they would fail</caption><thead><tr><th scope=\"col\">Fails at phase</th><th scope=\"col\" class=\"num\">Findings</th></tr></thead><tbody>");
    for ph in crate::gate::Phase::ALL {
        if let Some(n) = s.by_phase.get(ph.as_str()) {
            let _ = write!(
                h,
                "<tr><th scope=\"row\">{}</th><td class=\"num\">{n}</td></tr>",
                ph.as_str()
            );
        }
    }
    h.push_str("</tbody></table>\n");
    h.push_str("<table class=\"counts\" id=\"files-ranked\"><caption class=\"visually-hidden\">Files ranked by open items</caption><thead><tr><th scope=\"col\">File (most open items first)</th><th scope=\"col\" class=\"num\">Open</th><th scope=\"col\" class=\"num\">All</th></tr></thead><tbody>");
    const RANKED: usize = 15;
    for f in s.files_ranked.iter().take(RANKED) {
        let _ = write!(
            h,
            "<tr><th scope=\"row\"><a href=\"#path={}\">{}</a></th><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&fragment_value(&f.path)),
            escape(&f.path),
            f.open,
            f.total
        );
    }
    h.push_str("</tbody></table>\n");
    if s.files_ranked.len() > RANKED {
        let _ = write!(
            h,
            "<p class=\"more\">… and {} more files with findings below.</p>",
            s.files_ranked.len() - RANKED
        );
    }
    h.push_str("</div>\n</section>\n");
}

/// Percent-encodes a value for the fragment (`URLSearchParams` decodes it).
fn fragment_value(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_./~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Findings by category, one stacked bar per category, segments by status, numbers written out.
fn chart(page: &Page, h: &mut String) {
    let cats = &page.summary.by_category;
    let max = cats
        .values()
        .map(|m| m.values().sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(1);
    let (label_w, bar_w, row_h) = (150.0, 300.0, 20.0);
    let height = row_h * (cats.len() as f64) + 34.0;
    let _ = write!(
        h,
        "<svg class=\"chart\" role=\"img\" aria-labelledby=\"chart-t\" viewBox=\"0 0 520 {height}\" width=\"520\" height=\"{height}\"><title id=\"chart-t\">Findings by category and status (numbers in the table beside)</title>"
    );
    for (i, (cat, by)) in cats.iter().enumerate() {
        let y = row_h * i as f64;
        let _ = write!(
            h,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            label_w - 6.0,
            y + 14.0,
            escape(cat)
        );
        let mut x = label_w;
        let total: usize = by.values().sum();
        for st in Status::ALL {
            let n = by.get(st.as_str()).copied().unwrap_or(0);
            if n == 0 {
                continue;
            }
            let w = bar_w * n as f64 / max as f64;
            let _ = write!(
                h,
                "<rect class=\"f-{0}\" x=\"{x:.1}\" y=\"{1}\" width=\"{w:.1}\" height=\"{2}\"><title>{3}: {n} {0}</title></rect>",
                st.as_str(),
                y + 3.0,
                row_h - 6.0,
                escape(cat)
            );
            x += w;
        }
        let _ = write!(
            h,
            "<text x=\"{:.1}\" y=\"{}\">{total}</text>",
            x + 4.0,
            y + 14.0
        );
    }
    // Legend: every colour named.
    let y = row_h * cats.len() as f64 + 14.0;
    let mut x = 10.0;
    for st in Status::ALL {
        let _ = write!(
            h,
            "<rect class=\"f-{0}\" x=\"{x}\" y=\"{y}\" width=\"12\" height=\"12\"></rect><text x=\"{1}\" y=\"{2}\">{0}</text>",
            st.as_str(),
            x + 16.0,
            y + 10.0
        );
        x += 120.0;
    }
    h.push_str("</svg>");
}

fn review(page: &Page, h: &mut String) {
    let _ = write!(
        h,
        "<section id=\"review\" aria-labelledby=\"review-h\">\n<h2 id=\"review-h\">Files: the port for {} with each finding at its line</h2>\n\
<form id=\"filters\" role=\"search\" aria-label=\"Filter findings\">\n<fieldset><legend>Status</legend>",
        escape(&page.target.scan)
    );
    for st in Status::ALL {
        let n = page
            .summary
            .by_status
            .get(st.as_str())
            .copied()
            .unwrap_or(0);
        let _ = write!(
            h,
            "<label><input type=\"checkbox\" id=\"st-{0}\" value=\"{0}\"> {0} ({n})</label>",
            st.as_str()
        );
    }
    h.push_str(
        "</fieldset>\n<label>Category <select id=\"f-category\"><option value=\"\">all</option>",
    );
    for (cat, by) in &page.summary.by_category {
        let _ = write!(
            h,
            "<option value=\"{0}\">{0} ({1})</option>",
            escape(cat),
            by.values().sum::<usize>()
        );
    }
    h.push_str(
        "</select></label>\n<label>Rule <select id=\"f-rule\"><option value=\"\">all</option>",
    );
    let mut rules: Vec<_> = page.summary.by_rule.iter().collect();
    rules.sort_by(|a, b| a.rule.cmp(&b.rule));
    for r in rules {
        let _ = write!(
            h,
            "<option value=\"{0}\">{0} {1} ({2})</option>",
            escape(&r.rule),
            escape(&r.name),
            r.total
        );
    }
    h.push_str("</select></label>\n<label>Path <input type=\"search\" id=\"f-path\" placeholder=\"part of a path\"></label>\n\
<label>Search <input type=\"search\" id=\"f-q\" placeholder=\"text, rule, code\"></label>\n\
<fieldset><legend>Diff</legend><label><input type=\"radio\" name=\"view\" id=\"view-split\" value=\"split\" checked> side by side</label><label><input type=\"radio\" name=\"view\" id=\"view-unified\" value=\"unified\"> unified</label></fieldset>\n\
<button type=\"button\" id=\"f-reset\">Reset</button>\n</form>\n\
<output id=\"shown\" for=\"filters\" aria-live=\"polite\"></output>\n\
<p class=\"keys\">Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous open item · <kbd>n</kbd>/<kbd>p</kbd> next/previous file · <kbd>/</kbd> search · <kbd>u</kbd> unified/side by side · <kbd>?</kbd> help. The filters are kept in the address (a link shows the same view).</p>\n\
<div id=\"keys-help\" hidden><p><kbd>j</kbd> next open item, <kbd>k</kbd> previous open item (PASS items are skipped), <kbd>n</kbd> next file, <kbd>p</kbd> previous file, <kbd>/</kbd> focus the search, <kbd>u</kbd> switch between the side-by-side and the unified diff, <kbd>Esc</kbd> leave a field or close this help. <kbd>Tab</kbd> moves through links and controls as usual.</p></div>\n\
<div id=\"files\"></div>\n<noscript><p>The file list is drawn by the page's script. Without it, the verdict, the board and the summary above still hold; <code>hipport scan</code> gives the same findings as text.</p></noscript>\n</section>\n");
}

fn rules(page: &Page, h: &mut String) {
    if page.rules.is_empty() {
        return;
    }
    h.push_str("<section id=\"rules\" class=\"rules\" aria-labelledby=\"rules-h\">\n<h2 id=\"rules-h\">The rules behind these findings</h2>\n");
    for (code, r) in &page.rules {
        let _ = write!(
            h,
            "<article id=\"rule-{0}\"><h3><code>{0}</code> {1} <span class=\"fmeta\">({2})</span></h3><p>{3}</p><p><strong>Why it matters:</strong> {4}</p><p><strong>Flagged:</strong></p><pre>{5}</pre>",
            escape(code),
            escape(&r.name),
            escape(&r.category),
            escape(&r.summary),
            escape(&r.why),
            escape(&r.bad)
        );
        if !r.good.is_empty() {
            let _ = write!(
                h,
                "<p><strong>After the fix:</strong></p><pre>{}</pre>",
                escape(&r.good)
            );
        }
        let _ = write!(h, "<p><strong>What to do:</strong> {}</p>", escape(&r.fix));
        if !r.references.is_empty() {
            h.push_str("<p><strong>References:</strong> ");
            let refs: Vec<String> = r
                .references
                .iter()
                .map(|x| format!("<code>{}</code>", escape(x)))
                .collect();
            h.push_str(&refs.join(", "));
            h.push_str("</p>");
        }
        h.push_str("</article>\n");
    }
    h.push_str("</section>\n");
}

fn errors(page: &Page, h: &mut String) {
    if page.errors.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<section id=\"errors\" aria-labelledby=\"errors-h\">\n<h2 id=\"errors-h\">Files not analysed ({})</h2>\n<ul>",
        page.errors.len()
    );
    for e in &page.errors {
        let _ = write!(
            h,
            "<li><code>{}</code>: {}</li>",
            escape(&e.path),
            escape(&e.error)
        );
    }
    h.push_str("</ul>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape("</script><img src=x onerror=\"a('b')\">&amp;"),
            "&lt;/script&gt;&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;amp;"
        );
        assert_eq!(escape("plain ü"), "plain ü");
    }

    #[test]
    fn base64_matches_rfc4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn first_sentence_cuts_at_the_first_full_stop() {
        assert_eq!(first_sentence("Do this. Then that."), "Do this…");
        assert_eq!(first_sentence("Only one."), "Only one.");
        assert_eq!(
            first_sentence("Use `amd-smi` (e.g. `amd-smi metric`). Then drop it."),
            "Use `amd-smi` (e.g. `amd-smi metric`)…"
        );
    }

    /// A report whose path, message and source carry markup, a script end tag and invalid UTF-8.
    fn hostile_page() -> Page {
        use crate::finding::Category;
        use crate::gate::Phase;
        use crate::report::{Report, TargetInfo};
        let path = "<img src=x onerror=alert(1)>.cu";
        let f = crate::finding::Finding {
            rule: "HP102".into(),
            rule_name: "lane-id-arithmetic".into(),
            category: Category::WarpSize,
            status: Status::Remediation,
            phase: Phase::Correctness,
            path: path.into(),
            line: 2,
            column: 3,
            end_line: 2,
            end_column: 9,
            message: "</script><script>alert(1)</script> & <!-- \u{2028}".into(),
            suggestion: Some("use `warpSize` & \"quotes\"".into()),
            fix: None,
            fingerprint: "0".into(),
            byte_range: (0, 0),
            excerpt: String::new(),
            baseline: None,
            folded_into: None,
            holds: 0,
            set_aside: false,
        };
        let target = TargetInfo {
            rocm: "6.2.0".into(),
            roc: false,
            experimental: false,
            rocm_explicit: true,
            offload_arch: vec![],
            config: "none".into(),
        };
        let report = Report::new(target, vec![f], vec![]);
        let board = crate::verdict::board(std::path::Path::new("."), None, Ok(&report));
        let old = b"// </script><img src=x onerror=alert(2)>\nint lane = threadIdx.x % 32; // \xff\xfe\ncudaFree(p);\n".to_vec();
        let new = b"// </script><img src=x onerror=alert(2)>\nint lane = threadIdx.x % 32; // \xff\xfe\nhipFree(p);\n".to_vec();
        Page::build(Input {
            report: &report,
            board: &board,
            board_source: BoardSource::Scan,
            target_tuple: vec![],
            files: vec![FileText {
                path: path.into(),
                old: Some(old),
                new: Some(new),
                note: None,
            }],
            project: "<b>proj</b>".into(),
            commit: None,
            generated: "2026-01-01T00:00:00Z".into(),
        })
    }

    #[test]
    fn embedded_json_round_trips_and_cannot_close_the_script() {
        let page = hostile_page();
        let mut out = Vec::new();
        write(&page, &mut out).unwrap();
        let html = String::from_utf8(out).unwrap();
        let data_start = html.find("id=\"hipport-data\">").unwrap();
        let data_end = data_start + html[data_start..].find("</script>").unwrap();
        let data = &html[data_start + "id=\"hipport-data\">".len()..data_end];
        assert!(
            !data.contains('<') && !data.contains('>') && !data.contains('&'),
            "raw markup characters in the data block"
        );
        assert!(data.contains("\\u003c/script\\u003e"), "{data}");
        // Exactly two script end tags: the data block's and the page script's.
        assert_eq!(html.matches("</script>").count(), 2);
        assert_eq!(html.matches("<img").count(), 0, "markup from the input");
        let back = read_model(&html).expect("the model reads back");
        assert_eq!(back, page);
        // Invalid UTF-8 arrived as replacement characters.
        let row = page.files[0]
            .rows
            .iter()
            .find(|r| r.o == Some(2))
            .expect("line 2 is shown");
        assert!(row.a.as_deref().unwrap().ends_with("// \u{fffd}\u{fffd}"));
        assert_eq!(row.f, vec![0]);
    }

    #[test]
    fn static_parts_escape_every_input_string() {
        let page = hostile_page();
        let mut out = Vec::new();
        write(&page, &mut out).unwrap();
        let html = String::from_utf8(out).unwrap();
        assert!(html.contains("&lt;b&gt;proj&lt;/b&gt;"));
        assert!(!html.contains("<b>proj"));
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;.cu:2"));
        // The policy forbids every source but the page's own script and style.
        assert!(html.contains("default-src 'none'; script-src 'sha256-"));
        // Rule references are text, never links or sources the browser would load.
        for attr in ["src=\"http", "href=\"http", "<link", "url("] {
            assert!(!html.contains(attr), "{attr}");
        }
    }

    #[test]
    fn fragment_values_are_percent_encoded() {
        assert_eq!(fragment_value("src/a b&c.cu"), "src/a%20b%26c.cu");
    }
}
