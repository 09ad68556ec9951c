//! A project written from `(path, text)` pairs and scanned with `scan --format json`, read back
//! as rows: the model tests share it (included with `#[path]`, as `tuple.rs` is).

// Each test binary uses the part it needs.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// `(rule, path, line, status, message)` of one finding.
pub type Row = (String, String, u64, String, String);

pub fn hipport() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
}

pub fn write(root: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Every finding of `scan --format json <root> <extra…>`.
pub fn scan_root(root: &Path, extra: &[&str]) -> Vec<Row> {
    let o = hipport()
        .args(["scan", "--format", "json"])
        .args(extra)
        .arg(root)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["status"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every finding of a scan of a fresh tree holding `files`.
pub fn scan_files(files: &[(&str, &str)], extra: &[&str]) -> Vec<Row> {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), files);
    scan_root(d.path(), extra)
}
