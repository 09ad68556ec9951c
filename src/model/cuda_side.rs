//! Project macros only the CUDA side of a ROCm-aware project defines. DeepSpeed's
//! `ds_kernel_utils.h` defines `PTX_AVAILABLE` in the `#else` of `#ifdef __HIP_PLATFORM_AMD__`,
//! and every inline-PTX fast path then sits behind `#ifdef PTX_AVAILABLE` with a portable
//! `#else`: HIP compiles the `#else`, so the PTX is not porting work. A per-file model cannot
//! see that (the macro is defined in another header), so `scan` collects every `#define` with
//! whether HIP compiles it, and a macro defined only in branches HIP never compiles (and never
//! in one it may compile) counts as undefined under HIP in a second look at the files with
//! findings: a finding that only this makes dead becomes PASS, naming the macro and where it is
//! defined.
//!
//! Promises: a macro defined anywhere HIP may compile (or in an unknown branch) is never
//! counted; a macro whose name is a platform macro or a known CUDA macro is left to
//! [`hipside`]; findings that were live before stay live unless the new macro kills their branch.

use super::hipside::{self, Side};
use super::syntax::Src;
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, BTreeSet};

/// A `#define` of a file: the macro, its 1-based line, and whether HIP never compiles it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Define {
    pub name: String,
    pub line: u32,
    pub cuda_only: bool,
    /// Defined only where HIP compiles (the `#ifdef USE_ROCM` arm) and function-like: the
    /// positions of the parameters its body never uses (pytorch_scatter's
    /// `#define SHFL_UP_SYNC(mask, var, delta) __shfl_up(var, delta)` drops the mask).
    pub hip_unused_params: Option<Vec<usize>>,
}

/// Every `#define` of the file, with whether it sits in a branch HIP never compiles.
pub fn defines(s: &Src) -> Vec<Define> {
    let ds: Vec<&crate::lex::Directive> = s
        .lexed
        .directives
        .iter()
        .filter(|d| d.name == "define")
        .collect();
    if ds.is_empty() {
        return Vec::new();
    }
    let regions = hipside::regions(s);
    let offsets: Vec<usize> = ds.iter().map(|d| d.start).collect();
    let sides = hipside::sides_at(&regions, &offsets);
    ds.iter()
        .zip(sides)
        .filter_map(|(d, side)| {
            let name = super::cond::condition_tokens(s, d).first()?.to_string();
            Some(Define {
                name,
                line: s.line(d.start) as u32 + 1,
                cuda_only: matches!(side, Some(Side::Never(_))),
                hip_unused_params: if side == Some(Side::HipOnly) {
                    unused_params(s, d)
                } else {
                    None
                },
            })
        })
        .collect()
}

/// The positions of a function-like macro's parameters that its body never names, `None` for an
/// object-like macro.
fn unused_params(s: &Src, d: &crate::lex::Directive) -> Option<Vec<usize>> {
    let toks: Vec<usize> = d
        .tokens
        .clone()
        .filter(|&j| s.lexed.tokens[j].kind != crate::lex::Tok::Comment)
        .skip(2)
        .collect();
    let name = *toks.first()?;
    let open = *toks.get(1)?;
    // `#define F(x)`: the parenthesis touches the name.
    if s.tok(open) != "(" || s.lexed.tokens[open].start != s.lexed.tokens[name].end {
        return None;
    }
    let close = toks.iter().position(|&j| s.tok(j) == ")")?;
    let params: Vec<&str> = toks[2..close]
        .iter()
        .map(|&j| s.tok(j))
        .filter(|t| *t != ",")
        .collect();
    let body: std::collections::BTreeSet<&str> =
        toks[close + 1..].iter().map(|&j| s.tok(j)).collect();
    Some(
        params
            .iter()
            .enumerate()
            .filter(|(_, p)| !body.contains(*p))
            .map(|(i, _)| i)
            .collect(),
    )
}

/// [`defines`] of a lexed file, without a tree.
pub fn file_defines(path: &str, bytes: &[u8], lexed: &crate::lex::Lexed) -> Vec<Define> {
    if !lexed.directives.iter().any(|d| d.name == "define") {
        return Vec::new();
    }
    with_src(path, bytes, lexed, defines)
}

