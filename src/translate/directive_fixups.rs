//! Findings on directive lines the port cannot rewrite: `#pragma weak` aliases (HP011) and
//! macros that paste a CUDA prefix onto their argument (HP018). Each reads the line's code
//! tokens once ([`crate::lex::Lexed::directive_words`]).

use super::rules;
use super::Pass;

/// `#pragma weak b = a`: an alias hipcc cannot emit where `a` is not defined in the module
/// (HP011). No rewrite: the alias's signature is not in the pragma.
pub(super) fn weak_aliases(p: &mut Pass) {
    for d in &p.lexed.directives {
        if d.name != "pragma" {
            continue;
        }
        let words = p.lexed.directive_words(d);
        // `#` `pragma` `weak` `b` `=` `a`
        if words.len() < 6 || p.text(words[2]) != b"weak" || p.text(words[4]) != b"=" {
            continue;
        }
        let alias = String::from_utf8_lossy(p.text(words[3])).into_owned();
        let target = String::from_utf8_lossy(p.text(words[5])).into_owned();
        let f = p.ctx.finding(
            &rules::WEAK_ALIAS_PRAGMA,
            d.start..d.end,
            format!("`#pragma weak {alias}={target}`: hipcc -c stops with \"alias must point to a defined variable or function\" where `{target}` is not defined in the unit"),
            Some(format!("define `{alias}` as a function that calls `{target}`, or guard the pragma with `#if !defined(__HIP_PLATFORM_AMD__)`")),
        );
        p.findings.push(f);
    }
}

/// The CUDA library prefixes a macro may paste onto a name, with the HIP prefix that keeps the
/// library's names after it.
const PASTED_PREFIXES: [(&[u8], &str); 6] = [
    (b"cuda", "hip"),
    (b"cublas", "hipblas"),
    (b"cufft", "hipfft"),
    (b"curand", "hiprand"),
    (b"cusparse", "hipsparse"),
    (b"cusolver", "hipsolver"),
];

/// `#define CUDA_CALL(call) check(cuda##call)`: HP018 at each pasted CUDA prefix (cudaKDTree's
/// `CUKD_CUDA_CALL`), once per macro.
pub(super) fn pasted_prefixes(p: &mut Pass) {
    let mut own = None;
    for d in &p.lexed.directives {
        if d.name != "define" {
            continue;
        }
        let words = p.lexed.directive_words(d);
        let Some(&name) = words.get(2) else { continue };
        let pasted = words.windows(3).skip(3).find_map(|w| {
            let (a, h1, h2) = (w[0], w[1], w[2]);
            let prefix = PASTED_PREFIXES.iter().find(|(c, _)| p.text(a) == *c)?;
            (p.text(h1) == b"#"
                && p.text(h2) == b"#"
                && p.lexed.tokens[h2].start == p.lexed.tokens[h1].end)
                .then_some((a, prefix.1))
        });
        let Some((at, hip)) = pasted else { continue };
        let macro_name = String::from_utf8_lossy(p.text(name)).into_owned();
        let cuda = String::from_utf8_lossy(p.text(at)).into_owned();
        let t = p.lexed.tokens[at];
        let mapped = own_rocm_names(p, &cuda, &mut own);
        let mut f = p.ctx.finding(
            &rules::PASTED_CUDA_PREFIX,
            t.start as usize..t.end as usize,
            format!("macro `{macro_name}` pastes `{cuda}` onto its argument: the CUDA names it forms at each use exist only after preprocessing, so the port leaves every use calling the CUDA function"),
            Some(format!("paste `{hip}` instead (`{hip} ## …`) and check that each use names a function HIP has under that name")),
        );
        if mapped.len() >= OWN_LAYER {
            // The project's ROCm arm defines the CUDA names onto HIP's itself (cuBQL's
            // `#if defined(__HIPCC__)` / `#define cudaMalloc hipMalloc`, 31 names): the names
            // the macro forms are the project's to map. A use here that forms a name it does not
            // map is what is left.
            let formed = formed_names(p, &macro_name, &cuda);
            let missing: Vec<&String> = formed.iter().filter(|n| !mapped.contains(*n)).collect();
            if missing.is_empty() {
                f.status = crate::gate::Status::Pass;
                let uses = match formed.len() {
                    0 => "its uses are in other files, where a name the arm does not map stops the build".to_string(),
                    1 => "the use in this file forms a mapped name".to_string(),
                    n => format!("the {n} names its uses in this file form are mapped"),
                };
                f.message.push_str(&format!(
                    " — but the project's ROCm arm maps {} `{cuda}…` names onto HIP's itself ({uses}): nothing to change",
                    mapped.len(),
                ));
            } else {
                f.message.push_str(&format!(
                    " — the project's ROCm arm maps {} `{cuda}…` names onto HIP's, but not {}, which a use in this file forms",
                    mapped.len(),
                    missing.iter().take(4).map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ));
                f.suggestion = Some(format!(
                    "add the missing names to the project's ROCm arm (`#define {} hip…`)",
                    missing[0]
                ));
            }
        }
        p.findings.push(f);
    }
}

