//! Macros a configured header writes from CMake variables the ROCm build leaves off. CMake's
//! `configure_file` turns `#cmakedefine01 MGB_CUPTI` in `megbrain_build_config.h.in` into
//! `#define MGB_CUPTI 0` when the variable is false, and `#cmakedefine HAVE_NVTX` into nothing.
//! Which variables are false in the ROCm build follows from the project's backend switches: the
//! CUDA twin of a switch pair (`MGE_WITH_CUDA` beside `MGE_WITH_ROCM`) is off there, and so is
//! - a variable set only from off variables or false values (`set(MGB_CUPTI ${MGE_WITH_CUPTI})`);
//! - a dependent option whose dependencies name an off variable, forced false when they fail
//!   (`cmake_dependent_option(MGE_WITH_CUPTI "…" OFF "MGE_WITH_CUDA;…" OFF)`);
//! - an option the build turns off where an off variable is false (`if(NOT MGE_WITH_CUDA)
//!   set(MGE_WITH_TRT OFF)`).
//!
//! A variable with any other assignment (a true value outside the CUDA arms, a value from a
//! variable not known off) is left alone: the ROCm build may set it.

use super::super::shell::unquote;
use super::super::ts::{self, Lang};
use super::arms::{command_of, Twin};
use std::collections::{BTreeMap, BTreeSet};

/// What the configured headers say in the ROCm build: macros left undefined (`#cmakedefine`
/// of a variable that follows the CUDA switch, not the switch itself) and macros written as 0
/// (`#cmakedefine01`), each with why.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Configured {
    pub undefined: BTreeMap<String, String>,
    pub zero: BTreeMap<String, String>,
}

/// One assignment of a CMake variable.
struct Assign {
    var: String,
    /// `path:line`.
    at: String,
    how: How,
    /// The conditions (words) of the `if`/`elseif` arms around it, innermost first; `None`
    /// for an `else()` arm.
    conds: Vec<Option<Vec<String>>>,
}

enum How {
    /// `set(V …)` with these value words (no `CACHE`).
    Set(Vec<String>),
    /// `option(V "…" default)` or `set(V … CACHE …)`: a user may set it.
    User,
    /// `cmake_dependent_option(V "…" default "deps" force)`.
    Dependent { deps: Vec<String>, force: String },
}

fn falsy(v: &str) -> bool {
    let u = v.to_ascii_uppercase();
    matches!(u.as_str(), "OFF" | "FALSE" | "NO" | "N" | "0" | "") || u.ends_with("-NOTFOUND")
}

fn var_ref(w: &str) -> Option<&str> {
    w.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
}

fn assignments(rel: &str, src: &[u8]) -> Vec<Assign> {
    let mut out = Vec::new();
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return out;
    };
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + 1;
    ts::each(tree.root_node(), &mut |n| {
        let Some((cmd, nodes)) = command_of(n, src) else {
            return;
        };
        let args: Vec<String> = nodes
            .iter()
            .map(|a| unquote(ts::text(*a, src)).to_string())
            .collect();
        let Some(var) = args.first().cloned() else {
            return;
        };
        let how = match cmd.as_str() {
            "set" if args.iter().any(|a| a == "CACHE") => How::User,
            "set" => How::Set(
                args[1..]
                    .iter()
                    .filter(|a| *a != "PARENT_SCOPE")
                    .cloned()
                    .collect(),
            ),
            "option" => How::User,
            "cmake_dependent_option" if args.len() >= 5 => How::Dependent {
                deps: args[3].split(';').map(|d| d.trim().to_string()).collect(),
                force: args[4].clone(),
            },
            "cmake_dependent_option" => How::User,
            _ => return,
        };
        let conds = super::defs::arm_conditions(n, src);
        out.push(Assign {
            var,
            at: format!("{rel}:{}", line(n.start_byte())),
            how,
            conds,
        });
    });
    out
}

