//! `scan` as a library call: walk, run the per-file pipeline with hazard rules, gather one
//! sorted [`Report`]. Changes nothing on disk.

use crate::mappings;
use crate::pipeline::{self, Work};
use crate::report::{FileError, Report, Sources};
use crate::settings::Settings;
use crate::translate::{LaunchSyntax, Options};
use crate::walk;

mod passes;
use passes::*;

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
    // What the project's HIP build files define for every unit, and what only its CUDA build's
    // CMake arms define (only those files are read here, bounded; the inventory takes these
    // bytes rather than reading them again).
    let is_cmake = |rel: &str| {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        name == "CMakeLists.txt" || name.ends_with(".cmake")
    };
    let hip_build_texts: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| {
            crate::inventory::kind::is_build(&i.rel)
                && (crate::model::project::is_hip_build_file(&i.rel) || is_cmake(&i.rel))
                && i.size <= s.max_file_size
        })
        .filter_map(|i| read_named(i, s.max_file_size))
        .collect();
    let hip_build = crate::model::project::hip_build_defines(
        &hip_build_texts
            .iter()
            .map(|(r, b)| (r.as_str(), b.as_slice()))
            .collect::<Vec<_>>(),
    );
    // The CUDA backend's selectors: variables a CMake chain of the project's own files tests as
    // alternatives to their HIP twins; with the declared twins, what decides the files' arms.
    let own_cmake: Vec<(&str, &[u8])> = hip_build_texts
        .iter()
        .filter(|(r, _)| is_cmake(r) && crate::decisions::kind::own(r))
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .collect();
    let chains = crate::inventory::cmake::chain_alternatives(&own_cmake);
    let twins = crate::inventory::cmake::project_twins(&own_cmake, &chains);
    let all_cmake: Vec<(&str, &[u8])> = hip_build_texts
        .iter()
        .filter(|(r, _)| is_cmake(r))
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .collect();
    let rels: Vec<&str> = all.iter().map(|i| i.rel.as_str()).collect();
    // One include resolver for every pass: next to the includer, then under the project's
    // include roots (`include/`, `inc/`, `src/`, nearest first), then the one project file that
    // ends with the path; else the path next to the includer.
    let known: std::collections::BTreeSet<&str> = rels.iter().copied().collect();
    let lookup = crate::model::includes::Lookup::new(known.iter().copied());
    let resolve = |from: &str, inc: &str| {
        lookup
            .resolve(from, inc, &|p: &str| known.contains(p))
            .unwrap_or_else(|| resolve_include(from, inc))
    };
    // CMake modules only the CUDA build includes: their macros and include folders are its own.
    let cuda_modules = crate::inventory::cmake::cuda_only_modules(&all_cmake, &rels, &twins);
    let cuda_include_dirs =
        crate::inventory::cmake::cuda_only_include_dirs(&all_cmake, &cuda_modules);
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
        .filter_map(|i| read_named(i, s.max_file_size))
        .collect();
    let mut cuda_build_only =
        crate::inventory::cmake::cuda_build_only_macros_with(&all_cmake, &cuda_modules);
    crate::model::project::drop_passed(&mut cuda_build_only, &hip_build_texts);
    let cuda_selectors: std::collections::BTreeMap<String, String> = chains
        .iter()
        .cloned()
        .map(|t| {
                let why = format!(
                    "`{}` selects the project's CUDA backend, and its ROCm build selects `{}` instead (`{}`)",
                    t.cuda, t.rocm, t.at
                );
                (t.cuda, why)
            })
            .collect();
    let mut cuda_selectors = cuda_selectors;
    // What the configured headers write from CMake variables that follow the CUDA switch
    // (`#cmakedefine01 MGB_CUPTI` from a dependent option of `MGE_WITH_CUDA`).
    let template_texts: Vec<(&str, &[u8])> = templates
        .iter()
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .collect();
    let configured = crate::inventory::cmake::configured_off(&all_cmake, &template_texts, &twins);
    for (name, why) in configured.undefined {
        cuda_build_only.entry(name).or_insert(why);
    }
    // Other kernel languages' switches (HLSL's `ASPM_HLSL`).
    use crate::model::project::other_languages as langs;
    let shaders = all.iter().filter(|i| langs::language(&i.rel).is_some());
    let shaders: Vec<_> = shaders
        .filter_map(|i| read_named(i, s.max_file_size))
        .collect();
    langs::add_switches(&mut cuda_build_only, &hip_build, &shaders);
    for (name, why) in configured.zero {
        cuda_selectors.entry(name).or_insert(why);
    }
    let outcomes = pipeline::run_with(
        &inputs,
        &work,
        m,
        &hip_build,
        &cuda_build_only,
        &cuda_selectors,
    );
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
    let mut dead_includes: Vec<(String, Vec<String>)> = Vec::new();
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
                if !r.dead_includes.is_empty() {
                    dead_includes.push((o.input.rel.clone(), r.dead_includes));
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
    pass_headers_the_project_carries(&mut findings, &rels);
    reopen_logical_constants_named_by_includers(
        &mut findings,
        &sources,
        &includes,
        &inputs,
        s.max_file_size,
        &resolve,
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
    // Assembly in C/C++ files no CUDA file includes is the host's: every source is read for
    // its includes.
    if findings.iter().any(|f| {
        f.rule == crate::rules::inline_asm::INLINE_PTX.id.code
            && f.status != crate::gate::Status::Pass
            && !f.path.ends_with(".cu")
            && !f.path.ends_with(".cuh")
    }) {
        crate::rules::inline_asm::settle_host_files(&mut findings, &every_source());
    }
    // Compiled-out arms that only declare constants: every source is searched for a use.
    if findings.iter().any(|f| {
        f.rule == crate::rules::compiled_out::COMPILED_OUT_UNDER_HIP.id.code
            && f.status != crate::gate::Status::Pass
    }) {
        crate::rules::compiled_out_unused::settle_unused_declarations(
            &mut findings,
            &sources,
            every_source,
        );
        crate::rules::compiled_out_unused::mark_build_breaks(&mut findings, every_source);
    }
    // PTX in device helpers nothing calls: every source is searched for a use.
    if findings.iter().any(|f| {
        f.rule == crate::rules::inline_asm::INLINE_PTX.id.code
            && f.status != crate::gate::Status::Pass
            && f.message.contains(" (in `")
    }) {
        crate::rules::inline_asm::settle_uncalled(&mut findings, &every_source());
    }
    // Cooperative launches whose grid the project sizes from the occupancy API at run time.
    if findings.iter().any(|f| {
        f.rule == crate::rules::device_feature::COOPERATIVE_LAUNCH.id.code
            && f.status != crate::gate::Status::Pass
    }) {
        crate::rules::device_feature::cooperative::settle_sized_grids(
            &mut findings,
            &every_source(),
            &includes,
            &resolve,
        );
    }
    // Monitoring tools C/C++ sources run (`system("nvidia-smi -L")`), in the sources held.
    for (rel, bytes) in sources.iter() {
        if crate::walk::is_source(rel) {
            findings.extend(crate::inventory::monitoring::commands_in_source(rel, bytes));
        }
    }
    // Launches and the kernels they run, in different files, each read from its own lex.
    let rows: Vec<(&str, &crate::rules::warp_size::launch_rows::FileRows)> =
        rows.iter().map(|(p, r)| (p.as_str(), r)).collect();
    crate::rules::warp_size::row_passes::run(&mut findings, &rows);
    let inventory = crate::inventory::scan_inputs_with(
        &all,
        s.max_file_size,
        s.target.rocm,
        &hip_build_texts.into_iter().collect(),
    );
    findings.extend(inventory.findings);
    errors.extend(inventory.errors);
    // The build files (and Python/Docker files with findings) as the inventory read them: the
    // project-level passes below never read a file again.
    let texts = inventory.texts;
    findings.extend(hip_build_targets(&all, &texts, s));
    // A file by its path: as the inventory kept it, else read once, bounded.
    let read_rel = |rel: &str| -> Option<Vec<u8>> {
        if let Some(b) = texts.get(rel) {
            return Some(b.clone());
        }
        let i = all.iter().find(|i| i.rel == rel)?;
        crate::safety::read_regular_bounded(&i.path, s.max_file_size).ok()
    };
    // Packages the project installs from git submodules this checkout lacks (HP823).
    if let Some(gm) = read_rel(".gitmodules") {
        let rels: Vec<&str> = all.iter().map(|i| i.rel.as_str()).collect();
        findings.extend(crate::inventory::submodules::findings(
            &gm, &rels, &read_rel,
        ));
    }
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
    // The project's backend twins (`ENABLE_CUDA`/`ENABLE_HIP`, computed before the files' pass)
    // decide files that test one alone.
    let cmake_only: Vec<(String, String)> = named("CMakeLists.txt")
        .flat_map(|(rel, bytes)| {
            let dir = rel
                .rsplit_once('/')
                .map_or(String::new(), |(d, _)| format!("{d}/"));
            crate::inventory::cmake::cuda_only_sources(bytes, &twins)
                .into_iter()
                .map(move |(p, why)| (format!("{dir}{p}"), format!("{rel}: {why}")))
        })
        .collect();
    // The same for Automake: what a project with a ROCm-named conditional builds only under a
    // CUDA-named one (`if HAVE_CUDA` in `Makefile.am`).
    let automake: Vec<(&str, &[u8])> = named("Makefile.am")
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .collect();
    let cmake_only: Vec<(String, String)> =
        if crate::inventory::automake::has_rocm_conditional(&automake) {
            let am = automake.iter().flat_map(|(rel, b)| {
                crate::inventory::automake::cuda_only(rel, b)
                    .into_iter()
                    .map(move |(p, why)| {
                        (
                            p,
                            format!("in {why}, which the project's ROCm build never takes"),
                        )
                    })
            });
            cmake_only.into_iter().chain(am).collect()
        } else {
            cmake_only
        };
    let mut only: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    // Headers in folders only the CUDA build's modules put on the include path.
    for (dir, why) in &cuda_include_dirs {
        for r in all.iter().filter(|i| i.rel.starts_with(dir.as_str())) {
            only.entry(r.rel.clone())
                .or_insert_with(|| format!("in `{dir}`, {why}"));
        }
    }
    for (p, why) in cmake_only {
        match p.strip_suffix('/') {
            // A folder only a dead arm adds: every file under it.
            Some(dir) => {
                let prefix = format!("{dir}/");
                for r in all.iter().filter(|i| i.rel.starts_with(&prefix)) {
                    only.entry(r.rel.clone())
                        .or_insert_with(|| format!("in `{prefix}`, added only {why}"));
                }
            }
            // A CMake module only a dead arm includes, by its name (`include(gmxManageCuda)`
            // finds `cmake/gmxManageCuda.cmake` through the module path): the one file of that
            // name, when there is one.
            None if p.ends_with(".cmake") => {
                let name = p.rsplit('/').next().unwrap_or(&p);
                let found: Vec<&str> = all
                    .iter()
                    .map(|i| i.rel.as_str())
                    .filter(|r| r.rsplit('/').next() == Some(name))
                    .collect();
                if let [one] = found.as_slice() {
                    only.entry(one.to_string())
                        .or_insert_with(|| format!("included only {why}"));
                }
            }
            // A glob only a dead arm writes (`file(GLOB_RECURSE S standalone/*.cu)`): every
            // file it matches.
            None if p.contains(['*', '?']) => {
                let Some(g) = crate::inventory::cmake::cmake_glob(&p) else {
                    continue;
                };
                for r in all.iter().filter(|i| g.is_match(&i.rel)) {
                    only.entry(r.rel.clone())
                        .or_insert_with(|| format!("matched only by `{p}` {why}"));
                }
            }
            None => {
                only.entry(p)
                    .or_insert_with(|| format!("listed only {why}"));
            }
        }
    }
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
    pass_twin_switch_arms(&mut findings, &texts, &twins);
    pass_built_gpu_binaries(&mut findings, all.iter().map(|i| i.rel.as_str()));
    // Configuration named for an NVIDIA machine or lane beside ROCm-named siblings.
    let paths: Vec<&str> = all.iter().map(|i| i.rel.as_str()).collect();
    crate::inventory::platform_siblings::pass_nvidia_configs_beside_rocm_ones(
        &mut findings,
        &paths,
    );
    // NVIDIA images in a catalogue of per-lane images that holds a ROCm one.
    let dockerfiles: Vec<(&str, &[u8])> = texts
        .iter()
        .filter(|(rel, _)| {
            crate::inventory::kind::by_name(rel)
                == Some(crate::inventory::kind::FileKind::Dockerfile)
        })
        .map(|(rel, b)| (rel.as_str(), b.as_slice()))
        .collect();
    crate::inventory::rocm_images::pass_nvidia_images_beside_a_rocm_image(
        &mut findings,
        &dockerfiles,
    );
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
    headers_only_included_by(&mut only, &includes, &dead_includes, &resolve);
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
    crate::inventory::packages::settle_own_package_imports(
        &mut findings,
        &all.iter().map(|i| i.rel.as_str()).collect::<Vec<_>>(),
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
    // Autoconf's inputs define switches too (`AC_DEFINE`, `AC_CHECK_FUNCS`), read only when a
    // switch finding is open.
    let autoconf: Vec<(String, Vec<u8>)> = if findings.iter().any(|f| {
        f.rule == crate::rules::version_check::PROJECT_ROCM_SWITCH.id.code
            && f.status != crate::gate::Status::Pass
    }) {
        all.iter()
            .filter(|i| crate::rules::project_build::switches::is_autoconf(&i.rel))
            .filter_map(|i| read_named(i, s.max_file_size))
            .collect()
    } else {
        Vec::new()
    };
    let with_templates: Vec<(&str, &[u8])> = build_files
        .iter()
        .copied()
        .chain(templates.iter().map(|(r, b)| (r.as_str(), b.as_slice())))
        .chain(autoconf.iter().map(|(r, b)| (r.as_str(), b.as_slice())))
        .collect();
    crate::rules::project_build::pass_switches_the_build_defines(&mut findings, &with_templates);
    crate::rules::project_build::reopen_port_rewrites(&mut findings);
    let rels: Vec<&str> = all.iter().map(|i| i.rel.as_str()).collect();
    let resolved: std::collections::HashMap<String, Vec<String>> = includes
        .iter()
        .map(|(from, incs)| {
            (
                from.clone(),
                incs.iter().map(|i| resolve(from, i)).collect(),
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
    crate::rules::project_build::settle_windows_builds(&mut findings, &rels, &read);
    crate::inventory::dockerfile::pass_windows_containers(&mut findings, &texts);
    // Composite actions are judged by their callers; scripts nothing runs are one decision.
    crate::inventory::ci_lanes::pass_cuda_only_actions(&mut findings, &workflows);
    // Files made for NVIDIA-only platforms (Jetson/L4T setup scripts).
    let packages: std::collections::BTreeSet<String> = rels
        .iter()
        .filter_map(|r| r.strip_suffix("/__init__.py"))
        .map(str::to_string)
        .collect();
    crate::inventory::scripts::pass_nvidia_platform_files(&mut findings, &packages);
    crate::inventory::scripts::pass_other_platform_files(&mut findings, &rels);
    crate::rules::driver_api::loaded::settle_loaders(&mut findings, &read);
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
    let nested = crate::decisions::nested::roots(&rels, &read_rel);
    // Folders of sources no build file compiles (outside vendored and nested copies).
    let unbuilt = crate::decisions::unbuilt::roots(&rels, &read_rel, &|dir: &str| {
        crate::model::folders::component_of(&format!("{dir}/x/y")).is_some()
            || crate::decisions::nested::root_of(&nested, &format!("{dir}/x")).is_some()
            || nested.iter().any(|n| n == dir)
    });
    // A unit another file includes (`#include "kernel_zero.cu"`) is compiled with it, and so is
    // a folder whose units a header includes (GpuBTree's `GpuBTree.h` includes
    // `map/kernels/map_warps.cu` and `map/host.cu`).
    let last = |p: &str| -> String { p.rsplit('/').next().unwrap_or(p).to_string() };
    let unbuilt: Vec<String> = unbuilt
        .into_iter()
        .filter(|r| {
            let name = last(r);
            let prefix = format!("{r}/");
            // The names of the units the root holds, and whether a file outside it includes one.
            let units: std::collections::BTreeSet<String> = if name.contains('.') {
                [name].into_iter().collect()
            } else {
                rels.iter()
                    .filter(|f| {
                        f.starts_with(&prefix)
                            && f.rsplit_once('.').is_some_and(|(_, e)| {
                                matches!(
                                    e.to_ascii_lowercase().as_str(),
                                    "cu" | "cpp" | "cc" | "cxx" | "c"
                                )
                            })
                    })
                    .map(|f| last(f))
                    .collect()
            };
            !includes
                .iter()
                .chain(dead_includes.iter())
                .filter(|(from, _)| from != r && !from.starts_with(&prefix))
                .any(|(_, incs)| incs.iter().any(|i| units.contains(&last(i))))
        })
        .collect();
    // The tree's other files (build files, scripts, Python, Rust), read once when a decision
    // asks.
    let others_once: std::cell::OnceCell<Vec<(String, Vec<u8>)>> = std::cell::OnceCell::new();
    let others = || {
        others_once.get_or_init(|| {
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
        })
    };
    let other_decision = |rel: &str| {
        crate::model::folders::component_of(rel).is_some()
            || crate::decisions::nested::root_of(&nested, rel).is_some()
    };
    // Headers among the compiled sources that no file includes or names.
    let unincluded = crate::decisions::unincluded::headers(
        &findings,
        &rels,
        &includes,
        &|| others().as_slice(),
        &other_decision,
    );
    // Headers no compiled unit reaches through the include graph join them.
    let mut unincluded = unincluded;
    for h in crate::decisions::unincluded::unreached(
        &findings,
        &rels,
        &includes
            .iter()
            .chain(dead_includes.iter())
            .collect::<Vec<_>>(),
        &|| others().as_slice(),
        &other_decision,
    ) {
        if !unincluded.contains(&h) {
            unincluded.push(h);
        }
    }
    // The tree's Python files among the other files, for the decisions that read them.
    let python_texts = || -> Vec<(&str, &[u8])> {
        others()
            .iter()
            .filter(|(r, _)| r.ends_with(".py"))
            .map(|(r, b)| (r.as_str(), b.as_slice()))
            .collect()
    };
    // PTX in Triton functions nothing in the project's Python calls.
    if findings.iter().any(|f| {
        f.rule == crate::inventory::ptx::EMBEDDED_PTX.id.code
            && f.status != crate::gate::Status::Pass
            && f.path.ends_with(".py")
    }) {
        crate::inventory::python::triton_asm::settle_uncalled(&mut findings, &python_texts());
    }
    // Sources a script of the project writes.
    let generated = crate::decisions::generated::files(
        &findings,
        &rels,
        &|| others().as_slice(),
        &other_decision,
    );
    // Code built only with a library that has no ROCm counterpart (a TensorRT backend).
    let bound = crate::decisions::bound::regions(&findings, &includes, &rels);
    // Headers only units on CUTLASS compile go with the CUTLASS component's rewrite.
    let cutlass_helpers = crate::rules::cutlass_component::helpers(&findings, &includes, &resolve);
    // CUDA sources, with or without findings: a folder with them has GPU code of its own.
    let cuda_sources: Vec<String> = rels
        .iter()
        .filter(|r| crate::translate::Lang::of(r) == crate::translate::Lang::Cuda)
        .map(|r| r.to_string())
        .collect();
    // nvcc flags of Python builds in a tree with nothing for nvcc to compile.
    if crate::inventory::native_ext::may_settle(&findings, &cuda_sources, &rels) {
        crate::inventory::native_ext::settle_without_cuda_sources(
            &mut findings,
            &cuda_sources,
            &python_texts(),
        );
    }
    // Copies of NVIDIA's own toolkit headers (a generator's input, a loader's declarations).
    let toolkit_copies = crate::decisions::toolkit_copies::files(
        &findings,
        &|name: &str| m.is_toolkit_header(name),
        &read_rel,
    );
    // Files that define many functions under CUDA API names (interposers, shims).
    let interposers = crate::decisions::interposers::files(&findings, &read_rel);
    // The header `port` writes for an include path, where it writes another one.
    let port = |i: &str| {
        let hip = m.include(i, &s.target).and_then(Result::ok);
        hip.filter(|h| *h != i).map(str::to_string)
    };
    let replaced = crate::decisions::replaced_copies::copies(&findings, &rels, &includes, &port);
    let cmake_probes = crate::decisions::cuda_build::tree_facts(&findings, &rels, &build_files);
    crate::decisions::fold_all_with(
        &mut findings,
        crate::decisions::Tree {
            nested_roots: &nested,
            unbuilt_roots: &unbuilt,
            unincluded: &unincluded,
            toolkit_copies,
            replaced,
            interposers,
            generated,
            bound,
            cutlass_helpers,
            cuda_sources: &cuda_sources,
            cmake_probes,
        },
    );
    let mut report = Report::new(s.target_info(), findings, errors);
    report.summary.files_scanned = files + inventory.files;
    report.summary.translated_names = translated;
    report.summary.parse_errors_files = parse_errors;
    report.summary.suppressed = suppressed;
    report.sources = sources;
    report.ported = keep_port.then_some(ported);
    Ok(report)
}

/// HP847: the GPU targets of the project's own HIP build ([`crate::inventory::hip_targets`]).
/// The build files come from the inventory; the Makefile fragments (`*.am`), scripts, CI files,
/// presets and documentation that may name the targets are read only when there is a HIP build.
fn hip_build_targets(
    all: &[crate::walk::Input],
    texts: &std::collections::BTreeMap<String, Vec<u8>>,
    s: &Settings,
) -> Option<crate::finding::Finding> {
    let own = |rel: &str| crate::decisions::kind::own(rel);
    let read = |i: &crate::walk::Input| read_named(i, s.max_file_size);
    let fragments: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| own(&i.rel) && i.rel.ends_with(".am") && !texts.contains_key(&i.rel))
        .filter_map(read)
        .collect();
    let mut files: Vec<(&str, &[u8])> = texts
        .iter()
        .filter(|(rel, _)| own(rel))
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .chain(fragments.iter().map(|(r, b)| (r.as_str(), b.as_slice())))
        .collect();
    crate::inventory::hip_targets::hip_build_start(&files)?;
    let extra: Vec<(String, Vec<u8>)> = all
        .iter()
        .filter(|i| {
            let name = i
                .rel
                .rsplit('/')
                .next()
                .unwrap_or(&i.rel)
                .to_ascii_lowercase();
            own(&i.rel)
                && !texts.contains_key(&i.rel)
                && (name.starts_with("readme")
                    || name.starts_with("dockerfile")
                    || name == "package.py"
                    || [
                        ".md", ".rst", ".sh", ".yml", ".yaml", ".json", ".txt", ".bash", ".ini",
                        ".toml",
                    ]
                    .iter()
                    .any(|e| name.ends_with(e)))
        })
        .filter_map(read)
        .collect();
    files.extend(extra.iter().map(|(r, b)| (r.as_str(), b.as_slice())));
    crate::inventory::hip_targets::hip_targets(&files, &s.offload_arch)
}

/// A file's path relative to the root and its bytes, read bounded (`None` when it cannot be
/// read: the walk reports unreadable files once).
fn read_named(i: &crate::walk::Input, max: u64) -> Option<(String, Vec<u8>)> {
    crate::safety::read_regular_bounded(&i.path, max)
        .ok()
        .map(|b| (i.rel.clone(), b))
}
