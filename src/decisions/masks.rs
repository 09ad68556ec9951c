//! One named mask, one decision. A project that spells its full warp mask once
//! (`#define FINAL_MASK 0xffffffff`) and passes the name to every shuffle gets HP103 at the
//! definition and again at each call (ByteTransformer's `reduce.h`: the definition and three
//! calls, labelled PARTLY as repeats in held-out set 42; how-to-optim and quip-sharp the same in
//! sets 43 and 45). The fix is one edit, the definition; every call that takes the name is right
//! after it. So the open HP103 uses of a name fold into the open HP103 on its definition, which
//! counts them. A name whose definition is not flagged (another project's header, a definition
//! the rules could not read) keeps its uses open: they are then the places to change.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// What the rule says on a definition: "`NAME` is a 32-bit full warp mask; …".
const DEFINITION: &str = "` is a 32-bit full warp mask";
/// What it says at a call: "32-bit full mask `NAME` in `__shfl_xor_sync`: …".
const USE: &str = "32-bit full mask `";

/// `n` when it is a C identifier.
fn identifier(n: &str) -> Option<String> {
    let ident = n
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ident.then(|| n.to_string())
}

/// The mask name an open HP103 finding is about, when it names one (not a literal).
fn name(f: &Finding) -> Option<String> {
    if f.rule != "HP103" {
        return None;
    }
    let n = if f.message.contains(DEFINITION) {
        f.message.split('`').nth(1)?
    } else {
        f.message.strip_prefix(USE)?.split('`').next()?
    };
    identifier(n)
}

/// The decision per named mask: held by its definition. A name defined (and flagged) in several
/// files is one decision per definition: the calls in a defining file take that file's, the
/// calls elsewhere the only definition when there is one (quip-sharp defines `FULL_MASK` in two
/// sources, one of which never uses it).
pub fn kind(findings: &[Finding]) -> Kind {
    let mut defined: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for f in findings
        .iter()
        .filter(|f| f.status != crate::gate::Status::Pass && f.message.contains(DEFINITION))
    {
        if let Some(n) = name(f) {
            defined.entry(n).or_default().push(f.path.clone());
        }
    }
    Kind {
        key: Box::new(move |f| {
            // A narrow-mask call (HP015) passing a name whose definition this file flags is
            // the same edit: CV-CUDA's `unsigned mask = 0xFFFFFFFFU;` then `__shfl_down_sync(mask, …)`.
            let n = name(f).or_else(|| {
                narrow_name(f).filter(|n| defined.get(n).is_some_and(|p| p.contains(&f.path)))
            })?;
            let paths = defined.get(&n)?;
            let at = if paths.contains(&f.path) {
                f.path.clone()
            } else if paths.len() == 1 {
                paths[0].clone()
            } else {
                return None;
            };
            Some(format!("{n}\u{0}{at}"))
        }),
        head: |m| m.iter().position(|f| f.message.contains(DEFINITION)),
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let n = name(g.head).unwrap_or_default();
            format!(
                " — one decision for the mask `{n}`: {} call{} passing it ({}) {} folded here; \
                 widen the definition and every call that takes it is right",
                g.folded.len(),
                if g.folded.len() == 1 { "" } else { "s" },
                g.folded
                    .iter()
                    .take(4)
                    .map(|f| format!("`{}:{}`", f.path, f.line))
                    .collect::<Vec<_>>()
                    .join(", "),
                if g.folded.len() == 1 { "is" } else { "are" },
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the mask is widened once, where it is defined")
        }),
    }
}

/// The helper an open HP015 finding's 32-bit mask is returned by: "`mmha::shfl_mask(n)` is a
/// 32-bit mask of `__shfl_xor_sync`: …" names `shfl_mask`.
fn helper(f: &Finding) -> Option<String> {
    if f.rule != "HP015" {
        return None;
    }
    let text = f.message.strip_prefix('`')?.split('`').next()?;
    let (callee, _) = text.split_once('(')?;
    if !text.ends_with(')') {
        return None;
    }
    let n = callee.rsplit("::").next()?.trim();
    identifier(n)
}

/// One helper returning a 32-bit mask, one decision (omniserve's `mmha::shfl_mask(n)`, passed
/// to 41 shuffles over six copies of its attention templates): the change is the helper's
/// return type and what it names on a 64-lane wavefront, so its calls fold into the first.
pub fn helper_kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| helper(f).map(|n| format!("{n}()"))),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let n = helper(g.head).unwrap_or_default();
            format!(
                " — one decision for the helper `{n}`, which returns the 32-bit mask: {} more call{} passing it ({}{}) {} folded here; return a 64-bit mask of the lanes that run each call from the helper",
                g.folded.len(),
                if g.folded.len() == 1 { "" } else { "s" },
                g.folded
                    .iter()
                    .take(3)
                    .map(|f| format!("`{}:{}`", f.path, f.line))
                    .collect::<Vec<_>>()
                    .join(", "),
                if g.folded.len() > 3 { ", …" } else { "" },
                if g.folded.len() == 1 { "is" } else { "are" },
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the helper that returns the mask is changed once")
        }),
    }
}

