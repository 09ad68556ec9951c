//! One file's run-time compilation pipeline, one decision. A file that compiles kernels at run
//! time (NVRTC to PTX, the driver's JIT linker, `cuModuleLoadData` of the result) gets HP502 at
//! each module load, HP503 at each linker call and HP504 at each JIT option: arrayfire's
//! `compile_module.cpp` has ten. What a porter does is once per file: move the pipeline to
//! hiprtc (compile to an AMDGPU code object, link with `hiprtcLink*` where needed, load it with
//! `hipModuleLoadData`). So the file's open findings of these rules fold into the first
//! REMEDIATION one, which lists the calls and their lines; the rest stay in JSON as PASS naming
//! it.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// Module loads of NVIDIA images, the driver JIT linker, JIT options.
const MEMBERS: [&str; 3] = ["HP502", "HP503", "HP504"];

/// The decision per file: every open member in it, held by the first REMEDIATION one.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| MEMBERS.contains(&f.rule.as_str()).then(|| f.path.clone())),
        head: super::kind::first_remediation,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let mut names: Vec<String> = Vec::new();
            for f in &g.members {
                if let Some(n) = f.message.split('`').nth(1) {
                    let n = format!("`{n}`");
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
            let more = names.len().saturating_sub(6);
            names.truncate(6);
            let lines: Vec<String> = g.members.iter().map(|f| f.line.to_string()).collect();
            format!(
                " — one decision for this file's run-time compilation pipeline: {}{} (lines {}; {} more folded here); move it to hiprtc as a whole: compile to an AMDGPU code object, link with `hiprtcLink*` where needed, load with `hipModuleLoadData`",
                names.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() },
                lines.join(", "),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                "this file's run-time compilation pipeline is one decision",
            )
        }),
    }
}

/// The project's NVIDIA images (`.ptx`, `.cubin`, `.fatbin` files: HP910/HP911) where the
/// project loads modules at run time (HP502): the files are what the loader reads (less_slow's
/// `less_slow_sm80.ptx`, loaded by `cuModuleLoad`), so rebuilding them as AMDGPU code objects,
/// or rewriting their kernels, is the loader's decision. One group for the project, held by its
/// first module load; without a module load the images stay their own findings.
pub fn images(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            matches!(f.rule.as_str(), "HP502" | "HP910" | "HP911").then(|| "images".to_string())
        }),
        // Only where the project has image files: module loads alone are `kind`'s, per file.
        head: |m| {
            m.iter()
                .any(|f| f.rule != "HP502")
                .then(|| m.iter().position(|f| f.rule == "HP502"))
                .flatten()
        },
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let images: Vec<String> = g
                .members
                .iter()
                .filter(|f| f.rule != "HP502")
                .map(|f| format!("`{}`", f.path))
                .collect();
            let shown = images
                .iter()
                .take(4)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            let more = images.len().saturating_sub(4);
            format!(
                " — one decision for the NVIDIA images the project loads at run time: {} file{} ({}{}), {} more findings folded here; build each kernel as an AMDGPU code object (`hipcc --genco --offload-arch=gfx…`) or load HIP source with hiprtc, and load it with `hipModuleLoad`",
                images.len(),
                if images.len() == 1 { "" } else { "s" },
                shown,
                if more > 0 { format!(" and {more} more") } else { String::new() },
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                "the NVIDIA images the project loads at run time are one decision",
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{open_rules as open, said};
    use crate::gate::Status;

    fn at(rule: &str, status: Status, msg: &str, line: u32) -> Finding {
        said(rule, status, "src/compile_module.cpp", line, msg)
    }

    /// arrayfire's JIT options, linker calls and module loads in one file are one decision,
    /// held by the first REMEDIATION; twin: a module load in another file is its own.
    #[test]
    fn one_files_jit_pipeline_is_one_decision() {
        let mut fs = vec![
            at("HP504", Status::Unknown, "`CU_JIT_ERROR_LOG_BUFFER`: most driver JIT options are accepted but ignored by HIP", 311),
            at("HP503", Status::Remediation, "`cuLinkCreate`: the driver JIT linker takes PTX/cubin", 319),
            at("HP502", Status::Remediation, "`cuModuleLoadData` loads a cubin/fatbin image", 328),
            Finding {
                status: Status::Remediation,
                message: "`cuModuleLoadData` loads a cubin/fatbin image".into(),
                ..Finding::bare("HP502", "src/other.cpp", 9)
            },
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        assert_eq!(open(&fs).len(), 2, "{:?}", open(&fs));
        assert_eq!(fs[1].status, Status::Remediation);
        assert!(
            fs[1].message.contains("`CU_JIT_ERROR_LOG_BUFFER`, `cuLinkCreate`, `cuModuleLoadData` (lines 311, 319, 328; 2 more folded here)"),
            "{}",
            fs[1].message
        );
        assert_eq!(fs[0].status, Status::Pass);
        assert_eq!(fs[3].status, Status::Remediation);
    }

    /// less_slow: three hand-written `.ptx` files and the `cuModuleLoad` that reads them are
    /// one decision, held by the load. Twin: PTX files in a project that loads no module stay
    /// their own findings.
    #[test]
    fn images_a_project_loads_go_with_its_module_load() {
        let ptx = |p: &str| said("HP910", Status::Unknown, p, 1, "PTX file for sm_80");
        let mut fs = vec![
            said(
                "HP502",
                Status::Remediation,
                "less_slow.cpp",
                2625,
                "`cuModuleLoad` loads PTX",
            ),
            ptx("less_slow_sm70.ptx"),
            ptx("less_slow_sm80.ptx"),
        ];
        let k = images(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(open(&fs), [("HP502", "less_slow.cpp", 2625)]);
        assert!(fs[0]
            .message
            .contains("2 files (`less_slow_sm70.ptx`, `less_slow_sm80.ptx`)"));
        // Module loads in two files and no image: not this decision.
        let load = |p: &str| {
            said(
                "HP502",
                Status::Remediation,
                p,
                7,
                "`cuModuleLoad` loads PTX",
            )
        };
        let mut loads = vec![load("a.cpp"), load("b.cpp")];
        let k = images(&loads);
        crate::decisions::fold(&mut loads, &k);
        assert_eq!(open(&loads).len(), 2);
        let mut alone = vec![ptx("a.ptx"), ptx("b.ptx")];
        let k = images(&alone);
        crate::decisions::fold(&mut alone, &k);
        assert_eq!(open(&alone).len(), 2);
    }
}
