//! Release-exact names: the HIP name hipport emits for a CUDA name is the one that exists in the
//! target release (hipBLAS `_v2` names in 6.x, the `hipblasComplex`/`hipblasDatatype_t` API in 5.x,
//! `hip_bfloat16` before `__hip_bfloat16`), and every name emitted for the 5.2, 6.2 and 7.0 targets
//! is one the tables (generated + hand) say exists there.

use hipport::mappings::table::{parse_tsv, Row};
use hipport::mappings::{self, Mappings, Resolution, Target, Unported, GENERATED};
use hipport::version::Version;
use std::collections::BTreeSet;

fn target(v: &str) -> Target {
    Target {
        rocm: v.parse().unwrap(),
        roc: false,
        experimental: false,
        lds: None,
    }
}

fn renamed<'m>(m: &'m Mappings, cuda: &str, v: &str) -> &'m str {
    match m.resolve(cuda, &target(v)) {
        Some(Resolution::Rename { to, .. }) => to,
        other => panic!("{cuda} at {v}: expected a rename, got {other:?}"),
    }
}

fn generated_rows() -> Vec<Row> {
    GENERATED
        .iter()
        .flat_map(|(f, text)| parse_tsv(f.as_str(), text).unwrap())
        .collect()
}

#[test]
fn one_name_across_three_releases() {
    let m = mappings::get();
    for cuda in ["cublasCaxpy", "cublasCaxpy_v2"] {
        assert_eq!(renamed(m, cuda, "5.2.0"), "hipblasCaxpy");
        assert_eq!(renamed(m, cuda, "6.2.0"), "hipblasCaxpy_v2");
        assert_eq!(renamed(m, cuda, "6.4.4"), "hipblasCaxpy_v2");
        assert_eq!(renamed(m, cuda, "7.0.0"), "hipblasCaxpy");
    }
    assert_eq!(renamed(m, "cublasGemmEx", "5.2.0"), "hipblasGemmEx");
    assert_eq!(renamed(m, "cublasGemmEx", "6.0.0"), "hipblasGemmEx_v2");
    assert_eq!(renamed(m, "cublasGemmEx", "7.2.0"), "hipblasGemmEx");
    // The ILP64 form: no hipBLAS 5.x counterpart, `_v2_64` from 6.1, `_64` from 7.0.
    match m.resolve("cublasCaxpy_64", &target("5.2.0")) {
        Some(Resolution::Unported {
            why: Unported::AddedAfter(v),
            ..
        }) => assert_eq!(v, Version::new(6, 1, 0)),
        other => panic!("cublasCaxpy_64 at 5.2: {other:?}"),
    }
    assert_eq!(renamed(m, "cublasCaxpy_64", "6.2.0"), "hipblasCaxpy_v2_64");
    assert_eq!(renamed(m, "cublasCaxpy_64", "7.0.0"), "hipblasCaxpy_64");
    // bf16: the struct type before hip_bf16.h, the CUDA-like type after.
    assert_eq!(renamed(m, "__nv_bfloat16", "5.2.0"), "hip_bfloat16");
    // hip_bf16.h of 5.6.x includes amd_hip_bf16.h, which clr adds only in 5.7.0.
    assert_eq!(renamed(m, "__nv_bfloat16", "5.6.1"), "hip_bfloat16");
    assert_eq!(renamed(m, "__nv_bfloat16", "5.7.0"), "__hip_bfloat16");
    assert_eq!(renamed(m, "__nv_bfloat16", "6.2.0"), "__hip_bfloat16");
    assert_eq!(renamed(m, "__nv_bfloat16", "7.0.0"), "__hip_bfloat16");
}

