//! HIP names the project writes itself that the target ROCm removed (HP016): qsim's
//! `cuda2hip.h` maps `CUDA_C_32F` to `HIPBLAS_C_32F`, a `hipblasDatatype_t` value hipBLAS 3.0
//! (ROCm 7.0) removed. `port` leaves the project's own ROCm layer as written, so the name
//! reaches hipcc. A use under a test of a HIP or ROCm version (`#if HIPBLAS_VERSION_MAJOR < 3`)
//! is the project's own choice between releases and is not reported. Before the removal nothing
//! is reported: the name compiles, and `port` itself writes the hipBLAS 5.x spellings for 5.x
//! targets (a second run over its output must add nothing).

use super::rules;
use super::Pass;
use crate::lex::Tok;

/// Whether a conditional's text tests a HIP or ROCm version (`HIP_VERSION`, `ROCM_VERSION`,
/// `HIPBLAS_VERSION_MAJOR`, `TORCH_HIP_VERSION`).
fn tests_hip_version(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| {
            let u = w.to_ascii_uppercase();
            u.contains("VERSION") && (u.contains("HIP") || u.contains("ROCM"))
        })
}

pub(super) fn run(p: &mut Pass) {
    let table = crate::mappings::hip_removed::table();
    let lexed = p.lexed;
    let names: Vec<usize> = lexed
        .tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            t.kind == Tok::Ident
                && std::str::from_utf8(p.text(*i)).is_ok_and(|n| table.contains_key(n))
        })
        .map(|(i, _)| i)
        .collect();
    if names.is_empty() {
        return;
    }
    // The conditional directives open at each offset: a stack of whether a HIP version is
    // tested, walked once.
    let mut versioned: Vec<std::ops::Range<usize>> = Vec::new();
    let mut stack: Vec<(usize, bool)> = Vec::new();
    for d in &lexed.directives {
        let text = String::from_utf8_lossy(&p.src()[d.start..d.end.min(p.src().len())]);
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => stack.push((d.start, tests_hip_version(&text))),
            "elif" | "elifdef" | "elifndef" => {
                if let Some(top) = stack.last_mut() {
                    top.1 |= tests_hip_version(&text);
                }
            }
            "endif" => {
                if let Some((start, v)) = stack.pop() {
                    if v {
                        versioned.push(start..d.end);
                    }
                }
            }
            _ => {}
        }
    }
    let target = p.opts.target.rocm;
    for i in names {
        let t = lexed.tokens[i];
        let at = t.start as usize;
        if versioned.iter().any(|r| r.contains(&at)) {
            continue;
        }
        let name = String::from_utf8_lossy(p.text(i)).into_owned();
        let row = &table[&name];
        let removed = row.removed;
        // Before the removal the name compiles (the port itself writes the hipBLAS 5.x
        // spellings there): nothing to report, and a second run over the output adds nothing.
        if target < removed {
            continue;
        }
        // `#if defined(__HIP_PLATFORM_HCC__) || defined(__HIP_PLATFORM_AMD__)` (sundials): the
        // condition also tests the replacement, so it holds as before.
        if or_with_replacement(p, i, &row.instead) {
            continue;
        }
        // `#define CUBLAS_COMPUTE_16F HIPBLAS_R_16F`: the project aliases a CUDA name, and what
        // replaces the removed name is what the CUDA name maps to at the target
        // (`HIPBLAS_COMPUTE_16F`, a compute type), not the removed name's generic successor.
        let instead = alias_of(p, i)
            .and_then(|cuda| match p.m.resolve(&cuda, &p.opts.target)? {
                crate::mappings::Resolution::Rename { to, .. } if to != name => Some(format!(
                    "{to}` (what `{cuda}`, the name this defines, maps to in ROCm {target})"
                )),
                _ => None,
            })
            .unwrap_or_else(|| row.instead.to_string());
        let message = format!(
            "`{name}` is not declared by ROCm {target}: it was removed in ROCm {removed} ({}); write `{instead}",
            row.note
        );
        let short = instead.split('`').next().unwrap_or(&instead).to_string();
        let mut f = p.ctx.finding(
            &rules::HIP_NAME_REMOVED,
            at..t.end as usize,
            message,
            Some(format!("write `{short}`")),
        );
        // heffte's `#ifndef __HIP_PLATFORM_HCC__` / `#define __HIP_PLATFORM_HCC__` / `#endif`:
        // the test only guards the project's own definition of the name, which holds after it
        // whatever ROCm defines; the arms do not change.
        if defines_it(p, i) {
            f.settle(&format!(
                "; the project defines `{name}` itself here: nothing reads a removed declaration"
            ));
        } else if guards_own_definition(p, i, &name) {
            f.settle(&format!(
                "; the test only guards the project's own `#define {name}` below it, so the name is defined after it either way"
            ));
        }
        p.findings.push(f);
    }
}

