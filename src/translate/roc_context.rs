//! `--roc` in a rocBLAS context: a file that uses cuBLAS talks to rocBLAS directly, so the
//! types and enums it hands to cuBLAS take rocBLAS's names (as HIPIFY's `--roc` does): complex
//! types become `rocblas_float_complex`/`rocblas_double_complex`, and CUDA library data types
//! (`cudaDataType_t`, `CUDA_R_32F`…), which a hand row otherwise maps to HIP's own
//! `hipDataType`, take the cuBLAS table's rocBLAS column (`rocblas_datatype_f32_r`).

use super::Pass;
use crate::edit::Edit;
use crate::lex::Tok;
use crate::mappings::table::Family;
use crate::mappings::{Origin, Resolution};

/// cuComplex types and their rocBLAS names: `rocblas_float_complex` and `rocblas_double_complex`
/// are declared by `rocblas/internal/rocblas-complex-types.h` in every ROCm 5.x–7.x release
/// (https://github.com/ROCm/rocBLAS/blob/rocm-5.2.0/library/include/internal/rocblas-complex-types.h).
pub const ROCBLAS_COMPLEX: &[(&str, &str)] = &[
    ("cuComplex", "rocblas_float_complex"),
    ("cuFloatComplex", "rocblas_float_complex"),
    ("cuDoubleComplex", "rocblas_double_complex"),
];

/// Whether the file uses cuBLAS: a `cublas…` include, or a `cublas…`/`CUBLAS_…` name in code.
pub(super) fn is_rocblas_context(p: &Pass) -> bool {
    if !p.opts.target.roc {
        return false;
    }
    let named = p.lexed.tokens.iter().any(|t| {
        let text = t.text(p.ctx.src);
        t.kind == Tok::Ident && (text.starts_with(b"cublas") || text.starts_with(b"CUBLAS_"))
    });
    named
        || (0..p.lexed.directives.len()).any(|d| {
            super::includes::include_path(p, d).is_some_and(|(_, inner)| {
                memchr::memmem::find(&p.ctx.src[inner], b"cublas").is_some()
            })
        })
}

/// cuComplex constructors and the rocBLAS complex type built the same way: in C++ both rocBLAS
/// complex types are `rocblas_complex_num<T>` with a `(real, imag)` constructor and no conversion
/// from `hipFloatComplex`, so `make_hipComplex(…)` would not initialise them (C keeps the call).
pub const ROCBLAS_COMPLEX_CTORS: &[(&str, &str)] = &[
    ("make_cuComplex", "rocblas_float_complex"),
    ("make_cuFloatComplex", "rocblas_float_complex"),
    ("make_cuDoubleComplex", "rocblas_double_complex"),
];

/// The rocBLAS name for token `i` in a rocBLAS context, with the edit made; false when the
/// name is not one the context changes.
pub(super) fn rename(p: &mut Pass, i: usize, name: &str) -> bool {
    let ctor = (p.lang != super::Lang::C)
        .then(|| ROCBLAS_COMPLEX_CTORS.iter().find(|(c, _)| *c == name))
        .flatten();
    let to = match ROCBLAS_COMPLEX.iter().chain(ctor).find(|(c, _)| *c == name) {
        Some((_, r)) => r.to_string(),
        None => {
            // A name a hand row keeps for HIP, which the cuBLAS table maps for rocBLAS.
            let Some(Resolution::Rename { entry, .. } | Resolution::Same { entry }) =
                p.m.resolve(name, &p.opts.target)
            else {
                return false;
            };
            if !matches!(entry.origin, Origin::Hand(_)) || entry.roc.is_some() {
                return false;
            }
            let Some(blas) =
                p.m.entries
                    .iter()
                    .find(|e| e.origin == Origin::Table(Family::Blas) && e.cuda == name)
            else {
                return false;
            };
            let Some(roc) = blas.roc.as_deref() else {
                return false;
            };
            if blas
                .roc_versions
                .added
                .is_some_and(|v| v > p.opts.target.rocm)
            {
                return false;
            }
            roc.to_string()
        }
    };
    let t = p.lexed.tokens[i];
    p.edits
        .push(Edit::replace(t.start as usize, t.end as usize, &to));
    *p.stats.renamed.entry("blas".into()).or_default() += 1;
    true
}

#[cfg(test)]
mod tests {
    use crate::mappings::{get, Target};
    use crate::translate::{translate_bytes, LaunchSyntax, Options};

    fn port(path: &str, src: &str, roc: bool) -> String {
        let opts = Options {
            target: Target {
                rocm: "6.2.0".parse().unwrap(),
                roc,
                experimental: false,
                lds: None,
            },
            launch: LaunchSyntax::Keep,
            implicit_include: false,
            compat_header: false,
            unsafe_fixes: false,
        };
        String::from_utf8(translate_bytes(path, src.as_bytes(), get(), &opts).output).unwrap()
    }

    const BLAS: &str = "#include <cublas_v2.h>\nvoid f(cublasHandle_t h, cuComplex *x, cuDoubleComplex *y) {\n  cuComplex a = make_cuComplex(1.0f, 0.0f);\n  cudaDataType_t t = CUDA_C_32F;\n}\n";

    #[test]
    fn roc_in_a_cublas_file_uses_rocblas_types_and_enums() {
        let out = port("a.cu", BLAS, true);
        assert!(
            out.contains(
                "void f(rocblas_handle h, rocblas_float_complex *x, rocblas_double_complex *y)"
            ),
            "{out}"
        );
        assert!(
            out.contains("rocblas_float_complex a = rocblas_float_complex(1.0f, 0.0f);"),
            "{out}"
        );
        assert!(
            out.contains("rocblas_datatype_ t = rocblas_datatype_f32_c;"),
            "{out}"
        );
    }

    #[test]
    fn without_roc_or_without_cublas_the_hip_names_stay() {
        let out = port("a.cu", BLAS, false);
        assert!(
            out.contains("hipComplex *x, hipDoubleComplex *y")
                && out.contains("make_hipComplex(1.0f"),
            "{out}"
        );
        let sparse = "#include <cusparse.h>\nvoid g(cusparseHandle_t h, cuComplex *x) { cudaDataType_t t = CUDA_R_32F; }\n";
        let out = port("b.cu", sparse, true);
        assert!(
            out.contains("hipComplex *x") && out.contains("hipDataType t = HIP_R_32F;"),
            "{out}"
        );
    }

    #[test]
    fn c_keeps_the_constructor_call() {
        let out = port("a.c", BLAS, true);
        assert!(
            out.contains("rocblas_float_complex a = make_hipComplex(1.0f, 0.0f);"),
            "{out}"
        );
    }
}
