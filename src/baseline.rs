//! Baselines for `hipport check`: the non-PASS findings a project has already accepted as its
//! starting point, so CI fails only on new ones.
//!
//! The file is sorted, pretty JSON (one entry per line group, stable order) so that it diffs well
//! in review. Entries are keyed by the line-independent fingerprint (rule, relative path and the
//! flagged code without whitespace), never by line numbers, and carry a `count`: matching is a
//! multiset, so a second identical construct in the same file is new. The `rule`, `path`,
//! `category` and `code` fields are for people reading the file; only the fingerprint and the
//! count take part in matching.

use crate::finding::{BaselineState, Category, Finding};
use crate::gate::Status;
use crate::report::{BaselineSummary, Report};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const DEFAULT_FILE: &str = "hipport-baseline.json";
pub const VERSION: u32 = 1;
// The excerpt is the finding vocabulary's (rules fill it in); kept here under its old path.
pub use crate::finding::excerpt;
#[cfg(test)]
use crate::finding::EXCERPT_CHARS;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub tool: String,
    pub entries: Vec<Entry>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub path: String,
    pub rule: String,
    pub fingerprint: String,
    pub category: Category,
    /// How many findings share the fingerprint.
    pub count: usize,
    /// A short excerpt of the flagged code, for people.
    pub code: String,
}

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("baseline {0}: not found (create it with `hipport check --update-baseline`)")]
    Missing(String),
    #[error("baseline {file}: {error}")]
    Io { file: String, error: std::io::Error },
    #[error("baseline {file}: not a hipport baseline: {error}")]
    Format { file: String, error: String },
}

/// Findings a baseline is about: everything not PASS, and the uses a decision folded into
/// another finding (PASS there, but each is a use the project accepted: a new one is new).
pub fn counts(f: &Finding) -> bool {
    f.status != Status::Pass || f.folded_into.is_some()
}

impl Baseline {
    /// The baseline of a report (each entry's `code` is the finding's excerpt).
    pub fn from_report(r: &Report) -> Baseline {
        let mut map: BTreeMap<&str, Entry> = BTreeMap::new();
        for f in r.findings.iter().filter(|f| counts(f)) {
            map.entry(&f.fingerprint)
                .and_modify(|e| e.count += 1)
                .or_insert_with(|| Entry {
                    path: f.path.clone(),
                    rule: f.rule.clone(),
                    fingerprint: f.fingerprint.clone(),
                    category: f.category,
                    count: 1,
                    code: f.excerpt.clone(),
                });
        }
        let mut entries: Vec<Entry> = map.into_values().collect();
        entries.sort();
        Baseline {
            version: VERSION,
            tool: "hipport".into(),
            entries,
        }
    }

    pub fn load(file: &Path) -> Result<Baseline, BaselineError> {
        let name = file.display().to_string();
        // A FIFO or device must be reported, not read (reading could block forever).
        let project = crate::project_files::project_of(file);
        let limit = crate::project_files::MAX_SETTINGS_BYTES;
        let text = match crate::project_files::read_text(file, project, limit) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BaselineError::Missing(name))
            }
            Err(error) => return Err(BaselineError::Io { file: name, error }),
        };
        let b: Baseline = serde_json::from_str(&text).map_err(|e| BaselineError::Format {
            file: name.clone(),
            error: crate::project_files::json_error(&e),
        })?;
        if b.version != VERSION {
            return Err(BaselineError::Format {
                file: name,
                error: format!("version {} (this hipport reads {VERSION})", b.version),
            });
        }
        Ok(b)
    }

    /// Sorted, pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut b = self.clone();
        b.entries.sort();
        let mut s = serde_json::to_string_pretty(&b).expect("baseline serialises");
        s.push('\n');
        s
    }

    pub fn total(&self) -> usize {
        // Counts come from a file: they saturate instead of wrapping.
        self.entries
            .iter()
            .fold(0usize, |t, e| t.saturating_add(e.count))
    }
}

