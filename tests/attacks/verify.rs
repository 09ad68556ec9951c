//! Issue 23 item 1 (a forged BUILD PASS) replayed against the binary: flags from the project
//! that make the compiler exit 0 without compiling or write outside the tree are dropped and
//! listed; a compiler that is not a HIP clang, or that accepts anything, is refused before any
//! unit counts; `--full` needs the object it asked for; evidence from another HIP release or
//! architecture is UNKNOWN for the target. Tests that need a real hipcc skip without one.

use super::*;

/// A unit that cannot compile: any PASS for it is forged.
const BAD: &str = "#include <cuda_runtime.h>\nint main( {\n";
const GOOD: &str =
    "#include <cuda_runtime.h>\n__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n";

fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("proj");
    for (name, text) in files {
        write(&root.join(name), text);
    }
    std::fs::create_dir_all(root.join(".git")).unwrap();
    (d, root)
}

fn json(r: &Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.text()))
}

fn unit<'a>(v: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    v["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["path"] == path)
        .unwrap_or_else(|| panic!("no {path} in {v}"))
}

fn record_build(root: &Path) -> String {
    std::fs::read_to_string(root.join("hipport-migration.toml")).unwrap_or_default()
}

#[test]
fn driver_only_and_file_writing_flags_from_the_database_and_config_forge_no_pass() {
    if !on_path("hipcc") {
        eprintln!("skipped: hipcc is not on PATH (CI installs Debian's hipcc)");
        return;
    }
    // db.cu gets the database's flags and the config's; cfg.cu only the config's.
    let (d, root) = project(&[("db.cu", BAD), ("cfg.cu", BAD)]);
    let cdb = d.path().join("cdb");
    let db = serde_json::json!([{
        "directory": root.display().to_string(),
        "file": "db.cu",
        "arguments": ["nvcc", "-fdriver-only", "-gen-reproducer", "-gen-cdb-fragment-path", cdb.display().to_string(), "-fmodules", "-c", "db.cu"],
    }]);
    write(&root.join("compile_commands.json"), db.to_string());
    write(
        &root.join("hipport.toml"),
        "[verify]\nextra_args = [\"-fdriver-only\", \"-gen-reproducer\", \"-fmodules\"]\n",
    );
    let r = hipport(
        &root,
        &[
            "verify", ".", "--rocm", "5.2", "--record", "--format", "json", "-q",
        ],
    );
    assert_eq!(r.code, Some(1), "{}", r.text());
    let v = json(&r);
    for name in ["db.cu", "cfg.cu"] {
        let u = unit(&v, name);
        assert_ne!(u["result"], "PASS", "forged PASS: {u}");
        let command = u["command"].as_str().unwrap();
        for gone in ["-fdriver-only", "-gen-", "-fmodules"] {
            assert!(
                !command.contains(gone),
                "`{gone}` reached the compiler: {command}"
            );
        }
    }
    let notes = unit(&v, "db.cu")["notes"].to_string();
    for named in [
        "-fdriver-only",
        "-gen-reproducer",
        "-gen-cdb-fragment-path",
        "-fmodules",
    ] {
        assert!(
            notes.contains(&format!("dropped `{named}`")),
            "{named}: {notes}"
        );
    }
    let dropped = v["dropped_flags"].to_string();
    for named in ["-fdriver-only", "-gen-reproducer", "-fmodules"] {
        assert!(
            dropped.contains(&format!("dropped `{named}`")),
            "{named}: {dropped}"
        );
        assert!(
            r.stderr.contains(&format!("dropped `{named}`")),
            "{}",
            r.stderr
        );
    }
    assert_eq!(v["summary"]["pass"], 0);
    assert_ne!(v["summary"]["status"], "PASS");
    assert_eq!(
        v["hip"], "5.2",
        "the HIP release is stored with the evidence: {v}"
    );
    let rec = record_build(&root);
    assert!(!rec.contains("status = \"PASS\""), "{rec}");
    assert!(
        !cdb.exists(),
        "-gen-cdb-fragment-path wrote outside the tree"
    );
    let g = hipport(&root, &["gate", ".", "--format", "json"]);
    let b = json(&g);
    let build = b["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "build");
    assert_ne!(build.unwrap()["status"], "PASS", "{b}");
}

#[test]
fn a_compiler_that_is_not_a_hip_clang_is_refused() {
    let (_d, root) = project(&[("bad.cu", BAD)]);
    let r = hipport(
        &root,
        &[
            "verify",
            ".",
            "--rocm",
            "5.2",
            "--record",
            "--hipcc",
            "/bin/true",
            "-q",
        ],
    );
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(
        r.stderr.contains("/bin/true is not a HIP compiler"),
        "{}",
        r.text()
    );
    assert!(!r.stdout.contains("PASS"), "{}", r.text());
    assert!(!root.join(".hipport/verify-results.json").exists());
    assert!(!record_build(&root).contains("PASS"));
}

/// A script that names itself a HIP clang, logs, and exits 0 on anything (`yes_to_all`) or on
/// anything but an `#error` file, never writing an object (`no_object`).
#[cfg(unix)]
fn fake_hipcc(dir: &Path, refuse_error_files: bool) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("fake/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let check = if refuse_error_files {
        "for a; do last=$a; done\ngrep -q '#error' \"$last\" 2>/dev/null && exit 1\n"
    } else {
        ""
    };
    let script = format!(
        "#!/bin/sh\ncase \"$*\" in *--version*) echo 'HIP version: 5.2.21153-0'; echo 'clang version 15.0.6'; exit 0;; esac\n{check}exit 0\n"
    );
    let p = bin.join("hipcc");
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// Runs verify with a fake hipcc (no HIP clang to find beside it), named by a relative path.
#[cfg(unix)]
fn verify_with(root: &Path, hipcc: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "verify", ".", "--rocm", "5.2", "--format", "json", "-q", "--record",
    ];
    args.extend(extra);
    let rel = hipcc.strip_prefix(root.parent().unwrap()).unwrap();
    let h = Path::new("..").join(rel).display().to_string();
    args.extend(["--hipcc", &h]);
    hipport(root, &args)
}

