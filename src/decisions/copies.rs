//! Copies of one file, one decision. A project that builds one extension per variant often
//! copies the same source into each variant's folder (mit-han-lab/omniserve:
//! `decoderMaskedMultiheadAttentionTemplate.hpp` in five attention folders, `gemm_cuda.cu` in
//! each quantised GEMM's). Every copy then carries the same findings on the same code: the same
//! missing header, the same `#if CUDART_VERSION` gate, the same kernel cast. A porter makes the
//! change once and applies it to every copy. So the project's own open findings with the same
//! rule, phase, status and flagged code, in files of the same name in different folders, fold
//! into the first in report order, which names the copies; the rest stay in JSON as PASS naming
//! it. Files of different names stay apart even when the flagged code is alike (a
//! `#if __CUDA_ARCH__ >= 800` in two unrelated kernels guards two different things), and so
//! does a finding found in one copy only.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// How many first places the head lists.
const SHOWN: usize = 4;

/// The file name of a relative path.
fn base(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, b)| b)
}

/// The decision a finding belongs to: its rule, phase, status, flagged code and file name.
fn key(f: &Finding) -> Option<String> {
    (!f.excerpt.is_empty() && super::kind::own(&f.path)).then(|| {
        format!(
            "{}\u{0}{:?}\u{0}{:?}\u{0}{}\u{0}{}",
            f.rule,
            f.phase,
            f.status,
            f.excerpt,
            base(&f.path)
        )
    })
}

pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Files(2),
        summary: Box::new(|g| {
            format!(
                " — the same finding in {} copies of `{}` (first at {}), {} more folded here: one change, applied to every copy",
                g.files(),
                base(&g.head.path),
                g.first_places(SHOWN),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the same change in every copy of this file")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open_rules as open;
    use crate::gate::Status;

    fn f(rule: &str, path: &str, line: u32, code: &str) -> Finding {
        Finding {
            status: Status::Remediation,
            message: "m".into(),
            excerpt: code.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    /// omniserve: the same missing header in three copies of one template is one decision.
    /// Twins: the same code in a file of another name, and another line of one copy, stay.
    #[test]
    fn copies_of_one_file_share_their_findings() {
        let inc = "#include <cuda_pipeline_primitives.h>";
        let mut fs = vec![
            f("HP004", "a/dense/Template.hpp", 37, inc),
            f("HP004", "a/sparse/Template.hpp", 37, inc),
            f("HP004", "b/Template.hpp", 32, inc),
            f("HP004", "qgemm/gemm_cuda.cu", 16, inc),
            f(
                "HP304",
                "a/dense/Template.hpp",
                43,
                "#if (CUDART_VERSION >= 11070)",
            ),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [
                ("HP004", "a/dense/Template.hpp", 37),
                ("HP004", "qgemm/gemm_cuda.cu", 16),
                ("HP304", "a/dense/Template.hpp", 43)
            ]
        );
        assert!(
            fs[0].message.contains("3 copies of `Template.hpp`"),
            "{}",
            fs[0].message
        );
    }
}
