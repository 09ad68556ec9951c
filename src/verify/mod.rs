//! `verify`: translate a tree into a separate directory, compile every translation unit with
//! hipcc, and classify each result. This is the BUILD gate's evidence: what compiles, what lacks
//! an installed ROCm library, what still uses an un-ported CUDA API. A failing unit is
//! REMEDIATION or UNKNOWN, never BLOCKER (only a person sets BLOCKER, in the migration record).

pub mod classify;
pub mod compdb;
pub mod hipcc;
pub mod includes;
pub mod plan;
pub mod results;

pub use classify::Outcome;
pub use hipcc::Hipcc;
pub use results::{UnitResult, VerifyResults};

use crate::mappings::{self, Target};
use crate::pipeline::{self, Work};
use crate::report::FileError;
use crate::translate::{LaunchSyntax, Options};
use crate::walk::{self, WalkOptions};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Extensions of translation units (headers are compiled through the units that include them).
pub const UNIT_EXTENSIONS: &[&str] = &["cu", "cpp", "cc", "cxx"];

/// The file that marks a directory as a verify output tree (and so safe to clear).
const MARKER: &str = ".hipport-verify";

/// Validated settings for one run.
pub struct VerifySettings {
    pub root: PathBuf,
    pub out: PathBuf,
    pub target: Target,
    pub offload_arch: Vec<String>,
    pub hipcc: Hipcc,
    pub full: bool,
    pub jobs: usize,
    /// Only these units (relative-path globs); the other units keep their previous results.
    pub only: Option<globset::GlobSet>,
    pub walk: WalkOptions,
    pub max_file_size: u64,
    pub progress: bool,
}

/// Translates, compiles and classifies. Errors are about the run (no such root, an output
/// directory that is not ours); a unit that fails to compile is a result, not an error.
pub fn verify(s: &VerifySettings) -> Result<VerifyResults, String> {
    prepare_out(&s.out)?;
    let (files, errors) = translate_tree(s)?;
    let units: Vec<&String> = files
        .iter()
        .filter(|f| is_unit(f))
        .filter(|f| s.only.as_ref().is_none_or(|g| g.is_match(f.as_str())))
        .collect();
    let plan = plan::plan(&s.root, &s.out, &files, &units, &s.offload_arch, s.full)?;
    let bar = progress_bar(units.len() as u64, s.progress);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(s.jobs.max(1))
        .build()
        .map_err(|e| e.to_string())?;
    let mut rows: Vec<UnitResult> = pool.install(|| {
        plan.commands
            .par_iter()
            .map(|c| {
                let (ok, output) = hipcc::run(&s.hipcc.path, c);
                bar.inc(1);
                UnitResult::new(c, &s.hipcc.path, ok, &output)
            })
            .collect()
    });
    bar.finish_and_clear();
    // Errors name the translated files; show them relative to the tree, as the sources are.
    if let Ok(out_abs) = std::fs::canonicalize(&s.out) {
        let prefix = format!("{}/", out_abs.display());
        for r in &mut rows {
            if let Some(e) = &mut r.error {
                *e = e.replace(&prefix, "");
            }
        }
    }
    rows.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(VerifyResults::new(s, plan.source, rows, errors))
}

pub fn is_unit(rel: &str) -> bool {
    Path::new(rel)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| UNIT_EXTENSIONS.iter().any(|u| u.eq_ignore_ascii_case(e)))
}

fn progress_bar(len: u64, show: bool) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("hipcc {bar:30} {pos}/{len} units {elapsed}")
    {
        bar.set_style(style);
    }
    bar
}

/// Creates the output directory, or clears one that an earlier verify made. Refuses to touch a
/// non-empty directory without the marker: it may be someone's work.
fn prepare_out(out: &Path) -> Result<(), String> {
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| format!("{}: {e}", out.display()))?
            .next()
            .is_none();
        if !empty {
            if !out.join(MARKER).is_file() {
                return Err(format!(
                    "--out {}: the directory is not empty and was not made by hipport verify; name a new or empty directory",
                    out.display()
                ));
            }
            std::fs::remove_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        }
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    std::fs::write(
        out.join(MARKER),
        "made by hipport verify: translated sources, safe to delete\n",
    )
    .map_err(|e| format!("{}: {e}", out.display()))
}

/// Writes the translated tree (sources translated, other files copied) and returns every file's
/// relative path, sorted, with the files that could not be translated.
fn translate_tree(s: &VerifySettings) -> Result<(Vec<String>, Vec<FileError>), String> {
    let mut opts = s.walk.clone();
    opts.all_files = true;
    if let Ok(rel) = s.out.strip_prefix(&s.root) {
        opts.exclude.push(format!("{}/**", walk::rel_string(rel)));
    }
    let (inputs, walk_errors) = walk::walk(std::slice::from_ref(&s.root), &opts)?;
    let mut errors: Vec<FileError> = walk_errors
        .into_iter()
        .map(|e| FileError {
            path: e.path,
            error: e.message,
        })
        .collect();
    let (sources, others): (Vec<_>, Vec<_>) = inputs.into_iter().partition(|i| {
        Path::new(&i.rel)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| s.walk.extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
    });
    let work = Work {
        translate: Options {
            target: s.target,
            launch: LaunchSyntax::Keep,
            implicit_include: true,
            // Small target gaps are closed by hipport_compat.h shims (issue 10 item 4).
            compat_header: true,
        },
        hazards: false,
        annotate: false,
        keep_output: true,
        max_file_size: s.max_file_size,
    };
    let mut files = Vec::new();
    let mut shims = std::collections::BTreeSet::new();
    for o in pipeline::run(&sources, &work, mappings::get()) {
        match o.result {
            Ok(r) => {
                shims.extend(r.compat.iter().cloned());
                write(
                    &s.out.join(&o.input.rel),
                    &r.output,
                    &mut errors,
                    &o.input.rel,
                );
                files.push(o.input.rel);
            }
            Err(e) => errors.push(FileError {
                path: o.input.rel,
                error: e,
            }),
        }
    }
    if !shims.is_empty() {
        let header = crate::compat::render(&s.target, &shims, mappings::get());
        let name = crate::compat::HEADER_NAME;
        write(&s.out.join(name), header.as_bytes(), &mut errors, name);
        files.push(name.to_string());
    }
    for i in others.into_iter().filter(|i| i.size <= s.max_file_size) {
        let dest = s.out.join(&i.rel);
        if let Some(p) = dest.parent() {
            let _ = std::fs::create_dir_all(p);
        }
        match std::fs::copy(&i.path, &dest) {
            Ok(_) => files.push(i.rel),
            Err(e) => errors.push(FileError {
                path: i.rel,
                error: format!("cannot copy: {e}"),
            }),
        }
    }
    files.sort();
    Ok((files, errors))
}

fn write(dest: &Path, bytes: &[u8], errors: &mut Vec<FileError>, rel: &str) {
    let r = dest
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|_| std::fs::write(dest, bytes));
    if let Err(e) = r {
        errors.push(FileError {
            path: rel.to_string(),
            error: format!("cannot write {}: {e}", dest.display()),
        });
    }
}
