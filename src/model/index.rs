//! The per-file node index: one cursor walk over the tree buckets the nodes of the kinds the
//! hazard families register ([`NodeIndex::new`]), in pre-order, so a rule asks for its kinds
//! instead of walking the whole tree; it also keeps the function definitions (with their
//! nesting) and the children of very wide nodes, which make `enclosing_function` and
//! [`NodeIndex::parent`] cost the depth of a node rather than the size of the file
//! (tree-sitter's `Node::parent` descends from the root and scans each level's children: on a
//! 25 MB file whose root has 100 000 children that is quadratic). Nodes more than `DEEP`
//! levels below their innermost function (a 20 000-term `a + a + …`, templates nested 10 000
//! deep) keep their parent outright, so `parent` never descends more than `DEEP` levels: on
//! such shapes a descent per node was quadratic too. Ordinary code has no such node and pays
//! nothing for it.

use crate::kinds::cuda::{Kind as K, NodeExt};
use std::collections::HashMap;
use tree_sitter::{Node, Tree};

/// Nodes with at least this many children keep a child list for binary search.
const WIDE: u32 = 64;

/// Nodes deeper than this below their innermost function definition (or the root) keep their
/// parent in [`NodeIndex::deep`]: `parent` then descends at most this many levels.
const DEEP: u32 = 48;

/// A function definition in the index.
#[derive(Clone, Copy)]
pub struct Function<'t> {
    pub node: Node<'t>,
    /// `__global__` or `__device__`.
    pub device: bool,
    /// Index of the innermost function definition around this one.
    parent: Option<u32>,
}

/// The index of one tree. Built once per file; the families borrow it through [`super::syntax::Src`].
pub struct NodeIndex<'t> {
    /// Per kind (`Kind as usize`): the nodes of that kind in pre-order, with their pre-order
    /// numbers. Empty for kinds no family registered.
    buckets: Vec<Vec<(u32, Node<'t>)>>,
    registered: [bool; K::COUNT],
    functions: Vec<Function<'t>>,
    /// Children of nodes with at least [`WIDE`] children, by the parent's id.
    wide: HashMap<usize, Vec<Node<'t>>>,
    /// The parent of every node more than [`DEEP`] levels below its innermost function (or
    /// the root), by the node's id.
    deep: rustc_hash::FxHashMap<usize, Node<'t>>,
    root: Option<Node<'t>>,
}

impl<'t> NodeIndex<'t> {
    /// Walks `tree` once, keeping the nodes of the `kinds` asked for (function definitions are
    /// always kept). Without a tree the index is empty.
    pub fn new(src: &[u8], tree: Option<&'t Tree>, kinds: &[K]) -> NodeIndex<'t> {
        let mut registered = [false; K::COUNT];
        for k in kinds {
            registered[*k as usize] = true;
        }
        registered[K::FunctionDefinition as usize] = true;
        registered[K::Other as usize] = false;
        let mut ix = NodeIndex {
            buckets: (0..K::COUNT).map(|_| Vec::new()).collect(),
            registered,
            functions: Vec::new(),
            wide: HashMap::new(),
            deep: Default::default(),
            root: tree.map(|t| t.root_node()),
        };
        let Some(tree) = tree else {
            return ix;
        };
        let mut cursor = tree.walk();
        let mut side = tree.walk();
        let mut seq: u32 = 0;
        // Open function definitions (indices into `functions`) with their end bytes.
        let mut open: Vec<(u32, usize)> = Vec::new();
        // The ancestors of the current node (its parent last), and the depths of the function
        // definitions among them (innermost last).
        let mut path: Vec<Node<'t>> = Vec::new();
        let mut fn_depths: Vec<u32> = Vec::new();
        loop {
            let node = cursor.node();
            let kind = node.node_kind();
            let depth = path.len() as u32;
            while fn_depths.last().is_some_and(|&d| d >= depth) {
                fn_depths.pop();
            }
            if depth > fn_depths.last().map_or(0, |&d| d) + DEEP {
                if let Some(p) = path.last() {
                    ix.deep.insert(node.id(), *p);
                }
            }
            if ix.registered[kind as usize] {
                ix.buckets[kind as usize].push((seq, node));
            }
            if kind == K::FunctionDefinition {
                let start = node.start_byte();
                while open.last().is_some_and(|&(_, end)| end <= start) {
                    open.pop();
                }
                let device = super::syntax::qualified(src, node, "__global__")
                    || super::syntax::qualified(src, node, "__device__");
                ix.functions.push(Function {
                    node,
                    device,
                    parent: open.last().map(|&(i, _)| i),
                });
                open.push((ix.functions.len() as u32 - 1, node.end_byte()));
                fn_depths.push(depth);
            }
            if node.child_count() >= WIDE {
                let kids: Vec<Node<'t>> = node.children(&mut side).collect();
                ix.wide.insert(node.id(), kids);
            }
            seq += 1;
            if cursor.goto_first_child() {
                path.push(node);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return ix;
                }
                path.pop();
            }
        }
    }

