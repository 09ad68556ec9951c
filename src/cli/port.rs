//! `hipport port`: translate CUDA sources to HIP and show the result as a diff, write it to a
//! separate tree (`--out`), in place (`--write`), or one file to a path or stdout (`-o`).
//!
//! `--out DIR` writes the whole input tree, so it builds: sources translated, every other file
//! copied, symbolic links that stay inside the tree kept as links (`--only-sources`: the
//! translated sources alone). Writes never leave the chosen root: `--out` may not be an input
//! or inside one, `-o` refuses the input itself, symlinks, FIFOs, devices and read-only files,
//! `--write` never follows a link out of the tree and refuses files that are not committed
//! (modified, untracked, ignored, or in no git work tree) unless `--allow-dirty` /
//! `--allow-no-vcs`. `--compat-header` replaces a `hipport_compat.h` only when hipport
//! generated it (its marker line; never a symlink), else the run stops before writing anything;
//! a rerun keeps the shims of the header it replaces and does not port that header itself.

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
    /// Files or directories to translate (default: the current directory).
    #[arg(value_name = "PATH", default_value = ".")]
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
    /// Write the input tree under DIR: sources translated, every other file copied, symlinks
    /// inside the tree kept as links (so the tree builds).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["write", "output"])]
    pub out: Option<PathBuf>,
    /// With --out: write only the selected source files (translated or not), nothing else.
    #[arg(long, requires = "out")]
    pub only_sources: bool,
    /// Rewrite files in place (atomically).
    #[arg(long, conflicts_with = "output")]
    pub write: bool,
    /// With --write: also rewrite files that are not committed (modified, staged, untracked or
    /// ignored) in their git work tree.
    #[arg(long)]
    pub allow_dirty: bool,
    /// With --write: also rewrite files that are in no git work tree.
    #[arg(long)]
    pub allow_no_vcs: bool,
    /// For a single file: write its translation to OUT (`-` for stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print per-file and total counts.
    #[arg(long)]
    pub stats: bool,
    /// `json` prints a report (stats, findings, parse health) instead of the diff.
    #[arg(long, alias = "output-format", value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// Put a review comment above each flagged line (translation and hazard findings), except
    /// for rules `hipport.toml`, `--ignore`/`--select` or a suppression comment turn off.
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
    /// Also apply rewrites marked unsafe (they need a person to check them), such as width 32
    /// on the shuffles of a function that mixes 32-lane logical warps with `warpSize`.
    #[arg(long)]
    pub unsafe_fixes: bool,
}

impl PortArgs {
    pub fn request(&self) -> Request {
        super::common::request(&self.paths, &self.target, &self.walk, &self.config)
    }
}

