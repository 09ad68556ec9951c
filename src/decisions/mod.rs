//! One decision, one open finding (issue 20). Where a person takes ONE decision, the report
//! shows one open finding for it, with counts and first places, and the per-line findings stay
//! in JSON/SARIF as PASS naming the finding that holds them (fingerprints unchanged: only
//! statuses and messages change). The kinds, in the order [`fold_all`] applies them:
//!
//! - a folder the project marks as not maintained (`legacy/`, `deprecated/`, `attic/`…): port
//!   it or leave it out of the ROCm build ([`unmaintained`]);
//! - files written for NVIDIA's embedded boards (Jetson, JetPack, Tegra): keep them for those
//!   boards, they are not ported ([`nvidia_boards`]);
//! - a folder of sources no build file compiles (benchmarks nothing names): build and port it,
//!   or leave it out ([`unbuilt`]);
//! - headers among the compiled sources that no file includes: port them with their next
//!   includer, or remove them ([`unincluded`]);
//! - a Dockerfile's NVIDIA container settings: they go with its base image ([`container`]);
//! - the same inventory line in sibling scripts: give them a ROCm environment
//!   (`inventory::siblings`);
//! - a CUTLASS/CuTe component: rewrite it for ROCm (`rules::cutlass_component`);
//! - a copy of another project nested in this one (its own licence and build): port it
//!   upstream or use its ROCm build ([`nested`]);
//! - a vendored library: use its ROCm build or port, or drop it (`rules::vendored`);
//! - one named full mask, one helper returning a mask, one narrow mask variable, one ballot
//!   macro whose uses keep the wavefront's ballot in 32 bits: change it once ([`masks`]);
//! - the project's use of libcu++: move it to libhipcxx or the standard library
//!   (`rules::libcu`);
//! - a kernel file written for sm_90+/sm_100 only: write a ROCm kernel or drop it
//!   ([`arch_only`]);
//! - one file's kernels whose NVIDIA-generation arms HIP compiles to nothing: write AMD paths
//!   for them together, or leave the file out ([`arch_gaps`]);
//! - the project's generation tests that give HIP a fallback only pre-sm_75 NVIDIA GPUs run:
//!   make HIP compile the current arms, or check each fallback ([`legacy_fallbacks`]);
//! - one PTX instruction family in one file (a file of `cp.async` wrappers): rewrite it once
//!   ([`ptx_family`]); the kernels whose 32-lane logical warps meet only one PTX shuffle helper:
//!   write that shuffle with width 32 ([`ptx_lanes`]);
//! - a library's use in a folder (or, for device-code libraries such as WMMA, a file): port it
//!   to its ROCm counterpart, or rewrite or leave out code on a library with none
//!   ([`library_use`]);
//! - the project's ROCm switches (HP303 per switch no build file defines): define them in the
//!   HIP build and its libraries' HIP builds ([`own_switches`]);
//! - one file's HP304 tests of the same CUDA macros: make them compile the CUDA side for HIP
//!   together, or keep HIP's side ([`version_gates`]); one folder's HP301 tests of the CUDA
//!   toolkit's version likewise;
//! - one file's driver-API context management (HP501 at each call): move it to the primary
//!   context once ([`contexts`]);
//! - one file's run-time compilation pipeline (HP502/HP503/HP504): move it to hiprtc once
//!   ([`jit`]); the project's NVIDIA image files where it loads modules: rebuild them with the
//!   loader ([`jit::images`]);
//! - the project's run-time loaders of CUDA libraries (HP507 per library and file): port the
//!   loading layer once ([`loaders`]);
//! - the project's prebuilt CUDA binaries, with the build files of folders whose only GPU
//!   code they are: get ROCm builds from their vendor or replace them ([`binaries`]);
//! - the project's FP8 encoding (HP709 on each FP8 use): choose OCP or FNUZ per AMD target and
//!   adjust scales once ([`fp8`]);
//! - the project's `__launch_bounds__` minimum (HP711 on each kernel): map CUDA's blocks per
//!   SM to AMD's waves per EU once ([`launch_bounds`]), and the project's PyTorch extensions
//!   and their nvcc-only flags (HP830, HP831 at each `load()`/`CUDAExtension`);
//! - the project's PyTorch wheels named in many manifests (HP820 with the ROCm index as the
//!   path): install them from PyTorch's ROCm index once ([`torch_stack`]);
//! - one manifest's pins of NVIDIA's CUDA runtime wheels (`nvidia-*-cu12`, a freeze record):
//!   drop them or regenerate the file ([`torch_stack::runtime_wheels`]);
//! - the wheels named for a CUDA release that hipport knows no ROCm build of, in one package
//!   (HP821): run without them or wait for ROCm builds ([`torch_stack::cuda_builds`]);
//! - one package with no drop-in ROCm wheel installed in many places (HP820/HP821): drop it or
//!   install its ROCm build once ([`torch_stack::packages`]);
//! - the project's tests gated on NVIDIA compute capability that every AMD GPU answers alike:
//!   run them on the target once ([`test_gates`]);
//! - the project's CMake build of CUDA, and each CI workflow's CUDA lane: move or mirror each as
//!   a whole ([`cuda_build`]).
//!
//! Every such decision is a [`Kind`], declared one way: which open findings belong to which
//! decision (a key), which member holds it (the head), how many members make it a decision,
//! and what the head and the folded findings say. [`fold_all`] applies the kinds in one fixed
//! order, each to the findings the earlier ones left open, so a finding is held by at most one
//! decision and the output is deterministic.

