//! `cargo xtask fuzz [--cases N] [--seed S] [--timeout SECS] [--cli-every K] [--config-every K]
//! [--jobs J] [--max-secs S] [--corpus DIR]... [--replay FILE]... [--bin PATH]`: a mutation fuzzer over the golden inputs and the sample
//! project, or over real CUDA trees named with `--corpus` (a checkout, or a bare git directory,
//! whose `HEAD` is extracted under `target/fuzz-corpus/`).
//!
//! Each case takes a real CUDA file and applies one to four mutations (delete, duplicate or
//! insert ranges; insert `/*`, `*/`, `"`, `R"(`, `\`+LF/CRLF, `#if`, `<<<`, `>>>`, NUL, invalid
//! UTF-8; turn line ends into CRLF or CR only; nest thousands of brackets or `#if`s), then checks:
//! - no panic (scan and port paths, in process) and no hang (each case has a time limit);
//! - `port` is idempotent: porting the output again changes nothing (every other case also with
//!   `--annotate`, whose notes must settle and never land inside a comment or literal); and it translates the same
//!   with a parse tree (as `scan` runs it) as without (as `port` runs it);
//! - every comment and string/char literal of the input appears unchanged, in order, in the
//!   output (include paths excepted: rewriting them is the point);
//! - the CLI agrees with itself: `port --out DIR` writes what the library produced, and
//!   `port -o -` prints the same bytes (every K-th case; `--cli-every 0` skips the CLI).
//!
//! Batches of 50 cases alternate the launch syntax (`keep`, `hip`) and every other pair of
//! batches adds `--compat-header` for ROCm 5.2 (the release with the most shims). Every K-th case
//! (`--config-every`) also mutates `hipport.toml`, `hipport-migration.toml` or
//! `hipport-baseline.json` of a small project and runs `gate`, `check`, `scan` and `record` on it
//! (see `fuzz_config.rs`).
//!
//! `--jobs J` runs the in-process checks on J threads (results are taken in case order, so a
//! run is the same for any J). The time limit counts CPU time, not wall time (the fuzzer is
//! meant to run under `nice` on shared machines). The RNG is a fixed splitmix64, so `--seed`
//! reproduces a run exactly. Failing inputs are
//! written to `target/fuzz-failures/`. Exit 1 when anything failed.

use anyhow::{bail, Context, Result};
use hipport::lex::{lex, Tok};
use hipport::pipeline::{process_bytes, Work};
use hipport::translate::{LaunchSyntax, Options};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const PIECES: &[&[u8]] = &[
    b"/*",
    b"*/",
    b"\"",
    b"'",
    b"R\"(",
    b"R\"x(",
    b")\"",
    b"\\\n",
    b"\\\r\n",
    b"\\",
    b"\r",
    b"#if 1\n",
    b"#if X\n",
    b"\n#if defined(__CUDACC__) && \xff\n",
    b"#else\n",
    b"#endif\n",
    b"\n#define M(x) \\\n",
    b"<<<",
    b">>>",
    b"k<<<1, 32>>>(",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"//",
    b"{",
    b"}",
    b"(",
    b")",
    b";",
    b"template <typename T>\n",
    b"\ninline __host__ __device__ float4 operator+(float4 a, float4 b) { return a; }\n",
    b"\n__device__ double atomicAdd(double *p, double v) { return v; }\n",
    b"\n#include <cuda_runtime.h>\n",
    b"cudaMalloc",
    b"__shfl_sync(0xffffffff, ",
    b"asm volatile(\"",
    b"dim3(",
];

fn mutate(rng: &mut Rng, src: &mut Vec<u8>) -> String {
    mutate_with(rng, src, PIECES)
}

