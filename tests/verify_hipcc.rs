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
            "--record",
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

/// Every file under `dir` whose name contains `needle` (the proof a shell ran a payload).
fn find_named(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if e.file_name().to_string_lossy() == needle {
            out.push(p.clone());
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(find_named(&p, needle));
        }
    }
    out
}

/// A project whose file names and compile_commands.json flags are shell payloads.
fn hostile_project() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("proj");
    std::fs::create_dir_all(root.join("src")).unwrap();
    let kernel =
        "#include <cuda_runtime.h>\n__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n";
    std::fs::write(root.join("src/x$(touch pwned).cu"), kernel).unwrap();
    std::fs::write(root.join("src/ok.cu"), kernel).unwrap();
    std::fs::write(root.join("src/plain.cu"), kernel).unwrap();
    // hipcc.pl runs `ar` in a shell for an argument ending in .a that names an existing file.
    std::fs::write(root.join("-Wx$(touch pwned2).a"), "!<arch>\n").unwrap();
    let db = serde_json::json!([{
        "directory": root.display().to_string(),
        "file": "src/ok.cu",
        "arguments": ["nvcc", "-Wx$(touch pwned2).a", "-fplugin=/tmp/evil.so", "-c", "src/ok.cu"]
    }]);
    std::fs::write(root.join("compile_commands.json"), db.to_string()).unwrap();
    (d, root)
}

#[test]
fn hostile_names_and_database_flags_never_reach_a_shell() {
    if !hipcc_on_path() {
        eprintln!("skipped: hipcc is not on PATH (Debian: apt-get install hipcc)");
        return;
    }
    let (d, root) = hostile_project();
    for full in [false, true] {
        let mut args = vec!["verify", ".", "--rocm", "5.2", "--format", "json", "-q"];
        if full {
            args.push("--full");
        }
        let o = Command::new(env!("CARGO_BIN_EXE_hipport"))
            .args(&args)
            .current_dir(&root)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert!(
            find_named(d.path(), "pwned").is_empty() && find_named(d.path(), "pwned2").is_empty(),
            "a payload ran: {stderr}"
        );
        assert!(
            v["compiler"].as_str().unwrap().contains("called directly"),
            "{v}"
        );
        for u in v["units"].as_array().unwrap() {
            assert_eq!(u["result"], "PASS", "{u}");
        }
        let ok = v["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["path"] == "src/ok.cu")
            .unwrap();
        let notes = ok["notes"].to_string();
        assert!(notes.contains("-fplugin=/tmp/evil.so"), "{notes}");
        if full {
            let objects: Vec<_> = std::fs::read_dir(root.join(".hipport/verify/.hipport-objects"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(objects.len(), 3, "{objects:?}");
            assert!(
                objects.iter().all(|n| n.len() == 18 && n.ends_with(".o")),
                "{objects:?}"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn a_hipcc_script_without_a_clang_gets_only_plain_words() {
    use std::os::unix::fs::PermissionsExt;
    let (d, root) = hostile_project();
    // A hipcc that is only a script: it logs its arguments (a shell would have run them).
    let bin = d.path().join("fake/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = d.path().join("hipcc.log");
    let script = format!(
        "#!/bin/sh\ncase \"$*\" in *--version*) echo 'HIP version: 5.2.0'; echo 'clang version 15.0.6'; exit 0;; esac\nprintf '%s\\n' \"$*\" >> '{}'\nfor a; do last=$a; done\ngrep -q '#error' \"$last\" && exit 1\nexit 0\n",
        log.display()
    );
    let hipcc = bin.join("hipcc");
    std::fs::write(&hipcc, script).unwrap();
    std::fs::set_permissions(&hipcc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args([
            "verify", ".", "--rocm", "5.2", "--format", "json", "-q", "--hipcc",
        ])
        .arg(&hipcc)
        .current_dir(&root)
        .env("HIP_CLANG_PATH", d.path().join("no-clang"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    if v["compiler"].as_str().unwrap().contains("called directly") {
        eprintln!(
            "skipped: a system clang compiles HIP without hipcc here: {}",
            v["compiler"]
        );
        return;
    }
    let row = |p: &str| {
        v["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["path"] == p)
            .unwrap()
            .clone()
    };
    let bad = row("src/x$(touch pwned).cu");
    assert!(
        bad["error"].as_str().unwrap().contains("not compiled"),
        "{bad}"
    );
    assert_ne!(bad["result"], "PASS");
    // The database's flag is a shell payload too: it is not a warning name, so it is dropped
    // (and listed) before any compiler sees it.
    let ok = row("src/ok.cu");
    assert!(
        ok["notes"]
            .to_string()
            .contains("dropped `-Wx$(touch pwned2).a`"),
        "{ok}"
    );
    assert_eq!(row("src/plain.cu")["result"], "PASS");
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!logged.contains("pwned"), "{logged}");
    assert!(find_named(d.path(), "pwned").is_empty());
}
