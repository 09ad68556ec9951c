//! `hipport check` against a baseline made from the fixture tree `testdata/check`: what passes,
//! what fails with exit 1 naming the file, what is reported fixed, and the exit-2 errors.

mod common;
use common::{copy_fixture, hipport, read, write, Run};
use std::path::Path;

/// A copy of the fixture with its own baseline.
fn baselined() -> (tempfile::TempDir, std::path::PathBuf) {
    let (d, tree) = copy_fixture("check");
    let r = hipport(&tree, &["check", ".", "--update-baseline"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(tree.join("hipport-baseline.json").is_file());
    (d, tree)
}

fn check(tree: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["check", "."];
    args.extend_from_slice(extra);
    hipport(tree, &args)
}

#[test]
fn tree_passes_against_its_own_baseline() {
    let (_d, tree) = baselined();
    let r = check(&tree, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("0 new"), "{}", r.stdout);
}

#[test]
fn baseline_file_is_sorted_and_line_free() {
    let (_d, tree) = baselined();
    let text = read(&tree.join("hipport-baseline.json"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entries = v["entries"].as_array().unwrap();
    let keys: Vec<(String, String, String)> = entries
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            (s("path"), s("rule"), s("fingerprint"))
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert!(!text.contains("\"line\""), "{text}");
    let twice = entries
        .iter()
        .find(|e| e["code"] == "cudaCtxResetPersistingL2Cache")
        .expect("entry for the API used twice");
    assert_eq!(twice["count"], 2);
    assert_eq!(twice["path"], "src/saxpy.cu");
    assert_eq!(twice["category"], "unsupported-api");
}

#[test]
fn inserting_lines_and_reformatting_keeps_passing() {
    let (_d, tree) = baselined();
    let f = tree.join("src/saxpy.cu");
    let src = read(&f).replace(
        "  cudaCtxResetPersistingL2Cache();\n}",
        "      cudaCtxResetPersistingL2Cache(  ) ;\n}",
    );
    write(
        &f,
        &format!("// a new header comment\n\n#include <vector>\n\n{src}"),
    );
    let h = tree.join("src/util.cuh");
    write(&h, &format!("// moved down\n\n\n{}", read(&h)));
    let r = check(&tree, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn new_unported_api_fails_naming_the_file_first() {
    let (_d, tree) = baselined();
    let f = tree.join("src/saxpy.cu");
    write(
        &f,
        &format!(
            "{}\nvoid flush() {{\n  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner);\n}}\n",
            read(&f)
        ),
    );
    let r = check(&tree, &[]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let first = r.stdout.lines().nth(1).unwrap_or_default();
    assert!(first.contains("src/saxpy.cu"), "{}", r.stdout);
    assert!(r.stdout.contains("cudaDeviceFlushGPUDirectRDMAWrites"));
    assert!(r.stdout.contains("FAIL"));
}

#[test]
fn new_file_with_unported_api_fails() {
    let (_d, tree) = baselined();
    write(
        &tree.join("src/rdma.cu"),
        "#include <cuda_runtime.h>\nvoid f() { cudaCtxResetPersistingL2Cache(); }\n",
    );
    let r = check(&tree, &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("src/rdma.cu"));
}

/// New inline PTX in a helper a kernel calls fails the check (PTX in a helper nothing calls
/// does not stop the build: `rules::inline_asm::settle_uncalled`).
#[test]
fn new_inline_ptx_fails() {
    let (_d, tree) = baselined();
    let f = tree.join("src/saxpy.cu");
    write(
        &f,
        &format!(
            "{}\n__device__ unsigned lane() {{\n  unsigned r;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n  return r;\n}}\n__global__ void tag(unsigned* o) {{ o[0] = lane(); }}\n",
            read(&f)
        ),
    );
    let r = check(&tree, &[]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("src/saxpy.cu"));
    assert!(r.stdout.contains("inline-asm"), "{}", r.stdout);
    let r = check(&tree, &["--fail-on", "inline-asm"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
}

#[test]
fn identical_findings_match_as_a_multiset() {
    let (_d, tree) = baselined();
    let f = tree.join("src/saxpy.cu");
    let src = read(&f).replace(
        "  cudaFree(x);",
        "  cudaCtxResetPersistingL2Cache();\n  cudaFree(x);",
    );
    write(&f, &src);
    let r = check(&tree, &[]);
    assert_eq!(r.code, 1, "a third use of an API baselined twice is new");
    assert!(r.stdout.contains("1 new"), "{}", r.stdout);
}

#[test]
fn fixed_findings_are_reported_and_update_shrinks_the_baseline() {
    let (_d, tree) = baselined();
    let h = tree.join("src/util.cuh");
    write(
        &h,
        &read(&h).replace("  cudaArrayGetPlane(out, a, 0);\n", "  *out = a;\n"),
    );
    let r = check(&tree, &[]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("fixed"), "{}", r.stdout);
    assert!(r.stdout.contains("src/util.cuh: HP001"), "{}", r.stdout);
    assert!(r.stdout.contains("1 fixed"), "{}", r.stdout);
    let before = read(&tree.join("hipport-baseline.json"));
    let r = check(&tree, &["--update-baseline"]);
    assert_eq!(r.code, 0);
    let after = read(&tree.join("hipport-baseline.json"));
    assert!(before.contains("cudaArrayGetPlane") && !after.contains("cudaArrayGetPlane"));
    let r = check(&tree, &[]);
    assert!(r.stdout.contains("0 fixed"), "{}", r.stdout);
}

#[test]
fn missing_baseline_is_an_error_not_a_pass() {
    let (_d, tree) = copy_fixture("check");
    let r = check(&tree, &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("hipport-baseline.json"), "{}", r.stderr);
    assert!(r.stderr.contains("--update-baseline"), "{}", r.stderr);
    let r = check(&tree, &["--baseline", "elsewhere.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("elsewhere.json"));
}

#[test]
fn corrupt_baseline_is_an_error() {
    let (_d, tree) = baselined();
    write(&tree.join("hipport-baseline.json"), "{\"version\": 1}");
    assert_eq!(check(&tree, &[]).code, 2);
}

#[test]
fn fail_on_selects_what_fails() {
    let (_d, tree) = baselined();
    write(
        &tree.join("src/new.cu"),
        "#include <cuda_runtime.h>\nvoid f() { cudaCtxResetPersistingL2Cache(); }\n",
    );
    let r = check(&tree, &["--fail-on", "inline-asm,status=UNKNOWN"]);
    assert_eq!(r.code, 0, "new but not selected: {}", r.stdout);
    assert!(
        r.stdout.contains("src/new.cu"),
        "new items are still listed"
    );
    for sel in [
        "status=REMEDIATION",
        "unsupported-api",
        "HP001",
        "inline-asm,HP001",
    ] {
        assert_eq!(check(&tree, &["--fail-on", sel]).code, 1, "{sel}");
    }
    let r = check(&tree, &["--fail-on", "bogus"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("bogus"));
}

#[test]
fn structured_formats_put_new_findings_first() {
    let (_d, tree) = baselined();
    write(
        &tree.join("src/zz.cu"),
        "#include <cuda_runtime.h>\nvoid f() { cudaCtxResetPersistingL2Cache(); }\n",
    );
    let r = check(&tree, &["--format", "github"]);
    assert_eq!(r.code, 1);
    let first = r.stdout.lines().next().unwrap();
    assert!(first.starts_with("::warning file=src/zz.cu,"), "{first}");
    assert!(first.contains("title=new%3A HP001"), "{first}");
    let r = check(&tree, &["--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let states: Vec<&str> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["baselineState"].as_str().unwrap())
        .collect();
    assert_eq!(states.iter().filter(|s| **s == "new").count(), 1);
}

#[test]
fn update_baseline_refuses_to_write_when_a_file_failed() {
    let (_d, tree) = copy_fixture("check");
    // A file over the size limit is an error: its findings are missing from the report.
    write(&tree.join("src/huge.cu"), &"// padding\n".repeat(2000));
    let r = check(&tree, &["--update-baseline", "--max-file-size", "20000"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("huge.cu"), "{}", r.stderr);
    assert!(r.stderr.contains("not written"), "{}", r.stderr);
    assert!(!tree.join("hipport-baseline.json").exists());
}

/// Issue 22: right after `--update-baseline`, no format reports a baselined finding as a
/// failure: JUnit skips them, GitHub and GitLab leave them out, JSON marks each one.
#[test]
fn a_clean_baseline_is_quiet_in_every_format() {
    let (_d, tree) = baselined();
    let r = check(&tree, &["--format", "junit"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(r#"failures="0""#), "{}", r.stdout);
    assert!(!r.stdout.contains("<failure"), "{}", r.stdout);
    assert!(r.stdout.contains("<skipped"), "{}", r.stdout);
    let r = check(&tree, &["--format", "github"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !r.stdout.lines().any(|l| l.starts_with("::")),
        "{}",
        r.stdout
    );
    let r = check(&tree, &["--format", "gitlab"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(0), "{}", r.stdout);
    let r = check(&tree, &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert!(findings
        .iter()
        .filter(|f| f["status"] != "PASS")
        .all(|f| f["baseline_state"] == "unchanged"));
    // A new finding is the one failure and the one annotation.
    let f = tree.join("src/saxpy.cu");
    let mut text = read(&f);
    text.push_str("\nvoid more() { cudaCtxResetPersistingL2Cache(); asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(x)); }\n");
    write(&f, &text);
    let r = check(&tree, &["--format", "junit"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("<failure"), "{}", r.stdout);
    let r = check(&tree, &["--format", "github"]);
    let annotated = r.stdout.lines().filter(|l| l.starts_with("::")).count();
    assert!(annotated >= 1, "{}", r.stdout);
    assert!(
        r.stdout
            .lines()
            .filter(|l| l.starts_with("::"))
            .all(|l| l.contains("title=new%3A ")),
        "{}",
        r.stdout
    );
}
