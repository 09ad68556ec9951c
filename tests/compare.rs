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

/// Issue 22: an interpreter that does not exist is a bad path (exit 2, named), not a report.
#[test]
fn probe_with_a_missing_python_is_an_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(["probe", "--python", "/nonexistent/python3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/python3"));
}

#[test]
fn csv_columns_are_matched_by_name() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("cuda.csv"),
        "step,loss,lr\n1,2.5,0.1\n2,2.25,0.1\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("rocm.csv"),
        "lr,step,loss\n0.1,1,2.5\n0.1,2,2.25\n",
    )
    .unwrap();
    let o = compare(d.path(), &["cuda.csv", "rocm.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(out(&o).contains("PASS"), "{}", out(&o));
    // A changed value is reported under its column's name.
    std::fs::write(
        d.path().join("off.csv"),
        "lr,step,loss\n0.1,1,2.5\n0.1,2,9\n",
    )
    .unwrap();
    let o = compare(d.path(), &["cuda.csv", "off.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("worst at `loss` [1, 1]"), "{}", out(&o));
    // Missing and extra columns are named.
    std::fs::write(
        d.path().join("other.csv"),
        "step,loss,wd\n1,2.5,0\n2,2.25,0\n",
    )
    .unwrap();
    let o = compare(d.path(), &["cuda.csv", "other.csv", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["missing"], serde_json::json!(["lr"]));
    assert_eq!(v["extra"], serde_json::json!(["wd"]));
    assert_eq!(v["shape_match"], false);
    let o = compare(d.path(), &["cuda.csv", "other.csv"]);
    assert!(
        out(&o).contains("missing from the candidate: lr"),
        "{}",
        out(&o)
    );
    assert!(out(&o).contains("only in the candidate: wd"), "{}", out(&o));
}

#[test]
fn fortran_order_npy_equals_the_c_order_one() {
    let d = tempfile::tempdir().unwrap();
    // [[1, 2, 3], [4, 5, 6]] in C order, and the same array stored column by column.
    std::fs::write(
        d.path().join("c.npy"),
        npy::write_f64(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], false),
    )
    .unwrap();
    std::fs::write(
        d.path().join("f.npy"),
        npy::write(
            &[2, 3],
            &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
            true,
            npyz::Order::Fortran,
        ),
    )
    .unwrap();
    let o = compare(d.path(), &["c.npy", "f.npy"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(out(&o).contains("shape [2, 3], 6 elements"), "{}", out(&o));
    // Read as if it were C order, the same bytes would differ: the order is honoured.
    std::fs::write(
        d.path().join("fc.npy"),
        npy::write_f64(&[2, 3], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0], false),
    )
    .unwrap();
    assert_eq!(
        compare(d.path(), &["c.npy", "fc.npy"]).status.code(),
        Some(1)
    );
}

#[test]
fn json_objects_are_compared_by_key_path() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("cuda.json"),
        r#"{"model": "gpt2", "loss": 1.25, "metrics": {"acc": [0.5, 0.75], "ppl": 3.5}}"#,
    )
    .unwrap();
    std::fs::write(
        d.path().join("rocm.json"),
        r#"{"metrics": {"ppl": 3.5, "acc": [0.5, 0.75]}, "loss": 1.25, "model": "gpt2-rocm"}"#,
    )
    .unwrap();
    let o = compare(d.path(), &["cuda.json", "rocm.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    std::fs::write(
        d.path().join("off.json"),
        r#"{"metrics": {"ppl": 3.5, "acc": [0.5, 0.8]}, "loss": 1.25}"#,
    )
    .unwrap();
    let o = compare(d.path(), &["cuda.json", "off.json", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["worst"]["name"], "metrics.acc");
    assert_eq!(v["worst"]["index"], serde_json::json!([1]));
    std::fs::write(
        d.path().join("less.json"),
        r#"{"loss": 1.25, "metrics": {"acc": [0.5, 0.75, 1]}}"#,
    )
    .unwrap();
    let o = compare(d.path(), &["cuda.json", "less.json", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["missing"], serde_json::json!(["metrics.ppl"]));
    assert_eq!(v["shape_differs"], serde_json::json!(["metrics.acc"]));
}

#[test]
fn dtypes_of_both_sides_are_shown() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.npy"),
        npy::write_f64(&[2], &[1.0, 2.0], false),
    )
    .unwrap();
    std::fs::write(
        d.path().join("b.npy"),
        npy::write_f64(&[2], &[1.0, 2.0], true),
    )
    .unwrap();
    std::fs::write(d.path().join("c.csv"), "1\n2\n").unwrap();
    let o = compare(d.path(), &["a.npy", "b.npy"]);
    assert!(
        out(&o).contains("dtype: baseline float64, candidate float32"),
        "{}",
        out(&o)
    );
    let o = compare(d.path(), &["a.npy", "c.csv", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(
        (v["dtype_baseline"].as_str(), v["dtype_candidate"].as_str()),
        (Some("float64"), Some("csv text"))
    );
}
