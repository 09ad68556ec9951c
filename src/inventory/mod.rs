//! Repository inventory beyond kernels: Python code and packages, build systems, containers,
//! deployment manifests, monitoring, distributed tuning, prebuilt binaries and PTX artifacts.
//!
//! [`scan_repo`] walks with the same walker as the C++ scan (ignore files, include/exclude), picks
//! the files whose kind it knows ([`kind`]), parses each with a real parser (tree-sitter Python,
//! Bash, CMake, Make, YAML; `toml`; `goblin` for ELF; `zip` for wheels) in parallel, and returns
//! sorted findings. A file it cannot read becomes an error with its reason, never an abort.
//! Portable framework names (`torch.cuda`, `backend="nccl"`) are listed as PASS, never as work.

pub mod automake;
pub mod bazel;
pub mod binary;
pub mod build;
pub mod ci_lanes;
pub mod cmake;
pub mod component;
pub mod container;
pub mod declared_imports;
pub mod deployment;
pub mod distributed;
pub mod dockerfile;
pub mod framework;
pub mod gha;
pub mod gha_expr;
pub mod gitlab;
pub mod hip_targets;
pub mod kind;
pub mod make;
pub mod make_arms;
pub mod make_targets;
pub mod monitoring;
pub mod msbuild;
pub mod native_ext;
pub mod notebook;
pub mod packages;
pub mod platform;
pub mod platform_siblings;
pub mod ptx;
pub mod py_capability;
pub mod pyproject;
pub mod python;
pub mod requirements;
pub mod rocm_branch;
pub mod rocm_images;
pub mod scripts;
pub mod shell;
pub mod shell_arms;
pub mod siblings;
pub mod submodules;
pub mod system_packages;
pub mod tables;
pub mod ts;
pub mod version_check;
pub mod words;
pub mod yaml;
pub mod yaml_tree;

use crate::finding::FileError;
use crate::finding::Finding;
use crate::registry::{FileCtx, RuleInfo};
use crate::source::LineIndex;
use crate::version::Version;
use crate::walk::{self, Input, WalkOptions};
use kind::FileKind;
use rayon::prelude::*;
use std::ops::Range;
use std::path::PathBuf;

/// Every inventory rule, for the registry in `catalog::all()` (which sits above this family).
pub fn rules() -> Vec<&'static RuleInfo> {
    let mut v: Vec<&'static RuleInfo> = Vec::new();
    for family in [
        framework::RULES,
        version_check::RULES,
        packages::RULES,
        submodules::RULES,
        native_ext::RULES,
        python::half_flags::RULES,
        python::tvm_targets::RULES,
        python::taichi_arch::RULES,
        component::RULES,
        rocm_branch::RULES,
        build::RULES,
        hip_targets::RULES,
        container::RULES,
        deployment::RULES,
        monitoring::RULES,
        distributed::RULES,
        binary::RULES,
        system_packages::RULES,
        ptx::RULES,
    ] {
        v.extend_from_slice(family);
    }
    v
}

/// What the inventory pass found: findings (sorted), unreadable files, files examined.
#[derive(Default)]
pub struct Inventory {
    pub findings: Vec<Finding>,
    pub errors: Vec<FileError>,
    pub files: usize,
    /// Bytes the inventory read that project-level passes read again: every `setup.py`,
    /// `pyproject.toml`, CMake file (`CMakeLists.txt`, `*.cmake`), Makefile (`*.mk`) and
    /// Dockerfile, and the Python files with findings.
    /// Keyed by path relative to the root, so `scan` never reads a file twice.
    pub texts: std::collections::BTreeMap<String, Vec<u8>>,
}

/// Whether the inventory keeps a file's bytes for the project-level passes (see
/// [`Inventory::texts`]).
fn keep_text(rel: &str, kind: FileKind, has_findings: bool) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    matches!(name, "setup.py" | "pyproject.toml" | "CMakeLists.txt")
        || matches!(kind, FileKind::CMake | FileKind::Make)
        || kind == FileKind::Dockerfile
        || (has_findings && kind == FileKind::Python)
}

