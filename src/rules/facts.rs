//! One finding per fact. Two rules that flag the same code on the same line say one thing: the
//! most specific one stays and names the other (`library` HP603 over the translator's
//! `unsupported-api` HP001 for a CUTLASS name). A project's own ROCm switch is reported once per
//! project. Repeats of one fact in one file are grouped for people ([`groups`]): text, Markdown
//! and GitHub show one entry with the count and the lines; JSON, SARIF and baselines keep every
//! occurrence, so `hipport check` fingerprints do not change.

use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, HashSet};

/// How specific a rule is: the hazard families (HP1xx–HP7xx) over the translator's generic
/// findings (HP0xx) and the repository inventory (HP8xx–HP9xx).
fn specificity(rule: &str) -> u8 {
    match rule.get(2..3) {
        Some("0") => 0,
        Some("8") | Some("9") => 1,
        _ => 2,
    }
}

/// The translator's generic "no HIP counterpart" findings, which a hazard rule about the same
/// code states more precisely.
const GENERIC: &[&str] = &["HP001", "HP004"];

/// The same fact: the same line and status, and the same code (identical ranges), or a generic
/// translator finding inside another rule's range (a CUTLASS name inside HP603's).
fn overlaps(a: &Finding, b: &Finding) -> bool {
    let overlap = a.byte_range.0 < b.byte_range.1.max(b.byte_range.0 + 1)
        && b.byte_range.0 < a.byte_range.1.max(a.byte_range.0 + 1);
    a.path == b.path
        && a.line == b.line
        && a.rule != b.rule
        && a.status == b.status
        && (a.byte_range == b.byte_range
            || (overlap
                && (GENERIC.contains(&a.rule.as_str()) || GENERIC.contains(&b.rule.as_str()))))
}

/// Merges findings of different rules over the same code on the same line (same status): the
/// most specific rule stays, its message names the others. Input and output sorted.
pub fn merge_same_line(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let mut drop: HashSet<usize> = HashSet::new();
    let mut also: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let n = findings.len();
    for i in 0..n {
        if drop.contains(&i) {
            continue;
        }
        let mut j = i + 1;
        while j < n && findings[j].path == findings[i].path && findings[j].line == findings[i].line
        {
            if !drop.contains(&j) && overlaps(&findings[i], &findings[j]) {
                let (keep, lose) =
                    if specificity(&findings[j].rule) > specificity(&findings[i].rule) {
                        (j, i)
                    } else {
                        (i, j)
                    };
                drop.insert(lose);
                let name = format!("{} {}", findings[lose].rule, findings[lose].rule_name);
                also.entry(keep).or_default().push(name);
                if lose == i {
                    break;
                }
            }
            j += 1;
        }
    }
    for (k, names) in also {
        if drop.contains(&k) {
            continue;
        }
        let mut names = names;
        names.sort();
        names.dedup();
        findings[k]
            .message
            .push_str(&format!(" (also flagged as {})", names.join(", ")));
    }
    let mut i = 0;
    findings.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}

/// Keeps the first (by path) finding of each once-per-project rule and message.
pub fn once_per_project(findings: &mut Vec<Finding>, rules: &[&str]) {
    let mut seen: HashSet<(String, String)> = HashSet::new();
    findings.retain(|f| {
        !rules.contains(&f.rule.as_str()) || seen.insert((f.rule.clone(), f.message.clone()))
    });
}

/// Occurrences of one fact in one file: the first finding, and every line where it occurs.
#[derive(Debug)]
pub struct Group<'a> {
    pub first: &'a Finding,
    pub lines: Vec<u32>,
}

/// What makes two findings of one file the same fact: rule and status, and for work items the
/// message (which names the construct); PASS items of a rule are one fact per file.
fn fact_key(f: &Finding) -> (String, String, Status, String) {
    let msg = if f.status == Status::Pass {
        String::new()
    } else {
        f.message.clone()
    };
    (f.path.clone(), f.rule.clone(), f.status, msg)
}

