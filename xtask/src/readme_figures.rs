//! `cargo xtask readme-figures [--check] [--tree DIR[=LABEL]]... [--rocm X.Y.Z] [--runs N]
//! [--bin PATH] [--file PATH]`: the figures the documentation quotes, measured instead of typed.
//!
//! Figures typed by hand went stale without anyone noticing (the README said 1 125 findings and
//! a 1.7 MB page for cuda-samples long after the same command gave 2 592 and 4.8 MB). This task
//! runs the release binary's `scan` in every format on each directory of `samples/` (at ROCm
//! 5.2.0) and on every `--tree` given (at `--rocm`, default 6.2.0), with `--no-config` and
//! `SOURCE_DATE_EPOCH=0` so the output depends on hipport and the tree only, and writes one
//! block between `<!-- figures:begin -->` and `<!-- figures:end -->` in `docs/measurements.md`:
//! findings per status and report sizes per format (deterministic), then wall times (not).
//! Rows of trees not measured in this run are kept as they are, so a figure of a tree that is
//! not on this machine survives a refresh of the sample's.
//!
//! `--check` measures the samples only and fails when their deterministic rows, or the block's
//! headers, differ from the file: times, and the rows of other trees, are never checked.

use anyhow::{bail, ensure, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

pub const BEGIN: &str = "<!-- figures:begin -->";
pub const END: &str = "<!-- figures:end -->";
/// Inside the block, everything after this line is measured time: never checked.
pub const TIMES: &str = "<!-- figures:times -->";
const SAMPLE_ROCM: &str = "5.2.0";
const FORMATS: [&str; 5] = ["text", "markdown", "json", "sarif", "html"];
const STATUSES: [&str; 4] = ["PASS", "REMEDIATION", "UNKNOWN", "BLOCKER"];
const COUNTS_HEAD: &str = "| tree | target | files | findings | PASS | REMEDIATION | UNKNOWN | BLOCKER | open facts | text B | markdown B | json B | sarif B | html B |";
const COUNTS_SEP: &str = "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|";
const TIMES_HEAD: &str = "| tree | `scan` (text) wall s | `scan --format html` wall s | measured |";
const TIMES_SEP: &str = "|---|--:|--:|---|";

struct Args {
    check: bool,
    trees: Vec<(String, PathBuf)>,
    rocm: String,
    runs: usize,
    bin: Option<PathBuf>,
    file: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut a = Args {
        check: false,
        trees: Vec::new(),
        rocm: "6.2.0".into(),
        runs: 1,
        bin: None,
        file: None,
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut val = || it.next().cloned().context(format!("{x} needs a value"));
        match x.as_str() {
            "--check" => a.check = true,
            "--tree" => a.trees.push(tree_arg(&val()?)?),
            "--rocm" => a.rocm = val()?,
            "--runs" => a.runs = val()?.parse::<usize>()?.max(1),
            "--bin" => a.bin = Some(PathBuf::from(val()?)),
            "--file" => a.file = Some(PathBuf::from(val()?)),
            other => bail!("unknown argument `{other}`"),
        }
    }
    Ok(a)
}

/// `DIR` (labelled by its name) or `DIR=LABEL` (e.g. `../cuda-samples=NVIDIA/cuda-samples c94ff36`).
fn tree_arg(s: &str) -> Result<(String, PathBuf)> {
    let (dir, label) = match s.split_once('=') {
        Some((d, l)) if !Path::new(s).is_dir() => (PathBuf::from(d), l.to_string()),
        _ => {
            let d = PathBuf::from(s);
            let name = d
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| s.to_string());
            (d, name)
        }
    };
    ensure!(dir.is_dir(), "--tree {}: not a directory", dir.display());
    ensure!(
        !label.contains('|') && !label.contains('\n') && !label.trim().is_empty(),
        "--tree label `{label}`: must be non-empty, without `|` or a line break"
    );
    Ok((label.trim().to_string(), dir))
}

/// What one tree measured: the deterministic counts and sizes, then the times.
struct Figures {
    label: String,
    rocm: String,
    files: u64,
    by_status: [u64; 4],
    open_facts: u64,
    sizes: [usize; 5],
    text_s: f64,
    html_s: f64,
}

