//! One package, one decision: NVIDIA-only Python imports that [`super::component`] folds per
//! folder, folded once more into the dependency list's declaration of the package, or, where no
//! list declares it, into the first folder that imports it (`fold_same_packages`).

use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeMap;

/// The top-level module a package description names in its first backticks (`numba's CUDA
/// target (\`numba.cuda\`; …)` → `numba`).
pub(super) fn top_module(described: &str) -> Option<String> {
    let m = described.split('`').nth(1)?;
    let top = m.split('.').next()?.trim();
    (!top.is_empty()).then(|| top.to_ascii_lowercase())
}

/// Whether a path is a dependency list (`requirements*.txt`, `setup.py`, `pyproject.toml`, …).
fn dependency_list(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    (name.starts_with("requirements") && name.ends_with(".txt"))
        || matches!(
            name,
            "setup.py" | "setup.cfg" | "pyproject.toml" | "environment.yml" | "environment.yaml"
        )
}

/// One package, one decision: where the project's dependency list declares every package a
/// folder's modules import (`numba` in `requirements.txt`, open as HP821), the folder's import
/// decision is that declaration's (warp-drive: 8 example folders each importing `numba.cuda`
/// repeat `requirements.txt:8`). The folder's finding, and what it holds, fold into the
/// declaration, which names the folders. A package no dependency list declares keeps its
/// per-folder decisions.
pub(super) fn fold_into_declarations(
    findings: &mut [Finding],
    heads: &[(usize, String, Vec<String>)],
) {
    let code = super::packages::CUDA_PACKAGE_NO_KNOWN_ROCM.id.code;
    // Module → index of its open declaration.
    let mut declared: BTreeMap<String, usize> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if f.rule != code || f.status == Status::Pass || !dependency_list(&f.path) {
            continue;
        }
        let Some((name, _)) = f.message.split_once(" is CUDA-specific") else {
            continue;
        };
        let module = name.trim().to_ascii_lowercase().replace('-', "_");
        // The module may drop the separators of the package's name (`tiny-cuda-nn` imports as
        // `tinycudann`).
        declared.entry(module.replace('_', "")).or_insert(i);
        declared.entry(module).or_insert(i);
    }
    if declared.is_empty() {
        return;
    }
    let mut folders: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (head, shown, modules) in heads {
        if modules.is_empty() || !modules.iter().all(|m| declared.contains_key(m)) {
            continue;
        }
        let d = declared[&modules[0]];
        let at = format!("{}:{}", findings[d].path, findings[d].line);
        let old = format!("{}:{}", findings[*head].path, findings[*head].line);
        for f in findings.iter_mut() {
            if let Some(folded) = f.folded_into.as_mut().filter(|x| x.at == old) {
                folded.at.clone_from(&at);
            }
        }
        crate::finding::Folded::fold(&mut findings[*head], at.clone());
        findings[*head]
            .message
            .push_str(&format!(" (folded into HP821 at `{at}`: the dependency list declares the package; one decision)"));
        folders.entry(d).or_default().push(shown.clone());
    }
    for (d, shown) in folders {
        let list: Vec<String> = shown.iter().take(4).map(|s| format!("`{s}`")).collect();
        let more = shown.len().saturating_sub(4);
        findings[d].message.push_str(&format!(
            " — imported by the modules of {} ({}{}; their findings are folded here)",
            super::component::plural(shown.len(), "folder"),
            list.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
}

/// Folders whose modules import the same NVIDIA-only packages (any one shared) and that no
/// dependency list declares: one decision, held by the first folder's finding (tensorrtx: the
/// PyCUDA scripts of 19 model folders, one choice of hip-python or another runtime).
pub(super) fn fold_same_packages(findings: &mut [Finding], heads: &[(usize, String, Vec<String>)]) {
    let open: Vec<&(usize, String, Vec<String>)> = heads
        .iter()
        .filter(|(h, _, m)| findings[*h].folded_into.is_none() && !m.is_empty())
        .collect();
    // Union of folders sharing a package, in report order: component → member positions.
    let mut comp: Vec<usize> = (0..open.len()).collect();
    fn root(c: &mut [usize], mut i: usize) -> usize {
        while c[i] != i {
            c[i] = c[c[i]];
            i = c[i];
        }
        i
    }
    for i in 0..open.len() {
        for j in 0..i {
            if open[i].2.iter().any(|m| open[j].2.contains(m)) {
                let (a, b) = (root(&mut comp, i), root(&mut comp, j));
                comp[a.max(b)] = a.min(b);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..open.len() {
        let r = root(&mut comp, i);
        groups.entry(r).or_default().push(i);
    }
    for members in groups.values().filter(|m| m.len() > 1) {
        let head = open[members[0]].0;
        let at = format!("{}:{}", findings[head].path, findings[head].line);
        let others: Vec<&(usize, String, Vec<String>)> =
            members[1..].iter().map(|&i| open[i]).collect();
        for (h, _, _) in &others {
            let old = format!("{}:{}", findings[*h].path, findings[*h].line);
            for f in findings.iter_mut() {
                if let Some(folded) = f.folded_into.as_mut().filter(|x| x.at == old) {
                    folded.at.clone_from(&at);
                }
            }
            crate::finding::Folded::fold(&mut findings[*h], at.clone());
            findings[*h].message.push_str(&format!(
                " (folded into HP821 at `{at}`: NVIDIA-only packages shared with that folder, one decision)"
            ));
        }
        let shown: Vec<String> = others
            .iter()
            .take(4)
            .map(|(_, d, _)| format!("`{d}`"))
            .collect();
        let more = others.len().saturating_sub(4);
        findings[head].message.push_str(&format!(
            " — the modules of {} import them too, or packages imported beside them ({}{}; their findings are folded here)",
            super::component::plural(others.len(), "more folder"),
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
    }
}
