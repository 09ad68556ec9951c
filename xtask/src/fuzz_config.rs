//! The configuration side of `cargo xtask fuzz`: mutated `hipport.toml`,
//! `hipport-migration.toml` and `hipport-baseline.json` of a small project
//! (`testdata/fuzz/project`), read by the commands that use them.
//!
//! Each case mutates one of the three files (ranges deleted or duplicated; TOML/JSON pieces such
//! as quotes, brackets, a second `[[gate]] name = "build"`, huge or negative numbers, NaN, dates,
//! NUL, invalid UTF-8, thousands of nested brackets) and runs `gate`, `check`, `scan` and
//! `record gate` on the project with a time limit. It checks: no panic, no hang, an exit code of
//! 0, 1 or 2; when the library rejects the mutated file (`Settings::resolve_quiet`,
//! `Record::parse`, `Baseline::load`), every command that reads it exits 2 and names it on stderr; and a record
//! that `record gate` rewrote reads back.

use crate::fuzz::{mutate_with, Rng};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PIECES: &[&[u8]] = &[
    b"\"",
    b"'",
    b"\"\"\"",
    b"'''",
    b"[",
    b"]",
    b"[[",
    b"]]",
    b"{",
    b"}",
    b",",
    b"=",
    b":",
    b"#",
    b"\n",
    b"\r",
    b"\\",
    b"\\u0000",
    b"\\uD800",
    b"\\U0010FFFF",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"1e999",
    b"-1",
    b"-0",
    b"18446744073709551616",
    b"9223372036854775807",
    b"nan",
    b"inf",
    b"-inf",
    b"NaN",
    b"null",
    b"true",
    b"1979-05-27T07:32:00Z",
    b"0000-00-00T25:61:61Z",
    b"\n[[gate]]\nname = \"build\"\nstatus = \"PASS\"\n",
    b"\n[[gate]]\nname = \"nope\"\nstatus = \"BLOCKER\"\n",
    b"\n[[test]]\nworkload = \"w\"\ninput_class = \"boundary\"\nprecision = \"fp8\"\nstatus = \"PASS\"\n",
    b"\n[[production.requirements]]\nrequire = \"x>=1e308*baseline\"\n",
    b"\n[perf.candidate.metrics]\ntokens_per_s = -1e308\n",
    b"\n[[accept]]\nstatus = \"BLOCKER\"\nreason = \"\"\n",
    b"\n[[suppress]]\nrule = \"HP999\"\npath = \"[\"\nreason = \"r\"\n",
    b"\nschema_version = 2\n",
    b"\nrocm = \"latest\"\n",
    b"\"count\": 18446744073709551616,",
    b"{\"path\": \"../../etc/passwd\", \"rule\": \"HP001\", \"fingerprint\": \"x\", \"category\": \"nope\", \"count\": 0, \"code\": \"\"},",
    b"BLOCKER",
    b"PASS",
    b"UNKNOWN",
    b"gfx90a",
    b"../",
    b"/etc/passwd",
    b"**",
];

/// The three files a case may mutate, and the commands that read each.
const FILES: &[(&str, &[usize])] = &[
    ("hipport.toml", &[0, 1, 2, 3]),
    ("hipport-migration.toml", &[0, 3]),
    ("hipport-baseline.json", &[1]),
];

/// The commands run on every case (indexes used by [`FILES`]).
const COMMANDS: &[&[&str]] = &[
    &["gate", ".", "--format", "json"],
    &["check", "."],
    &["scan", ".", "--format", "json"],
    &[
        "record",
        "gate",
        "operations",
        "--status",
        "PASS",
        "--evidence",
        "src/k.cu",
    ],
];

pub struct Fuzzer {
    bin: PathBuf,
    limit: Duration,
    fail_dir: PathBuf,
    /// The fixture project's files: relative path and bytes.
    files: Vec<(PathBuf, Vec<u8>)>,
    pub cases: usize,
    /// Cases whose mutated file the library rejects (the rest still parse).
    pub rejected: usize,
    pub runs: usize,
}