#[cfg(unix)]
#[test]
fn a_compiler_that_accepts_anything_is_refused() {
    let (d, root) = project(&[("bad.cu", BAD)]);
    let fake = fake_hipcc(d.path(), false);
    let r = verify_with(&root, &fake, &[]);
    if r.code == Some(1) && r.stdout.contains("called directly") {
        // A real clang on this machine compiles HIP without the fake: it ran the units.
        assert_ne!(unit(&json(&r), "bad.cu")["result"], "PASS", "{}", r.text());
        return;
    }
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(r.stderr.contains("not a working compiler"), "{}", r.text());
    assert!(!record_build(&root).contains("PASS"));
}

#[cfg(unix)]
#[test]
fn full_mode_needs_the_object_it_asked_for() {
    let (d, root) = project(&[("k.cu", GOOD)]);
    let fake = fake_hipcc(d.path(), true);
    let r = verify_with(&root, &fake, &["--full"]);
    let v = json(&r);
    if v["compiler"]
        .as_str()
        .unwrap_or("")
        .contains("called directly")
    {
        eprintln!(
            "skipped: a real clang compiles HIP here, not the fake: {}",
            v["compiler"]
        );
        return;
    }
    assert_eq!(r.code, Some(1), "{}", r.text());
    let u = unit(&v, "k.cu");
    assert_ne!(u["result"], "PASS", "{u}");
    assert!(
        u["error"]
            .as_str()
            .unwrap()
            .contains("did not write the object"),
        "{u}"
    );
    assert!(!record_build(&root).contains("status = \"PASS\""));
}

