//! One decision per CUDA-only component. A project whose main `setup.py` already builds for ROCm
//! (flash-attention: its ROCm arm builds `csrc/flash_attn_ck/`) can hold sub-packages with their
//! own build that have no ROCm arm: `hopper/setup.py` (FlashAttention-3, CUTLASS sm90 kernels),
//! `csrc/layer_norm/setup.py`, or `flash_attn/cute/pyproject.toml` (FlashAttention-4, written in
//! the NVIDIA-only CuTe DSL). What a porter decides there is one thing: port the component, or
//! leave it out of the ROCm stack. So its findings become one UNKNOWN finding (HP833) at its build
//! file, with the counts by rule, the files and the first places; every per-line finding inside
//! stays in JSON/SARIF as PASS naming the finding it is folded into.
//!
//! Python modules that import NVIDIA-only packages (CuTe DSL `cutlass`, `cuda.bindings`,
//! `quack`) are one fact per package directory, not one per import: the first import finding of
//! a directory (HP821) names the packages and counts, the others are folded into it, and so are
//! the other findings of a module that imports one at module level (it cannot even be imported on
//! ROCm, so its capability checks are moot until that is decided).

use super::python::dotted;
use super::{rocm_branch, ts};
use crate::finding::{fingerprint, Finding};
use crate::gate::Status;
use crate::kinds::python::{Kind as K, NodeExt};
use crate::registry::RuleInfo;
use std::collections::{BTreeMap, BTreeSet};

rule!(CUDA_ONLY_COMPONENT, "HP833", NativeExtension, Unknown, Build,
    summary: "A component with its own build (a sub-package's `setup.py` or `pyproject.toml`) that has no ROCm arm, inside a project whose main build already builds for ROCm.",
    why: "The project's ROCm path does not build it: its per-line findings are one decision (port the component, or leave it out of the ROCm stack), not a list of edits. The findings are folded into this one, with counts by rule and the first places; JSON and SARIF keep each one as PASS naming this finding.",
    bad: "hopper/setup.py: CUDAExtension(sources=[...sm90.cu]) with no `torch.version.hip` arm, next to a ROCm-aware setup.py",
    good: "leave hopper/ out of ROCm builds (the project's ROCm arm serves the same API), or port it and give its setup.py a ROCm arm",
    fix: "Decide per component: port it (then scan the component alone, `hipport scan hopper`, for its per-line findings) or leave it out of the ROCm build and packaging.",
    refs: ["https://pytorch.org/docs/stable/cpp_extension.html"],
);

pub const RULES: &[&RuleInfo] = &[&CUDA_ONLY_COMPONENT];

/// The directory of a `/`-separated relative path, with its trailing `/` (`""` at the root).
fn dir_of(rel: &str) -> String {
    rel.rsplit_once('/')
        .map_or(String::new(), |(d, _)| format!("{d}/"))
}

/// A build file of a component: where it is, and what it says the component is.
struct Component {
    dir: String,
    build: String,
    what: String,
    /// The component as a Python package, from the main build's folder (`flash_attn.cute`).
    package: String,
}

impl Component {
    /// The component's folder relative to the main build's folder (`flash_attn/cute/`): what a
    /// Dockerfile whose context is the project root copies.
    fn rel_dir(&self) -> String {
        if self.package.is_empty() {
            String::new()
        } else {
            format!("{}/", self.package.replace('.', "/"))
        }
    }
}

/// The sources of a Dockerfile's `COPY`/`ADD` instructions, or `None` when it has none or copies
/// from another stage (`--from`).
fn copied_sources(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(op) = words.next() else { continue };
        if !op.eq_ignore_ascii_case("COPY") && !op.eq_ignore_ascii_case("ADD") {
            continue;
        }
        let args: Vec<&str> = words.collect();
        if args.iter().any(|a| a.starts_with("--from")) {
            return None;
        }
        let paths: Vec<&str> = args.into_iter().filter(|a| !a.starts_with("--")).collect();
        if paths.len() < 2 {
            return None;
        }
        out.extend(
            paths[..paths.len() - 1]
                .iter()
                .map(|p| p.trim_start_matches("./").to_string()),
        );
    }
    (!out.is_empty()).then_some(out)
}

/// A Dockerfile, by its name.
pub(crate) fn is_dockerfile(path: &str) -> bool {
    crate::inventory::kind::by_name(path) == Some(crate::inventory::kind::FileKind::Dockerfile)
}

/// `flash_attn/cute/` under the main build `setup.py` is the Python package `flash_attn.cute`.
fn package_of(dir: &str, main: &str) -> String {
    dir.strip_prefix(dir_of(main).as_str())
        .unwrap_or(dir)
        .trim_end_matches('/')
        .replace('/', ".")
}

