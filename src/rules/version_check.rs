//! version-check (HP3xx): branches on the CUDA toolkit or compiler version. HIP-Clang defines
//! none of these macros, so `#if CUDA_VERSION >= 11000` silently takes the "old CUDA" branch
//! (undefined macros are 0), and version numbers queried at run time are HIP's, not CUDA's.
//! Each finding says which branch HIP compiles. Where both a HIP-Clang compile and a current
//! CUDA build are decided and take different arms, the chain is one HP304 finding
//! ([`super::compiled_out`]) and carries no HP301; HP301 stays for tests HIP evaluates like
//! CUDA (PASS) or that one build leaves undecided (review).

use super::RuleInfo;
use crate::finding::Finding;
use crate::gate::Status;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::lex::Directive;
use crate::model::cond;
use crate::model::syntax::{self, Src};
use std::collections::HashSet;
use tree_sitter::Node;

/// The node kinds the version-check rules read from the file's node index.
pub const KINDS: &[K] = &[K::CallExpression, K::BinaryExpression];

rule!(CUDA_VERSION_MACRO, "HP301", VersionCheck, Remediation, Build,
    summary: "A test of a CUDA toolkit or nvcc macro (`CUDA_VERSION`, `CUDART_VERSION`, `__CUDACC_VER_MAJOR__`, `__NVCC__`, `__CUDACC__`).",
    why: "HIP-Clang defines none of them, so `#if` treats them as 0: `#if CUDA_VERSION >= 11000` compiles the pre-CUDA-11 branch, `#ifdef __NVCC__` drops the nvcc branch. The code that HIP builds is then an old or unintended path.",
    bad: "#if CUDART_VERSION >= 11000\n  use_new_api();\n#else\n  use_old_api();\n#endif",
    good: "#if defined(__HIP_PLATFORM_AMD__) || CUDART_VERSION >= 11000\n  use_new_api();\n#else\n  use_old_api();\n#endif",
    fix: "Decide which branch HIP needs and say so explicitly: test `defined(__HIP_PLATFORM_AMD__)`/`__HIPCC__`, or `HIP_VERSION`/`HIP_VERSION_MAJOR` from <hip/hip_version.h> for HIP-side version checks.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html", "https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/index.html#nvcc-identification-macro"],
);

rule!(RUNTIME_VERSION_COMPARE, "HP302", VersionCheck, Remediation, Runtime,
    summary: "A version from `cudaRuntimeGetVersion`/`cudaDriverGetVersion` compared with a CUDA version number.",
    why: "Under HIP these calls return HIP version numbers (e.g. 60342134 for 6.3), so comparisons with CUDA numbers such as 11000 pick an arbitrary branch.",
    bad: "cudaRuntimeGetVersion(&v);\nif (v < 11020) fallback();",
    good: "hipRuntimeGetVersion(&v);\n#ifdef __HIP_PLATFORM_AMD__\n// compare with HIP_VERSION-style numbers, or drop the check\n#endif",
    fix: "Compare with HIP version numbers (`HIP_VERSION_MAJOR * 10000000 + …`) under `__HIP_PLATFORM_AMD__`, or check for the feature itself (device attributes) instead of a version.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api/modules/initialization_and_version.html"],
);

rule!(PROJECT_ROCM_SWITCH, "HP303", VersionCheck, Unknown, Build,
    summary: "The project ports itself when its own ROCm switch (`USE_ROCM`, `GGML_USE_HIP`) is defined: reported once per project.",
    why: "Branches on the switch are already written for AMD, and hipport evaluates them as the HIP build will see them; the HIP build is only right if the switch is actually defined when compiling (PyTorch's ROCm extensions define `USE_ROCM`; CMake or make builds must pass it).",
    bad: "#ifndef USE_ROCM\n  #include <cuda_bf16.h>\n#else\n  #include <hip/hip_bf16.h>\n#endif",
    good: "hipcc -DUSE_ROCM ...   # or the build system's HIP option",
    fix: "Check that the HIP build (and `hipport verify`, through compile_commands.json) defines the switch.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html"],
);

pub const RULES: &[&RuleInfo] = &[
    &CUDA_VERSION_MACRO,
    &RUNTIME_VERSION_COMPARE,
    &PROJECT_ROCM_SWITCH,
];

/// The once-per-project note about a ROCm switch the project tests (`USE_ROCM`).
pub fn project_switch(s: &Src, name: &str, range: std::ops::Range<usize>) -> Finding {
    s.ctx.finding(
        &PROJECT_ROCM_SWITCH,
        range,
        format!("this project ports itself when `{name}` is defined: hipport reads its `{name}` branches as the HIP build; check that the HIP build defines it"),
        Some(format!("pass `-D{name}` to the HIP build (PyTorch's ROCm extension builds define `USE_ROCM`)")),
    )
}

