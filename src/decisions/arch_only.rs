//! A kernel file written for sm_90+/sm_100 only is one decision. A file built around Hopper's
//! TMA (`cp.async.bulk.tensor`, `CUtensorMap`), `wgmma`, thread-block clusters, `setmaxnreg`,
//! or Blackwell's `tcgen05` gives one finding per line — HP702 on each use, HP201 on each PTX
//! statement, HP001 on each tensor-map API, the 32-lane findings of its warp code — while a
//! porter takes one decision for the file: no ROCm equivalent exists for it as written, so
//! write a ROCm kernel for the same operation (Composable Kernel, rocWMMA, MFMA intrinsics) or
//! leave the file out of the ROCm build. Measured on held-out projects (SageAttention,
//! flashinfer), 20 of 162 sampled findings were such files read line by line.
//!
//! A use is an open HP702 finding (the Hopper-or-later features `rules::device_feature`
//! recognises) or an HP201 finding naming one of its PTX instruction classes; a programmatic
//! dependent-launch hint (`griddepcontrol`) is not one, since the kernel runs without it.
//!
//! A file is arch-only when at least [`MIN_USES`] of its open findings are uses and they are at
//! least one in [`SHARE`] of them, or when its path names an sm_90+ architecture (`*_sm90.cu`,
//! `sm100/`, `hopper/`: the author's own statement) and it has at least [`MIN_USES`] uses, open
//! or compiled out under HIP (a `wgmma` helper behind `#if __CUDA_ARCH__ >= 900` leaves only
//! the guards' HP401 findings open). Share, not mere presence, because the findings are all
//! the fold sees: one `wgmma` helper, a `CUtensorMap` typedef or a cluster launch attribute
//! among generic kernels leaves that file's generic kernels running on every other GPU, and
//! their findings (64-lane hazards, correctness) stay open; a file whose uses are a fifth of
//! its findings is built around them (measured on flashinfer: files with one leftover TMA
//! typedef sit at 2–6 %, the TMA/tcgen05 kernels at 19–100 %). Every open finding of an
//! arch-only file folds into its first HP702 finding (else its first use), which names the
//! features with their first lines and counts the rest by rule (with no open use, the file's
//! first open finding holds it).

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use crate::rules::device_feature::HOPPER_PTX;
use std::collections::{BTreeMap, BTreeSet};

/// The fewest uses that make a file arch-only.
pub const MIN_USES: usize = 2;
/// At least one finding in this many of a file's open findings is a use.
pub const SHARE: usize = 5;

/// The Hopper-or-later feature rule and the inline-PTX rule.
const HP702: &str = crate::rules::device_feature::HOPPER_ONLY_FEATURE.id.code;
const HP201: &str = crate::rules::inline_asm::INLINE_PTX.id.code;

/// PTX classes that are hints a kernel runs without (programmatic dependent launch).
const OPTIONAL: &[&str] = &["griddepcontrol"];

/// The backquoted names of a message, before any "(also flagged as …)" note.
fn names(message: &str) -> impl Iterator<Item = &str> {
    let text = message.split(" (also flagged").next().unwrap_or(message);
    text.split('`').skip(1).step_by(2)
}

/// The arch-only feature a finding reports, if it reports one: an HP702 finding's feature, or
/// the first sm_90+ PTX class an HP201 finding names.
fn feature(f: &Finding) -> Option<String> {
    match f.rule.as_str() {
        HP702 => {
            let n = names(&f.message).next()?;
            (!OPTIONAL.iter().any(|o| n.starts_with(o))).then(|| n.to_string())
        }
        HP201 => names(&f.message).find_map(|n| {
            HOPPER_PTX
                .iter()
                .find(|c| n.starts_with(**c) && !OPTIONAL.iter().any(|o| c.starts_with(o)))
                .map(|c| c.trim_end_matches('.').to_string())
        }),
        _ => None,
    }
}

/// Whether a path names an sm_90-or-later architecture: a part (split at `/ _ - .`) `sm90`,
/// `sm_90a`, `sm100`, `sm120f`…, `hopper` or `blackwell`.
fn path_names_arch(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split(['/', '_', '-', '.']).collect();
    let sm = |digits: &str| {
        let d: String = digits.chars().take_while(char::is_ascii_digit).collect();
        let rest = &digits[d.len()..];
        rest.len() <= 1 && d.parse::<u32>().is_ok_and(|n| (90..1000).contains(&n))
    };
    parts.iter().enumerate().any(|(i, p)| {
        *p == "hopper"
            || *p == "blackwell"
            || p.strip_prefix("sm").is_some_and(|d| !d.is_empty() && sm(d))
            || (*p == "sm" && parts.get(i + 1).is_some_and(|d| sm(d)))
    })
}

