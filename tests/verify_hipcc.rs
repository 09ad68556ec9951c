//! `hipport verify` against the real hipcc on `testdata/verify/`: the valid unit passes, the
//! hipBLAS unit is BUILD FAIL (missing header) and the un-ported one BUILD FAIL (un-ported),
//! never BLOCKER. Skipped, with the reason printed, where hipcc is not on PATH (CI installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn hipcc_on_path() -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("hipcc").is_file()))
        .unwrap_or(false)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn fixture() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("proj");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/verify"),
        &root,
    );
    (d, root)
}

#[test]
fn verify_classifies_units_with_real_hipcc() {
    if !hipcc_on_path() {
        eprintln!("skipped: hipcc is not on PATH (Debian: apt-get install hipcc)");
        return;
    }
    let (_d, root) = fixture();
    let o = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args([
            "verify",
            ".",
            "--rocm",
            "5.2",
            "--offload-arch",
            "gfx90a",
            "--format",
            "json",
            "-j",
            "2",
        ])
        .current_dir(&root)
        .env("HIPPORT_USER", "tester")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {stderr}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let row = |p: &str| {
        v["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["path"] == p)
            .unwrap_or_else(|| panic!("no row for {p}: {v}"))
            .clone()
    };
    let saxpy = row("src/saxpy.cu");
    assert_eq!(saxpy["result"], "PASS", "{saxpy}");
    assert!(saxpy["error"].is_null());
    let gemm = row("src/gemm.cu");
    assert_eq!(
        gemm["result"], "BUILD FAIL (missing ROCm library header)",
        "{gemm}"
    );
    assert!(gemm["error"]
        .as_str()
        .unwrap()
        .contains("hipblas/hipblas.h"));
    assert_ne!(gemm["status"], "BLOCKER");
    let graph = row("src/graph.cu");
    assert_eq!(graph["result"], "BUILD FAIL (un-ported API)", "{graph}");
    assert!(graph["error"]
        .as_str()
        .unwrap()
        .contains("cudaStreamGetCaptureInfo_v3"));
    assert_eq!(graph["status"], "REMEDIATION");
    assert_eq!(v["summary"]["units"], 3);
    assert_eq!(v["summary"]["pass"], 1);
    assert!(!v.to_string().contains("BLOCKER"));

    // The BUILD gate is stored with its evidence and read back by the board.
    let rec = std::fs::read_to_string(root.join("hipport-migration.toml")).unwrap();
    assert!(
        rec.contains("path = \".hipport/verify-results.json\""),
        "{rec}"
    );
    assert!(rec.contains("sha256 = "), "{rec}");
    assert!(rec.contains("HIP 5.2"), "{rec}");
    let g = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(["gate", ".", "--format", "json"])
        .current_dir(&root)
        .output()
        .unwrap();
    let b: serde_json::Value = serde_json::from_slice(&g.stdout).unwrap();
    let build = b["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "build")
        .unwrap()
        .clone();
    assert_eq!(build["status"], "REMEDIATION", "{build}");
    assert_eq!(build["open_items"], 2);

    // --only re-checks one unit and keeps the others' results.
    let o = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args([
            "verify",
            ".",
            "--rocm",
            "5.2",
            "--only",
            "src/saxpy.cu",
            "--format",
            "json",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["summary"]["units"], 3, "{v}");
}

#[test]
fn verify_without_hipcc_leaves_the_build_gate_unknown() {
    let (_d, root) = fixture();
    let o = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(["verify", "."])
        .current_dir(&root)
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    if Path::new("/opt/rocm/bin/hipcc").is_file() {
        eprintln!("skipped: /opt/rocm/bin/hipcc exists, so verify finds a hipcc");
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("no hipcc found") && out.contains("apt-get install hipcc"),
        "{out}"
    );
    assert!(out.contains("BUILD gate: UNKNOWN"), "{out}");
}
