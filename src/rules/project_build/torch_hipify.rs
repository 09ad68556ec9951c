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
const DONE_BY_PORT: &str = "done by `hipport port`";

/// The folder of a relative path (`""` at the root).
fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Reopens the port-only rewrites (see the module documentation) in the files under a folder
/// where an HP830 finding says PyTorch builds the kernels (`setup.py`'s folder, or that of the
/// module calling `load()`): one finding per extension holds them (the first, counting the
/// others: one `hipport port --write` over its sources applies them all), the rest fold into it. Files outside every such folder (nccl's core, built by its Makefiles
/// beside `contrib/nccl_ubx/setup.py`) keep their PASS.
pub fn reopen_port_rewrites(findings: &mut [Finding]) {
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
    if exts.is_empty() {
        return;
    }
    // The deepest folder first: a file takes the nearest extension above it.
    exts.sort_by_key(|(d, _)| std::cmp::Reverse(d.len()));
    let under = |path: &str| {
        exts.iter()
            .find(|(d, _)| d.is_empty() || path.starts_with(&format!("{d}/")))
            .map(|(_, at)| at.clone())
    };
    // Per extension: the head's index and the others (one `hipport port --write` over the
    // extension's sources applies them all).
    let mut files: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, f) in findings.iter().enumerate() {
        if f.status == Status::Pass && f.folded_into.is_none() && f.message.contains(DONE_BY_PORT) {
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
