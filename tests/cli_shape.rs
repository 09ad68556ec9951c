//! The command line shaped like ruff's and cargo's (issue 22): paths a terminal here can open,
//! several roots kept apart, exit codes by status (`--fail-on`, `--exit-zero`), exit 2 for a
//! PATH that does not exist, PATH defaulting to `.`, `-o/--output`, `--output-format`, the
//! concise format, `-q/-v`, `--color`, `--select/--ignore`, and `port --annotate` honouring the
//! project's rule levels and suppressions. Every test runs the binary.

mod common;

use common::{hipport, read, Run};
use std::path::{Path, PathBuf};

/// One unported runtime call (HP001) and one inline PTX statement (HP201), both REMEDIATION.
const KERNEL: &str = "#include <cuda_runtime.h>\nvoid f() { cudaCtxResetPersistingL2Cache(); }\n__device__ unsigned lane() {\n  unsigned r;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n  return r;\n}\n__global__ void k(unsigned* o) { o[0] = lane(); }\n";

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `<tmp>/proj` holding `main.cu`, a `.git` marker so no hipport.toml above is read.
fn project() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let proj = d.path().join("proj");
    write(&proj.join("main.cu"), KERNEL);
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    std::fs::create_dir_all(d.path().join(".git")).unwrap();
    (d, proj)
}

fn show(r: &Run) -> String {
    format!("exit {}\n{}{}", r.code, r.stdout, r.stderr)
}

#[test]
fn paths_are_relative_to_the_current_directory_in_text_and_concise() {
    let (d, _) = project();
    let other = d.path().join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    let r = hipport(&other, &["scan", "../proj", "--format", "concise"]);
    // Lines are in harm order (render::order), each with the cwd-relative path.
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("../proj/main.cu:2:12: REMEDIATION HP001 ")),
        "{}",
        show(&r)
    );
    assert!(r.stdout.contains("../proj/main.cu:5:3: REMEDIATION HP201 "));
    let r = hipport(&other, &["port", "../proj"]);
    assert!(
        r.stderr.contains("../proj/main.cu:2:12: HP001"),
        "{}",
        show(&r)
    );
    assert!(r.stdout.contains("diff --git a/main.cu b/main.cu"));
    let r = hipport(&other, &["scan", "../proj"]);
    assert!(r.stdout.contains("── ../proj/main.cu ──"), "{}", show(&r));
    assert!(r.stdout.contains("┌─ ../proj/main.cu:2:12"), "{}", show(&r));
    // JSON keeps the root-relative name (fingerprints and baselines do not move with the cwd).
    let r = hipport(&other, &["scan", "../proj", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["findings"][0]["path"], "main.cu", "{}", r.stdout);
}

#[test]
fn a_baseline_written_in_the_project_holds_from_another_directory() {
    let (d, proj) = project();
    let w = hipport(&proj, &["check", "--update-baseline"]);
    assert_eq!(w.code, 0, "{}", show(&w));
    let r = hipport(d.path(), &["check", "proj"]);
    assert_eq!(r.code, 0, "{}", show(&r));
    assert!(r.stdout.contains("0 new"), "{}", show(&r));
    write(
        &proj.join("more.cu"),
        "#include <cuda_runtime.h>\nvoid g() { cudaCtxResetPersistingL2Cache(); }\n",
    );
    let r = hipport(d.path(), &["check", "proj", "--format", "concise"]);
    assert_eq!(r.code, 1, "{}", show(&r));
    assert!(r.stdout.contains("proj/more.cu:2:12: REMEDIATION HP001"));
}

#[test]
fn several_roots_with_the_same_file_name_stay_apart() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".git")).unwrap();
    write(&d.path().join("two/a/main.cu"), KERNEL);
    write(&d.path().join("two/b/main.cu"), KERNEL);
    let r = hipport(d.path(), &["scan", "two/a", "two/b", "--format", "concise"]);
    // The same un-ported API in both roots is one decision, held by the first and naming both.
    assert!(r.stdout.contains("two/a/main.cu:2:12: REMEDIATION HP001"));
    assert!(
        r.stdout
            .contains("first at `two/a/main.cu:2`, `two/b/main.cu:2`"),
        "{}",
        show(&r)
    );
    assert!(
        r.stdout.contains("4 finding(s) in 2 of 2 file(s)"),
        "{}",
        show(&r)
    );
    let r = hipport(d.path(), &["scan", "two/a", "two/b", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let mut paths: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    paths.dedup();
    assert_eq!(paths, ["two/a/main.cu", "two/b/main.cu"]);
    assert_eq!(v["summary"]["files_scanned"], 2);
    assert_eq!(v["summary"]["files_with_findings"], 2);
    let r = hipport(d.path(), &["port", "two/a", "two/b", "-q"]);
    let heads: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("diff --git"))
        .collect();
    assert_eq!(
        heads,
        [
            "diff --git a/two/a/main.cu b/two/a/main.cu",
            "diff --git a/two/b/main.cu b/two/b/main.cu"
        ],
        "{}",
        show(&r)
    );
}

