//! Scores the scanner on the labelled corpus in `testdata/scan/` the way the acceptance does:
//! every line labelled `// expect: category[, category…]` must carry a finding of each category,
//! no other line may carry a hazard finding, per-category precision must be at least 90%, and
//! statuses come from the vocabulary with no BLOCKER.
//!
//! Allowed on unlabelled lines: the translator's own findings in `unsupported-api` and
//! `deprecated-api`, and HP007 (a build flag the target ROCm needs, reported once per file).

use hipport::finding::Category;
use hipport::gate::Status;
use hipport::mappings;
use hipport::pipeline::{process_bytes, Work};
use hipport::translate::{LaunchSyntax, Options};
use std::collections::{BTreeMap, BTreeSet};

fn allowed_unlabelled(rule: &str, cat: Category) -> bool {
    matches!(cat, Category::UnsupportedApi | Category::DeprecatedApi) || rule == "HP007"
}

fn labels(src: &str) -> BTreeSet<(u32, String)> {
    let mut out = BTreeSet::new();
    for (i, line) in src.lines().enumerate() {
        if let Some(p) = line.find("// expect:") {
            for c in line[p + 10..].split(',') {
                let c = c.trim();
                assert!(
                    Category::parse(c).is_some(),
                    "unknown category `{c}` on line {}",
                    i + 1
                );
                out.insert((i as u32 + 1, c.to_string()));
            }
        }
    }
    out
}

#[test]
fn labelled_corpus_scores() {
    let m = mappings::get();
    let work = Work {
        translate: Options {
            target: hipport::mappings::Target {
                rocm: hipport::settings::default_rocm(),
                roc: false,
                experimental: false,
                lds: None,
            },
            launch: LaunchSyntax::Keep,
            implicit_include: true,
            compat_header: false,
            unsafe_fixes: false,
        },
        hazards: true,
        annotate: false,
        keep_output: false,
        max_file_size: u64::MAX,
        parse_health: true,
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/scan");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // category → (true positives, false positives, labels, labels found)
    let mut score: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut problems = Vec::new();
    for path in files.iter().filter(|p| {
        p.extension()
            .is_some_and(|e| e == "cu" || e == "cuh" || e == "cpp")
    }) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(path).unwrap();
        let want = labels(&src);
        let r = process_bytes(&name, src.clone().into_bytes(), &work, m);
        if src.contains("hipport: allow(") {
            assert!(
                r.suppressed > 0,
                "{name}: the in-code suppression did not count"
            );
        }
        let mut got: BTreeSet<(u32, String)> = BTreeSet::new();
        for f in &r.findings {
            assert_ne!(
                f.status,
                Status::Blocker,
                "{name}:{} {} concluded BLOCKER",
                f.line,
                f.rule
            );
            let key = (f.line, f.category.as_str().to_string());
            if want.contains(&key) {
                if got.insert(key.clone()) {
                    score.entry(key.1).or_default()[0] += 1;
                }
            } else if !allowed_unlabelled(&f.rule, f.category) && got.insert(key.clone()) {
                score.entry(key.1.clone()).or_default()[1] += 1;
                problems.push(format!(
                    "false positive {name}:{} {} {}: {}",
                    f.line, f.rule, key.1, f.message
                ));
            }
        }
        for (line, cat) in &want {
            let e = score.entry(cat.clone()).or_default();
            e[2] += 1;
            if got.contains(&(*line, cat.clone())) {
                e[3] += 1;
            } else {
                problems.push(format!("missed {name}:{line} {cat}"));
            }
        }
    }
    println!(
        "{:<16} {:>5} {:>5} {:>9} {:>7}",
        "category", "TP", "FP", "precision", "recall"
    );
    for (cat, [tp, fp, n, found]) in &score {
        let p = if tp + fp == 0 {
            1.0
        } else {
            *tp as f64 / (tp + fp) as f64
        };
        let r = if *n == 0 {
            1.0
        } else {
            *found as f64 / *n as f64
        };
        println!(
            "{cat:<16} {tp:>5} {fp:>5} {:>8.1}% {:>6.1}%",
            p * 100.0,
            r * 100.0
        );
        if p < 0.9 {
            problems.push(format!("precision of {cat} below 90%"));
        }
    }
    for p in &problems {
        println!("{p}");
    }
    assert!(
        problems.is_empty(),
        "{} problem(s), see above",
        problems.len()
    );
}
