//! `cargo xtask build-audit`: does `port` output build on real trees? Goldens prove that small
//! cases compile; this proves it (or not) on pinned public CUDA programs, unit by unit.
//!
//! Each project of `xtask/audit.toml` is extracted at its pinned commit from a bare mirror (or
//! cloned with `--fetch`) twice: one copy stays CUDA ("before": what hipcc makes of the unported
//! source, since hipify-perl is not installed here), the other is ported with
//! `hipport port --write --compat-header --rocm 5.2` ("after"). Every unit is compiled with
//! `hipcc -c --offload-arch=gfx90a -x hip`, a bounded number at a time, and each failure is
//! classed by its first error line. Output is sorted, so two runs on the same trees print the same
//! table. `git` and `tar` get argument vectors, never a shell line. Nothing is stubbed: a header
//! Debian does not ship is a "missing dependency", and it is counted as such.

use anyhow::{bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const BEGIN: &str = "<!-- build-audit:begin -->";
pub const END: &str = "<!-- build-audit:end -->";

#[derive(Deserialize)]
struct Config {
    project: Vec<Project>,
}

#[derive(Deserialize, Clone)]
struct Project {
    repo: String,
    commit: String,
    licence: String,
    units: Vec<String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    port_args: Vec<String>,
    /// A matched file that another file of the tree `#include`s is compiled as part of that
    /// file, not as a unit of its own (Rodinia includes its kernel `.cu` files).
    #[serde(default)]
    skip_included: bool,
}

struct Args {
    config: PathBuf,
    mirrors: PathBuf,
    fetch: bool,
    jobs: usize,
    hipcc: String,
    bin: Option<PathBuf>,
    json: bool,
    write_docs: bool,
    only: Vec<String>,
    timeout: Duration,
}

fn parse(args: &[String]) -> Result<Args> {
    let root = crate::mappings::repo_root();
    let mut a = Args {
        config: root.join("xtask/audit.toml"),
        mirrors: PathBuf::from("/work/.mirror"),
        fetch: false,
        jobs: 2,
        hipcc: "hipcc".into(),
        bin: None,
        json: false,
        write_docs: false,
        only: Vec::new(),
        timeout: Duration::from_secs(300),
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut val = || it.next().cloned().context(format!("{x} needs a value"));
        match x.as_str() {
            "--config" => a.config = PathBuf::from(val()?),
            "--mirrors" => a.mirrors = PathBuf::from(val()?),
            "--fetch" => a.fetch = true,
            "--jobs" => a.jobs = val()?.parse::<usize>()?.max(1),
            "--hipcc" => a.hipcc = val()?,
            "--bin" => a.bin = Some(PathBuf::from(val()?)),
            "--json" => a.json = true,
            "--write-docs" => a.write_docs = true,
            "--project" => a.only.push(val()?),
            "--timeout" => a.timeout = Duration::from_secs(val()?.parse()?),
            other => bail!("unknown argument `{other}`"),
        }
    }
    Ok(a)
}

/// One unit's outcome in one copy of the tree.
#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Outcome {
    built: bool,
    /// The class of the first error (empty when built).
    class: String,
    /// The first error line, with the temp dir cut off (empty when built).
    first_error: String,
}

#[derive(Serialize)]
struct UnitReport {
    unit: String,
    before: Outcome,
    after: Outcome,
}

