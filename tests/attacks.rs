//! Issue 12's attacks replayed against the built binary, each asserting the safe outcome.
//!
//! The reproducers of points 1, 2, 4, 5 and 6 that other test files already replay end to end
//! (kept there, not duplicated here):
//! - `tests/verify_hipcc.rs`: source names with `$(touch …)` and a `-Wx$(touch …).a` database
//!   flag with a file of that name, `verify` and `verify --full`, with hipcc's clang called
//!   directly and with only a `hipcc` script (names and flags refused); hashed object names.
//! - `tests/safe_writes.rs`: `-o` onto a symlink, a FIFO, a read-only file and the input
//!   (`-o a.cu a.cu`); a FIFO named as an input; `--out SRC SRC` and `--out` inside an input;
//!   `--follow-links --write` through a directory symlink out of the tree; a committed
//!   `.hipport` symlink; untracked, ignored and non-git files without `--allow-dirty` /
//!   `--allow-no-vcs`; non-UTF-8 names under `--out`; SIGTERM during `--write`.
//! - `tests/record_gate.rs`: FIFOs named `hipport-migration.toml` and `hipport-baseline.json`
//!   for `gate`, `check`, `record` and `verify` (no hang, exit 2 naming the FIFO).
//! - `tests/check.rs`: `check --update-baseline` with a failed file writes nothing.
//! - `tests/interrupts.rs`: SIGINT/SIGTERM at varied moments of `--write` and `--out`, and the
//!   temporary files a SIGKILL leaves.
//!
//! This file replays the rest: every dangerous `compile_commands.json` and `[verify]` flag of
//! point 1 in verify's default mode (no GPU needed), nothing from outside the root copied into
//! the verify tree, `.hipport/verify` and `.hipport/verify-results.json` as symlinks, `-o` onto
//! a device and onto a `/dev/stdout`-like link, a committed `hipport-baseline.json` or
//! `hipport-migration.toml` link out of the project, explicitly named devices and FIFOs for
//! `scan`/`check`/`port`, `#if \377=`, malformed `.npy` files and `compare /dev/zero`, a
//! person's BLOCKER followed by a PASS row for the same gate, and `--write` on a file with
//! another owner (kept, as root) or another hard link (split, and said).

// Issue 23's attacks, one file per concern (each replays its items against the binary).
#[path = "attacks/io.rs"]
mod io;
#[path = "attacks/perf.rs"]
mod perf;
#[path = "attacks/rerun.rs"]
mod rerun;
#[path = "attacks/scale.rs"]
mod scale;
#[path = "common/tuple.rs"]
mod tuple;
#[path = "attacks/verify.rs"]
mod verify;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn text(&self) -> String {
        format!("exit {:?}\n{}{}", self.code, self.stdout, self.stderr)
    }
}

/// Runs hipport in `dir`, killed after `limit` (a hang fails the test with the command).
fn run_limited(dir: &Path, args: &[&str], limit: Duration) -> Run {
    let out = tempfile::NamedTempFile::new().unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .stdout(out.reopen().unwrap())
        .stderr(err.reopen().unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("hipport {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        code: status.code(),
        stdout: std::fs::read_to_string(out.path()).unwrap_or_default(),
        stderr: String::from_utf8_lossy(&std::fs::read(err.path()).unwrap()).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked") && run.code != Some(101),
        "hipport {args:?} panicked: {}",
        run.text()
    );
    run
}

fn hipport(dir: &Path, args: &[&str]) -> Run {
    run_limited(dir, args, Duration::from_secs(120))
}

fn write(p: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false)
}