/// Whether token `i` is the name a `#define` defines (`#define __HIP_PLATFORM_HCC__`).
fn defines_it(p: &Pass, i: usize) -> bool {
    let lexed = p.lexed;
    lexed.directives.iter().any(|d| {
        d.name == "define"
            && d.tokens.contains(&i)
            && lexed.tokens[d.tokens.start..i]
                .iter()
                .filter(|t| t.kind == Tok::Ident)
                .count()
                == 1
    })
}

/// Whether token `i` is the name of an `#ifndef NAME` (or `#if !defined(NAME)`) whose block
/// holds nothing but `#define NAME` (with or without a value) before its `#endif`.
fn guards_own_definition(p: &Pass, i: usize, name: &str) -> bool {
    let lexed = p.lexed;
    let Some(at) = lexed.directives.iter().position(|d| d.tokens.contains(&i)) else {
        return false;
    };
    let d = &lexed.directives[at];
    let text = |d: &crate::lex::Directive| {
        String::from_utf8_lossy(&p.src()[d.start..d.end.min(p.src().len())])
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '#')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    let head = text(d);
    let negated = match d.name.as_str() {
        "ifndef" => head.len() == 2 && head[1] == name,
        "if" => head.len() == 3 && head[1] == "!defined" && head[2] == name,
        _ => false,
    };
    if !negated {
        return false;
    }
    let (Some(def), Some(end)) = (lexed.directives.get(at + 1), lexed.directives.get(at + 2))
    else {
        return false;
    };
    let def_words = text(def);
    let only_directives = lexed.tokens[d.tokens.end..end.tokens.start]
        .iter()
        .enumerate()
        .all(|(k, _)| def.tokens.contains(&(d.tokens.end + k)));
    def.name == "define"
        && def_words.get(1).map(String::as_str) == Some(name)
        && end.name == "endif"
        && only_directives
}

/// Whether token `i` sits in an `#if`/`#elif` that joins tests with `||` and also names
/// `instead`, the removed name's replacement.
fn or_with_replacement(p: &Pass, i: usize, instead: &str) -> bool {
    let lexed = p.lexed;
    let Some(d) = lexed.directives.iter().find(|d| d.tokens.contains(&i)) else {
        return false;
    };
    if !matches!(d.name.as_str(), "if" | "elif") {
        return false;
    }
    let text = String::from_utf8_lossy(&p.src()[d.start..d.end.min(p.src().len())]);
    text.contains("||")
        && text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| !w.is_empty() && w == instead)
}

/// The CUDA name a `#define NAME BODY` whose one-token body is token `i` defines: `NAME`
/// when the tables know it as a CUDA API.
fn alias_of(p: &Pass, i: usize) -> Option<String> {
    let lexed = p.lexed;
    let d = lexed.directives.iter().find(|d| d.tokens.contains(&i))?;
    if d.name != "define" {
        return None;
    }
    let code: Vec<usize> = d
        .tokens
        .clone()
        .filter(|&j| lexed.tokens[j].kind != Tok::Comment)
        .collect();
    // `#`, `define`, NAME, BODY: an object-like alias of one token.
    let (&name, &body) = (code.get(2)?, code.get(3)?);
    if body != i || code.len() != 4 || p.src().get(lexed.tokens[name].end as usize) == Some(&b'(') {
        return None;
    }
    let cuda = std::str::from_utf8(p.text(name)).ok()?;
    p.m.knows(cuda).then(|| cuda.to_string())
}