#[derive(Serialize)]
struct ProjectReport {
    repo: String,
    commit: String,
    licence: String,
    /// Files of the commit whose blobs the mirror lacks (not extracted).
    absent_files: usize,
    units: usize,
    built_before: usize,
    built_after: usize,
    /// Failing units after `port`, by error class.
    classes_after: BTreeMap<String, usize>,
    detail: Vec<UnitReport>,
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let a = parse(args)?;
    let text = std::fs::read_to_string(&a.config)
        .with_context(|| format!("reading {}", a.config.display()))?;
    let cfg: Config = toml::from_str(&text).with_context(|| format!("{}", a.config.display()))?;
    let bin = match &a.bin {
        Some(b) => b.clone(),
        None => crate::mappings::repo_root().join("target/debug/hipport"),
    };
    ensure!(
        bin.exists(),
        "{} not found: build it (cargo build) or give --bin",
        bin.display()
    );
    // `port` runs inside each extracted tree: a relative `--bin` must not resolve there.
    let bin = std::fs::canonicalize(&bin).with_context(|| format!("{}", bin.display()))?;
    let work = std::env::temp_dir().join(format!("hipport-build-audit-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let mut reports = Vec::new();
    for p in &cfg.project {
        if !a.only.is_empty() && !a.only.contains(&p.repo) {
            continue;
        }
        eprintln!(
            "build-audit: {} @ {}",
            p.repo,
            &p.commit[..12.min(p.commit.len())]
        );
        reports.push(audit_project(&a, &bin, &work, p)?);
    }
    let _ = std::fs::remove_dir_all(&work);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        print!("{}", render(&reports, true));
    }
    if a.write_docs {
        let path = crate::mappings::repo_root().join("docs/measurements.md");
        let doc = std::fs::read_to_string(&path)?;
        let block = format!("{BEGIN}\n{}{END}", render(&reports, false));
        let new = match (doc.find(BEGIN), doc.find(END)) {
            (Some(b), Some(e)) if b < e => format!("{}{block}{}", &doc[..b], &doc[e + END.len()..]),
            _ => bail!("docs/measurements.md has no {BEGIN} … {END} block"),
        };
        std::fs::write(&path, new)?;
        eprintln!("build-audit: wrote the table into {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn audit_project(a: &Args, bin: &Path, work: &Path, p: &Project) -> Result<ProjectReport> {
    let slug = p.repo.replace('/', "+");
    let git_dir = mirror(a, work, p, &slug)?;
    let before = work.join(&slug).join("before");
    let after = work.join(&slug).join("after");
    let (files, absent) = present_files(&git_dir, &p.commit)?;
    for dir in [&before, &after] {
        extract(&git_dir, &p.commit, &files, dir)?;
    }
    let mut units: Vec<String> = files
        .iter()
        .filter(|f| p.units.iter().any(|g| glob_match(g, f)))
        .cloned()
        .collect();
    units.sort();
    units.dedup();
    if p.skip_included {
        let texts: Vec<(String, String)> = files
            .iter()
            .filter(|f| is_source(f))
            .filter_map(|f| {
                let bytes = std::fs::read(before.join(f)).ok()?;
                Some((f.clone(), String::from_utf8_lossy(&bytes).into_owned()))
            })
            .collect();
        let included = included_files(&texts, &p.include);
        units.retain(|u| !included.contains(u));
    }
    let o = Command::new(bin)
        .args(["port", "--write", "--allow-no-vcs", "--compat-header"])
        .args(["--rocm", "5.2", "--no-config", "-q"])
        .args(&p.port_args)
        .arg(".")
        .current_dir(&after)
        .stdout(Stdio::null())
        .output()?;
    if !o.status.success() && o.status.code() != Some(1) {
        bail!(
            "{}: hipport port failed: {}",
            p.repo,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let jobs: Vec<(String, bool)> = units
        .iter()
        .flat_map(|u| [(u.clone(), false), (u.clone(), true)])
        .collect();
    let results = parallel(a.jobs, &jobs, |(unit, ported)| {
        let root = if *ported { &after } else { &before };
        compile(a, root, unit, &p.include, work)
    });
    let mut by_unit: BTreeMap<String, (Option<Outcome>, Option<Outcome>)> = BTreeMap::new();
    for ((unit, ported), r) in jobs.iter().zip(results) {
        let e = by_unit.entry(unit.clone()).or_default();
        if *ported {
            e.1 = Some(r);
        } else {
            e.0 = Some(r);
        }
    }
    let detail: Vec<UnitReport> = by_unit
        .into_iter()
        .map(|(unit, (b, af))| UnitReport {
            unit,
            before: b.expect("compiled"),
            after: af.expect("compiled"),
        })
        .collect();
    let mut classes_after = BTreeMap::new();
    for d in detail.iter().filter(|d| !d.after.built) {
        *classes_after.entry(d.after.class.clone()).or_insert(0) += 1;
    }
    Ok(ProjectReport {
        repo: p.repo.clone(),
        commit: p.commit.clone(),
        licence: p.licence.clone(),
        absent_files: absent,
        units: detail.len(),
        built_before: detail.iter().filter(|d| d.before.built).count(),
        built_after: detail.iter().filter(|d| d.after.built).count(),
        classes_after,
        detail,
    })
}

/// The bare repository to read: the mirror, or a fresh bare clone with `--fetch`.
fn mirror(a: &Args, work: &Path, p: &Project, slug: &str) -> Result<PathBuf> {
    let m = a.mirrors.join(slug).join("repo");
    if m.join("HEAD").exists() {
        return Ok(m);
    }
    ensure!(
        a.fetch,
        "{}: no mirror at {} (give --fetch to clone it)",
        p.repo,
        m.display()
    );
    ensure!(
        p.repo
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.".contains(&b))
            && !p.repo.starts_with('-'),
        "{}: not an owner/name",
        p.repo
    );
    let dest = work.join(format!("{slug}.git"));
    let url = format!("https://github.com/{}.git", p.repo);
    let st = Command::new("git")
        .args(["clone", "--bare", "--quiet", "--", &url])
        .arg(&dest)
        .status()?;
    ensure!(st.success(), "{}: git clone failed", p.repo);
    Ok(dest)
}

/// `git archive COMMIT -- PATHS | tar -x -C DIR`, as two processes joined by a pipe. A mirror
/// may lack its largest blobs (documents, data): `paths` holds only the files present. (git
/// still prints `invalid object` for an absent blob it skips, and exits 0.)
fn extract(git_dir: &Path, commit: &str, paths: &[String], dir: &Path) -> Result<()> {
    ensure!(
        commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
        "commit `{commit}` is not 40 hex digits"
    );
    std::fs::create_dir_all(dir)?;
    let mut git = Command::new("git")
        .arg("--literal-pathspecs")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["archive", "--format=tar", commit, "--"])
        .args(paths)
        .stdout(Stdio::piped())
        .spawn()?;
    let out = git.stdout.take().context("git archive stdout")?;
    let tar = Command::new("tar")
        .args(["-x", "-f", "-", "-C"])
        .arg(dir)
        .stdin(Stdio::from(out))
        .status()?;
    let g = git.wait()?;
    ensure!(
        g.success() && tar.success(),
        "extracting {commit} from {} failed",
        git_dir.display()
    );
    Ok(())
}

/// The files of the tree at `commit` whose blobs the repository holds, and how many it lacks.
fn present_files(git_dir: &Path, commit: &str) -> Result<(Vec<String>, usize)> {
    let o = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["ls-tree", "-r", "-z", commit])
        .output()?;
    ensure!(o.status.success(), "git ls-tree failed");
    let mut entries = Vec::new();
    for rec in o.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let rec = String::from_utf8_lossy(rec);
        let Some((meta, path)) = rec.split_once('\t') else {
            continue;
        };
        let mut m = meta.split(' ');
        let (_mode, kind, oid) = (m.next(), m.next(), m.next());
        if kind == Some("blob") {
            entries.push((oid.unwrap_or("").to_string(), path.to_string()));
        }
    }
    let mut check = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["cat-file", "--batch-check"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdin = check.stdin.take().context("cat-file stdin")?;
    let ids: String = entries.iter().map(|(o, _)| format!("{o}\n")).collect();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, ids.as_bytes()));
    let out = check.wait_with_output()?;
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("cat-file writer"))??;
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout)?.lines().collect();
    ensure!(
        lines.len() == entries.len(),
        "git cat-file answered {} of {}",
        lines.len(),
        entries.len()
    );
    let mut present = Vec::new();
    let mut missing = 0;
    for ((_, path), line) in entries.into_iter().zip(lines) {
        if line.ends_with(" missing") {
            missing += 1;
        } else {
            present.push(path);
        }
    }
    Ok((present, missing))
}

