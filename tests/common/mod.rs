//! Helpers shared by the integration tests: temporary copies of fixture trees and running the
//! `hipport` binary on them.
#![allow(dead_code)]

pub mod tuple;

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `hipport` with `args` in `cwd`, without `$GITHUB_STEP_SUMMARY` from the environment.
pub fn hipport(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(args)
        .current_dir(cwd)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("run hipport");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

/// A temporary copy of `testdata/<name>`; the tree is at `<dir>/tree`.
pub fn copy_fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let dst = dir.path().join("tree");
    // A `.git` marker stops the upward search for hipport.toml at the copy.
    copy_dir(&fixture(name), &dst);
    std::fs::create_dir_all(dst.join(".git")).unwrap();
    (dir, dst)
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

pub fn write(p: &Path, text: &str) {
    std::fs::write(p, text).unwrap()
}

/// Every finding of `scan --format json` on a fresh project holding `files` (relative path,
/// text; folders made as needed, a `.git` marker at the root).
pub fn scan_files(files: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        write(&p, text);
    }
    let r = hipport(root, &["scan", ".", "--format", "json", "--exit-zero"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    json["findings"].as_array().unwrap().clone()
}

/// Violations of the official SARIF 2.1.0 schema (`testdata/sarif`), empty when valid.
pub fn schema_errors(doc: &serde_json::Value) -> Vec<String> {
    let text = std::fs::read_to_string(fixture("sarif/sarif-schema-2.1.0.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}