#[cfg(test)]
mod tests {
    fn found(src: &str, rocm: &str) -> Vec<(u32, String)> {
        let opts = crate::translate::Options::for_tests(rocm, false);
        let t = crate::translate::translate_bytes(
            "cuda2hip.h",
            src.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        assert_eq!(
            String::from_utf8(t.output).unwrap(),
            src,
            "the project's layer stays"
        );
        t.findings
            .into_iter()
            .filter(|f| f.rule == "HP016")
            .map(|f| (f.line, f.status.to_string()))
            .collect()
    }

    /// qsim's shim maps `CUDA_C_32F` to `HIPBLAS_C_32F`: from ROCm 7.0 the name is gone
    /// (REMEDIATION); before, it compiles and nothing is reported. Twins: the same name under a test of hipBLAS's version,
    /// and the name hipBLAS keeps.
    #[test]
    fn a_removed_hip_name_in_the_projects_layer_is_reported_from_its_removal() {
        let shim = "#pragma once\n#define CUDA_C_32F HIPBLAS_C_32F\n#define CUDA_C_64F HIP_C_64F\n";
        assert_eq!(found(shim, "7.0"), [(2, "REMEDIATION".to_string())]);
        assert!(found(shim, "6.2").is_empty());
        // ggml's `vendors/hip.h` aliases cuBLAS compute types to hipBLAS 2 datatypes: the fix
        // is what the CUDA name maps to (a compute type), not `HIP_R_16F`.
        let opts = crate::translate::Options::for_tests("7.0", false);
        let alias = "#define CUBLAS_COMPUTE_16F HIPBLAS_R_16F\n#define CUDA_R_16F HIPBLAS_R_16F\n";
        let t = crate::translate::translate_bytes(
            "hip.h",
            alias.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        let s: Vec<String> = t
            .findings
            .iter()
            .filter(|f| f.rule == "HP016")
            .map(|f| f.suggestion.clone().unwrap_or_default())
            .collect();
        assert_eq!(s, ["write `HIPBLAS_COMPUTE_16F`", "write `HIP_R_16F`"]);
        let versioned = "#if HIPBLAS_VERSION_MAJOR < 3\n#define CUDA_C_32F HIPBLAS_C_32F\n#else\n#define CUDA_C_32F HIP_C_32F\n#endif\n";
        assert!(found(versioned, "7.0").is_empty());
    }
}

#[cfg(test)]
mod platform_tests {
    /// hoomd-blue's AMD arms test `__HIP_PLATFORM_HCC__`, which hip_common.h stopped defining
    /// in ROCm 6.0: from 6.0 those arms stop compiling (HP016, with `port` renaming the macro to
    /// `__HIP_PLATFORM_AMD__`, so a second run finds nothing). Twin: ROCm 5.7 still defines it.
    #[test]
    fn the_old_amd_platform_macro_is_removed_from_rocm_6() {
        let src = "#ifdef __HIP_PLATFORM_HCC__\n#define WARP_SIZE 64\n#else\n#define WARP_SIZE 32\n#endif\n";
        let t = crate::translate::translate_for_tests(src, "6.2");
        let out = String::from_utf8(t.output).unwrap();
        let f: Vec<_> = t.findings.iter().filter(|f| f.rule == "HP016").collect();
        assert_eq!(f.len(), 1, "{:?}", t.findings);
        assert!(
            f[0].message.contains("removed in ROCm 6.0.0"),
            "{}",
            f[0].message
        );
        assert!(out.starts_with("#ifdef __HIP_PLATFORM_AMD__\n"), "{out}");
        let again = crate::translate::translate_for_tests(&out, "6.2");
        assert!(again.findings.iter().all(|f| f.rule != "HP016"));
        let old = crate::translate::translate_for_tests(src, "5.7");
        assert!(old.findings.iter().all(|f| f.rule != "HP016"));
    }

    /// heffte: `#ifndef __HIP_PLATFORM_HCC__` / `#define __HIP_PLATFORM_HCC__` / `#endif`
    /// only guards the project's own definition: the test is PASS. Twin: a guard with code
    /// besides the definition stays open.
    #[test]
    fn a_test_that_only_guards_the_projects_own_definition_is_pass() {
        let own = "#ifndef __HIP_PLATFORM_HCC__\n#define __HIP_PLATFORM_HCC__\n#endif\n#include <hip/hip_runtime.h>\n";
        let t = crate::translate::translate_for_tests(own, "6.2");
        let test: Vec<_> = t
            .findings
            .iter()
            .filter(|f| f.rule == "HP016" && f.line == 1)
            .collect();
        assert_eq!(test.len(), 1, "{:?}", t.findings);
        assert_eq!(test[0].status, crate::gate::Status::Pass);
        // The definition itself reads nothing ROCm removed.
        assert!(
            t.findings
                .iter()
                .filter(|f| f.rule == "HP016")
                .all(|f| f.status == crate::gate::Status::Pass),
            "{:?}",
            t.findings
        );
        let more = "#ifndef __HIP_PLATFORM_HCC__\n#define __HIP_PLATFORM_HCC__\nint nvidia_path;\n#endif\n";
        let t = crate::translate::translate_for_tests(more, "6.2");
        assert!(
            t.findings
                .iter()
                .any(|f| f.rule == "HP016" && f.line == 1 && f.status != crate::gate::Status::Pass),
            "{:?}",
            t.findings
        );
    }

    /// sundials: `#if defined(__HIP_PLATFORM_HCC__) || defined(__HIP_PLATFORM_AMD__)` also
    /// tests the replacement, so it holds on ROCm 6 as before. Twin: `&&` with another macro.
    #[test]
    fn the_old_macro_beside_its_replacement_in_an_or_is_no_finding() {
        let or =
            "#if defined(__HIP_PLATFORM_HCC__) || defined(__HIP_PLATFORM_AMD__)\nint x;\n#endif\n";
        let t = crate::translate::translate_for_tests(or, "6.2");
        assert!(
            t.findings.iter().all(|f| f.rule != "HP016"),
            "{:?}",
            t.findings
        );
        let and = "#if defined(__HIP_PLATFORM_HCC__) && defined(USE_FAST)\nint x;\n#endif\n";
        let t = crate::translate::translate_for_tests(and, "6.2");
        assert!(
            t.findings.iter().any(|f| f.rule == "HP016"),
            "{:?}",
            t.findings
        );
    }
}