/// Every file under `dir` (symlinks not followed).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let t = e.file_type().unwrap();
        if t.is_dir() {
            out.extend(files_under(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

/// A project whose `compile_commands.json` and `[verify]` carry every dangerous flag of issue
/// 12 point 1 next to one the unit needs (`-DOK=1`: the unit does not compile without it).
fn flagged_project(outside: &Path) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("proj");
    write(
        &root.join("src/ok.cu"),
        "#include <cuda_runtime.h>\n#if OK != 1\n#error the allowed define did not arrive\n#endif\n__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n",
    );
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let trace = outside.join("trace.json");
    let args = [
        "nvcc",
        "-Xclang",
        "-load",
        "-Xclang",
        "/tmp/hipport-evil.so",
        "-B/tmp/hipport-evil-bin",
        &format!("-ftime-trace={}", trace.display()),
        "-save-temps",
        "-include",
        "/etc/passwd",
        "-isystem",
        "/etc",
        "-I/etc",
        "-fplugin=/tmp/hipport-evil.so",
        "-Wl,-rpath,/tmp",
        "-mllvm",
        "-unroll-threshold=100",
        "-DOK=1",
        "-c",
        "src/ok.cu",
    ];
    let db = serde_json::json!([{
        "directory": root.display().to_string(),
        "file": "src/ok.cu",
        "arguments": args,
    }]);
    write(&root.join("compile_commands.json"), db.to_string());
    write(
        &root.join("hipport.toml"),
        format!(
            "[verify]\nextra_args = [\"-fplugin=/tmp/hipport-evil.so\", \"-B/tmp/x\", \"-ftime-trace={}\", \"-save-temps=obj\", \"-Xclang\", \"-load\"]\n",
            outside.join("t2.json").display()
        ),
    );
    (d, root)
}

#[test]
fn verify_passes_only_allowed_flags_from_the_database_and_the_config() {
    if !on_path("hipcc") {
        eprintln!("skipped: hipcc is not on PATH (CI installs Debian's hipcc)");
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let (_d, root) = flagged_project(outside.path());
    // The default mode (-fsyntax-only) needs no GPU.
    let r = hipport(&root, &["verify", ".", "--rocm", "5.2", "--format", "json"]);
    assert_eq!(r.code, Some(0), "{}", r.text());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let unit = &v["units"][0];
    assert_eq!(unit["result"], "PASS", "-DOK=1 must arrive: {unit}");
    let command = unit["command"].as_str().unwrap();
    assert!(command.contains("-DOK=1"), "{command}");
    for gone in [
        "-Xclang",
        "-load",
        "hipport-evil",
        "-B",
        "-ftime-trace",
        "-save-temps",
        "/etc",
        "-fplugin",
        "-Wl,",
        "-unroll-threshold",
    ] {
        assert!(
            !command.contains(gone),
            "`{gone}` reached the compiler: {command}"
        );
    }
    let notes = unit["notes"].to_string();
    for named in [
        "-Xclang",
        "-B/tmp/hipport-evil-bin",
        "-ftime-trace=",
        "-save-temps",
        "-include /etc/passwd",
        "-isystem /etc",
        "-I /etc",
        "-fplugin=/tmp/hipport-evil.so",
        "-Wl,-rpath,/tmp",
        "-mllvm",
    ] {
        assert!(notes.contains(named), "no note names `{named}`: {notes}");
    }
    for named in [
        "-fplugin=",
        "-B/tmp/x",
        "-ftime-trace=",
        "-save-temps=obj",
        "-Xclang",
    ] {
        assert!(
            r.stderr.contains(&format!("[verify]: dropped `{named}")),
            "the [verify] flag `{named}` is not reported as dropped: {}",
            r.stderr
        );
    }
    // Nothing was written where the flags pointed, nor any -save-temps product.
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    let temps: Vec<_> = files_under(&root)
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| {
                ["i", "ii", "bc", "s", "o", "hipi"].contains(&&*e.to_string_lossy())
            })
        })
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

#[cfg(unix)]
#[test]
fn verify_copies_nothing_from_outside_the_root() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("outside");
    write(
        &outside.join("secret.cuh"),
        "#define SECRET_OUTSIDE_THE_ROOT 1\n",
    );
    let root = d.path().join("proj");
    write(
        &root.join("src/a.cu"),
        "#include \"secret.cuh\"\n#include \"passwd.h\"\n__global__ void k(float *p) { p[0] = 1.0f; }\n",
    );
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.cuh"), root.join("src/secret.cuh")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("src/passwd.h")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("linked")).unwrap();
    // With a hipcc the tree is translated, copied and compiled; without one verify stops before
    // it copies anything (the build gate is UNKNOWN), and what it prints still holds no secret.
    let r = hipport(
        &root,
        &["verify", ".", "--rocm", "5.2", "--format", "json", "-q"],
    );
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.text());
    let mut seen = vec![r.stdout.clone()];
    for f in files_under(&root.join(".hipport")) {
        let m = std::fs::symlink_metadata(&f).unwrap();
        assert!(
            !m.file_type().is_symlink() || std::fs::read_link(&f).unwrap().is_relative(),
            "{} links out of the tree",
            f.display()
        );
        if m.is_file() {
            seen.push(String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned());
        }
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let first = passwd.lines().next().unwrap_or("root:x:0:0");
    for text in &seen {
        assert!(!text.contains("SECRET_OUTSIDE_THE_ROOT"), "{text}");
        assert!(!text.contains(first), "{text}");
    }
}

