//! One PTX instruction family in one file, one decision. A file of PTX wrappers (lmdeploy's
//! `gemm/cp_async.h`: sixteen functions, each an `asm volatile` of `cp.async.cg.shared.global`
//! with a different size or cache hint) has one HP201 per wrapper. A porter rewrites the family
//! once with one technique (plain loads into LDS, a builtin, an AMD instruction) and applies it
//! to every wrapper: so a file's open HP201 findings whose main instruction is of the same
//! family (`cp.async`, `bar.sync`: the first two parts of the name; loads and stores of one
//! state space, `ld/st.shared`; approximate math, `tanh.approx` to `ex2.approx`; predicate
//! plumbing such as `setp`, `mov`, `bra` does not count) fold into the first, which names the
//! family, the functions and the lines; the rest stay in JSON as PASS naming it.

use super::kind::{Kind, Min};
use crate::finding::Finding;

const PTX: &str = "inline PTX does not compile for AMDGPU: ";

/// The main instruction family an HP201 names (`cp.async` for `setp.ne.b32`,
/// `cp.async.cg.shared.global`).
fn family(f: &Finding) -> Option<String> {
    let (_, rest) = f.message.split_once(PTX)?;
    let list = rest.split(" (").next().unwrap_or(rest);
    let list = list.split(" —").next().unwrap_or(list);
    list.split(", ")
        .map(|n| n.trim_matches('`'))
        .find(|n| {
            let op = n.split('.').next().unwrap_or("");
            !matches!(op, "" | "setp" | "mov" | "bra" | "selp" | "cvta")
        })
        .map(|n| {
            // Approximate math (`tanh.approx.f32`, `rcp.approx.ftz.f32`, `ex2.approx…`) is
            // one technique on AMD: HIP's fast-math intrinsics or `__builtin_amdgcn_*`.
            if n.split('.').any(|q| q == "approx") {
                return "approximate math (`.approx`)".to_string();
            }
            if multiword(n) {
                return MULTIWORD.to_string();
            }
            let mut parts = n.split('.');
            let op = parts.next().unwrap_or("");
            // Loads and stores of one state space (`ld.shared.v2.b32`, `st.shared.v2.b32`) are
            // one rewrite: plain C++ accesses of that memory.
            if let ("ld" | "st", Some(space @ ("shared" | "global" | "local" | "const"))) =
                (op, n.split('.').nth(1))
            {
                return format!("ld/st.{space}");
            }
            // `cp.async`, `ld.global`, `bar.sync`; but `cvt.f32.f16` and `add.rn.f32` are
            // `cvt` and `add` (a type, rounding or width qualifier is not a family).
            match parts.next() {
                Some(q) if !q.is_empty() && !qualifier(q) => format!("{op}.{q}"),
                _ => op.to_string(),
            }
        })
}

/// The family of multi-word integer arithmetic.
const MULTIWORD: &str = "multi-word integer arithmetic (`add.cc`/`addc`, `mul.hi`)";

/// An instruction of multi-word integer arithmetic: one that sets or reads the carry flag
/// (`add.cc.u64`, `addc.u32`, `subc.cc`, `mad.hi.cc.u64`, `madc.lo.u32`), whose asm statements
/// pass the flag between them and are rewritten together (AMD has no PTX carry flag: wide
/// integers or `__builtin_*_overflow` carry it), or an integer multiply's high or low half
/// (`mul.hi.u64`, `mad.lo.u32`) that such arithmetic is built from.
fn multiword(n: &str) -> bool {
    let mut parts = n.split('.');
    let op = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    let integer = rest.iter().any(|q| {
        matches!(q.as_bytes().first(), Some(b'u' | b's'))
            && q.len() > 1
            && q[1..].bytes().all(|b| b.is_ascii_digit())
    });
    matches!(op, "addc" | "subc" | "madc")
        || rest.contains(&"cc")
        || matches!(op, "mul" | "mad") && integer && rest.iter().any(|q| matches!(*q, "hi" | "lo"))
}