/// How many names with a pasted prefix the project's ROCm arm must map for it to be the
/// project's own layer for that prefix (one `#define cudaSuccess hipSuccess` is not).
const OWN_LAYER: usize = 3;

/// The names starting with `prefix` that ROCm arms define, in this file (`own`, read once) and
/// in the project files it includes.
fn own_rocm_names(
    p: &Pass,
    prefix: &str,
    own: &mut Option<std::collections::BTreeSet<String>>,
) -> std::collections::BTreeSet<String> {
    let here = own.get_or_insert_with(|| {
        crate::model::project::facts(p.ctx.path, p.src(), p.lexed)
            .macros
            .into_iter()
            .filter(|m| m.arm == crate::model::project::Arm::Rocm && m.params.is_none())
            .map(|m| m.name)
            .collect()
    });
    here.iter()
        .chain(p.project.rocm.keys())
        .filter(|n| n.starts_with(prefix) && n.len() > prefix.len())
        .cloned()
        .collect()
}

/// The names the uses of `macro_name` in this file form: `prefix` and the first word of the
/// argument (`CALL(Malloc(&p, n))` forms `cudaMalloc`).
fn formed_names(p: &Pass, macro_name: &str, prefix: &str) -> Vec<String> {
    let toks = &p.lexed.tokens;
    let mut out = Vec::new();
    for i in 0..toks.len() {
        if toks[i].kind != crate::lex::Tok::Ident || p.text(i) != macro_name.as_bytes() {
            continue;
        }
        // The definition itself (`#define CALL(call) …`).
        if i > 0 && p.text(i - 1) == b"define" {
            continue;
        }
        let Some(open) = p.lexed.next_code(i).filter(|&j| p.text(j) == b"(") else {
            continue;
        };
        let Some(arg) = p.lexed.next_code(open) else {
            continue;
        };
        if toks[arg].kind == crate::lex::Tok::Ident {
            let n = format!("{prefix}{}", String::from_utf8_lossy(p.text(arg)));
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// HIP's twin of each CUDA macro that turns `half` operators or conversions off. HIP has no
/// `half2` one: `__HIP_NO_HALF_OPERATORS__` turns off the operators of both types
/// (`amd_hip_fp16.h`).
const HALF_TWINS: [(&[u8], &str); 3] = [
    (b"__CUDA_NO_HALF_OPERATORS__", "__HIP_NO_HALF_OPERATORS__"),
    (b"__CUDA_NO_HALF2_OPERATORS__", "__HIP_NO_HALF_OPERATORS__"),
    (
        b"__CUDA_NO_HALF_CONVERSIONS__",
        "__HIP_NO_HALF_CONVERSIONS__",
    ),
];

/// `#undef __CUDA_NO_HALF2_OPERATORS__`: the file lifts a restriction the build put on `half`
/// for nvcc (PyTorch compiles extensions with `-D__CUDA_NO_HALF_OPERATORS__` and its
/// siblings), so its code uses what the restriction takes away. The HIP twin stays defined where
/// a build defines it (PyTorch's ROCm build gives hipcc `-D__HIP_NO_HALF_OPERATORS__=1
/// -D__HIP_NO_HALF_CONVERSIONS__=1`): the port adds `#undef` of the twin on the next line, once
/// per twin, unless the file names the twin already (a rerun adds nothing). HP027, PASS: done.
pub(super) fn half_restriction_undefs(p: &mut Pass) {
    let toks = &p.lexed.tokens;
    let named = |twin: &str| {
        (0..toks.len())
            .any(|i| toks[i].kind == crate::lex::Tok::Ident && p.text(i) == twin.as_bytes())
    };
    let mut done: Vec<&str> = Vec::new();
    let mut adds: Vec<(std::ops::Range<usize>, String, &str)> = Vec::new();
    for d in &p.lexed.directives {
        if d.name != "undef" {
            continue;
        }
        let words = p.lexed.directive_words(d);
        let Some(&name) = words.get(2) else { continue };
        let Some((cuda, twin)) = HALF_TWINS.iter().find(|(c, _)| p.text(name) == *c) else {
            continue;
        };
        if done.contains(twin) || named(twin) {
            continue;
        }
        done.push(twin);
        adds.push((
            d.start..d.end,
            String::from_utf8_lossy(cuda).into_owned(),
            twin,
        ));
    }
    let nl = crate::source::newline_of(p.src());
    for (range, cuda, twin) in adds {
        let at = super::includes::line_after(p.src(), range.end);
        // A directive on the file's last line, with no line break after it.
        let lead = if at == p.src().len() && !p.src().ends_with(b"\n") {
            nl
        } else {
            ""
        };
        p.edits.push(crate::edit::Edit::insert(
            at,
            format!("{lead}#undef {twin}{nl}"),
        ));
        p.stats.fixups += 1;
        let f = p.ctx.finding(
            &rules::HALF_RESTRICTION_LIFTED,
            range,
            format!("`#undef {cuda}` lifts a restriction the build puts on `half` for nvcc, so the code here uses what it takes away; HIP's twin `{twin}` (PyTorch's ROCm build passes it to hipcc) stays defined, so `#undef {twin}` was added after it (done by `hipport port`)"),
            None,
        );
        p.findings.push(f);
    }
}

#[cfg(test)]
mod tests {
    use crate::translate::{translate_bytes, Options};

    fn port(src: &str) -> (String, Vec<(String, u32)>) {
        let m = crate::mappings::get();
        let t = translate_bytes("k.cu", src.as_bytes(), m, &Options::for_tests("6.2", true));
        let f = t
            .findings
            .iter()
            .map(|f| (f.rule.clone(), f.line))
            .collect();
        (String::from_utf8(t.output).unwrap(), f)
    }

    /// Positive: each CUDA restriction lifted gets its HIP twin lifted on the next line, once per
    /// twin (the `half2` macro shares the operators' twin), CRLF kept. Twins: a file that names
    /// the HIP twin already (`#undef __HIP_NO_HALF_OPERATORS__`, or a `-U` it tests) gets
    /// nothing; a `#define` of the CUDA macro restricts and gets nothing; the output ported again
    /// is unchanged.
    #[test]
    fn lifting_a_cuda_half_restriction_lifts_the_hip_twin() {
        let src = "#undef __CUDA_NO_HALF_OPERATORS__\r\n#undef __CUDA_NO_HALF2_OPERATORS__\r\n#include <cuda_fp16.h>\r\n";
        let (out, f) = port(src);
        assert!(out.starts_with("#undef __CUDA_NO_HALF_OPERATORS__\r\n#undef __HIP_NO_HALF_OPERATORS__\r\n#undef __CUDA_NO_HALF2_OPERATORS__\r\n"), "{out}");
        assert_eq!(out.matches("__HIP_NO_HALF").count(), 1);
        assert_eq!(
            f.iter().filter(|(r, _)| r == "HP027").collect::<Vec<_>>(),
            [&("HP027".to_string(), 1)]
        );
        let (again, f2) = port(&out);
        assert_eq!(again, out);
        assert!(!f2.iter().any(|(r, _)| r == "HP027"));
        let handled = "#undef __CUDA_NO_HALF2_OPERATORS__\n#ifdef __HIP_NO_HALF_OPERATORS__\n#undef __HIP_NO_HALF_OPERATORS__\n#endif\n";
        assert!(!port(handled).1.iter().any(|(r, _)| r == "HP027"));
        let restricts = "#define __CUDA_NO_HALF_OPERATORS__\n#include <cuda_fp16.h>\n";
        let (out, f) = port(restricts);
        assert!(!out.contains("__HIP_NO_HALF") && !f.iter().any(|(r, _)| r == "HP027"));
        // A directive on the last line with no line break after it.
        let (out, _) = port("#undef __CUDA_NO_HALF_CONVERSIONS__");
        assert_eq!(
            out,
            "#undef __CUDA_NO_HALF_CONVERSIONS__\n#undef __HIP_NO_HALF_CONVERSIONS__\n"
        );
    }
}
