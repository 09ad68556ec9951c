//! Rule metadata and the registry of every rule the tool can raise.
//!
//! Each hazard family lives in its own module and declares its rules as [`RuleInfo`] constants
//! with fixed documentation sections (what / why / bad / good / fix / references) that
//! `hipport explain CODE` prints. Codes are never reused. Ranges: HP0xx translation,
//! HP1xx warp-size, HP2xx inline-asm, HP3xx version-check, HP4xx arch-check, HP5xx driver-api,
//! HP6xx library, HP7xx device-feature, HP8xx–HP9xx repository inventory.

/// Declares a rule's [`RuleInfo`] constant: category first, then code, name, status, phase
/// and the documentation sections. Every family module uses it.
macro_rules! rule_info {
    ($cat:ident; $id:ident, $code:literal, $name:literal, $st:ident, $ph:ident, $sum:literal, $why:literal, $bad:literal, $good:literal, $fix:literal, $refs:expr) => {
        pub const $id: RuleInfo = RuleInfo {
            id: RuleId {
                code: $code,
                name: $name,
            },
            category: Category::$cat,
            status: Status::$st,
            phase: Phase::$ph,
            summary: $sum,
            why: $why,
            bad: $bad,
            good: $good,
            fix: $fix,
            references: $refs,
        };
    };
}

pub mod api;
pub mod arch_check;
pub mod cond;
pub mod device_feature;
pub mod driver_api;
pub mod facts;
pub mod hazards;
pub mod hipside;
pub mod inline_asm;
pub mod library;
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

/// Every rule, in code order.
pub fn all() -> Vec<&'static RuleInfo> {
    let mut v: Vec<&'static RuleInfo> = Vec::new();
    v.extend_from_slice(api::RULES);
    v.extend_from_slice(warp_size::RULES);
    v.extend_from_slice(inline_asm::RULES);
    v.extend_from_slice(version_check::RULES);
    v.extend_from_slice(arch_check::RULES);
    v.extend_from_slice(driver_api::RULES);
    v.extend_from_slice(library::RULES);
    v.extend_from_slice(device_feature::RULES);
    v.extend(crate::inventory::rules());
    v.sort_by_key(|r| r.id.code);
    v
}

pub fn by_code(code: &str) -> Option<&'static RuleInfo> {
    all()
        .into_iter()
        .find(|r| r.id.code.eq_ignore_ascii_case(code) || r.id.name == code)
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
    fn codes_are_unique_and_documented() {
        let rules = all();
        let mut codes: Vec<&str> = rules.iter().map(|r| r.id.code).collect();
        codes.dedup();
        assert_eq!(codes.len(), rules.len(), "duplicate rule code");
        for r in rules {
            assert!(
                r.id.code.starts_with("HP") && r.id.code.len() == 5,
                "{}",
                r.id.code
            );
            assert!(!r.summary.is_empty() && !r.why.is_empty() && !r.fix.is_empty());
            assert!(!r.bad.is_empty(), "{} needs a bad example", r.id.code);
            assert_ne!(r.status, Status::Blocker, "rules never conclude BLOCKER");
        }
    }
}
