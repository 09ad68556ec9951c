//! A project's FP8 encoding is one decision. HP709 fires on every use of CUDA's FP8 types and
//! conversions (`__nv_fp8_e4m3`, `__nv_cvt_float_to_fp8`, `CUDA_R_8F_E4M3`): a project that
//! quantises to FP8 gives hundreds of them (NVIDIA/FasterTransformer: ~700, one per
//! `__nv_fp8_e4m3` use). What a porter decides is once for the project: which FP8 type each
//! AMD target gets (OCP `__hip_fp8_e4m3` on gfx950/gfx12, FNUZ `__hip_fp8_e4m3_fnuz` on
//! gfx942/MI300, with its other exponent bias, no infinities and one NaN) and how scales and
//! max values follow; once decided, each use is a mechanical edit.
//!
//! So every open HP709 finding of the project is folded into the first in report order, which
//! says how many uses it holds, of which names, in how many files, and where the first ones
//! are; every folded finding stays in JSON/SARIF as PASS naming it. A single use is left as it
//! is. The key is the project, not a top-level component: the encoding of stored data and
//! scales is one convention the components share (one checkpoint format, one scale layout).
//!
//! Only the project's own FP8 uses are its decision: uses in a vendored library
//! (`rules::vendored`) or in a folder the project marks as not maintained
//! ([`super::unmaintained`]) belong to those decisions, whose head may itself be an HP709
//! finding left open, and are never members here. Uses in a kernel file only sm_90+/sm_100
//! GPUs run are folded into that file before this kind applies ([`super::fold_all`] applies it
//! last).

use super::kind::{Group, Kind, Min};
use crate::finding::Finding;

/// The FP8-format rule.
const HP709: &str = crate::rules::device_feature::FP8_FORMAT.id.code;

/// How many names and first places the head's message lists.
const SHOWN: usize = 4;

/// The FP8 name a finding reports (its first backquoted name).
fn name(f: &Finding) -> Option<&str> {
    f.message.split('`').nth(1)
}

/// "`__nv_fp8_e4m3` ×444, `__NV_E4M3` ×19, 3 more names": the names, most frequent first (ties
/// in order of first use), at most [`SHOWN`].
fn by_name(g: &Group) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for n in g.members.iter().filter_map(|f| name(f)) {
        match counts.iter_mut().find(|(s, _)| *s == n) {
            Some((_, c)) => *c += 1,
            None => counts.push((n, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let mut parts: Vec<String> = counts
        .iter()
        .take(SHOWN)
        .map(|(n, c)| format!("`{n}` ×{c}"))
        .collect();
    if counts.len() > SHOWN {
        let rest = counts.len() - SHOWN;
        parts.push(format!(
            "{rest} more name{}",
            if rest == 1 { "" } else { "s" }
        ));
    }
    parts.join(", ")
}

/// The FP8-encoding decision: the project's open HP709 findings, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| (f.rule == HP709 && super::kind::own(&f.path)).then(String::new)),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the project's FP8 encoding: {} uses in {} files ({}; first \
                 at {}), {} more folded here. Choose the FP8 type per AMD target once (OCP \
                 `__hip_fp8_e4m3` on gfx950/gfx12, FNUZ `__hip_fp8_e4m3_fnuz` on gfx942) and \
                 adjust scales and max values to it",
                g.members.len(),
                g.files(),
                by_name(g),
                g.first_places(SHOWN),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's FP8 encoding is one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Status;

    /// This decision alone, as the scan applies it.
    fn fold(findings: &mut [Finding]) {
        let k = kind(findings);
        super::super::fold(findings, &k);
    }

    fn use_of(name: &str, path: &str, line: u32) -> Finding {
        Finding {
            message: format!(
                "`{name}`: FP8 on AMD is OCP or FNUZ depending on the GPU (gfx942 uses FNUZ)"
            ),
            ..Finding::bare("HP709", path, line)
        }
    }

    fn other(path: &str, line: u32) -> Finding {
        Finding {
            message: "m".into(),
            ..Finding::bare("HP102", path, line)
        }
    }

    use crate::decisions::test_support::open_rules as open;

    #[test]
    fn fp8_uses_in_several_files_are_one_decision() {
        let mut fs = vec![
            use_of("__nv_fp8_e4m3", "src/quant.cu", 3),
            other("src/quant.cu", 4),
            use_of("__nv_fp8_e4m3", "src/quant.cu", 9),
            use_of("__NV_E4M3", "src/gemm.cu", 12),
            use_of("__nv_fp8_e4m3", "tests/t.cu", 5),
            use_of("__nv_fp8_e5m2", "tests/t.cu", 6),
            // Already PASS (compiled out): not a member, not touched.
            Finding {
                status: Status::Pass,
                ..use_of("__nv_fp8_e4m3", "src/old.cu", 1)
            },
        ];
        fold(&mut fs);
        assert_eq!(
            open(&fs),
            [("HP709", "src/quant.cu", 3), ("HP102", "src/quant.cu", 4)]
        );
        let head = &fs[0].message;
        assert!(
            head.contains(
                "one decision for the project's FP8 encoding: 5 uses in 3 files \
                 (`__nv_fp8_e4m3` ×3, `__NV_E4M3` ×1, `__nv_fp8_e5m2` ×1; first at \
                 `src/quant.cu:3`, `src/gemm.cu:12`, `tests/t.cu:5`), 4 more folded here"
            ),
            "{head}"
        );
        assert_eq!(fs[0].status, Status::Remediation);
        for i in [2, 3, 4, 5] {
            assert!(fs[i].message.ends_with(
                "(folded into `src/quant.cu:3`: the project's FP8 encoding is one decision)"
            ));
        }
        assert_eq!(fs[1].message, "m");
        assert!(!fs[6].message.contains("folded"));
    }

    #[test]
    fn fp8_uses_of_a_vendored_library_or_a_legacy_folder_are_not_the_projects() {
        let mut fs = vec![
            use_of("__nv_fp8_e4m3", "third_party/lib/a.cuh", 1),
            use_of("__nv_fp8_e4m3", "legacy/b.cu", 2),
            use_of("__nv_fp8_e4m3", "src/c.cu", 3),
            use_of("__nv_fp8_e4m3", "src/d.cu", 4),
        ];
        fold(&mut fs);
        assert_eq!(
            open(&fs),
            [
                ("HP709", "third_party/lib/a.cuh", 1),
                ("HP709", "legacy/b.cu", 2),
                ("HP709", "src/c.cu", 3)
            ]
        );
        assert!(fs[3].message.contains("folded into `src/c.cu:3`"));
    }

    #[test]
    fn a_single_fp8_use_stays_as_it_is() {
        let mut fs = vec![
            use_of("__nv_fp8_e4m3", "src/quant.cu", 3),
            other("src/quant.cu", 4),
            other("src/gemm.cu", 4),
        ];
        let before = fs.clone();
        fold(&mut fs);
        assert_eq!(fs, before);
    }

    #[test]
    fn many_names_are_counted_past_the_shown_ones() {
        let names = ["a", "b", "c", "d", "e", "f"];
        let mut fs: Vec<Finding> = names
            .iter()
            .enumerate()
            .map(|(i, n)| use_of(n, "k.cu", i as u32 + 1))
            .collect();
        fold(&mut fs);
        assert!(
            fs[0]
                .message
                .contains("`d` ×1, 2 more names; first at `k.cu:1`)"),
            "{}",
            fs[0].message
        );
    }
}