pub fn run(a: PortArgs, settings: &Settings) -> anyhow::Result<i32> {
    let target = settings.target;
    let m = mappings::get();
    if let Some(out) = &a.out {
        check_out_dir(out, &settings.paths)?;
    }
    let mut walk_opts = settings.walk.clone();
    let full_tree = a.out.is_some() && !a.only_sources;
    if full_tree {
        walk_opts.all_files = true;
        walk_opts.links = true;
    }
    let (walked, walk_errors) =
        walk::walk(&settings.paths, &walk_opts).map_err(anyhow::Error::msg)?;
    let mut had_error = false;
    for e in &walk_errors {
        crate::errln!("hipport: {}: {}", e.path, e.message);
        had_error = true;
    }
    // With the whole tree: sources go through translation, the rest is copied or linked.
    let exts = settings.walk.extensions.clone();
    let (inputs, others): (Vec<Input>, Vec<Input>) = walked.into_iter().partition(|i| {
        !i.link
            && (!full_tree
                || Path::new(&i.rel)
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e))))
    });
    // A `hipport_compat.h` hipport generated is its own output, not a source to port again
    // (its shims define the very names a port reports): with --out it is copied as it is.
    let (generated, inputs): (Vec<Input>, Vec<Input>) =
        inputs.into_iter().partition(is_generated_header);
    let mut others = others;
    if full_tree {
        others.extend(generated);
    }
    if a.out.is_some() {
        out_collision(&inputs, &others)?;
    }
    if a.output.is_some() && (inputs.len() != 1 || a.paths.len() != 1 || !a.paths[0].is_file()) {
        bail!("-o/--output takes exactly one input file");
    }
    if let (Some(dest), Some(input)) = (&a.output, inputs.first()) {
        if dest != Path::new("-") {
            check_output_file(dest, &input.path)?;
        }
    }
    let work = Work {
        translate: Options {
            target,
            launch: a.launch_syntax,
            implicit_include: !a.no_implicit_include,
            compat_header: a.compat_header,
            unsafe_fixes: a.unsafe_fixes,
        },
        hazards: a.annotate,
        annotate: a.annotate,
        keep_output: true,
        max_file_size: settings.max_file_size,
        // Only the JSON report carries parse health; the diff and the writes need tokens only.
        parse_health: a.format == TextOrJson::Json,
    };
    if a.annotate {
        crate::translate::set_filter(Box::new(settings.keeper()));
    }
    let mut outcomes = pipeline::run(&inputs, &work, m);
    // The project's rule levels and suppressions hold for port's findings as for scan's.
    for o in &mut outcomes {
        if let Ok(r) = &mut o.result {
            r.findings.retain(|f| settings.keeps(f));
        }
    }
    // Before anything is written or printed: where `hipport_compat.h` goes, and whether a file
    // of that name there may be replaced.
    let header = if a.compat_header {
        Some(compat_plan(&a, &outcomes, &target)?)
    } else {
        None
    };
    // In place: only files that resolve inside their root, each once, written at its real path.
    let mut in_place: Vec<(usize, PathBuf)> = Vec::new();
    if a.write {
        let mut seen = std::collections::HashSet::new();
        for (i, o) in outcomes.iter().enumerate() {
            if !o.result.as_ref().is_ok_and(|r| r.changed) {
                continue;
            }
            match in_tree_path(&o.input) {
                Ok(real) => {
                    if seen.insert(real.clone()) {
                        in_place.push((i, real));
                    }
                }
                Err(e) => {
                    crate::errln!("hipport: {}: {e}", o.input.path.display());
                    had_error = true;
                }
            }
        }
        let mut refused = dirty(&in_place, &outcomes, a.allow_dirty, a.allow_no_vcs)?;
        if let Some(h) = &header {
            refused.extend(header_dirty(h, a.allow_dirty)?);
        }
        if !refused.is_empty() {
            bail!(
                "--write would rewrite files that are not committed:\n  {}\ncommit them first (or stash), or pass --allow-dirty (modified, untracked or ignored files) / --allow-no-vcs (files in no git work tree)",
                refused.join("\n  ")
            );
        }
    }
    let mut totals = Stats::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let diff_to_stdout =
        a.out.is_none() && !a.write && a.output.is_none() && a.format == TextOrJson::Text;
    let to_stdout = a.output.as_deref() == Some(Path::new("-"));
    let colour = diff_to_stdout && super::shape::colour();
    let shown_root = settings.display_root();
    let mut stats_lines: Vec<u8> = Vec::new();
    for o in &outcomes {
        let r = match &o.result {
            Ok(r) => r,
            Err(e) => {
                crate::errln!("hipport: {}: {e}", o.input.path.display());
                had_error = true;
                continue;
            }
        };
        totals.add(&r.stats);
        if r.conflicts > 0 {
            crate::errln!(
                "hipport: {}: {} overlapping edit(s) not applied (an engine defect: please report)",
                o.input.rel,
                r.conflicts
            );
        }
        if !super::shape::quiet() && a.format == TextOrJson::Text {
            for f in &r.findings {
                // Named as a terminal here opens it, as `scan` does (`../proj/k.cu:3:1`).
                let mut shown = f.clone();
                if let Some(root) = &shown_root {
                    shown.path = format!("{root}/{}", f.path);
                }
                crate::errln!("{}", shown.one_line());
            }
        }
        if a.stats && (r.changed || r.stats.unported > 0) {
            render::stats::write_line(&mut stats_lines, &o.input.rel, &r.stats)?;
        }
        if diff_to_stdout {
            // The name byte-exact (`rel` is lossy): git applies a quoted non-UTF-8 name.
            let name = os_bytes(o.input.diff_name());
            render::diff::write_file_diff_styled(&mut out, &name, &r.input, &r.output, colour)?;
        } else if a.out.is_some() || a.write {
            // Written in parallel below.
        } else if let Some(dest) = &a.output {
            if to_stdout {
                out.write_all(&r.output)?;
            } else {
                crate::safety::write_atomic(dest, &r.output, Some(&o.input.path), None)
                    .with_context(|| format!("-o {}", dest.display()))?;
            }
        }
    }
    if let Some(dir) = &a.out {
        use rayon::prelude::*;
        std::fs::create_dir_all(dir).with_context(|| format!("--out {}", dir.display()))?;
        let writes: Vec<crate::safety::Write> = outcomes
            .iter()
            .filter_map(|o| {
                let r = o.result.as_ref().ok()?;
                Some(crate::safety::Write {
                    dest: dir.join(o.input.rel_os()),
                    bytes: &r.output,
                    like: Some(&o.input.path),
                    root: Some(dir),
                })
            })
            .collect();
        let mut failures = write_failures(&writes);
        if full_tree {
            let copies: Vec<String> = others
                .par_iter()
                .filter_map(|i| copy_other(i, dir).err())
                .collect();
            failures.extend(copies);
        }
        failures.sort();
        for f in &failures {
            crate::errln!("{f}");
        }
        had_error |= !failures.is_empty();
    }
    if a.write {
        let writes: Vec<crate::safety::Write> = in_place
            .iter()
            .filter_map(|(i, real)| {
                let o = &outcomes[*i];
                let r = o.result.as_ref().ok()?;
                Some(crate::safety::Write {
                    dest: real.clone(),
                    bytes: &r.output,
                    like: None,
                    root: Some(&o.input.root),
                })
            })
            .collect();
        let mut failures = write_failures(&writes);
        failures.sort();
        for f in &failures {
            crate::errln!("{f}");
        }
        had_error |= !failures.is_empty();
    }
    if let Some(h) = header {
        had_error |= write_compat_header(&a, h, &target, m, diff_to_stdout, &mut out)?;
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

/// Where `hipport_compat.h` goes (output root → the shims of the files written under it), with
/// what is there already.
struct HeaderPlan {
    roots: std::collections::BTreeMap<PathBuf, std::collections::BTreeSet<String>>,
    /// A header hipport generated, already at a root (its content, for the diff of a rerun).
    existing: std::collections::BTreeMap<PathBuf, Vec<u8>>,
}

/// The header's destinations. A file of that name there (or, with `--out`, at the root of an
/// input tree, which the output copies) must be one hipport generated: anything else stops the
/// run before a byte is written. A generated one keeps its shims: a rerun on ported code no
/// longer sees the includes they stand in for.
fn compat_plan(
    a: &PortArgs,
    outcomes: &[FileOutcome],
    target: &crate::mappings::Target,
) -> anyhow::Result<HeaderPlan> {
    let mut plan = HeaderPlan {
        roots: Default::default(),
        existing: Default::default(),
    };
    if a.output.as_deref() == Some(Path::new("-")) {
        // Nothing is written: a note names the shims.
        for o in outcomes {
            if let Ok(r) = &o.result {
                plan.roots
                    .entry(PathBuf::new())
                    .or_default()
                    .extend(r.compat.iter().cloned());
            }
        }
        plan.roots.retain(|_, ids| !ids.is_empty());
        return Ok(plan);
    }
    let mut input_roots: Vec<(PathBuf, PathBuf)> = Vec::new();
    for o in outcomes {
        let Ok(r) = &o.result else { continue };
        let root = match (&a.out, &a.output) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dest)) => dest.parent().map(Path::to_path_buf).unwrap_or_default(),
            _ => o.input.root.clone(),
        };
        if !input_roots.iter().any(|(i, _)| *i == o.input.root) {
            input_roots.push((o.input.root.clone(), root.clone()));
        }
        if !r.compat.is_empty() {
            plan.roots
                .entry(root)
                .or_default()
                .extend(r.compat.iter().cloned());
        }
    }
    // Every place a header of that name would be replaced: each destination, and with --out
    // the root of each input tree.
    let mut places: Vec<(PathBuf, PathBuf)> = plan
        .roots
        .keys()
        .map(|r| (r.join(compat::HEADER_NAME), r.clone()))
        .collect();
    if a.out.is_some() {
        places.extend(
            input_roots
                .iter()
                .filter(|(_, r)| plan.roots.contains_key(r))
                .map(|(i, r)| (i.join(compat::HEADER_NAME), r.clone())),
        );
    }
    for (path, root) in places {
        let Some(found) = compat::on_disk::inspect(&path)? else {
            continue;
        };
        if let Some(ids) = plan.roots.get_mut(&root) {
            ids.extend(
                found
                    .ids
                    .into_iter()
                    .filter(|id| compat::by_id(id).is_some_and(|s| s.applies(target))),
            );
        }
        if path == root.join(compat::HEADER_NAME) {
            plan.existing.insert(root, found.bytes);
        }
    }
    Ok(plan)
}