/// Multiset comparison: for each fingerprint, the first `count` findings (in report order) are
/// covered by the baseline (unchanged) and the rest are new; unmatched baseline counts are fixed.
/// Marks each finding's [`BaselineState`] (PASS findings, which baselines do not hold, are
/// unchanged) and sets the report's [`BaselineSummary`]; `file` names the baseline.
pub fn compare(base: &Baseline, r: &mut Report, file: &str) {
    let mut left: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &base.entries {
        let n = left.entry(e.fingerprint.as_str()).or_default();
        *n = n.saturating_add(e.count);
    }
    let mut c = BaselineSummary {
        file: file.to_string(),
        ..BaselineSummary::default()
    };
    for f in r.findings.iter_mut() {
        let mut state = BaselineState::Unchanged;
        if counts(f) {
            match left.get_mut(f.fingerprint.as_str()) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    c.unchanged += 1;
                }
                _ => {
                    state = BaselineState::New;
                    c.new += 1;
                    // A new use of a decision the baseline accepted: open again, with its
                    // own status, so that `check` fails and lists it like any new finding.
                    if let Some(folded) =
                        f.folded_into.as_ref().filter(|_| f.status == Status::Pass)
                    {
                        f.status = folded.status;
                        f.message.push_str(&format!(
                            " — a new use, not in the baseline (the decision is held at `{}`)",
                            folded.at
                        ));
                    }
                }
            }
        }
        f.baseline = Some(state);
    }
    for e in &base.entries {
        let n = left.get_mut(e.fingerprint.as_str()).map(std::mem::take);
        if let Some(n) = n.filter(|&n| n > 0) {
            c.fixed.push(Entry {
                count: n.min(e.count),
                ..e.clone()
            });
        }
    }
    r.baseline = Some(c);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::FileCtx;
    use crate::report::TargetInfo;
    use crate::source::LineIndex;
    use crate::translate::rules::UNPORTED_API;

    fn report(src: &str, needle: &str) -> Report {
        let lines = LineIndex::new(src.as_bytes());
        let ctx = FileCtx {
            path: "a.cu",
            src: src.as_bytes(),
            lines: &lines,
        };
        let findings = src
            .match_indices(needle)
            .map(|(at, _)| ctx.finding(&UNPORTED_API, at..at + needle.len(), "m".into(), None))
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

    #[test]
    fn multiset_new_and_fixed() {
        let two = report("f();\nf();\n", "f()");
        let base = Baseline::from_report(&two);
        assert_eq!(base.entries.len(), 1);
        assert_eq!(base.entries[0].count, 2);
        assert_eq!(base.entries[0].code, "f()");
        let mut three = report("\n\nf();\nf();\nf();\n", "f()");
        compare(&base, &mut three, "b.json");
        let c = three.baseline.as_ref().unwrap();
        assert_eq!((c.new, c.unchanged, c.fixed_count()), (1, 2, 0));
        let states: Vec<_> = three.findings.iter().map(|f| f.baseline).collect();
        use BaselineState::{New, Unchanged};
        assert_eq!(states, [Some(Unchanged), Some(Unchanged), Some(New)]);
        let mut one = report("f();\n", "f()");
        compare(&base, &mut one, "b.json");
        let c = one.baseline.as_ref().unwrap();
        assert_eq!((c.new, c.unchanged, c.fixed_count()), (0, 1, 1));
    }

    #[test]
    fn json_is_sorted_and_reads_back() {
        let r = report("g();\nf();\n", "();");
        let b = Baseline::from_report(&r);
        let text = b.to_json();
        assert!(text.ends_with("}\n"));
        let back: Baseline = serde_json::from_str(&text).unwrap();
        assert_eq!(back, b);
        assert!(b.entries.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn excerpt_flattens_and_cuts() {
        assert_eq!(excerpt(b"a(\n   b,\tc)"), "a( b, c)");
        let long = "x".repeat(200);
        assert_eq!(excerpt(long.as_bytes()).chars().count(), EXCERPT_CHARS + 1);
    }
}
