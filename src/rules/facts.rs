//! One finding per fact. Two rules that flag the same code on the same line say one thing: the
//! most specific one stays and names the other (`library` HP603 over the translator's
//! `unsupported-api` HP001 for a CUTLASS name). A project's own ROCm switch is reported once per
//! project. Repeats of one fact in one file are grouped for people ([`groups`]): text, Markdown
//! and GitHub show one entry with the count and the lines; JSON, SARIF and baselines keep every
//! occurrence, so `hipport check` fingerprints do not change. A dependency fact (the same
//! package, pin or index in `pyproject.toml`, `setup.py`, requirements and a workflow) is one
//! fact for the project: one entry listing its places, counted once in `open_facts`.

use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, HashSet};

mod deprecated;
mod guards;
pub use deprecated::settle_deprecated;
pub use guards::fold_guards;

/// How specific a rule is: the hazard families (HP1xx–HP7xx) over the translator's generic
/// findings (HP0xx) and the repository inventory (HP8xx–HP9xx). Within the inventory, a CUDA
/// toolkit path (HP852) is the least specific: where the path names an NVIDIA tool
/// (`/usr/local/cuda-11.8/bin/nsys`, nvblox's stream test), the tool's rule (HP883) says what
/// must change, and `/opt/rocm` has no such tool to point at.
fn specificity(rule: &str) -> u8 {
    match rule.get(2..3) {
        Some("0") => 0,
        _ if rule == "HP852" => 1,
        Some("8") | Some("9") => 2,
        _ => 3,
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
    fold_generic_same_code(findings);
}

/// A generic translator finding on code a more specific rule flags elsewhere in the same file
/// (the same flagged text, same status) is that rule's fact: `nvcuda` inside a template argument
/// is the WMMA port HP605 already names on the same line or the next. Dropped; the first
/// specific finding on that code names it. Input and output sorted.
fn fold_generic_same_code(findings: &mut Vec<Finding>) {
    let mut specific: BTreeMap<(&str, &str, Status), usize> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if specificity(&f.rule) == 3 && !f.excerpt.is_empty() {
            specific
                .entry((f.path.as_str(), f.excerpt.as_str(), f.status))
                .or_insert(i);
        }
    }
    let mut drop: Vec<bool> = vec![false; findings.len()];
    let mut also: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if !GENERIC.contains(&f.rule.as_str()) {
            continue;
        }
        if let Some(&k) = specific.get(&(f.path.as_str(), f.excerpt.as_str(), f.status)) {
            drop[i] = true;
            also.entry(k)
                .or_default()
                .push(format!("{} {}", f.rule, f.rule_name));
        }
    }
    for (k, names) in also {
        let names: std::collections::BTreeSet<String> = names.into_iter().collect();
        let note: Vec<String> = names
            .into_iter()
            .filter(|n| !findings[k].message.contains(n.as_str()))
            .collect();
        if !note.is_empty() {
            findings[k]
                .message
                .push_str(&format!(" (also flagged as {})", note.join(", ")));
        }
    }
    let mut i = 0;
    findings.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

/// Rules for a CUDA wheel index (`--index-url …/whl/cu116`): in a Python package file or a
/// script, and in a container build.
const WHEEL_INDEX: [&str; 2] = ["HP822", "HP864"];
/// A CUDA-specific Python package with a ROCm build (`torch`).
const CUDA_PACKAGE: &str = "HP820";

/// `pip install torch==1.13.1 --index-url https://download.pytorch.org/whl/cu116` is one fact:
/// the index decides which build of the package is installed, so the package findings on the
/// line of an open wheel-index finding become PASS naming it. A package line with no index (or an
/// index on another line) stays.
pub fn pin_under_index(findings: &mut [Finding]) {
    let index: BTreeMap<(String, u32), (String, u32)> = findings
        .iter()
        .filter(|f| f.status != Status::Pass && WHEEL_INDEX.contains(&f.rule.as_str()))
        .map(|f| ((f.path.clone(), f.line), (f.rule.clone(), f.line)))
        .collect();
    for f in findings.iter_mut() {
        if f.status == Status::Pass || f.rule != CUDA_PACKAGE {
            continue;
        }
        if let Some((rule, line)) = index.get(&(f.path.clone(), f.line)) {
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (the CUDA wheel index on this line, {rule} at `{}:{line}`, is the fact: \
                 installing from the ROCm index settles this package)",
                f.path
            ));
        }
    }
}

