//! tree-sitter for the inventory languages: one parser per language per worker thread, and the
//! small node helpers every inventory parser uses. A parse with ERROR nodes still yields its
//! good parts; the inventory never refuses a file for a syntax error.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::{Language, Node, Parser, Tree};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    Python,
    Bash,
    Yaml,
    CMake,
    Make,
}

impl Lang {
    fn language(self) -> Language {
        match self {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Bash => tree_sitter_bash::LANGUAGE.into(),
            Lang::Yaml => tree_sitter_yaml::LANGUAGE.into(),
            Lang::CMake => tree_sitter_cmake::LANGUAGE.into(),
            Lang::Make => tree_sitter_make::LANGUAGE.into(),
        }
    }
}

thread_local! {
    static PARSERS: RefCell<HashMap<Lang, Parser>> = RefCell::new(HashMap::new());
}

/// Parses `src` as `lang` with this thread's parser.
pub fn parse(lang: Lang, src: &[u8]) -> Option<Tree> {
    PARSERS.with(|cell| {
        let mut map = cell.borrow_mut();
        let parser = map.entry(lang).or_insert_with(|| {
            let mut p = Parser::new();
            p.set_language(&lang.language())
                .expect("grammar ABI is compatible with tree-sitter");
            p
        });
        let tree = parser.parse(src, None);
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

pub fn text<'s>(n: Node, src: &'s [u8]) -> &'s str {
    std::str::from_utf8(&src[n.byte_range()]).unwrap_or("")
}

pub fn range(n: Node) -> Range<usize> {
    n.byte_range()
}

/// Every node, pre-order.
pub fn each<'t>(root: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    crate::parse::visit(root, &mut |n| {
        f(n);
        true
    });
}

pub fn children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

pub fn named_children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}
