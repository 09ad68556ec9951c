//! HP611: the legacy cuBLAS API. `cublas.h` declares cuBLAS's first interface: no handle,
//! scalars by value, results returned (`float r = cublasSdot(n, x, 1, y, 1)`), errors through
//! `cublasGetError`, memory through `cublasAlloc`/`cublasFree`. It shares its function names
//! with the handle-based API of `cublas_v2.h` (which renames them to `cublasSdot_v2`, …), and
//! the two headers exclude each other, so a unit that includes `cublas.h` calls the legacy
//! forms. hipBLAS has only the handle-based API: the renamed calls have the wrong arguments and
//! the helpers have no HIP name. One finding per file carries every call; the translator's
//! per-name HP001 on the helpers are part of it.
//!
//! Source: NVIDIA cuBLAS documentation, "Using the cuBLAS Legacy API"
//! (<https://docs.nvidia.com/cuda/cublas/index.html#using-the-cublas-legacy-api>): the helper
//! functions listed there are [`LEGACY_HELPERS`]; every other legacy function is the `_v2`
//! function of the same name (HIPIFY's table lists both names).

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::Tok;
use crate::model::syntax::Src;

rule!(LEGACY_CUBLAS, "HP611", Library, Remediation, Build,
    summary: "The legacy cuBLAS API (`cublas.h`): handle-less calls (`cublasSdot(n, x, 1, y, 1)`, `cublasSgemm('n', 'n', …)`, `cublasInit`, `cublasAlloc`) that hipBLAS does not have.",
    why: "`cublas.h` declares cuBLAS's first API: no handle, scalars passed by value, results returned, errors read with `cublasGetError`, memory from `cublasAlloc`. hipBLAS and rocBLAS have only the handle-based API of `cublas_v2.h`, under the same names: a rename gives `hipblasSdot(n, x, 1, y, 1)`, which does not compile (the handle, the result pointer and the scalar pointers are missing), and the helpers have no HIP name at all.",
    bad: "#include <cublas.h>\ncublasInit();\nfloat r = cublasSdot(n, x, 1, y, 1);\ncublasSgemm('n', 'n', m, n, k, 1.0f, A, m, B, k, 0.0f, C, m);",
    good: "#include <hipblas/hipblas.h>\nhipblasHandle_t h; hipblasCreate(&h);\nfloat r; hipblasSdot(h, n, x, 1, y, 1, &r);\nconst float one = 1.0f, zero = 0.0f;\nhipblasSgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &one, A, m, B, k, &zero, C, m);",
    fix: "Move the calls to the handle-based API: create one `hipblasHandle_t` and pass it first, pass `alpha`/`beta` by pointer, take dot/norm/index results through the last argument, write `HIPBLAS_OP_N`/`HIPBLAS_OP_T` for 'n'/'t', replace `cublasAlloc`/`cublasFree` with `hipMalloc`/`hipFree`, `cublasInit`/`cublasShutdown` with `hipblasCreate`/`hipblasDestroy`, and `cublasGetError` with the status each call returns.",
    refs: ["https://docs.nvidia.com/cuda/cublas/index.html#using-the-cublas-legacy-api", "https://rocm.docs.amd.com/projects/hipBLAS/en/latest/"],
);

/// The helper functions only the legacy API has (NVIDIA's "cuBLAS Helper Functions" of the
/// legacy API): no `_v2` twin, no HIP name.
pub const LEGACY_HELPERS: &[&str] = &[
    "cublasInit",
    "cublasShutdown",
    "cublasGetError",
    "cublasAlloc",
    "cublasFree",
    "cublasSetKernelStream",
];

/// Whether `name` is a legacy-API function in a unit that includes `cublas.h`: a helper of
/// the legacy API, or a name whose handle-based twin is `name_v2`.
fn legacy_name(name: &str) -> bool {
    if !name.starts_with("cublas") {
        return false;
    }
    LEGACY_HELPERS.contains(&name)
        || (!name.ends_with("_v2") && crate::mappings::get().knows(&format!("{name}_v2")))
}

