//! `hipport verify`: translate a tree into a separate directory and compile every translation
//! unit with hipcc; print PASS / BUILD FAIL per unit and store the results as the BUILD gate's
//! evidence (`.hipport/verify-results.json`, hashed into `hipport-migration.toml` when the
//! project has a record, or with `--record`).
//!
//! Flags for real projects: `-I`, `-D`, `--std`, `--extra-arg` (also `[verify]` in
//! hipport.toml, filtered like compile_commands.json since the file is the project's), the
//! project's own ROCm switch (`USE_ROCM`, …) defined by default and printed, PyTorch's include
//! directories when `import torch` works.
//!
//! Exit codes: 0 every unit compiled, or no hipcc here (the BUILD gate stays UNKNOWN and a
//! message says how to get one); 1 some unit failed; 2 usage or I/O error.

use super::common::{ConfigArgs, TargetArgs, TextOrJson, WalkArgs};
use crate::gate::{exit, Phase, Status};
use crate::record::{self, Evidence, GateRow, Record};
use crate::settings::{Request, Settings, Source};
use crate::verify::{self, hipcc, AddedFlag, Progress, VerifyResults, VerifySettings};
use anyhow::{bail, Context};
use clap::Args;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Where results go, under the project root.
pub const RESULTS_FILE: &str = ".hipport/verify-results.json";
/// The default output tree, under the project root.
pub const DEFAULT_OUT: &str = ".hipport/verify";
/// Earlier results larger than this are not merged (`--only`).
const MAX_RESULTS_BYTES: u64 = 256 << 20;
/// Used when neither --offload-arch nor the record's `[target].gfx` names one.
pub const DEFAULT_ARCH: &str = crate::mappings::lds::DEFAULT_ARCH;

