//! The data model of the HTML review page: everything the page shows, built once from the scan
//! report, the gate board, the port of each file and a few facts about the project. It is what
//! the page embeds as JSON (the script renders the file list from it) and what the snapshot test
//! compares; the HTML around it is a pure function of this model.
//!
//! Per file the model keeps only the rows a reviewer needs: every changed line of the port and
//! every line carrying a finding, each with three lines of context; the rest becomes gap rows
//! ("120 unchanged lines"). That bounds the page by the size of the port, not of the repository.

use crate::finding::Finding;
use crate::gate::{Phase, Status};
use crate::report::Report;
use crate::verdict::Board;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Lines of unchanged context kept around each change and each finding.
pub const CONTEXT: usize = 3;
/// Characters of a source line kept on the page; longer lines are cut with a note.
pub const MAX_LINE_CHARS: usize = 2000;

/// One file's text before and after the port. `new` is `None` for files the port does not
/// translate (CMake, Dockerfile, …); `old` is `None` when the file is binary, too large or gone.
pub struct FileText {
    pub path: String,
    pub old: Option<Vec<u8>>,
    pub new: Option<Vec<u8>>,
    /// Why the text is not shown (binary, unreadable, too large).
    pub note: Option<String>,
}

/// Where the gate board came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoardSource {
    /// `hipport-migration.toml` exists: recorded gates, with the inventory from a fresh scan.
    Record,
    /// No migration record: only the fresh scan, every recorded gate UNKNOWN.
    Scan,
}

