//! Interrupted writes (issue 12, point 6): `port --write` and `port --out` on a tree of many
//! files, stopped by SIGINT or SIGTERM at varied moments, leave every file either as it was or
//! wholly written, and no `.hipport-*` temporary file; after a SIGKILL (which no handler sees),
//! the next run removes the temporary files the killed run left.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FILES: usize = 80;

fn body(i: usize) -> Vec<u8> {
    format!("// file {i}\nvoid f{i}(int *p) {{ cudaFree(p); cudaDeviceSynchronize(); }}\n")
        .into_bytes()
        .iter()
        .copied()
        .cycle()
        .take(16_000 + i * 37)
        .collect()
}

fn rel(i: usize) -> PathBuf {
    PathBuf::from(format!("d{}/k{i}.cu", i % 8))
}

/// A tree of `FILES` CUDA files (and a non-source file `--out` copies).
fn tree(root: &Path) {
    for i in 0..FILES {
        let p = root.join(rel(i));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body(i)).unwrap();
    }
    std::fs::write(root.join("d0/notes.txt"), "not a source\n".repeat(500)).unwrap();
}

const PORT: &[&str] = &["port", "-q", "--rocm", "6.2.0", "--no-implicit-include"];

fn hipport(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_hipport"))
        .args(PORT)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Every `.hipport-*` file under `dir`.
fn temps(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if e.file_name().to_string_lossy().starts_with(".hipport-") {
            out.push(p.clone());
        }
        if e.file_type().unwrap().is_dir() {
            out.extend(temps(&p));
        }
    }
    out
}