pub mod arch_gaps;
pub mod arch_only;
pub mod binaries;
pub mod bound;
pub mod container;
pub mod contexts;
pub mod copies;
pub mod cuda_build;
pub mod fp8;
pub mod generated;
pub mod interposers;
pub mod jit;
pub mod kind;
pub mod launch_bounds;
pub mod legacy_fallbacks;
pub mod library_switch;
pub mod library_use;
pub mod loaders;
pub mod masks;
pub mod nccl_tuning;
pub mod nested;
pub mod nvidia_boards;
pub mod own_switches;
pub mod per_file;
pub mod ptx_family;
pub mod ptx_lanes;
pub mod replaced_copies;
pub mod rocm_builds;
pub mod same_api;
pub mod test_gates;
pub mod toolkit_copies;
pub mod torch_stack;
pub mod unbuilt;
pub mod unincluded;
pub mod unmaintained;
pub mod version_gates;

use crate::finding::Finding;
use crate::gate::Status;
pub use kind::{Group, Kind, Min};
use std::collections::{BTreeMap, BTreeSet};

/// Applies the project's decisions in their fixed order, widest first where scopes nest. Each
/// kind sees the findings the earlier ones left open.
///
/// - Folders the project marks as not maintained come first: leaving such a folder out moots
///   every finer decision inside it (its sibling scripts, CUTLASS components, vendored copies,
///   sm_90-only files), so one finding holds the folder rather than a chain of heads. A marker
///   inside a vendored library is that library's matter and is not one (see [`unmaintained`]).
/// - Then a Dockerfile's NVIDIA container settings (before siblings: each Dockerfile's settings
///   go with its own base image), repeated lines of sibling scripts, CUTLASS/CuTe components
///   (before vendored: a vendored CUTLASS is a CUTLASS rewrite), copies of other projects nested
///   in this one (`nested_roots`, see [`nested::roots`]; the kinds after it leave their findings
///   alone), vendored components, libcu++ use, kernel files only sm_90+/sm_100 run (a file
///   rewritten whole moots its library calls), a library's use in a folder or file, the uses of
///   a numbered family of un-ported enumerators in one file
///   ([`same_api::numbered`]), one un-ported API across the project ([`same_api`]).
/// - The project's FP8 encoding comes last: it is project-wide and takes only the FP8 uses no
///   finer decision holds (a vendored library's FP8 is that library's, an arch-only file is
///   rewritten whole); and [`arch_only`] measures a file's share of sm_90+ uses among its open
///   findings with its FP8 uses still open.
/// - Copies of one file in several folders ([`copies`]) are the very last: what every wider
///   decision left open in each copy is one change applied to all of them.
#[cfg(test)]
pub fn fold_all(findings: &mut [Finding], nested_roots: &[String]) {
    fold_all_with(
        findings,
        Tree {
            nested_roots,
            ..Tree::default()
        },
    );
}

