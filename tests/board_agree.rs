//! One board everywhere: with a migration record holding baseline, correctness and performance
//! PASS, the board printed by `gate` (text and JSON), `scan --format markdown`, the GitHub step
//! summary (`scan --format github --summary F`), `scan --format json` and the HTML page's
//! embedded model agree gate by gate, and the inventory gate counts the files the header says.

mod common;

use common::{hipport, write, Run};
use std::path::{Path, PathBuf};

const GATES: [&str; 10] = [
    "baseline",
    "inventory",
    "target",
    "build",
    "functional",
    "correctness",
    "precision",
    "distributed",
    "operations",
    "performance",
];

fn ok(dir: &Path, args: &[&str]) -> Run {
    let r = hipport(dir, args);
    assert_eq!(r.code, 0, "{args:?}: {}{}", r.stdout, r.stderr);
    r
}

/// A project (a kernel, a Dockerfile) with baseline, correctness and performance recorded PASS
/// through the CLI only.
fn project() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("proj");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    write(
        &root.join("k.cu"),
        "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n",
    );
    write(
        &root.join("Dockerfile"),
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n",
    );
    let perf = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/perf");
    for f in [
        "vllm_serving_cuda_a100.json",
        "vllm_serving_rocm_mi300x.json",
    ] {
        std::fs::copy(perf.join(f), root.join(f)).unwrap();
    }
    write(&root.join("out_cuda.csv"), "loss,acc\n0.5,0.9\n0.25,0.95\n");
    write(&root.join("out_rocm.csv"), "loss,acc\n0.5,0.9\n0.25,0.95\n");
    write(
        &root.join("baseline-run.log"),
        "A100 run, all tests passed\n",
    );
    ok(&root, &["record", "init"]);
    ok(
        &root,
        &[
            "record",
            "baseline",
            "--gpu",
            "NVIDIA A100-SXM4-80GB",
            "--toolkit",
            "12.4",
            "--driver",
            "550.54.15",
            "--commit",
            "0123456789abcdef",
        ],
    );
    ok(
        &root,
        &[
            "record",
            "gate",
            "baseline",
            "--status",
            "PASS",
            "--evidence",
            "baseline-run.log",
        ],
    );
    ok(&root, &common::tuple::record_target(&["--kernel"], &[]));
    ok(
        &root,
        &[
            "record",
            "production",
            "--precision",
            "bf16",
            "--gpus",
            "1",
            "--require",
            "p99_ttft_ms<=250",
        ],
    );
    ok(
        &root,
        &[
            "record",
            "perf",
            "baseline",
            "vllm_serving_cuda_a100.json",
            "--no-probe",
            "--cuda",
            "12.4",
            "--gpus",
            "1",
        ],
    );
    ok(
        &root,
        &[
            "record",
            "perf",
            "candidate",
            "vllm_serving_rocm_mi300x.json",
            "--no-probe",
            "--gpu",
            "Instinct MI300X:gfx942",
            "--rocm",
            "6.4.1",
            "--gpus",
            "1",
        ],
    );
    ok(
        &root,
        &["compare", "out_cuda.csv", "out_rocm.csv", "--record"],
    );
    (d, root)
}

fn statuses_of_json(gates: &serde_json::Value) -> Vec<(String, String)> {
    gates
        .as_array()
        .expect("gates")
        .iter()
        .map(|g| {
            (
                g["name"].as_str().unwrap().to_string(),
                g["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `| 1 | CUDA baseline | PASS | … |` rows of the Markdown board, in order, named by position.
fn statuses_of_markdown(md: &str) -> Vec<(String, String)> {
    let start = md.find("## Gates").expect("a board");
    let rows: Vec<Vec<&str>> = md[start..]
        .lines()
        .filter(|l| {
            l.starts_with("| ")
                && l.split('|')
                    .nth(1)
                    .is_some_and(|c| c.trim().parse::<usize>().is_ok())
        })
        .map(|l| l.split('|').map(str::trim).collect())
        .take(10)
        .collect();
    assert_eq!(rows.len(), 10, "{md}");
    rows.iter()
        .map(|r| {
            let i: usize = r[1].parse().unwrap();
            (GATES[i - 1].to_string(), r[3].to_string())
        })
        .collect()
}

fn statuses_of_text(t: &str) -> Vec<(String, String)> {
    t.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (name, status) = (w.next()?, w.next()?);
            GATES
                .contains(&name)
                .then(|| (name.to_string(), status.to_string()))
        })
        .collect()
}

fn files_in_header(md: &str) -> usize {
    let h = md
        .lines()
        .find(|l| l.starts_with("Target: "))
        .expect("header");
    let before = h.split(" files scanned").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().expect("a count")
}

#[test]
fn every_view_shows_the_records_gates_and_the_headers_file_count() {
    let (_d, root) = project();
    let gate_json: serde_json::Value =
        serde_json::from_str(&hipport(&root, &["gate", "--format", "json"]).stdout).unwrap();
    let want = statuses_of_json(&gate_json["gates"]);
    assert_eq!(want.len(), 10);
    for g in ["baseline", "correctness", "performance", "target"] {
        assert!(
            want.contains(&(g.to_string(), "PASS".to_string())),
            "{g} is PASS in the record: {want:?}"
        );
    }
    let gate_text = hipport(&root, &["gate"]);
    assert_eq!(gate_text.code, 1, "NOT READY: build and the rest untested");
    assert_eq!(statuses_of_text(&gate_text.stdout), want, "gate (text)");

    let md = ok(&root, &["scan", ".", "--format", "markdown"]).stdout;
    assert_eq!(statuses_of_markdown(&md), want, "scan --format markdown");

    let summary = root.join("summary.md");
    let gh = hipport(
        &root,
        &[
            "scan",
            ".",
            "--format",
            "github",
            "--summary",
            summary.to_str().unwrap(),
        ],
    );
    assert_eq!(gh.code, 0, "{}", gh.stderr);
    let summary_md = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(
        statuses_of_markdown(&summary_md),
        want,
        "GitHub step summary"
    );

    let scan_json: serde_json::Value =
        serde_json::from_str(&ok(&root, &["scan", ".", "--format", "json"]).stdout).unwrap();
    assert_eq!(
        statuses_of_json(&scan_json["board"]["gates"]),
        want,
        "scan --format json"
    );
    assert_eq!(scan_json["board"]["verdict"], gate_json["verdict"]);

    let page = root.join("page.html");
    ok(&root, &["report", ".", "-o", page.to_str().unwrap()]);
    let model = hipport::render::html::read_model(&std::fs::read_to_string(&page).unwrap())
        .expect("the embedded model");
    let html: Vec<(String, String)> = model
        .board
        .gates
        .iter()
        .map(|g| (g.name.clone(), g.status.to_string()))
        .collect();
    assert_eq!(html, want, "report (HTML)");

    // The inventory gate counts what the header counts (the scan is complete when it is built).
    let files = files_in_header(&md);
    assert!(files >= 2, "k.cu and the Dockerfile at least: {md}");
    assert_eq!(scan_json["summary"]["files_scanned"], files);
    let inventory = &scan_json["board"]["gates"][1];
    assert!(
        inventory["evidence"]
            .as_str()
            .unwrap()
            .contains(&format!(": {files} file(s)")),
        "{inventory}"
    );
    assert!(!md.contains("0 files scanned"), "{md}");
    // Gates a person or a command set say so.
    assert_eq!(gate_json["gates"][0]["source"], "person");
    assert_eq!(gate_json["gates"][5]["source"], "compare");
    assert_eq!(gate_json["gates"][9]["source"], "benchmarks");
}
