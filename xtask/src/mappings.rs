//! `cargo xtask mappings [--check] [--tables DIR]`: generate `mappings/generated/<family>.tsv`
//! from AMD HIPIFY's Markdown API tables (default `<repo root>/../shared/hipify-tables-2025`,
//! the 2025 refresh: core tables at HIP 7.0 / CUDA 13.0, single files up to HIP 7.11; its
//! `SOURCES.tsv` names the HIPIFY commit of each file).
//!
//! # Input
//!
//! Newer files open with an HTML `<head>` block (and a `# Title` and a note); every line before
//! the first `## ` section and every line that is not a table row is skipped. Each HIPIFY file
//! has sections `## **N. Title**`, each holding one Markdown table whose header
//! names column groups: `CUDA`, then `HIP` and, in the `_and_ROC` / `_and_MIOPEN` files, `ROC` or
//! `MIOPEN`. Every group is a name column followed by its `A` `D` `C` `R` (`E`) columns (added,
//! deprecated, changed, removed, experimental); newer files add a `U` column ("unsupported for
//! CUDA versions": empty or comma-separated CUDA versions, kept as `hip_unsupported_cuda`).
//! cuTENSOR's CUDA-side versions have four parts (`2.0.0.0`); a zero fourth part is dropped.
//! Columns are mapped by the header, so group order
//! and the order of A/D/C/R/E inside a group may vary. A name cell holds one backticked name or
//! is empty (no equivalent: the row is kept, the API is un-ported). A version cell is empty or
//! `X.Y[.Z]`. An `E` cell is empty or marks the name experimental: HIPIFY writes the ROCm
//! version it is experimental in (e.g. `6.3.0`); `E`, `+`, `x`, `yes` are accepted too. The
//! generated row keeps only the flag. Anything else is an error naming file and line.
//!
//! For the families with a combined `_and_` file, the plain `_by_HIP.md` / `_by_ROC.md` /
//! `_by_MIOPEN.md` files are read as well: rows missing from the combined file are merged in,
//! rows that disagree with it are reported (the combined file wins).
//!
//! # Kind heuristic
//!
//! From the section title (any `[DEPRECATED]` / `[REMOVED]` tag ignored):
//! - a title containing `macro` → every name is `macro`;
//! - a data-type title (`... Data types`, `... Data Types`, `Types References`, `Device Types`,
//!   `Data types used by CUDA Runtime`) → per name, first rule that matches:
//!   1. `__NAME__` (double underscores both ends, e.g. `__CUDACC__`) → `macro`;
//!   2. in the runtime family, `CUDART_*` ALL-CAPS (math constants such as `CUDART_PI`) →
//!      `macro`; in the CUB family, an ALL-CAPS name (`CUB_MAX`) or a known CUB macro (`CubDebug`,
//!      `CubDebugExit`, `_CubLog`) → `macro`;
//!   3. a type suffix: `_t`, `_st`, `_enum`, `_union`, `_vN`, `_vN_st`, `Struct` → `type`;
//!   4. ALL-CAPS (no lower-case letter except an `x` after a digit, as in `INT8x4`, `16xAUTO`):
//!      `type` if the section also has `NAME_st` or `NAME_vN` (struct typedefs such as
//!      `CUDA_MEMCPY2D`), else `enum` (`CUBLAS_OP_N`, `CU_CTX_SCHED_AUTO`; `#define` constants
//!      such as `CU_MEMHOSTALLOC_PORTABLE` cannot be told apart and stay `enum`);
//!   5. starts with `__` (`__half`, `__nv_bfloat16`) or an upper-case letter (`CUdevice`,
//!      `CubVector`) → `type`;
//!   6. in the runtime family, `cudaXxx` camel case, first match:
//!      (a) a known enumerator prefix whose enum type is spelled differently (`cudaDevAttr*` of
//!      `cudaDeviceAttr`, `cudaMemcpyHostTo*`; `RUNTIME_ENUMERATOR_PREFIXES`) → `enum`;
//!      (b) the longest other name of the section that the name extends at a camel boundary
//!      (structs with a `_st` sibling not counted) ends in an enum-type word (`Error`,
//!      `Limit`, `Kind`, `Mode`, `Flags`, `Type`, ...; `RUNTIME_ENUM_TYPE_WORDS`): `cudaError`
//!      → `cudaErrorInvalidValue`, `cudaLimit` → `cudaLimitStackSize` → `enum`;
//!      (c) the last camel word is a struct word (`Desc`, `Params`, `Parms`, `Prop`, `Info`,
//!      `Value`, `ID`, ...; `RUNTIME_STRUCT_WORDS`; a trailing `V2` ignored) → `type`;
//!      (d) some other name is a prefix as in (b) (`cudaArray` → `cudaArrayDefault`) → `enum`;
//!      (e) the last camel word is an enum-type word or another type word (`Array`, `Ptr`,
//!      `Pos`, `Extent`, ...; `RUNTIME_OTHER_TYPE_WORDS`) → `type`;
//!      (f) else `enum` (`cudaSuccess`, `cudaStreamPerThread`).
//!      Known misses: `#define`s (`cudaHostAllocDefault`, `cudaArrayDefault`) come out `enum`,
//!      a few enumerators ending in a type word (`cudaGraphExecUpdateError`,
//!      `cudaLaunchAttributeAccessPolicyWindow`) come out `type`: the kind is a hint;
//!   7. any other lower-case name (`cublasHandle_t` is caught by 3; `cufftReal`, `csrsv2Info`,
//!      `libraryPropertyType`, `texture`) → `type`;
//! - a function-like title (containing `function`, `management`, `reference`, `routines`, `api`,
//!   `extension`, `control`, `interoperability`, `handling`, `occupancy`, `initialization`,
//!   `addressing`, `access`, `allocator`, `logging`, `contexts`, `operations`, `execution`, ...;
//!   see `FUNCTION_SECTION_WORDS`) → `function`;
//! - any other title → `unknown` (and reported, so a new HIPIFY section gets looked at).

