//! A project's `__launch_bounds__` minimum is one decision. HP711 fires on each kernel whose
//! `__launch_bounds__` passes a second argument: CUDA reads it as the minimum number of blocks
//! per SM, HIP as the minimum number of waves per EU, so the occupancy it asks for changes
//! meaning (a performance question, not a build failure). A project that tunes its kernels
//! this way writes it on every kernel, usually from one constant (sxyu/svox2: 26 kernels over
//! `MIN_BLOCKS_PER_SM`); what a porter decides is once: drop the argument for AMD, or compute
//! waves per EU from the block size for the target, and apply that everywhere.
//!
//! So the project's own open HP711 findings fold into the first in report order, which says
//! how many kernels in how many files it holds and where the first ones are; the rest stay in
//! JSON/SARIF as PASS naming it. A single kernel stays as it is. Kernels of a vendored library
//! or a folder the project marks as not maintained belong to those decisions.

use super::kind::{Group, Kind, Min};
use crate::finding::Finding;

/// The launch-bounds rule.
const HP711: &str = crate::rules::device_feature::LAUNCH_BOUNDS_MIN_BLOCKS
    .id
    .code;

/// How many first places the head's message lists.
const SHOWN: usize = 4;

/// "`a.cu:3`, `b.cu:10`": the first kernel in each of the first [`SHOWN`] files.
fn first_places(g: &Group) -> String {
    let mut seen: Vec<&Finding> = Vec::new();
    for f in &g.members {
        if seen.len() == SHOWN {
            break;
        }
        if !seen.iter().any(|s| s.path == f.path) {
            seen.push(f);
        }
    }
    seen.iter()
        .map(|f| format!("`{}:{}`", f.path, f.line))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The launch-bounds decision: the project's open HP711 findings, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| (f.rule == HP711 && super::kind::own(&f.path)).then(String::new)),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the project's launch bounds: {} kernels in {} files pass a \
                 minimum (first at {}), {} more folded here. Decide once how CUDA's minimum \
                 blocks per SM maps to AMD's minimum waves per EU for the target (drop it, or \
                 compute it from the block size) and apply it to every kernel",
                g.members.len(),
                g.files(),
                first_places(g),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's launch-bounds minimum is one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Status;

    fn bounds(path: &str, line: u32) -> Finding {
        Finding {
            message: "`__launch_bounds__` second argument: min blocks per SM in CUDA, min waves per EU in HIP".into(),
            ..Finding::bare("HP711", path, line)
        }
    }

    fn open(fs: &[Finding]) -> Vec<(&str, &str, u32)> {
        fs.iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.rule.as_str(), x.path.as_str(), x.line))
            .collect()
    }

    #[test]
    fn launch_bounds_of_many_kernels_are_one_decision() {
        let mut fs = vec![
            bounds("csrc/a.cu", 10),
            bounds("csrc/a.cu", 40),
            bounds("csrc/b.cu", 7),
            Finding {
                message: "m".into(),
                ..Finding::bare("HP102", "csrc/a.cu", 12)
            },
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP711", "csrc/a.cu", 10), ("HP102", "csrc/a.cu", 12)]
        );
        assert!(
            fs[0].message.contains("3 kernels in 2 files"),
            "{}",
            fs[0].message
        );
        assert!(fs[2].message.contains("folded into `csrc/a.cu:10`"));
        // The twin: one kernel is its own finding.
        let mut one = vec![bounds("csrc/a.cu", 10)];
        let k = kind(&one);
        super::super::fold(&mut one, &k);
        assert_eq!(open(&one), [("HP711", "csrc/a.cu", 10)]);
        assert!(!one[0].message.contains("one decision"));
    }
}