/// One narrow mask variable, one decision. A kernel that computes a 32-bit group mask once
/// (`int groupMask = 15 << ((threadIdx.x & 31) & ~3);`, stylegan3's `filtered_lrelu.cu` copied
/// into eg3d) and passes it to every shuffle of a sign-packing loop gets HP015 at each call
/// (twelve there). The change is the variable's type and value, once; the calls follow. So a
/// file's open HP015 findings on the same mask name fold into the first, which counts and lists
/// them; literals and expressions stay per call.
///
/// A name that carries the narrow mask in [`PROJECT_FILES`] or more files of the project's own
/// code is the project's convention, one decision across them: CGBN declares `uint32_t
/// sync=sync_mask()` in each of 25 files of its core (one HP015 head per file before). Fewer
/// files keep one decision each (a `mask` of two unrelated kernels).
pub fn narrow_kind(findings: &[Finding]) -> Kind {
    let mut files: std::collections::BTreeMap<String, std::collections::BTreeSet<&str>> =
        Default::default();
    for f in findings {
        if let Some(n) = narrow_name(f) {
            files.entry(n).or_default().insert(f.path.as_str());
        }
    }
    let wide: std::collections::BTreeSet<String> = files
        .into_iter()
        .filter(|(_, p)| p.len() >= PROJECT_FILES)
        .map(|(n, _)| n)
        .collect();
    Kind {
        key: Box::new(move |f| {
            let n = narrow_name(f)?;
            let unit = if wide.contains(&n) {
                ""
            } else {
                f.path.as_str()
            };
            Some(format!("{unit}\u{0}{n}"))
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let name = g.key.split('\u{0}').nth(1).unwrap_or("");
            if g.key.starts_with('\u{0}') {
                return format!(
                    " — one decision for the mask `{name}`, the project's 32-bit group mask in {} files (first at {}): widen it where it is computed (64-bit, the lanes of the caller's own group) and in each declaration; {} more call{} folded here",
                    g.files(),
                    g.first_places(4),
                    g.folded.len(),
                    if g.folded.len() == 1 { "" } else { "s" },
                );
            }
            let lines: Vec<String> = g.folded.iter().map(|f| f.line.to_string()).collect();
            format!(
                " — one decision for the mask `{name}`: widen it where it is computed (64-bit, the lanes of the caller's own group); {} more call{} passing it (line{} {}) folded here",
                g.folded.len(),
                if g.folded.len() == 1 { "" } else { "s" },
                if g.folded.len() == 1 { "" } else { "s" },
                lines.join(", ")
            )
        }),
        note: Box::new(|g| {
            let name = g.key.split('\u{0}').nth(1).unwrap_or("");
            super::kind::folded_into(g, &format!("the mask `{name}` is one change"))
        }),
    }
}

/// How many files of the project's own code make a narrow mask name its convention.
const PROJECT_FILES: usize = 3;

