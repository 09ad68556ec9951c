//! `verify`: translate a tree into a separate directory, compile every translation unit with
//! hipcc, and classify each result. This is the BUILD gate's evidence: what compiles, what lacks
//! an installed ROCm library, what still uses an un-ported CUDA API. A failing unit is
//! REMEDIATION or UNKNOWN, never BLOCKER (only a person sets BLOCKER, in the migration record).

pub mod allow;
pub mod classify;
pub mod compdb;
pub mod deps;
pub mod hipcc;
pub mod includes;
pub mod packages;
pub mod plan;
pub mod results;
pub mod switch;

pub use hipcc::Hipcc;
pub use results::{AddedFlag, UnitResult, VerifyResults};

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
    pub progress: Progress,
    /// Flags for every unit, each with where it came from (`-I` inside the root are moved into
    /// the translated tree by [`verify`]).
    pub added: Vec<AddedFlag>,
    /// `--std`: replaces the project's and the default standard.
    pub std: Option<String>,
    pub deps: deps::Deps,
}

/// How a run shows that it is alive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A bar, on a terminal.
    Bar,
    /// A line to stderr every [`LINE_EVERY_UNITS`] units or [`LINE_EVERY_SECS`] seconds (CI logs).
    Lines,
    Quiet,
}

pub const LINE_EVERY_UNITS: usize = 25;
pub const LINE_EVERY_SECS: u64 = 20;

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
    let out_abs = std::fs::canonicalize(&s.out).map_err(|e| format!("{}: {e}", s.out.display()))?;
    let root_abs =
        std::fs::canonicalize(&s.root).map_err(|e| format!("{}: {e}", s.root.display()))?;
    let extra = plan::Extra {
        flags: s
            .added
            .iter()
            .map(|a| move_into_tree(&a.flag, &root_abs, &out_abs))
            .collect(),
        std: s.std.clone(),
    };
    let plan = plan::plan(
        &s.root,
        &s.out,
        &files,
        &units,
        &s.offload_arch,
        s.full,
        &extra,
    )?;
    let progress = Ticker::new(plan.commands.len(), s.progress, s.jobs);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(s.jobs.max(1))
        .build()
        .map_err(|e| e.to_string())?;
    let mut rows: Vec<UnitResult> = pool.install(|| {
        plan.commands
            .par_iter()
            .map(|c| {
                let (ok, output) = hipcc::run(&s.hipcc, c);
                progress.tick(ok);
                UnitResult::new(c, &s.hipcc, ok, &output, &s.deps)
            })
            .collect()
    });
    progress.finish();
    // Errors name the translated files; show them relative to the tree, as the sources are.
    let prefix = format!("{}/", out_abs.display());
    for r in &mut rows {
        if let Some(e) = &mut r.error {
            *e = e.replace(&prefix, "");
        }
    }
    rows.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(VerifyResults::new(s, plan.source, rows, errors))
}

/// `-I<root>/inc` → `-I<out>/inc`: an include directory inside the project is read from the
/// translated tree, like the project's own.
fn move_into_tree(flag: &str, root: &Path, out: &Path) -> String {
    for p in ["-I", "-isystem", "-iquote"] {
        if let Some(dir) = flag.strip_prefix(p) {
            if let Ok(rel) = Path::new(dir).strip_prefix(root) {
                return format!("{p}{}", out.join(rel).display());
            }
        }
    }
    flag.to_string()
}

/// Shows a run is alive: a bar on a terminal, a line to stderr every few units or seconds
/// otherwise (a CI log shows life), nothing with `-q`.
struct Ticker {
    bar: indicatif::ProgressBar,
    mode: Progress,
    total: usize,
    state: std::sync::Mutex<(usize, usize, std::time::Instant)>,
    start: std::time::Instant,
}

