//! `hipport port` end to end on bad and awkward input: the run goes on, errors name the path,
//! bytes outside the edits survive, writes are atomic and refuse dirty git files.

use std::path::Path;
use std::process::Command;

fn hipport() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
}

fn write(p: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

#[test]
fn bad_files_are_reported_and_the_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    write(
        &d.path().join("good.cu"),
        b"void f(float *p) { cudaFree(p); }\n",
    );
    write(&d.path().join("binary.cu"), b"\x7fELF\0\0\x01cudaMalloc");
    write(&d.path().join("utf16.cu"), b"\xff\xfec\0u\0d\0a\0");
    write(&d.path().join("big.cu"), &vec![b'x'; 5000]);
    let out = hipport()
        .args(["port", "-q", "--max-file-size", "4096"])
        .arg(d.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "I/O problems exit 2 at the end");
    assert!(
        stdout.contains("+void f(float *p) { hipFree(p); }"),
        "{stdout}"
    );
    assert!(
        stderr.contains("binary.cu") && stderr.contains("binary file"),
        "{stderr}"
    );
    assert!(
        stderr.contains("utf16.cu") && stderr.contains("UTF-16"),
        "{stderr}"
    );
    assert!(
        stderr.contains("big.cu") && stderr.contains("over the limit"),
        "{stderr}"
    );
}

#[test]
fn bytes_outside_edits_survive_and_output_is_a_fixed_point() {
    let d = tempfile::tempdir().unwrap();
    let src: &[u8] = b"\xef\xbb\xbf#include <cuda_runtime.h>\r\n// caf\xe9 latin-1 \xff comment\r\n\tvoid f(int *p) {  cudaFree(p);  }   \r\nint x;";
    write(&d.path().join("a.cu"), src);
    let out = hipport()
        .args(["port", "-q", "-o", "-"])
        .arg(d.path().join("a.cu"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let expected: &[u8] = b"\xef\xbb\xbf#include <hip/hip_runtime.h>\r\n// caf\xe9 latin-1 \xff comment\r\n\tvoid f(int *p) {  hipFree(p);  }   \r\nint x;";
    assert_eq!(out.stdout, expected);
    write(&d.path().join("b.cu"), &out.stdout);
    let again = hipport()
        .args(["port", "-q", "-o", "-"])
        .arg(d.path().join("b.cu"))
        .output()
        .unwrap();
    assert_eq!(
        again.stdout, expected,
        "translating the output again changes nothing"
    );
}

#[test]
fn diff_applies_with_git_apply() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(&root.join("src/k.cu"), b"#include <cuda_runtime.h>\n__global__ void k() {}\nvoid f() { k<<<1, 1>>>(); cudaDeviceSynchronize(); }");
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    let diff = hipport()
        .args(["port", "-q", "."])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(diff.status.success());
    std::fs::write(root.join("p.diff"), &diff.stdout).unwrap();
    let applied = git(&["apply", "p.diff"]);
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let text = std::fs::read_to_string(root.join("src/k.cu")).unwrap();
    assert!(text.contains("hipDeviceSynchronize();") && !text.ends_with('\n'));
}

#[test]
fn write_is_in_place_and_refuses_dirty_files() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(root)
            .args(["-c", "user.email=t@t", "-c", "user.name=t"])
            .args(args)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    write(&root.join("a.cu"), b"void f(int *p) { cudaFree(p); }\n");
    git(&["add", "."]);
    git(&["commit", "-qm", "init"]);
    write(
        &root.join("a.cu"),
        b"void f(int *p) { cudaFree(p); } // edited\n",
    );
    let refused = hipport()
        .args(["port", "-q", "--write", "."])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--allow-dirty"));
    assert!(std::fs::read_to_string(root.join("a.cu"))
        .unwrap()
        .contains("cudaFree"));
    let ok = hipport()
        .args(["port", "-q", "--write", "--allow-dirty", "."])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(ok.status.success());
    let text = std::fs::read_to_string(root.join("a.cu")).unwrap();
    assert!(text.contains("hipFree(p);"));
    let leftovers: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".hipport-"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary or backup files");
}

#[test]
fn out_dir_holds_every_selected_file() {
    let d = tempfile::tempdir().unwrap();
    write(
        &d.path().join("in/a.cu"),
        b"void f(int *p) { cudaFree(p); }\n",
    );
    write(&d.path().join("in/sub/plain.h"), b"int g();\n");
    let out = d.path().join("out");
    let r = hipport()
        .args(["port", "-q", "--out"])
        .arg(&out)
        .arg(d.path().join("in"))
        .output()
        .unwrap();
    assert!(r.status.success());
    assert!(std::fs::read_to_string(out.join("a.cu"))
        .unwrap()
        .contains("hipFree"));
    assert_eq!(
        std::fs::read(out.join("sub/plain.h")).unwrap(),
        b"int g();\n"
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_reported_not_followed_forever() {
    let d = tempfile::tempdir().unwrap();
    write(&d.path().join("a.cu"), b"void f(int *p) { cudaFree(p); }\n");
    std::os::unix::fs::symlink(d.path(), d.path().join("loop")).unwrap();
    let r = hipport()
        .args(["port", "-q", "--follow-links"])
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr)
        .to_lowercase()
        .contains("loop"));
    assert!(String::from_utf8_lossy(&r.stdout).contains("hipFree"));
}

#[test]
fn rocm_latest_is_not_a_target() {
    let r = hipport()
        .args(["port", "--rocm", "latest", "x.cu"])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("not a specification"));
}

#[test]
fn stats_json_counts_families_and_unported() {
    let d = tempfile::tempdir().unwrap();
    write(
        &d.path().join("a.cu"),
        b"#include <cublas_v2.h>\nvoid f(cublasHandle_t h, float *p) { cublasCreate(&h); cudaFree(p); cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner); }\n",
    );
    let r = hipport()
        .args([
            "port", "-q", "--rocm", "6.2.0", "--stats", "--format", "json",
        ])
        .arg(d.path())
        .output()
        .unwrap();
    assert!(r.status.success());
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["target"]["rocm"], "6.2.0");
    let totals = &v["totals"];
    assert_eq!(totals["renamed"]["blas"], 2);
    assert_eq!(totals["renamed"]["runtime"], 1);
    assert_eq!(totals["unported"], 3);
    assert_eq!(totals["includes_rewritten"], 1);
    assert_eq!(v["files"][0]["findings"].as_array().unwrap().len(), 3);
}
