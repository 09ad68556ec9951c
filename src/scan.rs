//! `scan` as a library call: walk, run the per-file pipeline with hazard rules, gather one
//! sorted [`Report`]. Changes nothing on disk.

use crate::mappings;
use crate::pipeline::{self, Work};
use crate::report::{FileError, Report, Sources};
use crate::settings::Settings;
use crate::translate::{LaunchSyntax, Options};
use crate::walk;

/// Scans the paths with these settings and applies the configuration: what `scan`, `check`
/// and `gate` report, with the project's gate board attached. `keep_port` keeps the port of
/// the sources for the HTML page ([`Report::ported`]).
pub fn scan_and_apply(settings: &Settings, keep_port: bool) -> anyhow::Result<Report> {
    let report = scan_keeping(settings, keep_port).map_err(anyhow::Error::msg)?;
    if report.summary.files_scanned == 0 && report.errors.is_empty() {
        // An empty scan passes everything: say so, and which configuration made it.
        crate::errln!(
            "hipport: warning: no file was scanned (config {}): check the paths and the configuration's include/exclude globs",
            report.target.config
        );
    }
    let mut report = settings.apply(report);
    crate::board::attach(&settings.paths, &mut report);
    Ok(report)
}

/// The raw scan: every finding, before the project's rule levels and decisions
/// ([`scan_and_apply`] applies them), with the contents of the source files that have findings.
pub fn scan(s: &Settings) -> Result<Report, String> {
    scan_keeping(s, false)
}

/// [`scan`], keeping the port of every source file it changed or found something in
/// ([`Report::ported`]): the HTML page shows it without translating the tree again.
pub fn scan_keeping_port(s: &Settings) -> Result<Report, String> {
    scan_keeping(s, true)
}