/// `port --out DIR` writes each file under its name relative to its root: two roots holding the
/// same name are refused (exit 2, both inputs named, nothing written); two roots whose names
/// differ are written side by side (the negative twin).
#[test]
fn port_out_refuses_two_roots_that_would_write_one_name() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".git")).unwrap();
    write(&d.path().join("two/a/main.cu"), KERNEL);
    write(&d.path().join("two/b/main.cu"), KERNEL);
    write(&d.path().join("two/c/other.cu"), KERNEL);
    let r = hipport(
        d.path(),
        &["port", "two/a", "two/b", "--out", "ported", "-q"],
    );
    assert_eq!(r.code, 2, "{}", show(&r));
    assert!(
        r.stderr
            .contains("two/a/main.cu and two/b/main.cu would both be written as main.cu"),
        "{}",
        show(&r)
    );
    assert!(!d.path().join("ported/main.cu").exists(), "nothing written");
    let r = hipport(
        d.path(),
        &["port", "two/a", "two/c", "--out", "ported", "-q"],
    );
    assert_eq!(r.code, 0, "{}", show(&r));
    assert!(read(&d.path().join("ported/main.cu")).contains("hip"));
    assert!(read(&d.path().join("ported/other.cu")).contains("hip"));
}

#[test]
fn scan_exits_by_status_as_ruff() {
    let (_d, proj) = project();
    // REMEDIATION only: exit 0 by default (the threshold is BLOCKER).
    let r = hipport(&proj, &["scan"]);
    assert_eq!(r.code, 0, "{}", show(&r));
    let r = hipport(&proj, &["scan", "--fail-on", "remediation"]);
    assert_eq!(r.code, 1, "{}", show(&r));
    let r = hipport(&proj, &["scan", "--fail-on", "unknown"]);
    assert_eq!(r.code, 1, "{}", show(&r));
    let r = hipport(&proj, &["scan", "--fail-on", "remediation", "--exit-zero"]);
    assert_eq!(r.code, 0, "{}", show(&r));
    // A BLOCKER (a person's decision in hipport.toml) never exits 0 by default.
    write(
        &proj.join("hipport.toml"),
        "[[accept]]\nrule = \"HP001\"\npath = \"main.cu\"\nstatus = \"BLOCKER\"\nreason = \"needs a design change\"\n",
    );
    let r = hipport(&proj, &["scan", "--format", "concise"]);
    assert_eq!(r.code, 1, "{}", show(&r));
    assert!(r.stdout.contains("main.cu:2:12: BLOCKER HP001"));
    let r = hipport(&proj, &["scan", "--fail-on", "never"]);
    assert_eq!(r.code, 0, "{}", show(&r));
    let r = hipport(&proj, &["scan", "--exit-zero"]);
    assert_eq!(r.code, 0, "{}", show(&r));
}

#[test]
fn a_path_that_does_not_exist_exits_2_naming_it_for_every_command() {
    let (_d, proj) = project();
    for cmd in ["scan", "check", "port", "verify", "gate", "report"] {
        let r = hipport(&proj, &[cmd, "no-such-dir"]);
        assert_eq!(r.code, 2, "{cmd}: {}", show(&r));
        assert!(r.stderr.contains("no-such-dir"), "{cmd}: {}", show(&r));
        assert!(r.stdout.is_empty(), "{cmd}: {}", show(&r));
    }
}

#[test]
fn path_defaults_to_the_current_directory() {
    let (_d, proj) = project();
    for args in [
        &["scan", "--format", "concise"][..],
        &["port", "-q"][..],
        &["check", "--update-baseline"][..],
    ] {
        let r = hipport(&proj, args);
        assert_eq!(r.code, 0, "{args:?}: {}", show(&r));
        assert!(
            r.stdout.contains("main.cu") || r.stderr.contains("wrote ./hipport-baseline.json"),
            "{args:?}: {}",
            show(&r)
        );
    }
    assert!(proj.join("hipport-baseline.json").is_file());
    let r = hipport(&proj, &["check"]);
    assert_eq!(r.code, 0, "{}", show(&r));
}