/// Keeps the first (by path) finding of each once-per-project rule and message.
pub fn once_per_project(findings: &mut Vec<Finding>, rules: &[&str]) {
    let mut seen: HashSet<(String, String)> = HashSet::new();
    findings.retain(|f| {
        !rules.contains(&f.rule.as_str()) || seen.insert((f.rule.clone(), f.message.clone()))
    });
}

/// Occurrences of one fact: the first finding, every line of its file where it occurs, and
/// (for a project-wide dependency fact) its places in other files.
#[derive(Debug)]
pub struct Group<'a> {
    pub first: &'a Finding,
    pub lines: Vec<u32>,
    pub others: Vec<(&'a str, u32)>,
    /// For a decision ([`decision`]): its title and the findings of each rule it holds.
    pub decision: Option<&'static str>,
    pub counts: BTreeMap<(&'a str, &'a str), usize>,
}

/// One decision of the project, whatever the number of lines that state it: a CMake project
/// building with the CUDA language (its `LANGUAGES CUDA`, `find_package(CUDAToolkit)`,
/// `CUDA::` targets, architecture lists and nvcc flags all change together when the build
/// moves to HIP), and a CI workflow (a lane that builds or tests the CUDA way is kept,
/// mirrored or retired as a whole). Dependencies are already project-wide facts.
pub fn decision(f: &Finding) -> Option<&'static str> {
    if f.status == Status::Pass {
        return None;
    }
    let name = f.path.rsplit('/').next().unwrap_or(&f.path);
    let workflow = (f.path.starts_with(".github/workflows/")
        || f.path.contains("/.github/workflows/"))
        && (name.ends_with(".yml") || name.ends_with(".yaml"))
        || name == ".gitlab-ci.yml";
    // What a CI script installs (PyTorch from a CUDA wheel index) is its lane's, not one of the
    // project's dependencies: mirroring the lane for ROCm changes it.
    let ci_script = !workflow && ci_tooling(&f.path);
    if project_wide(f) && !ci_script {
        return None;
    }
    let cmake = name == "CMakeLists.txt" || name.ends_with(".cmake");
    if cmake
        && matches!(
            f.rule.as_str(),
            "HP840"
                | "HP841"
                | "HP842"
                | "HP843"
                | "HP844"
                | "HP845"
                | "HP850"
                | "HP851"
                | "HP852"
                | "HP880"
        )
    {
        return Some("the CMake build compiles CUDA");
    }
    if (workflow || ci_script) && matches!(f.rule.get(2..3), Some("8") | Some("9")) {
        return Some("a CI workflow builds or tests the CUDA way");
    }
    None
}

/// Folders that hold a CI system's own scripts (`tools/ci/cuda-build-test.sh` a Jenkins stage
/// runs, `scripts/github_actions/install_cuda.sh` a workflow runs, `.circleci/`, `.buildkite/`):
/// what they do for the CUDA lanes is the CI decision's, not a change of the project's build.
const CI_DIRS: [&str; 9] = [
    "ci",
    ".ci",
    "github_actions",
    "github-actions",
    ".github",
    ".circleci",
    ".buildkite",
    "jenkins",
    ".jenkins",
];

/// Whether a file sits in a folder of CI scripts ([`CI_DIRS`]).
fn ci_tooling(path: &str) -> bool {
    let mut dirs: Vec<&str> = path.split('/').collect();
    dirs.pop();
    dirs.iter()
        .any(|d| CI_DIRS.contains(&d.to_ascii_lowercase().as_str()))
}

/// A fact of the whole project rather than of one file: a dependency (package, pin, wheel index)
/// named by several manifests is one decision for the porter.
fn project_wide(f: &Finding) -> bool {
    f.status != Status::Pass && f.category == crate::finding::Category::PythonPackage
}

/// What makes two findings the same fact: rule and status, and for work items of the source
/// rules the message (which names the construct: `% 32` and `/ 32` are two facts). PASS items of
/// a rule are one fact per file, and so are a repository-inventory rule's items (two CUDA paths
/// or two NGC image names in one script are one change); a dependency is one fact per project.
fn fact_key(f: &Finding) -> (String, String, Status, String) {
    if let Some(d) = decision(f) {
        // The CMake build is one decision for the project; a workflow file is one lane.
        let path = if d.starts_with("a CI") {
            f.path.clone()
        } else {
            String::new()
        };
        return (path, d.to_string(), f.status, String::new());
    }
    let inventory = matches!(f.rule.get(2..3), Some("8") | Some("9"));
    // A dependency's message names the package (and its CUDA marker): one fact per package.
    let msg = if project_wide(f) {
        f.message.clone()
    } else if f.status == Status::Pass || inventory {
        String::new()
    } else {
        f.message.clone()
    };
    let path = if project_wide(f) {
        String::new()
    } else {
        f.path.clone()
    };
    (path, f.rule.clone(), f.status, msg)
}

