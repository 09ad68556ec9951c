//! Scores `hipport scan` on the labelled real-code corpus in `testdata/real/` (short snippets
//! of public projects, each with its source URL, commit and licence), scanned as one project as
//! a user would. Labels are comments on the line they judge, read by a person from the code:
//!
//! - `expect: RULE category STATUS` (several separated by `;`): a hazard a porter needs; a
//!   finding of that rule with that category and status must be there (recall).
//! - `expect-miss: RULE category STATUS`: a hazard hipport misses today (listed, with why, in
//!   `testdata/real/MISSES.md`). Counted as a lost hazard in the figures; the test FAILS when
//!   hipport finds it, so the marker becomes `expect:`.
//! - `expect-ok: reason`: a line a naive tool would flag that is not a hazard (a clean
//!   negative). Any non-PASS finding on it is noise.
//! - `expect-noise: RULE`: a clean line where hipport gives a non-PASS finding today (known
//!   noise, counted as a false positive, listed in `testdata/real/MISSES.md`); FAILS when the
//!   finding goes, so it becomes `expect-ok`.
//!
//! Every unlabelled line is not a hazard either: a non-PASS finding there is noise. PASS
//! findings (work `hipport port` did, code HIP never compiles) may appear anywhere. Prints
//! precision per rule, recall, the 64-lane (warp-size) recall and the clean-line figure (the
//! figures in the README) and fails on any new noise, lost hazard, or known miss/noise that
//! changed.

use hipport::finding::Category;
use hipport::gate::Status;
use hipport::scan::scan;
use hipport::settings::{Request, Settings};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Expect,
    Miss,
    Noise,
}

/// (path, line, rule) → (kind, category, status) for every hazard label and known noise.
type Labels = BTreeMap<(String, u32, String), (Kind, String, String)>;

/// Every labelled file: its labels, and its clean negative lines (`expect-ok`).
struct Corpus {
    labels: Labels,
    ok_lines: BTreeSet<(String, u32)>,
    files: usize,
    projects: BTreeSet<String>,
}

const MARKERS: [&str; 4] = ["expect: ", "expect-miss: ", "expect-noise: ", "expect-ok: "];

/// The marker that starts at `at` in `line`, if any.
fn marker_at(line: &str, at: usize) -> Option<&'static str> {
    MARKERS.iter().copied().find(|m| line[at..].starts_with(m))
}

fn labels(root: &Path) -> Corpus {
    let mut c = Corpus {
        labels: Labels::new(),
        ok_lines: BTreeSet::new(),
        files: 0,
        projects: BTreeSet::new(),
    };
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.file_name().is_some_and(|n| n == "MISSES.md") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            assert!(
                text.lines().take(3).any(|l| l.contains("Source: https://"))
                    && text.lines().take(4).any(|l| l.contains("Licence: ")),
                "{rel}: every snippet opens with its source URL and licence"
            );
            c.files += 1;
            c.projects
                .insert(rel.split('/').next().unwrap_or("").to_string());
            for (i, line) in text.lines().enumerate() {
                let n = i as u32 + 1;
                // The markers on this line, in order, each with its text up to the next one.
                let starts: Vec<(usize, &str)> = line
                    .char_indices()
                    .filter_map(|(at, _)| marker_at(line, at).map(|m| (at, m)))
                    .collect();
                for (k, (at, m)) in starts.iter().enumerate() {
                    let end = starts.get(k + 1).map_or(line.len(), |x| x.0);
                    let body = &line[at + m.len()..end];
                    let kind = match *m {
                        "expect: " => Kind::Expect,
                        "expect-miss: " => Kind::Miss,
                        "expect-noise: " => Kind::Noise,
                        _ => {
                            assert!(
                                !body.trim().is_empty(),
                                "{rel}:{n}: expect-ok needs a reason"
                            );
                            c.ok_lines.insert((rel.clone(), n));
                            continue;
                        }
                    };
                    for label in body.split(';') {
                        let t: Vec<&str> = label.split_whitespace().collect();
                        if kind == Kind::Noise {
                            assert_eq!(t.len(), 1, "{rel}:{n}: `expect-noise: RULE`");
                            c.labels.insert(
                                (rel.clone(), n, t[0].into()),
                                (kind, String::new(), String::new()),
                            );
                            continue;
                        }
                        assert_eq!(
                            t.len(),
                            3,
                            "{rel}:{n}: label `{label}` is not `RULE category STATUS`"
                        );
                        assert!(
                            Category::parse(t[1]).is_some(),
                            "{rel}:{n}: unknown category {}",
                            t[1]
                        );
                        assert!(
                            Status::parse(t[2]).is_some(),
                            "{rel}:{n}: unknown status {}",
                            t[2]
                        );
                        c.labels.insert(
                            (rel.clone(), n, t[0].to_string()),
                            (kind, t[1].to_string(), t[2].to_string()),
                        );
                    }
                }
            }
        }
    }
    c
}

