//! The project's run-time loaders of CUDA libraries are one decision. A program that loads
//! the CUDA driver and NVRTC itself (keops's `find_library("cuda")`, `find_library("nvrtc")`,
//! `find_library("cudart")` in two modules; libgpuarray's loader per library) has one loading
//! layer to port: which libraries it opens and which symbols it resolves. One HP507 per library
//! per file listed that layer six times over in keops.
//!
//! So the project's open HP507 findings fold into the first, which names each library and where
//! it is loaded; an AMD library the project loads too has made them PASS already
//! ([`crate::rules::driver_api::loaded::pass_beside_amd_loaders`]).

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::rules::driver_api::loaded::{self, LOADED_BY_NAME};

/// "`libcuda` (`a.py:3`, `b.py:9`), `libnvrtc` (`a.py:4`)": each library with its places.
fn libraries(members: &[&Finding]) -> String {
    let mut by: Vec<(String, Vec<String>)> = Vec::new();
    for f in members {
        let Some(w) = loaded::loaded(loaded::contents(&f.excerpt), true) else {
            continue;
        };
        let at = format!("`{}:{}`", f.path, f.line);
        let name = format!("lib{}", w.name());
        match by.iter_mut().find(|(n, _)| *n == name) {
            Some((_, places)) => places.push(at),
            None => by.push((name, vec![at])),
        }
    }
    by.iter()
        .map(|(n, p)| format!("`{n}` ({})", p.join(", ")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The decision: every open HP507 of the project's own code, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (super::kind::own(&f.path) && f.rule == LOADED_BY_NAME.id.code)
                .then(|| "cuda-loaders".to_string())
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision: the project's loader of CUDA libraries opens {} and resolves their CUDA names; port it to their ROCm counterparts; {} more folded here",
                libraries(&g.members),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's run-time loaders are one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open;
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings_at;

    fn hp507(path: &str, src: &str) -> Vec<Finding> {
        hazard_findings_at(path, src)
            .into_iter()
            .filter(|f| f.rule == "HP507")
            .collect()
    }

    /// keops-like: the driver and NVRTC loaded in two files: one decision naming both.
    #[test]
    fn the_projects_loaders_are_one_decision() {
        let mut fs = hp507(
            "b/load.c",
            "void* a = dlopen(\"libcuda.so\", 1);\nvoid* b = dlopen(\"libnvrtc.so\", 1);\n",
        );
        fs.extend(hp507(
            "c/util.c",
            "void* c = dlopen(\"libcuda.so.1\", 1);\n",
        ));
        assert_eq!(fs.len(), 3);
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(open(&fs), [("b/load.c", 1)]);
        let head = &fs[0].message;
        assert!(
            head.contains("`libcuda` (`b/load.c:1`, `c/util.c:1`), `libnvrtc` (`b/load.c:2`)"),
            "{head}"
        );
        assert_eq!(fs[2].status, Status::Pass);
    }

    /// Twins: one loader stays as it is; a vendored library's loader is its own.
    #[test]
    fn one_loader_or_a_vendored_one_stays() {
        let mut fs = hp507("src/load.c", "void* a = dlopen(\"libcuda.so\", 1);\n");
        fs.extend(hp507(
            "third_party/x/l.c",
            "void* a = dlopen(\"libnvrtc.so\", 1);\n",
        ));
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(open(&fs), [("src/load.c", 1), ("third_party/x/l.c", 1)]);
        assert!(!fs[0].message.contains("one decision"));
    }
}