/// The uninterrupted translation of every file, by one `port --out` run.
fn reference(base: &Path) -> Vec<Vec<u8>> {
    let src = base.join("ref-src");
    tree(&src);
    let st = hipport(base, &["ref-src", "--out", "ref-out"])
        .wait()
        .unwrap();
    assert!(st.success());
    (0..FILES)
        .map(|i| {
            let t = std::fs::read(base.join("ref-out").join(rel(i))).unwrap();
            assert_ne!(t, body(i), "the reference translates");
            t
        })
        .collect()
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: sending a signal to a child we spawned and have not reaped.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

/// Waits until the run writes (a temporary file or an output appears under `watch`), at most
/// `limit`; false when the child exited first or nothing was seen.
fn wait_for_writes(child: &mut std::process::Child, watch: &Path, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        let busy = (0..8).any(|d| {
            std::fs::read_dir(watch.join(format!("d{d}"))).is_ok_and(|rd| {
                rd.flatten().any(|e| {
                    let n = e.file_name();
                    let n = n.to_string_lossy();
                    n.starts_with(".hipport-") || (watch.ends_with("out") && n.ends_with(".cu"))
                })
            })
        });
        if busy {
            return true;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    false
}

#[test]
fn sigint_and_sigterm_leave_whole_files_and_no_temporary_file() {
    let base = tempfile::tempdir().unwrap();
    let want = reference(base.path());
    let (mut partial, mut in_flight, mut run) = (0, 0, 0);
    // SIGQUIT and SIGUSR1 (issue 23 point 11) once each: every catchable signal that ends the
    // process takes the same path.
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGQUIT, libc::SIGUSR1] {
        let afters: &[Option<u64>] = if sig == libc::SIGINT || sig == libc::SIGTERM {
            &[None, Some(0), Some(2), Some(10), Some(40)]
        } else {
            &[Some(2)]
        };
        for write in [true, false] {
            // None: early, while files are read and translated; Some(ms): that long after the
            // first write was seen.
            for &after in afters {
                run += 1;
                let dir = base.path().join(format!("run{run}"));
                let src = dir.join("src");
                tree(&src);
                let mut child = if write {
                    hipport(&src, &[".", "--write", "--allow-no-vcs"])
                } else {
                    hipport(&dir, &["src", "--out", "out"])
                };
                let watch = if write { src.clone() } else { dir.join("out") };
                let mut seen = false;
                match after {
                    None => std::thread::sleep(Duration::from_millis(30)),
                    Some(ms) => {
                        seen = wait_for_writes(&mut child, &watch, Duration::from_secs(120));
                        std::thread::sleep(Duration::from_millis(ms));
                    }
                }
                signal(&child, sig);
                let start = Instant::now();
                let out = child.wait_with_output().unwrap();
                assert!(
                    start.elapsed() < Duration::from_secs(60),
                    "no exit after the signal"
                );
                let what = format!(
                    "run {run}: signal {sig} {}, {}",
                    after.map_or("early".into(), |ms| format!("{ms} ms into the writes")),
                    if write { "--write" } else { "--out" }
                );
                let mut written = 0;
                for (i, want) in want.iter().enumerate() {
                    let old = body(i);
                    let name = rel(i);
                    if write {
                        let got = std::fs::read(src.join(&name)).unwrap();
                        assert!(
                            got == old || got == *want,
                            "{what}: {} is partial ({} bytes)",
                            name.display(),
                            got.len()
                        );
                        written += usize::from(got == *want);
                    } else {
                        assert_eq!(std::fs::read(src.join(&name)).unwrap(), old, "{what}");
                        match std::fs::read(dir.join("out").join(&name)) {
                            Ok(got) => {
                                assert!(
                                    got == *want,
                                    "{what}: {} is partial ({} bytes)",
                                    name.display(),
                                    got.len()
                                );
                                written += 1;
                            }
                            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{what}"),
                        }
                    }
                }
                let left = temps(&dir);
                assert!(
                    left.is_empty(),
                    "{what}: {left:?} left; {:?}; {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                );
                partial += usize::from(written > 0 && written < FILES);
                // Writes were seen in flight and the signal, not the end of the run, stopped it.
                use std::os::unix::process::ExitStatusExt;
                in_flight += usize::from(seen && out.status.signal() == Some(sig));
            }
        }
    }
    // Every new content is staged in a temporary file before the renames, so most signals
    // that land in the writes find temporary files to remove and leave every file old; a few
    // land among the renames. How many of each depends on the machine's load.
    eprintln!(
        "{in_flight} of {run} runs were stopped with writes in flight, {partial} part-way through the renames"
    );
    assert!(
        in_flight > 0,
        "no signal landed while writes were in flight: the test proves nothing"
    );
}

#[test]
fn the_next_run_removes_temporary_files_a_sigkill_left() {
    let base = tempfile::tempdir().unwrap();
    let src = base.path().join("src");
    tree(&src);
    // What a SIGKILLed run leaves: its temporary files, named with its (now dead) process id.
    let mut killed = Command::new("sleep").arg("0").spawn().unwrap();
    let dead = killed.id();
    killed.wait().unwrap();
    for d in ["d1", "d2"] {
        std::fs::write(
            src.join(d).join(format!(".hipport-tmp-{dead}-Xy12Ab")),
            "half a file",
        )
        .unwrap();
    }
    // A file of another tool that only looks similar is kept.
    std::fs::write(src.join("d1/.hipport-tmp-notes"), "keep").unwrap();
    let out = hipport(&src, &[".", "--write", "--allow-no-vcs"])
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("a temporary file left by an interrupted hipport")
            .count(),
        2,
        "{err}"
    );
    let left = temps(&src);
    assert_eq!(left, vec![src.join("d1/.hipport-tmp-notes")], "{err}");

    // And a real SIGKILL part-way through (on fresh sources): whatever it left, the next run
    // removes.
    tree(&src);
    let child = hipport(&src, &[".", "--write", "--allow-no-vcs"]);
    std::thread::sleep(Duration::from_millis(30));
    signal(&child, libc::SIGKILL);
    child.wait_with_output().unwrap();
    let out = hipport(&src, &[".", "--write", "--allow-no-vcs"])
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(temps(&src), vec![src.join("d1/.hipport-tmp-notes")]);
}
