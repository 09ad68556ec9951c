//! Whether the project's build defines its ROCm switch (HP303 asks a person to check): `-DNAME`,
//! `define_macros += [('NAME', None)]`, `add_compile_definitions(NAME)`, `USE_ROCM` in a
//! PyTorch extension, or a CMake macro/function of the project that forwards an argument to the
//! compile definitions (`register_model(hip HIP …)` where `register_model` appends its second
//! argument to a `…_DEFINITIONS` list), in any build file (`CMakeLists.txt`, `*.cmake`,
//! `setup.py`, Makefiles).

use crate::finding::Finding;
use crate::gate::Status;

/// 1-based line of byte `at`.
fn line_of(text: &[u8], at: usize) -> usize {
    text[..at.min(text.len())]
        .iter()
        .filter(|&&c| c == b'\n')
        .count()
        + 1
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Where a build file defines `name` for the compiler: `-DNAME`, `('NAME'`/`("NAME"` in a file
/// with `define_macros`, `add_compile_definitions(NAME` / `target_compile_definitions(… NAME`,
/// or a configured header's template (`#cmakedefine NAME` in a `*.in` file).
fn defined_in(rel: &str, text: &[u8], name: &str) -> Option<String> {
    if is_autoconf(rel) {
        return autoconf_defines(rel, text, name);
    }
    let n = name.as_bytes();
    let has = |needle: &[u8]| memchr::memmem::find(text, needle).is_some();
    let py_macros = has(b"define_macros");
    let cmake_defs = has(b"compile_definitions");
    let mut from = 0;
    while let Some(p) = memchr::memmem::find(&text[from..], n).map(|p| p + from) {
        from = p + n.len();
        let before = p.checked_sub(1).map(|i| text[i]);
        let after = text.get(p + n.len()).copied();
        if after.is_some_and(is_ident) {
            continue;
        }
        let dash_d = p >= 2 && &text[p - 2..p] == b"-D";
        let quoted = matches!(before, Some(b'\'') | Some(b'"'))
            && py_macros
            && text[..p]
                .iter()
                .rev()
                .find(|c| !c.is_ascii_whitespace() && **c != b'\'' && **c != b'"')
                == Some(&b'(');
        // An argument of `target_compile_definitions(t PRIVATE NAME)` or
        // `add_compile_definitions(NAME)`, on any line of the call.
        let cmake = cmake_defs
            && before.is_some_and(|c| c.is_ascii_whitespace() || c == b'(')
            && memchr::memmem::rfind(&text[..p], b"compile_definitions(")
                .is_some_and(|call| !text[call..p].contains(&b')'));
        // A configured header's template (`config.h.in`: `#cmakedefine NAME`,
        // `#cmakedefine01 NAME`, `#define NAME @VAR@`/`${VAR}`): CMake's `configure_file`
        // writes the definition where the build sets the variable.
        let line_start = text[..p]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let head = String::from_utf8_lossy(&text[line_start..p]);
        let head = head.trim();
        let rest_end = text[p..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(text.len(), |i| p + i);
        let rest = &text[p + n.len()..rest_end];
        let template = rel.ends_with(".in")
            && (matches!(head, "#cmakedefine" | "#cmakedefine01" | "# cmakedefine")
                || (head == "#define" && (rest.contains(&b'@') || rest.starts_with(b" ${"))));
        if dash_d || quoted || cmake || template {
            return Some(format!("{rel}:{}", line_of(text, p)));
        }
    }
    None
}

/// Autoconf's inputs: `configure.ac`, `configure.in` and the `*.m4` files they include.
pub fn is_autoconf(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "configure.ac" || name == "configure.in" || name.ends_with(".m4")
}

/// Where autoconf defines `name` in the `config.h` it writes: `AC_DEFINE([NAME], …)`,
/// `AC_DEFINE_UNQUOTED(NAME, …)`, or a check whose success defines it by Autoconf's naming
/// (`AC_CHECK_FUNCS([hsa_amd_portable_export_dmabuf])` → `HAVE_HSA_AMD_PORTABLE_EXPORT_DMABUF`,
/// `AC_CHECK_HEADERS([rocm_smi/rocm_smi.h])` → `HAVE_ROCM_SMI_ROCM_SMI_H`,
/// `AC_CHECK_DECLS([x])` → `HAVE_DECL_X`). The configure run decides whether it holds.
fn autoconf_defines(rel: &str, text: &[u8], name: &str) -> Option<String> {
    let text = String::from_utf8_lossy(text);
    let have = |w: &str, prefix: &str| {
        let up: String = w
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        format!("{prefix}{up}") == name
    };
    for (i, l) in text.lines().enumerate() {
        let l = l.trim_start();
        if l.starts_with("dnl") || l.starts_with('#') {
            continue;
        }
        for (call, prefix) in [
            ("AC_DEFINE(", None),
            ("AC_DEFINE_UNQUOTED(", None),
            ("AC_CHECK_FUNCS(", Some("HAVE_")),
            ("AC_CHECK_FUNCS_ONCE(", Some("HAVE_")),
            ("AC_CHECK_HEADERS(", Some("HAVE_")),
            ("AC_CHECK_DECLS(", Some("HAVE_DECL_")),
            ("AC_CHECK_TYPES(", Some("HAVE_")),
            ("AC_CHECK_MEMBERS(", Some("HAVE_")),
        ] {
            let Some(at) = l.find(call) else { continue };
            let args = &l[at + call.len()..];
            let first = args
                .trim_start_matches('[')
                .split([']', ',', ')'])
                .next()
                .unwrap_or("");
            let hit = match prefix {
                None => first.trim() == name,
                Some(p) => first.split_whitespace().any(|w| have(w, p)),
            };
            if hit {
                return Some(format!("{rel}:{}", i + 1));
            }
        }
    }
    None
}

/// The project's CMake macros and functions that put one of their parameters into the compile
/// definitions: `(name in lower case, parameter index, the body line that forwards it)`. A
/// body line forwards `${P}` when it is a `compile_definitions(`/`add_definitions(` call or
/// appends to or sets a variable whose name ends in `DEFINITIONS`.
fn forwarders(build_files: &[(&str, &[u8])]) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    for (rel, bytes) in build_files {
        let text = String::from_utf8_lossy(bytes);
        let mut open: Option<(String, Vec<String>)> = None;
        for (i, raw) in text.lines().enumerate() {
            let l = raw.trim();
            let lower = l.to_ascii_lowercase();
            let head = lower.split('(').next().unwrap_or("").trim();
            if head == "macro" || head == "function" {
                let args: Vec<String> = l
                    .split_once('(')
                    .map_or("", |(_, r)| r.split(')').next().unwrap_or(""))
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
                open = args
                    .split_first()
                    .map(|(n, ps)| (n.to_ascii_lowercase(), ps.to_vec()));
                continue;
            }
            if head == "endmacro" || head == "endfunction" {
                open = None;
                continue;
            }
            let Some((name, params)) = &open else {
                continue;
            };
            let defines = lower.contains("compile_definitions(")
                || lower.contains("add_definitions(")
                || ((head == "list" || head == "set")
                    && l.split_whitespace()
                        .take(3)
                        .any(|w| w.trim_end_matches(')').ends_with("DEFINITIONS")));
            if !defines {
                continue;
            }
            // The values, not the name of the list a value goes to (`IMPL_${NAME}_DEFINITIONS`).
            let values: String = match head {
                "list" => l.split_whitespace().skip(2).collect::<Vec<_>>().join(" "),
                "set" => l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "),
                _ => l.to_string(),
            };
            for (k, p) in params.iter().enumerate() {
                if values.contains(&format!("${{{p}}}")) {
                    out.push((name.clone(), k, format!("{rel}:{}", i + 1)));
                }
            }
        }
    }
    out
}

/// Where a build file calls a forwarding macro with `name` as the forwarded argument
/// (`register_model(hip HIP HIPStream.cpp)`), naming the macro's line.
fn forwarded_in(
    rel: &str,
    text: &[u8],
    name: &str,
    fwd: &[(String, usize, String)],
) -> Option<String> {
    let text = String::from_utf8_lossy(text);
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        let Some((head, args)) = l.split_once('(') else {
            continue;
        };
        let head = head.trim().to_ascii_lowercase();
        let args: Vec<&str> = args
            .split(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(|a| a.trim_matches('"'))
            .collect();
        for (m, k, at) in fwd {
            if *m == head && args.get(*k) == Some(&name) {
                return Some(format!(
                    "{rel}:{} (`{head}` adds it to the compile definitions, {at})",
                    i + 1
                ));
            }
        }
    }
    None
}

/// The switch an HP303 finding names (its first code span).
pub(crate) fn switch_of(f: &Finding) -> Option<&str> {
    if f.rule != "HP303" {
        return None;
    }
    let (_, rest) = f.message.split_once('`')?;
    rest.split_once('`').map(|(n, _)| n)
}

/// HP303 ("check that the HIP build defines it") becomes PASS where the project's build files
/// define the switch, naming the place.
pub fn pass_switches_the_build_defines(findings: &mut [Finding], build_files: &[(&str, &[u8])]) {
    let fwd = forwarders(build_files);
    let cmake: Vec<(&str, &[u8])> = build_files
        .iter()
        .filter(|(rel, _)| {
            crate::inventory::kind::by_name(rel) == Some(crate::inventory::kind::FileKind::CMake)
        })
        .copied()
        .collect();
    let listed = crate::inventory::cmake::list_definitions(&cmake);
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        let Some(name) = switch_of(f).map(str::to_string) else {
            continue;
        };
        let mut at = build_files
            .iter()
            .find_map(|(rel, text)| defined_in(rel, text, &name));
        if at.is_none() {
            at = build_files
                .iter()
                .find_map(|(rel, text)| forwarded_in(rel, text, &name, &fwd));
        }
        if at.is_none() {
            at = listed
                .get(&name)
                .map(|at| format!("{at} (a list the build passes as compile definitions)"));
        }
        if at.is_none() && name == "USE_ROCM" {
            at = build_files
                .iter()
                .find(|(_, t)| {
                    // `torch.utils.cpp_extension` or `from torch.utils import cpp_extension`.
                    memchr::memmem::find(t, b"torch.utils.cpp_extension").is_some()
                        || (memchr::memmem::find(t, b"from torch.utils import").is_some()
                            && memchr::memmem::find(t, b"cpp_extension").is_some())
                })
                .map(|(rel, _)| {
                    format!(
                        "{rel} (a PyTorch extension: torch.utils.cpp_extension passes \
                         -DUSE_ROCM=1 to ROCm builds)"
                    )
                });
        }
        if let Some(at) = at {
            f.status = Status::Pass;
            f.message = format!(
                "this project ports itself when `{name}` is defined, and its build defines it: \
                 {at}; hipport reads its `{name}` branches as the HIP build"
            );
            f.suggestion = None;
        } else if let Some((dep, at)) = dependency_of(&name, build_files) {
            f.status = Status::Pass;
            f.message = format!(
                "`{name}` is {dep}'s configuration macro: {dep}'s build defines it when {dep} is \
                 built for HIP, and this project's build brings {dep} in ({at}); hipport reads \
                 its `{name}` branches as the HIP build (build {dep} with its HIP backend)"
            );
            f.suggestion = None;
        }
    }
}

