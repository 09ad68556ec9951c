//! One CUDA-only library the ROCm build leaves out, one decision. A project that switches a
//! CUDA library on where it is found (`NVBENCH_HAS_CUPTI`, `NVBENCH_HAS_NVML`) tests the switch
//! in many places; the ROCm build has no such library, so every test compiles its code out
//! (HP304, naming what disappears). What a porter decides is once per switch: port that code to
//! the ROCm counterpart (rocprofiler-sdk, AMD SMI, MIGraphX) or accept the feature's absence.
//! So the project's open HP304 findings on one such switch fold into the first, which counts the
//! places; the rest stay in JSON as PASS naming it.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// The switch an HP304 finding's condition tests, when it is a CUDA-only library's.
fn switch_of(f: &Finding) -> Option<String> {
    if f.rule != "HP304" {
        return None;
    }
    if let Some(name) = crate::rules::compiled_out::build_only_macro(f) {
        return Some(name.to_string());
    }
    crate::model::macro_env::library_switch_in(f.message.split('`').nth(1)?).map(str::to_string)
}

/// The decision per switch: every open HP304 on it, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| super::kind::own(&f.path).then(|| switch_of(f)).flatten()),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let name = switch_of(g.head).unwrap_or_default();
            format!(
                " — one decision for `{name}`: the ROCm build compiles out the code it guards in {} places of {} files (first at {}), {} more folded here; port that code to the ROCm counterpart or accept its absence",
                g.members.len(),
                g.files(),
                g.first_places(4),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            let name = switch_of(g.head).unwrap_or_default();
            super::kind::folded_into(g, &format!("the code `{name}` guards is one decision"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open_rules as open;
    use crate::gate::Status;

    fn site(cond: &str, path: &str, line: u32) -> Finding {
        Finding {
            status: Status::Remediation,
            message: format!(
                "`{cond}`: a current CUDA build compiles the `#ifdef` arm, HIP-Clang no arm"
            ),
            ..Finding::bare("HP304", path, line)
        }
    }

    /// nvbench's NVML switch in four places is one decision; twins: the CUPTI switch is its
    /// own, and CUDA version tests are no library switch (they are the project's toolkit-version
    /// decision).
    #[test]
    fn one_cuda_only_library_switch_is_one_decision() {
        let mut fs = vec![
            site("#ifdef NVBENCH_HAS_NVML", "nvbench/device_info.cu", 64),
            site("#ifndef NVBENCH_HAS_NVML", "nvbench/device_info.cu", 105),
            site("#ifdef NVBENCH_HAS_NVML", "nvbench/internal/nvml.cxx", 27),
            site("#ifdef NVBENCH_HAS_CUPTI", "nvbench/state.cu", 10),
            site("#if CUDART_VERSION >= 6050", "a.cu", 3),
            site("#if CUDART_VERSION >= 6050", "b.cu", 3),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        let o = open(&fs);
        assert_eq!(o.len(), 3, "{o:?}");
        assert!(o.iter().any(|f| f.1 == "a.cu"), "{o:?}");
        let head = fs.iter().find(|f| f.line == 64).unwrap();
        assert!(
            head.message.contains("one decision for `NVBENCH_HAS_NVML`: the ROCm build compiles out the code it guards in 3 places of 2 files"),
            "{}",
            head.message
        );
    }
}