/// The CUDA toolkit's and nvcc's own macros. `CUDA_VERSION_MAJOR` is not one: no CUDA header
/// defines it; projects do (nvImageCodec's `add_definitions(-DCUDA_VERSION_MAJOR=…)`, hoomd's
/// `#define CUDA_VERSION_MAJOR (CUDART_VERSION / 1000)`, configured headers), so its value under
/// HIP is the project's build's, not 0.
const MACROS: &[&str] = &[
    "CUDA_VERSION",
    "CUDART_VERSION",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
    "__CUDACC_VER_BUILD__",
    "__NVCC__",
    "__CUDACC__",
    "__CUDACC_RTC__",
    "__CUDA_API_VERSION",
    "__NVCC_DIAG_PRAGMA_SUPPORT__",
];

fn explain_macro(m: &str) -> &'static str {
    match m {
        "__CUDACC__" => " (`hipport port` rewrites `__CUDACC__` to `__HIPCC__`; check that branch is right for HIP)",
        "__CUDACC_RTC__" => " (and `hipport port` rewrites it to `__HIPCC_RTC__`, which hiprtc defines where NVRTC defines `__CUDACC_RTC__`)",
        _ => "",
    }
}

/// Message and help for a macro test: (directive kind or `expr`/`define`, macro, value under HIP).
pub type Describe = dyn Fn(&str, &str, Option<i64>) -> (String, String);

/// Findings for macro tests in directives and code, shared with arch-check.
pub fn macro_uses(
    s: &Src,
    macros: &[&str],
    rule: &'static RuleInfo,
    out: &mut Vec<Finding>,
    describe: &Describe,
    consts: Option<&super::device_feature::consts::Consts>,
    rocm: Option<crate::version::Version>,
) {
    let mut done_dirs: HashSet<usize> = HashSet::new();
    let mut done_lines: HashSet<usize> = HashSet::new();
    // The file's own arm for the HIP compiler, found on first use.
    let own_hip: std::cell::OnceCell<Option<usize>> = std::cell::OnceCell::new();
    for (i, name) in s.idents() {
        if !macros.contains(&name) {
            continue;
        }
        let t = s.lexed.tokens[i];
        if t.in_directive() {
            let di = t.directive as usize;
            let d: &Directive = &s.lexed.directives[di];
            if !matches!(
                d.name.as_str(),
                "if" | "elif" | "ifdef" | "ifndef" | "define" | "elifdef" | "elifndef"
            ) || !done_dirs.insert(di)
            {
                continue;
            }
            // `#if !defined(USE_ROCM) && CUDA_VERSION >= 11000`: the author chose HIP's
            // branch explicitly. `#define __CUDA_ARCH__ 900` (an IDE shim) tests nothing.
            if cond::decided_for_hip(s, d, rocm)
                || (d.name == "define"
                    && s.lexed.prev_code(i).is_some_and(|p| s.tok(p) == "define"))
            {
                continue;
            }
            let toks = cond::condition_tokens(s, d);
            let mut value = if matches!(d.name.as_str(), "if" | "elif") {
                cond::eval_under_hip(&toks)
            } else {
                None
            };
            // The project's own constants the test compares with (`CUDA_VERSION >=
            // MIN_ASYNC_CUDA_VERSION`, defined here or in an included header).
            let mut named = Vec::new();
            if let (None, Some(c), true) = (value, consts, matches!(d.name.as_str(), "if" | "elif"))
            {
                let hip = crate::model::macro_env::MacroEnv::hip();
                let project = |n: &str| {
                    if hip.lookup(n).is_some() || cond::is_hip_macro(n) {
                        return None;
                    }
                    let v = i64::try_from(c.name(n)?).ok()?;
                    Some(crate::model::macro_env::Known::Value(v))
                };
                value = hip.with_extra(&project).eval(&toks);
                if value.is_some() {
                    for t in &toks {
                        if let (Some(crate::model::macro_env::Known::Value(v)), Some(at)) =
                            (project(t), c.where_defined(s, t))
                        {
                            named.push(format!("`{t}` is {v} ({at})"));
                        }
                    }
                    named.dedup();
                }
            }
            let (mut msg, help) = describe(&d.name, name, value);
            if !named.is_empty() {
                msg.push_str(&format!("; {}", named.join(", ")));
            }
            let mut f = s.ctx.finding(rule, s.directive_range(d), msg, Some(help));
            // `#ifdef __NVCC__ … #elif defined(__HIP__) … #endif`: the project wrote HIP's arm
            // itself; this test only keeps nvcc on its own arm.
            if let Some(hip) = hip_arm_later_in_chain(s, di) {
                f.status = Status::Pass;
                f.message = format!(
                    "`#{}` on `{name}` keeps nvcc on this arm; the same chain's `#{}` on line {} is the project's own HIP arm, which HIP-Clang compiles",
                    d.name,
                    s.lexed.directives[hip].name,
                    s.line(s.lexed.directives[hip].start) + 1
                );
                f.suggestion = None;
                out.push(f);
                continue;
            }
            // `#ifdef __NVCC_DIAG_PRAGMA_SUPPORT__` / `#pragma nv_diag_suppress …` / `#else` /
            // `#pragma diag_suppress …`: whichever arm HIP takes holds only pragmas, which
            // HIP-Clang ignores when it does not know them.
            if std::ptr::eq(rule, &CUDA_VERSION_MACRO) && chain_holds_only_pragmas(s, di) {
                f.status = Status::Pass;
                f.message = format!(
                    "`#{}` on `{name}` chooses between compiler pragmas only: HIP-Clang ignores the ones it does not know (`-Wunknown-pragmas` warns), so no code changes whichever arm it takes",
                    d.name
                );
                f.suggestion = None;
                out.push(f);
                continue;
            }
            // `hipport port` rewrites `__CUDACC__` to `__HIPCC__`: a test of it alone is done.
            let only_cudacc = d.tokens.clone().all(|j| {
                let t = s.tok(j);
                !macros.contains(&t) || t == "__CUDACC__"
            });
            if std::ptr::eq(rule, &CUDA_VERSION_MACRO) && only_cudacc {
                f.status = Status::Pass;
                let own = *own_hip.get_or_init(|| cond::own_hip_compiler_arm(s.bytes(), s.lexed));
                f.message = match own {
                    Some(k) => format!(
                        "`{}` tests `__CUDACC__` in a file that opens its own arm for the HIP compiler (line {}): `hipport port` leaves `__CUDACC__` as written there, so nvcc compiles this arm and HIP-Clang the file's own",
                        d.name,
                        s.line(s.lexed.directives[k].start) + 1
                    ),
                    None => format!("`{}` tests `__CUDACC__`, which `hipport port` rewrites to `__HIPCC__`: HIP compiles the same branch nvcc does", d.name),
                };
            } else if let (Some(h), Some(n)) = (
                value,
                matches!(d.name.as_str(), "if" | "elif")
                    .then(|| cond::eval_current_nvcc(&cond::condition_tokens(s, d)))
                    .flatten(),
            ) {
                // HIP compiles the branch a current NVIDIA GPU compiles (`… && !(… ||
                // !defined(__CUDA_ARCH__))` and `__CUDACC_VER_MAJOR__ < 12` both false): a
                // workaround for old toolchains or GPUs that HIP does not need either.
                if (h != 0) == (n != 0) {
                    f.status = Status::Pass;
                    f.message = format!(
                        "`#{}` tests `{name}`; {AS_CURRENT_NVCC} (CUDA 12, sm_90): {}",
                        d.name,
                        cond::branch_taken(&d.name, value)
                    );
                }
            } else if std::ptr::eq(rule, &CUDA_VERSION_MACRO) && same_in_both_builds(s, d, macros) {
                // Every CUDA macro the test names has one value in a HIP-Clang compile and in
                // an ordinary nvcc compile (`__CUDACC_RTC__`: undefined in both): whatever the
                // project's own names are, both builds take the same branch.
                f.status = Status::Pass;
                f.message = format!(
                    "`#{}` tests `{name}`, which an ordinary nvcc compile leaves as HIP-Clang does{extra}: {AS_CURRENT_NVCC}, whatever the rest of the condition is (nothing to change for the build)",
                    d.name,
                    extra = explain_macro(name)
                );
                f.suggestion = None;
            }
            out.push(f);
        } else if done_lines.insert(s.line(t.start as usize)) {
            let (msg, help) = describe("expr", name, Some(0));
            out.push(s.ctx.finding(rule, t.range(), msg, Some(help)));
        }
    }
}