/// A PTX type, rounding, saturation or approximation qualifier (`f32`, `bf16x2`, `u64`, `rn`).
fn qualifier(q: &str) -> bool {
    let typed = q.len() > 1
        && matches!(q.as_bytes()[0], b'f' | b'u' | b's' | b'b' | b'e')
        && q[1..].starts_with(|c: char| c.is_ascii_digit());
    typed
        || q.starts_with("bf16")
        || matches!(
            q,
            "rn" | "rz"
                | "rm"
                | "rp"
                | "rni"
                | "rzi"
                | "approx"
                | "sat"
                | "ftz"
                | "full"
                | "lo"
                | "hi"
                | "wide"
        )
}

/// The function an HP201 names (`… (in `f`)`), if any.
fn function(f: &Finding) -> Option<&str> {
    let (_, rest) = f.message.split_once("(in `")?;
    rest.split('`').next()
}

/// A family as a message names it: an instruction in backquotes (`` `cp.async` ``), a described
/// family (which quotes its own instructions) as it is.
fn quoted(fam: &str) -> String {
    if fam.contains('`') {
        fam.to_string()
    } else {
        format!("`{fam}`")
    }
}

fn key(f: &Finding) -> Option<String> {
    (f.rule == "HP201" && super::kind::own(&f.path))
        .then(|| family(f).map(|fam| format!("{}\u{0}{fam}", f.path)))
        .flatten()
}

