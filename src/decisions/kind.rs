//! The vocabulary of a decision: a [`Kind`] says which open findings belong to which decision
//! (a key), which member holds it, how many make it a decision and what the head and the folded
//! findings say. Rule modules of both families declare their kinds with it; the order in which
//! the kinds apply is [`super::fold_all`]'s.

use crate::finding::Finding;
use std::collections::BTreeSet;

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

    /// "`a.cu:3`, `b.h:10`": the first member in each of the first `shown` files, in report
    /// order.
    pub fn first_places(&self, shown: usize) -> String {
        let mut seen: Vec<&Finding> = Vec::new();
        for f in &self.members {
            if seen.len() == shown {
                break;
            }
            if !seen.iter().any(|s| s.path == f.path) {
                seen.push(f);
            }
        }
        seen.iter()
            .map(|f| format!("`{}:{}`", f.path, f.line))
            .collect::<Vec<_>>()
            .join(", ")
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

/// What a folded finding adds to its message: where the finding that holds the decision is,
/// and what the decision is.
pub fn folded_into(g: &Group, what: &str) -> String {
    format!(" (folded into `{}:{}`: {what})", g.head.path, g.head.line)
}

/// The first member holds the decision.
pub fn first(_: &[&Finding]) -> Option<usize> {
    Some(0)
}

/// The first REMEDIATION member holds the decision (an UNKNOWN one only when none is).
pub fn first_remediation(m: &[&Finding]) -> Option<usize> {
    Some(
        m.iter()
            .position(|f| f.status == crate::gate::Status::Remediation)
            .unwrap_or(0),
    )
}

/// Every member folds into the head.
pub fn all(_: &Finding, _: &Finding) -> bool {
    true
}

/// Whether a path is the project's own code: not in a vendored library, nor in a folder the
/// project marks as not maintained. Project-wide kinds (libcu++, FP8) take only the project's
/// own findings: the others belong to the library's or the folder's decision, whose head may be
/// such a finding left open.
pub fn own(path: &str) -> bool {
    crate::model::folders::component_of(path).is_none()
        && crate::model::folders::unmaintained_of(path).is_none()
}
