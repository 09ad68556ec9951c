//! `hipport port`: translate CUDA sources to HIP and show the result as a diff, write it to a
//! separate tree (`--out`), in place (`--write`), or one file to a path or stdout (`-o`).

use super::common::{ConfigArgs, TargetArgs, TextOrJson, WalkArgs};
use crate::compat;
use crate::gate::exit;
use crate::mappings;
use crate::pipeline::{self, FileOutcome, Work};
use crate::render;
use crate::settings::{Request, Settings};
use crate::translate::{LaunchSyntax, Options, Stats};
use crate::walk::{self, Input};
use anyhow::{bail, Context};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct PortArgs {
    /// Files or directories to translate.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// How to write kernel launches.
    #[arg(long, value_enum, default_value_t = LaunchSyntax::Keep)]
    pub launch_syntax: LaunchSyntax,
    /// Write every selected file, translated or not, under DIR at the same relative path.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["write", "output"])]
    pub out: Option<PathBuf>,
    /// Rewrite files in place (atomically).
    #[arg(long, conflicts_with = "output")]
    pub write: bool,
    /// With --write: also rewrite files that have uncommitted changes in their git work tree.
    #[arg(long)]
    pub allow_dirty: bool,
    /// For a single file: write its translation to OUT (`-` for stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print per-file and total counts.
    #[arg(long)]
    pub stats: bool,
    /// `json` prints a report (stats, findings, parse health) instead of the diff.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// Put a review comment above each flagged line (translation and hazard findings).
    #[arg(long)]
    pub annotate: bool,
    /// Do not add `#include <hip/hip_runtime.h>` to .cu/.cuh files that relied on nvcc's.
    #[arg(long)]
    pub no_implicit_include: bool,
    /// Close small gaps of the target release with shims in a generated `hipport_compat.h`,
    /// written once at the root of the output (`--out DIR`, `--write`: each input root; `-o FILE`:
    /// next to FILE; the diff shows it as a new file) and included where used. With `-o -` the
    /// header is not written: stderr names the shims and how to get it.
    #[arg(long)]
    pub compat_header: bool,
    /// Do not print findings on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

impl PortArgs {
    pub fn request(&self) -> Request {
        super::common::request(&self.paths, &self.target, &self.walk, &self.config)
    }
}

pub fn run(a: PortArgs, settings: &Settings) -> anyhow::Result<i32> {
    let target = settings.target;
    let m = mappings::get();
    let (inputs, walk_errors) =
        walk::walk(&settings.paths, &settings.walk).map_err(anyhow::Error::msg)?;
    let mut had_error = false;
    for e in &walk_errors {
        eprintln!("hipport: {}: {}", e.path, e.message);
        had_error = true;
    }
    if a.output.is_some() && (inputs.len() != 1 || a.paths.len() != 1 || !a.paths[0].is_file()) {
        bail!("-o/--output takes exactly one input file");
    }
    let work = Work {
        translate: Options {
            target,
            launch: a.launch_syntax,
            implicit_include: !a.no_implicit_include,
            compat_header: a.compat_header,
        },
        hazards: a.annotate,
        annotate: a.annotate,
        keep_output: true,
        max_file_size: settings.max_file_size,
    };
    if a.write && !a.allow_dirty {
        check_clean(&inputs)?;
    }
    let mut outcomes = pipeline::run(&inputs, &work, m);
    // The project's rule levels and suppressions hold for port's findings as for scan's.
    for o in &mut outcomes {
        if let Ok(r) = &mut o.result {
            r.findings.retain(|f| settings.keeps(f));
        }
    }
    let mut totals = Stats::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let diff_to_stdout =
        a.out.is_none() && !a.write && a.output.is_none() && a.format == TextOrJson::Text;
    let to_stdout = a.output.as_deref() == Some(Path::new("-"));
    let mut stats_lines: Vec<u8> = Vec::new();
    for o in &outcomes {
        let r = match &o.result {
            Ok(r) => r,
            Err(e) => {
                eprintln!("hipport: {}: {e}", o.input.path.display());
                had_error = true;
                continue;
            }
        };
        totals.add(&r.stats);
        if r.conflicts > 0 {
            eprintln!(
                "hipport: {}: {} overlapping edit(s) not applied (an engine defect: please report)",
                o.input.rel, r.conflicts
            );
        }
        if !a.quiet && a.format == TextOrJson::Text {
            for f in &r.findings {
                eprintln!("{}", f.one_line());
            }
            if r.health.parsed && !r.health.clean() && (r.changed || !r.findings.is_empty()) {
                eprintln!(
                    "{}: note: tree-sitter parse health: {} (translated from tokens where identifiers were recognisable)",
                    o.input.rel,
                    r.health.describe()
                );
            }
        }
        if a.stats && (r.changed || r.stats.unported > 0) {
            render::stats::write_line(&mut stats_lines, &o.input.rel, &r.stats)?;
        }
        if diff_to_stdout {
            render::diff::write_file_diff(&mut out, &o.input.rel, &r.input, &r.output)?;
        } else if a.out.is_some() || a.write {
            // Written in parallel below.
        } else if let Some(dest) = &a.output {
            if to_stdout {
                out.write_all(&r.output)?;
            } else {
                write_atomic(dest, &r.output, Some(&o.input.path))
                    .with_context(|| format!("writing {}", dest.display()))?;
            }
        }
    }
    if a.out.is_some() || a.write {
        use rayon::prelude::*;
        let mut failures: Vec<String> = outcomes
            .par_iter()
            .filter_map(|o| {
                let r = o.result.as_ref().ok()?;
                let dest = match &a.out {
                    Some(dir) => dir.join(&o.input.rel),
                    None if r.changed => o.input.path.clone(),
                    None => return None,
                };
                write_atomic(&dest, &r.output, Some(&o.input.path))
                    .err()
                    .map(|e| format!("hipport: {}: cannot write: {e:#}", dest.display()))
            })
            .collect();
        failures.sort();
        for f in &failures {
            eprintln!("{f}");
        }
        had_error |= !failures.is_empty();
    }
    if a.compat_header {
        had_error |= write_compat_header(&a, &outcomes, &target, m, diff_to_stdout, &mut out)?;
    }
    if a.format == TextOrJson::Json {
        let doc = json_report(&outcomes, &totals, &target);
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    }
    if a.stats {
        let changed = outcomes
            .iter()
            .filter(|o| o.result.as_ref().is_ok_and(|r| r.changed))
            .count();
        render::stats::write_line(
            &mut stats_lines,
            &format!(
                "total ({} files, {} changed, target ROCm {})",
                outcomes.len(),
                changed,
                target.rocm
            ),
            &totals,
        )?;
        if diff_to_stdout || to_stdout || a.format == TextOrJson::Json {
            std::io::stderr().write_all(&stats_lines)?;
        } else {
            out.write_all(&stats_lines)?;
        }
    }
    out.flush()?;
    Ok(if had_error { exit::ERROR } else { exit::OK })
}

fn json_report(
    outcomes: &[FileOutcome],
    totals: &Stats,
    target: &crate::mappings::Target,
) -> serde_json::Value {
    let files: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| match &o.result {
            Ok(r) => serde_json::json!({
                "path": o.input.rel,
                "changed": r.changed,
                "stats": r.stats,
                "parse": r.health,
                "findings": r.findings,
            }),
            Err(e) => serde_json::json!({"path": o.input.rel, "error": e}),
        })
        .collect();
    serde_json::json!({
        "tool": {"name": "hipport", "version": env!("CARGO_PKG_VERSION")},
        "schema_version": 1,
        "target": {"rocm": target.rocm.to_string(), "roc": target.roc, "experimental": target.experimental},
        "files": files,
        "totals": totals,
    })
}

