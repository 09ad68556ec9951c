//! The shapes of `scan --format markdown|sarif|github|gitlab|junit`: SARIF validated against the
//! official 2.1.0 schema and round-tripped through our model, GitHub escaping, the Markdown board
//! and verdict line.

mod common;
use common::{copy_fixture, hipport, schema_errors, write};
use hipport::render::sarif;
use std::path::Path;

fn scan_out(tree: &Path, format: &str) -> String {
    let r = hipport(tree, &["scan", ".", "--format", format]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// A report from the fixture plus a call whose HIP name is deprecated (HP002): the rename is
/// the mechanical fix, which the finding carries.
fn report_with_fix() -> hipport::report::Report {
    let (_d, tree) = copy_fixture("check");
    write(
        &tree.join("src/context.cpp"),
        "#include <cuda.h>\nint version(CUcontext c) {\n  unsigned v = 0;\n  cuCtxGetApiVersion(c, &v);\n  return v;\n}\n",
    );
    // Warnings are errors here, so the deprecated API stays a port item (with its fix).
    write(&tree.join("Makefile"), "CXXFLAGS += -Wall -Werror\n");
    let settings = hipport::settings::Settings::resolve_quiet(&hipport::settings::Request {
        paths: vec![tree.clone()],
        rocm: Some("6.2.0".into()),
        max_file_size: 1 << 20,
        no_config: true,
        ..Default::default()
    })
    .unwrap();
    let r = hipport::scan::scan(&settings).unwrap();
    let with_fix: Vec<_> = r.findings.iter().filter(|f| f.fix.is_some()).collect();
    assert_eq!(with_fix.len(), 1, "{:#?}", r.findings);
    assert_eq!(with_fix[0].rule, "HP002");
    r
}

#[test]
fn sarif_is_valid_2_1_0_and_round_trips() {
    let (_d, tree) = copy_fixture("check");
    write(
        &tree.join("src/my file,v2.cu"),
        "void f() { cudaCtxResetPersistingL2Cache(); }\n",
    );
    let out = scan_out(&tree, "sarif");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &doc["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    assert_eq!(run["tool"]["driver"]["name"], "hipport");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    // The new file's call and saxpy.cu's two of the same API are one decision: one result,
    // whose related locations are saxpy.cu's calls (PASS in JSON, naming it).
    assert_eq!(results.len(), 2, "{out}");
    for res in results {
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], res["ruleId"]);
        assert_eq!(res["level"], "warning");
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert_eq!(
            res["partialFingerprints"]["hipport/v1"]
                .as_str()
                .unwrap()
                .len(),
            16
        );
    }
    let uris: Vec<&str> = results
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(uris.contains(&"src/my%20file%2Cv2.cu"), "{uris:?}");
    let head = results
        .iter()
        .find(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "src/my%20file%2Cv2.cu"
        })
        .unwrap();
    let related: Vec<(&str, u64)> = head["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap(),
                l["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(related, [("src/saxpy.cu", 12), ("src/saxpy.cu", 21)]);
    let rule = &rules[results[0]["ruleIndex"].as_u64().unwrap() as usize];
    for k in ["shortDescription", "fullDescription"] {
        assert!(!rule[k]["text"].as_str().unwrap().is_empty());
    }
    assert!(!rule["help"]["text"].as_str().unwrap().is_empty());
    assert!(!rule["help"]["markdown"].as_str().unwrap().is_empty());
    assert_eq!(rule["defaultConfiguration"]["level"], "warning");
    let log: sarif::Log = serde_json::from_str(&out).unwrap();
    let again: sarif::Log = serde_json::from_value(serde_json::to_value(&log).unwrap()).unwrap();
    assert_eq!(log, again);
    assert_eq!(serde_json::to_value(&log).unwrap(), doc);
}

#[test]
fn sarif_fixes_are_valid() {
    let r = report_with_fix();
    let mut out = Vec::new();
    sarif::write(&r, &mut out).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    // The validator does reject what the schema forbids.
    let mut broken = doc.clone();
    broken["runs"][0]["results"][0]["level"] = "severe".into();
    assert!(!schema_errors(&broken).is_empty());
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let fixed: Vec<_> = results
        .iter()
        .filter(|res| res.get("fixes").is_some())
        .collect();
    assert_eq!(fixed.len(), 1);
    assert_eq!(fixed[0]["ruleId"], "HP002");
    let fix = &fixed[0]["fixes"][0];
    let rep = &fix["artifactChanges"][0]["replacements"][0];
    assert_eq!(rep["insertedContent"]["text"], "hipCtxGetApiVersion");
    let f = r.findings.iter().find(|f| f.fix.is_some()).unwrap();
    assert_eq!(rep["deletedRegion"]["startLine"], f.line);
    assert_eq!(rep["deletedRegion"]["endColumn"], f.end_column);
    let log: sarif::Log = serde_json::from_slice(&out).unwrap();
    let again: sarif::Log = serde_json::from_str(&serde_json::to_string(&log).unwrap()).unwrap();
    assert_eq!(log, again);
}

#[test]
fn sarif_of_a_clean_tree_is_valid() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    write(&d.path().join("ok.cu"), "int main() { return 0; }\n");
    let doc: serde_json::Value = serde_json::from_str(&scan_out(d.path(), "sarif")).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    assert_eq!(doc["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn github_annotations_are_escaped() {
    let (_d, tree) = copy_fixture("check");
    write(
        &tree.join("src/a,b:c%.cu"),
        "void f() { cudaCtxResetPersistingL2Cache(); }\n",
    );
    let out = scan_out(&tree, "github");
    let lines: Vec<&str> = out.lines().collect();
    // One annotation per fact: the new file's call and saxpy.cu's two of the same API are one
    // decision, held by the first in report order, which names both files.
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        out.contains("3 uses in 2 files (first at `src/a,b:c%25.cu:1`, `src/saxpy.cu:12`)"),
        "{out}"
    );
    let odd = lines
        .iter()
        .find(|l| l.contains("file=src/a%2Cb%3Ac%25.cu,"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        odd.starts_with("::warning file=src/a%2Cb%3Ac%25.cu,line=1,endLine=1,col=12,endColumn=41,title=HP001 unported-api [REMEDIATION]::"),
        "{odd}"
    );
    for l in &lines {
        assert!(l.starts_with("::warning file="), "{l}");
        let message = l.split_once("::").unwrap().1.split_once("::").unwrap().1;
        assert!(message.contains("%0A"), "multi-line message escaped: {l}");
        assert!(!message.contains('\n'));
    }
}

#[test]
fn github_summary_goes_to_the_step_summary_file() {
    let (d, tree) = copy_fixture("check");
    let summary = d.path().join("summary.md");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(["scan", ".", "--format", "github"])
        .current_dir(&tree)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert!(out.status.success());
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("# hipport remediation report"));
    let other = d.path().join("other.md");
    let r = hipport(
        &tree,
        &[
            "scan",
            ".",
            "--format",
            "sarif",
            "--summary",
            other.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0);
    assert!(std::fs::read_to_string(&other)
        .unwrap()
        .contains("## Verdict"));
}

#[test]
fn markdown_has_board_in_order_then_verdict_then_items() {
    let (_d, tree) = copy_fixture("check");
    let md = scan_out(&tree, "markdown");
    let titles = hipport::board::GATES.map(|g| g.1);
    let mut at = 0;
    for t in titles {
        let pos = md[at..]
            .find(&format!("| {t} |"))
            .unwrap_or_else(|| panic!("gate {t} missing or out of order:\n{md}"));
        at += pos;
    }
    let row = |t: &str| {
        md.lines()
            .find(|l| l.contains(&format!("| {t} |")))
            .unwrap()
            .to_string()
    };
    assert!(row("Dependency inventory").contains("| REMEDIATION |"));
    assert!(
        row("Exact ROCm target").contains("| PASS |"),
        "6.2.0 in hipport.toml"
    );
    assert!(row("Build").contains("| UNKNOWN |"));
    // Every "not tested" row names the command that fills it.
    assert!(row("Performance").contains("| UNKNOWN | not tested: "));
    assert!(row("Performance").contains("hipport record perf"));
    let verdict = md
        .lines()
        .find(|l| l.starts_with("NOT READY"))
        .expect("verdict line");
    assert_eq!(verdict, "NOT READY: 3 REMEDIATION, 8 UNKNOWN");
    let v = md.find(verdict).unwrap();
    let items = md.find("## REMEDIATION (3)").expect("items by status");
    // Then by harm; the category is on each item.
    let cat = md
        .find("`src/saxpy.cu:12:3` **HP001** unported-api")
        .expect("then the items");
    assert!(at < v && v < items && items < cat);
    let item = &md[cat..];
    for part in [
        "  - Why: ",
        "  - Action: ",
        "  - Phase: BUILD · category: unsupported-api",
        "  - 2 occurrences in this file: lines 12, 21",
    ] {
        assert!(item.contains(part), "{part}");
    }
    // Without an exact target the target gate is UNKNOWN too.
    let r = hipport(&tree, &["scan", ".", "--format", "markdown", "--no-config"]);
    assert!(r.stdout.contains("NOT READY: 3 REMEDIATION, 9 UNKNOWN"));
}

#[test]
fn gitlab_code_quality_and_junit() {
    let (_d, tree) = copy_fixture("check");
    let v: serde_json::Value = serde_json::from_str(&scan_out(&tree, "gitlab")).unwrap();
    let issues = v.as_array().unwrap();
    assert_eq!(issues.len(), 3);
    let mut fps: Vec<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    fps.sort();
    fps.dedup();
    assert_eq!(
        fps.len(),
        3,
        "fingerprints unique even for identical findings"
    );
    let i = &issues[0];
    assert_eq!(i["check_name"], "HP001");
    assert_eq!(i["severity"], "major");
    assert_eq!(i["location"]["path"], "src/saxpy.cu");
    assert_eq!(i["location"]["lines"]["begin"], 12);
    assert!(i["description"]
        .as_str()
        .unwrap()
        .contains("cudaCtxResetPersistingL2Cache"));
    let xml = scan_out(&tree, "junit");
    assert!(xml.starts_with("<?xml"));
    assert!(
        xml.contains(r#"<testsuite name="unsupported-api" tests="3" failures="3" skipped="0">"#)
    );
    assert_eq!(xml.matches("<failure ").count(), 3);
    assert!(xml.contains(r#"name="src/saxpy.cu:12:3 HP001""#));
}
