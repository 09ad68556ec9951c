//! A library's use is one decision per project (or per file, for device-code libraries). A
//! project that wraps cuDNN, or a sample built on a library with no ROCm counterpart (cuSOLVERMg,
//! cuTENSORMg, cuDSS, nvCOMP, cuFFTDx…), gets one finding per call: HP601 on each cuDNN
//! sequence call, HP001 "no HIP equivalent" on each descriptor call MIOpen does have, HP004 on
//! each include, HP605 on each WMMA fragment line (thousands in one project). What a person
//! decides is once: port that use of the library to its ROCm counterpart, or, where there is
//! none, rewrite or leave that code out of the ROCm build.
//!
//! So the open findings on one library (`mappings/hand/libraries.tsv` says which names and
//! headers are whose) in the project — or in one file, for the libraries whose code is device
//! code rewritten file by file (WMMA, the MathDx headers) — are folded into the first, which says
//! which library, what ROCm counterpart exists or that none does, and how many uses in how many
//! files and which folders it holds (nnabla-ext-cuda's cuDNN wrappers in five folders were five
//! decisions, its NVTX wrapper fifteen); the folded findings stay in JSON/SARIF as PASS naming it. A single use is left
//! as it is. A finding that carries another fact stays open: an HP001 whose HIP equivalent exists
//! only in a later ROCm, or was removed, is a target decision, not this one.

use super::kind::{Group, Kind, Min};
use crate::finding::Finding;
use crate::mappings::libraries::{self, Library, Scope};

/// The rules that report a library's use call by call.
const MEMBERS: &[&str] = &[
    "HP001", "HP003", "HP004", "HP601", "HP602", "HP604", "HP605", "HP606", "HP607", "HP608",
    "HP881",
];

/// The name or header a finding reports (its first backquoted text, `namespace ` skipped).
fn name(f: &Finding) -> Option<&str> {
    f.message.split('`').nth(1)
}

/// The library a finding reports a use of, if it is a plain use (not a version fact).
pub fn library_of(f: &Finding) -> Option<&'static Library> {
    if f.rule == "HP304" {
        return gated_library(f);
    }
    if !MEMBERS.contains(&f.rule.as_str()) {
        return None;
    }
    if f.rule == "HP001" && !f.message.contains(" has no ") {
        return None;
    }
    // HP606 names rocThrust's `thrust::hip`, not the CUDA system it reports.
    if f.rule == "HP606" {
        return libraries::of_name("thrust::system::cuda::");
    }
    // HP881 is NVML used from Python (`import pynvml`): the same library as `nvml.h`.
    if f.rule == "HP881" {
        return libraries::of_header("nvml.h");
    }
    let n = name(f)?;
    libraries::of_name(n).or_else(|| libraries::of_header(n))
}

/// The library whose own macros (`CUDNN_VERSION`, `CUDNN_MAJOR`) are all an HP304 condition
/// tests: HIP compiles another arm there because the library is absent, and the code under the
/// test is rewritten with the rest of the library's use (cuDNN's to MIOpen), so the gate is part
/// of that decision. A gate on a toolkit macro or on macros of two libraries is its own.
fn gated_library(f: &Finding) -> Option<&'static Library> {
    let macros = super::version_gates::condition_macros(f);
    let mut libs = macros.iter().map(|m| libraries::of_name(m));
    let first = libs.next()??;
    libs.all(|l| l.is_some_and(|l| std::ptr::eq(l, first)))
        .then_some(first)
}

/// The decision's key: the library (and its file, for device-code libraries).
fn key(f: &Finding) -> Option<String> {
    let lib = library_of(f)?;
    let unit = match lib.scope {
        Scope::File => f.path.as_str(),
        Scope::Project => "",
    };
    Some(format!("{}\u{0}{unit}", lib.name))
}

/// The folder of a path (`.` at the top).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(d, _)| d)
}

