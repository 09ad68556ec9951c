//! Reports fit where people read them: text lists work items (PASS on request), grouped per
//! fact with the lines, with a per-file and per-rule summary; `--status`, `--category`,
//! `--rule`, `--path` filter every format; Markdown stays under 60 000 characters; GitHub gets at
//! most three annotations per rule and file; JSON stays complete.

mod common;

use common::hipport;

fn write(p: &std::path::Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    common::write(p, text);
}

/// A project with many repeats of a few facts: 40 files, each with six `% 32` lane ids (each
/// read: an id nothing reads is no hazard) and six widened full masks (PASS).
fn big_tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    // The first shuffle's mask is a 64-bit parameter: `port` cannot show it keeps CUDA's
    // meaning (a 32-bit one it would widen to the lane's own half), so
    // the kernel's `% 32` lane ids stay work (with only full masks they are 32-lane logical
    // warps `port` rewrites safely, and PASS).
    let mut kernel = String::from(
        "__global__ void k(float* p, unsigned long long m) {\n  float v = p[threadIdx.x];\n",
    );
    for i in 0..6 {
        let mask = if i == 0 { "m" } else { "0xffffffff" };
        kernel.push_str(&format!(
            "  int lane{i} = threadIdx.x % 32;\n  v += __shfl_xor_sync({mask}, v, {}) + lane{i};\n",
            1 << (i % 5)
        ));
    }
    kernel.push_str("  p[0] = v;\n}\n");
    for f in 0..40 {
        write(&d.path().join(format!("src/k{f:02}.cu")), &kernel);
    }
    write(
        &d.path().join("setup.py"),
        "import torch\nv = torch.version.cuda\n",
    );
    d
}

#[test]
fn text_lists_work_grouped_and_hides_pass_unless_asked() {
    let d = big_tree();
    let r = hipport(d.path(), &["scan", ".", "--rocm", "6.3.0"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // One entry per fact and file, with the lines.
    assert_eq!(
        r.stdout.matches("warning[HP102]").count(),
        40,
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("6 occurrences in this file: lines 3, 5, 7, 9, 11, 13"));
    assert!(!r.stdout.contains("help[HP006]"), "PASS listed by default");
    assert!(r.stdout.contains("PASS finding(s) not listed"));
    assert!(r.stdout.contains("by rule: HP102 lane-warp-arithmetic 240"));
    assert!(r.stdout.contains("by file: "));
    let all = hipport(d.path(), &["scan", ".", "--rocm", "6.3.0", "--show-pass"]);
    assert_eq!(all.stdout.matches("help[HP006]").count(), 40);
}

#[test]
fn filters_apply_to_every_format() {
    let d = big_tree();
    let json = |args: &[&str]| -> serde_json::Value {
        let mut a = vec!["scan", ".", "--rocm", "6.3.0", "--format", "json"];
        a.extend_from_slice(args);
        let r = hipport(d.path(), &a);
        assert_eq!(r.code, 0, "{}", r.stderr);
        serde_json::from_str(&r.stdout).unwrap()
    };
    let count = |v: &serde_json::Value| v["findings"].as_array().unwrap().len();
    let everything = json(&[]);
    assert_eq!(count(&json(&["--rule", "HP102"])), 240);
    // PASS: the five widened full masks (HP006) and, the lanes being 32-lane logical warps
    // (`% 32`), the width 32 `port` gives each of the six shuffles (HP109); and the 39 files'
    // need of `-DHIP_ENABLE_WARP_SYNC_BUILTINS` (HP007) beyond the first's: one build flag.
    assert_eq!(count(&json(&["--status", "PASS"])), 479);
    assert_eq!(count(&json(&["--category", "version-check"])), 1);
    assert_eq!(count(&json(&["--path", "src/k01.cu"])), 12 + 6);
    assert_eq!(
        count(&json(&[
            "--path",
            "src/k0*.cu",
            "--rule",
            "lane-warp-arithmetic"
        ])),
        60
    );
    assert!(count(&everything) >= 481, "JSON is complete");
    let sarif = hipport(
        d.path(),
        &["scan", ".", "--format", "sarif", "--rule", "HP810"],
    );
    let v: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    assert_eq!(v["runs"][0]["results"].as_array().unwrap().len(), 1);
    let bad = hipport(d.path(), &["scan", ".", "--status", "DONE"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--status DONE"), "{}", bad.stderr);
}

#[test]
fn markdown_fits_a_comment_and_github_caps_annotations() {
    let d = tempfile::tempdir().unwrap();
    // 400 files with distinct facts: far more than a comment holds. The kernel shuffles, so its
    // 32-lane arithmetic is lane arithmetic (without warp-level work it would split data); the
    // shuffle's mask is a 64-bit parameter, so `port` cannot keep 32-lane logical warps safely and the
    // arithmetic stays work.
    for f in 0..400 {
        write(
            &d.path().join(format!("src/k{f:03}.cu")),
            &format!("#define WARP_SIZE_{f} 32\n__global__ void k(int* p, unsigned long long m) {{ p[0] = threadIdx.x % 32; p[1] = threadIdx.x / 32; p[2] = threadIdx.x & 31; p[3] = threadIdx.x >> 5; p[4] = __shfl_down_sync(m, p[0], 1); }}\n"),
        );
    }
    let md = hipport(d.path(), &["scan", ".", "--format", "markdown"]);
    assert_eq!(md.code, 0, "{}", md.stderr);
    assert!(md.stdout.len() <= 55_000, "{} bytes", md.stdout.len());
    assert!(md.stdout.contains("more item(s) are not listed"));
    // Distinct facts of one rule in one file: at most three annotated, the rest counted.
    write(
        &d.path().join("src/many.cu"),
        "__global__ void k(int* p, unsigned long long m) {\n  p[0] = threadIdx.x % 32;\n  p[1] = threadIdx.x / 32;\n  p[2] = threadIdx.x & 31;\n  p[3] = threadIdx.x >> 5;\n  p[4] = __shfl_down_sync(m, p[0], 1);\n}\n",
    );
    let gh = hipport(d.path(), &["scan", ".", "--format", "github"]);
    assert!(
        gh.stdout.contains("more finding(s) not annotated"),
        "{}",
        gh.stdout
    );
    let per = per_file_and_rule(&gh.stdout);
    assert!(per.values().all(|n| *n <= 3), "{per:?}");
    // Repeats of one fact in a file are one annotation with the lines, not three.
    let big = big_tree();
    let gh = hipport(
        big.path(),
        &["scan", ".", "--format", "github", "--rocm", "6.3.0"],
    );
    let per = per_file_and_rule(&gh.stdout);
    assert_eq!(
        per.get(&("src/k00.cu".to_string(), "HP102".to_string())),
        Some(&1)
    );
    let k00 = gh
        .stdout
        .lines()
        .find(|l| l.contains("file=src/k00.cu,") && l.contains("title=HP102"))
        .unwrap();
    assert!(k00.contains("6 occurrences in this file: lines "), "{k00}");
}

/// Annotations by (file, rule).
fn per_file_and_rule(out: &str) -> std::collections::HashMap<(String, String), usize> {
    let mut per: std::collections::HashMap<(String, String), usize> = Default::default();
    for l in out.lines().filter(|l| l.starts_with("::")) {
        let file = l.split("file=").nth(1).unwrap().split(',').next().unwrap();
        let rule = l.split("title=").nth(1).unwrap().split(' ').next().unwrap();
        *per.entry((file.into(), rule.into())).or_default() += 1;
    }
    per
}