impl Fuzzer {
    /// Reads the fixture and checks that, unmutated, every command exits 0 or 1.
    pub fn new(root: &Path, bin: &Path, limit: Duration, fail_dir: &Path) -> Result<Fuzzer> {
        let base = root.join("testdata/fuzz/project");
        let mut files = Vec::new();
        collect(&base, &base, &mut files)?;
        files.sort();
        let mut f = Fuzzer {
            bin: bin.to_path_buf(),
            limit,
            fail_dir: fail_dir.to_path_buf(),
            files,
            cases: 0,
            rejected: 0,
            runs: 0,
        };
        let dir = f.project(None)?;
        for cmd in COMMANDS {
            let (code, _, err) = f.run(&dir, cmd)?;
            if !matches!(code, 0 | 1) {
                bail!(
                    "the unmutated fuzz project fails `{}`: {err}",
                    cmd.join(" ")
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        Ok(f)
    }

    /// A fresh copy of the project (a `.git` marker stops the search for hipport.toml), with
    /// `replace` = (file, bytes) written over one file.
    fn project(&self, replace: Option<(&str, &[u8])>) -> Result<PathBuf> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("hipport-fuzzcfg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".git"))?;
        for (rel, bytes) in &self.files {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap_or(&dir))?;
            std::fs::write(&p, bytes)?;
        }
        if let Some((name, bytes)) = replace {
            std::fs::write(dir.join(name), bytes)?;
        }
        Ok(dir)
    }

    /// Runs one command with the time limit: (exit code, stdout, stderr); -1 for a signal.
    fn run(&mut self, dir: &Path, args: &[&str]) -> Result<(i32, Vec<u8>, String)> {
        self.runs += 1;
        let out = dir.join(".fuzz-stdout");
        let err = dir.join(".fuzz-stderr");
        let mut child = Command::new(&self.bin)
            .args(args)
            .current_dir(dir)
            .env_remove("GITHUB_STEP_SUMMARY")
            .env("SOURCE_DATE_EPOCH", "1764460800")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out)?)
            .stderr(std::fs::File::create(&err)?)
            .spawn()
            .context("running hipport")?;
        let start = Instant::now();
        let code = loop {
            if let Some(st) = child.try_wait()? {
                break st.code().unwrap_or(-1);
            }
            if crate::fuzz::over_limit(child.id(), start, self.limit) {
                let _ = child.kill();
                let _ = child.wait();
                bail!(
                    "`{}` timed out after {:?} of CPU time",
                    args.join(" "),
                    self.limit
                );
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let stdout = std::fs::read(&out)?;
        let stderr = String::from_utf8_lossy(&std::fs::read(&err)?).into_owned();
        Ok((code, stdout, stderr))
    }

    /// One mutated file through every command that reads it; returns the number of failures.
    pub fn case(&mut self, id: usize, rng: &mut Rng) -> Result<usize> {
        self.cases += 1;
        let (name, readers) = FILES[rng.below(FILES.len())];
        let original = self
            .files
            .iter()
            .find(|(p, _)| p == Path::new(name))
            .map(|(_, b)| b.clone())
            .context("fixture file")?;
        let mut bytes = original;
        let mut what = Vec::new();
        for _ in 0..1 + rng.below(2) {
            what.push(mutate_with(rng, &mut bytes, PIECES));
        }
        let dir = self.project(Some((name, &bytes)))?;
        let mut problems = Vec::new();
        let rejected = match std::panic::catch_unwind(|| rejects(name, &dir.join(name), &bytes)) {
            Ok(r) => r,
            Err(_) => {
                problems.push(format!("panic in the library's reader of {name}"));
                true
            }
        };
        self.rejected += usize::from(rejected);
        for &c in readers {
            let cmd = COMMANDS[c];
            let shown = cmd[..2].join(" ");
            match self.run(&dir, cmd) {
                Err(e) => problems.push(format!("hang: {e}")),
                Ok((code, _, err)) => {
                    if code == 101 || err.contains("panicked") {
                        problems.push(format!("panic in `{shown}`: {}", first_line(&err)));
                    } else if !matches!(code, 0..=2) {
                        problems.push(format!("`{shown}` exit {code}: {}", first_line(&err)));
                    } else if rejected && (code != 2 || !err.contains(name)) {
                        problems.push(format!(
                            "`{shown}` exit {code} on a {name} the library rejects, stderr: {}",
                            first_line(&err)
                        ));
                    } else if code == 2 && err.trim().is_empty() {
                        problems.push(format!("`{shown}` exit 2 with nothing on stderr"));
                    }
                }
            }
        }
        // A record `record gate` rewrote must read back.
        if name == "hipport-migration.toml" && !rejected {
            let path = dir.join(name);
            if let Err(e) = hipport::record::Record::load(&path) {
                problems.push(format!(
                    "the record written by `record gate` does not read back: {e}"
                ));
            }
        }
        if !problems.is_empty() {
            let rel = format!("config{id:06}-{name}");
            crate::fuzz::save(&self.fail_dir, &rel, &bytes, &what, &problems)?;
            println!("FAIL {rel} ({}): {}", what.join(", "), problems.join("; "));
        }
        let _ = std::fs::remove_dir_all(&dir);
        Ok(usize::from(!problems.is_empty()))
    }
}

/// Whether the library refuses the file (before any command ran).
fn rejects(name: &str, path: &Path, bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return true;
    };
    match name {
        // The configuration as every command resolves it (read and checked).
        "hipport.toml" => hipport::settings::Settings::resolve_quiet(&hipport::settings::Request {
            paths: vec![path.parent().unwrap_or(path).to_path_buf()],
            config_file: Some(path.to_path_buf()),
            max_file_size: u64::MAX,
            ..Default::default()
        })
        .is_err(),
        "hipport-migration.toml" => hipport::record::Record::parse(text).is_err(),
        _ => hipport::baseline::Baseline::load(path).is_err(),
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .chars()
        .take(200)
        .collect()
}

fn collect(base: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            collect(base, &e.path(), out)?;
        } else {
            let rel = e.path().strip_prefix(base)?.to_path_buf();
            out.push((rel, std::fs::read(e.path())?));
        }
    }
    Ok(())
}
