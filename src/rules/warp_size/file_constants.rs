//! The integer constants of one file the warp-size rules count with: macros, `const` and
//! `constexpr` declarations and enumerators, by name and value.

use super::{declared_constant, named_constant_name};
use crate::kinds::cuda::{Kind as K, NodeExt};
use crate::model::syntax::{int_value, Src};
use tree_sitter::Node;

/// File constants worth 32, 31 or 5 whose names do not say "warp size" (those are HP101's):
/// `static const int WS = 32;`, `#define LANES 32`. Their uses in lane arithmetic are flagged.
pub(super) fn named_constants<'a>(
    s: &Src<'a>,
    nodes: &[Node<'a>],
    macros: &[(&'a str, &'a str, std::ops::Range<usize>)],
) -> std::collections::HashMap<&'a str, u64> {
    constants_where(s, nodes, macros, |name, v| {
        matches!(v, 32 | 31 | 5) && named_constant_name(name)
    })
}

/// The file's constants (macros, `const`/`constexpr` declarations, enumerators) that `keep`
/// takes by name and value.
pub(super) fn constants_where<'a>(
    s: &Src<'a>,
    nodes: &[Node<'a>],
    macros: &[(&'a str, &'a str, std::ops::Range<usize>)],
    keep: impl Fn(&str, u64) -> bool,
) -> std::collections::HashMap<&'a str, u64> {
    let mut out = std::collections::HashMap::new();
    let mut add = |name: &'a str, v: Option<u64>| {
        if let Some(v) = v.filter(|&v| keep(name, v)) {
            out.insert(name, v);
        }
    };
    for (name, value, _) in macros {
        add(name, int_value(value));
    }
    let is_const = |t: &str| {
        t.starts_with("const")
            || t.starts_with("static const")
            || t.starts_with("constexpr")
            || t.starts_with("static constexpr")
    };
    for n in nodes {
        let constant = match n.node_kind() {
            K::InitDeclarator => s.parent(*n).is_some_and(|d| is_const(s.text(d))),
            K::FieldDeclaration => is_const(s.text(*n)),
            K::Enumerator => true,
            _ => false,
        };
        if !constant {
            continue;
        }
        if let Some((name, v)) = declared_constant(s, *n) {
            add(name, int_value(s.text(v)));
        }
    }
    out
}