fn scan_keeping(s: &Settings, keep_port: bool) -> Result<Report, String> {
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
            unsafe_fixes: false,
        },
        hazards: true,
        annotate: false,
        keep_output: keep_port,
        max_file_size: s.max_file_size,
        parse_health: true,
    };
    let mut ported = crate::report::Ported::new();
    // What the project's HIP build files define for every unit (only those are read here,
    // bounded; the inventory reads every build file later for its own findings).
    let hip_build_texts: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| {
            crate::inventory::kind::is_build(&i.rel)
                && crate::model::project::is_hip_build_file(&i.rel)
                && i.size <= s.max_file_size
        })
        .filter_map(|i| {
            crate::safety::read_regular_bounded(&i.path, s.max_file_size)
                .ok()
                .map(|b| (i.rel.clone(), b))
        })
        .collect();
    let hip_build = crate::model::project::hip_build_defines(
        &hip_build_texts
            .iter()
            .map(|(r, b)| (r.as_str(), b.as_slice()))
            .collect::<Vec<_>>(),
    );
    let outcomes = pipeline::run_with(&inputs, &work, m, &hip_build);
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
    // Each source's quoted includes, for headers only CUDA-only sources pull in.
    let mut includes: Vec<(String, Vec<String>)> = Vec::new();
    // Each source's `#define`s, for macros only the CUDA side of the project defines.
    let mut defines: Vec<(String, Vec<crate::model::cuda_side::Define>)> = Vec::new();
    // Namespaces each source declares inside another (the project's own `x::cuda`).
    let mut namespaces: Vec<(String, Vec<String>)> = Vec::new();
    // Each source's launches and kernels, for the cross-file launch-shape pass.
    let mut rows: Vec<(String, crate::rules::warp_size::launch_rows::FileRows)> = Vec::new();
    // Per file, the renames PyTorch's build-time hipify does not make.
    let mut torch_left: Vec<(
        String,
        Vec<(crate::translate::TorchLeft, crate::finding::Finding)>,
    )> = Vec::new();
    // CUDA names some project file declares itself.
    let mut declared: Vec<(String, String)> = Vec::new();
    for o in outcomes {
        match o.result {
            Ok(mut r) => {
                if let Some(x) = r.rows.take() {
                    rows.push((o.input.rel.clone(), x));
                }
                if !r.torch_left.is_empty() {
                    torch_left.push((o.input.rel.clone(), std::mem::take(&mut r.torch_left)));
                }
                for d in std::mem::take(&mut r.stats.declared) {
                    declared.push((o.input.rel.clone(), d));
                }
                if !r.namespaces.is_empty() {
                    namespaces.push((o.input.rel.clone(), r.namespaces));
                }
                if !r.defines.is_empty() {
                    defines.push((o.input.rel.clone(), r.defines));
                }
                if !r.includes.is_empty() {
                    includes.push((o.input.rel.clone(), r.includes));
                }
                suppressed += r.suppressed;
                translated += (r.stats.renamed_total() + r.stats.unchanged_api) as usize;
                if r.health.parsed && !r.health.clean() {
                    parse_errors += 1;
                }
                let with_findings = !r.findings.is_empty() || !r.project_notes.is_empty();
                if keep_port && (r.changed || with_findings) {
                    ported.insert(o.input.rel.clone(), (r.input.clone(), r.output));
                }
                if with_findings {
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
    pass_behind_cuda_side_macros(&mut findings, &sources, &defines);
    reopen_logical_constants_named_by_includers(
        &mut findings,
        &sources,
        &includes,
        &inputs,
        s.max_file_size,
    );
    crate::rules::project_build::pass_own_namespaces(&mut findings, &sources, &namespaces);
    // The project passes that search every source read the files without findings once,
    // bounded, and only when one of them needs them (the files with findings are in memory).
    let rest_cell: std::cell::OnceCell<Vec<(String, Vec<u8>)>> = std::cell::OnceCell::new();
    let every_source = || -> Vec<(&str, &[u8])> {
        let rest = rest_cell.get_or_init(|| {
            inputs
                .iter()
                .filter(|i| !sources.contains_key(&i.rel) && i.size <= s.max_file_size)
                .filter(|i| crate::walk::is_source(&i.rel))
                .filter_map(|i| {
                    crate::safety::read_regular_bounded(&i.path, s.max_file_size)
                        .ok()
                        .map(|b| (i.rel.clone(), b))
                })
                .collect()
        });
        sources
            .iter()
            .filter(|(r, _)| crate::walk::is_source(r))
            .map(|(r, b)| (r.as_str(), b.as_slice()))
            .chain(rest.iter().map(|(r, b)| (r.as_str(), b.as_slice())))
            .collect()
    };
    // PTX in device helpers nothing calls: every source is searched for a use.
    if findings.iter().any(|f| {
        f.rule == crate::rules::inline_asm::INLINE_PTX.id.code
            && f.status != crate::gate::Status::Pass
            && f.message.contains(" (in `")
    }) {
        crate::rules::inline_asm::settle_uncalled(&mut findings, &every_source());
    }
    // Monitoring tools C/C++ sources run (`system("nvidia-smi -L")`), in the sources held.
    for (rel, bytes) in sources.iter() {
        if crate::walk::is_source(rel) {
            findings.extend(crate::inventory::monitoring::commands_in_source(rel, bytes));
        }
    }
    // CUB warp primitives at their default width in kernels every launch gives 32-wide rows:
    // the launches and the kernels are in different files, each read from its own lex.
    let rows: Vec<(&str, &crate::rules::warp_size::launch_rows::FileRows)> =
        rows.iter().map(|(p, r)| (p.as_str(), r)).collect();
    crate::rules::warp_size::launch_rows::cub_in_kernels_of_32_wide_rows(&mut findings, &rows);
    // A block's x extent measured in wavefronts where some launch gives a partial wavefront.
    crate::rules::warp_size::blocks_in_wavefronts(&mut findings, &rows);
    // Lane reads and votes at the wavefront's width in kernels of several 32-thread rows.
    crate::rules::warp_size::rows_sharing_a_wavefront(&mut findings, &rows);
    let inventory = crate::inventory::scan_inputs_for(&all, s.max_file_size, s.target.rocm);
    findings.extend(inventory.findings);
    errors.extend(inventory.errors);
    // The build files (and Python/Docker files with findings) as the inventory read them: the
    // project-level passes below never read a file again.
    let texts = inventory.texts;
    let named = |name: &'static str| {
        texts
            .iter()
            .filter(move |(rel, _)| rel.rsplit('/').next() == Some(name))
    };
    // One finding per fact: a project's ROCm switch once, one rule per flagged code and line.
    crate::rules::facts::once_per_project(
        &mut findings,
        &[crate::rules::version_check::PROJECT_ROCM_SWITCH.id.code],
    );
    crate::rules::facts::merge_same_line(&mut findings);
    crate::rules::facts::pin_under_index(&mut findings);
    crate::rules::facts::fold_guards(&mut findings, &sources);
    // Deprecated APIs build unless a build file makes warnings errors.
    crate::rules::facts::settle_deprecated(
        &mut findings,
        texts.iter().map(|(rel, b)| (rel.as_str(), b.as_slice())),
    );
    // Sources that a ROCm-aware setup.py builds only in its CUDA arm are not porting work.
    let setups: Vec<(String, Vec<u8>)> = named("setup.py")
        .map(|(rel, b)| (rel.clone(), b.clone()))
        .collect();
    crate::inventory::rocm_branch::pass_cuda_only_sources(&mut findings, &setups);
    // The same for CMake: sources a HIP-aware CMakeLists.txt lists only in arms its HIP build
    // never runs (`if(BUILD_CUDA)`).
    let cmake_only: Vec<(String, String)> = named("CMakeLists.txt")
        .flat_map(|(rel, bytes)| {
            let dir = rel
                .rsplit_once('/')
                .map_or(String::new(), |(d, _)| format!("{d}/"));
            crate::inventory::cmake::cuda_only_sources(bytes)
                .into_iter()
                .map(move |(p, why)| (format!("{dir}{p}"), format!("{rel}: {why}")))
        })
        .collect();
    let mut only: std::collections::HashMap<String, String> = cmake_only
        .into_iter()
        .map(|(p, why)| (p, format!("listed only {why}")))
        .collect();
    // Sources a HIP arm removes from the build (`list(REMOVE_ITEM …)` under `elseif(WITH_HIP)`).
    for (rel, bytes) in named("CMakeLists.txt") {
        let dir = rel
            .rsplit_once('/')
            .map_or(String::new(), |(d, _)| format!("{d}/"));
        for (p, why) in crate::rules::project_build::removed_from_hip_build(rel, bytes) {
            only.entry(format!("{dir}{p}")).or_insert(why);
        }
    }
    // Sources a ROCm-aware setup.py names only in arms its ROCm build skips (`if CUDA_VERSION:`).
    for (p, why) in crate::inventory::rocm_branch::cuda_only_files(&setups) {
        only.entry(p).or_insert(why);
    }
    // CMake arms under the project's twin switches (`if(${FOO_NVIDIA_BACKEND})` where the project
    // also declares `FOO_AMD_BACKEND`), in the file that declares them and every one below it.
    pass_twin_switch_arms(&mut findings, &texts);
    // FindCUDA's flag variables never reach a HIP build that compiles through FindHIP or CMake's
    // HIP language.
    let cmake_texts: Vec<(&str, &[u8])> = texts
        .iter()
        .filter(|(rel, _)| {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            name == "CMakeLists.txt" || name.ends_with(".cmake")
        })
        .map(|(rel, b)| (rel.as_str(), b.as_slice()))
        .collect();
    crate::inventory::cmake::pass_flags_hip_never_reads(&mut findings, &cmake_texts);
    headers_only_included_by(&mut only, &includes);
    // What those arms leave out: extension modules nothing the ROCm build reaches builds.
    let py_files = || -> Vec<(String, Vec<u8>)> {
        all.iter()
            .filter(|i| i.rel.ends_with(".py") && i.size <= s.max_file_size)
            .filter_map(|i| std::fs::read(&i.path).ok().map(|b| (i.rel.clone(), b)))
            .collect()
    };
    let left_out = crate::inventory::rocm_branch::extensions_rocm_leaves_out(&setups, &py_files);
    crate::inventory::packages::settle_submodule_packages(&mut findings);
    for f in findings.iter_mut() {
        if f.status == crate::gate::Status::Pass {
            continue;
        }
        if let Some(why) = only.get(&f.path) {
            f.status = crate::gate::Status::Pass;
            f.message.push_str(&format!(
                " ({why}; the HIP build does not compile this file)"
            ));
        }
    }
    // CUDA names a PyTorch extension's sources keep through PyTorch's hipify, outside the
    // sources its ROCm build leaves out.
    crate::rules::project_build::names_hipify_leaves(
        &mut findings,
        torch_left,
        &declared,
        &|p: &str| only.contains_key(p),
    );
    if !left_out.is_empty() {
        findings.extend(left_out);
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    // A sub-package with its own build and no ROCm arm, under a ROCm-aware main build, is one
    // decision; NVIDIA-only Python imports are one fact per directory.
    let pyprojects: Vec<(String, Vec<u8>)> = named("pyproject.toml")
        .map(|(rel, b)| (rel.clone(), b.clone()))
        .collect();
    let read = |p: &str| texts.get(p).cloned();
    crate::inventory::component::fold_cuda_only_components(
        &mut findings,
        &setups,
        &pyprojects,
        &read,
    );
    crate::inventory::component::fold_nvidia_only_imports(&mut findings, &read);
    // NVIDIA-only CI workflows of a project that already has an AMD CI lane test the CUDA build.
    let workflows: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| crate::inventory::ci_lanes::is_workflow(&i.rel) && i.size <= s.max_file_size)
        .filter_map(|i| std::fs::read(&i.path).ok().map(|b| (i.rel.clone(), b)))
        .collect();
    crate::inventory::ci_lanes::pass_nvidia_lanes(&mut findings, &workflows);
    crate::inventory::ci_lanes::pass_cuda_lanes_beside_a_rocm_lane(&mut findings, &workflows);
    // What the project's build says about itself: the ROCm switches its build files define,
    // and the CUDA halves of file/folder pairs whose ROCm half it keeps.
    let build_files: Vec<(&str, &[u8])> = texts
        .iter()
        .filter(|(rel, _)| crate::inventory::kind::is_build(rel))
        .map(|(rel, b)| (rel.as_str(), b.as_slice()))
        .collect();
    // Configured headers' templates (`KokkosCore_config.h.in`: `#cmakedefine KOKKOS_ENABLE_HIP`)
    // define switches too, where the build sets the variable.
    let templates: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| {
            let name = i.rel.rsplit('/').next().unwrap_or(&i.rel);
            // `config.h.in`, `Config.hpp.cmake.in`.
            name.ends_with(".in")
                && [".h.", ".hpp.", ".hh.", ".cuh.", ".hxx."]
                    .iter()
                    .any(|e| name.contains(e))
                && i.size <= s.max_file_size
        })
        .filter_map(|i| {
            crate::safety::read_regular_bounded(&i.path, s.max_file_size)
                .ok()
                .map(|b| (i.rel.clone(), b))
        })
        .collect();
    let with_templates: Vec<(&str, &[u8])> = build_files
        .iter()
        .copied()
        .chain(templates.iter().map(|(r, b)| (r.as_str(), b.as_slice())))
        .collect();
    crate::rules::project_build::pass_switches_the_build_defines(&mut findings, &with_templates);
    crate::rules::project_build::reopen_port_rewrites(&mut findings);
    let rels: Vec<&str> = all.iter().map(|i| i.rel.as_str()).collect();
    let resolved: std::collections::HashMap<String, Vec<String>> = includes
        .iter()
        .map(|(from, incs)| {
            (
                from.clone(),
                incs.iter().map(|i| resolve_include(from, i)).collect(),
            )
        })
        .collect();
    let pairs = crate::rules::project_build::rocm_counterparts(&rels, &resolved, &build_files);
    crate::rules::project_build::pass_with_counterparts(&mut findings, &pairs);
    let os_texts: Vec<(&str, &[u8])> = build_files
        .iter()
        .copied()
        .chain(workflows.iter().map(|(r, b)| (r.as_str(), b.as_slice())))
        .collect();
    crate::rules::project_build::pass_other_os_files(&mut findings, &rels, &os_texts);
    // Sources only Windows compiles, and the CMake projects that build only them.
    let read = |rel: &str| -> Option<Vec<u8>> {
        if let Some(b) = sources.get(rel).or_else(|| texts.get(rel)) {
            return Some(b.clone());
        }
        let i = all.iter().find(|i| i.rel == rel)?;
        (i.size <= s.max_file_size)
            .then(|| crate::safety::read_regular_bounded(&i.path, s.max_file_size).ok())
            .flatten()
    };
    crate::rules::project_build::pass_windows_only(&mut findings, &rels, &read);
    crate::inventory::dockerfile::pass_windows_containers(&mut findings, &texts);
    // Composite actions are judged by their callers; scripts nothing runs are one decision.
    crate::inventory::ci_lanes::pass_cuda_only_actions(&mut findings, &workflows);
    // Files made for NVIDIA-only platforms (Jetson/L4T setup scripts).
    crate::inventory::scripts::pass_nvidia_platform_files(&mut findings);
    crate::rules::driver_api::loaded::pass_beside_amd_loaders(&mut findings);
    // Files the inventory or the workflow pass read already are not read again; the rest are
    // read once, bounded, and never through a link to a non-regular file.
    crate::inventory::scripts::fold_unrun(&mut findings, &all, &|i: &walk::Input| {
        if let Some(b) = texts.get(&i.rel) {
            return Some(b.clone());
        }
        if let Some((_, b)) = workflows.iter().find(|(rel, _)| *rel == i.rel) {
            return Some(b.clone());
        }
        crate::safety::read_regular_bounded(&i.path, s.max_file_size).ok()
    });
    // One decision, one open finding (rules::decisions, in its fixed order): a folder the
    // project marks as not maintained, the same inventory line in sibling files, a CUTLASS/CuTe
    // component, a vendored library, the project's use of libcu++, a kernel file only
    // sm_90+/sm_100 GPUs run, the project's FP8 encoding; and a Dockerfile's NVIDIA container
    // settings, a copy of another project nested in this one.
    // Copies of other projects nested in this one: their licence files and build roots.
    let nested = crate::decisions::nested::roots(&rels, &|rel: &str| {
        if let Some(b) = texts.get(rel) {
            return Some(b.clone());
        }
        let i = all.iter().find(|i| i.rel == rel)?;
        crate::safety::read_regular_bounded(&i.path, s.max_file_size).ok()
    });
    // Folders of sources no build file compiles (outside vendored and nested copies).
    let unbuilt = crate::decisions::unbuilt::roots(
        &rels,
        &|rel: &str| {
            if let Some(b) = texts.get(rel) {
                return Some(b.clone());
            }
            let i = all.iter().find(|i| i.rel == rel)?;
            crate::safety::read_regular_bounded(&i.path, s.max_file_size).ok()
        },
        &|dir: &str| {
            crate::model::folders::component_of(&format!("{dir}/x/y")).is_some()
                || crate::decisions::nested::root_of(&nested, &format!("{dir}/x")).is_some()
                || nested.iter().any(|n| n == dir)
        },
    );
    // Headers among the compiled sources that no file includes or names.
    let unincluded = crate::decisions::unincluded::headers(
        &findings,
        &rels,
        &includes,
        &|| {
            let mut out: Vec<(String, Vec<u8>)> = texts
                .iter()
                .filter(|(rel, _)| !crate::walk::is_source(rel))
                .map(|(rel, b)| (rel.clone(), b.clone()))
                .collect();
            out.extend(
                all.iter()
                    .filter(|i| {
                        !texts.contains_key(&i.rel)
                            && !crate::walk::is_source(&i.rel)
                            && i.size <= s.max_file_size
                            && matches!(
                                i.rel.rsplit_once('.').map(|(_, e)| e),
                                Some("rs" | "py" | "sh" | "cmake" | "mk" | "bzl" | "txt" | "in")
                            )
                    })
                    .filter_map(|i| {
                        crate::safety::read_regular_bounded(&i.path, s.max_file_size)
                            .ok()
                            .map(|b| (i.rel.clone(), b))
                    }),
            );
            out
        },
        &|rel: &str| {
            crate::model::folders::component_of(rel).is_some()
                || crate::decisions::nested::root_of(&nested, rel).is_some()
        },
    );
    // Code built only with a library that has no ROCm counterpart (a TensorRT backend).
    let bound = crate::decisions::bound::regions(&findings, &includes, &rels);
    crate::decisions::fold_all_with(&mut findings, &nested, &unbuilt, &unincluded, bound);
    let mut report = Report::new(s.target_info(), findings, errors);
    report.summary.files_scanned = files + inventory.files;
    report.summary.translated_names = translated;
    report.summary.parse_errors_files = parse_errors;
    report.summary.suppressed = suppressed;
    report.sources = sources;
    report.ported = keep_port.then_some(ported);
    Ok(report)
}

/// Findings in branches that test a macro the project defines only where HIP never compiles
/// (DeepSpeed's `#ifdef PTX_AVAILABLE`) become PASS, naming the macro; so do 32-bit masks passed
/// only to macros the project's HIP branch defines without their mask (pytorch_scatter).
fn pass_behind_cuda_side_macros(
    findings: &mut [crate::finding::Finding],
    sources: &Sources,
    defines: &[(String, Vec<crate::model::cuda_side::Define>)],
) {
    let macros = crate::model::cuda_side::cuda_side_macros(defines);
    let dropping = crate::model::cuda_side::hip_macros_dropping(defines);
    if macros.is_empty() && dropping.is_empty() {
        return;
    }
    let mut by_path: std::collections::BTreeMap<&str, Vec<&mut crate::finding::Finding>> =
        Default::default();
    for f in findings.iter_mut() {
        if sources.contains_key(&f.path) {
            by_path
                .entry(sources.get_key_value(&f.path).unwrap().0)
                .or_default()
                .push(f);
        }
    }
    for (path, mut fs) in by_path {
        if fs.iter().all(|f| f.status == crate::gate::Status::Pass) {
            continue;
        }
        if !macros.is_empty() {
            crate::model::cuda_side::pass_behind(path, &sources[path], &mut fs, &macros);
        }
        if !dropping.is_empty() {
            crate::model::cuda_side::pass_dropped_masks(&sources[path], &mut fs, &dropping);
        }
    }
}

/// An HP101 header constant and the files that include its header (transitively) and name it.
/// Settled PASS because every use in the header keeps CUDA's meaning
/// ([`crate::rules::warp_size::logical::EVERY_USE`]), it is reopened when such a file uses it
/// where CUDA's meaning is not shown to be kept (that file has no
/// [`crate::rules::warp_size::logical::exchange::INCLUDER_KEEPS`] PASS for it): the header
/// cannot see that use. Left open because the header itself never uses it (its only mention is
/// the definition), it is settled when every file naming it keeps CUDA's meaning there.
fn reopen_logical_constants_named_by_includers(
    findings: &mut [crate::finding::Finding],
    sources: &Sources,
    includes: &[(String, Vec<String>)],
    inputs: &[crate::walk::Input],
    max_bytes: u64,
) {
    use crate::rules::warp_size::logical::exchange::INCLUDER_KEEPS;
    use crate::rules::warp_size::logical::EVERY_USE;
    let candidate = |f: &crate::finding::Finding| {
        f.rule == "HP101"
            && !f.message.contains(INCLUDER_KEEPS)
            && (f.status != crate::gate::Status::Pass || f.message.contains(EVERY_USE))
    };
    if !findings.iter().any(candidate) {
        return;
    }
    // (file, name) of every includer's PASS for a header constant.
    let keeps: std::collections::BTreeSet<(String, String)> = findings
        .iter()
        .filter(|f| f.rule == "HP101" && f.message.contains(INCLUDER_KEEPS))
        .filter_map(|f| {
            let name = f.message.split('`').nth(1)?;
            Some((f.path.clone(), name.to_string()))
        })
        .collect();
    let mut users: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for (rel, incs) in includes {
        for i in incs {
            users.entry(resolve_include(rel, i)).or_default().push(rel);
        }
    }
    let text_of = |rel: &str| -> Option<Vec<u8>> {
        sources.get(rel).cloned().or_else(|| {
            let i = inputs.iter().find(|i| i.rel == rel)?;
            crate::safety::read_regular_bounded(&i.path, max_bytes).ok()
        })
    };
    let count = |t: &[u8], name: &str| {
        t.split(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .filter(|w| *w == name.as_bytes())
            .count()
    };
    for f in findings.iter_mut().filter(|f| candidate(f)) {
        let settled = f.status == crate::gate::Status::Pass;
        let cut = f.message.find(EVERY_USE);
        let name = match cut {
            Some(c) => f.message[c + EVERY_USE.len()..].split('`').next(),
            None => f.message.split('`').nth(1),
        }
        .unwrap_or("")
        .to_string();
        if name.is_empty() {
            continue;
        }
        // Every file that includes the header, transitively.
        let mut seen: std::collections::BTreeSet<String> = Default::default();
        let mut todo = vec![f.path.clone()];
        while let Some(h) = todo.pop() {
            for u in users.get(&h).into_iter().flatten() {
                if seen.insert(u.to_string()) {
                    todo.push(u.to_string());
                }
            }
        }
        let naming: Vec<&String> = seen
            .iter()
            .filter(|u| text_of(u).is_some_and(|t| count(&t, &name) > 0))
            .collect();
        let unkept = naming
            .iter()
            .find(|u| !keeps.contains(&(u.to_string(), name.clone())));
        if settled {
            if let (Some(u), Some(cut)) = (unkept, cut) {
                f.status = crate::gate::Status::Remediation;
                f.message.truncate(cut);
                f.message.push_str(&format!(
                    " (`{u}`, which includes this header, uses it too)"
                ));
                f.suggestion = Some(format!(
                    "review the uses of `{name}` in the files that include this header; define it from `warpSize` or per target where they need the wavefront"
                ));
            }
            continue;
        }
        // Open because the header never uses it: settled when every includer naming it keeps
        // CUDA's meaning there.
        let only_defined = text_of(&f.path).is_some_and(|t| count(&t, &name) == 1);
        if only_defined && unkept.is_none() && !naming.is_empty() {
            let shown: Vec<String> = naming.iter().take(3).map(|u| format!("`{u}`")).collect();
            f.settle(&format!(
                ", but this header only defines `{name}`, and every file that includes it and names it ({}{}) uses it only where 32-lane groups keep CUDA's meaning: the constant is the logical warp's size (nothing to change)",
                shown.join(", "),
                if naming.len() > 3 { ", …" } else { "" }
            ));
        }
    }
}

/// `inc` (a quoted `#include` path) resolved against the folder of `from`, `/`-separated.
fn resolve_include(from: &str, inc: &str) -> String {
    crate::model::includes::join(crate::model::includes::dir_of(from), inc)
}

/// Adds to `only` (sources the HIP build does not compile, with the reason) every scanned file
/// that is included (`#include "…"`, resolved from the includer's folder) only by such files,
/// transitively: bitsandbytes' `gemm_4bit_mma.cuh`, included only by the sm75/sm80 sources its
/// CMake builds under `if(BUILD_CUDA)`. A file included by anything else, or by nothing, stays.
fn headers_only_included_by(
    only: &mut std::collections::HashMap<String, String>,
    includes: &[(String, Vec<String>)],
) {
    if only.is_empty() {
        return;
    }
    let mut users: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for (rel, incs) in includes {
        for i in incs {
            let h = resolve_include(rel, i);
            users.entry(h).or_default().push(rel);
        }
    }
    loop {
        let mut added = Vec::new();
        for (h, by) in &users {
            if only.contains_key(h) {
                continue;
            }
            if by.iter().all(|u| only.contains_key(*u)) {
                added.push((
                    h.clone(),
                    format!(
                        "included only by sources the HIP build does not compile (`{}`)",
                        by[0]
                    ),
                ));
            }
        }
        if added.is_empty() {
            return;
        }
        only.extend(added);
    }
}

/// The folder of a project-relative path, with a trailing `/` (empty at the root).
fn folder_of(rel: &str) -> &str {
    rel.rsplit_once('/')
        .map_or("", |(d, _)| &rel[..d.len() + 1])
}

/// Open findings of CMake files in arms the project's HIP build never runs by its twin switches:
/// a switch with NVIDIA/CUDA/NV in its name whose twin with AMD/HIP/ROCM is also declared
/// selects the CUDA build. Switches declared in a CMake file count in every CMake file of its
/// folder and below (a subdirectory's `if(${FOO_NVIDIA_BACKEND})` under the parent's options).
fn pass_twin_switch_arms(
    findings: &mut [crate::finding::Finding],
    texts: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    let is_cmake = |rel: &str| rel.ends_with("CMakeLists.txt") || rel.ends_with(".cmake");
    let declared: Vec<(&str, String, String)> = texts
        .iter()
        .filter(|(rel, _)| is_cmake(rel))
        .flat_map(|(rel, bytes)| {
            crate::inventory::cmake::declared_switches(bytes)
                .into_iter()
                .map(move |(n, line)| (folder_of(rel), n, format!("{rel}:{line}")))
        })
        .collect();
    // Backend selectors the project tests against a HIP value in any CMake file; read only
    // where a CMake file has an open finding for them to decide, and only from files that
    // compare a value at all (each read is a parse).
    let open_cmake = texts.keys().any(|rel| {
        is_cmake(rel)
            && findings
                .iter()
                .any(|f| f.path == *rel && f.status != crate::gate::Status::Pass)
    });
    let compares = |b: &[u8]| {
        memchr::memmem::find(b, b"STREQUAL").is_some()
            || memchr::memmem::find(b, b"MATCHES").is_some()
    };
    let selectors: Vec<(String, String)> = texts
        .iter()
        .filter(|(rel, bytes)| open_cmake && is_cmake(rel) && compares(bytes))
        .flat_map(|(rel, bytes)| crate::inventory::cmake::hip_selectors(bytes, rel))
        .fold(Vec::new(), |mut acc: Vec<(String, String)>, (v, at)| {
            if !acc.iter().any(|(w, _)| *w == v) {
                acc.push((v, at));
            }
            acc
        });
    if declared.is_empty() && selectors.is_empty() {
        return;
    }
    for (rel, bytes) in texts.iter().filter(|(rel, _)| is_cmake(rel)) {
        if !findings
            .iter()
            .any(|f| f.path == *rel && f.status != crate::gate::Status::Pass)
        {
            continue;
        }
        let dir = folder_of(rel);
        let scope: Vec<(String, String)> = declared
            .iter()
            .filter(|(d, _, _)| dir.starts_with(d))
            .map(|(_, n, at)| (n.clone(), at.clone()))
            .collect();
        let twins = crate::inventory::cmake::twin_switches(&scope);
        let dead = crate::inventory::cmake::dead_arms_with_twins(bytes, &twins, &selectors);
        for f in findings.iter_mut() {
            if f.path != *rel || f.status == crate::gate::Status::Pass {
                continue;
            }
            if let Some((_, why)) = dead.iter().find(|(r, _)| r.contains(&f.byte_range.0)) {
                f.status = crate::gate::Status::Pass;
                f.message.push_str(&format!(" ({why})"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subdirectory's CMake file under its parent's twin switches: `if(${FOO_NVIDIA_BACKEND})`
    /// is the CUDA build's arm when a folder above declares `FOO_AMD_BACKEND`; a sibling
    /// folder's declaration does not reach it.
    #[test]
    fn parent_twin_switches_decide_subdirectory_arms() {
        use crate::inventory::{kind::FileKind, scan_bytes};
        let top: &[u8] = b"option(FOO_AMD_BACKEND \"AMD\" OFF)\noption(FOO_NVIDIA_BACKEND \"NV\" ON)\nadd_subdirectory(sub)\n";
        let sub: &[u8] = b"add_executable(t t.cu)\nif(${FOO_NVIDIA_BACKEND})\n  set_target_properties(t PROPERTIES CUDA_ARCHITECTURES 80)\nendif()\n";
        let run = |decl_at: &str| {
            let mut findings = scan_bytes("sub/CMakeLists.txt", FileKind::CMake, sub);
            assert!(!findings.is_empty());
            let texts: std::collections::BTreeMap<String, Vec<u8>> = [
                (decl_at.to_string(), top.to_vec()),
                ("sub/CMakeLists.txt".to_string(), sub.to_vec()),
            ]
            .into_iter()
            .collect();
            pass_twin_switch_arms(&mut findings, &texts);
            findings
        };
        let f = run("CMakeLists.txt");
        assert!(f.iter().all(|f| f.status == crate::gate::Status::Pass));
        assert!(
            f[0].message
                .contains("`FOO_AMD_BACKEND` (CMakeLists.txt:1)"),
            "{}",
            f[0].message
        );
        let f = run("other/CMakeLists.txt");
        assert!(f.iter().any(|f| f.status != crate::gate::Status::Pass));
    }

    /// WarpX: `cmake/dependencies/AMReX.cmake` calls `enable_language(CUDA)` under
    /// `if(WarpX_COMPUTE STREQUAL CUDA)`, and the top file selects the HIP build with
    /// `elseif(WarpX_COMPUTE STREQUAL HIP)`: PASS naming that test. Twin: without the top
    /// file's HIP test the arm stays open.
    #[test]
    fn a_backend_selector_tested_against_hip_elsewhere_decides_a_cmake_module() {
        use crate::inventory::{kind::FileKind, scan_bytes};
        let top: &[u8] = b"set(WarpX_COMPUTE OMP CACHE STRING \"backend\")\nif(WarpX_COMPUTE STREQUAL CUDA)\n  set(X 1)\nelseif(WarpX_COMPUTE STREQUAL HIP)\n  set(X 2)\nendif()\n";
        let module: &[u8] = b"if(WarpX_COMPUTE STREQUAL CUDA)\n  enable_language(CUDA)\nendif()\n";
        let run = |top: &[u8]| {
            let mut findings =
                scan_bytes("cmake/dependencies/AMReX.cmake", FileKind::CMake, module);
            assert!(!findings.is_empty());
            let texts: std::collections::BTreeMap<String, Vec<u8>> = [
                ("CMakeLists.txt".to_string(), top.to_vec()),
                (
                    "cmake/dependencies/AMReX.cmake".to_string(),
                    module.to_vec(),
                ),
            ]
            .into_iter()
            .collect();
            pass_twin_switch_arms(&mut findings, &texts);
            findings
        };
        let f = run(top);
        assert!(
            f.iter().all(|f| f.status == crate::gate::Status::Pass),
            "{f:?}"
        );
        assert!(
            f[0].message
                .contains("`elseif(WarpX_COMPUTE STREQUAL HIP)` (CMakeLists.txt:4)"),
            "{}",
            f[0].message
        );
        let cuda_only = b"if(WarpX_COMPUTE STREQUAL CUDA)\n  set(X 1)\nendif()\n";
        let f = run(cuda_only);
        assert!(f.iter().any(|f| f.status != crate::gate::Status::Pass));
    }

    #[test]
    fn a_header_constant_settled_by_logical_warps_reopens_when_an_includer_names_it() {
        use crate::rules::warp_size::logical::EVERY_USE;
        let finding = |path: &str| {
            let mut f = crate::finding::Finding::bare("HP101", path, 29);
            f.status = crate::gate::Status::Pass;
            f.message = format!(
                "`kWarpSize` fixes the warp size at 32{EVERY_USE}kWarpSize` in this file is …"
            );
            f
        };
        let includes = vec![
            ("k/a.cuh".to_string(), vec!["math.cuh".to_string()]),
            ("k/a.cu".to_string(), vec!["a.cuh".to_string()]),
        ];
        let run = |a_cu: &str| {
            let mut f = vec![finding("k/math.cuh")];
            let sources: Sources = [
                ("k/a.cuh".to_string(), b"#include \"math.cuh\"\n".to_vec()),
                ("k/a.cu".to_string(), a_cu.as_bytes().to_vec()),
            ]
            .into_iter()
            .collect();
            reopen_logical_constants_named_by_includers(&mut f, &sources, &includes, &[], 1 << 20);
            f.remove(0)
        };
        // No includer names it: the PASS stands.
        let f = run("__global__ void k() {}\n");
        assert_eq!(f.status, crate::gate::Status::Pass);
        // A transitive includer uses it: the header cannot see that use, so it reopens.
        let f = run("__global__ void k(float* p) { p[threadIdx.x % kWarpSize] = 0; }\n");
        assert_eq!(f.status, crate::gate::Status::Remediation);
        assert!(f.message.contains("`k/a.cu`, which includes this header"));
        assert!(f.suggestion.is_some());
    }

    #[test]
    fn headers_of_cuda_only_sources_only() {
        let inc =
            |rel: &str, i: &[&str]| (rel.to_string(), i.iter().map(|s| s.to_string()).collect());
        let includes = vec![
            inc("csrc/sm80.cu", &["gemm_mma.cuh", "common.cuh"]),
            inc("csrc/sm75.cu", &["./gemm_mma.cuh"]),
            inc("csrc/gemm_mma.cuh", &["../include/mma_detail.h"]),
            inc("csrc/simt.cu", &["common.cuh"]),
        ];
        let mut only: std::collections::HashMap<String, String> = [
            ("csrc/sm80.cu".to_string(), "x".to_string()),
            ("csrc/sm75.cu".to_string(), "x".to_string()),
        ]
        .into_iter()
        .collect();
        headers_only_included_by(&mut only, &includes);
        let mut got: Vec<&str> = only.keys().map(|k| k.as_str()).collect();
        got.sort();
        // common.cuh is also included by simt.cu, which the HIP build compiles.
        assert_eq!(
            got,
            [
                "csrc/gemm_mma.cuh",
                "csrc/sm75.cu",
                "csrc/sm80.cu",
                "include/mma_detail.h"
            ]
        );
        assert_eq!(resolve_include("a/b/c.cu", "../d/e.h"), "a/d/e.h");
        assert_eq!(resolve_include("c.cu", "e.h"), "e.h");
    }
}
