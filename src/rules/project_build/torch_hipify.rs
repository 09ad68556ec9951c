//! What PyTorch's build-time hipify does not do. A project whose kernels are built by
//! `CUDAExtension` (or `load()`) gets them hipified by PyTorch's ROCm build: API and header
//! renames need nothing from a person (PASS). The rewrites only `hipport port` makes, those
//! that keep CUDA's meaning on 64-lane wavefronts (a 32-bit full mask widened, width 32 given
//! to the shuffles of 32-lane logical warps, a ballot's own half), are no part of that build:
//! the sources reach hipcc as written. Measured on held-out PyTorch extensions (ByteTransformer,
//! SpargeAttn, nunchaku: docs/heldout.md sets 42–44), the readers counted these PASS findings
//! as misses every time. So in such a project they are REMEDIATION: the change is known and safe,
//! and a person applies it (`hipport port --write`) and keeps it in the sources.

use crate::finding::Finding;
use crate::gate::Status;

/// The text of a translator finding that `port` makes the change it names.
/// What a finding of a rewrite `hipport port` makes says.
pub const DONE_BY_PORT: &str = "done by `hipport port`";
/// What [`crate::rules::hazards`] adds to a finding in a branch HIP never compiles.
const COMPILED_OUT: &str = "compiled out under HIP";

/// The folder of a relative path (`""` at the root).
fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The folders where an HP830 finding says PyTorch builds the kernels, deepest first, each with
/// the finding's `path:line`.
fn extensions(findings: &[Finding]) -> Vec<(String, String)> {
    let code = crate::inventory::native_ext::TORCH_CUDA_EXTENSION.id.code;
    let mut exts: Vec<(String, String)> = findings
        .iter()
        .filter(|f| f.rule == code)
        .map(|f| {
            (
                dir_of(&f.path).to_string(),
                format!("{}:{}", f.path, f.line),
            )
        })
        .collect();
    // The deepest folder first: a file takes the nearest extension above it.
    exts.sort_by_key(|(d, _)| std::cmp::Reverse(d.len()));
    exts
}

/// The extension (its HP830 `path:line`) whose folder holds `path`.
fn under(exts: &[(String, String)], path: &str) -> Option<String> {
    exts.iter()
        .find(|(d, _)| d.is_empty() || path.starts_with(&format!("{d}/")))
        .map(|(_, at)| at.clone())
}

/// One open HP022 per PyTorch extension whose sources use CUDA names PyTorch's hipify leaves as
/// written. `left`: per file, the names `port` renames there that PyTorch's map lacks, each with
/// its per-file finding (code the ROCm build does not compile already left out). Files `skip`
/// says the ROCm build does not compile are left out, and so are names a file of the same
/// extension, or one outside every extension, declares itself (`declared`, path and name: the
/// project's ROCm layer's `typedef __hip_bfloat16 nv_bfloat16;`). The head is the most used
/// name's first use, naming every name with its uses; the other names' findings fold into it.
/// Outside every extension the findings are dropped: no other build leaves them as written.
pub fn names_hipify_leaves(
    findings: &mut Vec<Finding>,
    left: Vec<(String, Vec<(crate::translate::TorchLeft, Finding)>)>,
    declared: &[(String, String)],
    skip: &dyn Fn(&str) -> bool,
) {
    let exts = extensions(findings);
    if exts.is_empty() || left.is_empty() {
        return;
    }
    // Per extension, per name: (hip name, uses, files, the findings in file order).
    type Name = (String, u32, u32, Vec<Finding>);
    let mut per: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Name>> =
        Default::default();
    for (path, names) in left {
        if skip(&path) {
            continue;
        }
        let Some(ext) = under(&exts, &path) else {
            continue;
        };
        let own = |name: &str| {
            declared
                .iter()
                .any(|(p, d)| d == name && under(&exts, p).is_none_or(|e| e == ext))
        };
        let m = per.entry(ext.clone()).or_default();
        for (n, f) in names {
            if own(&n.cuda) {
                continue;
            }
            let e = m
                .entry(n.cuda.clone())
                .or_insert_with(|| (n.hip.clone(), 0, 0, Vec::new()));
            e.1 += n.uses;
            e.2 += 1;
            e.3.push(f);
        }
    }
    for (ext, names) in per {
        let mut list: Vec<(String, Name)> = names.into_iter().collect();
        if list.is_empty() {
            continue;
        }
        // The most used name first; its first use is where the finding points.
        list.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(&b.0)));
        let shown: Vec<String> = list
            .iter()
            .take(6)
            .map(|(n, (_, uses, files, _))| match (uses, files) {
                (1, _) => format!("`{n}` (1 use)"),
                (u, 1) => format!("`{n}` ({u} uses)"),
                (u, f) => format!("`{n}` ({u} uses in {f} files)"),
            })
            .collect();
        let more = list.len().saturating_sub(6);
        let renames: Vec<String> = list
            .iter()
            .take(6)
            .map(|(n, (hip, ..))| format!("`typedef {hip} {n};`"))
            .collect();
        let mut all: Vec<Finding> = list.into_iter().flat_map(|(_, (.., fs))| fs).collect();
        let mut head = all.remove(0);
        let at = format!("{}:{}", head.path, head.line);
        head.message = format!(
            "PyTorch builds this file (`{ext}`), and its build-time hipify does not rename {}{}: they reach hipcc as written, and HIP does not define them",
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        );
        head.suggestion = Some(format!(
            "define them for the ROCm build in a header every source includes (under `#ifdef USE_ROCM`: {}, or the matching `#define` for a function), or rename them in the sources with `hipport port --write` and keep the renames",
            renames.join(" ")
        ));
        findings.push(head);
        for mut f in all {
            crate::finding::Folded::fold(&mut f, at.clone());
            f.message.push_str(&format!(
                " (folded into `{at}`: one change for the extension)"
            ));
            findings.push(f);
        }
    }
}