/// One mutation of `src`, inserting pieces from `pieces`; returns what it did.
pub(crate) fn mutate_with(rng: &mut Rng, src: &mut Vec<u8>, pieces: &[&[u8]]) -> String {
    let len = src.len();
    let at = rng.below(len + 1);
    match rng.below(10) {
        0 => {
            let n = rng.below(200).min(len - at);
            src.drain(at..at + n);
            format!("delete {n}@{at}")
        }
        1 => {
            let n = rng.below(400).min(len - at);
            let chunk: Vec<u8> = src[at..at + n].to_vec();
            let to = rng.below(len + 1);
            src.splice(to..to, chunk);
            format!("duplicate {n}@{at}→{to}")
        }
        2 => {
            let crlf: Vec<u8> = src
                .iter()
                .flat_map(|&b| {
                    if b == b'\n' {
                        vec![b'\r', b'\n']
                    } else {
                        vec![b]
                    }
                })
                .collect();
            *src = crlf;
            "CRLF".into()
        }
        3 => {
            for b in src.iter_mut() {
                if *b == b'\n' {
                    *b = b'\r';
                }
            }
            "CR only".into()
        }
        4 => {
            let n = 1 + rng.below(5000);
            let open: &[u8] =
                [b"(".as_slice(), b"{", b"#if 1\n", b"[", b"/*", b"<<<"][rng.below(6)];
            let mut ins = Vec::with_capacity(open.len() * n);
            for _ in 0..n {
                ins.extend_from_slice(open);
            }
            src.splice(at..at, ins);
            format!("nest {n}×{:?}@{at}", String::from_utf8_lossy(open))
        }
        _ => {
            let p = pieces[rng.below(pieces.len())];
            src.splice(at..at, p.iter().copied());
            format!("insert {:?}@{at}", String::from_utf8_lossy(p))
        }
    }
}

struct Args {
    cases: usize,
    seed: u64,
    timeout: Duration,
    cli_every: usize,
    config_every: usize,
    jobs: usize,
    max_secs: Option<u64>,
    corpus: Vec<PathBuf>,
    replay: Vec<PathBuf>,
    bin: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut a = Args {
        cases: 1000,
        seed: 1,
        timeout: Duration::from_secs(20),
        cli_every: 10,
        config_every: 8,
        jobs: 1,
        max_secs: None,
        corpus: Vec::new(),
        replay: Vec::new(),
        bin: None,
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut val = || it.next().cloned().context(format!("{x} needs a value"));
        match x.as_str() {
            "--cases" => a.cases = val()?.parse()?,
            "--seed" => a.seed = val()?.parse()?,
            "--timeout" => a.timeout = Duration::from_secs(val()?.parse()?),
            "--cli-every" => a.cli_every = val()?.parse()?,
            "--config-every" => a.config_every = val()?.parse()?,
            "--jobs" => a.jobs = val()?.parse()?,
            "--max-secs" => a.max_secs = Some(val()?.parse()?),
            "--corpus" => a.corpus.push(PathBuf::from(val()?)),
            "--bin" => a.bin = Some(PathBuf::from(val()?)),
            "--replay" => a.replay.push(PathBuf::from(val()?)),
            other => bail!("unknown argument `{other}`"),
        }
    }
    Ok(a)
}

/// A file to mutate: where it came from, its extension and its bytes.
struct Seed {
    origin: String,
    ext: String,
    bytes: Vec<u8>,
}

/// Real CUDA files to mutate: the golden inputs and the sample project's sources.
fn seeds(root: &Path) -> Result<Vec<Seed>> {
    let mut out = Vec::new();
    for case in
        hipport::testkit::load_cases(&root.join("testdata/port")).map_err(anyhow::Error::msg)?
    {
        out.push(Seed {
            origin: case.input.display().to_string(),
            ext: case.ext(),
            bytes: std::fs::read(&case.input)?,
        });
    }
    for e in std::fs::read_dir(root.join("samples/nbody-lite"))? {
        let p = e?.path();
        let ext = p
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        if matches!(ext.as_str(), "cu" | "cuh" | "cpp" | "h") {
            out.push(Seed {
                origin: p.display().to_string(),
                ext,
                bytes: std::fs::read(&p)?,
            });
        }
    }
    out.sort_by(|a, b| a.origin.cmp(&b.origin));
    Ok(out)
}