/// Walks `paths` (same filters as the C++ scan, every extension) and inventories every file of
/// a known kind.
pub fn scan_repo(paths: &[PathBuf], opts: &WalkOptions, max_file_size: u64) -> Inventory {
    scan_repo_for(
        paths,
        opts,
        max_file_size,
        crate::record::target::default_rocm(),
    )
}

/// [`scan_repo`] for a target ROCm release: image and wheel-index suggestions follow it.
pub fn scan_repo_for(
    paths: &[PathBuf],
    opts: &WalkOptions,
    max_file_size: u64,
    rocm: Version,
) -> Inventory {
    let opts = WalkOptions {
        all_files: true,
        ..opts.clone()
    };
    let (inputs, _walk_errors) = match walk::walk(paths, &opts) {
        Ok(r) => r,
        // The C++ pass reports walk errors and bad globs; nothing more to say here.
        Err(_) => return Inventory::default(),
    };
    scan_inputs_for(&inputs, max_file_size, rocm)
}

/// Inventories already-walked inputs.
pub fn scan_inputs(inputs: &[Input], max_file_size: u64) -> Inventory {
    scan_inputs_for(inputs, max_file_size, crate::record::target::default_rocm())
}

/// [`scan_inputs`] for a target ROCm release.
pub fn scan_inputs_for(inputs: &[Input], max_file_size: u64, rocm: Version) -> Inventory {
    scan_inputs_with(
        inputs,
        max_file_size,
        rocm,
        &std::collections::BTreeMap::new(),
    )
}

/// [`scan_inputs_for`] with some files' bytes already read (by relative path): those are not
/// read again.
pub fn scan_inputs_with(
    inputs: &[Input],
    max_file_size: u64,
    rocm: Version,
    read: &std::collections::BTreeMap<String, Vec<u8>>,
) -> Inventory {
    type One = (
        Vec<Finding>,
        Option<FileError>,
        bool,
        Option<(String, Vec<u8>)>,
    );
    let results: Vec<One> = inputs
        .par_iter()
        .map(|input| {
            let Some(kind) = kind::classify(input) else {
                return (Vec::new(), None, false, None);
            };
            if input.size > max_file_size {
                let err = FileError {
                    path: input.rel.clone(),
                    error: format!(
                        "file is {} bytes, over the limit of {} bytes (raise --max-file-size): not inventoried",
                        input.size, max_file_size
                    ),
                };
                return (Vec::new(), Some(err), true, None);
            }
            let bytes: std::io::Result<Vec<u8>> = match read.get(&input.rel) {
                Some(b) => Ok(b.clone()),
                None => std::fs::read(&input.path),
            };
            match bytes {
                Ok(bytes) => match crate::safety::guarded(|| {
                    scan_bytes_for(&input.rel, kind, &bytes, rocm)
                }) {
                    Ok(f) => {
                        let keep = keep_text(&input.rel, kind, !f.is_empty())
                            .then(|| (input.rel.clone(), bytes));
                        (f, None, true, keep)
                    }
                    Err(error) => (
                        Vec::new(),
                        Some(FileError {
                            path: input.rel.clone(),
                            error,
                        }),
                        true,
                        None,
                    ),
                },
                Err(e) => (
                    Vec::new(),
                    Some(FileError {
                        path: input.rel.clone(),
                        error: format!("cannot read: {e}"),
                    }),
                    true,
                    None,
                ),
            }
        })
        .collect();
    let mut inv = Inventory::default();
    for (f, e, seen, text) in results {
        inv.findings.extend(f);
        inv.errors.extend(e);
        inv.files += seen as usize;
        if let Some((rel, bytes)) = text {
            inv.texts.insert(rel, bytes);
        }
    }
    inv.findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    inv
}

/// Inventories one file's bytes as `kind`. Binary kinds take any bytes; text kinds skip files
/// that are not text (a NUL byte early on) without a finding.
pub fn scan_bytes(rel: &str, kind: FileKind, bytes: &[u8]) -> Vec<Finding> {
    scan_bytes_for(rel, kind, bytes, crate::record::target::default_rocm())
}

