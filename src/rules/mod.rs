//! The source-code rule families, and the registry of every rule the tool can raise.
//!
//! Each hazard family lives in its own module and declares its rules as [`RuleInfo`] constants
//! (with the `rule!` macro of [`crate::registry`], the vocabulary below both rule families)
//! with fixed documentation sections (what / why / bad / good / fix / references) that
//! `hipport explain CODE` prints. Codes are never reused. Ranges: HP0xx translation,
//! HP1xx warp-size, HP2xx inline-asm, HP3xx version-check, HP4xx arch-check, HP5xx driver-api,
//! HP6xx library, HP7xx device-feature, HP8xx–HP9xx repository inventory.

pub mod arch_check;
pub mod compiled_out;
pub mod compiled_out_unused;
pub mod coverage;
pub mod cutlass_component;
pub mod device_feature;
pub mod driver_api;
pub mod facts;
pub mod hazards;
pub mod inline_asm;
pub mod libcu;
pub mod library;
pub mod project_build;
pub mod suppress;
pub mod vendored;
pub mod version_check;
pub mod warp_size;

// The vocabulary lives below both rule families; rule modules keep importing it from here.
pub use crate::registry::{FileCtx, RuleInfo};

/// Every source-code rule, by family (the catalog above both families adds the inventory's).
pub fn families() -> [&'static [&'static RuleInfo]; 9] {
    [
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
}