/// Groups a sorted list of findings into facts, in order of first occurrence.
pub fn groups(findings: &[Finding]) -> Vec<Group<'_>> {
    let mut index: BTreeMap<(String, String, Status, String), usize> = BTreeMap::new();
    let mut out: Vec<Group> = Vec::new();
    for f in findings {
        let k = fact_key(f);
        if let Some(&i) = index.get(&k) {
            *out[i].counts.entry((&f.rule, &f.rule_name)).or_default() += 1;
        }
        match index.get(&k) {
            Some(&i) if out[i].first.path != f.path => {
                let place = (f.path.as_str(), f.line);
                if !out[i].others.contains(&place) {
                    out[i].others.push(place);
                }
            }
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
                    others: Vec::new(),
                    decision: decision(f),
                    counts: BTreeMap::from([((f.rule.as_str(), f.rule_name.as_str()), 1)]),
                });
            }
        }
    }
    out
}

/// The facts of a list of findings (see [`groups`]) in order of harm
/// ([`crate::render::order`]): what every view for people lists.
pub fn groups_by_harm(findings: &[Finding]) -> Vec<Group<'_>> {
    let mut g = groups(findings);
    g.sort_by(|a, b| crate::render::order::key(a.first).cmp(&crate::render::order::key(b.first)));
    g
}

/// "one decision, the CMake build compiles CUDA: 173 finding(s) in 2 file(s) (170 HP840 cmake-cuda-language, 586 HP844 cmake-nvcc-flags;
/// first at CMakeLists.txt:3" for a decision, `None` for a single fact (or a decision whose
/// other findings are folded into this one).
pub fn decision_note(g: &Group) -> Option<String> {
    let title = g.decision?;
    let parts: Vec<String> = g
        .counts
        .iter()
        .map(|((rule, name), n)| format!("{n} {rule} {name}"))
        .collect();
    let total: usize = g.counts.values().sum();
    // One open finding left: the decision holds the rest (`decisions::cuda_build`) and its
    // message says so.
    if total < 2 {
        return None;
    }
    let files = 1 + g
        .others
        .iter()
        .map(|(p, _)| *p)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    Some(format!(
        "one decision, {title}: {total} finding(s) in {files} file(s) ({}); first at {}:{}",
        parts.join(", "),
        g.first.path,
        g.first.line
    ))
}

/// The number of distinct facts a person must act on: non-PASS findings, with repeats in a
/// file and one dependency across manifests counted once.
pub fn open_facts(findings: &[Finding]) -> usize {
    let open: Vec<Finding> = findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .cloned()
        .collect();
    groups(&open).len()
}