/// Whether the chain directive `di` opens (`#if`/`#ifdef`/`#ifndef`) holds nothing but
/// comments and `#pragma` lines, in every arm and in the conditionals nested in them.
fn chain_holds_only_pragmas(s: &Src, di: usize) -> bool {
    let dirs = &s.lexed.directives;
    if !matches!(dirs[di].name.as_str(), "if" | "ifdef" | "ifndef") {
        return false;
    }
    let mut depth = 0usize;
    let mut end = None;
    let mut pragmas = 0;
    for d in dirs.iter().skip(di + 1) {
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" if depth == 0 => {
                end = Some(d.start);
                break;
            }
            "endif" => depth -= 1,
            "else" | "elif" | "elifdef" | "elifndef" | "line" | "" => {}
            "pragma" => pragmas += 1,
            _ => return false,
        }
    }
    let Some(end) = end else { return false };
    let start = dirs[di].start;
    pragmas > 0
        && !s.lexed.tokens.iter().any(|t| {
            (start..end).contains(&(t.start as usize))
                && t.kind != crate::lex::Tok::Comment
                && !t.in_directive()
        })
}

/// Whether every macro of `macros` that directive `d` tests has the same value (or is
/// undefined) under HIP-Clang and under a current nvcc compile.
fn same_in_both_builds(s: &Src, d: &Directive, macros: &[&str]) -> bool {
    use crate::model::macro_env::MacroEnv;
    let (hip, cuda) = (MacroEnv::hip(), MacroEnv::cuda());
    let toks = cond::condition_tokens(s, d);
    let names: Vec<&str> = if matches!(d.name.as_str(), "ifdef" | "ifndef" | "elifdef" | "elifndef")
    {
        d.tokens
            .clone()
            .map(|j| s.tok(j))
            .filter(|t| macros.contains(t))
            .collect()
    } else {
        toks.iter()
            .copied()
            .filter(|t| macros.contains(t))
            .collect()
    };
    !names.is_empty()
        && names.iter().all(|n| {
            let (h, c) = (hip.lookup(n), cuda.lookup(n));
            h.is_some() && h == c
        })
}