#[cfg(unix)]
#[test]
fn verify_never_writes_through_links_inside_the_state_directory() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let root = d.path().join("proj");
    write(
        &root.join("k.cu"),
        "__global__ void k(float *p) { p[0] = 1.0f; }\n",
    );
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join(".hipport")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join(".hipport/verify")).unwrap();
    let r = hipport(&root, &["verify", ".", "--rocm", "5.2", "-q"]);
    if on_path("hipcc") {
        assert_eq!(r.code, Some(2), "{}", r.text());
        assert!(r.stderr.contains("symbolic link"), "{}", r.text());
    } else {
        // No compiler: verify writes nothing, so nothing can go through the link either.
        assert!(r.stderr.contains("no hipcc found"), "{}", r.text());
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);

    std::fs::remove_file(root.join(".hipport/verify")).unwrap();
    write(&outside.join("results.json"), "keep");
    std::os::unix::fs::symlink(
        outside.join("results.json"),
        root.join(".hipport/verify-results.json"),
    )
    .unwrap();
    let r = hipport(&root, &["verify", ".", "--rocm", "5.2", "-q"]);
    if on_path("hipcc") {
        assert_eq!(r.code, Some(2), "{}", r.text());
        assert!(r.stderr.contains("symbolic link"), "{}", r.text());
    }
    assert_eq!(
        std::fs::read(outside.join("results.json")).unwrap(),
        b"keep"
    );
    assert!(
        std::fs::symlink_metadata(root.join(".hipport/verify-results.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[cfg(unix)]
#[test]
fn dash_o_never_replaces_a_device_or_a_link_to_one() {
    use std::os::unix::fs::FileTypeExt;
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(&r.join("a.cu"), "void f(int *p) { cudaFree(p); }\n");
    // /dev/null itself, and a link like the system's /dev/stdout -> /proc/self/fd/1.
    let o = hipport(r, &["port", "a.cu", "-o", "/dev/null"]);
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert!(o.stderr.contains("a device"), "{}", o.text());
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    std::os::unix::fs::symlink("/proc/self/fd/1", r.join("stdout")).unwrap();
    let o = hipport(r, &["port", "a.cu", "-o", "stdout"]);
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert!(o.stderr.contains("symbolic link"), "{}", o.text());
    assert_eq!(
        std::fs::read_link(r.join("stdout")).unwrap(),
        Path::new("/proc/self/fd/1")
    );
    // A device node of our own (root only: mknod needs CAP_MKNOD).
    let made = Command::new("mknod")
        .arg(r.join("null"))
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let o = hipport(r, &["port", "a.cu", "-o", "null"]);
        assert_eq!(o.code, Some(2), "{}", o.text());
        assert!(o.stderr.contains("a device"), "{}", o.text());
        assert!(std::fs::symlink_metadata(r.join("null"))
            .unwrap()
            .file_type()
            .is_char_device());
    }
}

#[cfg(unix)]
#[test]
fn committed_links_for_the_baseline_or_the_record_are_not_written_through() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("outside");
    write(&outside.join("baseline.json"), "keep");
    write(&outside.join("record.toml"), "");
    let root = d.path().join("proj");
    write(
        &root.join("k.cu"),
        "__global__ void k(float *p) { int lane = threadIdx.x % 32; p[lane] = 1.0f; }\n",
    );
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::os::unix::fs::symlink(
        outside.join("baseline.json"),
        root.join("hipport-baseline.json"),
    )
    .unwrap();
    let r = hipport(&root, &["check", ".", "--update-baseline"]);
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(r.stderr.contains("symbolic link"), "{}", r.text());
    assert_eq!(
        std::fs::read(outside.join("baseline.json")).unwrap(),
        b"keep"
    );

    // A FIFO as the baseline: refused, never opened for writing (which would block).
    std::fs::remove_file(root.join("hipport-baseline.json")).unwrap();
    mkfifo(&root.join("hipport-baseline.json"));
    let r = run_limited(
        &root,
        &["check", ".", "--update-baseline"],
        Duration::from_secs(60),
    );
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(r.stderr.contains("FIFO"), "{}", r.text());
    std::fs::remove_file(root.join("hipport-baseline.json")).unwrap();

    let r = hipport(&root, &["record", "init"]);
    assert_eq!(r.code, Some(0), "{}", r.text());
    let rec = std::fs::read(root.join("hipport-migration.toml")).unwrap();
    write(&outside.join("record.toml"), &rec);
    std::fs::remove_file(root.join("hipport-migration.toml")).unwrap();
    std::os::unix::fs::symlink(
        outside.join("record.toml"),
        root.join("hipport-migration.toml"),
    )
    .unwrap();
    let r = hipport(
        &root,
        &[
            "record",
            "gate",
            "operations",
            "--status",
            "PASS",
            "--evidence",
            "k.cu",
        ],
    );
    assert_eq!(r.code, Some(2), "{}", r.text());
    assert!(r.stderr.contains("symbolic link"), "{}", r.text());
    assert_eq!(
        r.stderr.matches("is a symbolic link").count(),
        1,
        "said once: {}",
        r.stderr
    );
    assert_eq!(std::fs::read(outside.join("record.toml")).unwrap(), rec);
}

#[cfg(unix)]
#[test]
fn named_devices_and_fifos_are_errors_not_hangs() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(&r.join("k.cu"), "void f(int *p) { cudaFree(p); }\n");
    mkfifo(&r.join("pipe.cu"));
    for args in [
        vec!["scan", "pipe.cu"],
        vec!["scan", "/dev/zero"],
        vec!["port", "/dev/zero"],
        vec!["port", "/dev/null", "-o", "-"],
        vec!["check", "pipe.cu"],
        vec!["scan", "k.cu", "pipe.cu"],
    ] {
        let o = run_limited(r, &args, Duration::from_secs(60));
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.text());
        assert!(
            o.stderr.contains("FIFO") || o.stderr.contains("a device"),
            "{args:?}: {}",
            o.text()
        );
    }
    // A FIFO met by the walk (not named) is skipped unopened, as ripgrep does; the rest is
    // scanned.
    let o = run_limited(
        r,
        &["scan", ".", "--format", "json"],
        Duration::from_secs(60),
    );
    assert_eq!(o.code, Some(0), "{}", o.text());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["summary"]["files_scanned"], 1, "{}", o.text());
}