/// The variable an open HP015 finding of the project's own code passes, when it is one name.
fn narrow_name(f: &Finding) -> Option<String> {
    if f.rule != "HP015" || f.status == crate::gate::Status::Pass || !super::kind::own(&f.path) {
        return None;
    }
    identifier(f.excerpt.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Status;

    fn f(path: &str, line: u32, message: &str) -> Finding {
        Finding {
            status: Status::Remediation,
            message: message.into(),
            ..Finding::bare("HP103", path, line)
        }
    }

    /// Folds `fs` by this kind; the places left open.
    fn fold_open(fs: &mut [Finding]) -> Vec<String> {
        let k = kind(fs);
        crate::decisions::fold(fs, &k);
        fs.iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| format!("{}:{}", x.path, x.line))
            .collect()
    }

    /// CV-CUDA: `unsigned mask = 0xFFFFFFFFU;` (HP103 at the definition) passed to
    /// `__shfl_down_sync(mask, …)` (HP015 at the call) is one edit; the decision takes the
    /// call's phase (the build stops there). Twin: the same name in a file that does not define
    /// it keeps its own finding.
    #[test]
    fn narrow_calls_passing_a_flagged_definition_fold_into_it() {
        let call = |path: &str, line: u32| Finding {
            status: Status::Remediation,
            phase: crate::gate::Phase::Build,
            excerpt: "mask".into(),
            message: "`mask` is a 32-bit mask of `__shfl_down_sync`".into(),
            ..Finding::bare("HP015", path, line)
        };
        let mut fs = vec![
            Finding {
                phase: crate::gate::Phase::Correctness,
                ..f(
                    "OpFindHomography.cu",
                    387,
                    "`mask` is a 32-bit full warp mask; HIP masks are 64-bit",
                )
            },
            call("OpFindHomography.cu", 396),
            call("OpFindHomography.cu", 406),
            call("OpOther.cu", 12),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        let open: Vec<(&str, u32)> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.as_str(), x.line))
            .collect();
        assert_eq!(open, [("OpFindHomography.cu", 387), ("OpOther.cu", 12)]);
        assert_eq!(fs[0].phase, crate::gate::Phase::Build);
        assert!(
            fs[0].message.contains("2 calls passing it"),
            "{}",
            fs[0].message
        );
    }

    /// ByteTransformer's `FINAL_MASK`: the definition holds its calls, in this file and another.
    /// Twins: a name with no flagged definition keeps its calls open, and a literal mask is
    /// nobody's decision.
    #[test]
    fn the_calls_passing_a_named_mask_fold_into_its_definition() {
        let mut fs = vec![
            f(
                "reduce.h",
                24,
                "`FINAL_MASK` is a 32-bit full warp mask; HIP masks are 64-bit",
            ),
            f(
                "reduce.h",
                35,
                "32-bit full mask `FINAL_MASK` in `__shfl_xor_sync`: HIP masks are 64-bit",
            ),
            f(
                "softmax.h",
                57,
                "32-bit full mask `FINAL_MASK` in `__shfl_xor_sync`: HIP masks are 64-bit",
            ),
            f(
                "other.cu",
                9,
                "32-bit full mask `FULL` in `__shfl_sync`: HIP masks are 64-bit",
            ),
            f(
                "other.cu",
                12,
                "32-bit full mask `FULL` in `__ballot_sync`: HIP masks are 64-bit",
            ),
            f(
                "lit.cu",
                3,
                "32-bit full mask `0xffffffffu` in `__shfl_sync`: HIP masks are 64-bit",
            ),
        ];
        let open = fold_open(&mut fs);
        assert_eq!(
            open,
            ["reduce.h:24", "other.cu:9", "other.cu:12", "lit.cu:3"]
        );
        assert!(
            fs[0]
                .message
                .contains("2 calls passing it (`reduce.h:35`, `softmax.h:57`) are folded here"),
            "{}",
            fs[0].message
        );
        // quip-sharp: the name defined in two files, one of which never uses it; the calls take
        // their own file's definition, and the unused one stays alone.
        let mut fs = vec![
            f(
                "quiptools.cu",
                25,
                "`FULL_MASK` is a 32-bit full warp mask; HIP masks are 64-bit",
            ),
            f(
                "gemv.cu",
                27,
                "`FULL_MASK` is a 32-bit full warp mask; HIP masks are 64-bit",
            ),
            f(
                "gemv.cu",
                152,
                "32-bit full mask `FULL_MASK` in `__shfl_sync`: HIP masks are 64-bit",
            ),
        ];
        let open = fold_open(&mut fs);
        assert_eq!(open, ["quiptools.cu:25", "gemv.cu:27"]);
        assert_eq!(fs[2].folded_into.as_ref().unwrap().at, "gemv.cu:27");
    }

    /// eg3d's `filtered_lrelu.cu`: the calls passing one narrow mask variable are one decision.
    /// Twins: another variable, the same name in another file, and a literal stay apart.
    #[test]
    fn calls_passing_one_narrow_mask_variable_are_one_decision() {
        let narrow = |path: &str, line: u32, code: &str| Finding {
            status: Status::Remediation,
            message: format!("`{code}` is a 32-bit mask of `__shfl_xor_sync`"),
            excerpt: code.into(),
            ..Finding::bare("HP015", path, line)
        };
        let mut fs = vec![
            narrow("k.cu", 516, "groupMask"),
            narrow("k.cu", 517, "groupMask"),
            narrow("k.cu", 547, "groupMask"),
            narrow("k.cu", 1157, "m"),
            narrow("other.cu", 9, "groupMask"),
            narrow("k.cu", 1200, "0xffffu"),
            narrow("k.cu", 1201, "0xffffu"),
        ];
        let k = narrow_kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            crate::decisions::test_support::open(&fs),
            [
                ("k.cu", 516),
                ("k.cu", 1157),
                ("other.cu", 9),
                ("k.cu", 1200),
                ("k.cu", 1201)
            ]
        );
        assert!(
            fs[0]
                .message
                .contains("2 more calls passing it (lines 517, 547)"),
            "{}",
            fs[0].message
        );
    }

    /// CGBN's `sync`: one narrow group mask declared the same way in many files is one decision
    /// across them. Twin: a name in two files stays one decision per file.
    #[test]
    fn a_narrow_mask_name_in_many_files_is_one_decision() {
        let narrow = |path: &str, line: u32, code: &str| Finding {
            status: Status::Remediation,
            message: format!("`{code}` is a 32-bit mask of `__shfl_sync`"),
            excerpt: code.into(),
            ..Finding::bare("HP015", path, line)
        };
        let mut fs = vec![
            narrow("core/a.cu", 30, "sync"),
            narrow("core/a.cu", 31, "sync"),
            narrow("core/b.cu", 40, "sync"),
            narrow("core/c.cu", 50, "sync"),
            narrow("x.cu", 1, "mask"),
            narrow("x.cu", 2, "mask"),
            narrow("y.cu", 1, "mask"),
            narrow("y.cu", 2, "mask"),
        ];
        let k = narrow_kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            crate::decisions::test_support::open(&fs),
            [("core/a.cu", 30), ("x.cu", 1), ("y.cu", 1)]
        );
        assert!(fs[0].message.contains("in 3 files"), "{}", fs[0].message);
        assert!(fs[3].message.contains("folded into `core/a.cu:30`"));
    }
}

