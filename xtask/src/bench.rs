//! `cargo xtask bench [--size MB] [--tree PATH]... [--hipify-perl PATH] [--runs N]`: ports a
//! generated CUDA corpus (and any real trees given) with the release binary, and prints wall
//! time, MB/s, files/s and peak memory; runs hipify-perl on the same files side by side when it
//! is available (`--hipify-perl`, `$HIPIFY_PERL`, or on PATH). A parse-only pass over the same
//! files (read + tree-sitter parse, no rules, no translation, one thread per core) is the floor
//! a scan cannot go below; its ratio to `scan` and `port` is printed.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

struct Args {
    size_mb: usize,
    trees: Vec<PathBuf>,
    hipify_perl: Option<PathBuf>,
    runs: usize,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut a = Args {
        size_mb: 21,
        trees: Vec::new(),
        hipify_perl: std::env::var_os("HIPIFY_PERL").map(PathBuf::from),
        runs: 3,
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut val = || it.next().cloned().context(format!("{x} needs a value"));
        match x.as_str() {
            "--size" => a.size_mb = val()?.parse()?,
            "--tree" => a.trees.push(PathBuf::from(val()?)),
            "--hipify-perl" => a.hipify_perl = Some(PathBuf::from(val()?)),
            "--runs" => a.runs = val()?.parse()?,
            other => bail!("unknown argument `{other}`"),
        }
    }
    if a.hipify_perl.is_none() {
        if let Ok(o) = Command::new("which").arg("hipify-perl").output() {
            let p = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if o.status.success() && !p.is_empty() {
                a.hipify_perl = Some(PathBuf::from(p));
            }
        }
    }
    Ok(a)
}

/// A deterministic corpus built from the golden inputs and the sample, each copy varied so that
/// no two files are identical.
fn generate(dir: &Path, size_mb: usize) -> Result<()> {
    let root = crate::mappings::repo_root();
    let marker = dir.join(format!(".size-{size_mb}"));
    if marker.exists() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    for case in
        hipport::testkit::load_cases(&root.join("testdata/port")).map_err(anyhow::Error::msg)?
    {
        seeds.push((case.ext(), std::fs::read(&case.input)?));
    }
    for e in std::fs::read_dir(root.join("samples/nbody-lite"))? {
        let p = e?.path();
        let ext = p
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        seeds.push((ext, std::fs::read(&p)?));
    }
    seeds.sort();
    let target = size_mb * 1024 * 1024;
    let (mut total, mut n) = (0usize, 0usize);
    while total < target {
        let (ext, body) = &seeds[n % seeds.len()];
        let sub = dir.join(format!("mod{:03}", n / 100));
        std::fs::create_dir_all(&sub)?;
        let mut text = format!("// generated corpus file {n}\n").into_bytes();
        // Repeat the body a few times so file sizes vary like real code (1–40 KB).
        for r in 0..(1 + n % 12) {
            text.extend_from_slice(format!("// copy {r}\n").as_bytes());
            text.extend_from_slice(body);
        }
        total += text.len();
        std::fs::write(sub.join(format!("f{n:05}.{ext}")), text)?;
        n += 1;
    }
    std::fs::write(marker, format!("{n} files, {total} bytes\n"))?;
    Ok(())
}

fn sources(dir: &Path) -> Vec<PathBuf> {
    let exts = hipport::walk::DEFAULT_EXTENSIONS;
    let (inputs, _) =
        hipport::walk::walk(&[dir.to_path_buf()], &hipport::walk::WalkOptions::default())
            .unwrap_or_default();
    inputs
        .into_iter()
        .filter(|i| {
            i.path
                .extension()
                .is_some_and(|e| exts.iter().any(|x| *x == e))
        })
        .map(|i| i.path)
        .collect()
}

