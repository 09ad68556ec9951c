//! Sibling folders of which the build selects one by a variable: the ROCm counterpart of a
//! folder can be a sibling the project's build picks instead of it.
//!
//! A project that keeps one folder per programming model or back-end (`src/cuda/`, `src/hip/`,
//! `src/raja/`, `src/thrust/`, each with its own `model.cmake`) and a build that loads one of
//! them by a variable (`include(${CMAKE_CURRENT_SOURCE_DIR}/src/${MODEL}/model.cmake)`,
//! `include $(BACKEND)/rules.mk`, `add_subdirectory(backends/${BACKEND})`) compiles only the
//! selected folder. When one of the siblings is a HIP/ROCm one, the ROCm build selects it: the
//! other siblings (a CUDA one, and the multi-back-end ones whose CUDA settings name another
//! model's back-end) are not compiled by the ROCm build. Without a ROCm sibling nothing is
//! decided here: the CUDA sibling is the port's work. A variable that loops over every sibling
//! (`foreach(MODEL …)`) builds all of them, so it selects nothing.
//!
//! The operating system selects the same way: `bash .github/workflows/cuda/${{ runner.os }}.sh`
//! or `source scripts/$RUNNER_OS-env.sh` runs `Linux.sh` on the ROCm build's OS (the ROCm builds
//! this tool targets run on Linux), never `Windows.sh` or `macOS.sh` ([`os_unselected`]).

use std::collections::{BTreeMap, BTreeSet};

use super::{split_tokens, ROCM_TOKENS};

/// One build-time choice among sibling folders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The folder holding the siblings (`src`; empty for the project root).
    pub parent: String,
    /// The build fragment every selectable sibling keeps (`model.cmake`).
    pub fragment: String,
    /// The siblings (folder names), sorted.
    pub siblings: Vec<String>,
    /// The siblings whose name carries a ROCm token (`hip`, `rocm`, `amd`).
    pub rocm: Vec<String>,
    /// The variable the build selects by (`MODEL_LOWER`).
    pub var: String,
    /// Where: `path:line` of the reference.
    pub at: String,
}

/// Whether a file name is a build fragment a build can load per sibling.
fn is_fragment(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "cmakelists.txt" | "makefile" | "meson.build"
    ) || [".cmake", ".mk", ".make"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Whether a folder name names the ROCm platform (`hip`, `rocm`, `hip-clang`, `amd_gpu`).
fn is_rocm_name(name: &str) -> bool {
    split_tokens(name)
        .iter()
        .any(|&(a, b)| ROCM_TOKENS.contains(&name[a..b].to_ascii_lowercase().as_str()))
}

/// `parent/<sibling>/<fragment>` families with at least two siblings, one of them ROCm's.
fn families(paths: &[&str]) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut fam: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for p in paths {
        let comps: Vec<&str> = p.split('/').collect();
        if comps.len() < 2 || !is_fragment(comps[comps.len() - 1]) {
            continue;
        }
        let parent = comps[..comps.len() - 2].join("/");
        fam.entry((parent, comps[comps.len() - 1].to_string()))
            .or_default()
            .insert(comps[comps.len() - 2].to_string());
    }
    fam.retain(|_, s| s.len() >= 2 && s.iter().any(|n| is_rocm_name(n)));
    fam
}

