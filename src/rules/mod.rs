//! Rule metadata and the registry of every rule the tool can raise.
//!
//! Each hazard family lives in its own module and declares its rules as [`RuleInfo`] constants
//! with fixed documentation sections (what / why / bad / good / fix / references) that
//! `hipport explain CODE` prints. Codes are never reused. Ranges: HP0xx translation,
//! HP1xx warp-size, HP2xx inline-asm, HP3xx version-check, HP4xx arch-check, HP5xx driver-api,
//! HP6xx library, HP7xx device-feature, HP8xx–HP9xx repository inventory.

/// Declares a rule: the one way every rule (sources and inventory) is written. The constant's
/// name is the rule's public name (`WARP_SYNC_32BIT_MASK` is `warp-sync-32bit-mask`), then come
/// the code, category, default status and phase, and the documentation sections that
/// `hipport explain` and SARIF print. List the constant in its family's `RULES`.
macro_rules! rule {
    (
        $name:ident, $code:literal, $cat:ident, $status:ident, $phase:ident,
        summary: $s:literal, why: $w:literal, bad: $b:literal, good: $g:literal, fix: $f:literal,
        refs: [$($r:expr),* $(,)?] $(,)?
    ) => {
        pub const $name: $crate::rules::RuleInfo = $crate::rules::RuleInfo {
            id: $crate::finding::RuleId {
                code: $code,
                name: {
                    const KEBAB: [u8; stringify!($name).len()] =
                        $crate::rules::kebab(stringify!($name));
                    match ::core::str::from_utf8(&KEBAB) {
                        Ok(s) => s,
                        Err(_) => panic!("rule constant names are ASCII"),
                    }
                },
            },
            category: $crate::finding::Category::$cat,
            status: $crate::gate::Status::$status,
            phase: $crate::gate::Phase::$phase,
            summary: $s,
            why: $w,
            bad: $b,
            good: $g,
            fix: $f,
            references: &[$($r),*],
        };
    };
}

/// `WARP_SIZE_CONSTANT` → `warp-size-constant`, at compile time (the rule's public name).
pub const fn kebab<const N: usize>(constant: &str) -> [u8; N] {
    let b = constant.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = if b[i] == b'_' {
            b'-'
        } else {
            b[i].to_ascii_lowercase()
        };
        i += 1;
    }
    out
}

pub mod api;
pub mod arch_check;
pub mod compiled_out;
pub mod cond;
pub mod cuda_side;
pub mod cutlass_component;
pub mod device_feature;
pub mod driver_api;
pub mod facts;
pub mod hazards;
pub mod hipside;
pub mod index;
pub mod inline_asm;
pub mod library;
pub mod macro_env;
pub mod project_build;
pub mod suppress;
pub mod syntax;
pub mod version_check;
pub mod warp_size;

use crate::finding::{fingerprint, Category, Finding, RuleId};
use crate::gate::{Phase, Status};
use crate::source::LineIndex;

#[derive(Debug)]
pub struct RuleInfo {
    pub id: RuleId,
    pub category: Category,
    pub status: Status,
    pub phase: Phase,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// Why it matters on ROCm.
    pub why: &'static str,
    /// A short example that the rule flags.
    pub bad: &'static str,
    /// The same example after the suggested fix.
    pub good: &'static str,
    /// What to do about it.
    pub fix: &'static str,
    pub references: &'static [&'static str],
}

impl RuleInfo {
    pub fn code(&self) -> &'static str {
        self.id.code
    }
}

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

/// The context a rule needs to turn a byte range into a [`Finding`].
pub struct FileCtx<'a> {
    /// Path relative to the root given, `/`-separated.
    pub path: &'a str,
    pub src: &'a [u8],
    pub lines: &'a LineIndex,
}

impl FileCtx<'_> {
    /// A finding for `rule` over `range`, with the rule's default status and phase.
    pub fn finding(
        &self,
        rule: &RuleInfo,
        range: std::ops::Range<usize>,
        message: String,
        suggestion: Option<String>,
    ) -> Finding {
        let start = self.lines.position(self.src, range.start);
        let end = self.lines.position(self.src, range.end);
        Finding {
            rule: rule.id.code.to_string(),
            rule_name: rule.id.name.to_string(),
            category: rule.category,
            status: rule.status,
            phase: rule.phase,
            path: self.path.to_string(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            message,
            suggestion,
            fix: None,
            fingerprint: fingerprint(rule.id.code, self.path, &self.src[range.clone()]),
            excerpt: crate::baseline::excerpt(&self.src[range.clone()]),
            byte_range: (range.start, range.end),
            baseline: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let k: [u8; 5] = kebab("A_B_1");
        assert_eq!(&k, b"a-b-1");
    }
}