/// How a PASS says that HIP compiles the arm a current NVIDIA build compiles
/// ([`crate::rules::arch_check::arms_without_code`] reopens it where that arm holds no code).
pub const AS_CURRENT_NVCC: &str = "HIP compiles the branch nvcc compiles for a current GPU";

/// A later `#elif` of the chain that directive `di` opens or continues, at the same depth, whose
/// condition tests a HIP platform macro and is true under HIP-Clang: the author's HIP arm.
fn hip_arm_later_in_chain(s: &Src, di: usize) -> Option<usize> {
    cond::own_hip_arm_later(s.bytes(), s.lexed, di)
}

pub fn check(
    s: &Src,
    seen: &crate::model::project::Visible,
    rocm: crate::version::Version,
    out: &mut Vec<Finding>,
) {
    let consts = super::device_feature::consts::Consts::of(s, seen);
    macro_uses(
        s,
        MACROS,
        &CUDA_VERSION_MACRO,
        out,
        &|kind, name, value| {
            let extra = explain_macro(name);
            let msg = match kind {
            "define" => format!("macro body tests `{name}`, which HIP-Clang does not define (it evaluates to 0){extra}"),
            "expr" => format!("`{name}` is not defined under HIP-Clang{extra}"),
            k => format!("`#{k}` on `{name}`: {}{extra}", cond::branch_taken(k, value)),
        };
            (msg, "make the HIP branch explicit with `defined(__HIP_PLATFORM_AMD__)`, or test `HIP_VERSION` for HIP versions".into())
        },
        Some(&consts),
        Some(rocm),
    );
    host_only_source(s, out);
    fold_same_macro_uses(out);
    runtime_versions(s, &consts, out);
}

/// One file's open uses of one macro in code (`CUDART_VERSION` passed to a check on line 140
/// and printed on line 142: nvidia-texture-tools' `CudaUtils.cpp`) are one fact with one fix:
/// the first carries the others' lines, which become PASS naming it. `#if` tests stay apart:
/// each decides its own branch.
fn fold_same_macro_uses(out: &mut [Finding]) {
    let rule = CUDA_VERSION_MACRO.code();
    let mut heads: Vec<(usize, String, Vec<u32>)> = Vec::new();
    for i in 0..out.len() {
        let f = &out[i];
        if f.rule != rule
            || f.status == Status::Pass
            || !f.message.contains("` is not defined under HIP-Clang")
        {
            continue;
        }
        let name = f.message.split('`').nth(1).unwrap_or("").to_string();
        if let Some((h, _, lines)) = heads.iter_mut().find(|(_, n, _)| *n == name) {
            lines.push(f.line);
            let at = out[*h].line;
            out[i].settle(&format!(
                " (the same macro as line {at}, which carries it: one fix)"
            ));
        } else {
            heads.push((i, name, Vec::new()));
        }
    }
    for (h, _, lines) in heads {
        if lines.is_empty() {
            continue;
        }
        let list: Vec<String> = lines.iter().map(u32::to_string).collect();
        let m = &mut out[h].message;
        let at = m
            .find(" is not defined under HIP-Clang")
            .map_or(m.len(), |p| p + " is not defined under HIP-Clang".len());
        m.insert_str(
            at,
            &format!(
                " (also used on line{} {})",
                if list.len() > 1 { "s" } else { "" },
                list.join(", ")
            ),
        );
    }
}

/// A C or C++ source (not a header) that mentions nothing of CUDA is compiled by the host
/// compiler in the CUDA build too, so nvcc's own macros (`__NVCC__`, `__CUDACC__`,
/// `__CUDACC_VER_*`) are undefined there as under HIP: both builds take the same branch
/// (ParRes Kernels' `#if !defined(__NVCC__) && !defined(_CRAYC)` around `<thread>` in
/// `transpose-thread.cc`). `CUDA_VERSION` comes from a header and stays open.
fn host_only_source(s: &Src, out: &mut [Finding]) {
    let ext = s.ctx.path.rsplit_once('.').map_or("", |(_, e)| e);
    if !matches!(ext, "c" | "cc" | "cpp" | "cxx" | "C") {
        return;
    }
    let nvcc_own = |t: &str| t == "__NVCC__" || t.starts_with("__CUDACC");
    // The file's code with comments and the tested macro names blanked: any other CUDA mention
    // keeps it open.
    let mut text = s.ctx.src.to_vec();
    for t in &s.lexed.tokens {
        let w = std::str::from_utf8(&s.ctx.src[t.range()]).unwrap_or("");
        if t.kind == crate::lex::Tok::Comment || (t.kind == crate::lex::Tok::Ident && nvcc_own(w)) {
            text[t.range()].fill(b' ');
        }
    }
    if crate::prefilter::mentions_cuda(&text) {
        return;
    }
    for f in out.iter_mut().filter(|f| {
        f.rule == CUDA_VERSION_MACRO.code()
            && f.status != Status::Pass
            && s.lexed
                .tokens
                .iter()
                .filter(|t| {
                    t.start as usize >= f.byte_range.0 && (t.start as usize) < f.byte_range.1
                })
                .all(|t| {
                    let w = &s.ctx.src[t.range()];
                    !MACROS.iter().any(|m| m.as_bytes() == w)
                        || nvcc_own(std::str::from_utf8(w).unwrap_or(""))
                })
    }) {
        f.settle(" — but this source mentions nothing of CUDA, so the CUDA build compiles it with the host compiler too, where the macro is just as undefined: the same branch (nothing to change)");
    }
}