/// What HP106 says of a ballot taken through a project macro: "…, taken through the project's
/// ballot wrapper `BALLOT`, defined at …".
pub const THROUGH_MACRO: &str = "taken through the project's ballot wrapper `";

/// The ballot macro an open HP106 finding takes its mask through.
fn ballot_macro(f: &Finding) -> Option<String> {
    if f.rule != "HP106" {
        return None;
    }
    let (_, rest) = f.message.split_once(THROUGH_MACRO)?;
    identifier(rest.split('`').next()?)
}

/// One ballot macro, one decision. A project that takes its ballots through one macro
/// (gpu-voxels' `#define BALLOT(PREDICATE) __ballot_sync(FULL_MASK, PREDICATE)`, used in 27
/// places, each kept in a `uint32_t`) has one choice to make: where its lanes are 32-lane
/// logical warps the macro itself returns the lane's own half of the wavefront's ballot, one
/// edit; where they span the wavefront each use is widened. So the project's open HP106 through
/// one macro fold into the first, which counts and places them.
pub fn ballot_macro_kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| super::kind::own(&f.path).then(|| ballot_macro(f)).flatten()),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the ballot wrapper `{}`, whose wavefront ballot {} places keep in 32 bits ({}, first at {}): where the lanes work as 32-lane warps make the wrapper return the lane's own half, `((unsigned int)(__ballot(P) >> (__lane_id() & 32)))`, one edit; where they span the wavefront widen each use to 64 bits; {} more folded here",
                g.key,
                g.members.len(),
                match g.files() {
                    1 => "one file".to_string(),
                    n => format!("{n} files"),
                },
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's ballot wrapper is one decision")
        }),
    }
}

#[cfg(test)]
mod ballot_macro_tests {
    use crate::decisions::test_support::{open, said};
    use crate::finding::Finding;
    use crate::gate::Status;

    fn hp106(path: &str, line: u32, macro_name: &str) -> Finding {
        let m = format!(
            "`v` keeps a wavefront mask in 32 bits, {}{macro_name}`, defined at h.h:1: AMD masks are 64-bit",
            super::THROUGH_MACRO
        );
        said("HP106", Status::Remediation, path, line, &m)
    }

    /// Uses of one ballot macro in two files are one decision; another macro's use and a
    /// direct ballot stay open.
    #[test]
    fn uses_of_one_ballot_macro_are_one_decision() {
        let mut fs = vec![
            hp106("a.cu", 3, "BALLOT"),
            hp106("b.cu", 9, "BALLOT"),
            hp106("b.cu", 12, "VOTE"),
            said(
                "HP106",
                Status::Remediation,
                "c.cu",
                4,
                "`v` keeps a wavefront mask in 32 bits",
            ),
        ];
        crate::decisions::fold_all(&mut fs, &[]);
        assert_eq!(open(&fs), [("a.cu", 3), ("b.cu", 12), ("c.cu", 4)]);
        assert!(fs[0]
            .message
            .contains("one decision for the ballot wrapper `BALLOT`"));
        assert!(fs[1].message.contains("folded into `a.cu:3`"));
    }
}