/// With `--write`, a generated header that is untracked or changed in its git work tree is
/// refused like any other uncommitted file (a local edit would be lost), unless `--allow-dirty`.
fn header_dirty(h: &HeaderPlan, allow_dirty: bool) -> anyhow::Result<Vec<String>> {
    let mut refused = Vec::new();
    if allow_dirty {
        return Ok(refused);
    }
    for root in h.existing.keys().filter(|r| h.roots.contains_key(*r)) {
        let dest = root.join(compat::HEADER_NAME);
        let Some((top, tracked, changed)) = git_state(root)? else {
            continue; // in no work tree: the sources are refused (or allowed) already
        };
        let real = std::fs::canonicalize(&dest)?;
        let rel = real.strip_prefix(&top).map(os_bytes).unwrap_or_default();
        if !tracked.contains(&rel) {
            refused.push(format!("{} (untracked or ignored)", dest.display()));
        } else if changed.contains(&rel) {
            refused.push(format!("{} (uncommitted changes)", dest.display()));
        }
    }
    Ok(refused)
}

/// Writes `hipport_compat.h` with the shims the outputs use, once per output root; returns
/// whether a write failed.
fn write_compat_header(
    a: &PortArgs,
    plan: HeaderPlan,
    target: &crate::mappings::Target,
    m: &crate::mappings::Mappings,
    diff_to_stdout: bool,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    let name = compat::HEADER_NAME;
    if a.output.as_deref() == Some(Path::new("-")) {
        if let Some(ids) = plan.roots.values().next() {
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            crate::errln!(
                "hipport: the output includes \"{name}\" (shims: {}), which -o - does not write; \
                 write it with `-o FILE` (next to FILE) or `--out DIR`",
                ids.join(", ")
            );
        }
        return Ok(false);
    }
    if diff_to_stdout {
        let old = plan.existing.values().next().cloned();
        let all: std::collections::BTreeSet<String> = plan.roots.into_values().flatten().collect();
        if !all.is_empty() {
            let text = compat::render(target, &all, m);
            match old {
                Some(old) => render::diff::write_file_diff(out, name, &old, text.as_bytes())?,
                None => render::diff::write_new_file(out, name, text.as_bytes())?,
            }
        }
        return Ok(false);
    }
    let mut failed = false;
    for (root, ids) in plan.roots {
        let dest = root.join(name);
        let text = compat::render(target, &ids, m);
        if plan
            .existing
            .get(&root)
            .is_some_and(|b| *b == text.as_bytes())
        {
            continue; // a rerun: already as it should be
        }
        // Checked again at the write: never through a symlink, never outside the root.
        let inside = if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root.as_path()
        };
        if let Err(e) = crate::safety::write_atomic(&dest, text.as_bytes(), None, Some(inside)) {
            crate::errln!("hipport: {}: cannot write: {e:#}", dest.display());
            failed = true;
        }
    }
    Ok(failed)
}