/// Which cuBLAS header the file includes: `Some(Some(range))` for a `cublas.h` include without
/// `cublas_v2.h`, `None` when it includes `cublas_v2.h` (the handle-based API), `Some(None)`
/// when it includes neither (a header the unit's `.cu` includes first).
fn legacy_include(s: &Src) -> Option<Option<std::ops::Range<usize>>> {
    let mut legacy = None;
    for (d, _, path) in s.includes() {
        match path {
            "cublas.h" => legacy = legacy.or(Some(s.directive_range(d))),
            // The handle-based API; or a file already on hipBLAS (a port's output), whose
            // leftover legacy names the port's own annotations carry.
            "cublas_v2.h" | "hipblas.h" | "hipblas/hipblas.h" => return None,
            _ => {}
        }
    }
    Some(legacy)
}

/// Whether the call at name token `i` passes a character literal first
/// (`cublasSgemm('n', 'n', …)`): only the legacy API takes the operation as a `char`; the
/// handle-based one takes the handle first.
fn char_first(s: &Src, i: usize) -> bool {
    s.lexed
        .next_code(i)
        .and_then(|open| s.lexed.next_code(open))
        .is_some_and(|a| s.lexed.tokens[a].kind == Tok::Char)
}

/// One HP611 for a file that calls the legacy API (it includes `cublas.h`, calls a helper only
/// the legacy API has, or passes an operation as a character), with the names and lines of the
/// calls; the translator's HP001 on the legacy helpers settle into it.
pub fn check(s: &Src, out: &mut Vec<Finding>, translated: &mut [Finding]) {
    if memchr::memmem::find(s.ctx.src, b"cublas").is_none() {
        return;
    }
    let Some(include) = legacy_include(s) else {
        return;
    };
    // The calls to legacy names, and the first that only the legacy API has: a helper, or an
    // operation passed as a character.
    let calls: Vec<(usize, &str)> = s
        .idents()
        .filter(|&(i, name)| s.next_text(i) == "(" && legacy_name(name))
        .collect();
    let evidence = calls
        .iter()
        .find(|&&(i, name)| LEGACY_HELPERS.contains(&name) || char_first(s, i))
        .map(|&(i, _)| s.lexed.tokens[i].range());
    let Some(anchor) = include.or(evidence).filter(|_| !calls.is_empty()) else {
        return;
    };
    let mut names: Vec<&str> = Vec::new();
    let mut lines: Vec<usize> = Vec::new();
    for &(i, name) in &calls {
        if !names.contains(&name) {
            names.push(name);
        }
        let line = s.line(s.lexed.tokens[i].start as usize) + 1;
        if lines.last() != Some(&line) {
            lines.push(line);
        }
    }
    let shown: Vec<String> = names.iter().take(6).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > 6 {
        format!(" and {} more", names.len() - 6)
    } else {
        String::new()
    };
    let at = if lines.len() > 12 {
        format!(
            "lines {}, … ({} in all)",
            lines[..12]
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            lines.len()
        )
    } else {
        format!(
            "line{} {}",
            if lines.len() == 1 { "" } else { "s" },
            lines
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let f = s.ctx.finding(
        &LEGACY_CUBLAS,
        anchor,
        format!(
            "the legacy cuBLAS API (`cublas.h`), {} function{} called ({}{more}; {at}): hipBLAS has only the handle-based API, so the renamed calls do not compile and the helpers have no HIP name",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            shown.join(", ")
        ),
        Some(LEGACY_CUBLAS.fix.to_string()),
    );
    let head = format!(
        " (part of the legacy cuBLAS API: one rewrite, carried by `{}:{}`)",
        f.path, f.line
    );
    for t in translated.iter_mut() {
        if t.status != Status::Pass
            && t.path == f.path
            && LEGACY_HELPERS.contains(&t.excerpt.as_str())
        {
            t.settle(&head);
        }
    }
    out.push(f);
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{fires_open, hazard_findings};

    const LEGACY: &str = "#include <cublas.h>\nint main() {\n  float *x, *y;\n  int n = 10;\n  cublasInit();\n  cublasAlloc(n, sizeof(float), (void**)&x);\n  float r = cublasSdot(n, x, 1, y, 1);\n  cublasSgemm('n', 'n', n, n, n, 1.0f, x, n, y, n, 0.0f, x, n);\n  cublasShutdown();\n  return r > 0;\n}\n";

    /// A unit on `cublas.h` calling handle-less functions: one HP611 on the include naming the
    /// calls and their lines. Twin: the same names under `cublas_v2.h` are the handle-based
    /// API, which hipBLAS has.
    #[test]
    fn a_legacy_cublas_unit_is_one_finding() {
        assert_eq!(fires_open(LEGACY, "HP611"), [1]);
        let f = hazard_findings(LEGACY)
            .into_iter()
            .find(|f| f.rule == "HP611")
            .unwrap();
        assert!(f.message.contains("5 functions called"), "{}", f.message);
        assert!(f.message.contains("`cublasSdot`"), "{}", f.message);
        assert!(f.message.contains("lines 5, 6, 7, 8, 9"), "{}", f.message);
        let v2 = "#include <cublas_v2.h>\nvoid f(cublasHandle_t h, int n, float* x, float* y) {\n  float r;\n  cublasSdot(h, n, x, 1, y, 1, &r);\n}\n";
        assert!(fires_open(v2, "HP611").is_empty());
        // A unit that includes neither calls nothing of cuBLAS's own.
        let none = "void cublasSdot(int n);\nvoid f() { cublasSdot(1); }\n";
        assert!(fires_open(none, "HP611").is_empty());
    }

    /// In the pipeline the translator's HP001 on the helpers (`cublasInit`, `cublasAlloc`,
    /// `cublasShutdown`) settle into the one HP611: one fact, one open finding.
    #[test]
    fn the_helpers_fold_into_the_legacy_finding() {
        let mut w = crate::testkit::work_for(&[]).unwrap();
        w.hazards = true;
        let r = crate::pipeline::process_bytes(
            "k.cu",
            LEGACY.as_bytes().to_vec(),
            &w,
            crate::mappings::get(),
        );
        let open: Vec<(String, u32)> = r
            .findings
            .iter()
            .filter(|f| f.status != crate::gate::Status::Pass)
            .map(|f| (f.rule.clone(), f.line))
            .collect();
        assert_eq!(open, [("HP611".to_string(), 1)], "{:?}", r.findings);
        assert!(r
            .findings
            .iter()
            .any(|f| f.rule == "HP001" && f.message.contains("part of the legacy cuBLAS API")));
    }

    /// A header that includes no cuBLAS header (its `.cu` does) is on the legacy API when a
    /// call passes the operation as a character or calls a legacy helper: the finding sits on
    /// that call. Twin: a header calling `cublasSgemm(handle, …)` says nothing of its API.
    #[test]
    fn a_header_without_the_include_is_legacy_by_its_calls() {
        let h = "void mm(float* a, float* b, float* c, int n) {\n  cublasSgemm('N', 'T', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);\n}\n";
        assert_eq!(fires_open(h, "HP611"), [2]);
        let v2 = "void mm(cublasHandle_t h, const float* one, float* a, int n) {\n  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, one, a, n, a, n, one, a, n);\n}\n";
        assert!(fires_open(v2, "HP611").is_empty());
    }

    /// The `_v2` names are the handle-based API even under `cublas.h`.
    #[test]
    fn v2_names_under_cublas_h_are_not_legacy() {
        let src = "#include <cublas.h>\nvoid f(cublasHandle_t h, int n, float* x, float* y) {\n  float r;\n  cublasSdot_v2(h, n, x, 1, y, 1, &r);\n}\n";
        assert!(fires_open(src, "HP611").is_empty());
    }
}
