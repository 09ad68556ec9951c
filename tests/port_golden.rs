//! Golden cases: every `testdata/port/<case>/` translates to exactly its expected output and
//! expected stats/findings, translating the output again changes nothing, and the output parses
//! no worse than the input. Rewrite expectations with `cargo xtask bless` and review the diff.

use hipport::testkit;
use std::path::Path;

fn show_diff(name: &str, what: &str, expected: &[u8], actual: &[u8]) -> String {
    let mut out = Vec::new();
    hipport::render::diff::write_file_diff(&mut out, name, expected, actual).unwrap();
    format!(
        "{name}: {what} differs (expected → actual):\n{}",
        String::from_utf8_lossy(&out)
    )
}

#[test]
fn port_goldens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/port");
    let cases = testkit::load_cases(&root).unwrap();
    assert!(
        cases.len() >= 40,
        "expected at least 40 golden cases, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let r = match testkit::run_case(case) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        let expected = std::fs::read(case.expected_output()).unwrap_or_default();
        if expected != r.output {
            failures.push(show_diff(&case.name, "output", &expected, &r.output));
        }
        let expected_json = std::fs::read(case.expected_json()).unwrap_or_default();
        if expected_json != r.json.as_bytes() {
            failures.push(show_diff(
                &case.name,
                "expected.json",
                &expected_json,
                r.json.as_bytes(),
            ));
        }
        let expected_header = std::fs::read_to_string(case.expected_compat_header()).ok();
        if expected_header != r.compat_header {
            failures.push(show_diff(
                &case.name,
                "hipport_compat.h",
                expected_header.unwrap_or_default().as_bytes(),
                r.compat_header.unwrap_or_default().as_bytes(),
            ));
        }
        if r.second != r.output {
            failures.push(show_diff(
                &case.name,
                "second run (idempotence)",
                &r.output,
                &r.second,
            ));
        }
        let input = std::fs::read(&case.input).unwrap();
        let errs = |b: &[u8]| {
            let t = hipport::parse::parse(b);
            let idx = hipport::source::LineIndex::new(b);
            let h = hipport::parse::health(t.as_ref(), b, &idx);
            h.errors + h.missing
        };
        if errs(&r.output) > errs(&input) {
            failures.push(format!(
                "{}: the output parses worse than the input",
                case.name
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden failure(s):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Scan and port agree (one logical-warp model, two consumers): on every `warp_*` golden, the
/// lines `port` rewrote safely (HP109 PASS) carry no open warp-size finding (HP101–HP108) in
/// `scan`, and where the function's warp-level calls are all rewritten safely no 32-lane id,
/// reduction, slot array or 32-bit mask stays open. The twins keep theirs: the mixed case's
/// reduction stays REMEDIATION, naming `--unsafe-fixes`.
#[test]
fn scan_agrees_with_the_safe_logical_warp_rewrites() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/port");
    let scan = |case: &str| -> Vec<serde_json::Value> {
        let dir = root.join(case);
        let args = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hipport"))
            .arg("scan")
            .args(["--format", "json"])
            // `--unsafe-fixes` is port's alone: scan reports what the safe port does.
            .args(args.split_whitespace().filter(|a| *a != "--unsafe-fixes"))
            .arg(dir.join("input.cu"))
            .output()
            .expect("run hipport scan");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("scan json");
        v["findings"].as_array().cloned().unwrap_or_default()
    };
    let open_warp = |f: &serde_json::Value| {
        let rule = f["rule"].as_str().unwrap_or("");
        rule.starts_with("HP10") && f["status"] != "PASS"
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.starts_with("warp_") {
            continue;
        }
        let findings = scan(&name);
        let rewritten: Vec<u64> = findings
            .iter()
            .filter(|f| f["rule"] == "HP109" && f["status"] == "PASS")
            .filter_map(|f| f["line"].as_u64())
            .collect();
        for f in findings.iter().filter(|f| open_warp(f)) {
            let line = f["line"].as_u64().unwrap_or(0);
            assert!(
                !rewritten.contains(&line),
                "{name}: line {line} was rewritten safely by port but scan reports {f}"
            );
        }
        checked += rewritten.len();
    }
    assert!(checked >= 10, "only {checked} safe rewrites found");
    // Kernels whose every warp-level call port rewrites safely: nothing 64-lane stays open.
    for case in [
        "warp_logical32_rocm52",
        "warp_votes_rocm52",
        "warp_logical32_macros_rocm52",
    ] {
        let open: Vec<_> = scan(case)
            .into_iter()
            .filter(|f| open_warp(f) && f["rule"] != "HP101" && f["rule"] != "HP103")
            .collect();
        assert!(
            open.is_empty(),
            "{case}: open after safe rewrites: {open:?}"
        );
    }
    // The twins: mixed lanes keep an open reduction that names the choice; wavefront lanes
    // get no rewrite at all.
    let mixed = scan("warp_mixed_rocm52");
    assert!(mixed.iter().any(|f| f["rule"] == "HP104"
        && f["status"] == "REMEDIATION"
        && f["suggestion"]
            .as_str()
            .is_some_and(|s| s.contains("--unsafe-fixes"))));
    let wave = scan("warp_votes_wavefront_rocm52");
    assert!(!wave.iter().any(|f| f["rule"] == "HP109"));
}
