//! One file's tests of one CUDA macro, one decision. A file that adapts to CUDA's or a
//! library's version (`#if CUSPARSE_VERSION >= 11000`, `#if __CUDACC_VER_MAJOR__ >= 10`) tests
//! it at every place the API changed: arrayfire's `sparse_blas.cu` has fifteen such gates, and a
//! gate opened before a statement is often closed by a second test of the same macro after it
//! (`#if … } #endif`). HIP defines none of these macros, so every gate takes the same side
//! there (HP304 on each); what a porter decides is once per macro and file: make those gates
//! compile the CUDA side for HIP too (`|| defined(__HIP_PLATFORM_AMD__)`), or keep HIP's side
//! deliberately. So the file's open HP304 findings on one set of macros fold into the first,
//! which lists the places; the rest stay in JSON as PASS naming it.
//!
//! A library's own version macros (`CUDNN_VERSION`) belong to the library's use
//! ([`super::library_use`], applied before this), and a project's switch for a CUDA-only library
//! to [`super::library_switch`].

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// Directive words and operators' names that are not macros of the condition.
const NOT_MACROS: [&str; 10] = [
    "if",
    "ifdef",
    "ifndef",
    "elif",
    "elifdef",
    "elifndef",
    "else",
    "endif",
    "defined",
    "__has_include",
];

/// The macros an HP304 finding's condition tests (its first backquoted text, the directive),
/// sorted, once each.
pub fn condition_macros(f: &Finding) -> Vec<&str> {
    if f.rule != "HP304" {
        return Vec::new();
    }
    let Some(cond) = f.message.split('`').nth(1) else {
        return Vec::new();
    };
    let mut out: Vec<&str> = cond
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .filter(|w| !NOT_MACROS.contains(w))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The decision's key: the file and the macros its condition tests; for tests of the CUDA
/// toolkit's own version only (`#if CUDA_VERSION >= 12000`), the project. HIP defines no toolkit
/// version, so what a porter decides about those gates is once for the project (define the
/// version the HIP build stands for, as Kaldi's `-DCUDA_VERSION=11000` does, or give the gated
/// APIs a HIP side): cuda-api-wrappers gates 58 files on `CUDA_VERSION`.
fn key(f: &Finding) -> Option<String> {
    let macros = condition_macros(f);
    if macros.is_empty() || !super::kind::own(&f.path) {
        return None;
    }
    if macros.iter().all(|m| TOOLKIT.contains(m)) {
        return Some("\u{0}toolkit".to_string());
    }
    // A framework's CUDA build switch (`GOOGLE_CUDA`) guards the project's GPU code wherever it
    // has some: one choice for the project (test the framework's ROCm switch too).
    if macros
        .iter()
        .all(|m| crate::model::macro_env::framework_switch(m).is_some())
    {
        return Some(format!("\u{0}framework {}", macros.join(" ")));
    }
    Some(format!("{}\u{0}{}", f.path, macros.join(" ")))
}

/// The key of a compound condition (two macros or more) written alike in several files: the
/// condition, whitespace folded.
fn condition_key(f: &Finding) -> Option<String> {
    if condition_macros(f).len() < 2 || !super::kind::own(&f.path) {
        return None;
    }
    let cond = f.message.split('`').nth(1)?;
    Some(cond.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// One compound condition written alike in several files, one decision. nnabla-ext-cuda guards its
/// optional virtual-memory allocator with `#if CUDA_VERSION >= 10020 && CUDNN_VERSION >= 8000`
/// in six files (declaration, member, definition, users): the project's switch for one
/// feature, which HIP turns off everywhere at once. What a porter decides is once: give the
/// feature a HIP side (where ROCm has it) or keep it off. A test of one macro
/// (`__CUDACC_VER_MAJOR__ >= 10`) is an API's version gate, decided per file as before. Applied
/// before the per-file decision, so a file's other gates stay that file's.
pub fn same_condition(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(condition_key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Files(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for this condition, written alike in {} files ({}): HIP takes the same side at {} places, {} more folded here; give what it guards a HIP side together (where ROCm has the feature), or keep HIP's side deliberately",
                g.files(),
                g.first_places(4),
                g.members.len(),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the same condition in other files is one decision")
        }),
    }
}

/// The decision per file and macro set: every open HP304 on it, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let macros = condition_macros(g.head);
            let names: Vec<String> = macros.iter().map(|m| format!("`{m}`")).collect();
            let lines: Vec<String> = g.members.iter().map(|f| f.line.to_string()).collect();
            if g.key.starts_with("\u{0}framework") {
                return format!(
                    " — one decision for the project's tests of the framework's CUDA build switch ({}): its ROCm build never defines it, so the GPU code they guard is compiled out at {} places in {} files (first at {}), {} more folded here",
                    names.join(", "),
                    g.members.len(),
                    g.files(),
                    g.first_places(4),
                    g.folded.len()
                );
            }
            if g.files() > 1 {
                return format!(
                    " — one decision for the project's tests of the CUDA toolkit's version: HIP defines none, so it takes their other side at {} places in {} files (first at {}), {} more folded here; define the version the HIP build stands for (`-DCUDA_VERSION=…` in the HIP build), or give the gated APIs a HIP side where ROCm has them",
                    g.members.len(),
                    g.files(),
                    g.first_places(4),
                    g.folded.len()
                );
            }
            format!(
                " — one decision for this file's tests of {}: HIP takes the other side at {} places (lines {}), {} more folded here; make them compile the CUDA side for HIP together, or keep HIP's side deliberately",
                names.join(", "),
                g.members.len(),
                lines.join(", "),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            if g.key.starts_with("\u{0}framework") {
                return super::kind::folded_into(
                    g,
                    "the project's tests of the framework's CUDA build switch are one decision",
                );
            }
            if g.files() > 1 {
                return super::kind::folded_into(
                    g,
                    "the project's tests of the CUDA toolkit's version are one decision",
                );
            }
            super::kind::folded_into(g, "this file's tests of the same macros are one decision")
        }),
    }
}