/// Source extensions taken from a corpus.
const CORPUS_EXT: &[&str] = &[
    "cu", "cuh", "cpp", "cc", "cxx", "c", "h", "hpp", "hxx", "inl",
];
/// Larger corpus files are left out: they add time, not shapes (scaling is `xtask scaling`).
const CORPUS_MAX: u64 = 512 * 1024;

/// The source files of the trees named by `--corpus`, sorted by path (a bare git directory is
/// extracted first, from its `HEAD`, into `target/fuzz-corpus/`).
fn corpus_seeds(dirs: &[PathBuf], target_dir: &Path) -> Result<(Vec<Seed>, usize)> {
    let mut out = Vec::new();
    let mut skipped = 0;
    for d in dirs {
        let tree = extract_if_bare(d, target_dir)?;
        let mut files = Vec::new();
        collect(&tree, &mut files)?;
        files.sort();
        for p in files {
            let ext = p
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            if !CORPUS_EXT.contains(&ext.as_str()) {
                continue;
            }
            let len = std::fs::metadata(&p)?.len();
            if len == 0 || len > CORPUS_MAX {
                skipped += 1;
                continue;
            }
            out.push(Seed {
                origin: p.display().to_string(),
                ext,
                bytes: std::fs::read(&p)?,
            });
        }
    }
    Ok((out, skipped))
}

/// Regular files under `dir` (symlinks and `.git` not followed).
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() && e.file_name() != ".git" {
            collect(&e.path(), out)?;
        } else if t.is_file() {
            out.push(e.path());
        }
    }
    Ok(())
}

/// `dir` itself, or, when it is a bare git directory (`HEAD` and `objects/`, possibly under
/// `dir/repo`), a checkout of its `HEAD` under `target/fuzz-corpus/NAME`.
fn extract_if_bare(dir: &Path, target_dir: &Path) -> Result<PathBuf> {
    let git = [dir.to_path_buf(), dir.join("repo")]
        .into_iter()
        .find(|g| g.join("HEAD").is_file() && g.join("objects").is_dir());
    let Some(git) = git else {
        return Ok(dir.to_path_buf());
    };
    let name: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "corpus".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let to = target_dir.join("fuzz-corpus").join(name);
    if to.is_dir() {
        return Ok(to);
    }
    let partial = to.with_extension("partial");
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial)?;
    let git_cmd = || {
        let mut c = Command::new("git");
        c.arg("--git-dir").arg(&git);
        c
    };
    let listing = git_cmd()
        .args(["ls-tree", "-r", "-z", "HEAD"])
        .output()
        .context("git ls-tree")?;
    if !listing.status.success() {
        bail!("git ls-tree in {} failed", git.display());
    }
    // Entries are `MODE TYPE OBJECT\tPATH`; a snapshot may lack its largest blobs, so each
    // source file is read on its own and a missing one skipped.
    for entry in listing.stdout.split(|&b| b == 0) {
        let text = String::from_utf8_lossy(entry);
        let Some((meta, path)) = text.split_once('\t') else {
            continue;
        };
        let mut m = meta.split(' ');
        let (Some(mode), Some("blob"), Some(object)) = (m.next(), m.next(), m.next()) else {
            continue;
        };
        let ext = Path::new(path)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if mode == "120000" || !CORPUS_EXT.contains(&ext.as_str()) || path.contains("..") {
            continue;
        }
        let blob = git_cmd().args(["cat-file", "blob", object]).output()?;
        if blob.status.success() {
            let dest = partial.join(path);
            std::fs::create_dir_all(dest.parent().unwrap_or(&partial))?;
            std::fs::write(dest, blob.stdout)?;
        }
    }
    std::fs::rename(&partial, &to)?;
    Ok(to)
}