/// Writes `hipport_compat.h` with the shims the outputs use, once per output root; returns
/// whether a write failed.
fn write_compat_header(
    a: &PortArgs,
    outcomes: &[FileOutcome],
    target: &crate::mappings::Target,
    m: &crate::mappings::Mappings,
    diff_to_stdout: bool,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    use std::collections::{BTreeMap, BTreeSet};
    // Output root → shims used by the files written under it.
    let mut roots: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for o in outcomes {
        let Ok(r) = &o.result else { continue };
        if r.compat.is_empty() {
            continue;
        }
        let root = match (&a.out, &a.output) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dest)) if dest != Path::new("-") => {
                dest.parent().map(Path::to_path_buf).unwrap_or_default()
            }
            _ => o.input.root.clone(),
        };
        roots
            .entry(root)
            .or_default()
            .extend(r.compat.iter().cloned());
    }
    let name = compat::HEADER_NAME;
    if a.output.as_deref() == Some(Path::new("-")) {
        if let Some(ids) = roots.values().next() {
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            eprintln!(
                "hipport: the output includes \"{name}\" (shims: {}), which -o - does not write; \
                 write it with `-o FILE` (next to FILE) or `--out DIR`",
                ids.join(", ")
            );
        }
        return Ok(false);
    }
    if diff_to_stdout {
        let all: BTreeSet<String> = roots.into_values().flatten().collect();
        if !all.is_empty() {
            let text = compat::render(target, &all, m);
            render::diff::write_new_file(out, name, text.as_bytes())?;
        }
        return Ok(false);
    }
    let mut failed = false;
    for (root, ids) in roots {
        let dest = root.join(name);
        let text = compat::render(target, &ids, m);
        if let Err(e) = write_atomic(&dest, text.as_bytes(), None) {
            eprintln!("hipport: {}: cannot write: {e:#}", dest.display());
            failed = true;
        }
    }
    Ok(failed)
}

fn write_atomic(dest: &Path, bytes: &[u8], like: Option<&Path>) -> anyhow::Result<()> {
    Ok(crate::source::write_atomic(dest, bytes, like)?)
}

/// Refuses to rewrite files with uncommitted changes in a git work tree (as `cargo fix` does).
fn check_clean(inputs: &[Input]) -> anyhow::Result<()> {
    let mut dirty = Vec::new();
    let mut roots: Vec<&Path> = inputs.iter().map(|i| i.root.as_path()).collect();
    roots.sort();
    roots.dedup();
    for root in roots {
        let top = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["rev-parse", "--show-toplevel"])
            .output();
        let Ok(top) = top else { continue };
        if !top.status.success() {
            continue; // not a git work tree
        }
        let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim());
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(["status", "--porcelain=v1", "-z", "--untracked-files=no"])
            .output()
            .context("running git status")?;
        let listed: Vec<PathBuf> = status
            .stdout
            .split(|&b| b == 0)
            .filter(|e| e.len() > 3)
            .map(|e| top.join(String::from_utf8_lossy(&e[3..]).as_ref()))
            .collect();
        for i in inputs.iter().filter(|i| i.root == root) {
            let p = std::fs::canonicalize(&i.path).unwrap_or(i.path.clone());
            if listed
                .iter()
                .any(|l| std::fs::canonicalize(l).unwrap_or(l.clone()) == p)
            {
                dirty.push(i.path.display().to_string());
            }
        }
    }
    if !dirty.is_empty() {
        bail!(
            "these files have uncommitted changes, and --write would rewrite them:\n  {}\ncommit or stash them first, or pass --allow-dirty",
            dirty.join("\n  ")
        );
    }
    Ok(())
}
