//! The rule vocabulary both rule families share: [`RuleInfo`], the `rule!` macro that declares
//! one, and [`FileCtx`], which turns a byte range into a finding.
//!
//! It sits below `rules` (source hazards) and `inventory` (repository hazards) so that neither
//! family imports the other to declare a rule. The list of every rule (`catalog::all()`) lives
//! above both, in `rules`, because it names the families. This module imports only the finding
//! , gate and line-index vocabulary.

use crate::finding::{fingerprint, Category, Finding, RuleId};
use crate::gate::{Phase, Status};
use crate::lines::LineIndex;

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
        pub const $name: $crate::registry::RuleInfo = $crate::registry::RuleInfo {
            id: $crate::finding::RuleId {
                code: $code,
                name: {
                    const KEBAB: [u8; stringify!($name).len()] =
                        $crate::registry::kebab(stringify!($name));
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
            excerpt: crate::finding::excerpt(&self.src[range.clone()]),
            byte_range: (range.start, range.end),
            baseline: None,
            folded_into: None,
            holds: 0,
            set_aside: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_turns_a_constant_name_into_a_public_name() {
        let k: [u8; 5] = kebab("A_B_1");
        assert_eq!(&k, b"a-b-1");
        let k: [u8; 3] = kebab("abc");
        assert_eq!(&k, b"abc", "already lower case stays as is");
    }
}