#[test]
fn hipblas_5x_complex_api_needs_its_define() {
    let m = mappings::get();
    let Some(Resolution::Rename { entry, .. }) = m.resolve("cublasCaxpy", &target("5.2.0")) else {
        panic!("cublasCaxpy at 5.2 is a rename");
    };
    assert_eq!(
        entry.requires_define.as_deref(),
        Some("ROCM_MATHLIBS_API_USE_HIP_COMPLEX")
    );
    let Some(Resolution::Rename { entry, .. }) = m.resolve("cublasCaxpy", &target("6.2.0")) else {
        panic!("cublasCaxpy at 6.2 is a rename");
    };
    assert_eq!(entry.requires_define, None);
}

#[test]
fn hipblas_5x_datatype_names_only_in_files_that_need_them() {
    let m = mappings::get();
    let t52 = target("5.2.0");
    assert!(m.takes_hipblas_datatype("cublasGemmEx", &t52));
    assert!(m.takes_hipblas_datatype("cublasDotEx", &t52));
    assert!(!m.takes_hipblas_datatype("cublasGemmEx", &target("6.2.0")));
    assert!(!m.takes_hipblas_datatype("cublasCaxpy", &t52));
    let in_ctx = |cuda: &str, v: &str, ctx: bool| match m.resolve_in_context(cuda, &target(v), ctx)
    {
        Some(Resolution::Rename { to, .. }) => to.to_string(),
        other => panic!("{cuda} at {v}: {other:?}"),
    };
    assert_eq!(in_ctx("CUDA_R_16F", "5.2.0", true), "HIPBLAS_R_16F");
    assert_eq!(in_ctx("CUDA_R_16F", "5.2.0", false), "HIP_R_16F");
    assert_eq!(in_ctx("CUDA_R_16F", "6.2.0", true), "HIP_R_16F");
    assert_eq!(in_ctx("cudaDataType_t", "5.7.1", true), "hipblasDatatype_t");
    // The compute type has no other use in hipBLAS 5.x: its datatype form holds everywhere.
    assert_eq!(
        in_ctx("CUBLAS_COMPUTE_32F", "5.2.0", false),
        "HIPBLAS_R_32F"
    );
    assert_eq!(
        in_ctx("CUBLAS_COMPUTE_32F", "6.2.0", false),
        "HIPBLAS_COMPUTE_32F"
    );
}

/// Every HIP name the tables mark changed (`C`) is classified in `hip_history.tsv`: a row for
/// the release before the change says which name held there (the same one when only the
/// signature changed).
#[test]
fn every_changed_hip_row_has_history() {
    let m = mappings::get();
    let mut missing = BTreeSet::new();
    for r in generated_rows() {
        let (Some(hip), Some(c)) = (&r.hip, r.hip_versions.changed) else {
            continue;
        };
        let covered = m.history.get(hip).is_some_and(|rows| {
            rows.iter()
                .any(|h| h.range.max.is_some_and(|max| max < c) && !h.hipblas_datatype_context)
        });
        if !covered {
            missing.insert(format!("{hip} (C {c})"));
        }
    }
    assert!(missing.is_empty(), "no history row: {missing:?}");
}

/// Whether `name` exists in release `v` according to the tables: a generated row (added at or
/// before `v`, not removed, not spelt differently there by a history row), a history row whose
/// range holds `v`, or a hand identifier row.
fn exists_in(m: &Mappings, rows: &[Row], name: &str, v: Version) -> bool {
    if let Some(hist) = m.history.get(name) {
        if hist
            .iter()
            .any(|h| h.range.contains(v) && h.name != name && !h.hipblas_datatype_context)
        {
            return false;
        }
    }
    let from_history = m
        .history
        .values()
        .flatten()
        .any(|h| h.name == name && h.range.contains(v));
    let from_table = rows.iter().any(|r| {
        [(&r.hip, &r.hip_versions), (&r.roc, &r.roc_versions)]
            .iter()
            .any(|(n, vs)| {
                n.as_deref() == Some(name)
                    && vs.added.is_none_or(|a| a <= v)
                    && vs.removed.is_none_or(|x| x > v)
            })
    });
    let from_hand = m
        .entries
        .iter()
        .any(|e| matches!(e.origin, mappings::Origin::Hand(_)) && e.hip.as_deref() == Some(name));
    from_history || from_table || from_hand
}