/// The arch-only-file decision: every open finding of a file built around sm_90+/sm_100
/// features, held by its first HP702 finding (else its first use).
pub fn kind(findings: &[Finding]) -> Kind {
    // Path → (open findings, open uses, every finding of the file, open or not).
    let mut per: BTreeMap<&str, (usize, usize, Vec<&Finding>)> = BTreeMap::new();
    for f in findings {
        let e = per.entry(f.path.as_str()).or_default();
        e.2.push(f);
        if f.status != Status::Pass {
            e.0 += 1;
            e.1 += usize::from(feature(f).is_some());
        }
    }
    // Arch-only file → its features with their first lines, compiled-out uses included.
    let files: BTreeMap<String, String> = per
        .into_iter()
        .filter(|(p, (open, uses, all))| {
            (*uses >= MIN_USES && uses * SHARE >= *open)
                || (*open > 0
                    && path_names_arch(p)
                    && all.iter().filter(|f| feature(f).is_some()).count() >= MIN_USES)
        })
        .map(|(p, (_, _, all))| (p.to_string(), first_uses(&all)))
        .collect();
    let keys: BTreeSet<String> = files.keys().cloned().collect();
    Kind {
        key: Box::new(move |f| keys.contains(&f.path).then(|| f.path.clone())),
        head: |m| {
            m.iter()
                .position(|f| f.rule == HP702 && feature(f).is_some())
                .or_else(|| m.iter().position(|f| feature(f).is_some()))
                .or(Some(0))
        },
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(move |g| {
            format!(
                " — one decision for this file: it is written for sm_90+/sm_100 GPUs only ({}); \
                 {} in this file ({}) belong to code only those GPUs run and are folded here. \
                 No ROCm equivalent exists for the file as written: write a ROCm \
                 kernel for the same operation (Composable Kernel, rocWMMA, MFMA intrinsics) or \
                 leave the file out of the ROCm build",
                files.get(g.key).map_or("", String::as_str),
                more(g.folded.len(), "finding"),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "this file runs only on sm_90+/sm_100 GPUs, one decision")
        }),
    }
}

/// "`CUtensorMap` line 31, `tcgen05` line 229": each feature with its first line, at most four,
/// then how many more features there are.
fn first_uses(members: &[&Finding]) -> String {
    let mut seen: Vec<(String, u32)> = Vec::new();
    for f in members {
        if let Some(n) = feature(f) {
            if !seen.iter().any(|(s, _)| *s == n) {
                seen.push((n, f.line));
            }
        }
    }
    let mut parts: Vec<String> = seen
        .iter()
        .take(4)
        .map(|(n, l)| format!("`{n}` line {l}"))
        .collect();
    if seen.len() > 4 {
        parts.push(more(seen.len() - 4, "feature"));
    }
    parts.join(", ")
}