/// The project's ROCm-aware main builds: `(setup.py, folders its ROCm arm builds from)`.
fn rocm_builds(setups: &[(String, Vec<u8>)]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (rel, bytes) in setups {
        let Some(tree) = ts::parse(ts::Lang::Python, bytes) else {
            continue;
        };
        let root = tree.root_node();
        if let Some(sources) = rocm_branch::rocm_build(root, bytes) {
            let base = dir_of(rel);
            let mut dirs: Vec<String> = sources
                .iter()
                .map(|p| format!("{base}{}", dir_of(p)))
                .collect();
            dirs.sort();
            dirs.dedup();
            out.push((rel.clone(), dirs));
        }
    }
    out
}

/// Whether a `setup.py` builds CUDA code (a `CUDAExtension`, `.cu` sources).
fn builds_cuda(bytes: &[u8]) -> bool {
    let Some(tree) = ts::parse(ts::Lang::Python, bytes) else {
        return false;
    };
    let mut found = false;
    ts::each(tree.root_node(), &mut |n| {
        if found {
            return;
        }
        if n.node_kind() == K::Call {
            let f = n
                .field(crate::kinds::python::Field::Function)
                .and_then(|f| dotted(f, bytes))
                .unwrap_or_default();
            found = f.rsplit('.').next() == Some("CUDAExtension");
        } else if let Some((s, _)) = super::python::string(n, bytes) {
            found = s.ends_with(".cu") && !s.contains(char::is_whitespace);
        }
    });
    found
}

/// Sub-package builds with no ROCm arm under a ROCm-aware main build.
fn components(
    setups: &[(String, Vec<u8>)],
    pyprojects: &[(String, Vec<u8>)],
    findings: &[Finding],
) -> Vec<(Component, String)> {
    let mains = rocm_builds(setups);
    let mut out = Vec::new();
    let main_for = |dir: &str| -> Option<&(String, Vec<String>)> {
        mains.iter().find(|(m, built)| {
            let base = dir_of(m);
            !dir.is_empty()
                && dir != base
                && dir.starts_with(&base)
                // A folder the main ROCm arm builds from is not CUDA-only.
                && !built
                    .iter()
                    .any(|b| *b != base && (b.starts_with(dir) || dir.starts_with(b.as_str())))
        })
    };
    let describe = |main: &(String, Vec<String>)| -> String {
        let (m, built) = main;
        let base = dir_of(m);
        let shown: Vec<String> = built
            .iter()
            .filter(|b| **b != base)
            .take(3)
            .map(|b| format!("`{b}`"))
            .collect();
        if shown.is_empty() {
            format!("the ROCm arm of `{m}`")
        } else {
            format!("the ROCm arm of `{m}`, which builds {}", shown.join(", "))
        }
    };
    for (rel, bytes) in setups {
        let dir = dir_of(rel);
        if mains.iter().any(|(m, _)| m == rel) || !builds_cuda(bytes) {
            continue;
        }
        if let Some(main) = main_for(&dir) {
            out.push((
                Component {
                    dir: dir.clone(),
                    build: rel.clone(),
                    what: format!("has its own build (`{rel}`) with no ROCm arm for its sources"),
                    package: package_of(&dir, &main.0),
                },
                describe(main),
            ));
        }
    }
    for (rel, bytes) in pyprojects {
        let dir = dir_of(rel);
        let text = String::from_utf8_lossy(bytes);
        let package = text.contains("[project]") || text.contains("[build-system]");
        if !package || out.iter().any(|(c, _)| c.dir == dir) {
            continue;
        }
        // A package whose own dependencies are NVIDIA-only (HP821 on its pyproject.toml).
        let nvidia: BTreeSet<String> = findings
            .iter()
            .filter(|f| {
                f.path == *rel
                    && f.rule == super::packages::CUDA_PACKAGE_NO_KNOWN_ROCM.id.code
                    && f.status != Status::Pass
            })
            .filter_map(|f| f.message.split(' ').next().map(str::to_string))
            .collect();
        if nvidia.is_empty() {
            continue;
        }
        if let Some(main) = main_for(&dir) {
            let deps: Vec<String> = nvidia.iter().map(|d| format!("`{d}`")).collect();
            out.push((
                Component {
                    dir: dir.clone(),
                    build: rel.clone(),
                    what: format!(
                        "is its own package (`{rel}`) built on NVIDIA-only packages ({})",
                        deps.join(", ")
                    ),
                    package: package_of(&dir, &main.0),
                },
                describe(main),
            ));
        }
    }
    // Deepest first, so a component inside another is decided on its own.
    out.sort_by(|a, b| {
        b.0.dir
            .len()
            .cmp(&a.0.dir.len())
            .then(a.0.dir.cmp(&b.0.dir))
    });
    out
}

