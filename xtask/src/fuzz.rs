//! `cargo xtask fuzz [--cases N] [--seed S] [--timeout SECS] [--cli-every K] [--bin PATH]`: a
//! mutation fuzzer over the golden inputs and the sample project.
//!
//! Each case takes a real CUDA file and applies one to four mutations (delete, duplicate or
//! insert ranges; insert `/*`, `*/`, `"`, `R"(`, `\`+LF/CRLF, `#if`, `<<<`, `>>>`, NUL, invalid
//! UTF-8; turn line ends into CRLF or CR only; nest thousands of brackets or `#if`s), then checks:
//! - no panic (scan and port paths, in process) and no hang (each case has a time limit);
//! - `port` is idempotent: porting the output again changes nothing;
//! - every comment and string/char literal of the input appears unchanged, in order, in the
//!   output (include paths excepted: rewriting them is the point);
//! - the CLI agrees with itself: `port --out DIR` writes what the library produced, and
//!   `port -o -` prints the same bytes (every K-th case; `--cli-every 0` skips the CLI).
//!
//! The RNG is a fixed splitmix64, so `--seed` reproduces a run exactly. Failing inputs are
//! written to `target/fuzz-failures/`. Exit 1 when anything failed.

use anyhow::{bail, Context, Result};
use hipport::lex::{lex, Tok};
use hipport::pipeline::{process_bytes, Work};
use hipport::translate::{LaunchSyntax, Options};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
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
            let p = PIECES[rng.below(PIECES.len())];
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
    bin: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut a = Args {
        cases: 1000,
        seed: 1,
        timeout: Duration::from_secs(20),
        cli_every: 10,
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
            "--bin" => a.bin = Some(PathBuf::from(val()?)),
            other => bail!("unknown argument `{other}`"),
        }
    }
    Ok(a)
}

/// Real CUDA files to mutate: the golden inputs and the sample project's sources.
fn seeds(root: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for case in
        hipport::testkit::load_cases(&root.join("testdata/port")).map_err(anyhow::Error::msg)?
    {
        out.push((case.ext(), std::fs::read(&case.input)?));
    }
    for e in std::fs::read_dir(root.join("samples/nbody-lite"))? {
        let p = e?.path();
        let ext = p
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        if matches!(ext.as_str(), "cu" | "cuh" | "cpp" | "h") {
            out.push((ext, std::fs::read(&p)?));
        }
    }
    out.sort();
    Ok(out)
}