/// The decision per file and family, held by the first use.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(3),
        summary: Box::new(|g| {
            let fam = g.key.split('\u{0}').nth(1).unwrap_or("");
            let mut names: Vec<&str> = g.members.iter().filter_map(|f| function(f)).collect();
            names.sort_unstable();
            names.dedup();
            let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
            let more = if names.len() > shown.len() {
                ", …"
            } else {
                ""
            };
            let lines: Vec<String> = g.members.iter().map(|f| f.line.to_string()).collect();
            let funcs = if shown.is_empty() {
                String::new()
            } else {
                format!(
                    " in {} function{} ({}{more})",
                    names.len(),
                    if names.len() == 1 { "" } else { "s" },
                    shown.join(", ")
                )
            };
            format!(
                " — one decision for {} in this file: {} uses{funcs}, lines {}; rewrite the family once for AMD and apply it to each ({} more folded here)",
                quoted(fam),
                g.members.len(),
                lines.join(", "),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            let fam = g.key.split('\u{0}').nth(1).unwrap_or("");
            super::kind::folded_into(g, &format!("{} in this file is one rewrite", quoted(fam)))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open;

    fn ptx(path: &str, line: u32, list: &str, func: &str) -> Finding {
        Finding {
            message: format!("{PTX}{list} (in `{func}`)"),
            ..Finding::bare("HP201", path, line)
        }
    }

    #[test]
    fn one_instruction_family_in_one_file_is_one_decision() {
        let mut fs = vec![
            ptx(
                "gemm/cp_async.h",
                72,
                "`setp.ne.b32`, `cp.async.cg.shared.global`",
                "cp_async_cg_A",
            ),
            ptx(
                "gemm/cp_async.h",
                78,
                "`setp.ne.b32`, `cp.async.cg.shared.global.L2::cache_hint`",
                "cp_async_cg_A",
            ),
            ptx(
                "gemm/cp_async.h",
                90,
                "`setp.ne.b32`, `cp.async.cg.shared.global`",
                "cp_async_cg_B",
            ),
            // Another family in the same file, and the same family in another file; a type
            // qualifier is not a family (`cvt.f32.f16` and `cvt.rn.bf16.f32` are both `cvt`).
            ptx("gemm/cvt.h", 1, "`cvt.f32.f16`", "a"),
            ptx("gemm/cvt.h", 2, "`cvt.rn.bf16.f32`", "b"),
            ptx("gemm/cvt.h", 3, "`cvt.f16.f32`", "c"),
            ptx(
                "gemm/cp_async.h",
                120,
                "`ldmatrix.sync.aligned.m8n8.x4.shared.b16`",
                "ldsm",
            ),
            ptx("core/sync.h", 5, "`cp.async.wait_all`", "wait"),
        ];
        super::super::fold(&mut fs, &kind(&[]));
        assert_eq!(
            open(&fs),
            [
                ("gemm/cp_async.h", 72),
                ("gemm/cvt.h", 1),
                ("gemm/cp_async.h", 120),
                ("core/sync.h", 5)
            ]
        );
        let m = &fs[0].message;
        assert!(
            m.contains("one decision for `cp.async` in this file: 3 uses in 2 functions"),
            "{m}"
        );
        assert!(fs[1]
            .message
            .contains("`cp.async` in this file is one rewrite"));
    }

    /// VanitySearch's `GPUMath.h`: one macro per carry-chain instruction (`UADDO` `add.cc.u64`,
    /// `UADDC` `addc.cc.u64`, `USUB` `subc.u64`, `UMULHI` `mul.hi.u64`, `MADDC`
    /// `madc.hi.cc.u64`): the carry flag runs between them, one rewrite. Twins: a float
    /// multiply (`mul.rn.f32`) and a bit reversal are not of it.
    #[test]
    fn carry_chain_arithmetic_is_one_family() {
        let mut fs = vec![
            ptx("GPU/GPUMath.h", 27, "`add.cc.u64`", "UADDO"),
            ptx("GPU/GPUMath.h", 28, "`addc.cc.u64`", "UADDC"),
            ptx("GPU/GPUMath.h", 37, "`subc.u64`", "USUB"),
            ptx("GPU/GPUMath.h", 44, "`mul.hi.u64`", "UMULHI"),
            ptx("GPU/GPUMath.h", 46, "`madc.hi.cc.u64`", "MADDC"),
            ptx("GPU/GPUMath.h", 50, "`mul.rn.f32`", "fmul"),
            ptx("GPU/GPUMath.h", 354, "`brev.b64`, `clz.b64`", "ctz"),
        ];
        super::super::fold(&mut fs, &kind(&[]));
        assert_eq!(
            open(&fs),
            [
                ("GPU/GPUMath.h", 27),
                ("GPU/GPUMath.h", 50),
                ("GPU/GPUMath.h", 354)
            ]
        );
        assert!(
            fs[0].message.contains("multi-word integer arithmetic"),
            "{}",
            fs[0].message
        );
    }

    #[test]
    fn two_uses_stay_as_they_are() {
        let mut fs = vec![
            ptx("a.cu", 1, "`bar.sync`", "f"),
            ptx("a.cu", 9, "`bar.sync`", "g"),
        ];
        super::super::fold(&mut fs, &kind(&[]));
        assert_eq!(open(&fs).len(), 2);
    }

    /// nunchaku's `gemm_utils.cuh`: six fast-math wrappers (`tanh.approx` … `ex2.approx`) are
    /// one technique, and `ld.shared`/`st.shared` wrappers one rewrite. Twin: `ld.global`
    /// beside `st.shared` are two memories, two decisions (each under three uses stays).
    #[test]
    fn approximate_math_and_one_spaces_accesses_are_one_family_each() {
        let mut fs = vec![
            ptx("u.cuh", 256, "`tanh.approx.f32`", "cuda_tanhf"),
            ptx("u.cuh", 262, "`rcp.approx.ftz.f32`", "cuda_frcp"),
            ptx("u.cuh", 268, "`rsqrt.approx.ftz.f32`", "cuda_frsqrt"),
            ptx("u.cuh", 22, "`ld.shared.v2.b32`", "load"),
            ptx("u.cuh", 91, "`st.shared.v2.b32`", "store"),
            ptx("u.cuh", 95, "`st.shared.v4.b32`", "store4"),
            ptx(
                "u.cuh",
                53,
                "`setp.ne.b32`, `ld.global.nc.b32`",
                "load_pred",
            ),
        ];
        super::super::fold(&mut fs, &kind(&[]));
        assert_eq!(open(&fs), [("u.cuh", 256), ("u.cuh", 22), ("u.cuh", 53)]);
        assert!(
            fs[0].message.contains("approximate math"),
            "{}",
            fs[0].message
        );
        assert!(
            fs[3].message.contains("`ld/st.shared`"),
            "{}",
            fs[3].message
        );
    }
}
