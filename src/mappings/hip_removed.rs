//! HIP names a ROCm release removed, from the hand table `mappings/hand/hip_removed.tsv` (one
//! row per name, with the release that removed it, the one that deprecated it, the name to
//! write instead and a source). The HIPIFY tables mark few removals on the HIP side.

use super::hand::HandTable;
use crate::version::Version;
use std::collections::HashMap;
use std::sync::OnceLock;

const TSV: &str = include_str!("../../mappings/hand/hip_removed.tsv");

/// One removed HIP name.
pub struct Row {
    pub removed: Version,
    pub deprecated: Option<Version>,
    pub instead: String,
    pub note: String,
}

pub fn table() -> &'static HashMap<String, Row> {
    static T: OnceLock<HashMap<String, Row>> = OnceLock::new();
    T.get_or_init(|| {
        let t = HandTable::parse(
            "hip_removed.tsv",
            TSV,
            &["name", "removed", "use", "source"],
        )
        .expect("embedded hip_removed.tsv is valid");
        t.iter()
            .map(|r| {
                (
                    r.get("name").to_string(),
                    Row {
                        removed: r
                            .version("removed")
                            .expect("hip_removed.tsv: removed")
                            .expect("hip_removed.tsv: removed is required"),
                        deprecated: r
                            .version("deprecated")
                            .expect("hip_removed.tsv: deprecated"),
                        instead: r.get("use").to_string(),
                        note: r.get("note").to_string(),
                    },
                )
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_a_source_and_a_replacement() {
        let t = HandTable::parse("hip_removed.tsv", TSV, &["source"]).unwrap();
        assert!(t.iter().all(|r| r.get("source").starts_with("https://")));
        assert!(table().values().all(|r| !r.instead.is_empty()));
        let r = &table()["HIPBLAS_C_32F"];
        assert_eq!(
            (r.removed.to_string(), r.instead.as_str()),
            ("7.0.0".into(), "HIP_C_32F")
        );
    }
}
