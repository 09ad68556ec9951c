//! Writes never go where they must not (issue 12, item 2 and 6; issue 14, `port --out`):
//! reproducers run through the binary. `-o` refuses symlinks, FIFOs, read-only files and the
//! input itself; `--out` may not be an input; `--write` never follows a link out of the tree
//! and treats untracked, ignored and non-VCS files as dirty; `.hipport` must be a real
//! directory; non-UTF-8 names are kept byte-exact; an interrupted `--write` leaves no
//! temporary file; `--out` writes the whole tree, which builds with make and hipcc.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hipport(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn write(p: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

const CUDA: &[u8] = b"void f(int *p) { cudaFree(p); }\n";

fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(root)
        .args(["-c", "user.email=t@t", "-c", "user.name=t"])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

#[cfg(unix)]
#[test]
fn dash_o_refuses_links_fifos_read_only_files_and_the_input() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(&r.join("a.cu"), CUDA);
    write(&r.join("victim"), b"keep");
    std::os::unix::fs::symlink(r.join("victim"), r.join("somesymlink")).unwrap();
    let o = hipport(r, &["port", "a.cu", "-o", "somesymlink"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("symbolic link"), "{}", text(&o));
    assert!(std::fs::symlink_metadata(r.join("somesymlink"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(r.join("victim")).unwrap(), b"keep");

    write(&r.join("ro.cu"), b"keep");
    std::fs::set_permissions(r.join("ro.cu"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let o = hipport(r, &["port", "a.cu", "-o", "ro.cu"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("read-only"), "{}", text(&o));
    assert_eq!(std::fs::read(r.join("ro.cu")).unwrap(), b"keep");

    assert!(Command::new("mkfifo")
        .arg(r.join("fifo"))
        .status()
        .unwrap()
        .success());
    let o = hipport(r, &["port", "a.cu", "-o", "fifo"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("FIFO"), "{}", text(&o));
    // A FIFO named as an input is reported, exit 2, never opened.
    let o = hipport(r, &["port", "fifo"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("FIFO"), "{}", text(&o));

    let o = hipport(r, &["port", "a.cu", "-o", "a.cu"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--write"), "{}", text(&o));
    assert_eq!(std::fs::read(r.join("a.cu")).unwrap(), CUDA);
    let o = hipport(r, &["port", "a.cu", "-o", "./sub/../a.cu"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));

    let o = hipport(r, &["port", "a.cu", "-o", "new.cu"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(std::fs::read_to_string(r.join("new.cu"))
        .unwrap()
        .contains("hipFree"));
}

#[test]
fn out_may_not_be_an_input_or_inside_one() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(&r.join("src/a.cu"), CUDA);
    for args in [
        vec!["port", "src", "--out", "src"],
        vec!["port", "src", "--out", "src/hip"],
        vec!["port", "src/a.cu", "--out", "src/a.cu"],
    ] {
        let o = hipport(r, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("--out"), "{}", text(&o));
    }
    assert_eq!(std::fs::read(r.join("src/a.cu")).unwrap(), CUDA);
    assert!(!r.join("src/hip").exists());
}

#[cfg(unix)]
#[test]
fn follow_links_write_never_leaves_the_tree() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("tree");
    let outside = d.path().join("outside");
    write(&tree.join("a.cu"), CUDA);
    write(&outside.join("b.cu"), CUDA);
    std::os::unix::fs::symlink(&outside, tree.join("linked")).unwrap();
    let o = hipport(
        &tree,
        &[
            "port",
            "-q",
            ".",
            "--write",
            "--follow-links",
            "--allow-no-vcs",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("outside"), "{}", text(&o));
    assert_eq!(std::fs::read(outside.join("b.cu")).unwrap(), CUDA);
    assert!(std::fs::read_to_string(tree.join("a.cu"))
        .unwrap()
        .contains("hipFree"));
}

#[test]
fn the_dirty_guard_counts_untracked_ignored_and_non_vcs_files() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    // Not in any git work tree: refused without --allow-no-vcs.
    write(&r.join("novcs/a.cu"), CUDA);
    let o = hipport(&r.join("novcs"), &["port", "-q", ".", "--write"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--allow-no-vcs"), "{}", text(&o));
    assert_eq!(std::fs::read(r.join("novcs/a.cu")).unwrap(), CUDA);
    let o = hipport(
        &r.join("novcs"),
        &["port", "-q", ".", "--write", "--allow-no-vcs"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let repo = r.join("repo");
    write(&repo.join("tracked.cu"), CUDA);
    write(&repo.join(".gitignore"), b"ignored.cu\n");
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "init"]);
    write(&repo.join("untracked.cu"), CUDA);
    write(&repo.join("ignored.cu"), CUDA);
    let o = hipport(&repo, &["port", "-q", ".", "--write", "--no-ignore"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("untracked.cu (untracked or ignored)")
            && t.contains("ignored.cu (untracked or ignored)"),
        "{t}"
    );
    assert!(!t.contains("tracked.cu (uncommitted"), "{t}");
    for f in ["tracked.cu", "untracked.cu", "ignored.cu"] {
        assert_eq!(std::fs::read(repo.join(f)).unwrap(), CUDA, "{f} untouched");
    }
    // The committed file alone is fine.
    let o = hipport(&repo, &["port", "-q", "tracked.cu", "--write"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = hipport(
        &repo,
        &["port", "-q", ".", "--write", "--no-ignore", "--allow-dirty"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(std::fs::read_to_string(repo.join("ignored.cu"))
        .unwrap()
        .contains("hipFree"));
}

#[cfg(target_os = "linux")]
#[test]
fn non_utf8_names_are_kept_byte_exact_and_never_collide() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("in");
    let a = OsStr::from_bytes(b"k\xff.cu");
    let b = OsStr::from_bytes(b"k\xfe.cu");
    write(&src.join(a), b"void a(int *p) { cudaFree(p); }\n");
    write(&src.join(b), b"void b(int *p) { cudaFree(p); }\n");
    let o = hipport(d.path(), &["port", "-q", "in", "--out", "out"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let ta = std::fs::read_to_string(d.path().join("out").join(a)).unwrap();
    let tb = std::fs::read_to_string(d.path().join("out").join(b)).unwrap();
    assert!(ta.contains("void a") && ta.contains("hipFree"), "{ta}");
    assert!(tb.contains("void b") && tb.contains("hipFree"), "{tb}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_state_directory_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("proj");
    let elsewhere = d.path().join("elsewhere");
    write(&root.join("k.cu"), b"__global__ void k() {}\n");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join(".hipport")).unwrap();
    let o = hipport(&root, &["verify", "."]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("symbolic link"), "{}", text(&o));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn an_interrupted_write_leaves_no_temporary_or_partial_file() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let body: Vec<u8> = b"void f(int *p) { cudaFree(p); cudaDeviceSynchronize(); }\n"
        .iter()
        .copied()
        .cycle()
        .take(20_000)
        .collect();
    for i in 0..150 {
        write(&root.join(format!("d{}/k{i}.cu", i % 10)), &body);
    }
    let whole = String::from_utf8(body.clone())
        .unwrap()
        .replace("cudaFree", "hipFree")
        .replace("cudaDeviceSynchronize", "hipDeviceSynchronize")
        .into_bytes();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args([
            "port",
            "-q",
            ".",
            "--write",
            "--allow-no-vcs",
            "--no-implicit-include",
        ])
        .current_dir(root)
        .spawn()
        .unwrap();
    // Wait until a write is in flight (a temporary file exists), then interrupt.
    let start = std::time::Instant::now();
    let mut in_flight = false;
    while !in_flight && start.elapsed().as_secs() < 120 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        in_flight = (0..10).any(|i| {
            std::fs::read_dir(root.join(format!("d{i}"))).is_ok_and(|rd| {
                rd.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(".hipport-"))
            })
        });
    }
    // Let a few writes land, then interrupt the others in flight.
    std::thread::sleep(std::time::Duration::from_millis(30));
    // SAFETY: sending a signal to the child we spawned.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    assert!(in_flight, "no write was seen in flight: {status:?}");
    let mut temps = Vec::new();
    let mut translated = 0;
    for i in 0..150 {
        let dir = root.join(format!("d{}", i % 10));
        for e in std::fs::read_dir(&dir).unwrap() {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            if n.starts_with(".hipport-") {
                temps.push(dir.join(n));
            }
        }
        let t = std::fs::read(dir.join(format!("k{i}.cu"))).unwrap();
        if t != body {
            assert_eq!(
                t, whole,
                "k{i}.cu is either the input or its whole translation"
            );
            translated += 1;
        }
    }
    temps.sort();
    temps.dedup();
    assert!(temps.is_empty(), "{status:?}: left {temps:?}");
    eprintln!("{status:?}: {translated} of 150 files written before the signal");
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

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false)
}

#[cfg(unix)]
#[test]
fn out_writes_the_whole_tree_and_a_makefile_project_builds_with_hipcc() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("proj");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/make_project"),
        &src,
    );
    std::os::unix::fs::symlink("common.cuh", src.join("include/alias.cuh")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", src.join("data/outside")).unwrap();
    let o = hipport(
        d.path(),
        &["port", "-q", "proj", "--rocm", "5.2", "--out", "out"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("outside the tree"), "{}", text(&o));
    let out: PathBuf = d.path().join("out");
    for f in [
        "Makefile",
        "src/main.cu",
        "src/kernels.inc",
        "include/common.cuh",
        "data/scale.txt",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        std::fs::read_link(out.join("include/alias.cuh")).unwrap(),
        Path::new("common.cuh")
    );
    assert!(std::fs::symlink_metadata(out.join("data/outside")).is_err());
    let main = std::fs::read_to_string(out.join("src/main.cu")).unwrap();
    assert!(
        main.contains("hipMalloc") && !main.contains("cudaMalloc"),
        "{main}"
    );
    assert_eq!(
        std::fs::read(out.join("Makefile")).unwrap(),
        std::fs::read(src.join("Makefile")).unwrap()
    );

    // --only-sources: today's behaviour, the selected sources alone.
    let o = hipport(
        d.path(),
        &["port", "-q", "proj", "--out", "only", "--only-sources"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(d.path().join("only/src/main.cu").is_file());
    assert!(!d.path().join("only/Makefile").exists());
    // `.inc` fragments are sources (they hold kernels the `.cu` files include); data is not.
    assert!(d.path().join("only/src/kernels.inc").is_file());
    assert!(!d.path().join("only/data/scale.txt").exists());

    if !on_path("hipcc") || !on_path("make") {
        eprintln!("skipped the build: hipcc or make is not on PATH (CI installs both)");
        return;
    }
    let b = Command::new("make")
        .args(["NVCC=hipcc", "NVCCFLAGS=--offload-arch=gfx90a"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(b.status.success(), "make failed: {}", text(&b));
    assert!(out.join("app").is_file());
}