#[test]
fn a_non_ascii_byte_in_a_condition_keeps_the_findings_and_the_baseline() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join(".git")).unwrap();
    write(
        &r.join("k.cu"),
        b"#if \xff=\n#endif\n__global__ void k(float *p) {\n  int lane = threadIdx.x % 32;\n  p[lane] = __shfl_down_sync(0xffffffff, p[lane], 16);\n}\n",
    );
    let o = hipport(r, &["scan", ".", "--rocm", "6.2.0", "--format", "json"]);
    assert_eq!(o.code, Some(0), "{}", o.text());
    assert!(!o.stderr.contains("internal error"), "{}", o.text());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let rules: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect();
    assert!(rules.iter().any(|r| r.starts_with("HP1")), "{rules:?}");
    let o = hipport(r, &["check", ".", "--rocm", "6.2.0", "--update-baseline"]);
    assert_eq!(o.code, Some(0), "{}", o.text());
    let b: serde_json::Value =
        serde_json::from_slice(&std::fs::read(r.join("hipport-baseline.json")).unwrap()).unwrap();
    let entries = b["entries"].as_array().unwrap();
    assert!(
        entries.iter().any(|e| e["path"] == "k.cu"),
        "the baseline lost the file's findings: {b}"
    );
    let o = hipport(r, &["check", ".", "--rocm", "6.2.0"]);
    assert_eq!(o.code, Some(0), "{}", o.text());
}

/// An `.npy` file with header `h` and `data` after it.
fn npy(h: &str, data: &[u8]) -> Vec<u8> {
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((h.len() as u16).to_le_bytes());
    b.extend(h.as_bytes());
    b.extend(data);
    b
}