/// Runs `f` on a token-only [`Src`] of a lexed file.
pub(crate) fn with_src<R>(
    path: &str,
    bytes: &[u8],
    lexed: &crate::lex::Lexed,
    f: impl FnOnce(&Src) -> R,
) -> R {
    let lines = crate::source::LineIndex::new(bytes);
    let ctx = crate::registry::FileCtx {
        path,
        src: bytes,
        lines: &lines,
    };
    let index = super::index::NodeIndex::new(bytes, None, &[]);
    f(&Src::new(&ctx, lexed, None, &index))
}

/// The macros of the project defined only where HIP never compiles, each with its first
/// definition (`path:line`). `per_file` is (relative path, its defines).
pub fn cuda_side_macros(per_file: &[(String, Vec<Define>)]) -> BTreeMap<String, String> {
    let mut live: BTreeSet<&str> = BTreeSet::new();
    let mut dead: BTreeMap<String, String> = BTreeMap::new();
    for (path, defs) in per_file {
        for d in defs {
            if d.cuda_only {
                dead.entry(d.name.clone())
                    .or_insert_with(|| format!("{path}:{}", d.line));
            } else {
                live.insert(d.name.as_str());
            }
        }
    }
    dead.retain(|n, _| {
        !live.contains(n.as_str())
            && !super::cond::is_hip_macro(n)
            && !super::cond::UNDEFINED_UNDER_HIP.contains(&n.as_str())
    });
    dead
}

/// Function-like macros the project defines only for HIP, with the parameters they drop.
pub fn hip_macros_dropping(per_file: &[(String, Vec<Define>)]) -> BTreeMap<String, Vec<usize>> {
    let mut out: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut other: BTreeSet<&str> = BTreeSet::new();
    for (_, defs) in per_file {
        for d in defs {
            match &d.hip_unused_params {
                Some(p) if !p.is_empty() => {
                    out.insert(d.name.clone(), p.clone());
                }
                Some(_) => {
                    other.insert(d.name.as_str());
                }
                None if !d.cuda_only => {
                    other.insert(d.name.as_str());
                }
                None => {}
            }
        }
    }
    out.retain(|n, _| !other.contains(n.as_str()));
    out
}

/// Marks PASS a 32-bit warp-mask finding (HP103) on `#define NAME value` when every use of
/// `NAME` in the file is an argument the project's HIP definition of the macro it is passed to
/// drops (pytorch_scatter passes `FULL_MASK` only to `SHFL_UP_SYNC(mask, var, delta)`, which under
/// `USE_ROCM` is `__shfl_up(var, delta)`): the HIP build never sees the mask.
pub fn pass_dropped_masks(
    bytes: &[u8],
    findings: &mut [&mut Finding],
    dropping: &BTreeMap<String, Vec<usize>>,
) {
    let lexed = crate::lex::lex(bytes);
    let text = |i: usize| lexed.tokens[i].text(bytes);
    let code: Vec<usize> = lexed
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind != crate::lex::Tok::Comment)
        .map(|(i, _)| i)
        .collect();
    for f in findings.iter_mut() {
        if f.rule != "HP103" || f.status == Status::Pass {
            continue;
        }
        let Some(d) = lexed
            .directives
            .iter()
            .find(|d| d.name == "define" && d.start <= f.byte_range.0 && f.byte_range.0 < d.end)
        else {
            continue;
        };
        let Some(name_tok) = d
            .tokens
            .clone()
            .filter(|&j| lexed.tokens[j].kind == crate::lex::Tok::Ident)
            .nth(1)
        else {
            continue;
        };
        let name = text(name_tok);
        let uses: Vec<usize> = code
            .iter()
            .enumerate()
            .filter(|(_, &j)| text(j) == name && !(d.tokens.start <= j && j < d.tokens.end))
            .map(|(k, _)| k)
            .collect();
        let mut via: Option<&str> = None;
        let all_dropped = !uses.is_empty()
            && uses.iter().all(|&k| {
                // Walk back to the call's `(`, counting the commas at depth 0.
                let (mut depth, mut arg) = (0i32, 0usize);
                let mut at = k;
                while at > 0 {
                    at -= 1;
                    match text(code[at]) {
                        b")" | b"]" => depth += 1,
                        b"(" | b"[" if depth > 0 => depth -= 1,
                        b"(" => break,
                        b"," if depth == 0 => arg += 1,
                        b";" | b"{" | b"}" => return false,
                        _ => {}
                    }
                }
                let Some(callee) = at.checked_sub(1).map(|c| text(code[c])) else {
                    return false;
                };
                let callee = std::str::from_utf8(callee).unwrap_or("");
                let dropped = dropping.get(callee).is_some_and(|p| p.contains(&arg));
                if dropped {
                    via.get_or_insert(callee);
                }
                dropped
            });
        if all_dropped {
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (only passed as the mask of `{}`, which this project's HIP branch defines without using it)",
                via.unwrap_or("")
            ));
        }
    }
}

