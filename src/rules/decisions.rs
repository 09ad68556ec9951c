//! One decision, one open finding (issue 20). Where a person takes ONE decision — port or drop
//! a vendored library, move libcu++ code to libhipcxx, rewrite a CUTLASS component, give a set
//! of sibling CI scripts a ROCm environment, rewrite a kernel file written for sm_90+/sm_100
//! only — the report shows one open finding for it, with counts and first places, and the
//! per-line findings stay in JSON/SARIF as PASS naming the finding that holds them
//! (fingerprints unchanged: only statuses and messages change).
//!
//! Every such decision is a [`Kind`], declared one way: which open findings belong to which
//! decision (a key), which member holds it (the head), how many members make it a decision,
//! and what the head and the folded findings say. [`fold_all`] applies the kinds in one fixed
//! order, each to the findings the earlier ones left open, so a finding is held by at most one
//! decision and the output is deterministic.

pub mod arch_only;

use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, BTreeSet};

/// How many members a group needs before it is folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Min {
    /// At least this many open findings.
    Findings(usize),
    /// Open findings in at least this many files.
    Files(usize),
}

/// One decision group as the messages see it.
pub struct Group<'a> {
    /// The group's key (a folder, a file, a shape of line).
    pub key: &'a str,
    /// The finding that holds the decision.
    pub head: &'a Finding,
    /// Every open finding of the group, head included, in report order.
    pub members: Vec<&'a Finding>,
    /// The members folded into the head.
    pub folded: Vec<&'a Finding>,
}

impl Group<'_> {
    /// How many files the group's findings are in (head included).
    pub fn files(&self) -> usize {
        self.members
            .iter()
            .map(|f| f.path.as_str())
            .collect::<BTreeSet<_>>()
            .len()
    }

    /// "HP603 ×3, HP102 ×1" for the folded findings, most frequent first.
    pub fn by_rule(&self) -> String {
        crate::inventory::component::by_rule(&self.folded)
    }
}

/// Which open finding belongs to which decision; `None` for findings of no decision.
pub type KeyFn = Box<dyn Fn(&Finding) -> Option<String>>;
/// Text a group adds to a finding's message.
pub type TextFn = Box<dyn Fn(&Group) -> String>;

/// A kind of decision, declared once.
pub struct Kind {
    /// The decision an open finding belongs to, if any.
    pub key: KeyFn,
    /// The member (index into the group's members) that holds the decision; `None` leaves the
    /// group open.
    pub head: fn(&[&Finding]) -> Option<usize>,
    /// Whether a member other than the head folds into it (`(head, member)`).
    pub folds: fn(&Finding, &Finding) -> bool,
    /// How many members make a decision.
    pub min: Min,
    /// What the head adds to its message.
    pub summary: TextFn,
    /// What each folded finding adds to its message.
    pub note: TextFn,
}

/// The first member holds the decision.
pub fn first(_: &[&Finding]) -> Option<usize> {
    Some(0)
}

/// Every member folds into the head.
pub fn all(_: &Finding, _: &Finding) -> bool {
    true
}

/// Applies the project's decisions in their fixed order: repeated lines of sibling scripts,
/// CUTLASS/CuTe components, vendored components, libcu++ use, kernel files only sm_90+/sm_100
/// run. Each kind sees the findings the earlier ones left open.
pub fn fold_all(findings: &mut [Finding]) {
    let kinds: [fn(&[Finding]) -> Kind; 5] = [
        crate::inventory::siblings::kind,
        crate::rules::cutlass_component::kind,
        crate::rules::vendored::kind,
        crate::rules::libcu::kind,
        arch_only::kind,
    ];
    for make in kinds {
        let k = make(findings);
        fold(findings, &k);
    }
}