/// The first member that is REMEDIATION (an HP003 is UNKNOWN), else the first, in the folder
/// with the most uses: where the port of the library happens (nnabla-ext-cuda's cuDNN decision
/// sits in its cuDNN function folder, not on the first header that includes `cudnn.h`).
fn head(m: &[&Finding]) -> Option<usize> {
    // Code built only on a library with no ROCm counterpart already holds that library's
    // decision ([`super::bound`]): its use elsewhere joins it, one library, one decision.
    if let Some(i) = m.iter().position(|f| {
        library_of(f).is_some_and(|l| l.rocm.is_none() && super::bound::is_head_for(f, &l.name))
    }) {
        return Some(i);
    }
    let mut uses: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in m {
        *uses.entry(folder(&f.path)).or_default() += 1;
    }
    let most = uses.values().copied().max().unwrap_or(0);
    // The first folder in report order with that many uses.
    let top = m
        .iter()
        .map(|f| folder(&f.path))
        .find(|d| uses[d] == most)
        .unwrap_or(".");
    let in_top = |f: &&&Finding| folder(&f.path) == top;
    // A use of the library holds it (a warp-width fact that joins a WMMA file's decision
    // does not).
    let used = |f: &&&Finding| library_of(f).is_some();
    Some(
        m.iter()
            .position(|f| in_top(&f) && used(&f) && f.status == crate::gate::Status::Remediation)
            .or_else(|| {
                m.iter()
                    .position(|f| used(&f) && f.status == crate::gate::Status::Remediation)
            })
            .or_else(|| m.iter().position(|f| used(&f)))
            .unwrap_or(0),
    )
}

/// The warp-width facts (HP101, a constant fixing the warp at 32 lanes) of files whose WMMA use
/// is one decision: rocWMMA's fragments span the 64-lane wavefront, so the kernel's warp tiling
/// is redone with the port (cuda_hgemm's `#define WARP_SIZE 32` beside each WMMA kernel).
fn wmma_width(f: &Finding, wmma_files: &std::collections::BTreeSet<String>) -> Option<String> {
    (f.rule == "HP101" && wmma_files.contains(&f.path)).then(|| format!("WMMA\u{0}{}", f.path))
}

/// "`a/x.cuh`", or the folders of a project-wide decision, most uses first: "`a/`" or
/// "3 folders (`a/` 12, `b/` 3, `c/` 1)", at most four named.
fn unit(g: &Group, lib: &Library) -> String {
    let (_, unit) = g.key.split_once('\u{0}').unwrap_or(("", g.key));
    if lib.scope == Scope::File {
        return format!("`{unit}`");
    }
    let mut folders: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in &g.members {
        *folders.entry(folder(&f.path)).or_default() += 1;
    }
    let mut by_uses: Vec<(&str, usize)> = folders.into_iter().collect();
    by_uses.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let name = |d: &str| {
        if d == "." {
            "the top folder".to_string()
        } else {
            format!("`{d}/`")
        }
    };
    match by_uses.as_slice() {
        [(d, _)] => name(d),
        all => {
            let shown: Vec<String> = all
                .iter()
                .take(4)
                .map(|(d, n)| format!("{} {n}", name(d)))
                .collect();
            let more = if all.len() > 4 { ", …" } else { "" };
            format!("{} folders ({}{more})", all.len(), shown.join(", "))
        }
    }
}

/// How many of the distinct names used the mapping tables give a counterpart for (cuDNN names
/// have MIOpen ones in HIPIFY's `roc` column though the translator reports them as unported).
fn counterparts(g: &Group) -> Option<(usize, usize)> {
    let m = crate::mappings::get();
    let mut names: Vec<&str> = g.members.iter().filter_map(|f| name(f)).collect();
    names.sort_unstable();
    names.dedup();
    let known: Vec<_> = names.iter().filter_map(|n| m.entry(n)).collect();
    if known.is_empty() {
        return None;
    }
    let with = known
        .iter()
        .filter(|e| e.hip.is_some() || e.roc.is_some())
        .count();
    Some((with, known.len()))
}