mod kind;
mod markdown;

use anyhow::{bail, Context, Result};
use hipport::mappings::table::{parse_tsv, write_tsv, Family, Kind, Row, TableError};
use hipport::version::Version;
use kind::*;
use markdown::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// ------------------------------------------------------------------------------------------
// Command line

struct Options {
    check: bool,
    tables: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut opts = Options {
        check: false,
        tables: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--check" => opts.check = true,
            "--tables" => {
                let dir = it.next().context("--tables needs a directory")?;
                opts.tables = Some(PathBuf::from(dir));
            }
            s if s.starts_with("--tables=") => {
                opts.tables = Some(PathBuf::from(&s["--tables=".len()..]));
            }
            "-h" | "--help" => bail!(
                "usage: cargo xtask mappings [--check] [--tables DIR]\n\
                 default DIR: <repo root>/../shared/hipify-tables-2025"
            ),
            other => bail!("unknown argument `{other}` (usage: mappings [--check] [--tables DIR])"),
        }
    }
    Ok(opts)
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the repo root")
        .to_path_buf()
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let opts = parse_args(args)?;
    let root = repo_root();
    let tables = opts
        .tables
        .clone()
        .unwrap_or_else(|| root.join("..").join("shared").join("hipify-tables-2025"));
    let out_dir = root.join("mappings").join("generated");
    if !tables.is_dir() {
        if opts.check {
            println!(
                "mappings --check: skipped, no HIPIFY tables at {}",
                tables.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        bail!(
            "no HIPIFY tables at {} (use --tables DIR)",
            tables.display()
        );
    }
    let generated = generate(&tables)?;
    if opts.check {
        let problems = check(&out_dir, &generated.files)?;
        if problems.is_empty() {
            println!(
                "mappings --check: {} files in {} are up to date",
                generated.files.len(),
                out_dir.display()
            );
            Ok(ExitCode::SUCCESS)
        } else {
            for p in &problems {
                eprintln!("mappings --check: {p}");
            }
            eprintln!("run `cargo xtask mappings` to regenerate");
            Ok(ExitCode::FAILURE)
        }
    } else {
        write(&out_dir, &generated.files)?;
        print!("{}", generated.report);
        println!(
            "wrote {} files to {}",
            generated.files.len(),
            out_dir.display()
        );
        Ok(ExitCode::SUCCESS)
    }
}

fn check(out_dir: &Path, files: &BTreeMap<String, String>) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    for (name, want) in files {
        let path = out_dir.join(name);
        match std::fs::read(&path) {
            Ok(have) if have == want.as_bytes() => {}
            Ok(_) => problems.push(format!("{} differs", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                problems.push(format!("{} is missing", path.display()))
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }
    if out_dir.is_dir() {
        for name in dir_files(out_dir)? {
            if !files.contains_key(&name) {
                problems.push(format!(
                    "{} is extra (not generated)",
                    out_dir.join(name).display()
                ));
            }
        }
    }
    Ok(problems)
}

fn write(out_dir: &Path, files: &BTreeMap<String, String>) -> Result<()> {
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    for name in dir_files(out_dir)? {
        if !files.contains_key(&name) {
            let path = out_dir.join(&name);
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
            println!("removed stale {}", path.display());
        }
    }
    for (name, text) in files {
        let path = out_dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

fn dir_files(dir: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}

// ------------------------------------------------------------------------------------------
// Families

struct Spec {
    family: Family,
    /// The file read first; its rows win.
    primary: &'static str,
    /// Single-library variants of a combined file: checked against it, missing rows merged in.
    variants: &'static [&'static str],
    /// The header label of the group that fills the `roc*` fields.
    roc: Option<&'static str>,
}

const SPECS: [Spec; 15] = [
    Spec {
        family: Family::Runtime,
        primary: "CUDA_Runtime_API_functions_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::Driver,
        primary: "CUDA_Driver_API_functions_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::Device,
        primary: "CUDA_Device_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::Complex,
        primary: "cuComplex_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::Rtc,
        primary: "CUDA_RTC_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::Blas,
        primary: "CUBLAS_API_supported_by_HIP_and_ROC.md",
        variants: &[
            "CUBLAS_API_supported_by_HIP.md",
            "CUBLAS_API_supported_by_ROC.md",
        ],
        roc: Some("ROC"),
    },
    Spec {
        family: Family::Sparse,
        primary: "CUSPARSE_API_supported_by_HIP_and_ROC.md",
        variants: &[
            "CUSPARSE_API_supported_by_HIP.md",
            "CUSPARSE_API_supported_by_ROC.md",
        ],
        roc: Some("ROC"),
    },
    Spec {
        family: Family::Solver,
        primary: "CUSOLVER_API_supported_by_HIP_and_ROC.md",
        variants: &[
            "CUSOLVER_API_supported_by_HIP.md",
            "CUSOLVER_API_supported_by_ROC.md",
        ],
        roc: Some("ROC"),
    },
    Spec {
        family: Family::Rand,
        primary: "CURAND_API_supported_by_HIP_and_ROC.md",
        variants: &[
            "CURAND_API_supported_by_HIP.md",
            "CURAND_API_supported_by_ROC.md",
        ],
        roc: Some("ROC"),
    },
    Spec {
        family: Family::Fft,
        primary: "CUFFT_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    // cuDNN maps to MIOpen only: upstream removed the cuDNN→hipDNN tables
    // (`CUDNN_API_supported_by_HIP*.md`, kept in the 2025 folder for reference, older than the
    // MIOpen file), so they are not read and the `hip` column of `dnn.tsv` stays empty.
    Spec {
        family: Family::Dnn,
        primary: "CUDNN_API_supported_by_MIOPEN.md",
        variants: &[],
        roc: Some("MIOPEN"),
    },
    Spec {
        family: Family::Cub,
        primary: "CUB_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::Tensor,
        primary: "CUTENSOR_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::SparseLt,
        primary: "CUSPARSELT_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
    Spec {
        family: Family::File,
        primary: "cuFile_API_supported_by_HIP.md",
        variants: &[],
        roc: None,
    },
];

const README: &str = "\
# Generated mapping tables: do not edit

The `*.tsv` files here are generated from AMD HIPIFY's API tables
(`../shared/hipify-tables-2025/*.md` beside the repository; its `SOURCES.tsv` names the
HIPIFY commit of each file) by

    cargo xtask mappings                 # regenerate
    cargo xtask mappings --check         # verify these files are up to date
    cargo xtask mappings --tables DIR    # read the tables from DIR

Edit the generator (`xtask/src/mappings.rs`) or the hand-kept tables instead, then regenerate.
One file per library family; columns and format: `src/mappings/table.rs`. The `kind` column is
a heuristic from the HIPIFY section title and the name's spelling (see the comment at the top of
`xtask/src/mappings.rs`).

Source licence: the data comes from HIPIFY (https://github.com/ROCm/HIPIFY), MIT licence,
Copyright (c) Advanced Micro Devices, Inc.; see `LICENSE.HIPIFY.txt`.
";

pub struct Generated {
    /// File name in `mappings/generated/` → contents.
    pub files: BTreeMap<String, String>,
    /// Human-readable summary: counts and oddities.
    pub report: String,
}

fn read(dir: &Path, name: &str) -> Result<String> {
    let path = dir.join(name);
    std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
}

fn to_row(spec: &Spec, file: &str, md: &MdRow, kind: Kind) -> Result<Row, TableError> {
    for (label, _) in &md.groups {
        if label != "HIP" && Some(label.as_str()) != spec.roc {
            return Err(TableError {
                file: file.to_string(),
                line: md.line,
                message: format!(
                    "unexpected column group `{label}` for family `{}`",
                    spec.family.as_str()
                ),
            });
        }
    }
    let hip = md.group("HIP").cloned().unwrap_or_default();
    let roc = spec
        .roc
        .and_then(|l| md.group(l))
        .cloned()
        .unwrap_or_default();
    Ok(Row {
        cuda: md.cuda.clone(),
        kind,
        section: md.section.clone(),
        cuda_versions: md.cuda_versions.clone(),
        hip: hip.name,
        hip_versions: hip.versions,
        hip_experimental: hip.experimental,
        roc: roc.name,
        roc_versions: roc.versions,
        roc_experimental: roc.experimental,
        hip_unsupported_cuda: hip.unsupported_cuda,
    })
}

/// Rows of one file with their kinds, as `(row, line)`.
fn file_rows(spec: &Spec, file: &str, md: &[MdRow]) -> Result<Vec<(Row, usize)>, TableError> {
    let mut by_section: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in md {
        by_section
            .entry(r.section.as_str())
            .or_default()
            .insert(r.cuda.as_str());
    }
    md.iter()
        .map(|r| {
            let kind = kind_of(
                spec.family,
                &r.section,
                &r.cuda,
                &by_section[r.section.as_str()],
            );
            Ok((to_row(spec, file, r, kind)?, r.line))
        })
        .collect()
}

#[derive(Default)]
struct Stats {
    newest: Option<(Version, String)>,
    experimental_versions: BTreeMap<String, usize>,
    unknown_sections: BTreeSet<String>,
    notes: Vec<String>,
}

impl Stats {
    fn see(&mut self, v: &Option<Version>, at: impl FnOnce() -> String) {
        if let Some(v) = v {
            if self.newest.as_ref().is_none_or(|(n, _)| v > n) {
                self.newest = Some((*v, at()));
            }
        }
    }
    /// Versions of every HIP/ROC column; `E` versions counted only for `primary` files.
    fn see_md(&mut self, file: &str, r: &MdRow, primary: bool) {
        for (label, c) in &r.groups {
            let vs = &c.versions;
            for v in [
                &vs.added,
                &vs.deprecated,
                &vs.changed,
                &vs.removed,
                &c.experimental_in,
            ] {
                self.see(v, || format!("{file}:{} ({label})", r.line));
            }
            if let (Some(v), true) = (c.experimental_in, primary) {
                *self
                    .experimental_versions
                    .entry(format!("{label} E={v}"))
                    .or_default() += 1;
            }
        }
        if section_kind(&r.section) == SectionKind::Unknown {
            self.unknown_sections
                .insert(format!("{file}: {}", r.section));
        }
    }
}

fn same_data(a: &Row, b: &Row, label: &str) -> bool {
    let base = a.section == b.section && a.kind == b.kind && a.cuda_versions == b.cuda_versions;
    base && if label == "HIP" {
        a.hip == b.hip
            && a.hip_versions == b.hip_versions
            && a.hip_experimental == b.hip_experimental
    } else {
        a.roc == b.roc
            && a.roc_versions == b.roc_versions
            && a.roc_experimental == b.roc_experimental
    }
}

/// Reads the tables in `dir` and renders every generated file.
pub fn generate(dir: &Path) -> Result<Generated> {
    let mut files = BTreeMap::new();
    let mut stats = Stats::default();
    let mut summary = String::new();
    let mut summary_notes = String::new();
    let _ = writeln!(
        summary,
        "{:<8} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "family", "rows", "hip", "hip-E", "roc", "roc-E"
    );
    for spec in &SPECS {
        let mut rows: BTreeMap<String, (Row, String)> = BTreeMap::new();
        let mut sources = vec![spec.primary];
        let text = read(dir, spec.primary)?;
        let md = parse_markdown(spec.primary, &text)?;
        for r in &md {
            stats.see_md(spec.primary, r, true);
        }
        for (row, line) in file_rows(spec, spec.primary, &md)? {
            let at = format!("{}:{line}", spec.primary);
            if let Some((kept, kept_at)) = rows.get(&row.cuda) {
                let how = if *kept == row {
                    "identical"
                } else {
                    "different"
                };
                stats.notes.push(format!(
                    "{}: duplicate CUDA name `{}` at {at} ({how}); kept the first, {kept_at}",
                    spec.family.as_str(),
                    row.cuda
                ));
                continue;
            }
            rows.insert(row.cuda.clone(), (row, at));
        }
        for &variant in spec.variants {
            let path = dir.join(variant);
            if !path.is_file() {
                stats.notes.push(format!(
                    "{}: variant {variant} not present, not checked",
                    spec.family.as_str()
                ));
                continue;
            }
            let text = read(dir, variant)?;
            let md = parse_markdown(variant, &text)?;
            let label = md
                .iter()
                .flat_map(|r| r.groups.iter().map(|(l, _)| l.clone()))
                .next()
                .unwrap_or_else(|| "HIP".into());
            let (mut merged, mut differ) = (0usize, 0usize);
            for r in &md {
                stats.see_md(variant, r, false);
            }
            for (row, line) in file_rows(spec, variant, &md)? {
                let at = format!("{variant}:{line}");
                match rows.get(&row.cuda) {
                    None => {
                        stats.notes.push(format!(
                            "{}: `{}` from {at} is absent from {}; merged in",
                            spec.family.as_str(),
                            row.cuda,
                            spec.primary
                        ));
                        rows.insert(row.cuda.clone(), (row, at));
                        merged += 1;
                    }
                    Some((kept, kept_at)) if !same_data(kept, &row, &label) => {
                        stats.notes.push(format!(
                            "{}: `{}` at {at} differs from {kept_at}; kept {}",
                            spec.family.as_str(),
                            row.cuda,
                            spec.primary
                        ));
                        differ += 1;
                    }
                    Some(_) => {}
                }
            }
            if merged > 0 {
                sources.push(variant);
            }
            let _ = writeln!(
                summary_notes,
                "{}: {variant} checked against {}: {merged} rows merged in, {differ} differ",
                spec.family.as_str(),
                spec.primary
            );
        }
        for (row, at) in rows.values() {
            for (label, name) in [("HIP", &row.hip), ("ROC", &row.roc)] {
                if let Some(n) = name {
                    if !n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                        stats.notes.push(format!(
                            "{}: {label} name `{n}` for `{}` ({at}) is not a plain identifier",
                            spec.family.as_str(),
                            row.cuda
                        ));
                    }
                }
            }
        }
        let rows: Vec<Row> = rows.into_values().map(|(r, _)| r).collect();
        let count = |f: fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
        let _ = writeln!(
            summary,
            "{:<8} {:>6} {:>6} {:>6} {:>6} {:>6}",
            spec.family.as_str(),
            rows.len(),
            count(|r| r.hip.is_some()),
            count(|r| r.hip_experimental),
            count(|r| r.roc.is_some()),
            count(|r| r.roc_experimental),
        );
        let name = format!("{}.tsv", spec.family.as_str());
        let text = write_tsv(spec.family, &sources, &rows);
        // The loader must read back exactly what was generated.
        let back = parse_tsv(&name, &text)?;
        if back != rows {
            bail!("{name}: parse_tsv does not read back the generated rows");
        }
        files.insert(name, text);
    }
    files.insert("README.md".into(), README.to_string());
    files.insert("LICENSE.HIPIFY.txt".into(), read(dir, "LICENSE.txt")?);

    let mut report = summary;
    report.push_str(&summary_notes);
    if let Some((v, at)) = &stats.newest {
        let _ = writeln!(report, "newest HIP/ROC version in the tables: {v} ({at})");
    }
    for (what, n) in &stats.experimental_versions {
        let _ = writeln!(report, "note: {n} `E` cells give a version: {what}");
    }
    for s in &stats.unknown_sections {
        let _ = writeln!(report, "note: section kind unknown: {s}");
    }
    for n in &stats.notes {
        let _ = writeln!(report, "note: {n}");
    }
    Ok(Generated { files, report })
}

// ------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    const HIP_HEADER: &str =
        "|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|\n\
                              |:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|\n";

    fn v(s: &str) -> Option<Version> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn row_with_all_columns() {
        let text = format!(
            "# T\n\n## **1. Memory Management**\n\n{HIP_HEADER}\
             |`cudaFoo`|9.0|10.1|11.0|12.0|`hipFoo`|5.2.0|6.0.0|6.1.0|6.2.0|6.3.0|\n"
        );
        let rows = parse_markdown("t.md", &text).unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(r.line, 7);
        assert_eq!(r.section, "Memory Management");
        assert_eq!(r.cuda, "cudaFoo");
        assert_eq!(r.cuda_versions.added, v("9.0"));
        assert_eq!(r.cuda_versions.deprecated, v("10.1"));
        assert_eq!(r.cuda_versions.changed, v("11.0"));
        assert_eq!(r.cuda_versions.removed, v("12.0"));
        let hip = r.group("HIP").unwrap();
        assert_eq!(hip.name.as_deref(), Some("hipFoo"));
        assert_eq!(hip.versions.added, v("5.2.0"));
        assert_eq!(hip.versions.removed, v("6.2.0"));
        assert!(hip.experimental);
        assert_eq!(hip.experimental_in, v("6.3.0"));
    }

    #[test]
    fn html_head_and_u_column_and_four_part_versions() {
        let text = "<head>\n    <meta charset=\"UTF-8\">\n</head>\n\n# CUTENSOR API supported by HIP\n\n\
            **Note\\:** columns `A`, `D`, `C`, `R`, `U`, and `E`\n\n## **1. CUTENSOR Data types**\n\n\
            |**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**U**|**E**|\n\
            |:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:-:|\n\
            |`CUTENSOR_AUTOTUNE_NONE`|1.2.0.0| | |2.0.0.0|`HIPTENSOR_AUTOTUNE_MODE_NONE`|7.0.0| | | |12.0, 12.1| |\n";
        let rows = parse_markdown("t.md", text).unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(r.cuda_versions.added, v("1.2.0"));
        assert_eq!(r.cuda_versions.removed, v("2.0.0"));
        let hip = r.group("HIP").unwrap();
        assert_eq!(hip.name.as_deref(), Some("HIPTENSOR_AUTOTUNE_MODE_NONE"));
        assert_eq!(
            hip.unsupported_cuda,
            vec![v("12.0").unwrap(), v("12.1").unwrap()]
        );
        let spec = SPECS.iter().find(|s| s.family == Family::Tensor).unwrap();
        let row = &file_rows(spec, "t.md", &rows).unwrap()[0].0;
        assert_eq!(row.hip_unsupported_cuda.len(), 2);
        // A non-zero fourth part would be lost: an error.
        let bad = text.replace("1.2.0.0", "1.2.0.3");
        assert!(parse_markdown("t.md", &bad).is_err());
    }

    #[test]
    fn row_with_empty_hip_is_kept() {
        let text = format!(
            "## **1. Device Management**\n{HIP_HEADER}|`cudaInitDevice`|12.0| | | | | | | | | |\n"
        );
        let rows = parse_markdown("t.md", &text).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].cuda, "cudaInitDevice");
        assert_eq!(rows[0].group("HIP"), Some(&Column::default()));
    }

    #[test]
    fn row_with_roc_columns_in_any_order() {
        // ROC group before HIP, and E before A inside ROC: mapped by the header.
        let text = "## **1. CUBLAS Data types**\n\
            |**CUDA**|**A**|**D**|**C**|**R**|**ROC**|**E**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|\n\
            |:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|\n\
            |`CUBLAS_OP_N`| | | | |`rocblas_operation_none`| |1.5.0| | | |`HIPBLAS_OP_N`|1.8.2| | | | |\n";
        let rows = parse_markdown("t.md", text).unwrap();
        let r = &rows[0];
        let roc = r.group("ROC").unwrap();
        assert_eq!(roc.name.as_deref(), Some("rocblas_operation_none"));
        assert_eq!(roc.versions.added, v("1.5.0"));
        assert!(!roc.experimental);
        let hip = r.group("HIP").unwrap();
        assert_eq!(hip.name.as_deref(), Some("HIPBLAS_OP_N"));
        assert_eq!(hip.versions.added, v("1.8.2"));

        let spec = &SPECS[5];
        assert_eq!(spec.family, Family::Blas);
        let out = file_rows(spec, "t.md", &rows).unwrap();
        let row = &out[0].0;
        assert_eq!(row.kind, Kind::Enum);
        assert_eq!(row.hip.as_deref(), Some("HIPBLAS_OP_N"));
        assert_eq!(row.roc.as_deref(), Some("rocblas_operation_none"));
    }

    #[test]
    fn bad_rows_name_file_and_line() {
        let short = format!("## **1. X Functions**\n{HIP_HEADER}|`cudaFoo`| | |\n");
        let e = parse_markdown("short.md", &short).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("short.md", 4));
        assert!(
            e.to_string().starts_with("short.md:4: expected 11 cells"),
            "{e}"
        );

        let version =
            format!("## **1. X Functions**\n{HIP_HEADER}|`cudaFoo`|7.x| | | | | | | | | |\n");
        let e = parse_markdown("ver.md", &version).unwrap_err();
        assert!(
            e.to_string().starts_with("ver.md:4: CUDA Added: `7.x`"),
            "{e}"
        );

        let two =
            format!("## **1. X Functions**\n{HIP_HEADER}|`cudaFoo`| | | | |`a`, `b`| | | | | |\n");
        let e = parse_markdown("two.md", &two).unwrap_err();
        assert!(e.to_string().contains("two.md:4: HIP Name: cell"), "{e}");

        let no_pipe =
            format!("## **1. X Functions**\n{HIP_HEADER}|`cudaFoo`| | | | | | | | | | |\n|x\n");
        assert_eq!(parse_markdown("p.md", &no_pipe).unwrap_err().line, 5);
    }

    #[test]
    fn kinds() {
        let names: BTreeSet<&str> = [
            "CUDA_MEMCPY2D",
            "CUDA_MEMCPY2D_st",
            "cudaLimit",
            "cudaLimitStackSize",
        ]
        .into();
        let dt = |f, n| kind_of(f, "Data types used by CUDA Runtime", n, &names);
        assert_eq!(dt(Family::Blas, "CUBLAS_OP_N"), Kind::Enum);
        assert_eq!(dt(Family::Blas, "cublasHandle_t"), Kind::Type);
        assert_eq!(dt(Family::Driver, "CU_CTX_SCHED_AUTO"), Kind::Enum);
        assert_eq!(dt(Family::Driver, "CUDA_MEMCPY2D"), Kind::Type);
        assert_eq!(dt(Family::Driver, "CUdevice"), Kind::Type);
        assert_eq!(dt(Family::Driver, "__CUDACC__"), Kind::Macro);
        assert_eq!(dt(Family::Dnn, "CUDNN_DATA_INT8x4"), Kind::Enum);
        assert_eq!(dt(Family::Cub, "CUB_MAX"), Kind::Macro);
        assert_eq!(dt(Family::Cub, "CubDebug"), Kind::Macro);
        assert_eq!(dt(Family::Runtime, "cudaLimit"), Kind::Type);
        assert_eq!(dt(Family::Runtime, "cudaLimitStackSize"), Kind::Enum);
        assert_eq!(dt(Family::Runtime, "cudaDeviceProp"), Kind::Type);
        assert_eq!(dt(Family::Runtime, "cudaMemsetParamsV2"), Kind::Type);
        assert_eq!(dt(Family::Runtime, "cudaSuccess"), Kind::Enum);
        assert_eq!(dt(Family::Runtime, "cudaDevAttrComputeMode"), Kind::Enum);
        assert_eq!(dt(Family::Device, "__half"), Kind::Type);
        assert_eq!(dt(Family::Runtime, "CUDART_PI_F"), Kind::Macro);
        assert_eq!(dt(Family::Runtime, "cudaCGScope"), Kind::Type);
        assert_eq!(last_camel_word("cudaDeviceP2PAttr"), "Attr");
        assert_eq!(last_camel_word("cudaLaunchAttributeID"), "ID");
        assert_eq!(
            kind_of(
                Family::Runtime,
                "Device Management [DEPRECATED]",
                "cudaX",
                &names
            ),
            Kind::Function
        );
        assert_eq!(
            kind_of(Family::Runtime, "Something New", "cudaX", &names),
            Kind::Unknown
        );
    }
}