#[test]
fn compare_refuses_malformed_arrays_and_endless_inputs() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let good = npy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n",
        &[0; 16],
    );
    write(&r.join("good.npy"), &good);
    let malformed = [
        "{'descr': '', 'shape': (1,)}",
        "{'descr': '<f0', 'shape': (1,)}",
        "{'descr': 'é4', 'shape': (1,)}",
        "{'descr': '<f8', 'shape': (-1,)}",
        "{'descr",
        "{'descr': '<f8', 'shape': (99999999999999999999999,)}",
    ];
    for (i, h) in malformed.iter().enumerate() {
        let name = format!("bad{i}.npy");
        write(&r.join(&name), npy(h, &[0; 16]));
        let o = hipport(r, &["compare", "good.npy", &name]);
        assert_eq!(o.code, Some(2), "{h}: {}", o.text());
        assert!(o.stderr.contains(&name), "{h}: {}", o.text());
    }
    // A shape whose product overflows, with different data: never "PASS with 0 elements".
    let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }\n";
    write(&r.join("big1.npy"), npy(h, &1f64.to_le_bytes()));
    write(&r.join("big2.npy"), npy(h, &2f64.to_le_bytes()));
    let o = hipport(r, &["compare", "big1.npy", "big2.npy"]);
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert!(!o.stdout.contains("PASS"), "{}", o.text());
    // Two outputs without a number are not evidence of anything.
    write(&r.join("empty1.json"), "[]");
    write(&r.join("empty2.json"), "[]");
    write(&r.join("words.csv"), "loss,ok\nfine,yes\n");
    for (a, b) in [("empty1.json", "empty2.json"), ("words.csv", "words.csv")] {
        let o = hipport(r, &["compare", a, b]);
        assert_ne!(o.code, Some(0), "{a} {b}: {}", o.text());
        assert!(!o.stdout.contains("PASS"), "{a} {b}: {}", o.text());
    }
    // An endless input ends with an error, not a read until memory runs out.
    let o = run_limited(
        r,
        &["compare", "/dev/zero", "good.npy"],
        Duration::from_secs(90),
    );
    assert_eq!(o.code, Some(2), "{}", o.text());
}

#[test]
fn a_blocker_followed_by_a_pass_row_for_the_same_gate_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join(".git")).unwrap();
    write(
        &r.join("k.cu"),
        "__global__ void k(float *p) { p[0] = 1.0f; }\n",
    );
    let o = hipport(r, &["record", "init"]);
    assert_eq!(o.code, Some(0), "{}", o.text());
    let mut rec = std::fs::read_to_string(r.join("hipport-migration.toml")).unwrap();
    rec.push_str(
        "\n[[gate]]\nname = \"build\"\nstatus = \"BLOCKER\"\nnote = \"a person decided: no ROCm build of the vendor library\"\n\n[[gate]]\nname = \"build\"\nstatus = \"PASS\"\n",
    );
    write(&r.join("hipport-migration.toml"), &rec);
    for args in [vec!["gate", "."], vec!["report", ".", "-o", "-"]] {
        let o = hipport(r, &args);
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.text());
        assert!(
            o.stderr.contains("both set gate `build`"),
            "{args:?}: {}",
            o.text()
        );
        assert!(!o.stdout.contains("MIGRATION READY"), "{}", o.text());
    }
    // Adding evidence does not silently resolve it either.
    let o = hipport(
        r,
        &[
            "record",
            "gate",
            "build",
            "--status",
            "PASS",
            "--evidence",
            "k.cu",
        ],
    );
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert_eq!(
        std::fs::read_to_string(r.join("hipport-migration.toml")).unwrap(),
        rec
    );
}

#[cfg(unix)]
#[test]
fn write_keeps_the_owner_and_says_when_a_hard_link_is_split() {
    use std::os::unix::fs::MetadataExt;
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let old = b"void f(int *p) { cudaFree(p); }\n";
    write(&r.join("a.cu"), old);
    std::fs::hard_link(r.join("a.cu"), r.join("a.link")).unwrap();
    // SAFETY: getuid has no preconditions.
    let root = unsafe { libc::getuid() } == 0;
    if root {
        std::os::unix::fs::chown(r.join("a.cu"), Some(4321), Some(4322)).unwrap();
    }
    let o = hipport(r, &["port", "-q", "a.cu", "--write", "--allow-no-vcs"]);
    assert_eq!(o.code, Some(0), "{}", o.text());
    assert!(o.stderr.contains("2 hard links"), "{}", o.text());
    assert!(std::fs::read_to_string(r.join("a.cu"))
        .unwrap()
        .contains("hipFree"));
    assert_eq!(std::fs::read(r.join("a.link")).unwrap(), old);
    if root {
        let m = std::fs::metadata(r.join("a.cu")).unwrap();
        assert_eq!((m.uid(), m.gid()), (4321, 4322), "the owner is kept");
    }
}
