//! `scan` as a library call: walk, run the per-file pipeline with hazard rules, gather one
//! sorted [`Report`]. Changes nothing on disk.

use crate::mappings;
use crate::pipeline::{self, Work};
use crate::report::{FileError, Report, Sources};
use crate::settings::Settings;
use crate::translate::{LaunchSyntax, Options};
use crate::walk;

/// The raw scan: every finding, before the project's rule levels and decisions
/// ([`Settings::scan`] applies them), with the contents of the source files that have findings.
pub fn scan(s: &Settings) -> Result<Report, String> {
    let m = mappings::get();
    // One walk feeds both passes: the sources (by extension, or named on the command line) and
    // the inventory (every file of a kind it knows). Walk errors are reported once, here.
    let walk::Walked {
        all,
        sources: inputs,
        errors: walk_errors,
    } = walk::walk_all_and_sources(&s.paths, &s.walk)?;
    let work = Work {
        translate: Options {
            target: s.target,
            launch: LaunchSyntax::Keep,
            implicit_include: true,
            compat_header: false,
        },
        hazards: true,
        annotate: false,
        keep_output: false,
        max_file_size: s.max_file_size,
        parse_health: true,
    };
    let outcomes = pipeline::run(&inputs, &work, m);
    let mut findings = Vec::new();
    let mut errors: Vec<FileError> = walk_errors
        .into_iter()
        .map(|e| FileError {
            path: e.path,
            error: e.message,
        })
        .collect();
    let mut translated = 0usize;
    let mut parse_errors = 0usize;
    let mut suppressed = 0usize;
    let mut sources = Sources::new();
    let files = outcomes.len();
    for o in outcomes {
        match o.result {
            Ok(r) => {
                suppressed += r.suppressed;
                translated += (r.stats.renamed_total() + r.stats.unchanged_api) as usize;
                if r.health.parsed && !r.health.clean() {
                    parse_errors += 1;
                }
                if !r.findings.is_empty() || !r.project_notes.is_empty() {
                    findings.extend(r.findings);
                    findings.extend(r.project_notes);
                    sources.insert(o.input.rel, r.input);
                }
            }
            Err(e) => errors.push(FileError {
                path: o.input.rel,
                error: e,
            }),
        }
    }
    let inventory = crate::inventory::scan_inputs_for(&all, s.max_file_size, s.target.rocm);
    findings.extend(inventory.findings);
    errors.extend(inventory.errors);
    // One finding per fact: a project's ROCm switch once, one rule per flagged code and line.
    crate::rules::facts::once_per_project(
        &mut findings,
        &[crate::rules::version_check::PROJECT_ROCM_SWITCH.id.code],
    );
    crate::rules::facts::merge_same_line(&mut findings);
    // Sources that a ROCm-aware setup.py builds only in its CUDA arm are not porting work.
    let setups: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| i.rel.rsplit('/').next() == Some("setup.py") && i.size <= s.max_file_size)
        .filter_map(|i| std::fs::read(&i.path).ok().map(|b| (i.rel.clone(), b)))
        .collect();
    crate::inventory::rocm_branch::pass_cuda_only_sources(&mut findings, &setups);
    // The same for CMake: sources a HIP-aware CMakeLists.txt lists only in arms its HIP build
    // never runs (`if(BUILD_CUDA)`).
    let cmake_only: Vec<(String, String)> = all
        .iter()
        .filter(|i| i.rel.rsplit('/').next() == Some("CMakeLists.txt") && i.size <= s.max_file_size)
        .filter_map(|i| std::fs::read(&i.path).ok().map(|b| (i.rel.clone(), b)))
        .flat_map(|(rel, bytes)| {
            let dir = rel
                .rsplit_once('/')
                .map_or(String::new(), |(d, _)| format!("{d}/"));
            crate::inventory::cmake::cuda_only_sources(&bytes)
                .into_iter()
                .map(move |(p, why)| (format!("{dir}{p}"), format!("{rel}: {why}")))
        })
        .collect();
    for f in findings.iter_mut() {
        if f.status == crate::gate::Status::Pass {
            continue;
        }
        if let Some((_, why)) = cmake_only.iter().find(|(p, _)| *p == f.path) {
            f.status = crate::gate::Status::Pass;
            f.message.push_str(&format!(
                " (listed only {why}; the HIP build does not compile this file)"
            ));
        }
    }
    // A sub-package with its own build and no ROCm arm, under a ROCm-aware main build, is one
    // decision; NVIDIA-only Python imports are one fact per directory.
    let pyprojects: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| i.rel.rsplit('/').next() == Some("pyproject.toml") && i.size <= s.max_file_size)
        .filter_map(|i| std::fs::read(&i.path).ok().map(|b| (i.rel.clone(), b)))
        .collect();
    let by_rel: std::collections::HashMap<&str, &std::path::Path> = all
        .iter()
        .filter(|i| i.size <= s.max_file_size)
        .map(|i| (i.rel.as_str(), i.path.as_path()))
        .collect();
    let read = |p: &str| by_rel.get(p).and_then(|path| std::fs::read(path).ok());
    crate::inventory::component::fold_cuda_only_components(
        &mut findings,
        &setups,
        &pyprojects,
        &read,
    );
    crate::inventory::component::fold_nvidia_only_imports(&mut findings, &read);
    let mut report = Report::new(s.target_info(), findings, errors);
    report.summary.files_scanned = files + inventory.files;
    report.summary.translated_names = translated;
    report.summary.parse_errors_files = parse_errors;
    report.summary.suppressed = suppressed;
    report.sources = sources;
    Ok(report)
}