impl Ticker {
    fn new(total: usize, mode: Progress, jobs: usize) -> Ticker {
        let bar = progress_bar(total as u64, mode == Progress::Bar);
        if mode == Progress::Lines {
            crate::errln!("hipport verify: compiling {total} unit(s), {jobs} at a time");
        }
        let now = std::time::Instant::now();
        Ticker {
            bar,
            mode,
            total,
            state: std::sync::Mutex::new((0, 0, now)),
            start: now,
        }
    }
    fn tick(&self, ok: bool) {
        self.bar.inc(1);
        if self.mode != Progress::Lines {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0 += 1;
        st.1 += usize::from(!ok);
        let due = st.0 % LINE_EVERY_UNITS == 0
            || st.2.elapsed().as_secs() >= LINE_EVERY_SECS
            || st.0 == self.total;
        if due {
            st.2 = std::time::Instant::now();
            crate::errln!(
                "hipport verify: {}/{} units, {} failed, {}s",
                st.0,
                self.total,
                st.1,
                self.start.elapsed().as_secs()
            );
        }
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
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
    if let Ok(m) = std::fs::symlink_metadata(out) {
        if !m.file_type().is_dir() {
            return Err(format!(
                "--out {}: {}, not a directory: verify writes only into a real directory",
                out.display(),
                crate::safety::kind_of(&m)
            ));
        }
    }
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| format!("{}: {e}", out.display()))?
            .next()
            .is_none();
        if !empty {
            if !std::fs::symlink_metadata(out.join(MARKER)).is_ok_and(|m| m.file_type().is_file()) {
                return Err(format!(
                    "--out {}: the directory is not empty and was not made by hipport verify; name a new or empty directory",
                    out.display()
                ));
            }
            std::fs::remove_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        }
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    crate::safety::write_atomic(
        &out.join(MARKER),
        b"made by hipport verify: translated sources, safe to delete\n",
        None,
        Some(out),
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
            unsafe_fixes: false,
        },
        hazards: false,
        annotate: false,
        keep_output: true,
        max_file_size: s.max_file_size,
        parse_health: false,
    };
    let root_abs =
        std::fs::canonicalize(&s.root).map_err(|e| format!("{}: {e}", s.root.display()))?;
    let mut files = Vec::new();
    let mut shims = std::collections::BTreeSet::new();
    for o in pipeline::run(&sources, &work, mappings::get()) {
        if let Err(e) = inside_root(&o.input, &root_abs) {
            errors.push(e);
            continue;
        }
        match o.result {
            Ok(r) => {
                shims.extend(r.compat.iter().cloned());
                if write(
                    &s.out,
                    o.input.rel_os(),
                    &r.output,
                    &mut errors,
                    &o.input.rel,
                ) {
                    if o.input.rel_os().to_str().is_some() {
                        files.push(o.input.rel);
                    } else {
                        // Its lossy spelling names no file: compiling it would test nothing.
                        errors.push(FileError {
                            path: o.input.rel,
                            error: "the file name is not UTF-8: translated into the verify tree but not compiled (not verified)".into(),
                        });
                    }
                }
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
        if write(
            &s.out,
            Path::new(name),
            header.as_bytes(),
            &mut errors,
            name,
        ) {
            files.push(name.to_string());
        }
    }
    for i in others.into_iter().filter(|i| i.size <= s.max_file_size) {
        if let Err(e) = inside_root(&i, &root_abs) {
            errors.push(e);
            continue;
        }
        match crate::safety::read_regular(&i.path) {
            Ok(bytes) => {
                if write(&s.out, i.rel_os(), &bytes, &mut errors, &i.rel) {
                    files.push(i.rel);
                }
            }
            Err(e) => errors.push(FileError {
                path: i.rel,
                error: format!("cannot copy: {e}"),
            }),
        }
    }
    files.sort();
    Ok((files, errors))
}

/// Refuses a file that resolves outside the project (a symlink followed with --follow-links):
/// nothing from outside the root is copied into the tree or shown in results.
fn inside_root(i: &walk::Input, root_abs: &Path) -> Result<(), FileError> {
    match std::fs::canonicalize(&i.path) {
        Ok(p) if p.starts_with(root_abs) => Ok(()),
        Ok(p) => Err(FileError {
            path: i.rel.clone(),
            error: format!(
                "resolves to {}, outside the project: not copied into the verify tree",
                p.display()
            ),
        }),
        Err(e) => Err(FileError {
            path: i.rel.clone(),
            error: format!("cannot read: {e}"),
        }),
    }
}

fn write(out: &Path, rel: &Path, bytes: &[u8], errors: &mut Vec<FileError>, name: &str) -> bool {
    let dest = out.join(rel);
    match crate::safety::write_scratch(&dest, bytes, out) {
        Ok(()) => true,
        Err(e) => {
            errors.push(FileError {
                path: name.to_string(),
                error: format!("cannot write {}: {e}", dest.display()),
            });
            false
        }
    }
}
