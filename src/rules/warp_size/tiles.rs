//! Names a function gives its own values: the constants it declares, which hide the file's
//! (`constexpr int GROUP_SIZE = 16;` in one kernel, 32 in another), and the sizes of the
//! cooperative-groups tiles it partitions its block by, which are logical groups of that size
//! on any wavefront rather than the hardware warp (HierarchicalKV's
//! `tiled_partition<GROUP_SIZE>`).

use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, call_name, int_value, Src};
use std::collections::HashSet;
use tree_sitter::Node;

/// The constants function `f` declares (`constexpr int GROUP_SIZE = 16;`, `const int n = …;`)
/// with their integer values where they are literals.
pub(super) fn local_constants<'a>(s: &Src<'a>, f: Node<'a>) -> Vec<(&'a str, Option<u64>)> {
    let is_const = |t: &str| {
        t.starts_with("const")
            || t.starts_with("static const")
            || t.starts_with("constexpr")
            || t.starts_with("static constexpr")
    };
    s.descendants(f, K::InitDeclarator)
        .into_iter()
        .filter(|d| s.parent(*d).is_some_and(|p| is_const(s.text(p))))
        .filter_map(|d| {
            let name = d
                .field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x))?;
            let v = d.field(F::Value).and_then(|v| int_value(s.text(v)));
            Some((name, v))
        })
        .collect()
}

/// The names function `f` gives as the size of a cooperative-groups tile:
/// `tiled_partition<GROUP_SIZE>(block)`, `thread_block_tile<TILE> g` (a parameter too),
/// `tiled_partition(block, TILE)`.
pub(super) fn tile_sizes<'a>(s: &Src<'a>, f: Node<'a>) -> HashSet<&'a str> {
    let mut out = HashSet::new();
    let ident = |t: &'a str| {
        let t = t.trim();
        (!t.is_empty()
            && t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !t.as_bytes()[0].is_ascii_digit())
        .then_some(t)
    };
    for a in s.descendants(f, K::TemplateArgumentList) {
        let owner = s
            .parent(a)
            .and_then(|p| p.field(F::Name))
            .map_or("", |n| s.text(n));
        if !matches!(owner, "tiled_partition" | "thread_block_tile") {
            continue;
        }
        let first = a.named_children(&mut a.walk()).next();
        if let Some(t) = first.and_then(|x| ident(s.text(x))) {
            out.insert(t);
        }
    }
    for c in s.descendants(f, K::CallExpression) {
        if call_name(s, c) != Some("tiled_partition") {
            continue;
        }
        if let Some(args) = c.field(F::Arguments) {
            let mut w = args.walk();
            let args: Vec<Node> = args.named_children(&mut w).collect();
            if let [_, size] = args.as_slice() {
                if let Some(t) = ident(s.text(*size)) {
                    out.insert(t);
                }
            }
        }
    }
    out
}