#[test]
fn names_emitted_for_5_2_6_2_and_7_0_exist_there() {
    let m = mappings::get();
    let rows = generated_rows();
    let cudas: BTreeSet<&str> = m.entries.iter().map(|e| e.cuda.as_str()).collect();
    for v in ["5.2.0", "6.2.0", "7.0.0"] {
        let t = target(v);
        let mut bad = BTreeSet::new();
        let mut checked = 0;
        for cuda in &cudas {
            for ctx in [false, true] {
                if let Some(Resolution::Rename { to, .. }) = m.resolve_in_context(cuda, &t, ctx) {
                    if to.is_empty() || !to.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    {
                        continue;
                    }
                    checked += 1;
                    if !exists_in(m, &rows, to, t.rocm) {
                        bad.insert(format!("{cuda} → {to}"));
                    }
                }
            }
        }
        assert!(checked > 3000, "{v}: only {checked} names checked");
        let first: Vec<&String> = bad.iter().take(20).collect();
        assert!(
            bad.is_empty(),
            "{v}: {} names not in that release: {first:?}",
            bad.len()
        );
    }
}

/// The bf16 integer and directed-rounding conversions HIPIFY lists without a HIP name: none is in
/// `hip_bf16.h` at any ROCm tag checked (5.7.0–6.2.2, and the 6.3 branch), so each stays flagged
/// at every target, and a hand row gives the fallback built from functions that do exist.
#[test]
fn bf16_integer_conversions_are_flagged_with_a_fallback() {
    let m = mappings::get();
    let rows = generated_rows();
    let types = [
        "char", "uchar", "short", "ushort", "int", "uint", "ll", "ull", "float",
    ];
    let modes = ["rn", "rz", "rd", "ru"];
    let conversion = |name: &str| {
        types.iter().any(|t| {
            modes.iter().any(|md| {
                name == format!("__bfloat162{t}_{md}")
                    || (name == format!("__{t}2bfloat16_{md}") && name != "__float2bfloat16_rn")
            })
        })
    };
    let unported: BTreeSet<&str> = rows
        .iter()
        .filter(|r| r.hip.is_none() && conversion(&r.cuda))
        .map(|r| r.cuda.as_str())
        .collect();
    assert_eq!(unported.len(), 53, "{unported:?}");
    for name in &unported {
        for v in ["5.2.0", "6.2.0", "7.0.0"] {
            match m.resolve(name, &target(v)) {
                Some(Resolution::Unported {
                    entry,
                    why: Unported::NoEquivalent,
                }) => {
                    assert_eq!(entry.origin.as_str(), "bf16", "{name}");
                    assert!(
                        entry.note.contains("5.7.0-6.2.2 tags"),
                        "{name}: {}",
                        entry.note
                    );
                }
                other => panic!("{name} at {v}: expected no equivalent, got {other:?}"),
            }
        }
    }
    // The fallbacks name functions hip_bf16.h has from 5.7.0.
    let v = "5.7.0".parse().unwrap();
    for f in ["__bfloat162float", "__float2bfloat16"] {
        assert!(exists_in(m, &rows, f, v), "{f} at 5.7.0");
    }
    let note = |n: &str| match m.resolve(n, &target("7.0.0")) {
        Some(Resolution::Unported { entry, .. }) => entry.note.clone(),
        other => panic!("{n}: {other:?}"),
    };
    assert!(note("__bfloat162int_rn").contains("rintf(__bfloat162float(h)) cast to int"));
    assert!(note("__bfloat162ull_rd")
        .contains("floorf(__bfloat162float(h)) cast to unsigned long long"));
    assert!(note("__short2bfloat16_rn").contains("same result"));
    assert!(note("__uint2bfloat16_rn").contains("rounds twice"));
    assert!(note("__int2bfloat16_ru").contains("not up"));
}