/// [`scan_bytes`] for a target ROCm release.
pub fn scan_bytes_for(rel: &str, kind: FileKind, bytes: &[u8], rocm: Version) -> Vec<Finding> {
    let lines = LineIndex::new(bytes);
    let ctx = FileCtx {
        path: rel,
        src: bytes,
        lines: &lines,
    };
    let mut out = Out::new(ctx);
    out.rocm = rocm;
    if kind.is_text() && crate::source::check_bytes(bytes).is_err() {
        return Vec::new();
    }
    match kind {
        FileKind::Python => python::scan(&mut out, python::Flavor::Module),
        FileKind::SetupPy => python::scan(&mut out, python::Flavor::SetupPy),
        FileKind::Bazel => bazel::scan(&mut out),
        FileKind::Requirements => requirements::scan(&mut out),
        FileKind::PyProject => pyproject::scan(&mut out, pyproject::Flavor::PyProject),
        FileKind::Pipfile => pyproject::scan(&mut out, pyproject::Flavor::Pipfile),
        FileKind::PoetryLock | FileKind::UvLock => {
            pyproject::scan(&mut out, pyproject::Flavor::Lock)
        }
        FileKind::SetupCfg => requirements::scan_setup_cfg(&mut out),
        FileKind::CondaEnv => yaml::scan(&mut out, yaml::Flavor::Conda),
        FileKind::Compose => yaml::scan(&mut out, yaml::Flavor::Compose),
        FileKind::Yaml => yaml::scan(&mut out, yaml::Flavor::Manifest),
        FileKind::Dockerfile => dockerfile::scan(&mut out),
        FileKind::Shell => shell::scan(&mut out, words::Site::Build),
        FileKind::CMake => cmake::scan(&mut out),
        FileKind::Make => make::scan(&mut out),
        FileKind::MsBuild => msbuild::scan(&mut out),
        FileKind::Elf | FileKind::Archive => binary::scan(&mut out),
        FileKind::Wheel => binary::scan_wheel(&mut out),
        FileKind::Ptx => ptx::scan_file(&mut out),
        FileKind::Notebook => {
            return notebook::code(bytes)
                .map(|py| scan_bytes_for(rel, FileKind::Python, &py, rocm))
                .unwrap_or_default();
        }
    }
    out.into_findings()
}

/// A file's findings as they are raised: one per (rule, range), in raise order.
pub struct Out<'a> {
    pub ctx: FileCtx<'a>,
    /// The target ROCm release: suggestions (images, wheel indexes) follow it.
    pub rocm: Version,
    findings: Vec<Finding>,
}