/// Reopens the port-only rewrites (see the module documentation) in the files under a folder
/// where an HP830 finding says PyTorch builds the kernels (`setup.py`'s folder, or that of the
/// module calling `load()`): one finding per extension holds them (the first, counting the
/// others: one `hipport port --write` over its sources applies them all), the rest fold into it. Files outside every such folder (nccl's core, built by its Makefiles
/// beside `contrib/nccl_ubx/setup.py`) keep their PASS.
pub fn reopen_port_rewrites(findings: &mut [Finding]) {
    let exts = extensions(findings);
    if exts.is_empty() {
        return;
    }
    let under = |path: &str| under(&exts, path);
    // Per extension: the head's index and the others (one `hipport port --write` over the
    // extension's sources applies them all).
    let mut files: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, f) in findings.iter().enumerate() {
        // A rewrite in a branch HIP never compiles is no work for the build's hipify either.
        if f.status == Status::Pass
            && f.folded_into.is_none()
            && f.message.contains(DONE_BY_PORT)
            && !f.message.contains(COMPILED_OUT)
        {
            if let Some(ext) = under(&f.path) {
                files.entry(ext).or_default().push(i);
            }
        }
    }
    for (ext, idx) in files {
        let n_files = idx
            .iter()
            .map(|&i| findings[i].path.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let head = idx[0];
        let at = format!("{}:{}", findings[head].path, findings[head].line);
        let more = idx.len() - 1;
        // A 32-bit mask left as written stops the build: HIP's `_sync` intrinsics
        // `static_assert` a 64-bit mask (and PyTorch's hipify keeps their CUDA names).
        let masks = idx
            .iter()
            .any(|&i| matches!(findings[i].rule.as_str(), "HP006" | "HP015"));
        let f = &mut findings[head];
        f.status = Status::Remediation;
        if masks {
            f.phase = crate::gate::Phase::Build;
        }
        f.message.push_str(&format!(
            " — but this file is built by PyTorch (`{ext}`), whose build-time hipify renames APIs and does not make this change: apply it to the sources{}{}",
            match (more, n_files) {
                (0, _) => String::new(),
                (m, 1) => format!(" ({m} more such rewrites in this file are folded here)"),
                (m, n) => format!(" ({m} more such rewrites in {n} files of this extension are folded here)"),
            },
            if masks {
                "; as written, its 32-bit masks stop the build (HIP's `_sync` warp intrinsics take only 64-bit masks)"
            } else {
                ""
            }
        ));
        f.suggestion = Some(
            "apply the file's rewrites with `hipport port --write` (safe rewrites) or by hand, and keep them in the sources"
                .into(),
        );
        for &i in &idx[1..] {
            crate::finding::Folded::fold(&mut findings[i], at.clone());
            if let Some(x) = findings[i].folded_into.as_mut() {
                x.status = Status::Remediation;
            }
            findings[i].message.push_str(&format!(
                " (folded into `{at}`: the extension's port-only rewrites are one change to apply)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(rule: &str, path: &str, status: Status, message: &str) -> Finding {
        Finding {
            status,
            message: message.into(),
            ..Finding::bare(rule, path, 3)
        }
    }

    /// A widened mask in a `CUDAExtension` project is the person's to apply, one finding per
    /// file; the twins: the same finding in a project without one, or outside the extension's
    /// folder, stays PASS, and a rename (which PyTorch's hipify makes) stays PASS.
    #[test]
    fn port_only_rewrites_reopen_under_pytorch_builds() {
        let mask = |path: &str| {
            f(
                "HP006",
                path,
                Status::Pass,
                "32-bit full mask in `__shfl_xor_sync` widened to 64 bits for 64-lane wavefronts (done by `hipport port`)",
            )
        };
        let rename = f(
            "HP000",
            "ext/csrc/k.cu",
            Status::Pass,
            "`cudaMalloc` → `hipMalloc`",
        );
        let ext = f(
            "HP830",
            "ext/setup.py",
            Status::Pass,
            "CUDAExtension: PyTorch's ROCm build hipifies it automatically",
        );
        let mut with = vec![
            mask("ext/csrc/k.cu"),
            mask("ext/csrc/k.cu"),
            rename.clone(),
            mask("core/src/all_reduce.cu"),
            ext,
        ];
        reopen_port_rewrites(&mut with);
        assert_eq!(with[0].status, Status::Remediation);
        assert!(
            with[0]
                .message
                .contains("built by PyTorch (`ext/setup.py:3`)")
                && with[0].message.contains("1 more such rewrites"),
            "{}",
            with[0].message
        );
        // A 32-bit mask as written stops the build.
        assert_eq!(with[0].phase, crate::gate::Phase::Build);
        // inplace_abn: the same rewrite in a `#if CUDA_VERSION >= 9000` arm HIP never compiles
        // is no work for the build's hipify.
        let mut dead = mask("ext/csrc/k.cu");
        dead.message
            .push_str(" (compiled out under HIP: decided by `#if CUDA_VERSION >= 9000` (line 24))");
        let mut only_dead = vec![
            dead,
            f(
                "HP830",
                "ext/setup.py",
                Status::Pass,
                "CUDAExtension: PyTorch's ROCm build hipifies it automatically",
            ),
        ];
        reopen_port_rewrites(&mut only_dead);
        assert_eq!(only_dead[0].status, Status::Pass);
        assert_eq!(with[1].status, Status::Pass);
        assert_eq!(with[1].folded_into.as_ref().unwrap().at, "ext/csrc/k.cu:3");
        // Twin: a width-32 rewrite alone is the meaning's, not the build's.
        let mut width = vec![
            Finding {
                phase: crate::gate::Phase::Correctness,
                ..f(
                    "HP109",
                    "ext/csrc/w.cu",
                    Status::Pass,
                    "`__shfl_down_sync` in a function of 32-lane logical warps: width 32 (done by `hipport port`)",
                )
            },
            f("HP830", "ext/setup.py", Status::Pass, "CUDAExtension"),
        ];
        reopen_port_rewrites(&mut width);
        assert_eq!(width[0].status, Status::Remediation);
        assert_eq!(width[0].phase, crate::gate::Phase::Correctness);
        assert_eq!(with[2].status, Status::Pass);
        assert_eq!(
            with[3].status,
            Status::Pass,
            "outside the extension's folder"
        );
        let mut without = vec![mask("ext/csrc/k.cu"), rename];
        reopen_port_rewrites(&mut without);
        assert!(without.iter().all(|x| x.status == Status::Pass));
    }
}
