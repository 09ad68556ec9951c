//! A YAML document as a small tree of maps, sequences and strings with their byte ranges
//! (through tree-sitter-yaml), for the readers that need structure rather than key paths: the
//! GitHub Actions model ([`super::gha`]) walks jobs, matrices and steps with it.

use super::ts::{self, Lang};
use crate::kinds::yaml::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// A YAML value with the byte range it covers.
#[derive(Clone, Debug)]
pub(crate) enum Y {
    Map(Vec<(String, Y)>, Range<usize>),
    Seq(Vec<Y>, Range<usize>),
    Str(String, Range<usize>),
    Null,
}

impl Y {
    pub fn get(&self, key: &str) -> Option<&Y> {
        match self {
            Y::Map(kv, _) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn str(&self) -> Option<&str> {
        match self {
            Y::Str(s, _) => Some(s),
            _ => None,
        }
    }
    pub fn range(&self) -> Range<usize> {
        match self {
            Y::Map(_, r) | Y::Seq(_, r) | Y::Str(_, r) => r.clone(),
            Y::Null => 0..0,
        }
    }
    pub fn items(&self) -> &[Y] {
        match self {
            Y::Seq(v, _) => v,
            _ => &[],
        }
    }
    pub fn pairs(&self) -> &[(String, Y)] {
        match self {
            Y::Map(v, _) => v,
            _ => &[],
        }
    }
}

pub(crate) fn scalar(n: Node, src: &[u8]) -> Option<(String, Range<usize>)> {
    match n.node_kind() {
        K::PlainScalar => Some((ts::text(n, src).trim().to_string(), n.byte_range())),
        K::DoubleQuoteScalar | K::SingleQuoteScalar => {
            let t = ts::text(n, src);
            let r = n.byte_range();
            Some((
                t.get(1..t.len().saturating_sub(1))
                    .unwrap_or("")
                    .to_string(),
                r.start + 1..r.end.saturating_sub(1).max(r.start + 1),
            ))
        }
        K::BlockScalar => {
            let t = ts::text(n, src);
            let nl = t.find('\n').map_or(t.len(), |i| i + 1);
            let r = n.byte_range();
            Some((t[nl..].to_string(), r.start + nl..r.end))
        }
        _ => None,
    }
}

fn value(n: Node, src: &[u8], depth: usize) -> Y {
    if depth > 64 {
        return Y::Null;
    }
    if let Some((t, r)) = scalar(n, src) {
        return Y::Str(t, r);
    }
    let kids: Vec<Node> = ts::named_children(n)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect();
    match n.node_kind() {
        K::BlockSequence | K::FlowSequence => {
            let items = kids
                .iter()
                .filter_map(|item| {
                    if item.node_kind() == K::BlockSequenceItem {
                        item.named_child(0)
                    } else {
                        Some(*item)
                    }
                })
                .map(|c| value(c, src, depth + 1))
                .collect();
            Y::Seq(items, n.byte_range())
        }
        _ if kids
            .iter()
            .any(|c| matches!(c.node_kind(), K::BlockMappingPair | K::FlowPair)) =>
        {
            let pairs = kids
                .iter()
                .filter(|c| matches!(c.node_kind(), K::BlockMappingPair | K::FlowPair))
                .filter_map(|p| {
                    let key = p.field(F::Key).and_then(|k| {
                        let k = if k.named_child_count() == 1 {
                            k.named_child(0)?
                        } else {
                            k
                        };
                        scalar(k, src)
                    })?;
                    let v = p
                        .field(F::Value)
                        .map_or(Y::Null, |v| value(v, src, depth + 1));
                    Some((key.0, v))
                })
                .collect();
            Y::Map(pairs, n.byte_range())
        }
        _ => match kids.as_slice() {
            [one] => value(*one, src, depth + 1),
            _ => Y::Null,
        },
    }
}

/// The YAML document of `src` as a [`Y`] tree.
pub(crate) fn tree(src: &[u8]) -> Option<Y> {
    let t = ts::parse(Lang::Yaml, src)?;
    Some(value(t.root_node(), src, 0))
}