fn is_source(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "c" | "cc" | "cpp" | "cxx" | "cu" | "cuh" | "h" | "hh" | "hpp" | "hxx" | "inl"
    )
}

/// The files of the tree that some file `#include`s, resolved as a compiler would: a quoted
/// name against the including file's directory first, then the project's include directories;
/// an angled one against the include directories only. The lines are read as hipport's
/// inventory reads them (`model::includes::written_in_text`).
fn included_files(
    texts: &[(String, String)],
    include: &[String],
) -> std::collections::BTreeSet<String> {
    use hipport::model::includes::{dir_of, join, written_in_text};
    let present: std::collections::BTreeSet<&str> = texts.iter().map(|(p, _)| p.as_str()).collect();
    let mut out = std::collections::BTreeSet::new();
    for (path, text) in texts {
        for inc in written_in_text(text.as_bytes()) {
            let (name, quoted) = match inc.strip_prefix('<') {
                Some(n) => (n.to_string(), false),
                None => (inc, true),
            };
            let own = quoted.then(|| dir_of(path));
            let hit = own
                .into_iter()
                .chain(include.iter().map(String::as_str))
                .map(|base| join(base, &name))
                .find(|p| present.contains(p.as_str()));
            out.extend(hit);
        }
    }
    out
}

/// `*` matches within one path segment, `**` any number of segments (including none).
fn glob_match(pattern: &str, path: &str) -> bool {
    fn seg(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|k| seg(rest, &s[k..])),
            Some((c, rest)) => s.first() == Some(c) && seg(rest, &s[1..]),
        }
    }
    fn parts(p: &[&str], s: &[&str]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((&"**", rest)) => (0..=s.len()).any(|k| parts(rest, &s[k..])),
            Some((first, rest)) => {
                !s.is_empty() && seg(first.as_bytes(), s[0].as_bytes()) && parts(rest, &s[1..])
            }
        }
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let s: Vec<&str> = path.split('/').collect();
    parts(&p, &s)
}