fn is_generated_header(i: &Input) -> bool {
    i.path
        .file_name()
        .is_some_and(|n| n == std::ffi::OsStr::new(compat::HEADER_NAME))
        && matches!(compat::on_disk::inspect(&i.path), Ok(Some(_)))
}

/// Writes every file atomically in one batch; the error lines of those that failed.
fn write_failures(writes: &[crate::safety::Write]) -> Vec<String> {
    crate::safety::write_all_atomic(writes)
        .into_iter()
        .zip(writes)
        .filter_map(|(r, w)| {
            r.err()
                .map(|e| format!("hipport: {}: cannot write: {e:#}", w.dest.display()))
        })
        .collect()
}

/// `--out DIR` must not be an input nor inside one (the output would be read back as input,
/// or replace it).
fn check_out_dir(out: &Path, inputs: &[PathBuf]) -> anyhow::Result<()> {
    let o = crate::safety::resolve(out)?;
    for i in inputs {
        let Ok(p) = std::fs::canonicalize(i) else {
            continue; // reported by the walk
        };
        if o == p {
            bail!(
                "--out {} is the input {} itself: name a separate directory (or use --write to rewrite in place)",
                out.display(),
                i.display()
            );
        }
        if o.starts_with(&p) {
            bail!(
                "--out {} is inside the input {}: name a directory outside the tree",
                out.display(),
                i.display()
            );
        }
    }
    Ok(())
}