/// What the tree says about the decisions, computed once by `scan` before they fold: the
/// copies of other projects nested in it ([`nested::roots`]), the folders no build file
/// compiles ([`unbuilt::roots`]) and the headers no file includes ([`unincluded::headers`]),
/// the sources a script of the project writes ([`generated::files`]), the folders of code
/// built only with a library that has no ROCm counterpart ([`bound::regions`]), the headers
/// only CUTLASS units compile (`rules::cutlass_component::helpers`) and the tree's CUDA sources
/// ([`binaries::kind`]).
#[derive(Default)]
pub struct Tree<'a> {
    pub nested_roots: &'a [String],
    pub unbuilt_roots: &'a [String],
    pub unincluded: &'a [String],
    /// Copies of NVIDIA's toolkit headers ([`toolkit_copies::files`]).
    pub toolkit_copies: Vec<String>,
    /// Copies of CUDA libraries the port replaces ([`replaced_copies::copies`]).
    pub replaced: replaced_copies::Copies,
    /// Interposer files and their definitions' findings ([`interposers::files`]).
    pub interposers: BTreeMap<String, BTreeSet<usize>>,
    pub generated: BTreeMap<String, (String, usize)>,
    pub bound: Vec<bound::Region>,
    pub cutlass_helpers: BTreeSet<String>,
    pub cuda_sources: &'a [String],
    /// CUDA programs the CMake build compiles and runs while it configures, where no HIP build
    /// replaces them ([`crate::rules::project_build::probes::probe_files`]).
    pub cmake_probes: BTreeMap<String, (String, usize)>,
}

/// [`fold_all`] with the tree's facts: the unbuilt folders, unincluded headers and generated
/// sources fold right after the folders the project marks as not maintained; the bound
/// regions right after vendored copies and libcu++; the prebuilt binaries before FP8.
pub fn fold_all_with(findings: &mut [Finding], tree: Tree) {
    let Tree {
        nested_roots,
        unbuilt_roots,
        unincluded,
        toolkit_copies,
        replaced,
        interposers,
        generated,
        bound,
        cutlass_helpers,
        cuda_sources,
        cmake_probes,
    } = tree;
    let cutlass_helpers = &cutlass_helpers;
    let before: [fn(&[Finding]) -> Kind; 4] = [
        unmaintained::kind,
        nvidia_boards::kind,
        container::kind,
        crate::inventory::siblings::kind,
    ];
    let after: [fn(&[Finding]) -> Kind; 40] = [
        crate::rules::vendored::kind,
        masks::kind,
        masks::helper_kind,
        masks::narrow_kind,
        masks::ballot_macro_kind,
        per_file::kind,
        per_file::toolkit_probe,
        nccl_tuning::kind,
        crate::rules::libcu::kind,
        arch_only::kind,
        arch_gaps::kind,
        legacy_fallbacks::kind,
        ptx_family::kind,
        ptx_lanes::kind,
        library_use::kind,
        same_api::numbered,
        same_api::kind,
        library_switch::kind,
        own_switches::kind,
        version_gates::same_condition,
        version_gates::kind,
        version_gates::toolkit,
        contexts::kind,
        jit::kind,
        jit::images,
        loaders::kind,
        fp8::kind,
        launch_bounds::kind,
        launch_bounds::extensions,
        launch_bounds::rocm_refusals,
        torch_stack::kind,
        torch_stack::runtime_wheels,
        torch_stack::rapids,
        torch_stack::cuda_builds,
        torch_stack::packages,
        rocm_builds::kind,
        test_gates::kind,
        cuda_build::kind,
        // Copies first: the same finding in every copy of a file is one change, held by the
        // first copy, even where a copy's line also holds other findings (faster-rcnn's three
        // `make.sh` copies, each with `nvcc -arch=sm_52` on one line); the line's other findings
        // fold across the copies too, and what stays open on one line is one edit.
        copies::kind,
        per_file::same_line,
    ];
    // A head of an earlier decision may head a later, wider one too (a vendored CUTLASS copy)
    // but is never folded away by one: a project-wide kind (libcu++, FP8) must not hide a
    // folder's or a library's decision.
    let mut heads = BTreeSet::new();
    for (i, make) in before.into_iter().enumerate() {
        let k = make(findings);
        fold_keeping(findings, &k, &mut heads);
        if i == 1 {
            // The decisions about code the build sets aside: not maintained, not built, not
            // included, a generator's output. Their heads are listed after the product's code.
            // After the boards' decision: a folder for NVIDIA's embedded boards holds its own
            // files, built or not (cuda-samples' `Tegra/cudaNvSciNvMedia`).
            if !unbuilt_roots.is_empty() {
                fold_keeping(findings, &unbuilt::kind(unbuilt_roots.to_vec()), &mut heads);
            }
            if !toolkit_copies.is_empty() {
                fold_keeping(
                    findings,
                    &toolkit_copies::kind(toolkit_copies.clone()),
                    &mut heads,
                );
            }
            if !replaced.files.is_empty() {
                fold_keeping(
                    findings,
                    &replaced_copies::kind(replaced.clone()),
                    &mut heads,
                );
            }
            if !interposers.is_empty() {
                fold_keeping(
                    findings,
                    &interposers::kind(interposers.clone()),
                    &mut heads,
                );
            }
            if !unincluded.is_empty() {
                fold_keeping(findings, &unincluded::kind(unincluded.to_vec()), &mut heads);
            }
            if !generated.is_empty() {
                fold_keeping(findings, &generated::kind(generated.clone()), &mut heads);
            }
            for &h in &heads {
                findings[h].set_aside = true;
            }
        }
    }
    let fp8_at = after
        .iter()
        .position(|k| std::ptr::fn_addr_eq(*k, fp8::kind as fn(&[Finding]) -> Kind));
    let k = crate::rules::cutlass_component::kind(findings, nested_roots, cutlass_helpers);
    fold_keeping(findings, &k, &mut heads);
    // A nested copy of another project holds everything in it that is still open, its own
    // vendored copies included; the finer kinds after it leave its findings alone.
    fold_keeping(findings, &nested::kind(nested_roots.to_vec()), &mut heads);
    let cuda_build_at = after
        .iter()
        .position(|k| std::ptr::fn_addr_eq(*k, cuda_build::kind as fn(&[Finding]) -> Kind));
    let mut bound = Some(bound).filter(|b| !b.is_empty());
    for (i, make) in after.into_iter().enumerate() {
        let mut kinds = vec![if Some(i) == cuda_build_at {
            cuda_build::kind_with(findings, &cmake_probes)
        } else {
            make(findings)
        }];
        // Code built only on a library with no ROCm counterpart: after vendored copies and
        // libcu++ (their own decisions), before the finer per-file and per-library kinds.
        if i == 1 {
            kinds.extend(bound.take().map(bound::kind));
        }
        // The project's prebuilt binaries: after the run-time loaders (a loader of a CUDA
        // library is its own decision), before FP8.
        if Some(i) == fp8_at {
            kinds.insert(0, binaries::kind(findings, cuda_sources));
        }
        for mut k in kinds {
            let roots = nested_roots.to_vec();
            let key = k.key;
            k.key = Box::new(move |f| (!nested::inside(&roots, f)).then(|| key(f)).flatten());
            fold_phased(findings, &k, &mut heads, true);
        }
    }
}