#[test]
fn output_file_format_alias_and_quiet_verbose() {
    let (_d, proj) = project();
    let r = hipport(
        &proj,
        &["scan", "--output-format", "json", "-o", "out/report.json"],
    );
    // `out/` does not exist: the write fails, exit 2.
    assert_eq!(r.code, 2, "{}", show(&r));
    std::fs::create_dir_all(proj.join("out")).unwrap();
    let r = hipport(
        &proj,
        &["scan", "--output-format", "json", "-o", "out/report.json"],
    );
    assert_eq!(r.code, 0, "{}", show(&r));
    assert!(r.stdout.is_empty(), "{}", show(&r));
    let v: serde_json::Value = serde_json::from_str(&read(&proj.join("out/report.json"))).unwrap();
    assert_eq!(v["summary"]["files_scanned"], 1);
    let r = hipport(&proj, &["check", "--update-baseline"]);
    assert_eq!(r.code, 0, "{}", show(&r));
    let r = hipport(&proj, &["check", "--output", "out/check.txt"]);
    assert_eq!(r.code, 0, "{}", show(&r));
    assert!(read(&proj.join("out/check.txt")).contains("0 new"));
    // -q: port prints no finding lines on stderr; -v names the settings in effect.
    let loud = hipport(&proj, &["port"]);
    assert!(loud.stderr.contains("HP001"), "{}", show(&loud));
    let quiet = hipport(&proj, &["port", "-q"]);
    assert!(!quiet.stderr.contains("HP001"), "{}", show(&quiet));
    assert_eq!(quiet.stdout, loud.stdout);
    let v = hipport(&proj, &["-v", "scan"]);
    assert!(v.stderr.contains("hipport: target ROCm"), "{}", show(&v));
    for cmd in [
        "scan", "check", "port", "verify", "gate", "report", "explain",
    ] {
        for flag in ["-q", "-v", "--color=never"] {
            let r = hipport(&proj, &[cmd, flag, "--help"]);
            assert_eq!(r.code, 0, "{cmd} {flag}: {}", show(&r));
        }
    }
    let r = hipport(&proj, &["scan", "-q", "-v"]);
    assert_eq!(r.code, 2, "{}", show(&r));
}

#[test]
fn colour_follows_the_color_flag() {
    let (_d, proj) = project();
    let r = hipport(&proj, &["port", "-q", "--color", "always"]);
    assert!(
        r.stdout
            .contains("\x1b[31m-#include <cuda_runtime.h>\x1b[0m"),
        "{}",
        show(&r)
    );
    assert!(r
        .stdout
        .contains("\x1b[32m+#include <hip/hip_runtime.h>\x1b[0m"));
    // Not a terminal: no colour by default, nor with --color never.
    for args in [&["port", "-q"][..], &["port", "-q", "--color", "never"][..]] {
        let r = hipport(&proj, args);
        assert!(r.stdout.contains("-#include <cuda_runtime.h>"));
        assert!(!r.stdout.contains('\x1b'), "{args:?}: {}", show(&r));
    }
    let r = hipport(&proj, &["scan", "--color", "always"]);
    assert!(r.stdout.contains('\x1b'), "{}", show(&r));
    let r = hipport(&proj, &["scan", "--color", "always", "--format", "json"]);
    assert!(!r.stdout.contains('\x1b'), "{}", show(&r));
}

#[test]
fn select_and_ignore_rules_on_the_command_line() {
    let (_d, proj) = project();
    let r = hipport(&proj, &["scan", "--format", "concise", "--ignore", "HP201"]);
    assert!(r.stdout.contains("HP001"), "{}", show(&r));
    assert!(!r.stdout.contains("HP201"), "{}", show(&r));
    let r = hipport(
        &proj,
        &["scan", "--format", "concise", "--select", "inline-ptx"],
    );
    assert!(r.stdout.contains("HP201"), "{}", show(&r));
    assert!(!r.stdout.contains("HP001"), "{}", show(&r));
    let r = hipport(&proj, &["scan", "--ignore", "HP999"]);
    assert_eq!(r.code, 2, "{}", show(&r));
    assert!(r.stderr.contains("--ignore HP999"), "{}", show(&r));
    // check applies them too: an ignored rule's new finding does not fail it.
    let r = hipport(&proj, &["check", "--update-baseline"]);
    assert_eq!(r.code, 0, "{}", show(&r));
    write(
        &proj.join("more.cu"),
        "#include <cuda_runtime.h>\nvoid g() { cudaCtxResetPersistingL2Cache(); }\n",
    );
    assert_eq!(hipport(&proj, &["check"]).code, 1);
    let r = hipport(&proj, &["check", "--ignore", "HP001"]);
    assert_eq!(r.code, 0, "{}", show(&r));
}

#[test]
fn annotate_honours_rule_levels_suppressions_and_ignore() {
    let (_d, proj) = project();
    let note = |r: &Run, code: &str| r.stdout.contains(&format!("// hipport {code} ["));
    let r = hipport(&proj, &["port", "--annotate", "-q"]);
    assert!(note(&r, "HP001") && note(&r, "HP201"), "{}", show(&r));
    let r = hipport(&proj, &["port", "--annotate", "-q", "--ignore", "HP201"]);
    assert!(note(&r, "HP001") && !note(&r, "HP201"), "{}", show(&r));
    write(&proj.join("hipport.toml"), "[rules]\nHP201 = \"off\"\n");
    let r = hipport(&proj, &["port", "--annotate", "-q"]);
    assert!(note(&r, "HP001") && !note(&r, "HP201"), "{}", show(&r));
    write(
        &proj.join("main.cu"),
        &KERNEL.replace("void f()", "// hipport: allow(HP001) reviewed\nvoid f()"),
    );
    let r = hipport(&proj, &["port", "--annotate", "-q"]);
    assert!(!note(&r, "HP001") && !note(&r, "HP201"), "{}", show(&r));
    let r = hipport(&proj, &["port", "--annotate", "-q", "--no-config"]);
    assert!(!note(&r, "HP001") && note(&r, "HP201"), "{}", show(&r));
}
