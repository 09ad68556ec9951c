//! The source-code rule families, and the registry of every rule the tool can raise.
//!
//! Each hazard family lives in its own module and declares its rules as [`RuleInfo`] constants
//! (with the `rule!` macro of [`crate::registry`], the vocabulary below both rule families)
//! with fixed documentation sections (what / why / bad / good / fix / references) that
//! `hipport explain CODE` prints. Codes are never reused. Ranges: HP0xx translation,
//! HP1xx warp-size, HP2xx inline-asm, HP3xx version-check, HP4xx arch-check, HP5xx driver-api,
//! HP6xx library, HP7xx device-feature, HP8xx–HP9xx repository inventory.

pub mod api;
pub mod arch_check;
pub mod compiled_out;
pub mod cond;
pub mod coverage;
pub mod cuda_side;
pub mod cutlass_component;
pub mod decisions;
pub mod device_feature;
pub mod driver_api;
pub mod facts;
pub mod hazards;
pub mod hipside;
pub mod index;
pub mod inline_asm;
pub mod libcu;
pub mod library;
pub mod macro_env;
pub mod project_build;
pub mod suppress;
pub mod syntax;
pub mod vendored;
pub mod version_check;
pub mod warp_size;

// The vocabulary lives below both rule families; rule modules keep importing it from here.
pub use crate::registry::{FileCtx, RuleInfo};

/// Every rule (sources and inventory), sorted by code: the registry, built once.
pub fn all() -> &'static [&'static RuleInfo] {
    static ALL: std::sync::OnceLock<Vec<&'static RuleInfo>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut v: Vec<&'static RuleInfo> = [
            api::RULES,
            warp_size::RULES,
            inline_asm::RULES,
            version_check::RULES,
            compiled_out::RULES,
            coverage::RULES,
            arch_check::RULES,
            driver_api::RULES,
            library::RULES,
            device_feature::RULES,
        ]
        .concat();
        v.extend(crate::inventory::rules());
        v.sort_by_key(|r| r.id.code);
        v
    })
}

/// A rule by code (`HP101`, any case) or public name (`warp-size-constant`).
pub fn by_code(code: &str) -> Option<&'static RuleInfo> {
    let rules = all();
    let upper = code.to_ascii_uppercase();
    match rules.binary_search_by(|r| r.id.code.cmp(upper.as_str())) {
        Ok(i) => Some(rules[i]),
        Err(_) => rules.iter().copied().find(|r| r.id.name == code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Status;

    #[test]
    fn codes_and_names_are_unique_and_documented() {
        let rules = all();
        assert!(rules.len() >= 90, "{} rules", rules.len());
        assert!(
            rules.windows(2).all(|w| w[0].id.code < w[1].id.code),
            "sorted, unique codes"
        );
        let names: std::collections::BTreeSet<&str> = rules.iter().map(|r| r.id.name).collect();
        assert_eq!(names.len(), rules.len(), "duplicate rule name");
        for r in rules {
            assert!(
                r.id.code.starts_with("HP") && r.id.code.len() == 5,
                "{}",
                r.id.code
            );
            assert!(
                r.id.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                r.id.name
            );
            assert!(!r.summary.is_empty() && !r.why.is_empty() && !r.fix.is_empty());
            assert!(!r.bad.is_empty(), "{} needs a bad example", r.id.code);
            assert_ne!(r.status, Status::Blocker, "rules never conclude BLOCKER");
            assert_eq!(by_code(r.id.code).map(|x| x.id), Some(r.id));
            assert_eq!(by_code(r.id.name).map(|x| x.id), Some(r.id));
        }
        assert_eq!(
            by_code("hp101").map(|r| r.id.name),
            Some("warp-size-constant")
        );
        assert!(by_code("HP999").is_none());
    }

    /// The public name is the constant's name, by construction.
    #[test]
    fn the_public_name_is_the_constant_name() {
        assert_eq!(api::WARP_SYNC_32BIT_MASK.id.name, "warp-sync-32bit-mask");
        assert_eq!(
            crate::inventory::ptx::CUBIN_FATBIN_FILE.id.name,
            "cubin-fatbin-file"
        );
    }
}
