//! Copies of NVIDIA's own toolkit headers in a project are one decision. cuda_hook keeps
//! `cuda.h`, `cublas.h`, `cusparse.h`, `cusolver_common.h`, … in `tools/code_generate/include/`
//! as the input of its hook generator; other projects keep `cuda.h` to load the driver without a
//! toolkit. Read line by line, such a copy is hundreds of "no HIP equivalent" findings on
//! NVIDIA's declarations of its own API (cuda_hook: 470 of 811 open findings). Nothing there is
//! the project's code to port: the ROCm build takes the API from HIP's headers, and what a
//! porter decides is whether the copies (and whatever reads them) stay in it.
//!
//! A file is such a copy when its name is the name of a CUDA toolkit header (one the include
//! tables map, `cuda.h`, `cublas_v2.h`, `nvrtc.h`) and its head carries NVIDIA's copyright
//! notice (every toolkit header opens with `Copyright 1993-20xx NVIDIA Corporation`). A
//! project's own `cuda.h` wrapper has no such notice and stays its own matter.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeSet;

/// How much of a file's head is read for NVIDIA's notice.
const HEAD: usize = 4096;

/// Whether `head` (a file's first bytes) carries NVIDIA's copyright notice.
pub fn nvidia_notice(head: &[u8]) -> bool {
    let head = &head[..head.len().min(HEAD)];
    let has = |w: &[u8]| memchr::memmem::find(head, w).is_some();
    (has(b"Copyright") || has(b"COPYRIGHT") || has(b"copyright"))
        && (has(b"NVIDIA Corporation") || has(b"NVIDIA CORPORATION"))
}

/// The copies of toolkit headers among the files with open findings: `toolkit(name)` says
/// whether a file name is a CUDA toolkit header's, `read(rel)` gives a file's text.
pub fn files(
    findings: &[Finding],
    toolkit: &dyn Fn(&str) -> bool,
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Vec<String> {
    let candidates: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass && crate::walk::is_header(&f.path))
        .map(|f| f.path.as_str())
        .filter(|p| toolkit(p.rsplit('/').next().unwrap_or(p)))
        .collect();
    candidates
        .into_iter()
        .filter(|p| read(p).is_some_and(|b| nvidia_notice(&b)))
        .map(str::to_string)
        .collect()
}

/// The decision: the open findings of the copies, one group per folder, held by the first.
pub fn kind(copies: Vec<String>) -> Kind {
    let dir = |p: &str| {
        p.rsplit_once('/')
            .map_or(String::new(), |(d, _)| d.to_string())
    };
    Kind {
        key: Box::new(move |f: &Finding| {
            copies
                .contains(&f.path)
                .then(|| format!("toolkit copies\u{1f}{}", dir(&f.path)))
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let names: BTreeSet<&str> = g
                .members
                .iter()
                .map(|f| f.path.rsplit('/').next().unwrap_or(&f.path))
                .collect();
            let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
            let more = names.len().saturating_sub(4);
            let folder = g.head.path.rsplit_once('/').map_or("", |(d, _)| d);
            format!(
                " — one decision: {} {} NVIDIA's own toolkit header{} ({}{}, NVIDIA's copyright \
                 notice) kept in `{}/`, declaring CUDA's API; the ROCm build takes that API from \
                 HIP's headers, so leave the copies out of it (a tool that reads them, a code \
                 generator or a loader, reads HIP's headers instead); {} more findings in {} \
                 files are folded here ({})",
                if names.len() == 1 {
                    "a copy of"
                } else {
                    "copies of"
                },
                if names.len() == 1 { "one of" } else { "" },
                if names.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                },
                folder,
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
            .replace("  ", " ")
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "a copy of NVIDIA's toolkit header, one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &str, line: u32) -> Finding {
        let mut f = Finding::bare("HP001", path, line);
        f.status = Status::Remediation;
        f
    }

    const NOTICE: &[u8] = b"/*\n * Copyright 1993-2023 NVIDIA Corporation.  All rights reserved.\n */\n#ifndef __cuda_cuda_h__\n";

    /// cuda_hook's generator input: NVIDIA's `cuda.h` and `cublas.h` in one folder are one
    /// finding. Twins: the project's own `cuda.h` wrapper (no NVIDIA notice) and a file with the
    /// notice that is not named like a toolkit header stay open.
    #[test]
    fn copies_of_toolkit_headers_are_one_decision() {
        let mut fs = vec![
            open("tools/include/cuda.h", 300),
            open("tools/include/cuda.h", 301),
            open("tools/include/cublas.h", 40),
            open("src/cuda.h", 5),
            open("src/hook.h", 7),
        ];
        let toolkit = |n: &str| matches!(n, "cuda.h" | "cublas.h");
        let read = |rel: &str| -> Option<Vec<u8>> {
            Some(match rel {
                "src/cuda.h" => b"// our own wrapper\n#include <cuda.h>\n".to_vec(),
                _ => NOTICE.to_vec(),
            })
        };
        let copies = files(&fs, &toolkit, &read);
        assert_eq!(copies, ["tools/include/cublas.h", "tools/include/cuda.h"]);
        crate::decisions::fold(&mut fs, &kind(copies));
        assert_eq!(
            crate::decisions::test_support::open(&fs),
            [
                ("tools/include/cuda.h", 300),
                ("src/cuda.h", 5),
                ("src/hook.h", 7)
            ]
        );
        assert!(
            fs[0]
                .message
                .contains("copies of NVIDIA's own toolkit headers (`cublas.h`, `cuda.h`"),
            "{}",
            fs[0].message
        );
        assert!(fs[0].message.contains("2 more findings in 2 files"));
    }

    /// cuda-samples' `Common/` helpers are CUDA headers the tables know, but not the toolkit's:
    /// a vendored `helper_cuda.h` (cuda_voxelizer's `src/libs/cuda/`) holds code the program
    /// calls, ported like its own. Twin: `cuda.h` is the toolkit's.
    #[test]
    fn sample_helpers_are_not_toolkit_headers() {
        let m = crate::mappings::get();
        assert!(m.is_cuda_header("helper_cuda.h"));
        assert!(!m.is_toolkit_header("helper_cuda.h"));
        assert!(!m.is_toolkit_header("helper_math.h"));
        assert!(m.is_toolkit_header("cuda.h"));
        assert!(m.is_toolkit_header("cublas_v2.h"));
    }
}
