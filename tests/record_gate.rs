//! The migration record and the gate board through the binary: `record target` rejects
//! floating and partial versions, `gate` stays NOT READY while any gate is UNKNOWN.

#[path = "common/tuple.rs"]
mod tuple;
use std::path::Path;
use std::process::{Command, Output};

fn hipport(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(args)
        .current_dir(dir)
        .env("HIPPORT_USER", "tester")
        .output()
        .expect("run hipport")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn target_with(rocm: &str) -> Vec<&str> {
    tuple::record_target(&["--rocm"], &["--rocm", rocm])
}

#[test]
fn record_target_rejects_latest_and_missing_patch() {
    let d = tempfile::tempdir().unwrap();
    assert!(hipport(d.path(), &["record", "init"]).status.success());
    let before = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    for bad in ["latest", "6.4"] {
        let o = hipport(d.path(), &target_with(bad));
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        let t = text(&o);
        assert!(t.contains("--rocm"), "{t}");
        if bad == "latest" {
            assert!(t.contains("\"latest\" is not a specification"), "{t}");
        } else {
            assert!(t.contains("missing patch version"), "{t}");
        }
    }
    let after = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    assert_eq!(
        before, after,
        "a rejected target must not change the record"
    );
    let o = hipport(d.path(), &target_with("6.4.1"));
    assert!(o.status.success(), "{}", text(&o));
    let rec = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    assert!(
        rec.contains("rocm = \"6.4.1\"") && rec.contains("gfx = \"gfx942\""),
        "{rec}"
    );
}

#[test]
fn record_target_names_each_bad_field() {
    let d = tempfile::tempdir().unwrap();
    let o = hipport(
        d.path(),
        &[
            "record",
            "target",
            "--gpu",
            "MI300X:gfx999",
            "--rocm",
            "6.4.1",
            "--os",
            "",
            "--kernel",
            "latest",
            "--python",
            "3.10.14",
            "--framework",
            "torch=2.6.0",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let t = text(&o);
    for field in ["--gpu `gfx999`", "--os ``", "--kernel `latest`"] {
        assert!(t.contains(field), "{field} not in {t}");
    }
}

#[test]
fn init_never_overwrites_and_unknown_keys_are_named() {
    let d = tempfile::tempdir().unwrap();
    assert!(hipport(d.path(), &["record", "init"]).status.success());
    let p = d.path().join("hipport-migration.toml");
    let before = std::fs::read(&p).unwrap();
    let o = hipport(d.path(), &["record", "init"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("already exists"), "{}", text(&o));
    assert_eq!(std::fs::read(&p).unwrap(), before, "left as it is");
    let mut s = std::fs::read_to_string(&p).unwrap();
    s = s.replace("[production]", "[production]\ngpu_count = 8");
    std::fs::write(&p, s).unwrap();
    let o = hipport(d.path(), &["gate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("gpu_count"), "{}", text(&o));
}

#[test]
fn gate_stays_not_ready_with_unknown_gates_after_one_pass() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("k.cu"),
        "__global__ void k(float* x) { x[0] = 1.0f; }\n",
    )
    .unwrap();
    std::fs::write(d.path().join("compare.txt"), "max abs error 0\n").unwrap();
    assert!(hipport(d.path(), &["record", "init"]).status.success());
    let o = hipport(
        d.path(),
        &[
            "record",
            "gate",
            "correctness",
            "--status",
            "PASS",
            "--evidence",
            "compare.txt",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let o = hipport(d.path(), &["gate"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("NOT READY") && !t.contains("MIGRATION READY"),
        "{t}"
    );
    assert!(t.contains("correctness  PASS"), "{t}");
    for g in [
        "baseline",
        "target",
        "build",
        "functional",
        "precision",
        "distributed",
        "operations",
        "performance",
    ] {
        assert!(
            t.contains(&format!("  - {g}: not tested")),
            "{g} not listed as not tested:\n{t}"
        );
    }
    let o = hipport(d.path(), &["gate", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "NOT READY");
    assert_eq!(v["gates"].as_array().unwrap().len(), 10);
    let o = hipport(d.path(), &["gate", "--format", "markdown"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("| correctness | **PASS** |"));
}

#[test]
fn blocker_needs_a_note_and_shows_on_the_board() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("ev.txt"), "x").unwrap();
    assert!(hipport(d.path(), &["record", "init"]).status.success());
    let o = hipport(
        d.path(),
        &[
            "record",
            "gate",
            "operations",
            "--status",
            "BLOCKER",
            "--evidence",
            "ev.txt",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = hipport(
        d.path(),
        &[
            "record",
            "gate",
            "operations",
            "--status",
            "BLOCKER",
            "--evidence",
            "ev.txt",
            "--note",
            "DCGM exporter has no AMD counterpart in our stack",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&hipport(d.path(), &["gate"]));
    assert!(t.contains("operations: BLOCKER — DCGM exporter"), "{t}");
}

#[test]
fn pip_pins_are_accepted_with_their_local_label() {
    let d = tempfile::tempdir().unwrap();
    let mut args = target_with("6.4.1");
    let i = args
        .iter()
        .position(|a| *a == "torch=2.6.0+rocm6.4.1")
        .unwrap();
    args[i] = "torch==2.6.0+rocm6.4";
    let o = hipport(d.path(), &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let rec = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    assert!(rec.contains("torch = \"2.6.0+rocm6.4\""), "{rec}");
}

#[test]
fn build_evidence_for_another_rocm_release_is_unknown() {
    let d = tempfile::tempdir().unwrap();
    assert!(hipport(d.path(), &target_with("6.4.1")).status.success());
    std::fs::create_dir_all(d.path().join(".hipport")).unwrap();
    std::fs::write(d.path().join(".hipport/verify-results.json"), "{}").unwrap();
    let p = d.path().join("hipport-migration.toml");
    // A BUILD row as verify writes it, from a HIP 5.2 compiler.
    let mut v: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let build = v["gate"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|g| g["name"].as_str() == Some("build"))
        .unwrap();
    let row: toml::Value = toml::from_str(
        "name = \"build\"\nstatus = \"PASS\"\ndate = \"2026-11-30\"\nrecorded_by = \"hipport verify\"\n[evidence]\npath = \".hipport/verify-results.json\"\n[details]\nrocm = \"5.2\"\nhip = \"5.2\"\n",
    )
    .unwrap();
    *build = row;
    let rec = toml::to_string(&v).unwrap();
    std::fs::write(&p, rec).unwrap();
    let o = hipport(d.path(), &["gate", ".", "--format", "json"]);
    let b: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", text(&o)));
    let build = b["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "build")
        .unwrap()
        .clone();
    assert_eq!(build["status"], "UNKNOWN", "{build}");
    assert!(
        build["reason"]
            .as_str()
            .unwrap()
            .contains("evidence for 5.2, target 6.4.1"),
        "{build}"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_record_or_baseline_is_reported_not_read() {
    let d = tempfile::tempdir().unwrap();
    for name in ["hipport-migration.toml", "hipport-baseline.json"] {
        let ok = Command::new("mkfifo")
            .arg(d.path().join(name))
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }
    std::fs::write(d.path().join("k.cu"), "__global__ void k() {}\n").unwrap();
    for args in [
        vec!["gate", "."],
        vec!["check", "."],
        vec!["record", "init"],
        vec!["verify", ".", "--hipcc", "/nonexistent"],
    ] {
        let start = std::time::Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_hipport"))
            .args(&args)
            .current_dir(d.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if start.elapsed().as_secs() > 20 {
                child.kill().unwrap();
                panic!("{args:?} hangs on a FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("FIFO"), "{args:?}: {}", text(&o));
    }
}

fn gate_json(dir: &Path) -> serde_json::Value {
    let o = hipport(dir, &["gate", "--format", "json"]);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)))
}

fn gate_row(v: &serde_json::Value, name: &str) -> serde_json::Value {
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == name)
        .unwrap()
        .clone()
}

#[test]
fn evidence_is_a_file_in_the_project_never_a_command_line() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("p");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(d.path().join("outside.txt"), "x").unwrap();
    std::fs::write(root.join("ev.txt"), "ran").unwrap();
    assert!(hipport(&root, &["record", "init"]).status.success());
    let before = std::fs::read_to_string(root.join("hipport-migration.toml")).unwrap();
    let set = |ev: &str| {
        hipport(
            &root,
            &[
                "record",
                "gate",
                "correctness",
                "--status",
                "PASS",
                "--evidence",
                ev,
            ],
        )
    };
    let o = set("hipport compare a.npy b.npy");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("a command is not evidence"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("hipport compare A B --record"),
        "{}",
        text(&o)
    );
    let o = set("../outside.txt");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("outside the project"), "{}", text(&o));
    assert!(!text(&o).contains("x\n"), "never the file's contents");
    assert_eq!(
        std::fs::read_to_string(root.join("hipport-migration.toml")).unwrap(),
        before,
        "nothing written"
    );
    let o = set("ev.txt");
    assert!(o.status.success(), "{}", text(&o));
    let c = gate_row(&gate_json(&root), "correctness");
    assert_eq!(c["status"], "PASS");
    assert_eq!(c["source"], "person", "a gate a person set says so");
    assert!(
        c["reason"].as_str().unwrap().contains("set by tester"),
        "{c}"
    );
}

#[test]
fn derived_gates_refuse_a_recorded_pass_and_an_old_one_is_said_not_used() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("bench.json"), "{}").unwrap();
    assert!(hipport(root, &["record", "init"]).status.success());
    for gate in ["performance", "build", "functional", "inventory"] {
        let o = hipport(
            root,
            &[
                "record",
                "gate",
                gate,
                "--status",
                "PASS",
                "--evidence",
                "bench.json",
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{gate}: {}", text(&o));
        assert!(
            text(&o).contains(&format!("the {gate} gate comes from")),
            "{}",
            text(&o)
        );
    }
    assert!(text(&hipport(
        root,
        &[
            "record",
            "gate",
            "performance",
            "--status",
            "PASS",
            "--evidence",
            "bench.json"
        ],
    ))
    .contains("hipport record perf"));
    // A person's BLOCKER is still theirs to set, and wins.
    let o = hipport(
        root,
        &[
            "record",
            "gate",
            "performance",
            "--status",
            "BLOCKER",
            "--evidence",
            "bench.json",
            "--note",
            "no MI300X quota this quarter",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let p = gate_row(&gate_json(root), "performance");
    assert_eq!(p["status"], "BLOCKER");
    assert_eq!(p["source"], "person");
    // A record written before the rule (by hand or an older hipport) with a PASS row for a
    // derived gate: the board does not show it, and says so.
    let rec = root.join("hipport-migration.toml");
    let t = std::fs::read_to_string(&rec).unwrap().replace(
        "name = \"functional\"\nstatus = \"UNKNOWN\"",
        "name = \"functional\"\nstatus = \"PASS\"",
    );
    assert!(
        t.contains("name = \"functional\"\nstatus = \"PASS\""),
        "{t}"
    );
    std::fs::write(&rec, t).unwrap();
    let v = gate_json(root);
    assert_eq!(gate_row(&v, "functional")["status"], "UNKNOWN");
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("functional: the PASS recorded in the record (set by tester) is not used"),
        "{notes}"
    );
}

#[test]
fn compare_record_writes_the_correctness_gate_with_the_numbers() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("a.csv"), "x,y\n1,2\n3,4\n").unwrap();
    std::fs::write(root.join("b.csv"), "x,y\n1,2\n3,5\n").unwrap();
    let o = hipport(root, &["compare", "a.csv", "b.csv", "--record"]);
    assert_eq!(o.status.code(), Some(1), "outside tolerance: {}", text(&o));
    let c = gate_row(&gate_json(root), "correctness");
    assert_eq!(c["status"], "REMEDIATION", "{c}");
    assert_eq!(c["source"], "compare");
    let why = c["reason"].as_str().unwrap();
    assert!(
        why.contains("compare FAIL: a.csv vs b.csv: 1 of 4 element(s) outside"),
        "{why}"
    );
    assert!(
        c["evidence"].as_str().unwrap().contains("b.csv (sha256 "),
        "{c}"
    );
    std::fs::write(root.join("b.csv"), "x,y\n1,2\n3,4\n").unwrap();
    let o = hipport(root, &["compare", "a.csv", "b.csv", "--record"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("correctness gate PASS recorded"),
        "{}",
        text(&o)
    );
    assert_eq!(gate_row(&gate_json(root), "correctness")["status"], "PASS");
    // Files outside the project cannot be named by the record: refused before comparing.
    let o = hipport(root, &["compare", "/dev/null", "b.csv", "--record"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn record_target_without_kernel_or_driver_then_adds_them() {
    let d = tempfile::tempdir().unwrap();
    let no_kernel: Vec<&str> = target_with("6.4.1")
        .into_iter()
        .filter(|a| *a != "--kernel" && *a != "5.15.0-119-generic")
        .collect();
    let o = hipport(d.path(), &no_kernel);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("kernel UNKNOWN, driver UNKNOWN"),
        "{}",
        text(&o)
    );
    let help = text(&hipport(d.path(), &["record", "target", "--help"]));
    assert!(!help.contains("[default: \"\"]"), "{help}");
    // Later, on the machine: only the new facts, the rest kept.
    let o = hipport(
        d.path(),
        &[
            "record",
            "target",
            "--kernel",
            "6.8.0-45-generic",
            "--driver",
            "6.8.5",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let rec = std::fs::read_to_string(d.path().join("hipport-migration.toml")).unwrap();
    for want in [
        "kernel = \"6.8.0-45-generic\"",
        "driver = \"6.8.5\"",
        "gfx = \"gfx942\"",
        "rocm = \"6.4.1\"",
    ] {
        assert!(rec.contains(want), "{want}: {rec}");
    }
}
