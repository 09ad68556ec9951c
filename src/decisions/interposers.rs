//! A file that defines many functions under CUDA API names is an interposer or a shim: it
//! stands in for NVIDIA's library (cuda_hook's generated `cusparse_hook.cpp` defines 515
//! cuSPARSE functions, each forwarding to the symbol it loads by name; a GPU virtualisation layer
//! hooks `cuMemAlloc`). Findings on those definitions' names (HIP deprecated the counterpart, HIP
//! has none) are about what the file forwards, not code a porter edits name by name: its port
//! is one piece of work (regenerate or rewrite it against the HIP library's names and file, or
//! leave it out of the ROCm build). Findings on calls, types and strings in the file stay; so
//! does any finding whose range is more than a definition's name.
//!
//! A finding sits on a definition when the text after its range is a parameter list followed
//! by a body (`cusparseCreate(cusparseHandle_t *handle) {`); a file is an interposer when at
//! least [`MIN_DEFINITIONS`] of its open findings do.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, BTreeSet};

/// Definitions under CUDA API names that make a file an interposer.
pub const MIN_DEFINITIONS: usize = 3;

/// Whether the bytes from `at` are a parameter list and a function body: `(`, balanced to its
/// `)`, then at most a few qualifier words (`const`, `noexcept`, `throw()`), then `{`.
pub fn definition_follows(src: &[u8], at: usize) -> bool {
    let skip_ws = |mut i: usize| {
        while i < src.len() && src[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(at);
    if src.get(i) != Some(&b'(') {
        return false;
    }
    let mut depth = 0usize;
    while i < src.len() {
        match src[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b';' | b'{' | b'}' => return false,
            _ => {}
        }
        i += 1;
    }
    if i >= src.len() {
        return false;
    }
    let mut j = skip_ws(i + 1);
    for _ in 0..4 {
        if src.get(j) == Some(&b'{') {
            return true;
        }
        let w = j;
        while j < src.len() && (src[j].is_ascii_alphanumeric() || src[j] == b'_') {
            j += 1;
        }
        if j == w {
            return false;
        }
        if src.get(j) == Some(&b'(') {
            // `throw()`, `noexcept(true)`.
            while j < src.len() && src[j] != b')' {
                j += 1;
            }
            j += 1;
        }
        j = skip_ws(j);
    }
    false
}

/// Whether a finding's range is a name of NVIDIA's APIs, the names an interposer defines
/// (`cuMemAlloc`, `cudaMalloc`, `cusparseCreate`, `nvmlInit`, `nppiCopy`): not a qualifier
/// such as `__launch_bounds__` before a kernel's name.
fn api_name(text: &[u8]) -> bool {
    text.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        && [&b"cu"[..], b"nv", b"npp"]
            .iter()
            .any(|p| text.starts_with(p))
}

/// The interposer files among the files with open findings, each with the byte offsets of the
/// findings on its definitions; `read(rel)` gives a file's text.
pub fn files(
    findings: &[Finding],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> BTreeMap<String, BTreeSet<usize>> {
    let mut by_file: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        if f.status != Status::Pass && crate::walk::is_source(&f.path) {
            by_file.entry(f.path.as_str()).or_default().push(f);
        }
    }
    let mut out = BTreeMap::new();
    for (path, fs) in by_file {
        if fs.len() < MIN_DEFINITIONS {
            continue;
        }
        let Some(src) = read(path) else { continue };
        let defs: BTreeSet<usize> = fs
            .iter()
            .filter(|f| {
                src.get(f.byte_range.0..f.byte_range.1)
                    .is_some_and(api_name)
                    && definition_follows(&src, f.byte_range.1)
            })
            .map(|f| f.byte_range.0)
            .collect();
        if defs.len() >= MIN_DEFINITIONS {
            out.insert(path.to_string(), defs);
        }
    }
    out
}

/// The decision: the findings on an interposer's definitions, one per file, held by the first.
pub fn kind(files: BTreeMap<String, BTreeSet<usize>>) -> Kind {
    Kind {
        key: Box::new(move |f: &Finding| {
            files
                .get(&f.path)
                .is_some_and(|d| d.contains(&f.byte_range.0))
                .then(|| format!("interposer\u{1f}{}", f.path))
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(MIN_DEFINITIONS),
        summary: Box::new(|g| {
            format!(
                " — one decision: `{}` defines functions under CUDA API names ({} here), an \
                 interposer or shim standing in for NVIDIA's library; what HIP deprecated or \
                 lacks among them is what it forwards, so port the file as a whole (regenerate \
                 or rewrite it against the HIP library's names and file) or leave it out of the \
                 ROCm build; {} more findings on its definitions are folded here ({})",
                g.head.path,
                g.members.len(),
                g.folded.len(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                "a definition under a CUDA API name in an interposer, one decision",
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOOKS: &str = "#include \"hook.h\"\nHOOK_C_API cusparseStatus_t cusparseCreate(cusparseHandle_t *handle) {\n  return f(handle);\n}\nHOOK_C_API cusparseStatus_t cusparseCreateCsrsv2Info(csrsv2Info_t *info) {\n  return g(info);\n}\nHOOK_C_API cusparseStatus_t cusparseDestroyCsrsv2Info(csrsv2Info_t info) noexcept {\n  return h(info);\n}\nvoid use() {\n  cusparseCreateCsric02Info(&x);\n}\n";

    fn at(src: &str, name: &str, nth: usize, rule: &str) -> Finding {
        let start = src.match_indices(name).nth(nth).unwrap().0;
        let line = src[..start].matches('\n').count() as u32 + 1;
        Finding {
            status: Status::Remediation,
            byte_range: (start, start + name.len()),
            message: format!("`{name}` is deprecated"),
            ..Finding::bare(rule, "src/hook.cpp", line)
        }
    }

    /// cuda_hook: three definitions under cuSPARSE names are one decision; the call in the same
    /// file stays open. Twin: a file with two such definitions is no interposer.
    #[test]
    fn an_interposers_definitions_are_one_decision() {
        let mut fs = vec![
            at(HOOKS, "cusparseCreate", 0, "HP002"),
            at(HOOKS, "cusparseCreateCsrsv2Info", 0, "HP002"),
            at(HOOKS, "cusparseDestroyCsrsv2Info", 0, "HP001"),
            at(HOOKS, "cusparseCreateCsric02Info", 0, "HP002"),
        ];
        let read = |_: &str| Some(HOOKS.as_bytes().to_vec());
        let found = files(&fs, &read);
        assert_eq!(found["src/hook.cpp"].len(), 3);
        crate::decisions::fold(&mut fs, &kind(found));
        assert_eq!(
            crate::decisions::test_support::open(&fs),
            [("src/hook.cpp", 2), ("src/hook.cpp", 12)]
        );
        assert!(fs[0]
            .message
            .contains("defines functions under CUDA API names (3 here)"));
        let two = HOOKS.replacen("noexcept {", "noexcept;", 1);
        let fs2 = vec![
            at(&two, "cusparseCreate", 0, "HP002"),
            at(&two, "cusparseCreateCsrsv2Info", 0, "HP002"),
            at(&two, "cusparseDestroyCsrsv2Info", 0, "HP001"),
        ];
        let read2 = |_: &str| Some(two.as_bytes().to_vec());
        assert!(files(&fs2, &read2).is_empty());
        // ppl's generated CUTLASS kernels: `__launch_bounds__(…) name(p) {` in each file is a
        // kernel's qualifier, not a definition under an API name.
        let kernels = "__global__ void __launch_bounds__(128, 2) k1(P p) {}\n__global__ void __launch_bounds__(128, 2) k2(P p) {}\n__global__ void __launch_bounds__(128, 2) k3(P p) {}\n";
        let fs3: Vec<Finding> = (0..3)
            .map(|i| at(kernels, "__launch_bounds__", i, "HP711"))
            .collect();
        let read3 = |_: &str| Some(kernels.as_bytes().to_vec());
        assert!(files(&fs3, &read3).is_empty());
    }
}