    /// Whether the families registered `kind`.
    pub fn has(&self, kind: K) -> bool {
        self.registered[kind as usize]
    }

    /// Every node of a registered kind, in pre-order.
    #[cfg(test)]
    pub fn of_kind(&self, kind: K) -> impl Iterator<Item = Node<'t>> + '_ {
        debug_assert!(
            self.has(kind) || self.root.is_none(),
            "{kind:?} not registered: add it to the family's `KINDS`"
        );
        self.buckets[kind as usize].iter().map(|(_, n)| *n)
    }

    /// Every node of the registered `kinds`, merged in pre-order (the order of a tree walk).
    pub fn of_kinds(&self, kinds: &[K]) -> Vec<Node<'t>> {
        let mut v: Vec<(u32, Node<'t>)> = kinds
            .iter()
            .flat_map(|k| {
                debug_assert!(
                    self.has(*k) || self.root.is_none(),
                    "{k:?} not registered: add it to the family's `KINDS`"
                );
                self.buckets[*k as usize].iter().copied()
            })
            .collect();
        v.sort_unstable_by_key(|(seq, _)| *seq);
        v.into_iter().map(|(_, n)| n).collect()
    }

    /// Descendants of `n` (itself included) of a registered `kind`, in pre-order: the bucket's
    /// run of nodes that start inside `n`, less the ancestors of `n` that start where it does.
    pub fn descendants(&self, n: Node<'t>, kind: K) -> Vec<Node<'t>> {
        let bucket = &self.buckets[kind as usize];
        let (start, end) = (n.start_byte(), n.end_byte());
        let from = bucket.partition_point(|(_, x)| x.start_byte() < start);
        let mut out = Vec::new();
        for &(_, x) in &bucket[from..] {
            let xs = x.start_byte();
            if x.id() == n.id() {
                out.push(x);
                continue;
            }
            if xs >= end {
                break;
            }
            // A node that starts where `n` does and ends before it, with a width, lies inside
            // `n` (siblings do not overlap): only equal ranges and empty nodes need the tree.
            let inside = xs < x.end_byte() && x.end_byte() < end;
            if xs == start && !inside && !self.contains(n, x) {
                // An ancestor of `n` (or a node before it) that starts at the same byte.
                continue;
            }
            out.push(x);
        }
        out
    }

    /// Whether `x` (which starts where `n` does) is a proper descendant of `n`.
    fn contains(&self, n: Node<'t>, x: Node<'t>) -> bool {
        if x.end_byte() > n.end_byte() {
            return false;
        }
        let mut cur = n;
        while let Some(c) = self.child_toward(cur, x) {
            if c.id() == x.id() {
                return true;
            }
            cur = c;
        }
        false
    }

    /// The child of `cur` that is `n` or has `n` inside (`Node::child_with_descendant`), by
    /// binary search among the children of a wide node.
    fn child_toward(&self, cur: Node<'t>, n: Node<'t>) -> Option<Node<'t>> {
        let (s, e) = (n.start_byte(), n.end_byte());
        if s < e {
            if let Some(kids) = self.wide.get(&cur.id()) {
                // Siblings do not overlap: the one child starting at or before `s` whose range
                // holds `n`. Zero-width children at `s` sit before it; the search skips them.
                let i = kids.partition_point(|k| k.start_byte() <= s);
                if let Some(k) = i.checked_sub(1).map(|i| kids[i]) {
                    if k.id() == n.id() || e <= k.end_byte() {
                        return Some(k);
                    }
                }
            }
        }
        cur.child_with_descendant(n)
    }