/// Everything the page is built from. Rendering never reads the disk or the clock.
pub struct Input<'a> {
    pub report: &'a Report,
    pub board: &'a Board,
    pub board_source: BoardSource,
    /// The record's target tuple as `key = value` pairs (empty without a record).
    pub target_tuple: Vec<(String, String)>,
    pub files: Vec<FileText>,
    /// Project name (the scanned directory's name).
    pub project: String,
    /// `git rev-parse HEAD` of the project, with ` (uncommitted changes)` when dirty.
    pub commit: Option<String>,
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub generated: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// Version of this model (the page's JSON), independent of the report schema.
    pub model_version: u32,
    pub project: String,
    pub commit: Option<String>,
    pub generated: String,
    pub tool: String,
    pub target: PageTarget,
    pub board: PageBoard,
    pub summary: PageSummary,
    pub findings: Vec<PageFinding>,
    pub files: Vec<PageFile>,
    /// Documentation of each rule that has a finding, by code.
    pub rules: BTreeMap<String, PageRule>,
    pub errors: Vec<PageError>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageTarget {
    /// `ROCm 6.2.0 (hip* libraries), gfx90a` as the findings were computed.
    pub scan: String,
    pub rocm: String,
    pub rocm_explicit: bool,
    /// The migration record's target tuple, when there is one.
    pub tuple: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageBoard {
    pub source: BoardSource,
    /// One sentence saying where the board comes from.
    pub source_note: String,
    pub verdict: String,
    pub ready: bool,
    pub gates: Vec<PageGate>,
    pub blocking: Vec<String>,
    pub critical_unknowns: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageGate {
    pub name: String,
    pub title: String,
    pub status: Status,
    pub source: String,
    pub evidence: String,
    pub age: String,
    pub reason: String,
    pub open_items: Option<usize>,
    /// The performance gate's metric table, when derived from benchmark runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perf: Option<crate::perf::judge::PerfTable>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageSummary {
    pub files_scanned: usize,
    pub files_with_findings: usize,
    pub findings: usize,
    /// Findings that are not PASS.
    pub open: usize,
    pub translated_names: usize,
    pub suppressed: usize,
    pub by_status: BTreeMap<String, usize>,
    /// Category → status → count.
    pub by_category: BTreeMap<String, BTreeMap<String, usize>>,
    pub by_phase: BTreeMap<String, usize>,
    pub by_rule: Vec<RuleCount>,
    /// Files by open items, most first (ties by path).
    pub files_ranked: Vec<FileRank>,
    /// Files the port changes.
    pub files_changed: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleCount {
    pub rule: String,
    pub name: String,
    pub category: String,
    /// The most severe status among the rule's findings.
    pub status: Status,
    pub open: usize,
    pub total: usize,
    /// Up to three `path:line` places of open items, first in report order.
    pub places: Vec<Place>,
    /// What to do: the rule's fix.
    pub action: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub path: String,
    pub line: u32,
    pub finding: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileRank {
    pub path: String,
    pub file: usize,
    pub open: usize,
    pub total: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageFinding {
    pub id: usize,
    pub rule: String,
    pub name: String,
    pub status: Status,
    pub category: String,
    pub phase: Phase,
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub suggestion: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub decision: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub new: bool,
    /// Index into `files`.
    pub file: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageFile {
    pub path: String,
    /// The port changes this file.
    pub changed: bool,
    pub added: usize,
    pub removed: usize,
    /// Why no text is shown, when none is.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
    /// Findings with no line in the shown text (whole-file findings, binary files).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub top: Vec<usize>,
    pub rows: Vec<Row>,
}

/// One row of a file's review table. `k`: 0 unchanged line, 1 changed (old and/or new side),
/// 2 gap of `g` hidden unchanged lines. `f`: findings shown under this row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub k: u8,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub o: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub n: Option<u32>,
    /// Old text (for k = 0 both sides).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub a: Option<String>,
    /// New text (k = 1 only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub b: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub g: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub f: Vec<usize>,
    /// Changed words of `a` and of `b` on a changed pair of lines: `[start, end)` in UTF-16
    /// units of the text (what the page's script slices), for the word-level highlight.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub wa: Vec<[u32; 2]>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub wb: Vec<[u32; 2]>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageRule {
    pub name: String,
    pub category: String,
    pub summary: String,
    pub why: String,
    pub bad: String,
    pub good: String,
    pub fix: String,
    pub references: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageError {
    pub path: String,
    pub error: String,
}

pub const MODEL_VERSION: u32 = 1;

fn open(s: Status) -> bool {
    s != Status::Pass
}

/// Severity order for "the most severe status": BLOCKER, REMEDIATION, UNKNOWN, PASS.
fn rank(s: Status) -> usize {
    Status::ALL.iter().position(|x| *x == s).unwrap_or(9)
}

impl Page {
    pub fn build(input: Input<'_>) -> Page {
        let r = input.report;
        // Files: every file with a finding, and every file the port changes, in path order.
        let mut texts: BTreeMap<String, FileText> = BTreeMap::new();
        for t in input.files {
            texts.insert(t.path.clone(), t);
        }
        let mut paths: Vec<String> = texts
            .values()
            .filter(|t| changed(t))
            .map(|t| t.path.clone())
            .collect();
        paths.extend(r.findings.iter().map(|f| f.path.clone()));
        paths.sort();
        paths.dedup();
        let file_index: BTreeMap<&str, usize> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.as_str(), i))
            .collect();
        let findings: Vec<PageFinding> = r
            .findings
            .iter()
            .enumerate()
            .map(|(id, f)| page_finding(r, f, id, file_index[f.path.as_str()]))
            .collect();
        let mut by_file: Vec<Vec<&PageFinding>> = vec![Vec::new(); paths.len()];
        for f in &findings {
            by_file[f.file].push(f);
        }
        let files: Vec<PageFile> = paths
            .iter()
            .zip(&by_file)
            .map(|(p, fs)| page_file(p, texts.get(p), fs))
            .collect();
        let summary = summary(r, &findings, &files);
        let mut rules = BTreeMap::new();
        for f in &findings {
            if rules.contains_key(&f.rule) {
                continue;
            }
            if let Some(info) = crate::catalog::by_code(&f.rule) {
                rules.insert(
                    f.rule.clone(),
                    PageRule {
                        name: info.id.name.into(),
                        category: info.category.as_str().into(),
                        summary: info.summary.into(),
                        why: info.why.into(),
                        bad: info.bad.into(),
                        good: info.good.into(),
                        fix: info.fix.into(),
                        references: info.references.iter().map(|s| s.to_string()).collect(),
                    },
                );
            }
        }
        Page {
            model_version: MODEL_VERSION,
            project: input.project,
            commit: input.commit,
            generated: input.generated,
            tool: format!("{} {}", r.tool.name, r.tool.version),
            target: PageTarget {
                scan: r.target.describe(),
                rocm: r.target.rocm.clone(),
                rocm_explicit: r.target.rocm_explicit,
                tuple: input.target_tuple,
            },
            board: page_board(input.board, input.board_source),
            summary,
            findings,
            files,
            rules,
            errors: r
                .errors
                .iter()
                .map(|e| PageError {
                    path: e.path.clone(),
                    error: e.error.clone(),
                })
                .collect(),
        }
    }
}

fn changed(t: &FileText) -> bool {
    matches!((&t.old, &t.new), (Some(o), Some(n)) if o != n)
}

fn page_finding(r: &Report, f: &Finding, id: usize, file: usize) -> PageFinding {
    PageFinding {
        id,
        rule: f.rule.clone(),
        name: f.rule_name.clone(),
        status: f.status,
        category: f.category.as_str().into(),
        phase: f.phase,
        path: f.path.clone(),
        line: f.line,
        column: f.column,
        message: f.message.clone(),
        suggestion: f.suggestion.clone(),
        fix: f.fix.clone(),
        decision: r.decision(f).map(|d| {
            let by =
                d.by.as_deref()
                    .map(|b| format!(" by {b}"))
                    .unwrap_or_default();
            format!("{}{by}: {}", d.decision, d.reason)
        }),
        new: Report::is_new(f),
        file,
    }
}

fn page_board(b: &Board, source: BoardSource) -> PageBoard {
    let source_note = match source {
        BoardSource::Record => format!(
            "From the migration record {} (recorded gates, verify results and the test matrix), with the inventory gate from a fresh scan — the same board `hipport gate` prints.",
            crate::record::FILE_NAME
        ),
        BoardSource::Scan => format!(
            "From a fresh scan only: there is no {} yet, so every recorded gate is UNKNOWN — the same board `hipport gate` prints.",
            crate::record::FILE_NAME
        ),
    };
    PageBoard {
        source,
        source_note,
        verdict: b.verdict.as_str().into(),
        ready: b.ready,
        gates: b
            .gates
            .iter()
            .map(|g| PageGate {
                name: g.name.as_str().into(),
                title: g.name.title().into(),
                status: g.status,
                source: g.source.clone(),
                evidence: g.evidence.clone(),
                age: g.age.clone(),
                reason: g.reason.clone(),
                open_items: g.open_items,
                perf: g.perf.clone(),
            })
            .collect(),
        blocking: b.blocking.clone(),
        critical_unknowns: b.critical_unknowns.clone(),
        notes: b.notes.clone(),
    }
}

fn summary(r: &Report, findings: &[PageFinding], files: &[PageFile]) -> PageSummary {
    let mut s = PageSummary {
        files_scanned: r.summary.files_scanned,
        files_with_findings: r.summary.files_with_findings,
        findings: findings.len(),
        open: findings.iter().filter(|f| open(f.status)).count(),
        translated_names: r.summary.translated_names,
        suppressed: r.summary.suppressed,
        files_changed: files.iter().filter(|f| f.changed).count(),
        ..PageSummary::default()
    };
    for st in Status::ALL {
        s.by_status.insert(st.as_str().into(), 0);
    }
    let mut rules: BTreeMap<&str, RuleCount> = BTreeMap::new();
    let mut per_file: Vec<(usize, usize)> = vec![(0, 0); files.len()];
    for f in findings {
        *s.by_status.entry(f.status.as_str().into()).or_default() += 1;
        *s.by_category
            .entry(f.category.clone())
            .or_default()
            .entry(f.status.as_str().into())
            .or_default() += 1;
        *s.by_phase.entry(f.phase.as_str().into()).or_default() += 1;
        let rc = rules.entry(&f.rule).or_insert_with(|| RuleCount {
            rule: f.rule.clone(),
            name: f.name.clone(),
            category: f.category.clone(),
            status: f.status,
            open: 0,
            total: 0,
            places: Vec::new(),
            action: crate::catalog::by_code(&f.rule)
                .map(|i| i.fix.to_string())
                .unwrap_or_default(),
        });
        rc.total += 1;
        if rank(f.status) < rank(rc.status) {
            rc.status = f.status;
        }
        per_file[f.file].1 += 1;
        if open(f.status) {
            rc.open += 1;
            per_file[f.file].0 += 1;
            if rc.places.len() < 3 && !rc.places.iter().any(|p| p.path == f.path) {
                rc.places.push(Place {
                    path: f.path.clone(),
                    line: f.line,
                    finding: f.id,
                });
            }
        }
    }
    s.by_rule = rules.into_values().collect();
    // Most harmful first ([`crate::render::order`]: status, phase, category), then most open
    // items: the order of "what to do". 586 nvcc flags do not outrank one 64-lane hazard.
    let harm = |r: &RuleCount| {
        crate::catalog::by_code(&r.rule).map_or((rank(r.status), u8::MAX, u8::MAX), |i| {
            let (_, p, c) = crate::render::order::harm(r.status, i.phase, i.category);
            (rank(r.status), p, c)
        })
    };
    s.by_rule.sort_by(|a, b| {
        (harm(a), std::cmp::Reverse(a.open), &a.rule).cmp(&(
            harm(b),
            std::cmp::Reverse(b.open),
            &b.rule,
        ))
    });
    let mut ranked: Vec<FileRank> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| per_file[*i].1 > 0)
        .map(|(i, f)| FileRank {
            path: f.path.clone(),
            file: i,
            open: per_file[i].0,
            total: per_file[i].1,
        })
        .collect();
    ranked.sort_by(|a, b| (b.open, &a.path).cmp(&(a.open, &b.path)));
    s.files_ranked = ranked;
    s
}

/// Splits bytes into lines without their terminators (`\n` or `\r\n`).
fn lines(b: &[u8]) -> Vec<&[u8]> {
    if b.is_empty() {
        return Vec::new();
    }
    let body = b.strip_suffix(b"\n").unwrap_or(b);
    body.split(|&c| c == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect()
}

/// A line as page text: invalid UTF-8 becomes U+FFFD, very long lines are cut with a note.
pub fn line_text(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    match s.char_indices().nth(MAX_LINE_CHARS) {
        None => s.into_owned(),
        Some((cut, _)) => {
            let rest = s[cut..].chars().count();
            format!("{} … ({rest} more characters)", &s[..cut])
        }
    }
}

fn page_file(path: &str, text: Option<&FileText>, fs: &[&PageFinding]) -> PageFile {
    let mut file = PageFile {
        path: path.into(),
        changed: false,
        added: 0,
        removed: 0,
        note: text.and_then(|t| t.note.clone()),
        top: Vec::new(),
        rows: Vec::new(),
    };
    let Some(old) = text.and_then(|t| t.old.as_deref()) else {
        if file.note.is_none() {
            file.note = Some("the file's text is not available".into());
        }
        file.top = fs.iter().map(|f| f.id).collect();
        return file;
    };
    let new = text.and_then(|t| t.new.as_deref()).unwrap_or(old);
    let (ol, nl) = (lines(old), lines(new));
    // Every row of the whole file, then only the interesting ones with context.
    let mut all: Vec<Row> = Vec::new();
    if old == new {
        for (i, l) in ol.iter().enumerate() {
            all.push(ctx_row(i, i, l));
        }
    } else {
        file.changed = true;
        let diff = similar::TextDiff::configure()
            .algorithm(similar::Algorithm::Myers)
            .diff_slices(&ol, &nl);
        for op in diff.ops() {
            let (o, n) = (op.old_range(), op.new_range());
            match op.tag() {
                similar::DiffTag::Equal => {
                    for (i, j) in o.zip(n) {
                        all.push(ctx_row(i, j, ol[i]));
                    }
                }
                _ => {
                    file.removed += o.len();
                    file.added += n.len();
                    for k in 0..o.len().max(n.len()) {
                        let oi = o.start + k;
                        let ni = n.start + k;
                        let (oi, ni) = ((oi < o.end).then_some(oi), (ni < n.end).then_some(ni));
                        let (a, b) = (oi.map(|i| line_text(ol[i])), ni.map(|i| line_text(nl[i])));
                        let (wa, wb) = match (&a, &b) {
                            (Some(a), Some(b)) => super::words::changed_words(a, b),
                            _ => (Vec::new(), Vec::new()),
                        };
                        all.push(Row {
                            k: 1,
                            o: oi.map(|i| i as u32 + 1),
                            n: ni.map(|i| i as u32 + 1),
                            a,
                            b,
                            g: None,
                            f: Vec::new(),
                            wa,
                            wb,
                        });
                    }
                }
            }
        }
    }
    // Attach each finding to the row showing its (old) line.
    let mut by_line: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, row) in all.iter().enumerate() {
        if let Some(o) = row.o {
            by_line.insert(o, i);
        }
    }
    for f in fs {
        match by_line.get(&f.line) {
            Some(&i) => all[i].f.push(f.id),
            None => file.top.push(f.id),
        }
    }
    let keep = interesting(&all);
    let mut hidden = 0u32;
    for (row, keep) in all.into_iter().zip(keep) {
        if keep {
            if hidden > 0 {
                file.rows.push(gap(hidden));
                hidden = 0;
            }
            file.rows.push(row);
        } else {
            hidden += 1;
        }
    }
    if hidden > 0 {
        file.rows.push(gap(hidden));
    }
    file
}

fn ctx_row(i: usize, j: usize, l: &[u8]) -> Row {
    Row {
        k: 0,
        o: Some(i as u32 + 1),
        n: Some(j as u32 + 1),
        a: Some(line_text(l)),
        b: None,
        g: None,
        f: Vec::new(),
        wa: Vec::new(),
        wb: Vec::new(),
    }
}

fn gap(n: u32) -> Row {
    Row {
        k: 2,
        o: None,
        n: None,
        a: None,
        b: None,
        g: Some(n),
        f: Vec::new(),
        wa: Vec::new(),
        wb: Vec::new(),
    }
}

/// Rows within [`CONTEXT`] of a change or a finding.
fn interesting(all: &[Row]) -> Vec<bool> {
    let mut keep = vec![false; all.len()];
    for (i, r) in all.iter().enumerate() {
        if r.k == 1 || !r.f.is_empty() {
            let lo = i.saturating_sub(CONTEXT);
            let hi = (i + CONTEXT + 1).min(all.len());
            keep[lo..hi].iter_mut().for_each(|k| *k = true);
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_drop_terminators_and_keep_empty_lines() {
        assert_eq!(lines(b"a\r\nb\n\nc"), vec![&b"a"[..], b"b", b"", b"c"]);
        assert_eq!(lines(b"a\n"), vec![&b"a"[..]]);
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn invalid_utf8_is_lossy_and_long_lines_are_cut() {
        assert_eq!(line_text(b"x\xff\xfey"), "x\u{fffd}\u{fffd}y");
        let long = vec![b'a'; MAX_LINE_CHARS + 5];
        let t = line_text(&long);
        assert!(t.ends_with("… (5 more characters)"), "{t}");
    }

    fn finding(line: u32, id: usize) -> PageFinding {
        PageFinding {
            id,
            rule: "HP102".into(),
            name: "lane".into(),
            status: Status::Remediation,
            category: "warp-size".into(),
            phase: Phase::Correctness,
            path: "k.cu".into(),
            line,
            column: 1,
            message: "m".into(),
            suggestion: None,
            fix: None,
            decision: None,
            new: false,
            file: 0,
        }
    }

    #[test]
    fn rows_keep_changes_and_findings_with_context_and_gaps_between() {
        let old: String = (1..=30).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l2\n", "L2\n");
        let t = FileText {
            path: "k.cu".into(),
            old: Some(old.into_bytes()),
            new: Some(new.into_bytes()),
            note: None,
        };
        let f = finding(20, 0);
        let out_of_range = finding(99, 1);
        let pf = page_file("k.cu", Some(&t), &[&f, &out_of_range]);
        assert!(pf.changed);
        assert_eq!((pf.added, pf.removed), (1, 1));
        assert_eq!(pf.top, vec![1]);
        let kinds: Vec<(u8, Option<u32>, Option<u32>)> =
            pf.rows.iter().map(|r| (r.k, r.o, r.g)).collect();
        // l1, the change (old 2), l3..l5, a gap of l6..l16, l17..l23, a gap to the end.
        assert_eq!(kinds[0], (0, Some(1), None));
        assert_eq!(kinds[1], (1, Some(2), None));
        assert_eq!(kinds[5], (2, None, Some(11)));
        assert_eq!(kinds[6], (0, Some(17), None));
        let at = pf.rows.iter().find(|r| r.o == Some(20)).unwrap();
        assert_eq!(at.f, vec![0]);
        assert_eq!(pf.rows.last().unwrap().g, Some(7));
        let change = &pf.rows[1];
        assert_eq!(
            (change.a.as_deref(), change.b.as_deref()),
            (Some("l2"), Some("L2"))
        );
    }

    #[test]
    fn a_file_without_text_lists_its_findings_on_top() {
        let f = finding(3, 4);
        let t = FileText {
            path: "lib.so".into(),
            old: None,
            new: None,
            note: Some("binary file".into()),
        };
        let pf = page_file("lib.so", Some(&t), &[&f]);
        assert_eq!(pf.top, vec![4]);
        assert!(pf.rows.is_empty());
        assert_eq!(pf.note.as_deref(), Some("binary file"));
    }
}