/// Folds the open findings of each group of `kind` into its head, as if it were the only kind
/// (the kinds' unit tests). Statuses and messages change; no finding is added, removed or moved.
#[cfg(test)]
pub fn fold(findings: &mut [Finding], kind: &Kind) {
    fold_keeping(findings, kind, &mut BTreeSet::new());
}

/// Folds the open findings of each group of `kind` into its head, leaving open the findings in
/// `heads` (which hold earlier decisions) and adding the heads of this kind's groups to it.
/// Statuses and messages change; no finding is added, removed or moved.
fn fold_keeping(findings: &mut [Finding], kind: &Kind, heads: &mut BTreeSet<usize>) {
    fold_phased(findings, kind, heads, false)
}

/// [`fold_keeping`]; with `earliest`, a head whose members fail earlier than it takes their
/// phase (the fine-grained decisions: a mask flagged for what it computes, CORRECTNESS, whose
/// calls stop the build, BUILD, is a BUILD decision). A folder's decision (not maintained, not
/// built, a nested copy) keeps its head's.
fn fold_phased(findings: &mut [Finding], kind: &Kind, heads: &mut BTreeSet<usize>, earliest: bool) {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if f.status == Status::Pass {
            continue;
        }
        if let Some(k) = (kind.key)(f) {
            groups.entry(k).or_default().push(i);
        }
    }
    // (finding, text, the head it is folded into).
    let mut edits: Vec<(usize, String, Option<usize>)> = Vec::new();
    let mut phases: Vec<(usize, crate::gate::Phase)> = Vec::new();
    for (key, idx) in &groups {
        let members: Vec<&Finding> = idx.iter().map(|&i| &findings[i]).collect();
        let enough = match kind.min {
            Min::Findings(n) => members.len() >= n,
            Min::Files(n) => {
                members
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<BTreeSet<_>>()
                    .len()
                    >= n
            }
        };
        if !enough {
            continue;
        }
        let Some(h) = (kind.head)(&members) else {
            continue;
        };
        let head = idx[h];
        let folded: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| {
                i != head && !heads.contains(&i) && (kind.folds)(&findings[head], &findings[i])
            })
            .collect();
        if folded.is_empty() {
            continue;
        }
        let g = Group {
            key,
            head: &findings[head],
            members,
            folded: folded.iter().map(|&i| &findings[i]).collect(),
        };
        heads.insert(head);
        let first = g
            .folded
            .iter()
            .map(|f| f.phase)
            .min()
            .unwrap_or(g.head.phase);
        if earliest && first < g.head.phase {
            phases.push((head, first));
        }
        edits.push((head, (kind.summary)(&g), None));
        let note = (kind.note)(&g);
        edits.extend(folded.into_iter().map(|i| (i, note.clone(), Some(head))));
    }
    for (i, text, into) in edits {
        if let Some(h) = into {
            let at = format!("{}:{}", findings[h].path, findings[h].line);
            crate::finding::Folded::fold(&mut findings[i], at);
            findings[h].holds += 1 + findings[i].holds;
        }
        findings[i].message.push_str(&text);
    }
    for (i, p) in phases {
        findings[i].phase = p;
    }
}

