//! How much LDS (CUDA's shared memory) one workgroup can allocate on each AMD GPU target, from
//! the hand table `mappings/hand/lds.tsv`, and which limit a run checks against: the smallest
//! among the target's `--offload-arch` list (a kernel must launch on every one), else the default
//! target's ([`DEFAULT_ARCH`]). A target the table does not list has no limit: nothing is guessed.

use super::hand::HandTable;
use std::sync::OnceLock;

const LDS_TSV: &str = include_str!("../../mappings/hand/lds.tsv");

/// The arch a run without `--offload-arch` (flag, `hipport.toml` or the record's `gfx`) is
/// judged for: the same default `verify` compiles for.
pub const DEFAULT_ARCH: &str = "gfx90a";

/// The LDS limit of the target a run checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lds {
    pub gfx: &'static str,
    pub bytes: u64,
    /// No arch was given: the limit is [`DEFAULT_ARCH`]'s.
    pub defaulted: bool,
}

impl Lds {
    /// `gfx942 gives a workgroup 64 KiB of LDS`.
    pub fn describe(&self) -> String {
        format!("{} gives a workgroup {} of LDS", self.gfx, kib(self.bytes))
    }
    /// ` (gfx90a is the default target: …)` when no arch was given, else empty.
    pub fn default_note(&self) -> String {
        if self.defaulted {
            format!(
                " ({} is the default target: name yours with `offload_arch` in hipport.toml or `hipport record target --gfx`)",
                self.gfx
            )
        } else {
            String::new()
        }
    }
}

/// `96 KiB` for whole KiB, else `98305 bytes`.
pub fn kib(bytes: u64) -> String {
    if bytes % 1024 == 0 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// Every row: gfx name and LDS bytes per workgroup.
pub fn table() -> &'static [(String, u64)] {
    static T: OnceLock<Vec<(String, u64)>> = OnceLock::new();
    T.get_or_init(|| {
        let t = HandTable::parse("lds.tsv", LDS_TSV, &["gfx", "lds_bytes", "source"])
            .expect("embedded lds.tsv is valid");
        t.iter()
            .map(|r| {
                let bytes = r
                    .get("lds_bytes")
                    .parse()
                    .expect("lds.tsv: lds_bytes is an integer");
                (r.get("gfx").to_string(), bytes)
            })
            .collect()
    })
}

/// The LDS bytes one workgroup of `gfx` can allocate (`gfx90a:xnack-` counts as `gfx90a`).
pub fn bytes_of(gfx: &str) -> Option<(&'static str, u64)> {
    let base = gfx.split(':').next().unwrap_or("").trim();
    table()
        .iter()
        .find(|(g, _)| g.eq_ignore_ascii_case(base))
        .map(|(g, b)| (g.as_str(), *b))
}

/// The limit for a run over `offload_arch`: the smallest known one; the default arch's when the
/// list is empty; `None` when no listed arch is in the table.
pub fn for_archs(offload_arch: &[String]) -> Option<Lds> {
    let archs: Vec<&str> = offload_arch
        .iter()
        .flat_map(|a| a.split(','))
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    if archs.is_empty() {
        return bytes_of(DEFAULT_ARCH).map(|(gfx, bytes)| Lds {
            gfx,
            bytes,
            defaulted: true,
        });
    }
    archs
        .into_iter()
        .filter_map(bytes_of)
        .min_by_key(|(_, b)| *b)
        .map(|(gfx, bytes)| Lds {
            gfx,
            bytes,
            defaulted: false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_a_source_per_row_and_known_gfx_names() {
        let t = HandTable::parse("lds.tsv", LDS_TSV, &["gfx", "lds_bytes", "source"]).unwrap();
        for r in t.iter() {
            assert!(r.get("source").starts_with("https://"), "{}", r.get("gfx"));
            assert!(
                crate::record::target::is_gfx(r.get("gfx")),
                "{} is not in gfx_targets.tsv",
                r.get("gfx")
            );
        }
        assert_eq!(table().len(), 13);
    }

    #[test]
    fn cdna3_and_rdna_have_64_kib_and_gfx950_160() {
        assert_eq!(bytes_of("gfx942"), Some(("gfx942", 65536)));
        assert_eq!(bytes_of("gfx90a:xnack-"), Some(("gfx90a", 65536)));
        assert_eq!(bytes_of("gfx1100"), Some(("gfx1100", 65536)));
        assert_eq!(bytes_of("gfx950"), Some(("gfx950", 163840)));
        assert_eq!(bytes_of("gfx1250"), None, "not in the table: no guess");
    }

    #[test]
    fn the_smallest_listed_arch_decides_and_an_empty_list_defaults() {
        let l = for_archs(&["gfx950".into(), "gfx942".into()]).unwrap();
        assert_eq!((l.gfx, l.bytes, l.defaulted), ("gfx942", 65536, false));
        let l = for_archs(&["gfx950".into()]).unwrap();
        assert_eq!(l.bytes, 163840);
        let d = for_archs(&[]).unwrap();
        assert_eq!((d.gfx, d.defaulted), (DEFAULT_ARCH, true));
        assert!(d.default_note().contains("default target"));
        assert_eq!(d.describe(), "gfx90a gives a workgroup 64 KiB of LDS");
        assert_eq!(for_archs(&["gfx1250".into()]), None);
        assert_eq!(kib(98304), "96 KiB");
    }
}
