//! Scores `hipport scan` on the labelled real-code corpus in `testdata/real/` (short snippets
//! of public projects, each with its source URL, commit and licence): every line that carries a
//! hazard is labelled `expect: RULE category STATUS` (several separated by `;`), every other line
//! is not a hazard. The corpus is scanned as one project, as a user would.
//!
//! Fails when a non-PASS finding lands on an unlabelled line (noise), when a label has no finding
//! of that rule with that status (a lost hazard), or when a label names the wrong category.
//! PASS findings (work `hipport port` did) may appear anywhere. Prints precision per rule and
//! the overall recall (the figures in the README).

use hipport::finding::Category;
use hipport::gate::Status;
use hipport::scan::scan;
use hipport::settings::{Request, Settings};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// (path, line, rule) → (category, status) for every label in the corpus.
type Labels = BTreeMap<(String, u32, String), (String, String)>;

fn labels(root: &Path) -> Labels {
    let mut out = Labels::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
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
            for (i, line) in text.lines().enumerate() {
                let Some(at) = line.find("expect: ") else {
                    continue;
                };
                for label in line[at + 8..].split(';') {
                    let t: Vec<&str> = label.split_whitespace().collect();
                    assert_eq!(
                        t.len(),
                        3,
                        "{rel}:{}: label `{label}` is not `RULE category STATUS`",
                        i + 1
                    );
                    assert!(
                        Category::parse(t[1]).is_some(),
                        "{rel}:{}: unknown category {}",
                        i + 1,
                        t[1]
                    );
                    assert!(
                        Status::parse(t[2]).is_some(),
                        "{rel}:{}: unknown status {}",
                        i + 1,
                        t[2]
                    );
                    out.insert(
                        (rel.clone(), i as u32 + 1, t[0].to_string()),
                        (t[1].to_string(), t[2].to_string()),
                    );
                }
            }
        }
    }
    out
}

#[test]
fn real_corpus_precision_and_recall() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/real");
    let want = labels(&root);
    assert!(want.len() >= 25, "the corpus lost its labels");
    let settings = Settings::resolve_quiet(&Request {
        paths: vec![root.clone()],
        // The labels are for this exact target (HP007: 6.2–6.x need the warp-sync define).
        rocm: Some("6.3.0".into()),
        max_file_size: u64::MAX,
        no_config: true,
        ..Default::default()
    })
    .unwrap();
    let report = scan(&settings).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let mut problems = Vec::new();
    // rule → [true positives, false positives]
    let mut score: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    let mut found: BTreeSet<(String, u32, String)> = BTreeSet::new();
    for f in &report.findings {
        assert_ne!(
            f.status,
            Status::Blocker,
            "{}:{} concluded BLOCKER",
            f.path,
            f.line
        );
        let key = (f.path.clone(), f.line, f.rule.clone());
        match want.get(&key) {
            Some((cat, st)) => {
                if f.category.as_str() != cat {
                    problems.push(format!(
                        "{}:{} {}: category {} labelled {cat}",
                        f.path, f.line, f.rule, f.category
                    ));
                }
                if f.status.as_str() != st {
                    problems.push(format!(
                        "{}:{} {}: status {} labelled {st}",
                        f.path, f.line, f.rule, f.status
                    ));
                }
                if found.insert(key) {
                    score.entry(f.rule.clone()).or_default()[0] += 1;
                }
            }
            None if f.status == Status::Pass => {}
            None => {
                score.entry(f.rule.clone()).or_default()[1] += 1;
                problems.push(format!(
                    "noise {}:{} {} {}: {}",
                    f.path, f.line, f.rule, f.status, f.message
                ));
            }
        }
    }
    for key in want.keys() {
        if !found.contains(key) {
            problems.push(format!("lost hazard {}:{} {}", key.0, key.1, key.2));
        }
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
    println!(
        "labels {}, found {}, recall {:.1}%; non-PASS findings {non_pass}, on labelled lines {}",
        want.len(),
        found.len(),
        100.0 * found.len() as f64 / want.len() as f64,
        score.values().map(|v| v[0]).sum::<usize>()
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