/// The findings of every project of the corpus.
struct Scanned {
    findings: Vec<hipport::finding::Finding>,
}

#[test]
fn real_corpus_precision_and_recall() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/real");
    let corpus = labels(&root);
    let want = &corpus.labels;
    let hazards = want.values().filter(|v| v.0 != Kind::Noise).count();
    assert!(hazards >= 100, "the corpus lost its labels ({hazards})");
    assert!(
        corpus.files >= 10,
        "the corpus lost snippets ({})",
        corpus.files
    );
    // Each project's snippets are scanned as that project (a decision never spans two of
    // them), their paths given relative to the corpus root as the labels are.
    let mut findings = Vec::new();
    let mut projects: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    for dir in projects {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let settings = Settings::resolve_quiet(&Request {
            paths: vec![dir.clone()],
            // The labels are for this exact target (HP007: 6.2–6.x need the warp-sync define).
            rocm: Some("6.3.0".into()),
            max_file_size: u64::MAX,
            no_config: true,
            ..Default::default()
        })
        .unwrap();
        let report = scan(&settings).unwrap();
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        for mut f in report.findings {
            f.path = format!("{name}/{}", f.path);
            findings.push(f);
        }
    }
    let report = Scanned { findings };
    let mut problems = Vec::new();
    // rule → [true positives, false positives]
    let mut score: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    let mut found: BTreeSet<(String, u32, String)> = BTreeSet::new();
    let mut noisy_lines: BTreeSet<(String, u32)> = BTreeSet::new();
    for f in &report.findings {
        assert_ne!(
            f.status,
            Status::Blocker,
            "{}:{} concluded BLOCKER",
            f.path,
            f.line
        );
        let key = (f.path.clone(), f.line, f.rule.clone());
        let label = want.get(&key);
        // A hazard label is met by a finding of its rule with its status (a PASS finding of
        // the rule on a line labelled REMEDIATION is not the hazard found).
        match label {
            Some((Kind::Expect | Kind::Miss, cat, st)) if f.status.as_str() == st => {
                if f.category.as_str() != cat {
                    problems.push(format!(
                        "{}:{} {}: category {} labelled {cat}",
                        f.path, f.line, f.rule, f.category
                    ));
                }
                if found.insert(key.clone()) {
                    score.entry(f.rule.clone()).or_default()[0] += 1;
                }
            }
            _ if f.status == Status::Pass => {}
            Some((Kind::Expect | Kind::Miss, _, st)) => problems.push(format!(
                "{}:{} {}: status {} labelled {st}",
                f.path, f.line, f.rule, f.status
            )),
            Some((Kind::Noise, _, _)) => {
                if found.insert(key.clone()) {
                    score.entry(f.rule.clone()).or_default()[1] += 1;
                }
                noisy_lines.insert((f.path.clone(), f.line));
            }
            None => {
                score.entry(f.rule.clone()).or_default()[1] += 1;
                noisy_lines.insert((f.path.clone(), f.line));
                problems.push(format!(
                    "noise {}:{} {} {}: {}",
                    f.path, f.line, f.rule, f.status, f.message
                ));
            }
        }
    }
    let (mut lost, mut warp_labels, mut warp_found) = (0usize, 0usize, 0usize);
    for (key, (kind, cat, _)) in want {
        let hit = found.contains(key);
        if *kind != Kind::Noise && cat == "warp-size" {
            warp_labels += 1;
            warp_found += usize::from(hit);
        }
        match (kind, hit) {
            (Kind::Expect, false) => {
                lost += 1;
                problems.push(format!("lost hazard {}:{} {}", key.0, key.1, key.2));
            }
            (Kind::Miss, false) => lost += 1,
            (Kind::Miss, true) => problems.push(format!(
                "known miss now found (make it `expect:` and drop it from testdata/real/MISSES.md): {}:{} {}",
                key.0, key.1, key.2
            )),
            (Kind::Noise, false) => problems.push(format!(
                "known noise gone (make it `expect-ok:` and drop it from testdata/real/MISSES.md): {}:{} {}",
                key.0, key.1, key.2
            )),
            _ => {}
        }
    }
    // Every known miss and known noise has its line in MISSES.md, and nothing else does.
    let listed: BTreeSet<(String, u32, String)> = std::fs::read_to_string(root.join("MISSES.md"))
        .expect("testdata/real/MISSES.md lists the known misses and noise")
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| {
            let (head, _why) = l.split_once(": ")?;
            let (loc, rule) = head.split_once(' ')?;
            let (path, line) = loc.rsplit_once(':')?;
            Some((path.to_string(), line.parse().ok()?, rule.to_string()))
        })
        .collect();
    let marked: BTreeSet<(String, u32, String)> = want
        .iter()
        .filter(|(_, v)| v.0 != Kind::Expect)
        .map(|(k, _)| k.clone())
        .collect();
    for k in marked.symmetric_difference(&listed) {
        problems.push(format!(
            "MISSES.md and the markers disagree on {}:{} {} (one line per expect-miss/expect-noise marker)",
            k.0, k.1, k.2
        ));
    }
    println!("{:<7} {:>4} {:>4} {:>9}", "rule", "TP", "FP", "precision");
    for (rule, [tp, fp]) in &score {
        println!(
            "{rule:<7} {tp:>4} {fp:>4} {:>8.1}%",
            100.0 * *tp as f64 / (tp + fp).max(1) as f64
        );
    }
    let non_pass = report
        .findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .count();
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    let tp: usize = score.values().map(|v| v[0]).sum();
    // Clean lines: the `expect-ok` lines and the known-noise lines (clean, but flagged today).
    let noise_lines: BTreeSet<(String, u32)> = want
        .iter()
        .filter(|(_, v)| v.0 == Kind::Noise)
        .map(|(k, _)| (k.0.clone(), k.1))
        .collect();
    let clean = corpus.ok_lines.union(&noise_lines).count();
    let clean_quiet = corpus
        .ok_lines
        .iter()
        .filter(|l| !noisy_lines.contains(*l) && !noise_lines.contains(*l))
        .count();
    println!(
        "corpus: {} snippets from {} projects; {} hazard labels, {} clean lines, {} known noise",
        corpus.files,
        corpus.projects.len(),
        hazards,
        clean,
        want.len() - hazards
    );
    println!(
        "recall {:.1}% ({}/{hazards}, {lost} missed); 64-lane (warp-size) recall {:.1}% ({warp_found}/{warp_labels})",
        pct(hazards - lost, hazards),
        hazards - lost,
        pct(warp_found, warp_labels)
    );
    println!(
        "precision {:.1}% ({tp} of {non_pass} non-PASS findings on hazard lines); clean lines without a non-PASS finding {:.1}% ({clean_quiet}/{clean})",
        pct(tp, non_pass),
        pct(clean_quiet, clean)
    );
    for p in &problems {
        println!("{p}");
    }
    assert!(
        problems.is_empty(),
        "{} problem(s), see above",
        problems.len()
    );
}
