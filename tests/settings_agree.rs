//! One tree with a `hipport.toml`: `port`, `scan`, `check` and `gate` resolve the same settings
//! (issue 13), so each pair agrees on the target, the rule levels, the file selection and the
//! counts. Before the settings were resolved once, `port` ignored `hipport.toml` (targeting the
//! newest release) and `gate` ignored rule levels.

mod common;
use common::{hipport, write};
use serde_json::Value;
use std::path::{Path, PathBuf};

const TOML: &str = r#"[target]
rocm = "5.2.0"
offload_arch = ["gfx90a"]
[paths]
exclude = ["third_party/**"]
[rules]
HP102 = "off"
[[suppress]]
rule = "HP820"
path = "tools/**"
reason = "developer tooling, not shipped"
"#;

const KERNEL: &str = r#"#include <cuda_runtime.h>
__global__ void reduce(int *x) {
  int lane = threadIdx.x % 32;
  x[lane] = __shfl_down_sync(0xffffffff, lane, 16);
}
void capture(cudaStream_t s, cudaGraph_t g) {
  cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal);
  cudaStreamSynchronize(s);
}
"#;

fn tree() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("tree");
    for dir in ["src", "third_party", "tools", ".git"] {
        std::fs::create_dir_all(t.join(dir)).unwrap();
    }
    write(&t.join("hipport.toml"), TOML);
    write(&t.join("src/reduce.cu"), KERNEL);
    // Excluded by [paths]: would add an HP001 (cudaStreamBeginCaptureToGraph) and renames.
    write(&t.join("third_party/vendored.cu"), KERNEL);
    write(&t.join("requirements.txt"), "torch==2.1.0+cu121\n");
    write(&t.join("tools/requirements.txt"), "cupy-cuda12x\n");
    (d, t)
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let r = hipport(dir, args);
    assert!(r.code == 0 || r.code == 1, "{args:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{}", r.stdout))
}

fn rules(findings: &Value) -> Vec<String> {
    findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

fn fingerprints(findings: &Value) -> Vec<String> {
    let mut v: Vec<String> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fingerprint"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn port_and_scan_agree_on_target_rules_files_and_counts() {
    let (_d, t) = tree();
    let scan = json(&t, &["scan", ".", "--format", "json"]);
    let port = json(&t, &["port", ".", "-q", "--format", "json"]);
    assert_eq!(scan["target"]["rocm"], "5.2.0");
    assert_eq!(port["target"]["rocm"], "5.2.0", "port follows hipport.toml");
    // The file selection: third_party/ is excluded for both.
    let ported: Vec<&str> = port["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(ported, ["src/reduce.cu"]);
    assert!(scan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| !f["path"].as_str().unwrap().starts_with("third_party")));
    // The counts: names translated one-to-one, and names HIP lacks at the target.
    let totals = &port["totals"];
    let renamed: u64 = totals["renamed"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(
        renamed + totals["unchanged_api"].as_u64().unwrap(),
        scan["summary"]["translated_names"].as_u64().unwrap()
    );
    let hp001 = rules(&scan["findings"])
        .iter()
        .filter(|r| *r == "HP001")
        .count();
    assert_eq!(totals["unported"].as_u64().unwrap(), 1);
    assert_eq!(
        hp001, 1,
        "cudaStreamBeginCaptureToGraph is HIP 6.2+, the target 5.2.0"
    );
    // Port's findings are scan's findings (port runs no hazard rules without --annotate).
    let port_findings = &port["files"][0]["findings"];
    let scan_fps = fingerprints(&scan["findings"]);
    for fp in fingerprints(port_findings) {
        assert!(scan_fps.contains(&fp), "{fp} in port, not in scan");
    }
    // The rule level holds for both: HP102 (`% 32`) is off.
    for r in [rules(&scan["findings"]), rules(port_findings)] {
        assert!(!r.contains(&"HP102".to_string()), "{r:?}");
    }
    let annotated = hipport(&t, &["port", ".", "--annotate", "-o", "-", "src/reduce.cu"]);
    assert!(!annotated.stdout.contains("HP102"), "{}", annotated.stdout);
    // `--stats` names the same target (the output tree outside the input: never inside it).
    let stats = hipport(&t, &["port", ".", "-q", "--stats", "--out", "../out"]);
    assert!(
        stats.stdout.contains("target ROCm 5.2.0"),
        "{}",
        stats.stdout
    );
}

#[test]
fn scan_check_and_gate_agree_on_target_and_counts() {
    let (_d, t) = tree();
    let scan = json(&t, &["scan", ".", "--format", "json"]);
    let n = scan["findings"].as_array().unwrap().len();
    assert!(n >= 4, "{:#}", scan["findings"]);
    // tools/requirements.txt is suppressed, requirements.txt is not.
    let paths: Vec<&str> = scan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"requirements.txt") && !paths.contains(&"tools/requirements.txt"));

    // The baseline holds the work items: every finding that is not PASS.
    let work = scan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] != "PASS")
        .count();
    let upd = hipport(&t, &["check", ".", "--update-baseline"]);
    assert_eq!(upd.code, 0, "{}", upd.stderr);
    assert!(
        upd.stderr.contains(&format!("({work} findings")),
        "{}",
        upd.stderr
    );
    let check = json(&t, &["check", ".", "--format", "json"]);
    assert_eq!(check["target"], scan["target"]);
    assert_eq!(
        fingerprints(&check["findings"]),
        fingerprints(&scan["findings"])
    );

    let gate = json(&t, &["gate", ".", "--format", "json"]);
    let inv = gate["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "inventory")
        .unwrap();
    let open = scan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] != "PASS")
        .count();
    assert_eq!(
        inv["open_items"].as_u64().unwrap() as usize,
        open,
        "{inv:#}"
    );
    let ev = inv["evidence"].as_str().unwrap();
    assert!(
        ev.contains("ROCm 5.2.0") && ev.contains(&format!("{n} finding(s)")),
        "{ev}"
    );

    // A flag overrides hipport.toml in every command alike.
    let scan62 = json(&t, &["scan", ".", "--format", "json", "--rocm", "6.2.0"]);
    assert!(!rules(&scan62["findings"]).contains(&"HP001".to_string()));
    let gate62 = hipport(&t, &["gate", ".", "--rocm", "6.2.0"]);
    assert!(gate62.stdout.contains("ROCm 6.2.0"), "{}", gate62.stdout);
}

