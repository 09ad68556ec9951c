//! Standard headers that nvcc's implicit `cuda_runtime.h` brought into a `.cu` file and HIP's
//! runtime header does not: a file that uses `std::function` with no `<functional>` builds with
//! nvcc (`--extended-lambda`, or thrust/CUB headers) and fails under hipcc. Which headers and
//! which names is measured, not guessed: `mappings/hand/implicit_std_headers.tsv` keeps each
//! header with the NVIDIA header that includes it and what HIP 5.2 gives, and only its `names`
//! column drives an insertion. The include goes right after the HIP runtime include; a rerun
//! finds it and adds nothing.

use super::super::{Lang, Pass};
use crate::edit::Edit;
use crate::lex::Tok;
use crate::mappings::hand::HandTable;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../mappings/hand/implicit_std_headers.tsv");

/// One standard header and the `std::` names that HIP's runtime header does not declare.
pub(crate) struct StdHeader {
    /// The header as written in an include, without brackets (`functional`).
    pub header: String,
    pub names: Vec<String>,
}

/// The rows that name something to insert, in table order (sorted by header).
pub(crate) fn table() -> &'static [StdHeader] {
    static T: OnceLock<Vec<StdHeader>> = OnceLock::new();
    T.get_or_init(|| {
        let t = HandTable::parse(
            "implicit_std_headers.tsv",
            TABLE,
            &["header", "cuda_via", "hip_5_2", "names", "source"],
        )
        .expect("embedded implicit_std_headers.tsv is valid");
        t.iter()
            .filter(|r| !r.get("names").trim().is_empty())
            .map(|r| StdHeader {
                header: r
                    .get("header")
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_string(),
                names: r
                    .get("names")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            })
            .collect()
    })
}

/// Whether a table name is a macro (`FLT_MAX`: capitals, digits and `_`), used bare.
fn is_macro(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether the file names `std::NAME` (or `::std::NAME`) for one of `names`, in code, or one of
/// its macros bare (in code or in a `#define` body: it expands where the macro is used).
fn uses_any(p: &Pass, names: &[String]) -> bool {
    let toks = &p.lexed.tokens;
    let src = p.src();
    let macro_used = toks.iter().any(|t| {
        t.kind == Tok::Ident
            && names
                .iter()
                .any(|n| is_macro(n) && n.as_bytes() == t.text(src))
    });
    macro_used
        || toks.iter().enumerate().any(|(k, t)| {
            t.kind == Tok::Ident
                && t.text(src) == b"std"
                && !t.in_directive()
                && p.lexed
                    .next_code(k)
                    .filter(|&c| toks[c].text(src) == b"::")
                    .and_then(|c| p.lexed.next_code(c))
                    .is_some_and(|n| {
                        toks[n].kind == Tok::Ident
                            && names
                                .iter()
                                .any(|name| name.as_bytes() == toks[n].text(src))
                    })
        })
}

/// Whether the file includes `<header>` (any spelling of the brackets) anywhere, or its C form
/// (`<float.h>` for `<cfloat>`).
fn includes(p: &Pass, header: &str) -> bool {
    let c_form = header.strip_prefix('c').map(|h| format!("{h}.h"));
    (0..p.lexed.directives.len()).any(|d| {
        super::include_path(p, d).is_some_and(|(_, inner)| {
            let inc = p.src()[inner].trim_ascii();
            inc == header.as_bytes() || c_form.as_ref().is_some_and(|c| inc == c.as_bytes())
        })
    })
}

/// The standard headers this file needs, in table order.
pub(super) fn missing(p: &Pass) -> Vec<&'static str> {
    if p.lang != Lang::Cuda {
        return Vec::new();
    }
    table()
        .iter()
        .filter(|h| uses_any(p, &h.names) && !includes(p, &h.header))
        .map(|h| h.header.as_str())
        .collect()
}

/// Adds the missing standard headers at `at` (the offset where the HIP runtime include was just
/// inserted: insertions at one offset keep their order, so these follow it), or after the
/// file's own runtime include line, or at the insertion point when the file has none.
pub(super) fn insert(p: &mut Pass, inserted_runtime_at: Option<usize>) {
    let headers = missing(p);
    if headers.is_empty() {
        return;
    }
    let nl = crate::source::newline_of(p.src());
    // Text inserted with the runtime include ends its own line: no lead line break after it.
    let (at, lead) = match inserted_runtime_at {
        Some(at) => (at, ""),
        None => {
            let at = after_runtime_include(p);
            (at, super::lead_newline(p.src(), at, nl))
        }
    };
    let mut text = lead.to_string();
    for h in &headers {
        text.push_str(&format!("#include <{h}>{nl}"));
        p.stats.includes_inserted += 1;
    }
    p.edits.push(Edit::insert(at, text));
}

