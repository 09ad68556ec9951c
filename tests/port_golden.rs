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