fn summary(g: &Group) -> String {
    let Some(lib) = library_of(g.head) else {
        return String::new();
    };
    let uses = format!(
        "{} uses in {} file{} ({})",
        g.members.len(),
        g.files(),
        if g.files() == 1 { "" } else { "s" },
        crate::inventory::component::by_rule(&g.members)
    );
    if lib.rocm.is_none() && super::bound::is_head_for(g.head, &lib.name) {
        let beyond: Vec<&Finding> = g
            .members
            .iter()
            .copied()
            .filter(|f| !std::ptr::eq(*f, g.head))
            .collect();
        let rest = Group {
            key: g.key,
            head: g.head,
            members: beyond,
            folded: g.folded.clone(),
        };
        return format!(
            "; its use outside that code is the same decision: {} in {} ({}), folded here",
            crate::inventory::component::plural(rest.members.len(), "use"),
            unit(&rest, lib),
            crate::inventory::component::by_rule(&rest.members)
        );
    }
    let what = match &lib.rocm {
        Some(r) => {
            let names = counterparts(g)
                .filter(|(w, _)| *w > 0)
                .map(|(w, n)| format!("; {w} of the {n} API names used have a {r} counterpart"))
                .unwrap_or_default();
            format!("port it to {r} ({}{names})", lib.note)
        }
        None => format!(
            "{} has no ROCm counterpart ({}); or leave that code out of the ROCm build",
            lib.name, lib.note
        ),
    };
    let width = g
        .members
        .iter()
        .find(|f| f.rule == "HP101")
        .map(|f| {
            format!(
                "; the file's 32-lane warp width (`{}`, line {}) goes with it: rocWMMA's fragments span the 64-lane wavefront, so the kernel's warp tiling is redone with the port",
                name(f).unwrap_or("WARP_SIZE"),
                f.line
            )
        })
        .unwrap_or_default();
    format!(
        " — one decision for the use of {} in {}: {uses}, {} more folded here; {what}{width}",
        lib.name,
        unit(g, lib),
        g.folded.len()
    )
}