/// "HP603 ×1750, HP001 ×226" for the folded findings.
pub(crate) fn by_rule(folded: &[&Finding]) -> String {
    let mut n: BTreeMap<&str, usize> = BTreeMap::new();
    for f in folded {
        *n.entry(f.rule.as_str()).or_default() += 1;
    }
    let mut v: Vec<(&str, usize)> = n.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(r, c)| format!("{r} ×{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn first_places(folded: &[&Finding], n: usize) -> String {
    folded
        .iter()
        .take(n)
        .map(|f| format!("`{}:{}` {}", f.path, f.line, f.rule))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// Rules never folded: a project-wide fact reported once (the project's own ROCm switch).
const KEEP: &[&str] = &["HP303"];

/// Folds the findings of every CUDA-only component into one HP833 finding at its build file.
/// `setups` and `pyprojects` are the project's `setup.py` and `pyproject.toml` files (relative
/// path, contents). Input and output sorted.
pub fn fold_cuda_only_components(
    findings: &mut Vec<Finding>,
    setups: &[(String, Vec<u8>)],
    pyprojects: &[(String, Vec<u8>)],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) {
    let comps = components(setups, pyprojects, findings);
    let mut added = Vec::new();
    // Python modules outside the components with open findings, with what they import at
    // module level (read once).
    let mut imports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if !comps.is_empty() {
        let files: BTreeSet<&str> = findings
            .iter()
            .filter(|f| f.status != Status::Pass && f.path.ends_with(".py"))
            .map(|f| f.path.as_str())
            .collect();
        for p in files {
            if let Some(bytes) = read(p) {
                imports.insert(p.to_string(), module_level_imports(&bytes));
            }
        }
    }
    // Dockerfiles with open findings, with what they copy into the image.
    let mut copies: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if !comps.is_empty() {
        let files: BTreeSet<&str> = findings
            .iter()
            .filter(|f| f.status != Status::Pass && is_dockerfile(&f.path))
            .map(|f| f.path.as_str())
            .collect();
        for p in files {
            let sources = read(p).and_then(|b| copied_sources(&String::from_utf8_lossy(&b)));
            if let Some(sources) = sources {
                copies.insert(p.to_string(), sources);
            }
        }
    }
    for (c, rocm_path) in comps {
        // The component as a Python package (`flash_attn/cute/` is `flash_attn.cute`): a module
        // that imports it at module level cannot run without it, so it is part of the decision.
        let package = &c.package;
        let importers: BTreeSet<&str> = imports
            .iter()
            .filter(|(p, _)| !p.starts_with(&c.dir))
            .filter(|(_, m)| {
                m.iter()
                    .any(|m| m == package || m.starts_with(&format!("{package}.")))
            })
            .map(|(p, _)| p.as_str())
            .collect();
        // An image that copies only the component (FA4's CI image: `COPY flash_attn/cute/ …`)
        // packages it: part of the decision too.
        let rel = c.rel_dir();
        let images: BTreeSet<&str> = copies
            .iter()
            .filter(|(p, _)| !p.starts_with(&c.dir))
            .filter(|(_, src)| {
                !rel.is_empty()
                    && src.iter().all(|s| {
                        let s = if s.ends_with('/') {
                            s.clone()
                        } else {
                            format!("{s}/")
                        };
                        s.starts_with(&rel)
                    })
            })
            .map(|(p, _)| p.as_str())
            .collect();
        let importers: BTreeSet<&str> = importers.union(&images).copied().collect();
        let idx: Vec<usize> = (0..findings.len())
            .filter(|&i| {
                let f = &findings[i];
                f.status != Status::Pass
                    && (f.path.starts_with(&c.dir) || importers.contains(f.path.as_str()))
                    && !KEEP.contains(&f.rule.as_str())
            })
            .collect();
        if idx.is_empty() {
            continue;
        }
        let folded: Vec<&Finding> = idx.iter().map(|&i| &findings[i]).collect();
        let files: BTreeSet<&str> = folded.iter().map(|f| f.path.as_str()).collect();
        let outside = folded
            .iter()
            .filter(|f| !f.path.starts_with(&c.dir))
            .count();
        let importing = if outside > 0 {
            format!(
                ", {} of them in {} outside it that import `{package}` at module level or package it in an image",
                outside,
                plural(
                    files.iter().filter(|p| !p.starts_with(&c.dir)).count(),
                    "file"
                )
            )
        } else {
            String::new()
        };
        // Anchor: the extension or NVIDIA-only dependency in the build file (PASS or not), else
        // its first finding, else its first line.
        let anchor = findings
            .iter()
            .find(|f| f.path == c.build && (f.rule == "HP830" || f.rule == "HP821"))
            .or_else(|| folded.iter().copied().find(|f| f.path == c.build))
            .map(|f| (f.line, f.column, f.end_line, f.end_column, f.byte_range))
            .unwrap_or((1, 1, 1, 1, (0, 0)));
        let message = format!(
            "`{}` {}: it is built for CUDA only ({} in {}{}, folded here: {}; first: {}). Port it, or leave it out of the ROCm stack; the project's ROCm path is {}",
            c.dir,
            c.what,
            plural(folded.len(), "finding"),
            plural(files.len(), "file"),
            importing,
            by_rule(&folded),
            first_places(&folded, 3),
            rocm_path
        );
        let rule = &CUDA_ONLY_COMPONENT;
        let g = Finding {
            rule: rule.id.code.to_string(),
            rule_name: rule.id.name.to_string(),
            category: rule.category,
            status: rule.status,
            phase: rule.phase,
            path: c.build.clone(),
            line: anchor.0,
            column: anchor.1,
            end_line: anchor.2,
            end_column: anchor.3,
            message,
            suggestion: Some(format!(
                "leave `{}` out of ROCm builds and packaging, or port it (`hipport scan {}` lists its findings one by one)",
                c.dir,
                c.dir.trim_end_matches('/')
            )),
            fix: None,
            fingerprint: fingerprint(rule.id.code, &c.build, c.dir.as_bytes()),
            excerpt: c.dir.clone(),
            byte_range: anchor.4,
            baseline: None,
            folded_into: None,
            holds: 0,
            set_aside: false,
        };
        let note = format!(
            " (folded into HP833 at `{}:{}`: `{}` is built for CUDA only, one decision)",
            g.path, g.line, c.dir
        );
        for &i in &idx {
            crate::finding::Folded::fold(&mut findings[i], format!("{}:{}", g.path, g.line));
            findings[i].message.push_str(&note);
        }
        added.push(g);
    }
    if !added.is_empty() {
        findings.extend(added);
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
}

/// The modules a Python file imports at module level (`import a.b`, `from a.b import c`), outside
/// any `if`, `try`, `with`, function or class.
fn module_level_imports(bytes: &[u8]) -> Vec<String> {
    let Some(tree) = ts::parse(ts::Lang::Python, bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in ts::named_children(tree.root_node()) {
        if !matches!(n.node_kind(), K::ImportStatement | K::ImportFromStatement) {
            continue;
        }
        let mut first = None;
        ts::each(n, &mut |c| {
            if c.node_kind() == K::DottedName {
                if n.node_kind() == K::ImportStatement {
                    out.push(ts::text(c, bytes).to_string());
                } else {
                    first.get_or_insert_with(|| ts::text(c, bytes).to_string());
                }
            }
        });
        out.extend(first);
    }
    out
}

/// Whether an import (the node at `at`) is at module level, outside any `if`, `try`, `with`,
/// function or class: the module then cannot be imported without the package.
fn module_level(root: tree_sitter::Node, at: usize) -> bool {
    let Some(mut n) = root.descendant_for_byte_range(at, at) else {
        return false;
    };
    while let Some(p) = n.parent() {
        if matches!(
            p.node_kind(),
            K::IfStatement
                | K::TryStatement
                | K::WithStatement
                | K::FunctionDefinition
                | K::ClassDefinition
        ) {
            return false;
        }
        n = p;
    }
    true
}

/// Folds the NVIDIA-only Python imports (HP821 "imports …") of each directory into the first one,
/// and the other findings of modules that import one at module level. `read` gives a file's
/// contents by its relative path.
pub fn fold_nvidia_only_imports(findings: &mut [Finding], read: &dyn Fn(&str) -> Option<Vec<u8>>) {
    let code = super::packages::CUDA_PACKAGE_NO_KNOWN_ROCM.id.code;
    let is_import = |f: &Finding| {
        f.rule == code && f.status != Status::Pass && f.message.starts_with("imports ")
    };
    // Directory → indices of its import findings (findings are sorted by path and line).
    let mut dirs: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if is_import(f) {
            dirs.entry(dir_of(&f.path)).or_default().push(i);
        }
    }
    // Modules that import one at module level.
    let mut blocked: BTreeSet<String> = BTreeSet::new();
    let files: BTreeSet<String> = dirs
        .values()
        .flatten()
        .map(|&i| findings[i].path.clone())
        .collect();
    for path in files {
        let Some(bytes) = read(&path) else { continue };
        let Some(tree) = ts::parse(ts::Lang::Python, &bytes) else {
            continue;
        };
        if findings
            .iter()
            .filter(|f| f.path == path && is_import(f))
            .any(|f| module_level(tree.root_node(), f.byte_range.0))
        {
            blocked.insert(path);
        }
    }
    let mut heads: Vec<(usize, String, Vec<String>)> = Vec::new();
    for (dir, idx) in dirs {
        let first = idx[0];
        // Package → files importing it.
        let mut pkgs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for &i in &idx {
            let f = &findings[i];
            let p = f
                .message
                .trim_start_matches("imports ")
                .split(": NVIDIA-only")
                .next()
                .unwrap_or("")
                .to_string();
            pkgs.entry(p).or_default().insert(f.path.clone());
        }
        let others: Vec<usize> = (0..findings.len())
            .filter(|&i| {
                let f = &findings[i];
                i != first
                    && f.status != Status::Pass
                    && !KEEP.contains(&f.rule.as_str())
                    && dir_of(&f.path) == dir
                    && blocked.contains(&f.path)
                    && !is_import(f)
            })
            .collect();
        let mut list: Vec<(String, usize)> =
            pkgs.into_iter().map(|(p, fs)| (p, fs.len())).collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let names: Vec<String> = list
            .iter()
            .map(|(p, n)| format!("{p} in {}", plural(*n, "file")))
            .collect();
        let shown = if dir.is_empty() {
            "./".to_string()
        } else {
            dir.clone()
        };
        let mut message = format!(
            "the Python modules in `{shown}` import NVIDIA-only packages with no ROCm build: {} ({}",
            names.join(", "),
            plural(idx.len(), "import")
        );
        if !others.is_empty() {
            let of: Vec<&Finding> = others.iter().map(|&i| &findings[i]).collect();
            message.push_str(&format!(
                "; {} of modules that import them at module level: {}",
                plural(others.len(), "other finding"),
                by_rule(&of)
            ));
        }
        let mut paths: Vec<&str> = list
            .iter()
            .filter_map(|(p, _)| super::python::nvidia_imports::rocm_path(p))
            .collect();
        paths.dedup();
        message.push_str(&format!(
            ", folded here). Port these modules ({}) or keep them out of the ROCm stack",
            if paths.is_empty() {
                "Triton, Composable Kernel, hip-python".to_string()
            } else {
                paths.join("; ")
            }
        ));
        let (path, line) = (findings[first].path.clone(), findings[first].line);
        findings[first].message = message;
        let note = format!(" (folded into HP821 at `{path}:{line}`: one decision for `{shown}`)");
        for i in idx.into_iter().skip(1).chain(others) {
            crate::finding::Folded::fold(&mut findings[i], format!("{path}:{line}"));
            findings[i].message.push_str(&note);
        }
        let modules = list
            .iter()
            .filter_map(|(p, _)| super::declared_imports::top_module(p))
            .collect();
        heads.push((first, shown, modules));
    }
    super::declared_imports::fold_into_declarations(findings, &heads);
    super::declared_imports::fold_same_packages(findings, &heads);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, line: u32, rule: &str, status: Status, message: &str) -> Finding {
        Finding {
            status,
            message: message.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    const MAIN: &str = "if not SKIP_CUDA_BUILD and not IS_ROCM:\n    ext_modules.append(CUDAExtension(sources=[\"csrc/flash_attn/flash_api.cpp\"]))\nelif not SKIP_CUDA_BUILD and IS_ROCM:\n    sources = [\"csrc/flash_attn_ck/flash_api.cpp\"]\n";
    // hopper/setup.py, shortened: its ROCm switch only skips the build.
    const HOPPER: &str = "USE_TRITON_ROCM = os.getenv(\"FLASH_ATTENTION_TRITON_AMD_ENABLE\", \"FALSE\") == \"TRUE\"\nif USE_TRITON_ROCM:\n    SKIP_CUDA_BUILD = True\nif not SKIP_CUDA_BUILD:\n    sources = [\"flash_api.cpp\"] + [f\"instantiations/flash_fwd_hdim{h}_sm90.cu\" for h in H]\n    ext_modules.append(CUDAExtension(name=\"flash_attn_3._C\", sources=sources))\nif IS_ROCM:\n    install_requires = [\"einops\"]\n";

    fn setups(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(p, s)| (p.to_string(), s.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn a_sub_build_without_rocm_arm_under_a_rocm_aware_project_is_one_decision() {
        let mut f = vec![
            finding("hopper/flash_api.cpp", 3, "HP001", Status::Remediation, "a"),
            finding("hopper/mainloop.hpp", 5, "HP603", Status::Remediation, "b"),
            finding("hopper/mainloop.hpp", 9, "HP603", Status::Remediation, "c"),
            finding("hopper/setup.py", 6, "HP830", Status::Unknown, "d"),
            finding("hopper/x.py", 1, "HP800", Status::Pass, "portable"),
            finding(
                "csrc/flash_attn_ck/a.cpp",
                2,
                "HP303",
                Status::Unknown,
                "switch",
            ),
            finding("tests/t.py", 4, "HP811", Status::Remediation, "e"),
        ];
        let s = setups(&[("setup.py", MAIN), ("hopper/setup.py", HOPPER)]);
        fold_cuda_only_components(&mut f, &s, &[], &|_| None);
        let open: Vec<&Finding> = f.iter().filter(|x| x.status != Status::Pass).collect();
        assert_eq!(open.len(), 3, "{open:#?}");
        let g = open.iter().find(|x| x.rule == "HP833").unwrap();
        assert_eq!(
            (g.path.as_str(), g.line, g.status),
            ("hopper/setup.py", 6, Status::Unknown)
        );
        assert!(g.message.contains("4 findings in 3 files"), "{}", g.message);
        assert!(
            g.message.contains("HP603 ×2, HP001 ×1, HP830 ×1"),
            "{}",
            g.message
        );
        assert!(g.message.contains("`csrc/flash_attn_ck/`"), "{}", g.message);
        // Outside the component nothing changes.
        assert!(open.iter().any(|x| x.path == "tests/t.py"));
        assert!(open.iter().any(|x| x.rule == "HP303"));
        let folded = f.iter().find(|x| x.path == "hopper/mainloop.hpp").unwrap();
        assert_eq!(folded.status, Status::Pass);
        assert!(folded
            .message
            .contains("folded into HP833 at `hopper/setup.py:6`"));
    }

    #[test]
    fn no_folding_without_a_rocm_aware_main_build_or_with_a_rocm_arm() {
        let base = vec![
            finding("hopper/mainloop.hpp", 5, "HP603", Status::Remediation, "b"),
            finding("hopper/setup.py", 6, "HP830", Status::Unknown, "d"),
        ];
        // Builds whose sub-build findings stay the porting work: the main build has no ROCm
        // arm; the sub-build has its own ROCm arm; the main ROCm arm builds from the
        // sub-package's folder.
        let plain = "ext_modules.append(CUDAExtension(sources=[\"csrc/a.cu\"]))\n";
        let ported = "if torch.version.hip:\n    flags = [\"--offload-arch=gfx942\"]\nelse:\n    flags = [\"-gencode\"]\next_modules.append(CUDAExtension(sources=[\"k.cu\"]))\n";
        let shares = "if IS_ROCM:\n    sources = [\"hopper/shared.cpp\"]\n";
        for (main, sub) in [(plain, HOPPER), (MAIN, ported), (shares, HOPPER)] {
            let mut f = base.clone();
            fold_cuda_only_components(
                &mut f,
                &setups(&[("setup.py", main), ("hopper/setup.py", sub)]),
                &[],
                &|_| None,
            );
            assert_eq!(f, base, "main {main:?}, sub {sub:?}");
        }
        // A sub-package at the root of the scan is the project itself.
        let mut f = base.clone();
        fold_cuda_only_components(&mut f, &setups(&[("setup.py", HOPPER)]), &[], &|_| None);
        assert_eq!(f, base);
    }

    #[test]
    fn a_sub_package_on_nvidia_only_packages_is_one_decision() {
        let py = "[project]\nname = \"flash-attn-4\"\ndependencies = [\"nvidia-cutlass-dsl>=4.6.2\", \"quack-kernels\"]\n";
        let mut f = vec![
            finding(
                "flash_attn/cute/pyproject.toml",
                3,
                "HP821",
                Status::Unknown,
                "nvidia-cutlass-dsl is CUDA-specific",
            ),
            finding(
                "flash_attn/cute/pyproject.toml",
                3,
                "HP821",
                Status::Unknown,
                "quack-kernels is CUDA-specific",
            ),
            finding(
                "flash_attn/cute/flash_fwd.py",
                7,
                "HP821",
                Status::Unknown,
                "imports x",
            ),
            finding(
                "flash_attn/cute/flash_fwd.py",
                90,
                "HP811",
                Status::Remediation,
                "cc",
            ),
            finding("flash_attn/other.py", 9, "HP811", Status::Remediation, "cc"),
        ];
        assert_eq!(
            copied_sources("FROM a AS b\nCOPY --chown=1 x/ y z/\n"),
            Some(vec!["x/".to_string(), "y".to_string()])
        );
        assert_eq!(copied_sources("FROM a\nCOPY --from=build /o /o\n"), None);
        // tests/cute/test_flash_attn.py imports the package at module level: part of the
        // decision; tests/other.py imports it inside a function only: not.
        f.push(finding(
            "tests/cute/test_flash_attn.py",
            92,
            "HP811",
            Status::Remediation,
            "cc",
        ));
        f.push(finding(
            "tests/other.py",
            5,
            "HP811",
            Status::Remediation,
            "cc",
        ));
        // FA4's CI image copies only the package; another image copies the whole project.
        let path = |p: &str| finding(p, 3, "HP863", Status::Remediation, "CUDA path");
        f.push(path("tools/ci/docker/Dockerfile"));
        f.push(path("docker/Dockerfile"));
        let fa4 = "FROM ubuntu:24.04\nENV PATH=/usr/local/cuda/bin:$PATH\nCOPY flash_attn/cute/ /tmp/fa4/\n";
        let all = format!("{fa4}COPY . /src\n");
        let files: BTreeMap<&str, &str> = [
            (
                "tests/cute/test_flash_attn.py",
                "import torch\nfrom flash_attn.cute.interface import (\n    flash_attn_func,\n)\n",
            ),
            (
                "tests/other.py",
                "import torch\ndef f():\n    from flash_attn.cute import x\n",
            ),
            ("tools/ci/docker/Dockerfile", fa4),
            ("docker/Dockerfile", all.as_str()),
        ]
        .into();
        let read = |p: &str| files.get(p).map(|s| s.as_bytes().to_vec());
        let toml = vec![(
            "flash_attn/cute/pyproject.toml".to_string(),
            py.as_bytes().to_vec(),
        )];
        fold_cuda_only_components(&mut f, &setups(&[("setup.py", MAIN)]), &toml, &read);
        let open: Vec<&Finding> = f.iter().filter(|x| x.status != Status::Pass).collect();
        assert_eq!(open.len(), 4, "{open:#?}");
        assert!(open.iter().any(|x| x.path == "tests/other.py"));
        assert!(open.iter().any(|x| x.path == "docker/Dockerfile"));
        let g = open.iter().find(|x| x.rule == "HP833").unwrap();
        assert!(
            g.message.contains("`nvidia-cutlass-dsl`, `quack-kernels`"),
            "{}",
            g.message
        );
        assert!(
            g.message.contains("6 findings in 4 files, 2 of them in 2 files outside it that import `flash_attn.cute` at module level or package it in an image"),
            "{}",
            g.message
        );
        // A pyproject.toml that only configures tools is no package; nor is one without
        // NVIDIA-only dependencies.
        let mut f2 = vec![finding(
            "flash_attn/x.py",
            7,
            "HP821",
            Status::Unknown,
            "imports x",
        )];
        let tools = vec![(
            "flash_attn/pyproject.toml".to_string(),
            b"[tool.ruff]\nline-length = 100\n".to_vec(),
        )];
        fold_cuda_only_components(&mut f2, &setups(&[("setup.py", MAIN)]), &tools, &|_| None);
        assert_eq!(f2[0].status, Status::Unknown);
    }

    #[test]
    fn nvidia_only_imports_are_one_fact_per_directory() {
        let a = "import torch\nimport cutlass\nfrom quack import x\n\ndef f():\n    if cc >= (9, 0):\n        pass\n";
        let b = "try:\n    import cutlass\nexcept ImportError:\n    cutlass = None\nif cc >= (9, 0):\n    pass\n";
        let files: BTreeMap<&str, &str> =
            [("pkg/a.py", a), ("pkg/b.py", b), ("other/c.py", a)].into();
        let read = |p: &str| files.get(p).map(|s| s.as_bytes().to_vec());
        let at = |path: &str, line: u32, rule: &str, st: Status, msg: &str, off: usize| {
            let mut f = finding(path, line, rule, st, msg);
            f.byte_range = (off, off + 1);
            f
        };
        let cut =
            "imports nvidia-cutlass-dsl / nvidia-cutlass (`cutlass`): NVIDIA-only, no ROCm build";
        let qk = "imports quack-kernels (`quack`): NVIDIA-only, no ROCm build";
        let mut f = vec![
            at(
                "other/c.py",
                2,
                "HP821",
                Status::Unknown,
                cut,
                a.find("cutlass").unwrap(),
            ),
            at(
                "pkg/a.py",
                2,
                "HP821",
                Status::Unknown,
                cut,
                a.find("cutlass").unwrap(),
            ),
            at(
                "pkg/a.py",
                3,
                "HP821",
                Status::Unknown,
                qk,
                a.find("quack").unwrap(),
            ),
            at(
                "pkg/a.py",
                6,
                "HP811",
                Status::Remediation,
                "cc",
                a.find("cc").unwrap(),
            ),
            at(
                "pkg/b.py",
                2,
                "HP821",
                Status::Unknown,
                cut,
                b.find("cutlass").unwrap(),
            ),
            at(
                "pkg/b.py",
                5,
                "HP811",
                Status::Remediation,
                "cc",
                b.find("cc").unwrap(),
            ),
        ];
        fold_nvidia_only_imports(&mut f, &read);
        let open: Vec<(&str, u32, &str)> = f
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.as_str(), x.line, x.rule.as_str()))
            .collect();
        // One per directory, and the directories that share a package are one decision (held
        // by the first); b.py imports cutlass inside `try`, so it still imports on ROCm and its
        // capability check stays.
        assert_eq!(
            open,
            vec![("other/c.py", 2, "HP821"), ("pkg/b.py", 5, "HP811")]
        );
        assert!(
            f[0].message.contains("the modules of 1 more folder import them too, or packages imported beside them (`pkg/`"),
            "{}",
            f[0].message
        );
        assert!(f[1].message.contains("folded into HP821 at `other/c.py:2`"));
        let g = &f[1];
        assert!(g.message.contains("nvidia-cutlass-dsl / nvidia-cutlass (`cutlass`) in 2 files, quack-kernels (`quack`) in 1 file (3 imports; 1 other finding"), "{}", g.message);
        assert!(f[3].message.contains("folded into HP821 at `pkg/a.py:2`"));
    }

    /// warp-drive: `requirements.txt` declares numba (open HP821) and two example folders each
    /// import `numba.cuda`: one decision, held by the declaration, which names the folders. The
    /// twin: a package no dependency list declares keeps one decision per folder.
    #[test]
    fn folders_importing_a_declared_package_fold_into_its_declaration() {
        let nb = "imports numba's CUDA target (`numba.cuda`; numba-hip is a port): NVIDIA-only, no ROCm build";
        let decl = finding(
            "requirements.txt",
            8,
            "HP821",
            Status::Unknown,
            "numba is CUDA-specific; ROCm path: none known",
        );
        let imports = || {
            vec![
                finding("envs/a/a.py", 1, "HP821", Status::Unknown, nb),
                finding("envs/a/b.py", 2, "HP821", Status::Unknown, nb),
                finding("envs/c/c.py", 3, "HP821", Status::Unknown, nb),
            ]
        };
        let read = |_: &str| None;
        let mut f = imports();
        f.push(decl.clone());
        fold_nvidia_only_imports(&mut f, &read);
        let open: Vec<(&str, u32)> = f
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.as_str(), x.line))
            .collect();
        assert_eq!(open, [("requirements.txt", 8)]);
        assert!(
            f[3].message
                .contains("imported by the modules of 2 folders (`envs/a/`, `envs/c/`"),
            "{}",
            f[3].message
        );
        // Every folded import points at the declaration, the per-folder members too.
        assert!(f[..3].iter().all(|x| x
            .folded_into
            .as_ref()
            .is_some_and(|d| d.at == "requirements.txt:8")));
        // No declaration (or a PASS one): the folders' import findings are still one decision,
        // held by the first folder's.
        let mut f = imports();
        fold_nvidia_only_imports(&mut f, &read);
        assert_eq!(f.iter().filter(|x| x.status != Status::Pass).count(), 1);
        let mut f = imports();
        f.push(Finding {
            status: Status::Pass,
            ..decl
        });
        fold_nvidia_only_imports(&mut f, &read);
        assert_eq!(f.iter().filter(|x| x.status != Status::Pass).count(), 1);
        // Twin: folders importing different packages stay separate decisions.
        let mut f = imports();
        f[2].message = "imports PyCUDA (`pycuda`): NVIDIA-only, no ROCm build".into();
        fold_nvidia_only_imports(&mut f, &read);
        assert_eq!(f.iter().filter(|x| x.status != Status::Pass).count(), 2);
    }

    /// neuralangelo: `requirements.txt` declares `git+…/tiny-cuda-nn/…` and a model imports
    /// `tinycudann`, the package's name without its separators: one decision, the declaration's.
    #[test]
    fn a_module_named_without_the_packages_separators_is_declared() {
        let tcnn = "imports tiny-cuda-nn's PyTorch bindings (`tinycudann`; no ROCm build published): NVIDIA-only, no ROCm build";
        let mut f = vec![
            finding("models/ingp.py", 15, "HP821", Status::Unknown, tcnn),
            finding(
                "requirements.txt",
                3,
                "HP821",
                Status::Unknown,
                "tiny-cuda-nn is CUDA-specific; ROCm path: none known",
            ),
        ];
        fold_nvidia_only_imports(&mut f, &|_: &str| None);
        let open: Vec<(&str, u32)> = f
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.as_str(), x.line))
            .collect();
        assert_eq!(open, [("requirements.txt", 3)]);
    }
}