/// The start of the line after the first top-level HIP runtime include (as translated), or the
/// usual insertion point when there is none outside a conditional or `extern "C"` block.
fn after_runtime_include(p: &Pass) -> usize {
    let blocks = super::extern_c_blocks(p);
    let mut depth = 0i32;
    let edits = super::edits_by_range(p);
    for (d, dir) in p.lexed.directives.iter().enumerate() {
        match dir.name.as_str() {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" => depth -= 1,
            _ => {}
        }
        // An include guard opens one conditional around the whole file.
        let guarded = p
            .lexed
            .directives
            .first()
            .is_some_and(|f| f.name == "ifndef");
        if depth > i32::from(guarded)
            || blocks
                .iter()
                .any(|b| b.open <= dir.start && dir.start < b.end)
        {
            continue;
        }
        let Some((_, inner)) = super::include_path(p, d) else {
            continue;
        };
        let path = std::str::from_utf8(&p.src()[inner.clone()])
            .unwrap_or("")
            .trim();
        let after = edits
            .get(&(inner.start, inner.end))
            .copied()
            .unwrap_or(path);
        if super::RUNTIME_HEADERS.contains(&after) {
            return super::line_after(p.src(), dir.end);
        }
    }
    super::insertion_point(p)
}

#[cfg(test)]
mod tests {
    use crate::translate::{translate_bytes, Options};

    fn port(path: &str, src: &str) -> String {
        let m = crate::mappings::get();
        let t = translate_bytes(path, src.as_bytes(), m, &Options::for_tests("5.2", true));
        String::from_utf8(t.output).unwrap()
    }

    #[test]
    fn table_names_functional_only_where_hip_lacks_it() {
        let t = super::table();
        let f = t.iter().find(|h| h.header == "functional").expect("row");
        assert!(f.names.iter().any(|n| n == "function"));
        // HIP 5.2's runtime header declares std::hash: no name of <functional> that it gives.
        assert!(!f.names.iter().any(|n| n == "hash"));
        assert!(!t.iter().any(|h| h.header == "utility"));
    }

    /// `FLT_MAX` without `<float.h>` built with nvcc up to CUDA 12.4 (SuGaR's `simple_knn.cu`,
    /// MIT); hipcc rejects it. Twins: a file that includes `<float.h>` gets nothing, nor does a
    /// name that only contains the macro's (`MY_FLT_MAX_X`) or a comment.
    #[test]
    fn float_limits_get_cfloat() {
        let out = port(
            "simple_knn.cu",
            "#include <cuda_runtime.h>\n__global__ void k(float* d) { float best = FLT_MAX; d[0] = best; }\n",
        );
        assert!(
            out.starts_with("#include <hip/hip_runtime.h>\n#include <cfloat>\n"),
            "{out}"
        );
        assert_eq!(port("simple_knn.cu", &out), out, "a rerun changes nothing");
        let has = "#include <float.h>\n__global__ void k(float* d) { d[0] = FLT_MAX; }\n";
        assert!(!port("a.cu", has).contains("<cfloat>"));
        let other = "__global__ void k(float* d) { d[0] = MY_FLT_MAX_X; } // FLT_MAX\n";
        assert!(!port("a.cu", other).contains("<cfloat>"));
    }

    #[test]
    fn std_function_gets_functional_after_the_runtime_include() {
        let out = port(
            "a.cu",
            "__global__ void k() {}\nstd::function<void()> f = [] { k<<<1, 1>>>(); };\n",
        );
        assert!(
            out.starts_with("#include <hip/hip_runtime.h>\n#include <functional>\n"),
            "{out}"
        );
        assert_eq!(port("a.cu", &out), out, "a rerun changes nothing");
    }

    #[test]
    fn existing_runtime_include_is_followed_by_the_header() {
        let out = port(
            "a.cu",
            "#include <cuda_runtime.h>\n#include <cstdio>\nauto g = std::bind([](int) {}, 1);\n",
        );
        assert!(
            out.starts_with(
                "#include <hip/hip_runtime.h>\n#include <functional>\n#include <cstdio>\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn no_insert_when_included_or_not_used_or_not_cuda() {
        let has = "#include <functional>\n__global__ void k() {}\nstd::function<void()> f;\n";
        assert_eq!(port("a.cu", has).matches("<functional>").count(), 1);
        // std::hash compiles under HIP 5.2; a comment or string naming std::function is no use.
        let other = "__global__ void k() {}\nstd::hash<int> h; // std::function\nconst char *s = \"std::bind\";\n";
        assert!(!port("a.cu", other).contains("<functional>"));
        // A .cpp file was never compiled by nvcc with cuda_runtime.h implicit.
        let cpp = "#include <cuda_runtime.h>\nstd::function<void()> f;\n";
        assert!(!port("a.cpp", cpp).contains("<functional>"));
    }
}