/// A number a version is compared with: a literal, or a name the file or an included header
/// defines as an integer (`RMM_MIN_ASYNC_MANAGED_ALLOC_CUDA_VERSION`, 13000), with where.
fn version_number(
    consts: &super::device_feature::consts::Consts,
    s: &Src,
    kind: K,
    text: &str,
) -> Option<(u64, Option<String>)> {
    match kind {
        K::NumberLiteral => Some((syntax::int_value(text).unwrap_or(0), None)),
        K::Identifier => {
            let v = consts.name(text)?;
            Some((v, consts.where_defined(s, text)))
        }
        _ => None,
    }
}

fn runtime_versions(
    s: &Src,
    consts: &super::device_feature::consts::Consts,
    out: &mut Vec<Finding>,
) {
    let mut vars: HashSet<&str> = HashSet::new();
    for c in &s.of_kinds(&[K::CallExpression]) {
        let Some(name) = syntax::call_name(s, *c) else {
            continue;
        };
        if !matches!(
            name,
            "cudaRuntimeGetVersion" | "cudaDriverGetVersion" | "cuDriverGetVersion"
        ) {
            continue;
        }
        if let Some(a) = syntax::call_args(*c).first() {
            if let Some(id) = syntax::identifiers(s, *a).last() {
                vars.insert(id);
            }
        }
    }
    if vars.is_empty() {
        return;
    }
    // One finding per test: `d >= MIN && r >= MIN` is one fact about one condition.
    let mut tests: HashSet<usize> = HashSet::new();
    for b in &s.of_kinds(&[K::BinaryExpression]) {
        let op = b.field(F::Operator).map_or("", |o| s.text(o));
        if !matches!(op, "<" | ">" | "<=" | ">=" | "==" | "!=") {
            continue;
        }
        let mut top = *b;
        while let Some(p) = top.parent().filter(|p| {
            matches!(
                p.node_kind(),
                K::BinaryExpression | K::ParenthesizedExpression
            )
        }) {
            top = p;
        }
        if tests.contains(&top.start_byte()) {
            continue;
        }
        let side = |n: Option<Node<'_>>| n.map(|n| (n.node_kind(), s.text(n)));
        let (l, r) = (side(b.field(F::Left)), side(b.field(F::Right)));
        let var_num = |a: &Option<(K, &str)>, b: &Option<(K, &str)>| {
            if !a.is_some_and(|(k, t)| k == K::Identifier && vars.contains(t)) {
                return None;
            }
            let (k, t) = (*b)?;
            if k == K::Identifier && vars.contains(t) {
                return None;
            }
            version_number(consts, s, k, t)
        };
        let (var_left, found) = match var_num(&l, &r) {
            Some(x) => (true, x),
            None => match var_num(&r, &l) {
                Some(x) => (false, x),
                None => continue,
            },
        };
        let (v, at) = found;
        if !tests.insert(top.start_byte()) {
            continue;
        }
        // A named constant counts when it reads as a CUDA version (CUDA 9.0 is 9000).
        if at.is_some() && !(1000..100_000).contains(&v) {
            continue;
        }
        let named = at.map_or(String::new(), |at| format!(" (the constant is {v}, {at})"));
        // HIP's numbers (6.3 is 60342134) are larger than every CUDA number.
        let outcome = match (op, var_left) {
            (">" | ">=", true) | ("<" | "<=", false) => "is true on every ROCm release",
            ("<" | "<=", true) | (">" | ">=", false) => "is false on every ROCm release",
            ("!=", _) => "is true on every ROCm release",
            _ => "is false on every ROCm release",
        };
        out.push(s.ctx.finding(&RUNTIME_VERSION_COMPARE, b.byte_range(), format!("`{}` compares a runtime/driver version with a CUDA version number{named}; HIP reports HIP versions (6.3 is 60342134), so the test {outcome}", s.text(*b)), Some("compare with HIP version numbers under `__HIP_PLATFORM_AMD__`, or test the feature instead".into())));
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::fires;

    /// nvImageCodec defines `CUDA_VERSION_MAJOR` itself (`add_definitions`): no CUDA header
    /// does, so a test of it is the project's, not a toolkit test HIP reads as 0. Twin: the
    /// toolkit's `CUDA_VERSION` is.
    #[test]
    fn a_projects_cuda_version_major_is_not_the_toolkits() {
        use crate::model::syntax::test_support::fires;
        let src = "#if CUDA_VERSION_MAJOR >= 13\nint a;\n#endif\n#if CUDA_VERSION >= 13000\nint b;\n#endif\n";
        assert_eq!(fires(src, "HP301"), [4]);
    }

    /// nvidia-texture-tools' `isHardwarePresent`: `CUDART_VERSION` passed to a check and printed
    /// two lines later is one fix, carried by the first use. Twins: another macro and the
    /// `#if` tests stay apart.
    #[test]
    fn uses_of_one_macro_in_code_are_one_finding() {
        use crate::model::syntax::test_support::hazard_findings;
        let src = "#include <cuda_runtime.h>\nbool f() {\n  if (!ok(CUDART_VERSION)) {\n    log(CUDART_VERSION);\n    return log(CUDA_VERSION);\n  }\n#if CUDART_VERSION >= 11000\n  return true;\n#endif\n}\n";
        let all = hazard_findings(src);
        let open: Vec<(u32, String)> = all
            .iter()
            .filter(|f| f.rule == "HP301" && f.status != crate::gate::Status::Pass)
            .map(|f| (f.line, f.message.clone()))
            .collect();
        let lines: Vec<u32> = open.iter().map(|f| f.0).collect();
        assert_eq!(lines, [3, 5], "{open:?}");
        assert!(all.iter().any(|f| f.rule == "HP301"
            && f.line == 4
            && f.message.contains("the same macro as line 3")));
        assert!(all
            .iter()
            .filter(|f| f.line == 7)
            .all(|f| !f.message.contains("the same macro")));
        assert!(open[0].1.contains("(also used on line 4)"), "{}", open[0].1);
    }

    #[test]
    fn nvcc_macros_in_a_host_only_source_are_pass() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::hazard_findings_at;
        let open = |path: &str, src: &str| -> Vec<u32> {
            hazard_findings_at(path, src)
                .into_iter()
                .filter(|f| f.rule == "HP301" && f.status != Status::Pass)
                .map(|f| f.line)
                .collect()
        };
        // ParRes Kernels' transpose-thread.cc: host code the CUDA build compiles with g++.
        let host = "#include \"prk_util.h\"\n#if !defined(__NVCC__) && !defined(_CRAYC)  // not with CUDA 9\n#include <thread>\n#endif\n";
        assert!(open("transpose-thread.cc", host).is_empty());
        // The same test in a .cu stays open (only nvcc compiles it); in a header, or a host
        // source that calls CUDA, the chain tests only nvcc's identity around no CUDA code: HIP
        // takes the arm gcc takes (`hazards::pass_compiler_workarounds`). A header's
        // CUDA_VERSION stays open.
        assert_eq!(open("t.cu", host), [2]);
        assert!(open("prk_util.h", host).is_empty());
        let calls = format!("{host}void f() {{ cudaDeviceSynchronize(); }}\n");
        assert!(open("main.cc", &calls).is_empty());
        assert_eq!(open("v.cc", "#if CUDA_VERSION >= 11000\n#endif\n"), [1]);
    }

    /// SpFFT's shape (BSD-3-Clause): `(defined(SPFFT_CUDA) && (CUDART_VERSION >= 10000)) ||
    /// (defined(SPFFT_ROCM) && (HIP_VERSION_MAJOR >= 6))` is decided by its ROCm operand from
    /// ROCm 6 on: the project chose HIP's branch itself. Twin: before ROCm 6 the ROCm operand is
    /// false and the CUDA test stays open.
    #[test]
    fn a_hip_version_operand_decides_the_condition_at_the_target() {
        let src = "#if (defined(SPFFT_CUDA) && (CUDART_VERSION >= 10000)) || (defined(SPFFT_ROCM) && (HIP_VERSION_MAJOR >= 6))
auto t = attr.type;
#else
auto t = attr.memoryType;
#endif
";
        assert!(crate::model::syntax::test_support::fires_for("6.2", src, "HP301").is_empty());
        assert_eq!(
            crate::model::syntax::test_support::fires_for("5.7", src, "HP301"),
            [1]
        );
    }

    /// glm's compiler detection: the version tests inside `#elif defined(__CUDACC__)`, beside
    /// the project's own `#elif defined(__HIP__)`, are in an arm HIP-Clang never compiles (the
    /// port keeps the test): PASS. Twin: without the HIP arm the port renames the test to
    /// `__HIPCC__`, HIP-Clang enters the arm, and the inner test stays open.
    #[test]
    fn tests_inside_a_cuda_arm_beside_the_projects_hip_arm_are_dead() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::hazard_findings_at;
        let src = "#if defined(__clang__) && !defined(__CUDACC__) && !defined(__HIP__)\n#define C 1\n#elif defined(__CUDACC__)\n#if CUDA_VERSION >= 8000\n#define C 2\n#elif CUDA_VERSION < 7000\n#error \"needs CUDA 7\"\n#endif\n#elif defined(__HIP__)\n#define C 3\n#endif\n";
        let open = |src: &str| -> Vec<u32> {
            hazard_findings_at("platform.h", src)
                .into_iter()
                .filter(|f| f.rule.starts_with("HP30") && f.status != Status::Pass)
                .map(|f| f.line)
                .collect()
        };
        assert!(open(src).is_empty(), "{:?}", open(src));
        let alone = src.replace("#elif defined(__HIP__)\n#define C 3\n", "");
        assert!(open(&alone).contains(&4), "{:?}", open(&alone));
    }

    /// MatX's `#ifndef __CUDACC_RTC__` and `defined(MATX_EN_JIT) && !defined(__CUDACC_RTC__)`:
    /// NVRTC's macro is undefined in an ordinary nvcc compile as under HIP-Clang, so both builds
    /// take the same branch whatever the project's own names are. Twins: `CUDA_VERSION`, which
    /// nvcc defines, stays open in both forms.
    #[test]
    fn a_macro_both_builds_leave_undefined_takes_the_same_branch() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::hazard_findings_at;
        let on = |src: &str| -> Vec<(u32, Status)> {
            hazard_findings_at("t.h", src)
                .into_iter()
                .filter(|f| f.rule == "HP301")
                .map(|f| (f.line, f.status))
                .collect()
        };
        let rtc = "#ifndef __CUDACC_RTC__\n#include <complex>\n#endif\n#if defined(MATX_EN_JIT) && !defined(__CUDACC_RTC__)\nint jit();\n#endif\n";
        assert_eq!(on(rtc), [(1, Status::Pass), (4, Status::Pass)]);
        let f = hazard_findings_at("t.h", rtc);
        assert!(
            f[0].message
                .contains("rewrites it to `__HIPCC_RTC__`, which hiprtc defines"),
            "{}",
            f[0].message
        );
        // The rewrite that holds it: a run-time compile under hiprtc takes NVRTC's arm.
        let opts = crate::translate::Options::for_tests("6.2", false);
        let t =
            crate::translate::translate_bytes("t.h", rtc.as_bytes(), crate::mappings::get(), &opts);
        let out = String::from_utf8(t.output).unwrap();
        assert!(
            out.contains("#ifndef __HIPCC_RTC__") && out.contains("!defined(__HIPCC_RTC__)"),
            "{out}"
        );
        let version = rtc.replace("__CUDACC_RTC__", "CUDA_VERSION");
        assert!(
            on(&version).iter().all(|(_, s)| *s != Status::Pass),
            "{:?}",
            on(&version)
        );
    }

    /// A `__CUDACC__` test in a file that opens its own arm for the HIP compiler is PASS naming
    /// that arm, which `port` keeps HIP-Clang on. Twin: the usual rename message elsewhere.
    #[test]
    fn a_cudacc_test_beside_the_files_own_hip_compiler_arm_names_it() {
        use crate::model::syntax::test_support::hazard_findings_at;
        let src = "#if defined(__CUDACC__)\n#define G_CUDACC 1\n#endif\n#if defined(__HIPCC__)\n#define G_HIPCC 1\n#endif\n";
        let f = hazard_findings_at("m.h", src);
        let at = f
            .iter()
            .find(|f| f.rule == "HP301" && f.line == 1)
            .expect("finding");
        assert!(
            at.status == crate::gate::Status::Pass && at.message.contains("(line 4)"),
            "{}",
            at.message
        );
        let alone = "#if defined(__CUDACC__)\n#define G_CUDACC 1\n#endif\n";
        let f = hazard_findings_at("m.h", alone);
        let at = f
            .iter()
            .find(|f| f.rule == "HP301" && f.line == 1)
            .expect("finding");
        assert!(
            at.message.contains("rewrites to `__HIPCC__`"),
            "{}",
            at.message
        );
    }

    /// The project's own HIP arm later in the chain: the nvcc test is PASS naming it. Twins:
    /// a chain whose later arm is not HIP's (`#else`, `#elif defined(_WIN32)`), or whose HIP
    /// arm sits in a nested chain, stays open (as HP301, or HP304 where the arms differ).
    #[test]
    fn a_chain_with_the_projects_own_hip_arm_is_pass() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::hazard_findings_at;
        let open = |src: &str| -> Vec<u32> {
            hazard_findings_at("m.cu", src)
                .into_iter()
                .filter(|f| {
                    matches!(f.rule.as_str(), "HP301" | "HP304") && f.status != Status::Pass
                })
                .map(|f| f.line)
                .collect()
        };
        let own = "#ifdef __NVCC__\n#include <nvml.h>\n#elif defined(__HIP__)\n#include <rocm_smi/rocm_smi.h>\n#endif\n";
        assert!(open(own).is_empty(), "{own}");
        let f = hazard_findings_at("m.cu", own);
        let hp301 = f.iter().find(|f| f.rule == "HP301").expect("PASS kept");
        assert!(hp301.message.contains("line 3"), "{}", hp301.message);
        let amd = "#if defined(__NVCC__)\nint g = 1;\n#elif defined(__HIP_PLATFORM_AMD__)\nint g = 2;\n#endif\n";
        assert!(open(amd).is_empty());
        // Twins.
        assert_eq!(
            open("#ifdef __NVCC__\nint g = 1;\n#else\nint g = 2;\n#endif\n"),
            [1]
        );
        assert_eq!(
            open("#ifdef __NVCC__\nint g = 1;\n#elif defined(_WIN32)\nint g = 2;\n#endif\n"),
            [1]
        );
        assert_eq!(
            open("#ifdef __NVCC__\n#if defined(__HIP__)\nint h;\n#endif\n#else\nint g;\n#endif\n"),
            [1]
        );
    }

    /// FLAMEGPU2's `#ifdef __NVCC_DIAG_PRAGMA_SUPPORT__` / `#pragma nv_diag_suppress 1719` /
    /// `#else` / `#pragma diag_suppress 1719` / `#endif` around a CUB include: PASS. Twins: a
    /// chain with code in an arm, or an `#include` among the pragmas, stays open.
    #[test]
    fn a_chain_of_pragmas_only_is_pass() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::hazard_findings_at;
        let on = |src: &str| -> Vec<(u32, Status)> {
            hazard_findings_at("a.cu", src)
                .into_iter()
                .filter(|f| f.rule == "HP301")
                .map(|f| (f.line, f.status))
                .collect()
        };
        let diag = "#ifdef __NVCC_DIAG_PRAGMA_SUPPORT__\n#pragma nv_diag_suppress 1719\n#else\n// old nvcc\n#pragma diag_suppress 1719\n#endif\n#include <cub/cub.cuh>\n";
        assert_eq!(on(diag), [(1, Status::Pass)]);
        let f = hazard_findings_at("a.cu", diag);
        assert!(
            f[0].message.contains("compiler pragmas only"),
            "{}",
            f[0].message
        );
        let code = "#ifdef __NVCC_DIAG_PRAGMA_SUPPORT__\n#pragma nv_diag_suppress 1719\n#else\nint legacy = 1;\n#endif\n";
        let include = "#ifdef __NVCC_DIAG_PRAGMA_SUPPORT__\n#pragma nv_diag_suppress 1719\n#include <a.h>\n#endif\n";
        for twin in [code, include] {
            let open: Vec<_> = hazard_findings_at("a.cu", twin)
                .into_iter()
                .filter(|f| {
                    matches!(f.rule.as_str(), "HP301" | "HP304") && f.status != Status::Pass
                })
                .map(|f| f.line)
                .collect();
            assert_eq!(open, [1], "{twin}");
        }
    }

    #[test]
    fn version_macros_and_runtime_compares() {
        let src = "#if CUDA_VERSION >= 11000\n#endif\n#if HIP_VERSION >= 60000000\n#endif\nint main() {\n  int v;\n  cudaRuntimeGetVersion(&v);\n  if (v < 11000) return 1;\n  printf(\"%d\", v);\n  int w = 3;\n  if (w < 11000) return 2;\n  bool nv = __NVCC__;\n}\n";
        assert_eq!(fires(src, "HP301"), [1, 12]);
        assert_eq!(fires(src, "HP302"), [8]);
    }

    /// A version test against the project's own constant is decided (and says so); twin: an
    /// unknown name leaves it open to review.
    #[test]
    fn version_tests_against_project_constants_are_decided() {
        let src = "#define MINV 12080\n#if CUDART_VERSION >= MINV\nint a;\n#else\nint b;\n#endif\n#if CUDART_VERSION >= OTHER\nint c;\n#endif\n";
        let m = crate::model::syntax::test_support::messages(src, "HP301");
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(
            m[0].contains("the condition is false") && m[0].contains("`MINV` is 12080 (line 1)"),
            "{}",
            m[0]
        );
        assert!(m[1].contains("may select a different branch"), "{}", m[1]);
    }

    /// rapidsai/rmm: the driver version against a named constant of the project (`#define
    /// MIN_ASYNC 13000`); twins: a constant that is no CUDA version number, two versions compared
    /// with each other.
    #[test]
    fn runtime_versions_against_named_constants() {
        let src = "#define MIN_ASYNC 13000\n#define ONE 1\nbool ok() {\n  int d, r;\n  cudaDriverGetVersion(&d);\n  cudaRuntimeGetVersion(&r);\n  if (d >= MIN_ASYNC && r >= MIN_ASYNC) return true;\n  if (d > ONE) return false;\n  return d >= r;\n}\n";
        assert_eq!(fires(src, "HP302"), [7]);
        let m = crate::model::syntax::test_support::messages(src, "HP302");
        assert!(m[0].contains("the constant is 13000, line 1"), "{}", m[0]);
        assert!(m[0].contains("is true on every ROCm release"), "{}", m[0]);
    }

    #[test]
    fn version_test_that_does_not_decide_hips_branch_is_pass() {
        use crate::model::syntax::test_support::fires_open;
        // llm.c: HIP never defines `__CUDA_ARCH__`, so `!(… || !defined(__CUDA_ARCH__))` is
        // false under HIP whatever the nvcc version; a plain version test still decides.
        let src = "#if defined(ENABLE_BF16) && (__CUDACC_VER_MAJOR__ < 12) && !((__CUDA_ARCH__ >= 800) || !defined(__CUDA_ARCH__))\n#endif\n#if defined(ENABLE_BF16) && (__CUDACC_VER_MAJOR__ < 12)\n#endif\n";
        assert_eq!(fires(src, "HP301"), [1, 3]);
        assert_eq!(fires_open(src, "HP301"), [3]);
    }
}