/// How a case is translated: the launch syntax, and `--compat-header` (with ROCm 5.2, which
/// needs the most shims) or not (ROCm 6.2).
#[derive(Clone, Copy)]
struct Mode {
    hip: bool,
    compat: bool,
    /// Also port with `--annotate` (hazard notes above flagged lines) and check that too.
    annotate: bool,
}

impl Mode {
    fn rocm(self) -> &'static str {
        if self.compat {
            "5.2.0"
        } else {
            "6.2.0"
        }
    }
    fn name(self) -> String {
        format!(
            "{}{}{}",
            if self.hip { "hip" } else { "keep" },
            if self.compat { "+compat" } else { "" },
            if self.annotate { "+annotate" } else { "" }
        )
    }
}

fn work(mode: Mode, hazards: bool) -> Work {
    Work {
        translate: Options {
            target: hipport::mappings::Target {
                rocm: mode.rocm().parse().expect("a version"),
                roc: false,
                experimental: false,
                lds: None,
            },
            launch: if mode.hip {
                LaunchSyntax::Hip
            } else {
                LaunchSyntax::Keep
            },
            implicit_include: true,
            compat_header: mode.compat,
            unsafe_fixes: false,
        },
        hazards,
        annotate: mode.annotate && hazards,
        keep_output: true,
        max_file_size: u64::MAX,
        // As the CLI: `scan` parses, `port` (diff, --out, --write) reads tokens only.
        parse_health: hazards,
    }
}

/// Comments and string/char literals of `src` (include paths excepted), in order.
fn literals(src: &[u8]) -> Vec<Vec<u8>> {
    let l = lex(src);
    l.tokens
        .iter()
        .filter(|t| matches!(t.kind, Tok::Comment | Tok::Str | Tok::Char))
        .filter(|t| {
            !(t.kind == Tok::Str
                && t.in_directive()
                && l.directives[t.directive as usize]
                    .name
                    .starts_with("include"))
        })
        .map(|t| t.text(src).to_vec())
        .collect()
}

/// The first literal that does not appear, in order, in `out`.
fn missing_literal(lits: &[Vec<u8>], out: &[u8]) -> Option<Vec<u8>> {
    let mut from = 0;
    for l in lits {
        match memchr::memmem::find(&out[from..], l) {
            Some(i) => from += i + l.len(),
            None => return Some(l.clone()),
        }
    }
    None
}

/// What went wrong with one case, if anything; and the port output.
fn check_case(rel: &str, input: Vec<u8>, mode: Mode) -> (Vec<String>, Vec<u8>) {
    let m = hipport::mappings::get();
    let mut problems = Vec::new();
    let run = |bytes: Vec<u8>, w: &Work| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            process_bytes(rel, bytes, w, m)
        }))
    };
    let plain = Mode {
        annotate: false,
        ..mode
    };
    let scanned = run(input.clone(), &work(plain, true));
    if scanned.is_err() {
        problems.push("panic (scan)".to_string());
    }
    let out = match run(input.clone(), &work(mode, false)) {
        Ok(r) => r.output,
        Err(_) => {
            problems.push("panic (port)".into());
            return (problems, Vec::new());
        }
    };
    // `port` reads tokens only; the scan's run (with a tree) must translate the same way.
    if scanned.is_ok_and(|r| r.output != out) {
        problems.push("port's output differs with a parse tree".into());
    }
    match run(out.clone(), &work(mode, false)) {
        Ok(r) if r.output != out => problems.push("not idempotent".into()),
        Ok(_) => {}
        Err(_) => problems.push("panic (port of the output)".into()),
    }
    let lits = literals(&input);
    if let Some(l) = missing_literal(&lits, &out) {
        let shown: String = String::from_utf8_lossy(&l).chars().take(80).collect();
        problems.push(format!("literal changed or lost: {shown:?}"));
    }
    if mode.annotate {
        // `port --annotate`: its output settles too, and a note never lands inside a comment
        // or a literal (which would change it).
        match run(input.clone(), &work(mode, true)) {
            Ok(r) => {
                let noted = r.output;
                match run(noted.clone(), &work(mode, true)) {
                    Ok(r) if r.output != noted => {
                        problems.push("not idempotent (--annotate)".into())
                    }
                    Ok(_) => {}
                    Err(_) => problems.push("panic (annotated port of the output)".into()),
                }
                if let Some(l) = missing_literal(&lits, &noted) {
                    let shown: String = String::from_utf8_lossy(&l).chars().take(80).collect();
                    problems.push(format!("literal changed or lost (--annotate): {shown:?}"));
                }
            }
            Err(_) => problems.push("panic (annotated port)".into()),
        }
    }
    (problems, out)
}