impl Figures {
    fn counts_row(&self) -> String {
        let total: u64 = self.by_status.iter().sum();
        let mut cells = vec![
            self.label.clone(),
            self.rocm.clone(),
            self.files.to_string(),
            total.to_string(),
        ];
        cells.extend(self.by_status.iter().map(u64::to_string));
        cells.push(self.open_facts.to_string());
        cells.extend(self.sizes.iter().map(usize::to_string));
        format!("| {} |", cells.join(" | "))
    }

    fn times_row(&self, measured: &str) -> String {
        format!(
            "| {} | {:.2} | {:.2} | {measured} |",
            self.label, self.text_s, self.html_s
        )
    }
}

/// Runs `scan` once in `format`: stdout and wall seconds. Exit 0 and 1 are reports; anything
/// else (2: a usage or I/O error) fails the task with hipport's stderr.
fn scan(bin: &Path, cwd: &Path, tree: &Path, rocm: &str, format: &str) -> Result<(Vec<u8>, f64)> {
    let start = Instant::now();
    let out = Command::new(bin)
        .arg("scan")
        .arg(tree)
        .args(["--rocm", rocm, "--no-config", "--format", format])
        .current_dir(cwd)
        .env("SOURCE_DATE_EPOCH", "0")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let secs = start.elapsed().as_secs_f64();
    match out.status.code() {
        Some(0 | 1) => Ok((out.stdout, secs)),
        _ => bail!(
            "`hipport scan {} --format {format}` ended with {}:\n{}",
            tree.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

fn measure(
    bin: &Path,
    cwd: &Path,
    label: &str,
    tree: &Path,
    rocm: &str,
    runs: usize,
) -> Result<Figures> {
    eprintln!(
        "readme-figures: {label} ({}) at ROCm {rocm}",
        tree.display()
    );
    let mut sizes = [0usize; 5];
    let mut json = Vec::new();
    let (mut text_s, mut html_s) = (f64::INFINITY, f64::INFINITY);
    for (i, format) in FORMATS.iter().enumerate() {
        let repeat = if matches!(*format, "text" | "html") {
            runs
        } else {
            1
        };
        for _ in 0..repeat {
            let (out, secs) = scan(bin, cwd, tree, rocm, format)?;
            sizes[i] = out.len();
            match *format {
                "text" => text_s = text_s.min(secs),
                "html" => html_s = html_s.min(secs),
                "json" => json = out,
                _ => {}
            }
        }
    }
    let report: serde_json::Value =
        serde_json::from_slice(&json).context("reading the JSON report")?;
    let summary = &report["summary"];
    let num = |v: &serde_json::Value, what: &str| {
        v.as_u64()
            .with_context(|| format!("the JSON report has no summary.{what}"))
    };
    let mut by_status = [0u64; 4];
    for (slot, status) in by_status.iter_mut().zip(STATUSES) {
        *slot = num(&summary["by_status"][status], status)?;
    }
    Ok(Figures {
        label: label.to_string(),
        rocm: rocm.to_string(),
        files: num(&summary["files_scanned"], "files_scanned")?,
        by_status,
        open_facts: num(&summary["open_facts"], "open_facts")?,
        sizes,
        text_s,
        html_s,
    })
}

/// The text between the markers (without the line breaks right after BEGIN and before END).
pub fn current_block(doc: &str) -> Result<&str> {
    let (start, end) = marker_span(doc)?;
    Ok(doc[start..end].trim_matches('\n'))
}

/// `doc` with the text between the markers replaced by `block`; everything else byte for byte.
pub fn replace_block(doc: &str, block: &str) -> Result<String> {
    let (start, end) = marker_span(doc)?;
    Ok(format!(
        "{}\n{}\n{}",
        &doc[..start],
        block.trim_matches('\n'),
        &doc[end..]
    ))
}

/// Byte range strictly between the two markers; each must appear exactly once, BEGIN first.
fn marker_span(doc: &str) -> Result<(usize, usize)> {
    let once = |m: &str| -> Result<usize> {
        let mut hits = doc.match_indices(m).map(|(i, _)| i);
        let first = hits.next().with_context(|| format!("no `{m}` marker"))?;
        ensure!(hits.next().is_none(), "`{m}` appears more than once");
        Ok(first)
    };
    let (b, e) = (once(BEGIN)?, once(END)?);
    ensure!(b < e, "`{END}` comes before `{BEGIN}`");
    Ok((b + BEGIN.len(), e))
}

/// Rows of the table under `head` in `block`, keyed by their first cell, in order.
fn rows(block: &str, head: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = block.lines().skip_while(|l| l.trim() != head).skip(2);
    for line in lines.by_ref() {
        let Some(rest) = line.trim().strip_prefix('|') else {
            break;
        };
        let key = rest.split('|').next().unwrap_or("").trim().to_string();
        out.push((key, line.trim().to_string()));
    }
    out
}

/// Old rows, with those measured now replaced in place and new ones appended; samples first.
fn merge(
    old: Vec<(String, String)>,
    new: Vec<(String, String)>,
    samples: &[String],
) -> Vec<String> {
    let mut fresh: BTreeMap<String, String> = new.iter().cloned().collect();
    let mut merged: Vec<(String, String)> = Vec::new();
    for (key, line) in old.into_iter().chain(new) {
        if merged.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let line = fresh.remove(&key).unwrap_or(line);
        merged.push((key, line));
    }
    merged.sort_by_key(|(k, _)| !samples.contains(k));
    merged.into_iter().map(|(_, l)| l).collect()
}

fn render(counts: &[String], times: &[String]) -> String {
    let mut out = String::from(
        "Generated by `cargo xtask readme-figures`; do not edit by hand. `hipport scan TREE --rocm \
         TARGET --no-config --format F` with `SOURCE_DATE_EPOCH=0`, run from the repository root \
         (the samples) or the tree's parent; B = bytes of the report; findings by status; \
         `open facts` = `summary.open_facts` of the JSON report.\n\n",
    );
    for line in [COUNTS_HEAD, COUNTS_SEP]
        .iter()
        .copied()
        .chain(counts.iter().map(String::as_str))
    {
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(TIMES);
    out.push_str("\n\nWall seconds on the machine that measured the row (best of `--runs`; not checked):\n\n");
    for line in [TIMES_HEAD, TIMES_SEP]
        .iter()
        .copied()
        .chain(times.iter().map(String::as_str))
    {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The part of a block `--check` compares: everything before the times.
fn checked_part(block: &str) -> &str {
    block.split(TIMES).next().unwrap_or(block).trim_end()
}

/// The lines only in `old` (`-`) and only in `new` (`+`): enough to see which figure moved.
fn line_diff(old: &str, new: &str) -> String {
    let mut out = String::new();
    for l in old.lines().filter(|l| !new.lines().any(|n| n == *l)) {
        out.push_str(&format!("- {l}\n"));
    }
    for l in new.lines().filter(|l| !old.lines().any(|o| o == *l)) {
        out.push_str(&format!("+ {l}\n"));
    }
    out
}

fn stamp(root: &Path) -> String {
    let run = |cmd: &mut Command| {
        cmd.output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let date = run(Command::new("date").args(["-u", "+%Y-%m-%d"])).unwrap_or_default();
    let commit = run(Command::new("git")
        .args(["describe", "--always", "--abbrev=7"])
        .current_dir(root))
    .unwrap_or_else(|| "?".into());
    format!("{date}, hipport `{commit}`")
}

fn release_binary(root: &Path) -> Result<PathBuf> {
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let st = Command::new("cargo")
        .args(["build", "--release", "--quiet", "-p", "hipport"])
        .current_dir(root)
        .status()?;
    ensure!(st.success(), "cargo build --release failed");
    Ok(target_dir.join("release/hipport"))
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let a = parse(args)?;
    let root = crate::mappings::repo_root();
    let file = a
        .file
        .clone()
        .unwrap_or_else(|| root.join("docs/measurements.md"));
    let doc =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let old = current_block(&doc)
        .with_context(|| file.display().to_string())?
        .to_string();
    let bin = match &a.bin {
        Some(b) => std::path::absolute(b)?,
        None => release_binary(&root)?,
    };

    let mut samples = Vec::new();
    for entry in std::fs::read_dir(root.join("samples"))? {
        let path = entry?.path();
        if path.is_dir() {
            let name = path.file_name().context("sample name")?.to_string_lossy();
            samples.push(format!("samples/{name}"));
        }
    }
    samples.sort();
    let mut measured = Vec::new();
    for s in &samples {
        measured.push(measure(&bin, &root, s, Path::new(s), SAMPLE_ROCM, a.runs)?);
    }
    if !a.check {
        for (label, dir) in &a.trees {
            let dir = std::path::absolute(dir)?;
            let parent = dir.parent().unwrap_or(&dir).to_path_buf();
            let name = dir.file_name().map(PathBuf::from).unwrap_or(dir.clone());
            measured.push(measure(&bin, &parent, label, &name, &a.rocm, a.runs)?);
        }
    }
    let when = stamp(&root);
    let counts = merge(
        rows(&old, COUNTS_HEAD),
        measured
            .iter()
            .map(|f| (f.label.clone(), f.counts_row()))
            .collect(),
        &samples,
    );
    let times = merge(
        rows(&old, TIMES_HEAD),
        measured
            .iter()
            .map(|f| (f.label.clone(), f.times_row(&when)))
            .collect(),
        &samples,
    );
    let block = render(&counts, &times);
    print!("{block}");

    if a.check {
        if checked_part(&old) == checked_part(&block) {
            eprintln!("readme-figures: {} is up to date", file.display());
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "readme-figures: the figures in {} are stale; run `cargo xtask readme-figures`",
            file.display()
        );
        eprint!("{}", line_diff(checked_part(&old), checked_part(&block)));
        return Ok(ExitCode::FAILURE);
    }
    std::fs::write(&file, replace_block(&doc, &block)?)
        .with_context(|| format!("writing {}", file.display()))?;
    eprintln!("readme-figures: wrote {}", file.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str =
        "# title\n\nbefore\n<!-- figures:begin -->\nold\nlines\n<!-- figures:end -->\nafter\n";

    #[test]
    fn replace_keeps_everything_outside_the_markers() {
        let out = replace_block(DOC, "new\n").unwrap();
        assert_eq!(
            out,
            "# title\n\nbefore\n<!-- figures:begin -->\nnew\n<!-- figures:end -->\nafter\n"
        );
        assert_eq!(current_block(&out).unwrap(), "new");
        // Replacing twice with the same block changes nothing.
        assert_eq!(replace_block(&out, "new").unwrap(), out);
    }

    #[test]
    fn replace_refuses_missing_swapped_or_repeated_markers() {
        assert!(replace_block("no markers\n", "x").is_err());
        assert!(replace_block(&format!("{BEGIN}\nonly begin\n"), "x").is_err());
        let swapped = format!("{END}\nx\n{BEGIN}\n");
        assert!(replace_block(&swapped, "x")
            .unwrap_err()
            .to_string()
            .contains("comes before"));
        let twice = format!("{DOC}{BEGIN}\n");
        assert!(replace_block(&twice, "x")
            .unwrap_err()
            .to_string()
            .contains("more than once"));
    }

    #[test]
    fn rows_of_other_trees_survive_and_samples_come_first() {
        let old = render(
            &[
                "| samples/a | 5.2.0 | 1 |".into(),
                "| big tree | 6.2.0 | 9 |".into(),
            ],
            &["| samples/a | 0.01 | 0.02 | then |".into()],
        );
        let counts = merge(
            rows(&old, COUNTS_HEAD),
            vec![
                ("other".into(), "| other | 6.2.0 | 3 |".into()),
                ("samples/a".into(), "| samples/a | 5.2.0 | 2 |".into()),
            ],
            &["samples/a".into()],
        );
        assert_eq!(
            counts,
            [
                "| samples/a | 5.2.0 | 2 |",
                "| big tree | 6.2.0 | 9 |",
                "| other | 6.2.0 | 3 |"
            ]
        );
        assert_eq!(rows(&old, TIMES_HEAD).len(), 1);
    }

    #[test]
    fn check_ignores_times_but_not_counts() {
        let a = render(
            &["| s | 1 |".into()],
            &["| s | 0.01 | 0.02 | monday |".into()],
        );
        let b = render(
            &["| s | 1 |".into()],
            &["| s | 9.99 | 9.99 | friday |".into()],
        );
        let c = render(
            &["| s | 2 |".into()],
            &["| s | 0.01 | 0.02 | monday |".into()],
        );
        assert_eq!(checked_part(&a), checked_part(&b));
        assert_ne!(checked_part(&a), checked_part(&c));
        assert_eq!(
            line_diff(checked_part(&a), checked_part(&c)),
            "- | s | 1 |\n+ | s | 2 |\n"
        );
    }
}