/// The variable references in `text` (`${NAME}`, `$(NAME)`), with their byte ranges and names.
fn var_refs(text: &str) -> Vec<(usize, usize, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'$' && (b[i + 1] == b'{' || b[i + 1] == b'(') {
            let close = if b[i + 1] == b'{' { b'}' } else { b')' };
            let start = i + 2;
            let mut j = start;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            if j > start && j < b.len() && b[j] == close {
                out.push((i, j + 1, &text[start..j]));
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The literal folder path written before a reference: back to the start of the argument, with
/// leading variables (`${CMAKE_CURRENT_SOURCE_DIR}/`) and `./` dropped.
fn literal_prefix(text: &str, at: usize) -> String {
    let before = &text[..at];
    let start = before
        .rfind(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | '=' | ','))
        .map_or(0, |i| i + 1);
    let mut arg = &before[start..];
    loop {
        if let Some(r) = arg.strip_prefix("./") {
            arg = r;
            continue;
        }
        if arg.starts_with("${") || arg.starts_with("$(") {
            let close = if arg.as_bytes()[1] == b'{' { '}' } else { ')' };
            if let Some(e) = arg.find(close) {
                arg = arg[e + 1..].trim_start_matches('/');
                continue;
            }
        }
        break;
    }
    arg.to_string()
}

/// Whether `var` is a loop variable of `text` (`foreach(MODEL …)`, `$(foreach MODEL,…)`): then
/// every sibling is built, none selected.
fn loops_over(text: &str, var: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let v = var.to_ascii_lowercase();
    ["foreach(", "foreach (", "$(foreach "].iter().any(|open| {
        lower.match_indices(open).any(|(i, m)| {
            lower[i + m.len()..]
                .trim_start()
                .strip_prefix(v.as_str())
                .is_some_and(|r| r.starts_with(|c: char| !(c.is_alphanumeric() || c == '_')))
        })
    })
}

/// Joins a build file's folder and a relative path, resolving `..`.
fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for c in rel.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

/// The selections the build files make: a variable in the place of a sibling's name, followed
/// by the siblings' fragment (`src/${MODEL}/model.cmake`) or, for a folder's own build file,
/// ending the path (`add_subdirectory(src/${BACKEND})`).
pub fn selections(paths: &[&str], build_files: &[(&str, &[u8])]) -> Vec<Selection> {
    let fam = families(paths);
    if fam.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<Selection> = Vec::new();
    for (rel, bytes) in build_files {
        let text = String::from_utf8_lossy(bytes);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        for (s, e, var) in var_refs(&text) {
            let prefix = literal_prefix(&text, s);
            if !(prefix.is_empty() || prefix.ends_with('/')) {
                continue;
            }
            let prefix = prefix.trim_end_matches('/');
            let after = &text[e..];
            for ((parent, fragment), sibs) in &fam {
                let names_fragment = after
                    .strip_prefix('/')
                    .and_then(|r| r.strip_prefix(fragment.as_str()))
                    .is_some_and(|r| {
                        r.is_empty()
                            || r.starts_with(|c: char| {
                                !(c.is_alphanumeric() || c == '_' || c == '.')
                            })
                    });
                let own_build = matches!(
                    fragment.to_ascii_lowercase().as_str(),
                    "cmakelists.txt" | "makefile" | "meson.build"
                ) && after
                    .starts_with(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\''));
                if !names_fragment && !own_build {
                    continue;
                }
                // The written folder is the siblings' parent, from the project root or from the
                // build file's folder; only variables before the name (`${ROOT}/${MODEL}/…`)
                // count when the fragment is named.
                let parent_matches = if prefix.is_empty() {
                    names_fragment
                } else {
                    prefix == parent || join(dir, prefix) == *parent
                };
                if !parent_matches || loops_over(&text, var) {
                    continue;
                }
                if out
                    .iter()
                    .any(|x| x.parent == *parent && x.fragment == *fragment)
                {
                    continue;
                }
                let line = text[..s].matches('\n').count() + 1;
                let siblings: Vec<String> = sibs.iter().cloned().collect();
                let rocm = siblings
                    .iter()
                    .filter(|n| is_rocm_name(n))
                    .cloned()
                    .collect();
                out.push(Selection {
                    parent: parent.clone(),
                    fragment: fragment.clone(),
                    siblings,
                    rocm,
                    var: var.to_string(),
                    at: format!("{rel}:{line}"),
                });
            }
        }
    }
    out.sort_by(|a, b| (&a.parent, &a.fragment).cmp(&(&b.parent, &b.fragment)));
    out
}

/// The ways a CI or build file names the runner's OS in a path, and how each spells the OSes
/// (GitHub's `runner.os`: `Linux`, `Windows`, `macOS`).
const OS_VARIABLES: [&str; 4] = [
    "${{ runner.os }}",
    "${{runner.os}}",
    "${RUNNER_OS}",
    "$RUNNER_OS",
];
const OTHER_OSES: [&str; 2] = ["Windows", "macOS"];

/// Files that a path template with the runner's OS in it (`cuda/${{ runner.os }}-env.sh`) names
/// for Windows or macOS: the ROCm build, on Linux, runs the Linux one. Each with why.
pub fn os_unselected(paths: &[&str], texts: &[(&str, &[u8])]) -> BTreeMap<String, String> {
    let files: BTreeSet<&str> = paths.iter().copied().collect();
    let delim =
        |c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | '=' | ',' | ';');
    let mut out = BTreeMap::new();
    for (rel, bytes) in texts {
        let text = String::from_utf8_lossy(bytes);
        for var in OS_VARIABLES {
            for (at, _) in text.match_indices(var) {
                let before = &text[..at];
                let start = before.rfind(delim).map_or(0, |i| i + 1);
                let prefix = before[start..].trim_start_matches("./");
                let after = &text[at + var.len()..];
                let suffix = &after[..after.find(delim).unwrap_or(after.len())];
                if suffix.contains('$')
                    || prefix.contains('$')
                    || (prefix.is_empty() && suffix.is_empty())
                {
                    continue;
                }
                let line = before.matches('\n').count() + 1;
                let linux = format!("{prefix}Linux{suffix}");
                for os in OTHER_OSES {
                    let path = format!("{prefix}{os}{suffix}");
                    if !files.contains(path.as_str()) {
                        continue;
                    }
                    let instead = if files.contains(linux.as_str()) {
                        format!("`{linux}`")
                    } else {
                        "no file".to_string()
                    };
                    out.entry(path).or_insert(format!(
                        "{rel}:{line} picks this file by the runner's OS (`{var}`); the ROCm \
                         build's target OS is Linux, where it picks {instead}"
                    ));
                }
            }
        }
    }
    out
}