/// The dependency a switch belongs to, by its first word (`RAJA_ENABLE_HIP`, `AMREX_USE_HIP`):
/// a package the project's CMake build brings in under that name, any case
/// (`find_package(AMReX …)`, `add_subdirectory(tpl/RAJA)`, `FetchContent_Declare(raja …)`,
/// `ExternalProject_Add(…)`), with where.
fn dependency_of(name: &str, build_files: &[(&str, &[u8])]) -> Option<(String, String)> {
    let prefix = name.split('_').next().filter(|p| p.len() >= 3)?;
    if matches!(
        prefix,
        "USE" | "ENABLE" | "WITH" | "HAVE" | "GPU" | "HIP" | "ROCM" | "AMD"
    ) {
        return None;
    }
    for (rel, text) in build_files {
        let is_cmake = rel.ends_with("CMakeLists.txt") || rel.ends_with(".cmake");
        if !is_cmake {
            continue;
        }
        for (i, line) in String::from_utf8_lossy(text).lines().enumerate() {
            let code = line.split('#').next().unwrap_or("").trim_start();
            let Some((cmd, args)) = code.split_once('(') else {
                continue;
            };
            let cmd = cmd.trim().to_ascii_lowercase();
            let first = args
                .split(|c: char| c.is_whitespace() || c == ')')
                .find(|w| !w.is_empty())
                .unwrap_or("")
                .trim_matches('"');
            let dep = match cmd.as_str() {
                "find_package"
                | "fetchcontent_declare"
                | "externalproject_add"
                | "cpmaddpackage" => first,
                // A copy of the dependency, in a folder the project keeps them in (a folder of
                // its own that is named alike is no dependency: gromacs' `colvars/`).
                "add_subdirectory" => {
                    let dir = first.trim_end_matches('/');
                    let vendored = dir.split('/').any(|p| {
                        matches!(
                            p.to_ascii_lowercase().as_str(),
                            "tpl"
                                | "tpls"
                                | "third_party"
                                | "thirdparty"
                                | "3rdparty"
                                | "external"
                                | "externals"
                                | "extern"
                                | "deps"
                                | "submodules"
                                | "vendor"
                        )
                    });
                    if !vendored {
                        continue;
                    }
                    dir.rsplit('/').next().unwrap_or("")
                }
                _ => continue,
            };
            if dep.eq_ignore_ascii_case(prefix) {
                return Some((dep.to_string(), format!("`{rel}:{}`", i + 1)));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RAJAPerf's `RAJA_ENABLE_HIP` and amr-wind's `AMREX_USE_HIP` come from the dependency
    /// the build brings in; twins: no such package, and a generic first word.
    #[test]
    fn a_dependencys_configuration_macro_is_its_build() {
        let msg = |n: &str| format!("this project ports itself when `{n}` is defined: check");
        let lists: &[u8] = b"add_subdirectory(tpl/RAJA)\nfind_package(AMReX CONFIG REQUIRED)\n";
        for name in ["RAJA_ENABLE_HIP", "AMREX_USE_HIP"] {
            let mut fs = vec![finding("HP303", "a.cpp", &msg(name), (0, 1))];
            pass_switches_the_build_defines(&mut fs, &[("CMakeLists.txt", lists)]);
            assert_eq!(fs[0].status, Status::Pass, "{name}");
            assert!(
                fs[0].message.contains("configuration macro"),
                "{}",
                fs[0].message
            );
        }
        // A folder of the project's own named like the switch is no dependency.
        let own: &[u8] = b"add_subdirectory(colvars)\n";
        let mut fs = vec![finding("HP303", "a.cpp", &msg("COLVARS_HIP"), (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("CMakeLists.txt", own)]);
        assert_eq!(fs[0].status, Status::Remediation);
        for name in ["KOKKOS_ENABLE_HIP", "USE_HIP"] {
            let mut fs = vec![finding("HP303", "a.cpp", &msg(name), (0, 1))];
            pass_switches_the_build_defines(&mut fs, &[("CMakeLists.txt", lists)]);
            assert_eq!(fs[0].status, Status::Remediation, "{name}");
        }
    }

    use super::super::test_finding as finding;

    /// A configured header's template defines the switch where the build sets its variable
    /// (`#cmakedefine KOKKOS_ENABLE_HIP`, `#define COLMAP_HIP_ENABLED @HIP_ENABLED@`); twins: the
    /// same lines outside a `*.in` template, and a plain `#define` of another value.
    #[test]
    fn configured_header_templates_define_switches() {
        let msg = |n: &str| format!("this project ports itself when `{n}` is defined: check");
        let tpl: &[u8] = b"#cmakedefine KOKKOS_ENABLE_HIP
#define COLMAP_HIP_ENABLED @HIP_ENABLED@
#define OTHER_HIP 1
";
        for (name, line) in [("KOKKOS_ENABLE_HIP", 1), ("COLMAP_HIP_ENABLED", 2)] {
            let mut fs = vec![finding("HP303", "a.h", &msg(name), (0, 1))];
            pass_switches_the_build_defines(&mut fs, &[("core/config.h.in", tpl)]);
            assert_eq!(fs[0].status, Status::Pass, "{name}");
            assert!(fs[0].message.contains(&format!("core/config.h.in:{line}")));
            let mut fs = vec![finding("HP303", "a.h", &msg(name), (0, 1))];
            pass_switches_the_build_defines(&mut fs, &[("core/config.h", tpl)]);
            assert_eq!(fs[0].status, Status::Remediation, "{name}");
        }
        let mut fs = vec![finding("HP303", "a.h", &msg("OTHER_HIP"), (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("core/config.h.in", tpl)]);
        assert_eq!(fs[0].status, Status::Remediation);
    }

    /// ucx's `config/m4/rocm.m4` (BSD-3-Clause): configure defines the switches in `config.h`
    /// (`AC_DEFINE([HAVE_ROCM_RESERVED_ADDR_TYPE], …)`, and `AC_CHECK_FUNCS` by Autoconf's
    /// `HAVE_` naming). Twins: a name only a comment mentions, and the same text outside an
    /// autoconf file.
    #[test]
    fn autoconf_defines_switches() {
        let msg = |n: &str| format!("this project ports itself when `{n}` is defined: check");
        let m4: &[u8] = b"dnl AC_DEFINE([HAVE_ROCM_COMMENTED], 1)
AS_IF([test $hip_version -ge 70000000],
    [AC_DEFINE([HAVE_ROCM_RESERVED_ADDR_TYPE], 1, [reserved])])
AC_CHECK_FUNCS([hsa_amd_portable_export_dmabuf hsa_amd_other])
";
        for (name, line, want) in [
            ("HAVE_ROCM_RESERVED_ADDR_TYPE", 3, Status::Pass),
            ("HAVE_HSA_AMD_PORTABLE_EXPORT_DMABUF", 4, Status::Pass),
            ("HAVE_ROCM_COMMENTED", 0, Status::Remediation),
        ] {
            let mut fs = vec![finding("HP303", "a.c", &msg(name), (0, 1))];
            pass_switches_the_build_defines(&mut fs, &[("config/m4/rocm.m4", m4)]);
            assert_eq!(fs[0].status, want, "{name}");
            if want == Status::Pass {
                assert!(fs[0].message.contains(&format!("config/m4/rocm.m4:{line}")));
            }
        }
        let mut fs = vec![finding("HP303", "a.c", &msg("HAVE_HSA_AMD_OTHER"), (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("notes/rocm.txt", m4)]);
        assert_eq!(fs[0].status, Status::Remediation);
    }

    #[test]
    fn switches_defined_by_the_build_pass() {
        let msg = "this project ports itself when `MMCV_WITH_HIP` is defined: check";
        let setup: &[u8] = b"if rocm:\n    define_macros += [('MMCV_WITH_HIP', None)]\n";
        let cmake: &[u8] = b"elseif(WITH_HIP)\n  add_definitions(-DCT2_USE_HIP)\nendif()\n";
        let multi: &[u8] = b"target_compile_definitions(t\n    PRIVATE GKO_COMPILING_HIP\n)\n";
        let msg3 = "this project ports itself when `GKO_COMPILING_HIP` is defined: check";
        let mut fs = vec![finding("HP303", "a.h", msg3, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("CMakeLists.txt", multi)]);
        assert!(
            fs[0].message.contains("CMakeLists.txt:2"),
            "{}",
            fs[0].message
        );
        let mut fs = vec![finding("HP303", "a.cuh", msg, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("setup.py", setup)]);
        assert_eq!(fs[0].status, Status::Pass);
        assert!(fs[0].message.contains("setup.py:2"), "{}", fs[0].message);
        let msg2 = "this project ports itself when `CT2_USE_HIP` is defined: check";
        let mut fs = vec![finding("HP303", "a.h", msg2, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("CMakeLists.txt", cmake)]);
        assert!(
            fs[0].message.contains("CMakeLists.txt:2"),
            "{}",
            fs[0].message
        );
        // qiskit-aer: the switch goes into a list that gets a `-D` each; twin: the same list
        // nothing passes as definitions.
        let msg4 = "this project ports itself when `AER_THRUST_ROCM` is defined: check";
        let listed: &[u8] = b"if(HIP)\n  list(APPEND ROCM_DEFS AER_THRUST_ROCM)\n  list(TRANSFORM ROCM_DEFS PREPEND -D)\n  add_definitions(${ROCM_DEFS})\nendif()\n";
        let mut fs = vec![finding("HP303", "a.h", msg4, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("CMakeLists.txt", listed)]);
        assert_eq!(fs[0].status, Status::Pass);
        assert!(
            fs[0].message.contains("CMakeLists.txt:2"),
            "{}",
            fs[0].message
        );
        let unlisted: &[u8] = b"if(HIP)\n  list(APPEND NOTES AER_THRUST_ROCM)\nendif()\n";
        let mut fs = vec![finding("HP303", "a.h", msg4, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("CMakeLists.txt", unlisted)]);
        assert_eq!(fs[0].status, Status::Remediation);
        // Twins: a name that only appears in a comment-free string elsewhere, or a prefix of
        // another macro, is not a definition.
        let other: &[u8] = b"print('MMCV_WITH_HIP is great')\nx = '-DMMCV_WITH_HIPX'\n";
        let mut fs = vec![finding("HP303", "a.cuh", msg, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("setup.py", other)]);
        assert_eq!(fs[0].status, Status::Remediation);
        // USE_ROCM in a PyTorch extension is defined by torch; elsewhere it is not known.
        let use_rocm = "this project ports itself when `USE_ROCM` is defined: check";
        let torch_setup: &[u8] = b"from torch.utils.cpp_extension import CUDAExtension\n";
        let mut fs = vec![finding("HP303", "v.cpp", use_rocm, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("setup.py", torch_setup)]);
        assert_eq!(fs[0].status, Status::Pass);
        let mut fs = vec![finding("HP303", "v.cpp", use_rocm, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("setup.py", b"import os\n")]);
        assert_eq!(fs[0].status, Status::Remediation);
        // AutoGPTQ's spelling of the import.
        let from_import: &[u8] = b"from torch.utils import cpp_extension\next = cpp_extension.CUDAExtension('k', ['k.cu'])\n";
        let mut fs = vec![finding("HP303", "v.cpp", use_rocm, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &[("setup.py", from_import)]);
        assert_eq!(fs[0].status, Status::Pass);
    }

    #[test]
    fn a_macro_that_forwards_its_argument_to_the_definitions_defines_it() {
        let msg = "this project ports itself when `HIP` is defined: check";
        let models: &[u8] = b"macro(register_model NAME PREPROCESSOR_NAME)\n  list(APPEND IMPL_${NAME}_SOURCES ${ARGN})\n  list(APPEND IMPL_${NAME}_DEFINITIONS \"${PREPROCESSOR_NAME}\")\nendmacro()\n";
        let top: &[u8] = b"include(cmake/models.cmake)\nregister_model(cuda CUDA a.cu)\nregister_model(hip HIP b.cpp)\n";
        let files = [("cmake/models.cmake", models), ("CMakeLists.txt", top)];
        let mut fs = vec![finding("HP303", "m.h", msg, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &files);
        assert_eq!(fs[0].status, Status::Pass);
        assert!(
            fs[0].message.contains("CMakeLists.txt:3"),
            "{}",
            fs[0].message
        );
        assert!(
            fs[0].message.contains("cmake/models.cmake:3"),
            "{}",
            fs[0].message
        );
        // Twin: the same call when the macro only lists sources defines nothing.
        let sources_only: &[u8] =
            b"macro(register_model NAME PREPROCESSOR_NAME)\n  list(APPEND IMPL_SOURCES ${PREPROCESSOR_NAME})\nendmacro()\n";
        let files = [
            ("cmake/models.cmake", sources_only),
            ("CMakeLists.txt", top),
        ];
        let mut fs = vec![finding("HP303", "m.h", msg, (0, 1))];
        pass_switches_the_build_defines(&mut fs, &files);
        assert_eq!(fs[0].status, Status::Remediation);
    }
}
