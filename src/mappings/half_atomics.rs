//! Which 16-bit floating-point atomic adds HIP declares in a ROCm release, from the hand table
//! `mappings/hand/half_atomics.tsv` (one row per function and pointee, with its range and
//! source). A pair the table does not list is absent in every release.

use super::hand::{HandTable, RocmRange};
use crate::version::Version;
use std::sync::OnceLock;

const TSV: &str = include_str!("../../mappings/hand/half_atomics.tsv");

/// One row: `function(pointee*, …)` declared by HIP within `range`.
pub struct Row {
    pub function: String,
    pub pointee: String,
    pub range: RocmRange,
}

pub fn table() -> &'static [Row] {
    static T: OnceLock<Vec<Row>> = OnceLock::new();
    T.get_or_init(|| {
        let t = HandTable::parse(
            "half_atomics.tsv",
            TSV,
            &["function", "pointee", "rocm_min", "rocm_max", "source"],
        )
        .expect("embedded half_atomics.tsv is valid");
        t.iter()
            .map(|r| Row {
                function: r.get("function").to_string(),
                pointee: r.get("pointee").to_string(),
                range: RocmRange {
                    min: r.version("rocm_min").expect("half_atomics.tsv: rocm_min"),
                    max: r.version("rocm_max").expect("half_atomics.tsv: rocm_max"),
                },
            })
            .collect()
    })
}

/// Whether HIP in ROCm `rocm` declares `function(pointee*, …)`.
pub fn declared(function: &str, pointee: &str, rocm: Version) -> bool {
    table()
        .iter()
        .any(|r| r.function == function && r.pointee == pointee && r.range.contains(rocm))
}

/// The first release that declares `function(pointee*, …)`, if any does.
pub fn first(function: &str, pointee: &str) -> Option<Version> {
    table()
        .iter()
        .filter(|r| r.function == function && r.pointee == pointee)
        .filter_map(|r| r.range.min)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    #[test]
    fn every_row_has_a_source_and_the_ranges_read() {
        let t = HandTable::parse("half_atomics.tsv", TSV, &["source"]).unwrap();
        assert!(t.iter().all(|r| r.get("source").starts_with("https://")));
        assert_eq!(table().len(), 6);
    }

    #[test]
    fn atomic_add_on_half_only_from_7_14_unsafe_pairs_from_6_3() {
        assert!(!declared("atomicAdd", "__half", v("7.2.4")));
        assert!(declared("atomicAdd", "__half", v("7.14.0")));
        assert!(!declared("unsafeAtomicAdd", "__half2", v("6.2.4")));
        assert!(declared("unsafeAtomicAdd", "__half2", v("6.3.0")));
        assert!(!declared("atomicAdd", "float4", v("10.1.0")));
        assert_eq!(first("atomicAdd", "__hip_bfloat162"), Some(v("7.14.0")));
    }
}