/// "1 more finding", "3 more findings".
fn more(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 more {what}")
    } else {
        format!("{n} more {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open;

    fn f(rule: &str, path: &str, line: u32, msg: &str) -> Finding {
        Finding {
            message: msg.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    const TMA: &str = "`CUtensorMap` is a Hopper-or-later feature (clusters/TMA) with no AMD counterpart (also flagged as HP001 unported-api)";
    const TCGEN: &str = "inline PTX does not compile for AMDGPU: `elect.sync`, `tcgen05.mma.cta_group::1.kind::f16` (also flagged as HP702 hopper-only-feature)";
    const MMA: &str = "inline PTX does not compile for AMDGPU: `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`";
    const LANES: &str = "`/ 32` counts warps of 32 lanes";

    #[test]
    fn features_from_findings() {
        assert_eq!(
            feature(&f("HP702", "a.cu", 1, TMA)).as_deref(),
            Some("CUtensorMap")
        );
        assert_eq!(
            feature(&f("HP201", "a.cu", 1, TCGEN)).as_deref(),
            Some("elect.sync")
        );
        // Twins: sm_80 PTX, a dependent-launch hint, another rule.
        assert_eq!(feature(&f("HP201", "a.cu", 1, MMA)), None);
        let pdl = "PTX `griddepcontrol` is a Hopper-or-later feature with no AMD counterpart";
        assert_eq!(feature(&f("HP702", "a.cu", 1, pdl)), None);
        assert_eq!(feature(&f("HP102", "a.cu", 1, LANES)), None);
    }

    #[test]
    fn paths_naming_an_architecture() {
        for p in [
            "csrc/qattn/qk_sm90.cu",
            "k/sm_90a/gemm.cu",
            "fmha/hopper/tma.h",
            "x/sm100f-kernel.cuh",
            "a/sm120.cu",
        ] {
            assert!(path_names_arch(p), "{p}");
        }
        for p in [
            "csrc/sm80.cu",
            "sm/attn.cu",
            "smem.cu",
            "summa.cu",
            "sm_8x.cu",
        ] {
            assert!(!path_names_arch(p), "{p}");
        }
    }

    #[test]
    fn a_kernel_file_built_on_sm90_features_is_one_decision() {
        let mut fs = vec![
            f("HP702", "k/attn.cu", 31, TMA),
            f("HP201", "k/attn.cu", 200, MMA),
            f("HP201", "k/attn.cu", 229, TCGEN),
            f("HP102", "k/attn.cu", 501, LANES),
            f("HP201", "k/attn.cu", 600, MMA),
            // Another file, generic: untouched.
            f("HP102", "k/norm.cu", 7, LANES),
            f("HP102", "k/norm.cu", 9, LANES),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("k/attn.cu", 31), ("k/norm.cu", 7), ("k/norm.cu", 9)]
        );
        let head = &fs[0].message;
        assert!(
            head.contains("sm_90+/sm_100 GPUs only (`CUtensorMap` line 31, `elect.sync` line 229)"),
            "{head}"
        );
        assert!(
            head.contains("4 more findings in this file (HP201 ×3, HP102 ×1)"),
            "{head}"
        );
        assert!(fs[3].message.ends_with(
            "(folded into `k/attn.cu:31`: this file runs only on sm_90+/sm_100 GPUs, one decision)"
        ));
    }

    #[test]
    fn compiled_out_uses_count_only_where_the_path_names_the_architecture() {
        let out = "inline PTX does not compile for AMDGPU: `wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3` (compiled out under HIP: decided by `#if __CUDA_ARCH__ >= 900` (line 33)) (also flagged as HP702 hopper-only-feature)";
        let guard = "`#if` on `__CUDA_ARCH__` is false under HIP-Clang (undefined = 0): every AMD GPU compiles the fallback branch";
        let file = |path: &str| {
            vec![
                f("HP401", path, 33, guard),
                Finding {
                    status: Status::Pass,
                    ..f("HP201", path, 34, out)
                },
                f("HP401", path, 40, guard),
                Finding {
                    status: Status::Pass,
                    ..f("HP201", path, 41, out)
                },
            ]
        };
        let mut tagged = file("fmha/hopper/utils_gmma.h");
        let k = kind(&tagged);
        super::super::fold(&mut tagged, &k);
        // No open use: the first open finding holds the file, naming the compiled-out feature.
        assert_eq!(open(&tagged), [("fmha/hopper/utils_gmma.h", 33)]);
        assert!(
            tagged[0]
                .message
                .contains("GPUs only (`wgmma` line 34); 1 more finding in this file (HP401 ×1)"),
            "{}",
            tagged[0].message
        );
        // Twin: the same guards in a file whose path names no architecture stay open (a
        // generic header with guarded Hopper fast paths).
        let mut plain = file("fmha/utils_gmma.h");
        let k = kind(&plain);
        super::super::fold(&mut plain, &k);
        assert_eq!(open(&plain).len(), 2);
    }

    #[test]
    fn one_wgmma_helper_among_generic_kernels_keeps_them_open() {
        let wgmma = "inline PTX does not compile for AMDGPU: `wgmma.fence.sync.aligned` (also flagged as HP702 hopper-only-feature)";
        let mut fs = vec![
            f("HP201", "k/mixed.cu", 10, wgmma),
            f("HP201", "k/mixed.cu", 12, wgmma),
        ];
        fs.extend((0..10).map(|i| f("HP102", "k/mixed.cu", 100 + i, LANES)));
        // Two uses in twelve findings: below one in five, and the name says no architecture.
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(open(&fs).len(), 12);
        assert!(fs.iter().all(|x| !x.message.contains("one decision")));
        // The same file named for sm_90 is arch-only.
        for x in fs.iter_mut() {
            x.path = "k/mixed_sm90.cu".into();
        }
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(open(&fs), [("k/mixed_sm90.cu", 10)]);
        // A single use never makes a file arch-only, whatever its share.
        let mut one = vec![f("HP702", "k/t.cu", 1, TMA), f("HP102", "k/t.cu", 2, LANES)];
        let k = kind(&one);
        super::super::fold(&mut one, &k);
        assert_eq!(open(&one).len(), 2);
        // Two uses and nothing else: one decision, counted in the singular.
        let mut two = vec![f("HP702", "k/b.cu", 1, TMA), f("HP702", "k/b.cu", 5, TMA)];
        let k = kind(&two);
        super::super::fold(&mut two, &k);
        assert_eq!(open(&two), [("k/b.cu", 1)]);
        assert!(two[0]
            .message
            .contains("`CUtensorMap` line 1); 1 more finding in this file (HP702 ×1)"));
    }
}
