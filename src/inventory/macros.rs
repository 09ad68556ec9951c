//! `inventory_rule!`: declares one [`RuleInfo`](crate::rules::RuleInfo) constant with its fixed
//! documentation sections, so each family file reads as a list of rules.

macro_rules! inventory_rule {
    (
        $name:ident, $code:literal, $short:literal, $cat:ident, $status:ident, $phase:ident,
        summary: $s:literal, why: $w:literal, bad: $b:literal, good: $g:literal, fix: $f:literal,
        refs: [$($r:literal),* $(,)?] $(,)?
    ) => {
        pub const $name: $crate::rules::RuleInfo = $crate::rules::RuleInfo {
            id: $crate::finding::RuleId { code: $code, name: $short },
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