/// Runs a command with a time limit; returns (exit code, stdout) or an error on time-out.
fn run_limited(cmd: &mut Command, limit: Duration) -> Result<(i32, Vec<u8>)> {
    let out_file = tempfile()?;
    let mut child = cmd
        .stdout(Stdio::from(std::fs::File::create(&out_file)?))
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()?;
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait()? {
            let bytes = std::fs::read(&out_file)?;
            let _ = std::fs::remove_file(&out_file);
            return Ok((st.code().unwrap_or(-1), bytes));
        }
        if over_limit(child.id(), start, limit) {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&out_file);
            bail!("timed out after {limit:?} of CPU time");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn tempfile() -> Result<PathBuf> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(std::env::temp_dir().join(format!("hipport-fuzz-{}-{n}", std::process::id())))
}

struct Case {
    id: usize,
    rel: String,
    input: Vec<u8>,
    mode: Mode,
    what: Vec<String>,
    /// The library's output; None when the case hung (the CLI is not compared then).
    output: Option<Vec<u8>>,
}

type Job = (String, Vec<u8>, Mode);
type Outcome = (Vec<String>, Vec<u8>);

/// `--replay FILE…`: the in-process checks of saved inputs (`target/fuzz-failures/`) in every
/// mode, with the time each took.
fn replay(files: &[PathBuf]) -> Result<ExitCode> {
    let _ = hipport::mappings::get();
    let mut failed = 0;
    for f in files {
        let input = std::fs::read(f).with_context(|| f.display().to_string())?;
        let rel = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (hip, compat) in [(false, false), (true, false), (false, true), (true, true)] {
            let mode = Mode {
                hip,
                compat,
                annotate: true,
            };
            let t0 = Instant::now();
            let (problems, _) = check_case(&rel, input.clone(), mode);
            println!(
                "{} [{}] {:.2} s: {}",
                f.display(),
                mode.name(),
                t0.elapsed().as_secs_f64(),
                if problems.is_empty() {
                    "ok".to_string()
                } else {
                    problems.join("; ")
                }
            );
            failed += usize::from(!problems.is_empty());
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A thread running the in-process checks, and its CPU clock. The main thread enforces the time
/// limit on that clock: the fuzzer runs under `nice` on shared machines, where wall time says
/// more about the neighbours than about hipport. After a hang a new worker replaces the stuck
/// one (which is left behind).
struct Worker {
    tx: mpsc::Sender<Job>,
    rx: mpsc::Receiver<Outcome>,
    clock: Option<libc::clockid_t>,
}

fn worker() -> Worker {
    let (tx, job_rx) = mpsc::channel::<Job>();
    let (res_tx, rx) = mpsc::channel::<Outcome>();
    let handle = std::thread::spawn(move || {
        for (rel, input, mode) in job_rx {
            if res_tx.send(check_case(&rel, input, mode)).is_err() {
                return;
            }
        }
    });
    let clock = {
        use std::os::unix::thread::JoinHandleExt;
        let mut clk: libc::clockid_t = 0;
        // SAFETY: the thread is alive (it waits for jobs); clk is a valid out-pointer.
        let r = unsafe { libc::pthread_getcpuclockid(handle.as_pthread_t(), &mut clk) };
        (r == 0).then_some(clk)
    };
    Worker { tx, rx, clock }
}

fn clock_time(clock: libc::clockid_t) -> Option<Duration> {
    // SAFETY: a zeroed timespec is valid; clock_gettime only writes it.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::clock_gettime(clock, &mut ts) };
    (r == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

impl Worker {
    /// The outcome of the job just sent and the CPU time it took; None after `limit` of CPU
    /// time (or 20× `limit` of wall time).
    fn wait(&self, limit: Duration) -> Option<(Outcome, Duration)> {
        let cpu0 = self.clock.and_then(clock_time);
        let start = Instant::now();
        let used = || match (cpu0, self.clock.and_then(clock_time)) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => start.elapsed(),
        };
        loop {
            match self.rx.recv_timeout(Duration::from_millis(200)) {
                Ok(r) => return Some((r, used())),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if used() > limit || start.elapsed() > limit * 20 {
                        return None;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}

/// CPU time (user + system, all threads) of a running process, from `/proc` (Linux).
fn process_cpu(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After "pid (comm) ", field 3 (state) is index 0: utime (14) and stime (15) are 11 and 12.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(Duration::from_millis(ticks * 1000 / hz))
}

/// Whether a child started at `start` has used more than `limit` of CPU time (or, where that
/// cannot be read, of wall time), or 20× `limit` of wall time.
pub(crate) fn over_limit(pid: u32, start: Instant, limit: Duration) -> bool {
    let wall = start.elapsed();
    match process_cpu(pid) {
        Some(cpu) => cpu > limit || wall > limit * 20,
        None => wall > limit,
    }
}

/// The hipport binary for the CLI checks: `--bin`, else built in the profile xtask runs in
/// (`cargo run --release -p xtask -- fuzz` checks the release binary).
fn binary(a: &Args, root: &Path, target_dir: &Path) -> Result<Option<PathBuf>> {
    if let Some(b) = &a.bin {
        return Ok(Some(b.clone()));
    }
    if a.cli_every == 0 && a.config_every == 0 {
        return Ok(None);
    }
    let release = !cfg!(debug_assertions);
    let mut cmd = Command::new("cargo");
    cmd.args(["build", "--quiet", "-p", "hipport"]);
    if release {
        cmd.arg("--release");
    }
    if !cmd.current_dir(root).status()?.success() {
        bail!("cargo build -p hipport failed");
    }
    let profile = if release { "release" } else { "debug" };
    Ok(Some(target_dir.join(profile).join("hipport")))
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let a = parse(args)?;
    if !a.replay.is_empty() {
        return replay(&a.replay);
    }
    let root = crate::mappings::repo_root();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let seeds = if a.corpus.is_empty() {
        seeds(&root)?
    } else {
        let (s, skipped) = corpus_seeds(&a.corpus, &target_dir)?;
        let mb = s.iter().map(|s| s.bytes.len()).sum::<usize>() as f64 / 1e6;
        println!(
            "fuzz: corpus of {} files ({mb:.1} MB) from {} tree(s); {skipped} empty or over {} KiB left out",
            s.len(),
            a.corpus.len(),
            CORPUS_MAX / 1024
        );
        s
    };
    if seeds.is_empty() {
        bail!("no seed files");
    }
    let fail_dir = target_dir.join("fuzz-failures");
    let bin = binary(&a, &root, &target_dir)?;
    let mut config = match (&bin, a.config_every) {
        (Some(bin), k) if k > 0 => Some(crate::fuzz_config::Fuzzer::new(
            &root, bin, a.timeout, &fail_dir,
        )?),
        _ => None,
    };
    // Loading the tables once up front keeps the first case's time limit honest.
    let _ = hipport::mappings::get();
    // `--jobs` workers; case `id` goes to worker `id % jobs` and results are taken in case
    // order, so at most one case per worker is in flight and the run is the same for any J.
    let jobs = a.jobs.max(1);
    let mut workers: Vec<Worker> = (0..jobs).map(|_| worker()).collect();
    let mut in_flight: std::collections::VecDeque<Case> = Default::default();
    // Panics are counted, not printed per case.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(a.seed);
    let mut config_rng = Rng(a.seed ^ 0x5eed_c0f1_6000_0000);
    let started = Instant::now();
    let (mut failures, mut bytes_total, mut cli_runs, mut hangs) = (0usize, 0usize, 0usize, 0);
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    let mut batch: Vec<Case> = Vec::new();
    let mut slowest = Duration::ZERO;
    let batch_size = 50;
    let mut done: usize = 0;
    // `--max-secs`: no new case after that long; the cases in flight finish and are counted.
    let mut last_id = a.cases.saturating_sub(1);
    for id in 0..a.cases {
        if id > last_id {
            break;
        }
        if a.max_secs.is_some_and(|m| started.elapsed().as_secs() >= m) && id < last_id {
            last_id = id;
            println!("fuzz: --max-secs reached: case {id} is the last");
        }
        let seed = &seeds[rng.below(seeds.len())];
        let mut input = seed.bytes.clone();
        let mut what = vec![format!("from {}", seed.origin)];
        for _ in 0..1 + rng.below(4) {
            what.push(mutate(&mut rng, &mut input));
        }
        // One mode per batch, so a batch is one `port --out` run.
        let mode = Mode {
            hip: (id / batch_size) % 2 == 1,
            compat: (id / (2 * batch_size)) % 2 == 1,
            // Every other case: the annotated port is checked too (it parses: twice the cost).
            annotate: id % 2 == 1,
        };
        let rel = format!("case{id:06}.{}", seed.ext);
        bytes_total += input.len();
        workers[id % jobs]
            .tx
            .send((rel.clone(), input.clone(), mode))?;
        in_flight.push_back(Case {
            id,
            rel,
            input,
            mode,
            what,
            output: None,
        });
        while in_flight.len() >= jobs || (id == last_id && !in_flight.is_empty()) {
            let Some(mut c) = in_flight.pop_front() else {
                break;
            };
            let w = c.id % jobs;
            let problems = match workers[w].wait(a.timeout) {
                Some((r, cpu)) => {
                    slowest = slowest.max(cpu);
                    c.output = Some(r.1);
                    r.0
                }
                None => {
                    hangs += 1;
                    workers[w] = worker();
                    vec![format!(
                        "hang: no result within {:?} of CPU time",
                        a.timeout
                    )]
                }
            };
            done += 1;
            if !problems.is_empty() {
                failures += 1;
                for p in &problems {
                    *counts
                        .entry(p.split(':').next().unwrap_or(p).to_string())
                        .or_default() += 1;
                }
                save(&fail_dir, &c.rel, &c.input, &c.what, &problems)?;
                println!(
                    "FAIL {} [{}] ({}): {}",
                    c.rel,
                    c.mode.name(),
                    c.what.join(", "),
                    problems.join("; ")
                );
            }
            if let Some(cfg) = config.as_mut().filter(|_| c.id % a.config_every == 0) {
                let bad = cfg.case(c.id, &mut config_rng)?;
                if bad > 0 {
                    failures += bad;
                    *counts.entry("config/record/baseline".into()).or_default() += bad;
                }
            }
            let last = c.id == last_id;
            batch.push(c);
            if batch.len() == batch_size || last {
                if let Some(bin) = bin.as_ref().filter(|_| a.cli_every > 0) {
                    let (n, bad) = cli_batch(bin, &batch, a.cli_every, a.timeout, &fail_dir)?;
                    cli_runs += n;
                    if bad > 0 {
                        failures += bad;
                        *counts.entry("CLI disagreement".into()).or_default() += bad;
                    }
                }
                batch.clear();
            }
            if done.is_multiple_of(1000) {
                println!(
                    "fuzz: {done} cases in {:.0} s, {failures} failed",
                    started.elapsed().as_secs_f64()
                );
            }
        }
        if hangs >= 3 {
            println!("fuzz: stopping after {hangs} hangs (each leaves a busy thread)");
            break;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "fuzz: {done} cases ({:.1} MB of mutated input) in {secs:.0} s, seed {}, {jobs} job(s), {cli_runs} CLI runs; slowest case {:.2} s of CPU",
        bytes_total as f64 / 1e6,
        a.seed,
        slowest.as_secs_f64()
    );
    if let Some(cfg) = &config {
        println!(
            "fuzz: {} mutated config/record/baseline files ({} rejected by the library), {} CLI runs on them",
            cfg.cases, cfg.rejected, cfg.runs
        );
    }
    for (k, v) in &counts {
        println!("  {v} × {k}");
    }
    println!(
        "{} passed, {failures} failed",
        done.saturating_sub(failures)
    );
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub(crate) fn save(
    dir: &Path,
    rel: &str,
    input: &[u8],
    what: &[String],
    problems: &[String],
) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(rel), input)?;
    std::fs::write(
        dir.join(format!("{rel}.why")),
        format!(
            "mutations: {}\nproblems: {}\n",
            what.join(", "),
            problems.join("; ")
        ),
    )?;
    Ok(())
}

/// `port --out` over the whole batch must write what the library produced; `port -o -` on
/// every K-th file must print the same bytes. Returns (CLI runs, disagreements).
fn cli_batch(
    bin: &Path,
    batch: &[Case],
    every: usize,
    limit: Duration,
    fail_dir: &Path,
) -> Result<(usize, usize)> {
    // A case that hung in process was counted already; the CLI would hang on it too.
    let batch: Vec<&Case> = batch.iter().filter(|c| c.output.is_some()).collect();
    if every == 0 || batch.is_empty() {
        return Ok((0, 0));
    }
    let dir = tempfile()?;
    let (inp, out) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(&inp)?;
    for c in &batch {
        std::fs::write(inp.join(&c.rel), &c.input)?;
    }
    let m = batch[0].mode;
    let mode = m.name();
    let mut base = vec![
        "port",
        "--rocm",
        m.rocm(),
        "-q",
        "--max-file-size",
        "1000000000",
        "--launch-syntax",
        if m.hip { "hip" } else { "keep" },
    ];
    if m.compat {
        base.push("--compat-header");
    }
    let mut runs = 1;
    let mut bad = 0;
    let r = run_limited(
        Command::new(bin)
            .args(&base)
            .arg("--out")
            .arg(&out)
            .arg(&inp),
        limit * 4,
    );
    if let Err(e) = &r {
        println!("FAIL batch of {} ({mode}): port --out {e}", batch[0].rel);
        bad += 1;
    }
    for c in batch {
        let output = c.output.as_deref().unwrap_or_default();
        // Files the CLI refuses to read (NUL bytes, UTF-16) are skipped with a message by both
        // forms: nothing written, nothing printed.
        let readable = hipport::source::check_bytes(&c.input).is_ok();
        let written = match std::fs::read(out.join(&c.rel)) {
            Ok(b) => b,
            Err(_) if readable => c.input.clone(),
            Err(_) => Vec::new(),
        };
        let expected = if readable { output } else { &[][..] };
        let mut problems = Vec::new();
        if r.is_ok() && written != expected {
            problems.push("port --out differs from the library's output".to_string());
        }
        if c.id % every == 0 {
            runs += 1;
            match run_limited(
                Command::new(bin)
                    .args(&base)
                    .arg("-o")
                    .arg("-")
                    .arg(inp.join(&c.rel)),
                limit,
            ) {
                Ok((_, stdout)) if r.is_ok() && stdout != written => {
                    problems.push("port -o - differs from port --out".into())
                }
                Ok(_) => {}
                Err(e) => problems.push(format!("port -o -: {e}")),
            }
        }
        if !problems.is_empty() {
            bad += 1;
            save(fail_dir, &c.rel, &c.input, &c.what, &problems)?;
            println!(
                "FAIL {} [{mode}] ({}): {}",
                c.rel,
                c.what.join(", "),
                problems.join("; ")
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok((runs, bad))
}