/// Folds the open findings of each group of `kind` into its head. Statuses and messages change;
/// no finding is added, removed or moved.
pub fn fold(findings: &mut [Finding], kind: &Kind) {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if f.status == Status::Pass {
            continue;
        }
        if let Some(k) = (kind.key)(f) {
            groups.entry(k).or_default().push(i);
        }
    }
    // (finding, text, whether it is folded away).
    let mut edits: Vec<(usize, String, bool)> = Vec::new();
    for (key, idx) in &groups {
        let members: Vec<&Finding> = idx.iter().map(|&i| &findings[i]).collect();
        let enough = match kind.min {
            Min::Findings(n) => members.len() >= n,
            Min::Files(n) => {
                members
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<BTreeSet<_>>()
                    .len()
                    >= n
            }
        };
        if !enough {
            continue;
        }
        let Some(h) = (kind.head)(&members) else {
            continue;
        };
        let head = idx[h];
        let folded: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| i != head && (kind.folds)(&findings[head], &findings[i]))
            .collect();
        if folded.is_empty() {
            continue;
        }
        let g = Group {
            key,
            head: &findings[head],
            members,
            folded: folded.iter().map(|&i| &findings[i]).collect(),
        };
        edits.push((head, (kind.summary)(&g), false));
        let note = (kind.note)(&g);
        edits.extend(folded.into_iter().map(|i| (i, note.clone(), true)));
    }
    for (i, text, away) in edits {
        if away {
            findings[i].status = Status::Pass;
        }
        findings[i].message.push_str(&text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(rule: &str, path: &str, line: u32) -> Finding {
        Finding {
            message: "m".into(),
            ..Finding::bare(rule, path, line)
        }
    }

    /// Groups by folder; the first HP9 finding holds the group.
    fn by_folder(min: Min) -> Kind {
        Kind {
            key: Box::new(|f| f.path.rsplit_once('/').map(|(d, _)| d.to_string())),
            head: |m| m.iter().position(|f| f.rule.starts_with("HP9")),
            folds: all,
            min,
            summary: Box::new(|g| {
                format!(
                    " [holds {} in {} files of {}: {}]",
                    g.folded.len(),
                    g.files(),
                    g.key,
                    g.by_rule()
                )
            }),
            note: Box::new(|g| format!(" [in {}:{}]", g.head.path, g.head.line)),
        }
    }

    fn open(fs: &[Finding]) -> Vec<(&str, u32)> {
        fs.iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.as_str(), x.line))
            .collect()
    }

    #[test]
    fn one_open_finding_per_group_with_its_counts() {
        let mut fs = vec![
            f("HP102", "a/x.cu", 1),
            f("HP901", "a/x.cu", 2),
            f("HP102", "a/y.cu", 3),
            // Already PASS: not a member, not touched.
            Finding {
                status: Status::Pass,
                ..f("HP102", "a/y.cu", 4)
            },
            // No head in the group: left open.
            f("HP102", "b/z.cu", 1),
            f("HP102", "b/z.cu", 2),
            // Not in any group.
            f("HP102", "top.cu", 1),
        ];
        fold(&mut fs, &by_folder(Min::Findings(2)));
        assert_eq!(
            open(&fs),
            [("a/x.cu", 2), ("b/z.cu", 1), ("b/z.cu", 2), ("top.cu", 1)]
        );
        assert!(fs[1]
            .message
            .ends_with(" [holds 2 in 2 files of a: HP102 ×2]"));
        assert!(fs[0].message.ends_with(" [in a/x.cu:2]"));
        assert_eq!(fs[3].message, "m");
        // Twin: below the minimum number of files, nothing moves.
        let mut few = vec![f("HP901", "a/x.cu", 1), f("HP102", "a/x.cu", 2)];
        fold(&mut few, &by_folder(Min::Files(2)));
        assert_eq!(open(&few).len(), 2);
        assert!(few.iter().all(|x| x.message == "m"));
    }

    #[test]
    fn kinds_apply_in_order_and_a_finding_is_held_once() {
        // A vendored CUTLASS file: the CUTLASS component (earlier in the order) holds it, and
        // the vendored decision then sees only what is left open.
        let mut fs = vec![
            f("HP603", "third_party/lib/a.h", 1),
            f("HP102", "third_party/lib/a.h", 2),
            f("HP102", "third_party/lib/b.h", 3),
            f("HP102", "third_party/lib/c.h", 3),
        ];
        fold_all(&mut fs);
        assert_eq!(open(&fs), [("third_party/lib/a.h", 1)]);
        assert!(fs[0].message.contains("CUTLASS/CuTe component"));
        assert!(fs[0].message.contains("2 more findings in 3 files"));
        assert!(fs[1].message.contains("folded into HP603"));
        assert!(!fs[1].message.contains("vendored component"));
        assert!(fs[3].message.contains("the vendored component"));
    }
}