/// The library-use decision: open per-use findings on one library, per project or file.
pub fn kind(findings: &[Finding]) -> Kind {
    let wmma_files: std::collections::BTreeSet<String> = findings
        .iter()
        .filter(|f| f.status != crate::gate::Status::Pass)
        .filter(|f| library_of(f).is_some_and(|l| l.name == "WMMA"))
        .map(|f| f.path.clone())
        .collect();
    Kind {
        key: Box::new(move |f| key(f).or_else(|| wmma_width(f, &wmma_files))),
        head,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(summary),
        note: Box::new(|g| {
            let lib = library_of(g.head).map_or("the library", |l| l.name.as_str());
            super::kind::folded_into(g, &format!("the use of {lib} here is one decision"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open;

    fn fold(findings: &mut [Finding]) {
        let k = kind(findings);
        super::super::fold(findings, &k);
    }

    fn f(rule: &str, path: &str, line: u32, msg: &str) -> Finding {
        Finding {
            message: msg.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    fn unported(name: &str, path: &str, line: u32) -> Finding {
        f(
            "HP001",
            path,
            line,
            &format!("`{name}` has no HIP equivalent (x API)"),
        )
    }

    #[test]
    fn many_calls_of_one_library_in_one_folder_are_one_decision() {
        let mut fs = vec![
            f(
                "HP601",
                "bench/wrappers.h",
                3,
                "`cudnnRNNForward`: MIOpen's equivalent needs a different call sequence",
            ),
            unported("cudnnCreateTensorDescriptor", "bench/wrappers.h", 5),
            unported("cudnnSetRNNDescriptor", "bench/a.cc", 7),
            unported("cudnnDestroy", "bench/b.cc", 9),
            // The library's enum constants are its uses too (caffe's status strings).
            unported("CUDNN_STATUS_EXECUTION_FAILED", "bench/b.cc", 10),
            // Another fact: a target version, not the library decision.
            f(
                "HP001",
                "bench/b.cc",
                11,
                "`cudnnFoo` → `miopenFoo` exists only from ROCm 7.0; the target is ROCm 6.2",
            ),
            // Not a library use.
            unported("cudaFoo", "bench/b.cc", 12),
        ];
        fold(&mut fs);
        assert_eq!(
            open(&fs),
            [
                ("bench/wrappers.h", 3),
                ("bench/b.cc", 11),
                ("bench/b.cc", 12)
            ]
        );
        let m = &fs[0].message;
        assert!(
            m.contains("one decision for the use of cuDNN in `bench/`: 5 uses in 3 files"),
            "{m}"
        );
        assert!(m.contains("port it to MIOpen"), "{m}");
        assert!(m.contains("have a MIOpen counterpart"), "{m}");
        assert!(fs[2].message.contains("folded into `bench/wrappers.h:3`"));
    }

    /// tensorrtx: the code built only with TensorRT already holds TensorRT's decision; the
    /// TensorRT includes of other folders (with other open work) join it: one library, one
    /// decision. Twin: without that head they are a decision of their own.
    #[test]
    fn a_library_with_no_counterpart_has_one_decision() {
        let trt = |path: &str, line: u32| {
            f(
                "HP004",
                path,
                line,
                "`NvInfer.h` has no HIP counterpart in ROCm 7.2.0: TensorRT has no ROCm counterpart",
            )
        };
        let mut head = trt("arcface/a.cpp", 9);
        head.message.push_str(" — one decision: TensorRT has no ROCm counterpart (x), and the code in `arcface/` builds only with it (…)");
        let mut fs = vec![
            head,
            trt("resnet/logging.h", 20),
            trt("yolov3/logging.h", 20),
        ];
        fold(&mut fs);
        assert_eq!(open(&fs), [("arcface/a.cpp", 9)]);
        assert!(
            fs[0]
                .message
                .contains("its use outside that code is the same decision: 2 uses in 2 folders"),
            "{}",
            fs[0].message
        );
        let mut fs = vec![
            trt("arcface/a.cpp", 9),
            trt("resnet/logging.h", 20),
            trt("yolov3/logging.h", 20),
        ];
        fold(&mut fs);
        assert_eq!(open(&fs).len(), 1);
        assert!(
            fs[0]
                .message
                .contains("one decision for the use of TensorRT"),
            "{}",
            fs[0].message
        );
    }

    /// ccminer's NVML wrapper: the header's and each entry point's HP607 across `nvml.h` and
    /// `nvml.cpp` are one decision (AMD SMI). Twin: a cuFile call elsewhere is its own library.
    #[test]
    fn nvml_uses_are_one_decision() {
        let mut fs = vec![
            f("HP607", "nvml.h", 22, "`nvml.h`: NVML management calls"),
            f(
                "HP607",
                "nvml.cpp",
                90,
                "`nvmlInit_v2`: NVML has no HIP translation",
            ),
            f(
                "HP607",
                "nvml.cpp",
                120,
                "`nvmlDeviceGetCount`: NVML has no HIP translation",
            ),
            f(
                "HP608",
                "io.cpp",
                3,
                "`cuFileRead`: GPUDirect Storage has no ROCm counterpart",
            ),
        ];
        fold(&mut fs);
        assert_eq!(open(&fs), [("nvml.h", 22), ("io.cpp", 3)]);
        assert!(fs[0].message.contains("NVML"), "{}", fs[0].message);
    }

    /// nnabla-ext-cuda's `nvtx.cpp`: the attribute API has no roctx counterpart, one finding
    /// per name and line before; one decision now. Twin: renamed calls are no findings here.
    #[test]
    fn nvtx_attributes_are_one_decision() {
        let mut fs = vec![
            unported("nvtxRangePushEx", "src/nvtx.cpp", 29),
            unported("nvtxEventAttributes_t", "src/nvtx.cpp", 29),
            unported("NVTX_COLOR_ARGB", "src/nvtx.cpp", 95),
            unported("nvtxDomainCreateA", "src/prof/d.cpp", 3),
            f(
                "HP002",
                "src/nvtx.cpp",
                40,
                "`nvtxRangePushA` → `roctxRangePushA`",
            ),
        ];
        fold(&mut fs);
        assert_eq!(open(&fs), [("src/nvtx.cpp", 29), ("src/nvtx.cpp", 40)]);
        let m = &fs[0].message;
        assert!(m.contains("use of NVTX in 2 folders"), "{m}");
        assert!(m.contains("port it to roctx"), "{m}");
    }

    #[test]
    fn one_call_stays_as_it_is() {
        let mut fs = vec![unported("cusolverMgCreate", "s/a.cpp", 1)];
        fold(&mut fs);
        assert_eq!(open(&fs).len(), 1);
        assert!(!fs[0].message.contains("decision"));
    }

    /// Two libraries are two decisions; one library in two folders is one, naming both.
    #[test]
    fn two_libraries_are_separate_decisions_and_folders_one() {
        let mut fs = vec![
            unported("cusolverMgCreate", "mg/a.cpp", 1),
            unported("cusolverMgDestroy", "mg/a.cpp", 2),
            unported("cutensorMgCreate", "mg/a.cpp", 3),
            unported("cutensorMgDestroy", "mg/a.cpp", 4),
            unported("cusolverMgCreate", "mg2/a.cpp", 1),
            unported("cusolverMgDestroy", "mg2/a.cpp", 2),
        ];
        fold(&mut fs);
        assert_eq!(open(&fs), [("mg/a.cpp", 1), ("mg/a.cpp", 3)]);
        let m = &fs[0].message;
        assert!(m.contains("cuSOLVERMg has no ROCm counterpart"), "{m}");
        assert!(
            m.contains("use of cuSOLVERMg in 2 folders (`mg/` 2, `mg2/` 2)"),
            "{m}"
        );
        assert!(fs[2].message.contains("use of cuTENSORMg in `mg/`"));
    }

    #[test]
    fn wmma_is_one_decision_per_file() {
        let wmma = |path: &str, line| {
            f(
                "HP605",
                path,
                line,
                "`wmma` fragments and operations: port to rocWMMA",
            )
        };
        let mut fs = vec![
            f(
                "HP004",
                "k/a.cuh",
                1,
                "`mma.h` has no HIP counterpart in ROCm 6.2",
            ),
            f(
                "HP001",
                "k/a.cuh",
                2,
                "namespace `nvcuda` has no HIP counterpart",
            ),
            wmma("k/a.cuh", 5),
            wmma("k/a.cuh", 6),
            wmma("k/b.cuh", 5),
            wmma("k/b.cuh", 6),
        ];
        fold(&mut fs);
        assert_eq!(open(&fs), [("k/a.cuh", 1), ("k/b.cuh", 5)]);
        assert!(
            fs[0]
                .message
                .contains("WMMA in `k/a.cuh`: 4 uses in 1 file"),
            "{}",
            fs[0].message
        );
        assert!(fs[0].message.contains("port it to rocWMMA"));
        // cuda_hgemm: `#define WARP_SIZE 32` beside the WMMA kernel (line 1, before its first
        // use) joins the file's decision, which a use of WMMA still holds. Twin: the same fact
        // in a file without WMMA stays its own.
        let width = |path: &str| {
            f(
                "HP101",
                path,
                1,
                "`WARP_SIZE` fixes the warp size at 32; AMD wavefronts have 64 lanes",
            )
        };
        let mut fs = vec![
            width("k/c.cu"),
            wmma("k/c.cu", 5),
            wmma("k/c.cu", 6),
            width("k/d.cu"),
        ];
        fold(&mut fs);
        assert_eq!(open(&fs), [("k/c.cu", 5), ("k/d.cu", 1)]);
        assert!(
            fs[1]
                .message
                .contains("32-lane warp width (`WARP_SIZE`, line 1)"),
            "{}",
            fs[1].message
        );
    }
}