fn work(hip: bool, hazards: bool) -> Work {
    Work {
        translate: Options {
            target: hipport::mappings::Target {
                rocm: "6.2.0".parse().expect("a version"),
                roc: false,
                experimental: false,
            },
            launch: if hip {
                LaunchSyntax::Hip
            } else {
                LaunchSyntax::Keep
            },
            implicit_include: true,
            compat_header: false,
        },
        hazards,
        annotate: false,
        keep_output: true,
        max_file_size: u64::MAX,
        parse_health: true,
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
fn check_case(rel: &str, input: Vec<u8>, hip: bool) -> (Vec<String>, Vec<u8>) {
    let m = hipport::mappings::get();
    let mut problems = Vec::new();
    let run = |bytes: Vec<u8>, w: &Work| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            process_bytes(rel, bytes, w, m)
        }))
    };
    if run(input.clone(), &work(hip, true)).is_err() {
        problems.push("panic (scan)".to_string());
    }
    let out = match run(input.clone(), &work(hip, false)) {
        Ok(r) => r.output,
        Err(_) => {
            problems.push("panic (port)".into());
            return (problems, Vec::new());
        }
    };
    match run(out.clone(), &work(hip, false)) {
        Ok(r) if r.output != out => problems.push("not idempotent".into()),
        Ok(_) => {}
        Err(_) => problems.push("panic (port of the output)".into()),
    }
    if let Some(l) = missing_literal(&literals(&input), &out) {
        let shown: String = String::from_utf8_lossy(&l).chars().take(80).collect();
        problems.push(format!("literal changed or lost: {shown:?}"));
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
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&out_file);
            bail!("timed out after {limit:?}");
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
    hip: bool,
    what: Vec<String>,
    output: Vec<u8>,
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let a = parse(args)?;
    let root = crate::mappings::repo_root();
    let seeds = seeds(&root)?;
    if seeds.is_empty() {
        bail!("no seed files");
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let fail_dir = target_dir.join("fuzz-failures");
    let bin = match &a.bin {
        Some(b) => Some(b.clone()),
        None if a.cli_every > 0 => {
            let st = Command::new("cargo")
                .args(["build", "--quiet", "-p", "hipport"])
                .current_dir(&root)
                .status()?;
            if !st.success() {
                bail!("cargo build -p hipport failed");
            }
            Some(target_dir.join("debug/hipport"))
        }
        None => None,
    };
    // Loading the tables once up front keeps the first case's time limit honest.
    let _ = hipport::mappings::get();
    // One worker thread runs the in-process checks; the main thread enforces the time limit.
    let (job_tx, job_rx) = mpsc::channel::<(String, Vec<u8>, bool)>();
    let (res_tx, res_rx) = mpsc::channel::<(Vec<String>, Vec<u8>)>();
    std::thread::spawn(move || {
        for (rel, input, hip) in job_rx {
            if res_tx.send(check_case(&rel, input, hip)).is_err() {
                return;
            }
        }
    });
    // Panics are counted, not printed per case.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(a.seed);
    let started = Instant::now();
    let (mut failures, mut bytes_total, mut cli_runs) = (0usize, 0usize, 0usize);
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    let mut batch: Vec<Case> = Vec::new();
    let mut slowest = Duration::ZERO;
    let batch_size = 50;
    for id in 0..a.cases {
        let (ext, body) = &seeds[rng.below(seeds.len())];
        let mut input = body.clone();
        let mut what = Vec::new();
        for _ in 0..1 + rng.below(4) {
            what.push(mutate(&mut rng, &mut input));
        }
        // One launch mode per batch, so a batch is one `port --out` run.
        let hip = (id / batch_size) % 2 == 1;
        let rel = format!("case{id:06}.{ext}");
        bytes_total += input.len();
        let t0 = Instant::now();
        job_tx.send((rel.clone(), input.clone(), hip))?;
        let (problems, output) = match res_rx.recv_timeout(a.timeout) {
            Ok(r) => r,
            Err(_) => {
                save(&fail_dir, &rel, &input, &what, &["hang".to_string()])?;
                println!(
                    "HANG {rel} ({}): no result within {:?}; stopping",
                    what.join(", "),
                    a.timeout
                );
                println!("fuzz: {id} cases before the hang, 1 failure");
                return Ok(ExitCode::FAILURE);
            }
        };
        slowest = slowest.max(t0.elapsed());
        if !problems.is_empty() {
            failures += 1;
            for p in &problems {
                *counts
                    .entry(p.split(':').next().unwrap_or(p).to_string())
                    .or_default() += 1;
            }
            save(&fail_dir, &rel, &input, &what, &problems)?;
            println!(
                "FAIL {rel} [{}] ({}): {}",
                if hip { "hip" } else { "keep" },
                what.join(", "),
                problems.join("; ")
            );
        }
        batch.push(Case {
            id,
            rel,
            input,
            hip,
            what,
            output,
        });
        if batch.len() == batch_size || id + 1 == a.cases {
            if let Some(bin) = &bin {
                let (n, bad) = cli_batch(bin, &batch, a.cli_every, a.timeout, &fail_dir)?;
                cli_runs += n;
                if bad > 0 {
                    failures += bad;
                    *counts.entry("CLI disagreement".into()).or_default() += bad;
                }
            }
            batch.clear();
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "fuzz: {} cases ({:.1} MB of mutated input) in {secs:.0} s, seed {}, {cli_runs} CLI runs; slowest case {:.2} s",
        a.cases,
        bytes_total as f64 / 1e6,
        a.seed,
        slowest.as_secs_f64()
    );
    for (k, v) in &counts {
        println!("  {v} × {k}");
    }
    println!(
        "{} passed, {failures} failed",
        a.cases.saturating_sub(failures)
    );
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn save(dir: &Path, rel: &str, input: &[u8], what: &[String], problems: &[String]) -> Result<()> {
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
    if every == 0 || batch.is_empty() {
        return Ok((0, 0));
    }
    let dir = tempfile()?;
    let (inp, out) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(&inp)?;
    for c in batch {
        std::fs::write(inp.join(&c.rel), &c.input)?;
    }
    let hip = batch[0].hip;
    let mode = if hip { "hip" } else { "keep" };
    let base = [
        "port",
        "--rocm",
        "6.2.0",
        "-q",
        "--max-file-size",
        "1000000000",
        "--launch-syntax",
        mode,
    ];
    let mut runs = 1;
    let mut bad = 0;
    let r = run_limited(
        Command::new(bin)
            .args(base)
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
        // Files the CLI refuses to read (NUL bytes, UTF-16) are skipped with a message by both
        // forms: nothing written, nothing printed.
        let readable = hipport::source::check_bytes(&c.input).is_ok();
        let written = match std::fs::read(out.join(&c.rel)) {
            Ok(b) => b,
            Err(_) if readable => c.input.clone(),
            Err(_) => Vec::new(),
        };
        let expected = if readable { &c.output[..] } else { &[][..] };
        let mut problems = Vec::new();
        if r.is_ok() && written != expected {
            problems.push("port --out differs from the library's output".to_string());
        }
        if c.id % every == 0 {
            runs += 1;
            match run_limited(
                Command::new(bin)
                    .args(base)
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