/// "also in pyproject.toml:2, .github/workflows/publish.yaml:137" for a project-wide fact.
pub fn others_note(others: &[(&str, u32)], max: usize) -> String {
    let shown: Vec<String> = others
        .iter()
        .take(max)
        .map(|(p, l)| format!("{p}:{l}"))
        .collect();
    let rest = others.len().saturating_sub(max);
    if rest > 0 {
        format!("also in {} and {rest} more", shown.join(", "))
    } else {
        format!("also in {}", shown.join(", "))
    }
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
        let info = crate::catalog::by_code(rule).unwrap();
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
            folded_into: None,
            holds: 0,
            set_aside: false,
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

    /// nvblox's `NSYS=/usr/local/cuda-11.8/bin/nsys`: the NVIDIA profiler (HP883) is the fact,
    /// not the toolkit path (HP852) it is found under. Twin: a toolkit path alone stays.
    #[test]
    fn a_toolkit_path_to_an_nvidia_tool_is_the_tools_fact() {
        let r = Status::Remediation;
        let mut v = vec![
            f("HP852", 27, (5, 35), r, "CUDA toolkit path"),
            f("HP883", 27, (5, 35), r, "runs nsys, an NVIDIA-only tool"),
            f("HP852", 30, (40, 60), r, "CUDA toolkit path"),
        ];
        merge_same_line(&mut v);
        let got: Vec<(&str, u32)> = v.iter().map(|x| (x.rule.as_str(), x.line)).collect();
        assert_eq!(got, [("HP883", 27), ("HP852", 30)]);
        assert!(
            v[0].message
                .ends_with("(also flagged as HP852 cuda-install-path)"),
            "{}",
            v[0].message
        );
    }

    #[test]
    fn a_generic_finding_on_code_a_specific_rule_flags_is_that_fact() {
        let r = Status::Remediation;
        let code = |mut x: Finding, excerpt: &str| {
            x.excerpt = excerpt.into();
            x
        };
        let mut v = vec![
            code(
                f("HP605", 4, (3, 9), r, "`nvcuda` (WMMA): port to rocWMMA"),
                "nvcuda",
            ),
            // The same token further on the line and on the next line: HP605's fact.
            code(f("HP001", 4, (25, 31), r, "namespace `nvcuda`"), "nvcuda"),
            code(f("HP001", 5, (3, 9), r, "namespace `nvcuda`"), "nvcuda"),
            // Twin: another name the specific rule does not flag stays the translator's.
            code(
                f("HP001", 6, (3, 12), r, "`cuCtxGet` has no HIP counterpart"),
                "cuCtxGet",
            ),
        ];
        merge_same_line(&mut v);
        let got: Vec<(&str, u32)> = v.iter().map(|x| (x.rule.as_str(), x.line)).collect();
        assert_eq!(got, [("HP605", 4), ("HP001", 6)]);
        assert!(
            v[0].message
                .ends_with("(also flagged as HP001 unported-api)"),
            "{}",
            v[0].message
        );
    }

    #[test]
    fn a_cmake_build_and_a_ci_workflow_are_one_decision_each() {
        let r = Status::Remediation;
        let at = |path: &str, rule: &str, line: u32| {
            let mut x = f(rule, line, (1, 2), r, &format!("{rule} at {line}"));
            x.path = path.into();
            x
        };
        let v = vec![
            at(".github/workflows/ci.yml", "HP850", 10),
            at(".github/workflows/ci.yml", "HP860", 4),
            at(".github/workflows/nightly.yml", "HP850", 7),
            at("CMakeLists.txt", "HP840", 2),
            at("CMakeLists.txt", "HP844", 5),
            at("CMakeLists.txt", "HP844", 6),
            at("cmake/cuda.cmake", "HP843", 1),
            // A CI system's own scripts (a Jenkins stage's, a workflow's helper) are the CI's.
            at("tools/ci/cuda-build-test.sh", "HP850", 8),
            at("scripts/github_actions/install_cuda.sh", "HP852", 94),
            // Twins: an arch list in setup.py and nvcc in a build script are their own facts,
            // and so is a source file under a `ci` folder (not an inventory rule).
            at("scripts/build.sh", "HP850", 3),
            at("setup.py", "HP843", 9),
            at("src/ci/kernel.cu", "HP101", 4),
        ];
        let g = groups(&v);
        let got: Vec<(&str, u32, usize)> = g
            .iter()
            .map(|g| (g.first.path.as_str(), g.first.line, g.counts.values().sum()))
            .collect();
        assert_eq!(
            got,
            [
                (".github/workflows/ci.yml", 10, 2),
                (".github/workflows/nightly.yml", 7, 1),
                ("CMakeLists.txt", 2, 4),
                ("tools/ci/cuda-build-test.sh", 8, 1),
                ("scripts/github_actions/install_cuda.sh", 94, 1),
                ("scripts/build.sh", 3, 1),
                ("setup.py", 9, 1),
                ("src/ci/kernel.cu", 4, 1),
            ]
        );
        let ci = |i: usize| decision(&v[i]).is_some_and(|d| d.starts_with("a CI"));
        assert!(ci(0) && ci(7) && ci(8), "CI scripts are the CI's decision");
        assert!(!ci(9) && !ci(10) && !ci(11));
        let note = decision_note(&g[2]).unwrap();
        assert!(
            note.starts_with(
                "one decision, the CMake build compiles CUDA: 4 finding(s) in 2 file(s) (1 HP840 "
            ),
            "{note}"
        );
        assert!(note.contains("2 HP844 ") && note.ends_with("first at CMakeLists.txt:2"));
        assert_eq!(decision_note(&g[5]), None);
        assert_eq!(open_facts(&v), 8);
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

    #[test]
    fn one_dependency_across_manifests_is_one_fact() {
        // causal-conv1d: the torch requirement in pyproject.toml, setup.py and a workflow.
        let r = Status::Remediation;
        let torch = "torch is CUDA-specific; ROCm path: ROCm index URL";
        let at = |path: &str, rule: &str, line: u32, msg: &str| {
            let mut x = f(rule, line, (1, 2), r, msg);
            x.path = path.into();
            x
        };
        let v = vec![
            at(".github/workflows/publish.yaml", "HP820", 137, torch),
            at(
                ".github/scripts/build.sh",
                "HP852",
                10,
                "CUDA toolkit path `/usr/local/cuda/bin`",
            ),
            // Another path in the same script: one inventory fact per file and rule.
            at(
                ".github/scripts/build.sh",
                "HP852",
                11,
                "CUDA toolkit path `/usr/local/cuda/lib64`",
            ),
            at("csrc/a.cu", "HP102", 306, "`/ 32` counts warps"),
            at("csrc/b.cu", "HP102", 182, "`/ 32` counts warps"),
            at("pyproject.toml", "HP820", 2, torch),
            at("setup.py", "HP820", 381, torch),
            at("setup.py", "HP820", 390, "triton is CUDA-specific"),
        ];
        let g = groups(&v);
        type Place<'a> = (&'a str, u32);
        let got: Vec<(Place, Vec<Place>)> = g
            .iter()
            .map(|g| ((g.first.path.as_str(), g.first.line), g.others.clone()))
            .collect();
        assert_eq!(g[1].lines, vec![10, 11]);
        assert_eq!(
            got,
            vec![
                (
                    (".github/workflows/publish.yaml", 137),
                    vec![("pyproject.toml", 2), ("setup.py", 381)]
                ),
                ((".github/scripts/build.sh", 10), vec![]),
                // A source hazard in two files is two facts: each file needs its own change.
                (("csrc/a.cu", 306), vec![]),
                (("csrc/b.cu", 182), vec![]),
                (("setup.py", 390), vec![]),
            ]
        );
        assert_eq!(open_facts(&v), 5);
        assert_eq!(
            others_note(&g[0].others, 1),
            "also in pyproject.toml:2 and 1 more"
        );
    }

    #[test]
    fn a_package_pinned_under_a_cuda_index_is_the_index_fact() {
        let mut fs = vec![
            Finding::bare("HP820", "Dockerfile", 6),
            Finding::bare("HP864", "Dockerfile", 6),
            Finding::bare("HP820", "ci/install.sh", 3),
            Finding::bare("HP822", "ci/install.sh", 3),
            // Twins: a pin with no index on its line, an index whose finding is PASS.
            Finding::bare("HP820", "Dockerfile", 9),
            Finding::bare("HP820", "requirements.txt", 1),
            Finding {
                status: Status::Pass,
                ..Finding::bare("HP822", "requirements.txt", 1)
            },
        ];
        pin_under_index(&mut fs);
        let open: Vec<(&str, u32)> = fs
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| (f.rule.as_str(), f.line))
            .collect();
        assert_eq!(
            open,
            [("HP864", 6), ("HP822", 3), ("HP820", 9), ("HP820", 1)]
        );
        assert!(fs[0]
            .message
            .contains("the CUDA wheel index on this line, HP864 at `Dockerfile:6`"));
    }

    /// punica's `ci/run-ci-build-wheel.bash` installs PyTorch from a CUDA wheel index (HP822, a
    /// Python-package finding): in a CI system's own script that is the lane's, one decision with
    /// the workflow. Twin: the same finding in a requirements file stays a dependency of the
    /// project (no CI decision).
    #[test]
    fn a_ci_scripts_wheel_index_is_the_lanes() {
        let mut ci = f(
            "HP822",
            31,
            (1, 2),
            Status::Remediation,
            "CUDA PyTorch wheel index",
        );
        ci.path = "ci/run-ci-build-wheel.bash".into();
        ci.category = crate::finding::Category::PythonPackage;
        assert_eq!(
            decision(&ci),
            Some("a CI workflow builds or tests the CUDA way")
        );
        let mut req = ci.clone();
        req.path = "requirements.txt".into();
        assert_eq!(decision(&req), None);
    }
}