/// `-o DEST` must not be the input (use `--write`), nor a symlink, FIFO, device or read-only
/// file (checked again at the write).
fn check_output_file(dest: &Path, input: &Path) -> anyhow::Result<()> {
    let d = crate::safety::resolve(dest)?;
    if std::fs::canonicalize(input).is_ok_and(|i| i == d) {
        bail!(
            "-o {} is the input file itself: use --write to rewrite in place (it checks for uncommitted changes)",
            dest.display()
        );
    }
    crate::safety::check_destination(dest).with_context(|| format!("-o {}", dest.display()))?;
    Ok(())
}

/// The real path of an input to rewrite in place: it must resolve inside its root (a link
/// followed with --follow-links may point elsewhere: never written).
fn in_tree_path(i: &Input) -> anyhow::Result<PathBuf> {
    let root = std::fs::canonicalize(&i.root)?;
    let real = std::fs::canonicalize(&i.path)?;
    if !real.starts_with(&root) {
        bail!(
            "resolves to {}, outside {}: not rewritten (--write never leaves the tree)",
            real.display(),
            root.display()
        );
    }
    Ok(real)
}

/// Copies a non-source file into the `--out` tree, or recreates a symlink whose target stays
/// inside the input tree (one that points outside is reported and not copied).
/// `--out DIR` writes each file under its name relative to its root, so two roots holding the
/// same name (`a/main.cu`, `b/main.cu`) would write one destination twice: refused before
/// anything is written, naming both inputs (`scan` keeps such files apart by their path as
/// given; a tree written under DIR has one name per file).
fn out_collision(inputs: &[Input], others: &[Input]) -> anyhow::Result<()> {
    let mut seen: std::collections::BTreeMap<&Path, &Input> = std::collections::BTreeMap::new();
    for i in inputs.iter().chain(others) {
        if let Some(first) = seen.insert(i.rel_os(), i) {
            bail!(
                "--out: {} and {} would both be written as {}: give one root, or port each root with its own --out",
                first.path.display(),
                i.path.display(),
                i.rel_os().display()
            );
        }
    }
    Ok(())
}

