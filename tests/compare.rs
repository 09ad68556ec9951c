//! `hipport compare` through the binary: pass and fail against a tolerance, shape mismatches,
//! NaN counts, and errors for unreadable input.

use hipport::compare::npy;
use std::path::Path;
use std::process::{Command, Output};

fn compare(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
        .arg("compare")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn npy_within_and_outside_tolerance() {
    let d = tempfile::tempdir().unwrap();
    let base = [1.0, 2.0, 3.0, 4.0];
    std::fs::write(
        d.path().join("cuda.npy"),
        npy::write_f64(&[2, 2], &base, false),
    )
    .unwrap();
    std::fs::write(
        d.path().join("rocm.npy"),
        npy::write_f64(&[2, 2], &[1.0, 2.0, 3.0001, 4.0], true),
    )
    .unwrap();
    let o = compare(
        d.path(),
        &["cuda.npy", "rocm.npy", "--rtol", "1e-3", "--atol", "0"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(out(&o).contains("PASS"));
    let o = compare(
        d.path(),
        &[
            "cuda.npy", "rocm.npy", "--rtol", "1e-7", "--atol", "0", "--format", "json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["pass"], false);
    assert_eq!(v["mismatched"], 1);
    assert_eq!(v["worst"]["index"], serde_json::json!([1, 0]));
    assert!(v["max_abs_error"].as_f64().unwrap() > 9e-5);
}

#[test]
fn csv_and_json_shapes_and_nans() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.csv"), "1,2\n3,4\n").unwrap();
    std::fs::write(d.path().join("b.json"), "[[1,2],[3,4.000001]]").unwrap();
    std::fs::write(d.path().join("c.json"), "[1,2,3,4]").unwrap();
    std::fs::write(d.path().join("n.json"), "[[1,2],[3,null]]").unwrap();
    assert_eq!(
        compare(d.path(), &["a.csv", "b.json"]).status.code(),
        Some(0)
    );
    let o = compare(d.path(), &["a.csv", "c.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(out(&o).contains("shape mismatch"), "{}", out(&o));
    let o = compare(d.path(), &["a.csv", "n.json", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["nan_candidate"], 1);
}

#[test]
fn unreadable_input_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.csv"), "1\n").unwrap();
    std::fs::write(d.path().join("bad.npy"), "nope").unwrap();
    assert_eq!(
        compare(d.path(), &["a.csv", "missing.csv"]).status.code(),
        Some(2)
    );
    assert_eq!(
        compare(d.path(), &["a.csv", "bad.npy"]).status.code(),
        Some(2)
    );
}

#[test]
fn probe_reports_json_without_a_gpu() {
    let o = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(["probe", "--python", "/nonexistent/python3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "UNKNOWN");
    assert!(!v["missing"].as_array().unwrap().is_empty());
}