    /// The parent of `n` (`Node::parent`), descending from the innermost indexed function
    /// around it, or from the root, through the children of wide nodes by binary search.
    pub fn parent(&self, n: Node<'t>) -> Option<Node<'t>> {
        let root = self.root?;
        if n.id() == root.id() {
            return None;
        }
        if let Some(p) = self.deep.get(&n.id()) {
            return Some(*p);
        }
        let mut cur = self.enclosing(n).map_or(root, |i| self.functions[i].node);
        loop {
            let next = self.child_toward(cur, n)?;
            if next.id() == n.id() {
                return Some(cur);
            }
            cur = next;
        }
    }

    /// The function definitions, in pre-order.
    pub fn functions(&self) -> &[Function<'t>] {
        &self.functions
    }

    /// Index of the innermost function definition around `n` (not `n` itself).
    pub fn enclosing(&self, n: Node) -> Option<usize> {
        let (s, e) = (n.start_byte(), n.end_byte());
        // The last function starting at or before `n`; if it does not hold `n`, only its
        // enclosing functions can.
        let i = self.functions.partition_point(|f| f.node.start_byte() <= s);
        let mut cand = i.checked_sub(1);
        while let Some(j) = cand {
            let f = &self.functions[j];
            if f.node.start_byte() <= s && e <= f.node.end_byte() && f.node.id() != n.id() {
                return Some(j);
            }
            cand = f.parent.map(|p| p as usize);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real-looking CUDA with the shapes that make ranges coincide: nested functions (a local
    /// struct's member), macros the grammar misreads (ERROR nodes), a file-level run of more than
    /// [`WIDE`] declarations, and statements that share their first byte with a child.
    fn source() -> String {
        let mut s = String::from(
            "#include <cuda_runtime.h>\n\
             #define CHECK(x) do { cudaError_t e = (x); if (e) return e; } while (0)\n\
             __device__ int lane() { return threadIdx.x % 32; }\n\
             __global__ void k(float *x, int n) {\n\
               struct Local { __device__ int f(int a) { return a + 1 + warpSize; } };\n\
               int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
               if (i < n) x[i] = __shfl_down_sync(0xffffffff, x[i], 16);\n\
               for (int o = 16; o > 0; o /= 2) x[i] += __shfl_xor_sync(~0u, x[i], o);\n\
             }\n\
             HOST_DEVICE inline float g(float v) { return v * 2; }\n\
             int main() { k<<<1, 32>>>(0, 1); CHECK(cudaDeviceSynchronize()) return 0; }\n",
        );
        for i in 0..80 {
            s.push_str(&format!("static const int c{i} = ({i} + 1) * 32;\n"));
        }
        s.push_str("void tail() { int q = c1 + c2; }\n");
        s
    }

    fn naive_descendants<'t>(n: Node<'t>, kind: K) -> Vec<Node<'t>> {
        let mut v = Vec::new();
        crate::parse::visit(n, &mut |x| {
            if x.node_kind() == kind {
                v.push(x);
            }
            true
        });
        v
    }

    /// Past [`DEEP`] levels the stored parents and the same-start shortcut of `descendants`
    /// answer what the tree does: a 300-term sum in a function, a type nested 200 deep outside.
    #[test]
    fn deep_nodes_agree_with_the_tree() {
        let src = format!(
            "__global__ void k(float *p) {{ float v = {}; }}\nx {}b{};\n",
            vec!["p[0]"; 300].join("+"),
            "a<".repeat(200),
            ">".repeat(200)
        );
        let tree = crate::parse::parse(src.as_bytes()).unwrap();
        let kinds = crate::rules::hazards::kinds();
        let ix = NodeIndex::new(src.as_bytes(), Some(&tree), &kinds);
        assert!(ix.deep.len() > 300, "{} deep nodes", ix.deep.len());
        let mut all = Vec::new();
        crate::parse::visit(tree.root_node(), &mut |n| {
            all.push(n);
            true
        });
        for n in &all {
            assert_eq!(ix.parent(*n).map(|p| p.id()), n.parent().map(|p| p.id()));
        }
        for n in all.iter().step_by(7) {
            let a: Vec<usize> = ix
                .descendants(*n, K::BinaryExpression)
                .iter()
                .map(|x| x.id())
                .collect();
            let b: Vec<usize> = naive_descendants(*n, K::BinaryExpression)
                .iter()
                .map(|x| x.id())
                .collect();
            assert_eq!(a, b, "under {} at {}", n.kind(), n.start_byte());
        }
    }

    /// The index answers exactly what tree walks and `Node::parent` answer, for every node.
    #[test]
    fn index_agrees_with_tree_walks_on_every_node() {
        let src = source();
        let tree = crate::parse::parse(src.as_bytes()).unwrap();
        let kinds = crate::rules::hazards::kinds();
        let ix = NodeIndex::new(src.as_bytes(), Some(&tree), &kinds);
        assert!(!ix.wide.is_empty(), "the file has a wide node");
        let mut all = Vec::new();
        crate::parse::visit(tree.root_node(), &mut |n| {
            all.push(n);
            true
        });
        let funcs: Vec<Node> = all
            .iter()
            .copied()
            .filter(|n| n.node_kind() == K::FunctionDefinition)
            .collect();
        assert_eq!(funcs.len(), ix.functions().len());
        for k in &kinds {
            let expect: Vec<usize> = naive_descendants(tree.root_node(), *k)
                .iter()
                .map(|n| n.id())
                .collect();
            let got: Vec<usize> = ix.of_kind(*k).map(|n| n.id()).collect();
            assert_eq!(got, expect, "{k:?}");
        }
        let merged: Vec<usize> = ix
            .of_kinds(&[K::CallExpression, K::Identifier])
            .iter()
            .map(|n| n.id())
            .collect();
        let walk: Vec<usize> = all
            .iter()
            .filter(|n| matches!(n.node_kind(), K::CallExpression | K::Identifier))
            .map(|n| n.id())
            .collect();
        assert_eq!(merged, walk, "pre-order merge");
        for n in &all {
            assert_eq!(
                ix.parent(*n).map(|p| p.id()),
                n.parent().map(|p| p.id()),
                "parent of {} at {}",
                n.kind(),
                n.start_byte()
            );
            let naive = funcs
                .iter()
                .rev()
                .find(|f| {
                    f.start_byte() <= n.start_byte()
                        && n.end_byte() <= f.end_byte()
                        && f.id() != n.id()
                })
                .map(|f| f.id());
            assert_eq!(ix.enclosing(*n).map(|i| ix.functions()[i].node.id()), naive);
            for k in [K::Identifier, K::CallExpression, K::BinaryExpression] {
                let a: Vec<usize> = ix.descendants(*n, k).iter().map(|x| x.id()).collect();
                let b: Vec<usize> = naive_descendants(*n, k).iter().map(|x| x.id()).collect();
                assert_eq!(a, b, "{k:?} under {} at {}", n.kind(), n.start_byte());
            }
        }
    }
}