/// For each path inside a sibling the ROCm build does not select: the ROCm sibling it selects
/// (`src/hip/`) and why.
pub fn unselected(paths: &[&str], sels: &[Selection]) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for p in paths {
        for sel in sels {
            let rest = if sel.parent.is_empty() {
                Some(*p)
            } else {
                p.strip_prefix(sel.parent.as_str())
                    .and_then(|r| r.strip_prefix('/'))
            };
            let Some((sib, _)) = rest.and_then(|r| r.split_once('/')) else {
                continue;
            };
            if !sel.siblings.iter().any(|s| s == sib) || sel.rocm.iter().any(|s| s == sib) {
                continue;
            }
            let under = |n: &str| {
                if sel.parent.is_empty() {
                    format!("{n}/")
                } else {
                    format!("{}/{n}/", sel.parent)
                }
            };
            let chosen = under(&sel.rocm[0]);
            let why = format!(
                "the build selects one of {} sibling folders (each with its `{}`) by `{}` at \
                 {}; the ROCm build selects `{chosen}`, not `{}`",
                sel.siblings.len(),
                sel.fragment,
                sel.var,
                sel.at,
                under(sib)
            );
            out.entry(p.to_string()).or_insert((chosen, why));
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: [&str; 10] = [
        "CMakeLists.txt",
        "cmake/models.cmake",
        "src/cuda/model.cmake",
        "src/cuda/CUDAStream.cu",
        "src/hip/model.cmake",
        "src/hip/HIPStream.cpp",
        "src/raja/model.cmake",
        "src/raja/RAJAStream.cpp",
        "src/legacy/HCStream.cpp",
        "src/main.cpp",
    ];

    #[test]
    fn a_model_variable_selects_the_hip_sibling() {
        let cmake: &[u8] =
            b"macro(load_model M)\n  set(F ${CMAKE_CURRENT_SOURCE_DIR}/src/${M}/model.cmake)\n  include(${F})\nendmacro()\n";
        let sels = selections(&TREE, &[("cmake/models.cmake", cmake)]);
        assert_eq!(sels.len(), 1, "{sels:?}");
        assert_eq!(sels[0].parent, "src");
        assert_eq!(sels[0].rocm, vec!["hip"]);
        assert_eq!(sels[0].at, "cmake/models.cmake:2");
        let got = unselected(&TREE, &sels);
        assert_eq!(got["src/raja/model.cmake"].0, "src/hip/");
        assert!(got["src/raja/RAJAStream.cpp"].1.contains("`M`"));
        assert!(got.contains_key("src/cuda/CUDAStream.cu"));
        // Twins: the HIP sibling stays open; a folder without the fragment is not a sibling;
        // files outside the siblings are not decided.
        assert!(!got.contains_key("src/hip/HIPStream.cpp"));
        assert!(!got.contains_key("src/legacy/HCStream.cpp"));
        assert!(!got.contains_key("src/main.cpp"));
    }

    #[test]
    fn subdirectory_selection_and_makefile_include() {
        let paths = [
            "backends/cuda/CMakeLists.txt",
            "backends/cuda/k.cu",
            "backends/rocm/CMakeLists.txt",
            "backends/rocm/k.cpp",
            "backends/sycl/CMakeLists.txt",
        ];
        let cm: &[u8] = b"add_subdirectory(backends/${GPU_BACKEND})\n";
        let sels = selections(&paths, &[("CMakeLists.txt", cm)]);
        assert_eq!(sels.len(), 1, "{sels:?}");
        let got = unselected(&paths, &sels);
        assert_eq!(got["backends/cuda/k.cu"].0, "backends/rocm/");
        let paths = ["arch/cuda/rules.mk", "arch/hip/rules.mk", "Makefile"];
        let mk: &[u8] = b"include arch/$(ARCH)/rules.mk\n";
        assert_eq!(selections(&paths, &[("Makefile", mk)]).len(), 1);
    }

    #[test]
    fn the_runner_os_selects_the_linux_script() {
        let paths = [
            "ci/cuda/Linux-env.sh",
            "ci/cuda/Windows-env.sh",
            "ci/cuda/macOS-env.sh",
            "ci/other/Windows.sh",
        ];
        let wf: &[u8] =
            b"steps:\n  - run: |\n      source ci/cuda/${{ runner.os }}-env.sh ${{ matrix.cuda }}\n";
        let got = os_unselected(&paths, &[(".github/workflows/b.yml", wf)]);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            ["ci/cuda/Windows-env.sh", "ci/cuda/macOS-env.sh"]
        );
        let why = &got["ci/cuda/Windows-env.sh"];
        assert!(why.contains("b.yml:3"), "{why}");
        assert!(why.contains("`ci/cuda/Linux-env.sh`"), "{why}");
        assert!(why.contains("target OS is Linux"), "{why}");
        // Twins: the Linux file is the ROCm build's; a Windows file no template names stays.
        assert!(!got.contains_key("ci/cuda/Linux-env.sh"));
        assert!(!got.contains_key("ci/other/Windows.sh"));
    }

    #[test]
    fn no_selection_without_a_rocm_sibling_or_when_every_sibling_is_built() {
        // Twin: no HIP sibling, the CUDA sibling is the port's work.
        let paths = [
            "src/cuda/model.cmake",
            "src/cuda/a.cu",
            "src/omp/model.cmake",
        ];
        let cm: &[u8] = b"include(src/${MODEL}/model.cmake)\n";
        assert!(selections(&paths, &[("CMakeLists.txt", cm)]).is_empty());
        // Twin: a loop includes every sibling.
        let looped: &[u8] =
            b"foreach(MODEL cuda hip raja)\n  include(src/${MODEL}/model.cmake)\nendforeach()\n";
        assert!(selections(&TREE, &[("CMakeLists.txt", looped)]).is_empty());
        // Twin: a variable that names a file, not a sibling.
        let other: &[u8] = b"include(src/${MODEL}.cmake)\nadd_subdirectory(${DIR})\n";
        assert!(selections(&TREE, &[("CMakeLists.txt", other)]).is_empty());
    }
}