/// Runs `f` over `items` on at most `jobs` threads; results in the order of `items`.
fn parallel<T: Sync, R: Send>(jobs: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(items.len()).max(1) {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("queue");
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                out.lock().expect("results")[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .expect("results")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

fn compile(a: &Args, root: &Path, unit: &str, include: &[String], work: &Path) -> Outcome {
    let obj = work.join(format!(
        "{}.o",
        unit.replace('/', "_") + if root.ends_with("after") { ".a" } else { ".b" }
    ));
    let mut cmd = Command::new(&a.hipcc);
    cmd.args([
        "-c",
        "--offload-arch=gfx90a",
        "-std=c++17",
        "-w",
        "-x",
        "hip",
    ])
    .arg(unit)
    .arg("-o")
    .arg(&obj)
    .current_dir(root)
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    for i in include {
        cmd.arg(format!("-I{i}"));
    }
    let started = Instant::now();
    let Ok(mut child) = cmd.spawn() else {
        return failed("hipcc did not start", "");
    };
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = std::io::Read::read_to_string(e, &mut s);
        }
        s
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if started.elapsed() > a.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => break None,
        }
    };
    let err = reader.join().unwrap_or_default();
    let _ = std::fs::remove_file(&obj);
    match status {
        Some(st) if st.success() => Outcome {
            built: true,
            class: String::new(),
            first_error: String::new(),
        },
        Some(_) => {
            let line = err
                .lines()
                .find(|l| l.contains("error:"))
                .unwrap_or("no error line")
                .to_string();
            let line = line.replace(&format!("{}/", root.display()), "");
            failed(&classify(&line, root), &line)
        }
        None => failed("timeout", ""),
    }
}

fn failed(class: &str, line: &str) -> Outcome {
    Outcome {
        built: false,
        class: class.to_string(),
        first_error: line.to_string(),
    }
}

/// Libraries (by header prefix) that Debian bookworm's ROCm 5.2 packages do not ship, or that
/// have no HIP counterpart at all.
const MISSING_DEPS: &[&str] = &[
    "hipblas",
    "hipblaslt",
    "hipcub",
    "hipfft",
    "hipsolver",
    "miopen",
    "rccl",
    "rocblas",
    "roctracer",
    "roctx",
    "rocsolver",
    "rocfft",
    "GL/",
    "GLFW",
    "mpi.h",
    "nccl",
    "omp.h",
    "thrust/",
    "cudnn",
    "nvml",
    "nvrtc",
    "npp",
    "cufile",
    "torch",
    "pybind11",
];

/// The class of a failing unit from its first error line.
fn classify(line: &str, root: &Path) -> String {
    let msg = line.split("error: ").nth(1).unwrap_or(line).trim();
    if let Some(h) = msg
        .strip_prefix('\'')
        .and_then(|m| m.split_once("' file not found"))
        .map(|(h, _)| h)
    {
        if MISSING_DEPS
            .iter()
            .any(|d| h.starts_with(d) || h.contains(&format!("/{d}")))
        {
            return format!("missing dependency <{h}>");
        }
        if h.starts_with("cu") || h.starts_with("nv") || h.contains("cuda") {
            return format!("CUDA header left <{h}>");
        }
        let name = h.rsplit('/').next().unwrap_or(h);
        return if in_tree(root, name) {
            format!("header in tree, not on the include path <{h}>")
        } else {
            format!("header not found <{h}>")
        };
    }
    // Elide quoted names so failures group by kind; the name stays in `first_error`.
    let mut out = String::new();
    let mut quoted = false;
    for c in msg.chars() {
        if c == '\'' {
            quoted = !quoted;
            out.push_str(if quoted { "'…" } else { "'" });
        } else if !quoted {
            out.push(c);
        }
    }
    out
}