/// Marks PASS every non-PASS finding of `path` (contents `bytes`) that lies in a branch HIP
/// compiles only because `macros` were unknown: with them undefined, HIP never compiles it.
pub fn pass_behind(
    path: &str,
    bytes: &[u8],
    findings: &mut [&mut Finding],
    macros: &BTreeMap<String, String>,
) {
    let lexed = crate::lex::lex(bytes);
    let tested: Vec<&String> = macros
        .keys()
        .filter(|m| {
            lexed.directives.iter().any(|d| {
                matches!(
                    d.name.as_str(),
                    "if" | "elif" | "ifdef" | "ifndef" | "elifdef" | "elifndef"
                ) && d
                    .tokens
                    .clone()
                    .any(|i| lexed.tokens[i].text(bytes) == m.as_bytes())
            })
        })
        .collect();
    if tested.is_empty() {
        return;
    }
    let undef = |n: &str| macros.contains_key(n);
    let (before, after) = with_src(path, bytes, &lexed, |s| {
        (hipside::regions(s), hipside::regions_with(s, &undef))
    });
    let offsets: Vec<usize> = findings.iter().map(|f| f.byte_range.0).collect();
    let was = hipside::sides_at(&before, &offsets);
    let now = hipside::sides_at(&after, &offsets);
    let why: Vec<String> = tested
        .iter()
        .take(2)
        .map(|m| format!("`{m}` (defined only at `{}`)", macros[*m]))
        .collect();
    for ((f, was), now) in findings.iter_mut().zip(was).zip(now) {
        let dead = |x: Option<Side>| matches!(x, Some(Side::Never(_)));
        if f.status == Status::Pass || dead(was) || !dead(now) {
            continue;
        }
        f.status = Status::Pass;
        f.message.push_str(&format!(
            " (in a branch HIP never compiles: it tests {}, a macro this project defines only where HIP never compiles)",
            why.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::syntax::test_support::with_tokens;

    const UTILS: &str = "#ifdef __HIP_PLATFORM_AMD__\nconstexpr int w = 64;\n#else\n#if __CUDA_ARCH__ >= 530\n#define PTX_AVAILABLE\n#endif\n#define HALF_OK 1\n#endif\n#define BOTH 1\n";

    #[test]
    fn defines_know_whether_hip_compiles_them() {
        let got = with_tokens(UTILS, defines);
        let names: Vec<(&str, u32, bool)> = got
            .iter()
            .map(|d| (d.name.as_str(), d.line, d.cuda_only))
            .collect();
        assert_eq!(
            names,
            [
                ("PTX_AVAILABLE", 5, true),
                ("HALF_OK", 7, true),
                ("BOTH", 9, false)
            ]
        );
    }

    #[test]
    fn a_macro_also_defined_where_hip_compiles_is_not_cuda_side() {
        let utils = with_tokens(UTILS, defines);
        // Another header defines HALF_OK for every build.
        let other = with_tokens("#define HALF_OK 1\n#define USE_ROCM_X\n", defines);
        // And one defines a HIP switch in a dead branch: never counted.
        let hip = with_tokens("#ifndef __HIPCC__\n#define USE_ROCM 0\n#endif\n", defines);
        let m = cuda_side_macros(&[
            ("utils.h".into(), utils),
            ("b.h".into(), other),
            ("c.h".into(), hip),
        ]);
        assert_eq!(m.keys().collect::<Vec<_>>(), ["PTX_AVAILABLE"]);
        assert_eq!(m["PTX_AVAILABLE"], "utils.h:5");
    }

    #[test]
    fn masks_passed_only_to_macros_that_hip_drops_pass() {
        let utils = "#ifdef USE_ROCM\n#define SHFL_UP_SYNC(mask, var, delta) __shfl_up(var, delta)\n#define KEEP(mask, v) __shfl_sync(mask, v, 0)\n#else\n#define SHFL_UP_SYNC __shfl_up_sync\n#define KEEP __shfl_sync\n#endif\n";
        let defs = with_tokens(utils, defines);
        let dropping = hip_macros_dropping(&[("utils.cuh".into(), defs)]);
        assert_eq!(dropping.keys().collect::<Vec<_>>(), ["SHFL_UP_SYNC"]);
        assert_eq!(dropping["SHFL_UP_SYNC"], [0]);
        let k = "#define FULL_MASK 0xffffffff\n__global__ void k(float v) {\n  v = SHFL_UP_SYNC(FULL_MASK, v, 1);\n  v = SHFL_UP_SYNC(FULL_MASK, f(v, 2), 4);\n}\n";
        let mut fs = [finding(0, Status::Remediation)];
        fs[0].rule = "HP103".into();
        let mut refs: Vec<&mut Finding> = fs.iter_mut().collect();
        pass_dropped_masks(k.as_bytes(), &mut refs, &dropping);
        assert_eq!(fs[0].status, Status::Pass);
        assert!(fs[0].message.contains("`SHFL_UP_SYNC`"));
        // One use the HIP build keeps (a kept parameter, or a plain intrinsic): the finding stays.
        for other in [
            "KEEP(FULL_MASK, v)",
            "__shfl_up_sync(FULL_MASK, v, 1)",
            "SHFL_UP_SYNC(v, FULL_MASK, 1)",
        ] {
            let k = format!("#define FULL_MASK 0xffffffff\nvoid k(float v) {{\n  v = SHFL_UP_SYNC(FULL_MASK, v, 1);\n  v = {other};\n}}\n");
            let mut fs = [finding(0, Status::Remediation)];
            fs[0].rule = "HP103".into();
            let mut refs: Vec<&mut Finding> = fs.iter_mut().collect();
            pass_dropped_masks(k.as_bytes(), &mut refs, &dropping);
            assert_eq!(fs[0].status, Status::Remediation, "{other}");
        }
    }

    fn finding(at: usize, status: Status) -> Finding {
        Finding {
            rule_name: "inline-ptx".into(),
            category: crate::finding::Category::InlineAsm,
            status,
            byte_range: (at, at + 1),
            ..Finding::bare("HP201", "k.cu", 1)
        }
    }

    #[test]
    fn findings_behind_a_cuda_side_macro_pass_others_stay() {
        let src = "#ifdef PTX_AVAILABLE\nasm(\"mov.u32\");\n#else\nx = lane;\n#endif\n#if defined(OTHER)\nasm(\"ld.global\");\n#endif\n";
        let macros: BTreeMap<String, String> =
            [("PTX_AVAILABLE".to_string(), "utils.h:5".to_string())]
                .into_iter()
                .collect();
        let at = |needle: &str| src.find(needle).unwrap();
        let mut fs = [
            finding(at("asm(\"mov"), Status::Remediation),
            finding(at("x = lane"), Status::Remediation),
            finding(at("asm(\"ld"), Status::Remediation),
        ];
        let mut refs: Vec<&mut Finding> = fs.iter_mut().collect();
        pass_behind("k.cu", src.as_bytes(), &mut refs, &macros);
        assert_eq!(fs[0].status, Status::Pass);
        assert!(fs[0]
            .message
            .contains("`PTX_AVAILABLE` (defined only at `utils.h:5`)"));
        // The `#else` HIP compiles, and a branch on an unknown project macro, stay.
        assert_eq!(fs[1].status, Status::Remediation);
        assert_eq!(fs[2].status, Status::Remediation);
        // Without the macro, nothing changes.
        let mut fs2 = [finding(at("asm(\"mov"), Status::Remediation)];
        let mut refs: Vec<&mut Finding> = fs2.iter_mut().collect();
        pass_behind("k.cu", src.as_bytes(), &mut refs, &BTreeMap::new());
        assert_eq!(fs2[0].status, Status::Remediation);
    }
}