/// The variables off in the ROCm build (see the module), each with why, and which of them
/// select the backend: a CUDA twin itself, or a plain copy of one (`set(MGB_CUDA
/// ${MGE_WITH_CUDA})`).
fn off_variables(
    cmake_files: &[(&str, &[u8])],
    twins: &[Twin],
) -> (BTreeMap<String, String>, BTreeSet<String>) {
    let mut off: BTreeMap<String, String> = twins
        .iter()
        .filter(|t| !t.by_definition)
        .map(|t| {
            (
                t.cuda.clone(),
                format!(
                    "`{}` selects the CUDA build, and the ROCm build sets its twin `{}` ({})",
                    t.cuda, t.rocm, t.at
                ),
            )
        })
        .collect();
    let mut selectors: BTreeSet<String> = off.keys().cloned().collect();
    if off.is_empty() {
        return (off, selectors);
    }
    let all: Vec<Assign> = cmake_files
        .iter()
        .flat_map(|(rel, src)| assignments(rel, src))
        .collect();
    let mut by_var: BTreeMap<&str, Vec<&Assign>> = BTreeMap::new();
    for a in &all {
        by_var.entry(a.var.as_str()).or_default().push(a);
    }
    // One word of a condition that is an off variable (`X`, `${X}`).
    let names_off =
        |w: &str, off: &BTreeMap<String, String>| off.contains_key(var_ref(w).unwrap_or(w));
    // An arm the ROCm build never runs: one of its `AND` operands (without `OR`/`NOT`) is off.
    let arm_dead = |a: &Assign, off: &BTreeMap<String, String>| {
        a.conds.iter().flatten().any(|words| {
            !words.iter().any(|w| w == "OR" || w == "NOT")
                && words
                    .split(|w| w == "AND")
                    .any(|op| matches!(op, [w] if names_off(w, off)))
        })
    };
    // Iterate to a fixed point: each round may turn more variables off.
    loop {
        let mut added: Vec<(String, String)> = Vec::new();
        for (var, assigns) in &by_var {
            if off.contains_key(*var) {
                continue;
            }
            let live: Vec<&&Assign> = assigns.iter().filter(|a| !arm_dead(a, &off)).collect();
            if live.is_empty() {
                continue;
            }
            // Why each live assignment leaves the variable off, or `None`.
            let mut whys: Vec<String> = Vec::new();
            let mut forced_off = false;
            let mut user = false;
            let mut unknown = false;
            for a in &live {
                match &a.how {
                    How::Set(values) => {
                        let source = values
                            .iter()
                            .find_map(|v| var_ref(v).filter(|r| off.contains_key(*r)));
                        match (values.as_slice(), source) {
                            ([_], Some(src)) => {
                                whys.push(format!("set from `{src}` ({})", a.at));
                            }
                            ([v], None) if falsy(v) => {
                                // A false value under `if(NOT X)` with `X` off: the ROCm build
                                // runs the arm and turns the variable off.
                                let under_not_off = a.conds.first().is_some_and(|c| {
                                    matches!(c.as_deref(),
                                        Some([not, w]) if not == "NOT" && names_off(w, &off))
                                });
                                if under_not_off {
                                    forced_off = true;
                                    whys.push(format!(
                                        "turned off at {} where the CUDA switch is off",
                                        a.at
                                    ));
                                } else {
                                    whys.push(format!("set false ({})", a.at));
                                }
                            }
                            _ => unknown = true,
                        }
                    }
                    How::User => user = true,
                    How::Dependent { deps, force } => {
                        let dep = deps.iter().find(|d| names_off(d, &off));
                        match dep {
                            Some(d) if falsy(force) => whys.push(format!(
                                "a dependent option that needs `{}` ({})",
                                var_ref(d).unwrap_or(d),
                                a.at
                            )),
                            _ => user = true,
                        }
                    }
                }
            }
            if unknown || (user && !forced_off) || whys.is_empty() {
                continue;
            }
            // The reason of the off variable this one follows, once.
            let from = live.iter().find_map(|a| match &a.how {
                How::Set(values) => values
                    .iter()
                    .find_map(|v| var_ref(v).and_then(|r| off.get(r))),
                How::Dependent { deps, .. } => {
                    deps.iter().find_map(|d| off.get(var_ref(d).unwrap_or(d)))
                }
                How::User => None,
            });
            let mut why = whys.join(", ");
            if let Some(f) = from {
                why.push_str(&format!("; {f}"));
            }
            // A plain copy of a selector selects too.
            let copies_selector = live.iter().all(|a| match &a.how {
                How::Set(values) => {
                    matches!(values.as_slice(), [v] if var_ref(v).is_some_and(|r| selectors.contains(r)))
                }
                _ => false,
            });
            if copies_selector {
                selectors.insert(var.to_string());
            }
            added.push((var.to_string(), why));
        }
        if added.is_empty() {
            break;
        }
        off.extend(added);
    }
    (off, selectors)
}