fn copy_other(i: &Input, out: &Path) -> Result<(), String> {
    let dest = out.join(i.rel_os());
    let fail =
        |e: &dyn std::fmt::Display| format!("hipport: {}: cannot write: {e}", dest.display());
    if i.link {
        let target = std::fs::read_link(&i.path).map_err(|e| fail(&e))?;
        let base = i.path.parent().unwrap_or(Path::new("."));
        let inside = !target.is_absolute()
            && crate::safety::resolve(&base.join(&target))
                .ok()
                .zip(std::fs::canonicalize(&i.root).ok())
                .is_some_and(|(t, r)| t.starts_with(r));
        if !inside {
            // Not an error: the tree is complete without what lies outside it; said, not hidden.
            crate::errln!(
                "hipport: note: {}: a symbolic link to {}, outside the tree: not copied",
                i.rel,
                target.display()
            );
            return Ok(());
        }
        let parent = dest.parent().unwrap_or(out);
        std::fs::create_dir_all(parent).map_err(|e| fail(&e))?;
        crate::safety::require_inside(out, parent).map_err(|e| fail(&e))?;
        if let Ok(m) = std::fs::symlink_metadata(&dest) {
            if m.file_type().is_symlink() {
                std::fs::remove_file(&dest).map_err(|e| fail(&e))?;
            } else {
                return Err(fail(&"exists and is not a symbolic link"));
            }
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &dest).map_err(|e| fail(&e))?;
        return Ok(());
    }
    crate::safety::copy_atomic(&i.path, &dest, out).map_err(|e| fail(&e))
}

/// The files `--write` would rewrite that are not committed: modified or staged, untracked or
/// ignored, or in no git work tree — unless allowed.
fn dirty(
    in_place: &[(usize, PathBuf)],
    outcomes: &[FileOutcome],
    allow_dirty: bool,
    allow_no_vcs: bool,
) -> anyhow::Result<Vec<String>> {
    use std::collections::HashMap;
    let mut refused = Vec::new();
    // One git query per work tree.
    let mut trees: HashMap<PathBuf, GitState> = HashMap::new();
    for (i, real) in in_place {
        let root = &outcomes[*i].input.root;
        let tree = match trees.get(root) {
            Some(t) => t.clone(),
            None => {
                let t = git_state(root)?;
                trees.insert(root.clone(), t.clone());
                t
            }
        };
        let shown = outcomes[*i].input.path.display();
        match tree {
            None if !allow_no_vcs => refused.push(format!("{shown} (in no git work tree)")),
            None => {}
            Some((top, tracked, changed)) if !allow_dirty => {
                let rel = real.strip_prefix(&top).map(os_bytes).unwrap_or_default();
                if !tracked.contains(&rel) {
                    refused.push(format!("{shown} (untracked or ignored)"));
                } else if changed.contains(&rel) {
                    refused.push(format!("{shown} (uncommitted changes)"));
                }
            }
            Some(_) => {}
        }
    }
    Ok(refused)
}

#[cfg(unix)]
fn os_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(p: &Path) -> Vec<u8> {
    p.to_string_lossy().replace('\\', "/").into_bytes()
}

type GitState = Option<(
    PathBuf,
    std::collections::HashSet<Vec<u8>>,
    std::collections::HashSet<Vec<u8>>,
)>;

/// The work tree holding `dir`: its top, its tracked files and its changed files (relative,
/// byte-exact); `None` outside any git work tree.
fn git_state(dir: &Path) -> anyhow::Result<GitState> {
    let git = |args: &[&str], cwd: &Path| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(cwd)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
    };
    let Ok(top) = git(&["rev-parse", "--show-toplevel"], dir) else {
        return Ok(None); // no git here
    };
    if !top.status.success() {
        return Ok(None);
    }
    let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim_end_matches('\n'));
    let top = std::fs::canonicalize(&top).unwrap_or(top);
    let listed = git(&["ls-files", "-z", "--full-name"], &top).context("running git ls-files")?;
    let tracked = listed
        .stdout
        .split(|&b| b == 0)
        .filter(|e| !e.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let status = git(
        &["status", "--porcelain=v1", "-z", "--untracked-files=no"],
        &top,
    )
    .context("running git status")?;
    let mut changed = std::collections::HashSet::new();
    let mut fields = status.stdout.split(|&b| b == 0);
    while let Some(e) = fields.next() {
        if e.len() < 4 {
            continue;
        }
        changed.insert(e[3..].to_vec());
        if matches!(e[0], b'R' | b'C') {
            fields.next(); // the rename's source
        }
    }
    Ok(Some((top, tracked, changed)))
}
