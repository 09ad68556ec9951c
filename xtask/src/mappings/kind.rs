//! The kind heuristic (function / type / enum / macro / unknown) from a row's section title and
//! name; documented at the top of `mappings.rs`.

use hipport::mappings::table::{Family, Kind};
use std::collections::BTreeSet;

pub(crate) const FUNCTION_SECTION_WORDS: &[&str] = &[
    "function",
    "management",
    "reference",
    "routines",
    "api",
    "extension",
    "control",
    "interoperability",
    "handling",
    "occupancy",
    "initialization",
    "addressing",
    "access",
    "allocator",
    "logging",
    "contexts",
    "operations",
    "execution",
    // HIPIFY 2025: `Checkpointing` and the misspelt `Tensor Map Object Managment` (driver).
    "checkpoint",
    "managment",
];

pub(crate) const CUB_MACROS: &[&str] = &["CubDebug", "CubDebugExit", "_CubLog"];

/// Last camel words of runtime struct / union / handle types.
pub(crate) const RUNTIME_STRUCT_WORDS: &[&str] = &[
    "Attributes",
    "Desc",
    "Entry",
    "ID",
    "Info",
    "Params",
    "Parms",
    "Prop",
    "Properties",
    "Props",
    "Requirements",
    "Value",
    "Window",
];

/// Last camel words of runtime enum types (`cudaLimit`, `cudaMemcpyKind`, `cudaGraphDebugDotFlags`).
pub(crate) const RUNTIME_ENUM_TYPE_WORDS: &[&str] = &[
    "Advise",
    "Attr",
    "Attribute",
    "Cache",
    "Carveout",
    "Config",
    "Domain",
    "Error",
    "Flags",
    "Format",
    "Kind",
    "Limit",
    "List",
    "Mode",
    "Options",
    "Ordering",
    "Policy",
    "Property",
    "Result",
    "Scope",
    "Status",
    "Target",
    "Type",
];

/// Last camel words of other runtime types (`cudaArray`, `cudaPitchedPtr`, `cudaEglFrame`).
pub(crate) const RUNTIME_OTHER_TYPE_WORDS: &[&str] = &[
    "Array",
    "Callback",
    "Connection",
    "Extent",
    "Frame",
    "Handle",
    "Location",
    "Map",
    "Pos",
    "Ptr",
];

/// Enumerator prefixes whose enum type is spelled differently (`cudaDevAttr*` of
/// `cudaDeviceAttr`, `cudaMemcpyHostToDevice` of `cudaMemcpyKind`).
pub(crate) const RUNTIME_ENUMERATOR_PREFIXES: &[&str] = &[
    "cudaAddressMode",
    "cudaBoundaryMode",
    "cudaDevAttr",
    "cudaDevP2PAttr",
    "cudaFilterMode",
    "cudaFormatMode",
    "cudaKernelNodeAttribute",
    "cudaMemAdvise",
    "cudaMemAttach",
    "cudaMemHandleType",
    "cudaMemcpyDefault",
    "cudaMemcpyDeviceTo",
    "cudaMemcpyHostTo",
    "cudaReadMode",
    "cudaResViewFormat",
    "cudaSharedMemBankSize",
    "cudaSharedmemCarveout",
    "cudaStreamAttribute",
    "cudaSyncPolicy",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SectionKind {
    Function,
    DataType,
    Macro,
    Unknown,
}

pub(crate) fn section_kind(title: &str) -> SectionKind {
    let mut t = title.to_ascii_lowercase();
    if let Some(i) = t.find(" [") {
        t.truncate(i);
    }
    if t.contains("macro") {
        SectionKind::Macro
    } else if t.contains("data type") || t.ends_with(" types") || t.contains("types reference") {
        SectionKind::DataType
    } else if FUNCTION_SECTION_WORDS.iter().any(|w| {
        t.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|x| x.starts_with(w))
    }) {
        SectionKind::Function
    } else {
        SectionKind::Unknown
    }
}

/// ALL-CAPS: an upper-case letter, no lower-case letters except an `x` right after a digit.
pub(crate) fn is_screaming(name: &str) -> bool {
    let b = name.as_bytes();
    b.iter().any(u8::is_ascii_uppercase)
        && b.iter().enumerate().all(|(i, c)| {
            !c.is_ascii_lowercase() || (*c == b'x' && i > 0 && b[i - 1].is_ascii_digit())
        })
}