/// Runs a command, returning (wall seconds, peak RSS in MiB of that child), measured with
/// `wait4` so each run's memory is its own.
fn timed(cmd: &mut Command) -> Result<(f64, f64)> {
    let start = Instant::now();
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    let mut status: libc::c_int = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child and writes into locals we own.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    let wall = start.elapsed().as_secs_f64();
    if pid < 0 {
        bail!("wait4 failed for {cmd:?}");
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    if code != 0 && code != 1 {
        // The argument list can hold thousands of file names: name the program and the count.
        let args: Vec<_> = cmd.get_args().collect();
        bail!(
            "{} {} … ({} arguments) failed with exit code {code}",
            cmd.get_program().to_string_lossy(),
            args.iter()
                .take(3)
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            args.len()
        );
    }
    Ok((wall, ru.ru_maxrss as f64 / 1024.0))
}

fn row(tool: &str, mode: &str, files: usize, bytes: u64, wall: f64, rss: Option<f64>) {
    let mb = bytes as f64 / 1e6;
    println!(
        "| {tool:<11} | {mode:<34} | {files:>6} | {mb:>7.1} | {wall:>7.3} | {:>7.1} | {:>8.0} | {:>8} |",
        mb / wall,
        files as f64 / wall,
        rss.map(|r| format!("{r:.0}")).unwrap_or_else(|| "-".into())
    );
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let a = parse(args)?;
    let root = crate::mappings::repo_root();
    let st = Command::new("cargo")
        .args(["build", "--release", "--quiet", "-p", "hipport"])
        .current_dir(&root)
        .status()?;
    if !st.success() {
        bail!("cargo build --release failed");
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let exe = target_dir.join("release/hipport");
    let corpus = target_dir.join("bench-corpus");
    generate(&corpus, a.size_mb)?;
    let mut trees = vec![corpus];
    trees.extend(a.trees.iter().cloned());
    println!(
        "machine: {} cores; hipport {}; runs: best of {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        env!("CARGO_PKG_VERSION"),
        a.runs
    );
    println!("| tool        | tree / mode                        |  files |      MB |  wall s |    MB/s |  files/s | peak MiB |");
    println!("|-------------|------------------------------------|-------:|--------:|--------:|--------:|---------:|---------:|");
    let mut ratios = Vec::new();
    for tree in &trees {
        let files = sources(tree);
        let bytes: u64 = files
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum();
        let name = tree
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out = tempfile_dir()?;
        let mut best = (f64::MAX, 0.0);
        for _ in 0..a.runs {
            let (w, r) = timed(
                Command::new(&exe)
                    .args(["port", "--rocm", "6.2.0", "-q", "--out"])
                    .arg(&out)
                    .arg(tree),
            )?;
            if w < best.0 {
                best = (w, r);
            }
        }
        row(
            "hipport",
            &format!("{name}: port --out"),
            files.len(),
            bytes,
            best.0,
            Some(best.1),
        );
        let (port_s, r) = best_of(a.runs, || {
            timed(
                Command::new(&exe)
                    .args(["port", "-q", "--rocm", "6.2.0"])
                    .arg(tree),
            )
        })?;
        row(
            "hipport",
            &format!("{name}: port (diff)"),
            files.len(),
            bytes,
            port_s,
            Some(r),
        );
        let (scan_s, r) = best_of(a.runs, || {
            timed(
                Command::new(&exe)
                    .args(["scan", "--format", "json", "--rocm", "6.2.0"])
                    .arg(tree),
            )
        })?;
        row(
            "hipport",
            &format!("{name}: scan"),
            files.len(),
            bytes,
            scan_s,
            Some(r),
        );
        let parse_s = (0..a.runs)
            .map(|_| parse_floor(&files))
            .fold(f64::MAX, f64::min);
        row(
            "tree-sitter",
            &format!("{name}: parse only, no rules"),
            files.len(),
            bytes,
            parse_s,
            None,
        );
        ratios.push(format!(
            "{name}: scan / port (diff) = {:.2}; scan / parse floor = {:.2}; port (diff) / parse floor = {:.2}",
            scan_s / port_s,
            scan_s / parse_s,
            port_s / parse_s
        ));
        if let Some(perl) = &a.hipify_perl {
            let mut cmd = Command::new("perl");
            cmd.arg(perl)
                .args(["-quiet-warnings", "-no-output"])
                .args(&files);
            let (w, r) = timed(&mut cmd)?;
            row(
                "hipify-perl",
                &format!("{name}: one process, all files"),
                files.len(),
                bytes,
                w,
                Some(r),
            );
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    for r in &ratios {
        println!("{r}");
    }
    // Start-up: loading and indexing the embedded mapping tables, measured as the difference
    // between porting an empty file and printing the version, over many runs.
    let empty = tempfile_dir()?.join("empty.cu");
    std::fs::write(&empty, b"")?;
    let n = 40;
    let (mut base, mut with_tables) = (0.0, 0.0);
    for _ in 0..n {
        base += timed(Command::new(&exe).arg("--version"))?.0;
        with_tables += timed(Command::new(&exe).args(["port", "-q"]).arg(&empty))?.0;
    }
    println!(
        "start-up: {:.1} ms per run with the mapping tables loaded, {:.1} ms without (tables ≈ {:.1} ms)",
        with_tables / n as f64 * 1e3,
        base / n as f64 * 1e3,
        (with_tables - base) / n as f64 * 1e3
    );
    if a.hipify_perl.is_none() {
        println!("(hipify-perl not found: pass --hipify-perl PATH or set HIPIFY_PERL to compare)");
    }
    println!("peak MiB: the run's maximum resident set size (wait4 rusage).");
    Ok(ExitCode::SUCCESS)
}

/// Wall seconds to read and parse every file with hipport's tree-sitter CUDA parser, nothing
/// else, on one thread per core (as the scan's worker pool). The parser crates are built at
/// opt-level 2 in every profile, so this in-process figure compares with the release binary.
fn parse_floor(files: &[PathBuf]) -> f64 {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                if let Ok(bytes) = std::fs::read(f) {
                    std::hint::black_box(hipport::parse::parse(&bytes));
                }
            });
        }
    });
    start.elapsed().as_secs_f64()
}

/// The fastest of `runs` timed runs (wall seconds, that run's peak MiB).
fn best_of(runs: usize, mut f: impl FnMut() -> Result<(f64, f64)>) -> Result<(f64, f64)> {
    let mut best = (f64::MAX, 0.0);
    for _ in 0..runs.max(1) {
        let (w, r) = f()?;
        if w < best.0 {
            best = (w, r);
        }
    }
    Ok(best)
}

fn tempfile_dir() -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("hipport-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d)?;
    Ok(d)
}