fn in_tree(root: &Path, name: &str) -> bool {
    fn walk(d: &Path, name: &str, depth: usize) -> bool {
        let Ok(rd) = std::fs::read_dir(d) else {
            return false;
        };
        rd.flatten().any(|e| {
            let p = e.path();
            if p.is_dir() {
                depth < 8 && walk(&p, name, depth + 1)
            } else {
                e.file_name().to_string_lossy() == name
            }
        })
    }
    walk(root, name, 0)
}

/// The table (and with `detail`, one line per failing unit after `port`).
fn render(reports: &[ProjectReport], detail: bool) -> String {
    let mut s = String::new();
    s.push_str("| project | commit | licence | units | build before `port` (hipcc on CUDA source) | build after `port` |\n");
    s.push_str("|---|---|---|--:|--:|--:|\n");
    let (mut u, mut b, mut af) = (0, 0, 0);
    for r in reports {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.repo,
            &r.commit[..12.min(r.commit.len())],
            r.licence,
            r.units,
            r.built_before,
            r.built_after
        ));
        u += r.units;
        b += r.built_before;
        af += r.built_after;
    }
    s.push_str(&format!("| **all** | | | {u} | {b} | {af} |\n\n"));
    for r in reports.iter().filter(|r| r.absent_files > 0) {
        s.push_str(&format!(
            "{}: {} files of the commit are absent from the mirror (large blobs), not extracted.\n\n",
            r.repo, r.absent_files
        ));
    }
    s.push_str("First error of each unit that fails after `port`, by class:\n\n");
    s.push_str("| project | class | units |\n|---|---|--:|\n");
    for r in reports {
        for (c, n) in &r.classes_after {
            s.push_str(&format!(
                "| {} | {} | {n} |\n",
                r.repo,
                c.replace('|', "\\|")
            ));
        }
    }
    if detail {
        s.push('\n');
        for r in reports {
            for d in r.detail.iter().filter(|d| !d.after.built) {
                s.push_str(&format!("{} {}: {}\n", r.repo, d.unit, d.after.first_error));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_keep_star_within_a_segment() {
        assert!(glob_match("src/*.cu", "src/a.cu"));
        assert!(!glob_match("src/*.cu", "src/mma/a.cu"));
        assert!(glob_match("src/**/*.cu", "src/mma/a.cu"));
        assert!(glob_match("src/**/*.cu", "src/a.cu"));
        assert!(!glob_match("*.cu", "dev/a.cu"));
    }

    #[test]
    fn included_files_are_not_units() {
        let texts = vec![
            (
                "b/main.cu".to_string(),
                "#include \"kernel.cu\"\n # include <util/u.cu>\n".to_string(),
            ),
            (
                "b/kernel.cu".to_string(),
                "// #include \"other.cu\"\n".to_string(),
            ),
            ("b/other.cu".to_string(), String::new()),
            (
                "inc/util/u.cu".to_string(),
                "#include \"../../b/gone.cu\"\n".to_string(),
            ),
        ];
        let got = included_files(&texts, &["inc".to_string()]);
        let want: Vec<&str> = vec!["b/kernel.cu", "inc/util/u.cu"];
        assert_eq!(got.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }

    #[test]
    fn missing_library_headers_are_dependencies_and_cuda_headers_are_not() {
        let root = Path::new("/nonexistent");
        assert_eq!(
            classify("a.cu:3:10: fatal error: 'cudnn.h' file not found", root),
            "missing dependency <cudnn.h>"
        );
        assert_eq!(
            classify(
                "a.cu:3:10: fatal error: 'cuda_runtime.h' file not found",
                root
            ),
            "CUDA header left <cuda_runtime.h>"
        );
        assert_eq!(
            classify(
                "a.cu:9:3: error: no member named 'function' in namespace 'std'",
                root
            ),
            "no member named '…' in namespace '…'"
        );
    }
}