pub(crate) fn has_type_suffix(name: &str) -> bool {
    if ["_t", "_st", "_enum", "_union", "Struct"]
        .iter()
        .any(|s| name.ends_with(s))
    {
        return true;
    }
    let base = name.strip_suffix("_st").unwrap_or(name);
    match base.rfind("_v") {
        Some(i) => {
            let digits = &base[i + 2..];
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// The last camel-case word, ignoring a trailing `V2`-style version: `cudaMemsetParamsV2` → `Params`.
pub(crate) fn last_camel_word(name: &str) -> &str {
    let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let name = match trimmed.strip_suffix('V') {
        Some(rest) if trimmed.len() < name.len() => rest,
        _ => name,
    };
    let b = name.as_bytes();
    // Start of the last word: the last upper-case letter that follows a lower-case letter or
    // digit, or that starts a capitalised word after an acronym (`CGScope` → `Scope`); a final
    // run of capitals is one word (`ID`).
    let mut start = 0;
    for i in 1..b.len() {
        let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        if b[i].is_ascii_uppercase() && (!b[i - 1].is_ascii_uppercase() || next_lower) {
            start = i;
        }
    }
    &name[start..]
}

pub(crate) fn is_cuda_camel(name: &str) -> bool {
    name.strip_prefix("cuda")
        .and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_uppercase())
}

pub(crate) fn data_type_kind(family: Family, name: &str, section_names: &BTreeSet<&str>) -> Kind {
    if name.len() > 4 && name.starts_with("__") && name.ends_with("__") {
        return Kind::Macro;
    }
    if family == Family::Runtime && name.starts_with("CUDART_") && is_screaming(name) {
        return Kind::Macro; // CUDART_PI, CUDART_INF_F, ...: math constants of math_constants.h
    }
    if family == Family::Cub && (is_screaming(name) || CUB_MACROS.contains(&name)) {
        return Kind::Macro;
    }
    if has_type_suffix(name) {
        return Kind::Type;
    }
    if is_screaming(name) {
        let struct_sibling = ["_st", "_v1", "_v2", "_v3"]
            .iter()
            .any(|s| section_names.contains(format!("{name}{s}").as_str()));
        return if struct_sibling {
            Kind::Type
        } else {
            Kind::Enum
        };
    }
    if name.starts_with("__") || name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Kind::Type;
    }
    if family == Family::Runtime && is_cuda_camel(name) {
        return runtime_camel_kind(name, section_names);
    }
    Kind::Type
}

/// `cudaXxx` names of the runtime data-type section: enum type, struct, or enumerator.
pub(crate) fn runtime_camel_kind(name: &str, section_names: &BTreeSet<&str>) -> Kind {
    let continues = |p: &str| {
        p.len() < name.len()
            && name.starts_with(p)
            && name[p.len()..].starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit())
    };
    if RUNTIME_ENUMERATOR_PREFIXES.iter().any(|p| continues(p)) {
        return Kind::Enum;
    }
    // The longest other name of the section that `name` extends, not counting structs.
    let prefix = section_names
        .iter()
        .filter(|p| {
            is_cuda_camel(p)
                && !has_type_suffix(p)
                && continues(p)
                && !section_names.contains(format!("{p}_st").as_str())
        })
        .max_by_key(|p| p.len());
    if prefix.is_some_and(|p| RUNTIME_ENUM_TYPE_WORDS.contains(&last_camel_word(p))) {
        return Kind::Enum;
    }
    let word = last_camel_word(name);
    if RUNTIME_STRUCT_WORDS.contains(&word) {
        return Kind::Type;
    }
    if prefix.is_some() {
        return Kind::Enum;
    }
    if RUNTIME_ENUM_TYPE_WORDS.contains(&word) || RUNTIME_OTHER_TYPE_WORDS.contains(&word) {
        return Kind::Type;
    }
    Kind::Enum
}

pub(crate) fn kind_of(
    family: Family,
    section: &str,
    name: &str,
    section_names: &BTreeSet<&str>,
) -> Kind {
    match section_kind(section) {
        SectionKind::Function => Kind::Function,
        SectionKind::Macro => Kind::Macro,
        SectionKind::Unknown => Kind::Unknown,
        SectionKind::DataType => data_type_kind(family, name, section_names),
    }
}