/// `hipcc --version` says HIP 5.x: a release that does not know gfx942.
fn hip5() -> bool {
    on_path("hipcc")
        && Command::new("hipcc")
            .args(["--offload-arch=gfx90a", "--version"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("HIP version: 5."))
}

#[test]
fn an_architecture_the_compiler_cannot_build_stops_before_any_unit() {
    if !hip5() {
        eprintln!("skipped: needs a HIP 5.x hipcc (Debian's), which does not know gfx942");
        return;
    }
    let (_d, root) = project(&[("a.cu", GOOD), ("b.cu", GOOD)]);
    let r = hipport(
        &root,
        &["verify", ".", "--offload-arch", "gfx942", "--record", "-q"],
    );
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(r.stderr.contains("cannot build for gfx942"), "{}", r.text());
    assert!(r.stderr.contains("no unit was compiled"), "{}", r.text());
    assert!(!r.text().contains("BUILD FAIL"), "{}", r.text());
}

#[test]
fn evidence_from_another_hip_release_or_architecture_is_unknown_for_the_target() {
    if !hip5() {
        eprintln!("skipped: needs a HIP 5.x hipcc (Debian's)");
        return;
    }
    let (_d, root) = project(&[("a.cu", GOOD)]);
    // The target is ROCm 6.4.1 on gfx942; this machine's hipcc is HIP 5.2 for gfx90a.
    let t = hipport(&root, tuple::MI300X_TARGET);
    assert_eq!(t.code, Some(0), "record target: {}", t.text());
    assert!(
        record_build(&root).contains("gfx942"),
        "{}",
        record_build(&root)
    );
    let r = hipport(
        &root,
        &[
            "verify",
            ".",
            "--rocm",
            "5.2",
            "--offload-arch",
            "gfx90a",
            "--format",
            "json",
            "-q",
        ],
    );
    assert_eq!(r.code, Some(0), "{}", r.text());
    let v = json(&r);
    assert_eq!(v["summary"]["status"], "PASS", "{v}");
    let why = v["target_mismatch"]
        .as_str()
        .unwrap_or_else(|| panic!("{v}"));
    assert!(why.contains("gfx942"), "{why}");
    let rec = record_build(&root);
    let build = &rec[rec.find("name = \"build\"").unwrap()..];
    let build = &build[..build.find("[gate.evidence]").unwrap_or(build.len())];
    assert!(build.contains("status = \"UNKNOWN\""), "{build}");
    let g = json(&hipport(&root, &["gate", ".", "--format", "json"]));
    let b = g["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "build")
        .unwrap();
    assert_eq!(b["status"], "UNKNOWN", "{b}");
}

#[test]
fn missing_library_and_host_headers_name_their_package() {
    if !on_path("hipcc") {
        eprintln!("skipped: hipcc is not on PATH");
        return;
    }
    let inc = |h: &str| format!("#include <{h}>\n__global__ void k() {{}}\n");
    let files: Vec<(String, String, &str)> = [
        ("omp.cu", "omp.h", "libomp-dev"),
        ("mpi.cu", "mpi.h", "libopenmpi-dev"),
        ("glew.cu", "GL/glew.h", "libglew-dev"),
        ("glfw.cu", "GLFW/glfw3.h", "libglfw3-dev"),
        ("thrust.cu", "thrust/device_vector.h", "rocthrust-dev"),
    ]
    .iter()
    .map(|(f, h, p)| (f.to_string(), inc(h), *p))
    .collect();
    let (_d, root) = project(
        &files
            .iter()
            .map(|(f, t, _)| (f.as_str(), t.as_str()))
            .collect::<Vec<_>>(),
    );
    let r = hipport(
        &root,
        &["verify", ".", "--rocm", "5.2", "--format", "json", "-q"],
    );
    let v = json(&r);
    for (f, _, pkg) in &files {
        let u = unit(&v, f);
        if u["result"] == "PASS" {
            continue; // installed here
        }
        assert_ne!(u["result"], "BUILD FAIL (other)", "{u}");
        assert!(u["hint"].as_str().unwrap_or("").contains(pkg), "{u}");
    }
}

#[test]
fn a_torch_package_in_the_project_is_never_imported() {
    if !on_path("hipcc") || !on_path("python3") {
        eprintln!("skipped: needs hipcc and python3 on PATH");
        return;
    }
    // `hipport verify .` runs in the project; python3 -c would import ./torch first.
    let payload = "open('PWNED_BY_TORCH', 'w').write('x')\n";
    let (_d, root) = project(&[
        (
            "ext.cu",
            "#include <torch/extension.h>\n__global__ void k() {}\n",
        ),
        ("torch/__init__.py", payload),
        ("torch/utils/__init__.py", payload),
        ("torch/utils/cpp_extension.py", payload),
    ]);
    let r = hipport(&root, &["verify", ".", "--rocm", "5.2", "-q"]);
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.text());
    assert!(
        !root.join("PWNED_BY_TORCH").exists(),
        "the project's torch/ ran"
    );
}

/// Issue 23 item 11: a unit whose name is not UTF-8 is not compiled under its lossy (U+FFFD)
/// spelling, which names no file; it is listed as not verified, so the build cannot PASS.
#[cfg(unix)]
#[test]
fn a_unit_with_a_non_utf8_name_is_not_verified_under_another_spelling() {
    use std::os::unix::ffi::OsStrExt;
    let (d, root) = project(&[("ok.cu", GOOD)]);
    let odd = root.join(std::ffi::OsStr::from_bytes(b"odd\xff.cu"));
    std::fs::write(&odd, GOOD).unwrap();
    let fake = fake_hipcc(d.path(), true);
    let r = verify_with(&root, &fake, &[]);
    let v = json(&r);
    let units: Vec<&str> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["path"].as_str().unwrap())
        .collect();
    assert!(
        !units.iter().any(|p| p.contains('\u{fffd}')),
        "{}",
        r.text()
    );
    let errors = v["errors"].to_string();
    assert!(errors.contains("not UTF-8"), "{}", r.text());
    assert_ne!(v["summary"]["status"], "PASS", "{}", r.text());
    assert!(
        !record_build(&root).contains("\"PASS\""),
        "{}",
        record_build(&root)
    );
}