/// Groups a sorted list of findings into facts, in order of first occurrence.
pub fn groups(findings: &[Finding]) -> Vec<Group<'_>> {
    let mut index: BTreeMap<(String, String, Status, String), usize> = BTreeMap::new();
    let mut out: Vec<Group> = Vec::new();
    for f in findings {
        let k = fact_key(f);
        match index.get(&k) {
            Some(&i) => {
                if out[i].lines.last() != Some(&f.line) {
                    out[i].lines.push(f.line);
                }
            }
            None => {
                index.insert(k, out.len());
                out.push(Group {
                    first: f,
                    lines: vec![f.line],
                });
            }
        }
    }
    out
}

/// "lines 3, 9, 12 and 4 more" for a group of more than one line.
pub fn lines_note(lines: &[u32], max: usize) -> String {
    let shown: Vec<String> = lines.iter().take(max).map(u32::to_string).collect();
    let rest = lines.len().saturating_sub(max);
    if rest > 0 {
        format!("lines {} and {rest} more", shown.join(", "))
    } else {
        format!("lines {}", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(rule: &str, line: u32, range: (usize, usize), status: Status, msg: &str) -> Finding {
        let info = crate::rules::by_code(rule).unwrap();
        Finding {
            rule: rule.into(),
            rule_name: info.id.name.into(),
            category: info.category,
            status,
            phase: info.phase,
            path: "a.cu".into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            message: msg.into(),
            suggestion: None,
            fix: None,
            fingerprint: format!("{rule}{line}"),
            byte_range: range,
            excerpt: String::new(),
            baseline: None,
        }
    }

    #[test]
    fn same_code_two_rules_is_one_finding_naming_the_other() {
        let r = Status::Remediation;
        let mut v = vec![
            f(
                "HP001",
                3,
                (10, 20),
                r,
                "namespace `cutlass` has no HIP counterpart",
            ),
            f("HP603", 3, (10, 30), r, "CUTLASS"),
            f("HP101", 3, (40, 45), r, "other code on the line"),
            f(
                "HP007",
                3,
                (42, 44),
                r,
                "a build flag inside another range is another fact",
            ),
            f("HP006", 4, (50, 60), Status::Pass, "widened"),
            f(
                "HP103",
                4,
                (50, 60),
                r,
                "a different status is a different fact",
            ),
        ];
        merge_same_line(&mut v);
        let got: Vec<(&str, u32)> = v.iter().map(|x| (x.rule.as_str(), x.line)).collect();
        assert_eq!(
            got,
            [
                ("HP007", 3),
                ("HP101", 3),
                ("HP603", 3),
                ("HP006", 4),
                ("HP103", 4)
            ]
        );
        assert!(v[2]
            .message
            .ends_with("(also flagged as HP001 unported-api)"));
    }

    #[test]
    fn repeats_group_by_fact_pass_by_rule() {
        let r = Status::Remediation;
        let v = vec![
            f("HP102", 3, (1, 2), r, "`% 32` lane"),
            f(
                "HP006",
                4,
                (3, 4),
                Status::Pass,
                "widened in `__shfl_xor_sync`",
            ),
            f("HP102", 5, (5, 6), r, "`% 32` lane"),
            f("HP102", 6, (7, 8), r, "`/ 32` warp"),
            f(
                "HP006",
                7,
                (9, 10),
                Status::Pass,
                "widened in `__shfl_sync`",
            ),
        ];
        let g = groups(&v);
        let got: Vec<(&str, Vec<u32>)> = g
            .iter()
            .map(|g| (g.first.rule.as_str(), g.lines.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("HP102", vec![3, 5]),
                ("HP006", vec![4, 7]),
                ("HP102", vec![6]),
            ]
        );
        assert_eq!(lines_note(&[1, 2, 3], 2), "lines 1, 2 and 1 more");
    }
}