#[derive(Args, Debug)]
#[command(
    after_help = "Exit codes: 0 every unit compiled, or no hipcc on this machine (the BUILD gate stays UNKNOWN); 1 some unit failed to compile; 2 usage or I/O error."
)]
pub struct VerifyArgs {
    /// The project root (a directory; a file verifies only that unit; default: the current
    /// directory).
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,
    /// Write the translated tree here (default: PATH/.hipport/verify, replaced on each run).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    /// GPU architectures to compile for, comma-separated (default: the record's `[target].gfx`, else gfx90a).
    #[arg(long, value_name = "gfx…", value_delimiter = ',')]
    pub offload_arch: Vec<String>,
    /// The hipcc to use (default: hipcc on PATH, then /opt/rocm/bin/hipcc).
    #[arg(long, value_name = "PATH")]
    pub hipcc: Option<PathBuf>,
    /// Compile objects (`-c -o`) instead of checking syntax and semantics only (`-fsyntax-only`).
    #[arg(long)]
    pub full: bool,
    /// Compiles to run at once (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Re-check only the units matching this glob (repeatable); others keep their last results.
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[arg(long, alias = "output-format", value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,
    /// Do not write the BUILD gate into hipport-migration.toml.
    #[arg(long, conflicts_with = "record")]
    pub no_record: bool,
    /// Write the BUILD gate into hipport-migration.toml, creating the record if there is none
    /// (by default only an existing record is updated).
    #[arg(long)]
    pub record: bool,
    /// Add an include directory for every unit (repeatable).
    #[arg(short = 'I', long = "include-dir", value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Define a macro for every unit, NAME or NAME=VALUE (repeatable).
    #[arg(short = 'D', long = "define", value_name = "NAME[=VAL]")]
    pub defines: Vec<String>,
    /// The C++ standard, e.g. c++17 or c++20 (default: the project's, else c++17 as nvcc).
    #[arg(long, value_name = "STD")]
    pub std: Option<String>,
    /// One more compiler argument for every unit (repeatable), e.g. --extra-arg=-fopenmp.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub extra_arg: Vec<String>,
    /// Do not define the project's own ROCm switch (detected `USE_ROCM`-like macros).
    #[arg(long)]
    pub no_rocm_switch: bool,
}

impl VerifyArgs {
    pub fn request(&self) -> Request {
        let paths = std::slice::from_ref(&self.path);
        let mut r = super::common::request(paths, &self.target, &self.walk, &self.config);
        r.offload_arch = self.offload_arch.clone();
        r
    }
}

pub fn run(a: VerifyArgs, settings: &Settings) -> anyhow::Result<i32> {
    let (root, mut only) = if a.path.is_file() {
        let name = a
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parent = a
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        (parent.to_path_buf(), vec![name])
    } else if a.path.is_dir() {
        (a.path.clone(), Vec::new())
    } else {
        bail!("{}: no such file or directory", a.path.display());
    };
    only.extend(a.only.iter().cloned());
    let state_dir = crate::safety::real_dir_inside(&root, ".hipport")
        .with_context(|| "the verify results directory")?;
    let config = settings.config.as_ref();
    let record_path = Record::path_in(&root);
    let existing = match Record::load(&record_path) {
        Ok(r) => Some(r),
        Err(record::RecordError::Missing { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let command = std::iter::once("hipport".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let hipcc = match hipcc::find(a.hipcc.as_deref()) {
        Ok(h) => h,
        Err(e @ hipcc::FindError::NotFound) => {
            return no_hipcc(&e.to_string(), &a, existing, &record_path, &command)
        }
        Err(e) => bail!(e),
    };
    let mut target = settings.target;
    if !matches!(settings.rocm_source, Source::Flag | Source::Config) {
        if let Some(v) = hipcc.hip {
            target.rocm = v; // translate for the HIP that will compile it
        }
    }
    let offload_arch = if settings.offload_arch.is_empty() {
        vec![DEFAULT_ARCH.to_string()]
    } else {
        settings.offload_arch.clone()
    };
    for arch in &offload_arch {
        let base = arch.split(':').next().unwrap_or(arch);
        if !record::target::is_gfx(base) {
            bail!("--offload-arch {arch}: not a known gfx target (e.g. gfx90a, gfx942, gfx1100)");
        }
    }
    // Before any unit counts: the compiler builds for every target architecture and refuses a
    // file with an #error.
    hipcc::check_target(&hipcc, &offload_arch)?;
    let mismatch = target_mismatch(
        settings,
        hipcc.hip.as_ref(),
        &offload_arch,
        existing.as_ref(),
    );
    let only_set = if only.is_empty() {
        None
    } else {
        let mut b = globset::GlobSetBuilder::new();
        for g in &only {
            b.add(globset::Glob::new(g).with_context(|| format!("--only {g}"))?);
        }
        Some(b.build()?)
    };
    let (added, std_flag, notes) = added_flags(&a, &root, config)?;
    let files = tree_files(&root, &settings.walk);
    let mut deps = verify::deps::Deps {
        submodules: verify::deps::submodules(&root),
        ..Default::default()
    };
    let mut added = added;
    if verify::deps::uses_torch(&root, &files) {
        match verify::deps::torch_include_dirs("python3") {
            Ok(dirs) => {
                for d in dirs {
                    added.push(AddedFlag {
                        flag: format!("-isystem{}", d.display()),
                        from: "torch (torch.utils.cpp_extension.include_paths())".into(),
                    });
                    deps.torch_include.push(d);
                }
            }
            Err(why) => deps.torch_missing = Some(why),
        }
    }
    if !a.no_rocm_switch && config.and_then(|c| c.verify.rocm_switch) != Some(false) {
        for sw in verify::switch::detect(&root, &files) {
            added.insert(
                0,
                AddedFlag {
                    flag: sw.flag,
                    from: format!("the project's ROCm switch ({})", sw.seen),
                },
            );
        }
    }
    let progress = if super::shape::quiet()
        || a.format == TextOrJson::Json && !std::io::stderr().is_terminal()
    {
        Progress::Quiet
    } else if std::io::stderr().is_terminal() && std::env::var_os("CI").is_none() {
        Progress::Bar
    } else {
        Progress::Lines
    };
    // Flags of hipport.toml's [verify] that were dropped: always said (also in the results).
    for n in &notes {
        crate::errln!("hipport: note: {n}");
    }
    let settings = VerifySettings {
        out: a.out.clone().unwrap_or_else(|| root.join(DEFAULT_OUT)),
        root: root.clone(),
        target,
        offload_arch,
        hipcc,
        full: a.full,
        jobs: a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        only: only_set,
        walk: settings.walk.clone(),
        max_file_size: settings.max_file_size,
        progress,
        added,
        std: std_flag,
        deps,
    };
    let mut results = verify::verify(&settings).map_err(anyhow::Error::msg)?;
    results.target_mismatch = mismatch;
    results.dropped_flags = notes;
    let results_path = root.join(RESULTS_FILE);
    if settings.only.is_some() {
        // The earlier results: a regular file of a sane size, or ignored (never a FIFO).
        if let Some(prev) = std::fs::symlink_metadata(&results_path)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_RESULTS_BYTES)
            .and_then(|_| crate::safety::read_regular(&results_path).ok())
            .and_then(|b| serde_json::from_slice::<VerifyResults>(&b).ok())
        {
            let units = all_units(&settings.out);
            results.merge_previous(&prev, &units);
        }
    }
    let ignore = state_dir.join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err() {
        // The translated tree is scratch; the results file is evidence and may be committed.
        let _ = crate::safety::write_atomic(&ignore, b"verify/\n", None, Some(&root));
    }
    let json = serde_json::to_vec_pretty(&results)?;
    crate::safety::write_atomic(&results_path, &json, None, Some(&root))
        .with_context(|| format!("writing {}", results_path.display()))?;
    let recorded = match existing {
        _ if a.no_record => None,
        None if !a.record => None,
        existing => {
            let mut rec = existing.unwrap_or_else(|| Record::new(&record::whoami()));
            rec.set_gate(build_row(&results, &command, record::sha256_hex(&json)));
            rec.save(&record_path)?;
            Some(record_path.display().to_string())
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        TextOrJson::Json => {
            serde_json::to_writer_pretty(&mut out, &results)?;
            writeln!(out)?;
        }
        TextOrJson::Text => print_text(&mut out, &results, recorded.as_deref())?,
    }
    for e in &results.errors {
        crate::errln!("hipport: {}: {}", e.path, e.error);
    }
    out.flush()?;
    Ok(if !results.errors.is_empty() {
        exit::ERROR
    } else if results.summary.failed() > 0 {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

/// The flags every unit gets beyond its own, with where each came from: `-I`/`-D`/`--extra-arg`
/// from the command line (trusted: a person typed them), then hipport.toml's `[verify]`
/// (the project's file: filtered like compile_commands.json). Returns the flags, the standard
/// and notes about dropped flags.
fn added_flags(
    a: &VerifyArgs,
    root: &Path,
    config: Option<&crate::config::Config>,
) -> anyhow::Result<(Vec<AddedFlag>, Option<String>, Vec<String>)> {
    let mut added = Vec::new();
    let mut notes = Vec::new();
    for d in &a.include_dirs {
        let abs = std::fs::canonicalize(d).with_context(|| format!("-I {}", d.display()))?;
        added.push(AddedFlag {
            flag: format!("-I{}", abs.display()),
            from: "-I".into(),
        });
    }
    for d in &a.defines {
        if d.is_empty() || d.starts_with('=') {
            bail!("-D {d}: expected NAME or NAME=VALUE");
        }
        added.push(AddedFlag {
            flag: format!("-D{d}"),
            from: "-D".into(),
        });
    }
    let mut value_of: Option<&str> = None;
    for x in &a.extra_arg {
        // A person's flags may name any path, but not change how hipport compiles.
        let path_flag = ["-I", "-isystem", "-iquote", "-include"]
            .iter()
            .any(|p| x.starts_with(p));
        if value_of.take().is_none() && !path_flag {
            if let Err(why) = verify::allow::allowed(x) {
                bail!("--extra-arg {}: {why}", x.escape_debug());
            }
        }
        if ["-I", "-isystem", "-iquote", "-include"].contains(&x.as_str()) {
            value_of = Some(x);
        }
        added.push(AddedFlag {
            flag: x.clone(),
            from: "--extra-arg".into(),
        });
    }
    let mut std_flag = a.std.clone();
    if let Some(c) = config {
        let v = &c.verify;
        let root_abs = std::fs::canonicalize(root)?;
        let mut raw: Vec<String> = Vec::new();
        for d in &v.include_dirs {
            raw.push(format!("-I{d}"));
        }
        for d in &v.defines {
            raw.push(format!("-D{d}"));
        }
        raw.extend(v.extra_args.iter().cloned());
        let remap = |p: &str| verify::plan::remap_path(&root_abs, p, &root_abs, &root_abs);
        let kept = verify::compdb::filter(&raw, &remap);
        let from = format!("{} [verify]", c.file.display());
        for f in kept.flags {
            added.push(AddedFlag {
                flag: f,
                from: from.clone(),
            });
        }
        notes.extend(kept.notes.into_iter().map(|n| format!("{from}: {n}")));
        if std_flag.is_none() {
            std_flag = v.std.clone();
        }
    }
    if let Some(s) = &std_flag {
        if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '+') {
            bail!("--std {s}: expected a standard such as c++17 or gnu++20");
        }
    }
    Ok((added, std_flag, notes))
}

/// The project's files (relative paths), for detecting its ROCm switch and PyTorch use.
fn tree_files(root: &Path, opts: &crate::walk::WalkOptions) -> Vec<String> {
    let opts = crate::walk::WalkOptions {
        all_files: true,
        ..opts.clone()
    };
    crate::walk::walk(&[root.to_path_buf()], &opts)
        .map(|(inputs, _)| {
            inputs
                .into_iter()
                .map(|i| i.rel)
                .filter(|r| !r.starts_with(".hipport/"))
                .collect()
        })
        .unwrap_or_default()
}

/// Relative paths of the units in the output tree (for merging `--only` runs).
fn all_units(out: &Path) -> Vec<String> {
    let opts = crate::walk::WalkOptions {
        all_files: true,
        use_ignore_files: false,
        ..Default::default()
    };
    crate::walk::walk(&[out.to_path_buf()], &opts)
        .map(|(inputs, _)| {
            inputs
                .into_iter()
                .map(|i| i.rel)
                .filter(|r| verify::is_unit(r))
                .collect()
        })
        .unwrap_or_default()
}

/// Why these results are not evidence for the target: compiled by a HIP of another release
/// line than the named ROCm target, or for architectures without the record's `gfx`.
fn target_mismatch(
    settings: &Settings,
    hip: Option<&crate::version::Version>,
    archs: &[String],
    record: Option<&Record>,
) -> Option<String> {
    let mut why = Vec::new();
    if settings.rocm_source != Source::Default {
        if let Some(h) = hip.filter(|h| !h.same_minor(&settings.target.rocm)) {
            why.push(format!(
                "compiled with HIP {h}, the target is ROCm {} ({})",
                settings.target.rocm, settings.rocm_source
            ));
        }
    }
    let gfx = record.map_or("", |r| r.target.gfx.trim());
    if !gfx.is_empty() && !archs.iter().any(|a| a.split(':').next() == Some(gfx)) {
        why.push(format!(
            "compiled for {}, the target is {gfx} ({})",
            archs.join(","),
            record::FILE_NAME
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

fn build_row(r: &VerifyResults, command: &str, sha: String) -> GateRow {
    let mut details = BTreeMap::new();
    details.insert(
        "compiler".into(),
        format!("{} ({})", r.hipcc, r.hipcc_version),
    );
    details.insert("mode".into(), r.mode.clone());
    details.insert("rocm".into(), r.rocm.clone());
    // The HIP release that compiled the units (`HIP 5.2.21153-0; …` → 5.2).
    if let Some(v) = r
        .hipcc_version
        .strip_prefix("HIP ")
        .and_then(|v| crate::verify::hipcc::parse_version(&format!("HIP version: {v}")).1)
    {
        details.insert("hip".into(), v.to_string());
    }
    details.insert("offload_arch".into(), r.offload_arch.join(","));
    details.insert("commands_from".into(), r.commands_from.clone());
    details.insert("units".into(), r.summary.units.to_string());
    details.insert("pass".into(), r.summary.pass.to_string());
    details.insert("failed".into(), r.summary.failed().to_string());
    let (status, note) = match &r.target_mismatch {
        Some(why) => {
            details.insert("target_mismatch".into(), why.clone());
            (
                Status::Unknown,
                format!("UNKNOWN for the target: {why} ({})", r.summary.describe()),
            )
        }
        None => (r.summary.status, r.summary.describe()),
    };
    GateRow {
        name: "build".into(),
        status,
        phase: (status != Status::Pass).then_some(Phase::Build),
        evidence: Evidence {
            path: RESULTS_FILE.into(),
            command: command.into(),
            sha256: sha,
            ..Default::default()
        },
        date: r.date.clone(),
        recorded_by: format!("hipport verify ({})", r.tool),
        note,
        details,
    }
}

fn print_text(
    out: &mut impl Write,
    r: &VerifyResults,
    recorded: Option<&str>,
) -> std::io::Result<()> {
    writeln!(
        out,
        "hipport verify: {} ({}), ROCm {}, {}, {}, commands from {}",
        r.hipcc,
        r.hipcc_version,
        r.rocm,
        r.offload_arch.join(","),
        r.mode,
        r.commands_from
    )?;
    writeln!(out, "compiler: {}", r.compiler)?;
    for f in &r.added_flags {
        writeln!(out, "added flag: {} (from {})", f.flag, f.from)?;
    }
    for n in &r.dropped_flags {
        writeln!(out, "dropped flag: {n}")?;
    }
    for u in &r.units {
        match &u.error {
            None => writeln!(out, "{:<42} {}", u.result, u.path)?,
            Some(e) => writeln!(out, "{:<42} {}\n    {e}", u.result, u.path)?,
        }
        if let Some(h) = &u.hint {
            writeln!(out, "    how: {h}")?;
        }
        for n in &u.notes {
            writeln!(out, "    note: {n}")?;
        }
    }
    writeln!(out, "{}", r.summary.describe())?;
    if !r.missing_headers.is_empty() {
        writeln!(out, "failed units by first missing header:")?;
        for g in &r.missing_headers {
            let hint = g
                .hint
                .as_deref()
                .map(|h| format!(" — {h}"))
                .unwrap_or_default();
            writeln!(
                out,
                "  {:>5} unit(s)  {}  [{}]{hint}",
                g.units,
                g.header,
                g.kind.label()
            )?;
        }
    }
    writeln!(out, "translated tree: {}", r.out)?;
    let failed = r.summary.failed();
    let status = match &r.target_mismatch {
        Some(m) => format!(
            "UNKNOWN for the target ({m}; these units: {})",
            r.summary.status
        ),
        None => r.summary.status.to_string(),
    };
    let why = if failed > 0 {
        format!(
            " ({failed} unit(s) to fix or to re-check where the missing libraries are installed)"
        )
    } else {
        String::new()
    };
    match recorded {
        Some(p) => writeln!(out, "BUILD gate: {status}{why}; recorded in {p}"),
        None => writeln!(
            out,
            "BUILD gate: {status}{why}; not recorded (no {} here: `hipport record init`, or pass --record)",
            record::FILE_NAME
        ),
    }
}

/// No hipcc: say so and how to get one; leave the BUILD gate UNKNOWN (recorded when a record
/// exists); exit 0, because nothing failed — nothing could be checked.
fn no_hipcc(
    why: &str,
    a: &VerifyArgs,
    existing: Option<Record>,
    record_path: &Path,
    command: &str,
) -> anyhow::Result<i32> {
    let msg = format!("hipport verify: cannot compile: {why}\nBUILD gate: UNKNOWN (not tested: no hipcc on this machine)");
    if a.format == TextOrJson::Json {
        let doc = serde_json::json!({"hipcc": null, "error": why, "units": [], "summary": {"status": "UNKNOWN"}});
        crate::outln!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        crate::outln!("{msg}");
    }
    crate::errln!("hipport: {why}");
    if let (Some(mut rec), false) = (existing, a.no_record) {
        let keep = rec
            .gate("build")
            .is_some_and(|g| g.status == Status::Blocker);
        if !keep {
            rec.set_gate(GateRow {
                name: "build".into(),
                status: Status::Unknown,
                phase: None,
                evidence: Evidence {
                    command: command.into(),
                    ..Default::default()
                },
                date: record::date::now(),
                recorded_by: "hipport verify".into(),
                note: "not tested: no hipcc on this machine".into(),
                details: BTreeMap::new(),
            });
            rec.save(record_path)?;
        }
    }
    Ok(exit::OK)
}