impl<'a> Out<'a> {
    pub fn new(ctx: FileCtx<'a>) -> Self {
        Out {
            ctx,
            rocm: crate::record::target::default_rocm(),
            findings: Vec::new(),
        }
    }
    pub fn src(&self) -> &'a [u8] {
        self.ctx.src
    }
    /// The finding raised last, if any.
    pub fn last_mut(&mut self) -> Option<&mut Finding> {
        self.findings.last_mut()
    }
    pub fn text(&self, r: Range<usize>) -> &'a str {
        std::str::from_utf8(&self.ctx.src[r]).unwrap_or("")
    }
    /// Raises `rule` over `range` unless the same rule already covers the same range.
    pub fn push(
        &mut self,
        rule: &RuleInfo,
        range: Range<usize>,
        message: String,
        suggestion: Option<String>,
    ) {
        let dup = self
            .findings
            .iter()
            .any(|f| f.rule == rule.id.code && f.byte_range == (range.start, range.end));
        if !dup {
            let f = self.ctx.finding(rule, range, message, suggestion);
            self.findings.push(f);
        }
    }
    /// Raises `rule` over `range` as PASS: what the tool read there needs nothing on ROCm.
    /// Adds a finding a rule module built, unless one of the same rule already matches `same`.
    pub fn push_unless(&mut self, f: Finding, same: impl Fn(&Finding) -> bool) {
        if !self.findings.iter().any(|o| o.rule == f.rule && same(o)) {
            self.findings.push(f);
        }
    }
    pub fn push_pass(&mut self, rule: &RuleInfo, range: Range<usize>, message: String) {
        self.push(rule, range.clone(), message, None);
        if let Some(f) = self
            .findings
            .iter_mut()
            .rev()
            .find(|f| f.rule == rule.id.code && f.byte_range == (range.start, range.end))
        {
            f.status = crate::gate::Status::Pass;
        }
    }
    /// Turns the findings of `rules` (every non-PASS one when `rules` is empty) that start inside
    /// one of `ranges` into PASS, appending `why(test)` to the message.
    pub fn pass_within(
        &mut self,
        ranges: &[(Range<usize>, String)],
        rules: &[&str],
        why: impl Fn(&str) -> String,
    ) {
        for f in &mut self.findings {
            if f.status == crate::gate::Status::Pass
                || (!rules.is_empty() && !rules.contains(&f.rule.as_str()))
            {
                continue;
            }
            if let Some((_, test)) = ranges.iter().find(|(r, _)| r.contains(&f.byte_range.0)) {
                f.status = crate::gate::Status::Pass;
                f.message.push_str(&why(test));
            }
        }
    }
    /// Turns the open (REMEDIATION) findings of `rule` that start inside one of `ranges` into
    /// UNKNOWN, with the range's text as the message: a check for a person, not a change.
    pub fn check_within(&mut self, ranges: &[(Range<usize>, String)], rule: &str) {
        for f in &mut self.findings {
            if f.rule != rule || f.status != crate::gate::Status::Remediation {
                continue;
            }
            if let Some((_, why)) = ranges.iter().find(|(r, _)| r.contains(&f.byte_range.0)) {
                f.status = crate::gate::Status::Unknown;
                f.message = why.clone();
                f.suggestion = Some("check the arm on the target GPU; decide by `gcnArchName` or the feature itself if it does not hold".into());
            }
        }
    }
    /// Sets the phase of the findings of `rule` that start inside `range`: where a finding sits
    /// can decide when it bites (module level: at import or install).
    pub fn set_phase(&mut self, rule: &str, range: Range<usize>, phase: crate::gate::Phase) {
        for f in &mut self.findings {
            if f.rule == rule && range.contains(&f.byte_range.0) {
                f.phase = phase;
            }
        }
    }
    /// The findings in file order, one open finding per rule and line: a link line with three
    /// CUDA libraries, an nvcc command with three architecture flags is one fact with one fix.
    /// The first keeps its place and names the rest; the rest stay (fingerprints unchanged) as
    /// PASS naming it.
    pub fn into_findings(mut self) -> Vec<Finding> {
        self.findings
            .sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        words::fold_nvcc_probes(&mut self.findings);
        one_per_rule_and_line(&mut self.findings);
        self.findings
    }
}

/// Folds the open findings of one rule on one line into the first (see [`Out::into_findings`]).
fn one_per_rule_and_line(findings: &mut [Finding]) {
    let mut groups: std::collections::BTreeMap<(String, u32), Vec<usize>> = Default::default();
    for (i, f) in findings.iter().enumerate() {
        if f.status != crate::gate::Status::Pass {
            groups.entry((f.rule.clone(), f.line)).or_default().push(i);
        }
    }
    for ((rule, line), idx) in groups {
        let [head, rest @ ..] = idx.as_slice() else {
            continue;
        };
        if rest.is_empty() {
            continue;
        }
        let others: Vec<String> = rest
            .iter()
            .map(|&i| format!("`{}`", findings[i].excerpt))
            .collect();
        findings[*head].message.push_str(&format!(
            " (one fact with {} on the same line: one change)",
            others.join(", ")
        ));
        for &i in rest {
            findings[i].status = crate::gate::Status::Pass;
            findings[i].message.push_str(&format!(
                " (folded into the first {rule} on line {line}, which names every item of the line)"
            ));
        }
    }
}