#[test]
fn the_default_target_is_the_newest_release_everywhere() {
    let (_d, t) = tree();
    std::fs::remove_file(t.join("hipport.toml")).unwrap();
    let table = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("mappings/hand/rocm_versions.tsv"),
    )
    .unwrap();
    let mut releases: Vec<Vec<u32>> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("rocm\t"))
        .filter_map(|l| l.split('\t').next())
        .map(|v| v.split('.').map(|p| p.parse().unwrap()).collect())
        .collect();
    releases.sort();
    let newest = releases
        .last()
        .unwrap()
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(".");
    let scan = json(&t, &["scan", ".", "--format", "json"]);
    assert_eq!(scan["target"]["rocm"], newest.as_str());
    let port = json(&t, &["port", ".", "-q", "--format", "json"]);
    assert_eq!(port["target"]["rocm"], newest.as_str());
    let gate = hipport(&t, &["gate", "."]);
    assert!(
        gate.stdout.contains(&format!("ROCm {newest}")),
        "{}",
        gate.stdout
    );
}

#[test]
fn an_unknown_release_warns_the_same_way_in_every_command() {
    let (_d, t) = tree();
    write(&t.join("hipport.toml"), "[target]\nrocm = \"9.9.0\"\n");
    let mut warnings = Vec::new();
    for args in [
        &["scan", "."][..],
        &["port", ".", "-q"],
        &["check", ".", "--update-baseline"],
        &["gate", "."],
    ] {
        let r = hipport(&t, args);
        let w: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.contains("not a release line"))
            .collect();
        assert_eq!(w.len(), 1, "{args:?}: {}", r.stderr);
        warnings.push(w[0].to_string());
    }
    assert!(
        warnings[0].contains("ROCm 9.9.0 (hipport.toml)"),
        "{}",
        warnings[0]
    );
    assert!(warnings.iter().all(|w| *w == warnings[0]), "{warnings:#?}");
    let flag = hipport(&t, &["scan", ".", "--rocm", "9.9"]);
    assert!(flag
        .stderr
        .contains("ROCm 9.9 (--rocm) is not a release line"));
}
