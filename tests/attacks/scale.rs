//! Issue 23 item 5: the shapes on which `scan` was quadratic finish in linear time, and a file
//! nested hundreds of thousands deep is scanned, not a stack overflow that aborts the run.
//! Limits are generous for a debug build on a busy machine; before the fix the two shapes of
//! the issue took 140 s and 133 s of CPU in a release build.

#[allow(unused_imports)]
use super::*;

/// `__global__ void k(float *p) { float v = p[0]+p[0]+…; }` with `terms` terms.
fn flat_sum(terms: usize) -> String {
    format!(
        "__global__ void k(float *p) {{\n  float v = {};\n  p[1] = v;\n}}\n",
        vec!["p[0]"; terms].join("+")
    )
}

/// `x a<a<…b>…>;` nested `depth` deep.
fn deep_template(depth: usize) -> String {
    format!("x {}b{};\n", "a<".repeat(depth), ">".repeat(depth))
}

/// Scans `src` as `f.cu` within `limit`; the JSON report says the file was scanned with no
/// error.
fn scan_within(src: &str, limit: Duration) -> Run {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("f.cu"), src);
    let run = run_limited(
        dir.path(),
        &[
            "scan",
            "--format",
            "json",
            "--max-file-size",
            "100000000",
            "f.cu",
        ],
        limit,
    );
    assert!(
        matches!(run.code, Some(0) | Some(1)),
        "scan did not finish normally: {}",
        run.text()
    );
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON report");
    assert_eq!(v["summary"]["files_scanned"], 1, "{}", run.stdout);
    assert!(
        v.get("errors")
            .and_then(|e| e.as_array())
            .is_none_or(|e| e.is_empty()),
        "{}",
        run.stdout
    );
    run
}

#[test]
fn a_flat_sum_of_20k_terms_scans_in_linear_time() {
    scan_within(&flat_sum(20_000), Duration::from_secs(60));
}

#[test]
fn a_template_nested_20k_deep_scans_in_linear_time() {
    scan_within(&deep_template(20_000), Duration::from_secs(60));
}

/// The chains a rule read again at every operator (`t / 32 / 32 …` asked for `blockDim` in
/// each left side, `m << 32 << 32 …` for a ballot, `if … else if …` walked up from each
/// condition): 20 000 links each.
#[test]
fn operator_chains_scan_in_linear_time() {
    let kernel = |body: String| format!("__global__ void k(float *p, int t) {{\n{body}\n}}\n");
    for src in [
        kernel(format!(
            "  int w = threadIdx.x{};\n  p[w] = 0;",
            " / 32".repeat(20_000)
        )),
        kernel(format!(
            "  unsigned long long m = __ballot_sync(~0u, t){};\n  p[0] = m;",
            " << 32".repeat(20_000)
        )),
        kernel(format!(
            "  int lane = threadIdx.x % 32;\n  {}t = 0;",
            "if (t == lane) t = 1; else ".repeat(20_000)
        )),
    ] {
        scan_within(&src, Duration::from_secs(60));
    }
}

/// A 1 MB sum (200 000 levels of nesting) read by recursive rules overflowed the stack, which
/// aborts the process (no report, no exit code): it is scanned, and its finding is reported.
#[test]
fn a_sum_nested_200k_deep_does_not_overflow_the_stack() {
    let src = format!(
        "__global__ void k(int *p) {{\n  int v = {};\n  int lane = v % 32;\n  p[lane] = __shfl_down_sync(0xffffffff, v, 16);\n}}\n",
        vec!["threadIdx.x"; 100_000].join("+")
    );
    let run = scan_within(&src, Duration::from_secs(120));
    for rule in ["\"HP102\"", "\"HP104\""] {
        assert!(run.stdout.contains(rule), "{rule}: {}", run.stdout);
    }
}