/// The macros the project's configured headers (`templates`: `config.h.in`) leave undefined or
/// write as 0 in the ROCm build (see the module).
pub fn configured_off(
    cmake_files: &[(&str, &[u8])],
    templates: &[(&str, &[u8])],
    twins: &[Twin],
) -> Configured {
    let mut out = Configured::default();
    if templates.is_empty() {
        return out;
    }
    let (off, selectors) = off_variables(cmake_files, twins);
    if off.is_empty() {
        return out;
    }
    for (rel, text) in templates {
        let text = String::from_utf8_lossy(text);
        for (i, l) in text.lines().enumerate() {
            let words: Vec<&str> = l.split_whitespace().collect();
            let (zero, name) = match words.as_slice() {
                ["#cmakedefine01", name, ..] => (true, *name),
                ["#cmakedefine", name, ..] => (false, *name),
                ["#", "cmakedefine01", name, ..] => (true, *name),
                ["#", "cmakedefine", name, ..] => (false, *name),
                _ => continue,
            };
            let Some(var_why) = off.get(name) else {
                continue;
            };
            // `#cmakedefine SPFFT_CUDA` of the backend switch itself: the project's twin
            // switches already decide its arms (the `#else` is the ROCm backend, not a loss).
            if !zero && selectors.contains(name) {
                continue;
            }
            let why = format!(
                "`{rel}:{}` writes it from the CMake variable `{name}`, off in the ROCm build: {var_why}",
                i + 1
            );
            let map = if zero {
                &mut out.zero
            } else {
                &mut out.undefined
            };
            map.entry(name.to_string()).or_insert(why);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin() -> Vec<Twin> {
        vec![Twin {
            cuda: "MGE_WITH_CUDA".into(),
            rocm: "MGE_WITH_ROCM".into(),
            at: "CMakeLists.txt:3".into(),
            by_definition: false,
        }]
    }

    const TOP: &[u8] = b"option(MGE_WITH_CUDA \"cuda\" ON)\noption(MGE_WITH_TRT \"trt\" ON)\noption(MGE_WITH_ROCM \"rocm\" OFF)\ncmake_dependent_option(MGE_WITH_CUPTI \"cupti\" OFF \"MGE_WITH_CUDA;NOT WIN32\" OFF)\nset(MGB_CUPTI ${MGE_WITH_CUPTI})\nif(NOT MGE_WITH_CUDA)\n  set(MGE_WITH_TRT OFF)\nendif()\nset(MGB_ENABLE_TENSOR_RT ${MGE_WITH_TRT})\noption(MGE_WITH_NVTX \"nvtx\" ON)\nset(MGB_NVTX ${MGE_WITH_NVTX})\n";
    const TPL: &[u8] = b"#cmakedefine01 MGB_CUPTI\n#cmakedefine01 MGB_ENABLE_TENSOR_RT\n#cmakedefine MGB_CUPTI_OR\n#cmakedefine01 MGB_NVTX\n#cmakedefine01 MGE_WITH_ROCM\n";

    /// MegEngine's shape (Apache-2.0): CUPTI and TensorRT follow the CUDA switch into the
    /// configured header; the ROCm build writes them as 0. Twins: an option of its own
    /// (`MGE_WITH_NVTX`, on by default) and the ROCm switch stay unknown.
    #[test]
    fn configured_macros_that_follow_the_cuda_switch_are_zero() {
        let got = configured_off(&[("CMakeLists.txt", TOP)], &[("cfg.h.in", TPL)], &twin());
        let keys: Vec<&str> = got.zero.keys().map(String::as_str).collect();
        assert_eq!(keys, ["MGB_CUPTI", "MGB_ENABLE_TENSOR_RT"]);
        let why = &got.zero["MGB_CUPTI"];
        assert!(why.contains("cfg.h.in:1"), "{why}");
        assert!(why.contains("MGE_WITH_CUPTI"), "{why}");
        assert!(why.contains("MGE_WITH_ROCM"), "{why}");
        assert!(got.undefined.is_empty());
        // Without the twin nothing is known off.
        let got = configured_off(&[("CMakeLists.txt", TOP)], &[("cfg.h.in", TPL)], &[]);
        assert_eq!(got, Configured::default());
    }

    /// A variable also set true outside the CUDA arms (or from a variable not known off) may
    /// be on in the ROCm build; `#cmakedefine` of an off variable leaves the macro undefined,
    /// but not of the switch itself (its arms are the twin switches' to decide).
    #[test]
    fn a_variable_the_rocm_build_may_set_keeps_its_macro() {
        let cm: &[u8] = b"option(MGE_WITH_CUDA \"cuda\" ON)\nset(HAVE_X ${MGE_WITH_CUDA})\nif(USE_X)\n  set(HAVE_X ON)\nendif()\ncmake_dependent_option(HAVE_Y \"y\" ON \"MGE_WITH_CUDA\" OFF)\nif(MGE_WITH_CUDA)\n  set(HAVE_Y ON)\nendif()\nset(HAVE_Z ${OTHER})\n";
        let tpl: &[u8] = b"#cmakedefine HAVE_X\n#cmakedefine HAVE_Y\n#cmakedefine01 HAVE_Z\n#cmakedefine MGE_WITH_CUDA\n";
        let got = configured_off(&[("CMakeLists.txt", cm)], &[("c.h.in", tpl)], &twin());
        assert!(got.zero.is_empty(), "{got:?}");
        let keys: Vec<&str> = got.undefined.keys().map(String::as_str).collect();
        assert_eq!(keys, ["HAVE_Y"]);
    }
}