/// The CUDA toolkit's version macros: one family (a folder that tests `CUDA_VERSION` in one
/// file and `CUDART_VERSION` in the next asks one question of the toolkit).
const TOOLKIT: [&str; 4] = [
    "CUDA_VERSION",
    "CUDART_VERSION",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
];

/// The decision's key for an HP301 test of the toolkit's version (`` `#if` on `CUDA_VERSION` ``,
/// the macro its second backquoted text): the folder.
fn toolkit_key(f: &Finding) -> Option<String> {
    if f.rule != "HP301" || !super::kind::own(&f.path) {
        return None;
    }
    let m = f.message.split('`').nth(3)?;
    TOOLKIT
        .contains(&m)
        .then(|| crate::model::includes::dir_of(&f.path).to_string())
}

/// One folder's tests of the CUDA toolkit's version, one decision. stable-fast's cuBLAS folder
/// guards a declaration in its header, the definition and every caller with the same
/// `CUDA_VERSION >= 11000` (HP301 at each): HIP drops them all alike and compiles the other
/// arms; what a porter decides is once for the folder: give those arms a HIP side where ROCm
/// has the feature, or keep HIP's side deliberately.
pub fn toolkit(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(toolkit_key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the tests of the CUDA toolkit's version in `{}/`: HIP \
                 takes their other side at {} places in {} files (first at {}), {} more folded \
                 here; give those arms a HIP side where ROCm has the feature, or keep HIP's \
                 side deliberately",
                g.key,
                g.members.len(),
                g.files(),
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                "this folder's tests of the CUDA toolkit's version are one decision",
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{open_rules as open, said};
    use crate::gate::Status;

    fn gate(cond: &str, path: &str, line: u32) -> Finding {
        let m = format!(
            "`{cond}`: a current CUDA build compiles the `#if` arm, HIP-Clang the `#else` arm"
        );
        said("HP304", Status::Remediation, path, line, &m)
    }

    /// The project's tests of the CUDA toolkit's version, in any file and spelling, are one
    /// decision (cuda-api-wrappers: 58 files on `CUDA_VERSION`); twins: a file's tests of
    /// another macro (`THRUST_VERSION`) are that file's own decision, and a vendored file's
    /// toolkit gate stays apart.
    #[test]
    fn the_projects_tests_of_the_toolkit_version_are_one_decision() {
        let mut fs = vec![
            gate("#if __CUDACC_VER_MAJOR__ >= 10", "src/blas.cu", 182),
            gate("#if __CUDACC_VER_MAJOR__ >= 10", "src/blas.cu", 206),
            gate(
                "#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 10",
                "src/blas.cu",
                219,
            ),
            gate("#if CUDART_VERSION >= 6050", "src/blas.cu", 300),
            gate("#if __CUDACC_VER_MAJOR__ >= 10", "src/solve.cu", 20),
            gate("#if THRUST_VERSION >= 100900", "src/sort.cu", 10),
            gate("#if THRUST_VERSION >= 100900", "src/sort.cu", 40),
            gate("#if CUDA_VERSION >= 12000", "third_party/cub/x.cuh", 5),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        let o = open(&fs);
        assert_eq!(o.len(), 3, "{o:?}");
        let head = &fs[0];
        assert!(
            head.message.contains("one decision for the project's tests of the CUDA toolkit's version: HIP defines none, so it takes their other side at 5 places in 2 files"),
            "{}",
            head.message
        );
        assert!(
            fs[4].message.contains("folded into `src/blas.cu:182`"),
            "{}",
            fs[4].message
        );
        assert!(
            fs[6].message.contains("folded into `src/sort.cu:10`"),
            "{}",
            fs[6].message
        );
    }

    /// A TensorFlow op library guards its GPU code with `#if GOOGLE_CUDA` in every file (TF's
    /// CUDA build switch, never defined by its ROCm build): one decision for the project. Twin:
    /// a project macro of the same shape (`MY_CUDA`) is not a framework switch and stays each
    /// file's own.
    #[test]
    fn a_frameworks_cuda_switch_is_one_decision() {
        let mut fs = vec![
            gate("#if GOOGLE_CUDA", "ops/a_op.cc", 18),
            gate("#if GOOGLE_CUDA", "ops/a_op_gpu.cu.cc", 16),
            gate("#if GOOGLE_CUDA", "layers/b_op.cc", 280),
            gate("#if MY_CUDA", "ops/a_op.cc", 30),
            gate("#if MY_CUDA", "layers/b_op.cc", 30),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        assert_eq!(
            open(&fs),
            [
                ("HP304", "ops/a_op.cc", 18),
                ("HP304", "ops/a_op.cc", 30),
                ("HP304", "layers/b_op.cc", 30)
            ]
        );
        assert!(
            fs[0]
                .message
                .contains("framework's CUDA build switch (`GOOGLE_CUDA`)")
                && fs[0].message.contains("3 places in 3 files"),
            "{}",
            fs[0].message
        );
    }

    /// nnabla-ext-cuda's allocator switch in three files is one decision; twins: the compound
    /// condition in one file only stays that file's, and a one-macro toolkit gate in two files
    /// is the project's toolkit decision, not this one.
    #[test]
    fn one_compound_condition_in_several_files_is_one_decision() {
        let vmm = "#if CUDA_VERSION >= 10020 && CUDNN_VERSION >= 8000";
        let mut fs = vec![
            gate(vmm, "include/cuda.hpp", 171),
            gate(
                "#if  CUDA_VERSION >= 10020 &&  CUDNN_VERSION >= 8000",
                "src/cuda.cpp",
                38,
            ),
            gate(vmm, "src/memory/vm.cpp", 18),
            gate("#if CUDA_VERSION >= 9000", "src/cublas.cpp", 24),
            gate("#if CUDA_VERSION >= 9000", "src/math.cu", 30),
            gate(
                "#if CUDA_VERSION >= 11000 && CUBLAS_VERSION >= 11600",
                "src/gemm.cu",
                5,
            ),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        let o = open(&fs);
        assert_eq!(o.len(), 3, "{o:?}");
        let head = &fs[0];
        assert!(
            head.message.contains("one decision for this condition, written alike in 3 files (`include/cuda.hpp:171`, `src/cuda.cpp:38`, `src/memory/vm.cpp:18`)"),
            "{}",
            head.message
        );
        assert!(fs[1].message.contains("folded into `include/cuda.hpp:171`"));
        assert_eq!(fs[3].status, Status::Remediation);
        assert!(
            fs[4].message.contains("folded into `src/cublas.cpp:24`"),
            "{}",
            fs[4].message
        );
        assert_eq!(fs[5].status, Status::Remediation);
    }

    /// A cuDNN version gate in a folder that uses cuDNN is part of the cuDNN decision; a
    /// cuBLAS one (hipBLAS keeps the API) is not.
    #[test]
    fn a_library_version_gate_is_part_of_the_librarys_use() {
        let mut fs = vec![
            Finding {
                status: Status::Remediation,
                message:
                    "`cudnnConvolutionForward`: MIOpen's equivalent needs a different call sequence"
                        .into(),
                ..Finding::bare("HP601", "fl/cudnn/Conv2D.cpp", 40)
            },
            gate("#if CUDNN_VERSION >= 7003", "fl/cudnn/BatchNorm.cpp", 59),
            gate("#if CUBLAS_VERSION >= 11600", "fl/cudnn/BatchNorm.cpp", 90),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        assert_eq!(fs[1].status, Status::Pass, "{}", fs[1].message);
        assert!(
            fs[1]
                .message
                .contains("folded into `fl/cudnn/Conv2D.cpp:40`"),
            "{}",
            fs[1].message
        );
        assert_eq!(fs[2].status, Status::Remediation);
    }

    /// stable-fast's cuBLAS folder: `CUDA_VERSION` and `CUDART_VERSION` tests in a header, its
    /// source and a caller are one decision; twins: the same test in another folder, and a
    /// test of another macro in the folder, are their own.
    #[test]
    fn one_folders_tests_of_the_toolkit_version_are_one_decision() {
        let t = |m: &str, path: &str, line: u32| {
            said(
                "HP301",
                Status::Remediation,
                path,
                line,
                &format!("`#if` on `{m}`: under HIP-Clang the condition is false"),
            )
        };
        let mut fs = vec![
            t("CUDA_VERSION", "ops/cublas/CUDABlas.h", 76),
            t("CUDART_VERSION", "ops/cublas/CUDABlas.h", 237),
            t("CUDA_VERSION", "ops/cublas/CUDABlas.cc", 648),
            t("CUDA_VERSION", "ops/cublas/gemm.cpp", 160),
            t("CUDA_VERSION", "ops/conv/conv.cpp", 10),
            t("NCCL_VERSION_CODE", "ops/cublas/gemm.cpp", 400),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        let o = open(&fs);
        assert_eq!(o.len(), 3, "{o:?}");
        assert!(
            fs[0].message.contains("one decision for the tests of the CUDA toolkit's version in `ops/cublas/`: HIP takes their other side at 4 places in 3 files"),
            "{}",
            fs[0].message
        );
        assert_eq!(fs[3].status, Status::Pass);
        assert_eq!(fs[4].status, Status::Remediation);
        assert_eq!(fs[5].status, Status::Remediation);
    }
}
