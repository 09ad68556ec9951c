//! The catalog of every rule the tool can raise (source rules and repository inventory),
//! sorted by code, and the lookup by code or public name that `explain`, the renderers, the
//! configuration and `--select` use.
//!
//! It sits above both rule families (it names them); the vocabulary they declare rules with,
//! [`RuleInfo`] and the `rule!` macro, sits below both in [`crate::registry`].

use crate::registry::RuleInfo;

/// Every rule (sources and inventory), sorted by code: the registry, built once.
pub fn all() -> &'static [&'static RuleInfo] {
    static ALL: std::sync::OnceLock<Vec<&'static RuleInfo>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut v: Vec<&'static RuleInfo> = crate::rules::families().concat();
        v.extend(crate::translate::rules::RULES);
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
        assert_eq!(
            crate::translate::rules::WARP_SYNC_32BIT_MASK.id.name,
            "warp-sync-32bit-mask"
        );
        assert_eq!(
            crate::inventory::ptx::CUBIN_FATBIN_FILE.id.name,
            "cubin-fatbin-file"
        );
    }
}