/// The finding the decision tests fold: rule, path and line, with a placeholder message.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::finding::Finding;

    pub fn f(rule: &str, path: &str, line: u32) -> Finding {
        Finding {
            message: "m".into(),
            ..Finding::bare(rule, path, line)
        }
    }

    /// An open finding of `rule` with its status and message.
    pub fn said(
        rule: &str,
        status: crate::gate::Status,
        path: &str,
        line: u32,
        message: &str,
    ) -> Finding {
        Finding {
            status,
            message: message.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    /// `(rule, path, line)` of the findings left open.
    pub fn open_rules(fs: &[Finding]) -> Vec<(&str, &str, u32)> {
        fs.iter()
            .filter(|x| x.status != crate::gate::Status::Pass)
            .map(|x| (x.rule.as_str(), x.path.as_str(), x.line))
            .collect()
    }

    /// `(path, line)` of the findings left open.
    pub fn open(fs: &[Finding]) -> Vec<(&str, u32)> {
        fs.iter()
            .filter(|x| x.status != crate::gate::Status::Pass)
            .map(|x| (x.path.as_str(), x.line))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{f, open};

    /// Groups by folder; the first HP9 finding holds the group.
    fn by_folder(min: Min) -> Kind {
        Kind {
            key: Box::new(|f| f.path.rsplit_once('/').map(|(d, _)| d.to_string())),
            head: |m| m.iter().position(|f| f.rule.starts_with("HP9")),
            folds: kind::all,
            min,
            summary: Box::new(|g| {
                format!(
                    " [holds {} in {} files of {}: {}]",
                    g.folded.len(),
                    g.files(),
                    g.key,
                    g.by_rule()
                )
            }),
            note: Box::new(|g| format!(" [in {}:{}]", g.head.path, g.head.line)),
        }
    }

    #[test]
    fn one_open_finding_per_group_with_its_counts() {
        let mut fs = vec![
            f("HP102", "a/x.cu", 1),
            f("HP901", "a/x.cu", 2),
            f("HP102", "a/y.cu", 3),
            // Already PASS: not a member, not touched.
            Finding {
                status: Status::Pass,
                ..f("HP102", "a/y.cu", 4)
            },
            // No head in the group: left open.
            f("HP102", "b/z.cu", 1),
            f("HP102", "b/z.cu", 2),
            // Not in any group.
            f("HP102", "top.cu", 1),
        ];
        fold(&mut fs, &by_folder(Min::Findings(2)));
        assert_eq!(
            open(&fs),
            [("a/x.cu", 2), ("b/z.cu", 1), ("b/z.cu", 2), ("top.cu", 1)]
        );
        assert!(fs[1]
            .message
            .ends_with(" [holds 2 in 2 files of a: HP102 ×2]"));
        assert!(fs[0].message.ends_with(" [in a/x.cu:2]"));
        assert_eq!(fs[3].message, "m");
        // Twin: below the minimum number of files, nothing moves.
        let mut few = vec![f("HP901", "a/x.cu", 1), f("HP102", "a/x.cu", 2)];
        fold(&mut few, &by_folder(Min::Files(2)));
        assert_eq!(open(&few).len(), 2);
        assert!(few.iter().all(|x| x.message == "m"));
    }

    #[test]
    fn kinds_apply_in_order_and_a_finding_is_held_once() {
        // A vendored CUTLASS file: the CUTLASS component (earlier in the order) holds it, and
        // the vendored decision then sees only what is left open.
        let mut fs = vec![
            f("HP603", "third_party/lib/a.h", 1),
            f("HP102", "third_party/lib/a.h", 2),
            f("HP102", "third_party/lib/b.h", 3),
            f("HP102", "third_party/lib/c.h", 3),
        ];
        fold_all(&mut fs, &[]);
        assert_eq!(open(&fs), [("third_party/lib/a.h", 1)]);
        assert!(fs[0].message.contains("CUTLASS/CuTe component"));
        assert!(fs[0].message.contains("2 more findings in 3 files"));
        assert!(fs[1].message.contains("folded into HP603"));
        assert!(!fs[1].message.contains("vendored component"));
        assert!(fs[3].message.contains("the vendored component"));
    }

    #[test]
    fn a_marked_folder_holds_what_is_inside_and_fp8_takes_what_is_left() {
        let fp8 = |path: &str, line| Finding {
            message: "`__nv_fp8_e4m3`: FP8 on AMD is OCP or FNUZ depending on the GPU".into(),
            ..Finding::bare("HP709", path, line)
        };
        let mut fs = vec![
            // A vendored copy inside a legacy folder: the folder holds it.
            f("HP102", "legacy/third_party/lib/a.h", 1),
            fp8("legacy/third_party/lib/b.h", 2),
            // A legacy folder inside a vendored library: the library holds it.
            fp8("third_party/dep/legacy/c.cu", 3),
            f("HP102", "third_party/dep/d.cu", 4),
            // The project's own FP8 uses: one decision.
            fp8("src/q.cu", 5),
            fp8("src/r.cu", 6),
        ];
        fold_all(&mut fs, &[]);
        assert_eq!(
            open(&fs),
            [
                ("legacy/third_party/lib/a.h", 1),
                ("third_party/dep/legacy/c.cu", 3),
                ("src/q.cu", 5)
            ]
        );
        assert!(fs[0]
            .message
            .contains("marks `legacy/` as no longer maintained"));
        assert!(fs[2]
            .message
            .contains("the vendored component `third_party/dep/`"));
        assert!(fs[4].message.contains("FP8 encoding: 2 uses in 2 files"));
        assert!(fs[5].message.contains("folded into `src/q.cu:5`"));
        // Twin: without the marker folder, the vendored copy is its own decision and its FP8
        // use is not the project's.
        for x in fs.iter_mut() {
            x.path = x.path.replace("legacy/third_party", "third_party");
            x.status = Status::Remediation;
            x.message = "`__nv_fp8_e4m3`: m".into();
        }
        fold_all(&mut fs, &[]);
        assert_eq!(
            open(&fs),
            [
                ("third_party/lib/a.h", 1),
                ("third_party/dep/legacy/c.cu", 3),
                ("src/q.cu", 5)
            ]
        );
        assert!(fs[0]
            .message
            .contains("the vendored component `third_party/lib/`"));
    }

    #[test]
    fn a_nested_copy_of_another_project_is_one_decision() {
        let unknown = |path: &str, line| Finding {
            status: Status::Unknown,
            ..f("HP880", path, line)
        };
        let libcu = |path: &str, line| Finding {
            message: "namespace `cuda::std` has no HIP counterpart".into(),
            ..Finding::bare("HP001", path, line)
        };
        let mut fs = vec![
            unknown("ex/fa/setup.py", 3),
            f("HP102", "ex/fa/csrc/a.cu", 2),
            f("HP102", "ex/fa/third_party/lib/b.h", 1),
            f("HP102", "ex/fa/third_party/lib/c.h", 1),
            libcu("ex/fa/d.cu", 1),
            // The project's own findings.
            libcu("src/b.cu", 3),
            libcu("src/c.cu", 4),
            f("HP102", "src/k.cu", 5),
        ];
        let roots = vec!["ex/fa".to_string()];
        fold_all(&mut fs, &roots);
        // The copy's first REMEDIATION finding holds it, vendored copy and libcu++ included.
        assert_eq!(
            open(&fs),
            [("ex/fa/csrc/a.cu", 2), ("src/b.cu", 3), ("src/k.cu", 5)]
        );
        assert!(
            fs[1]
                .message
                .contains("`ex/fa/`, a copy of another project (its own licence and build): 4 more findings in 5 files"),
            "{}",
            fs[1].message
        );
        assert!(fs[0].message.contains("folded into `ex/fa/csrc/a.cu:2`"));
        assert!(fs[5].message.contains("1 more"), "{}", fs[5].message);
        // Twin: without the nested root, the project's own folders stay as they were.
        for x in fs.iter_mut() {
            x.status = if x.rule == "HP880" {
                Status::Unknown
            } else {
                Status::Remediation
            };
            x.message = "namespace `cuda::std` m".into();
        }
        fold_all(&mut fs, &[]);
        assert!(!fs
            .iter()
            .any(|x| x.message.contains("copy of another project")));
        assert!(open(&fs).contains(&("ex/fa/setup.py", 3)));
        assert!(open(&fs).contains(&("ex/fa/third_party/lib/b.h", 1)));
    }

    #[test]
    fn an_earlier_head_is_never_folded_away() {
        let mut fs = vec![
            f("HP901", "a/x.cu", 1),
            f("HP102", "a/x.cu", 2),
            f("HP102", "b/y.cu", 1),
            f("HP901", "b/y.cu", 2),
        ];
        let mut heads = BTreeSet::new();
        fold_keeping(&mut fs, &by_folder(Min::Findings(2)), &mut heads);
        assert_eq!(open(&fs), [("a/x.cu", 1), ("b/y.cu", 2)]);
        // A project-wide kind whose head is b/y.cu:2 leaves a/x.cu:1 open: it holds `a`.
        let wide = Kind {
            key: Box::new(|_| Some(String::new())),
            head: |m| m.iter().position(|f| f.path.starts_with('b')),
            ..by_folder(Min::Findings(2))
        };
        fold_keeping(&mut fs, &wide, &mut heads);
        assert_eq!(open(&fs), [("a/x.cu", 1), ("b/y.cu", 2)]);
        // Twin: without the earlier decision, the wide kind folds it.
        let mut fresh = vec![f("HP901", "a/x.cu", 1), f("HP901", "b/y.cu", 2)];
        fold(&mut fresh, &wide);
        assert_eq!(open(&fresh), [("b/y.cu", 2)]);
    }

    #[test]
    fn project_wide_kinds_take_only_the_projects_own_findings() {
        let libcu = |path: &str, line| Finding {
            message: "namespace `cuda::std` has no HIP counterpart".into(),
            ..Finding::bare("HP001", path, line)
        };
        // The legacy folder's head is a libcu++ use: it stays open beside the project's libcu++
        // decision, which holds only the project's other uses.
        let mut fs = vec![
            libcu("legacy/a.cu", 1),
            f("HP102", "legacy/a.cu", 2),
            libcu("src/b.cu", 3),
            libcu("src/c.cu", 4),
        ];
        fold_all(&mut fs, &[]);
        assert_eq!(open(&fs), [("legacy/a.cu", 1), ("src/b.cu", 3)]);
        assert!(fs[0].message.contains("no longer maintained"));
        assert!(!fs[0].message.contains("folded into"));
        assert!(fs[3].message.contains("folded into `src/b.cu:3`"));
        // Twin: without the marker folder, the first use holds all three.
        let mut plain = vec![
            libcu("old/a.cu", 1),
            f("HP102", "old/a.cu", 2),
            libcu("src/b.cu", 3),
            libcu("src/c.cu", 4),
        ];
        fold_all(&mut plain, &[]);
        assert_eq!(open(&plain), [("old/a.cu", 1), ("old/a.cu", 2)]);
    }
}
