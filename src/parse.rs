//! tree-sitter parsing: one parser per worker thread, a work limit, and parse health.
//!
//! tree-sitter-cuda parses most real CUDA cleanly, but the preprocessor defeats any grammar
//! (see grammars/NOTES.md), so a parse with errors is reported, never a reason to skip a file.

use crate::finding::Position;
use crate::lines::LineIndex;
use serde::Serialize;
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{Language, Node, ParseOptions, Parser, Tree};

/// tree-sitter calls the progress callback once per 100 parse operations. A parse that needs
/// more than [`PARSE_STEP_FLOOR`] + (file bytes / [`PARSE_BYTES_PER_STEP`]) calls is abandoned
/// (the file is still translated by the lexer, and `scan` says which rules did not run), so
/// whether a file parses depends on the file alone, never on how busy the machine is: a wall-time
/// limit made the same file lose its tree-based findings under load. Measured on 2026-12-01
/// (debug build): real CUDA needs at most 0.016 calls per byte (cuda-samples, flashinfer,
/// ginkgo: 2 025 files), the scaling shapes of `cargo xtask scaling` at most 0.097 (nested
/// `a<a<…b>…>`), so one call per 8 bytes leaves an 8× margin over real code.
pub const PARSE_BYTES_PER_STEP: u64 = 8;
/// The calls every file may use whatever its size.
pub const PARSE_STEP_FLOOR: u64 = 20_000;
/// A backstop for a parse that would hang between progress calls; the step limit above is what
/// decides in practice (the slowest step measured, 0.4 ms, puts the step limit of a 10 MB file
/// near 8 minutes of a debug build, 1 of a release build).
pub const PARSE_TIME_LIMIT: Duration = Duration::from_secs(600);

/// The progress calls a file of `len` bytes may use.
pub fn step_limit(len: usize) -> u64 {
    PARSE_STEP_FLOOR + len as u64 / PARSE_BYTES_PER_STEP
}

pub fn language() -> Language {
    tree_sitter_cuda::LANGUAGE.into()
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

thread_local! {
    static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has parsed a file: a counter for the test that each command
/// parses a file once.
pub fn parse_count() -> usize {
    PARSES.with(|c| c.get())
}

/// Parses `src` with this thread's parser. `None` when the work limit ([`step_limit`]) or the
/// time backstop stopped the parse.
/// NUL bytes are read as blanks (tree-sitter's lexers take NUL for the end of input); byte
/// offsets are unchanged.
pub fn parse(src: &[u8]) -> Option<Tree> {
    parse_limited(src, step_limit(src.len()))
}

/// [`parse`] with an explicit step limit.
pub(crate) fn parse_limited(src: &[u8], limit: u64) -> Option<Tree> {
    PARSES.with(|c| c.set(c.get() + 1));
    let clean;
    let src = if memchr::memchr(0, src).is_some() {
        clean = src
            .iter()
            .map(|&b| if b == 0 { b' ' } else { b })
            .collect::<Vec<u8>>();
        &clean[..]
    } else {
        src
    };
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = slot.get_or_insert_with(|| {
            let mut p = Parser::new();
            p.set_language(&language())
                .expect("tree-sitter-cuda is ABI-compatible with tree-sitter");
            p
        });
        let start = Instant::now();
        let mut steps = 0u64;
        let mut guard = |_: &tree_sitter::ParseState| {
            steps += 1;
            if steps > limit || start.elapsed() > PARSE_TIME_LIMIT {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let opts = ParseOptions::new().progress_callback(&mut guard);
        let len = src.len();
        let tree = parser.parse_with_options(
            &mut |i, _| if i < len { &src[i..] } else { &[] },
            None,
            Some(opts),
        );
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

/// Queries from `grammars/queries/`, compiled once per run.
pub mod queries {
    use std::sync::OnceLock;
    use tree_sitter::Query;

    pub const KERNEL_LAUNCHES: &str = include_str!("../grammars/queries/kernel-launches.scm");

    fn compile(cell: &'static OnceLock<Query>, text: &str) -> &'static Query {
        cell.get_or_init(|| {
            Query::new(&super::language(), text).expect("embedded queries compile (tested)")
        })
    }

    pub fn kernel_launches() -> &'static Query {
        static Q: OnceLock<Query> = OnceLock::new();
        compile(&Q, KERNEL_LAUNCHES)
    }
}

/// How well a file parsed: ERROR and MISSING node counts and the first one's position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Health {
    pub parsed: bool,
    /// A parse was attempted and abandoned at the work limit (the hazard rules did not run).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub abandoned: bool,
    pub errors: u32,
    pub missing: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_error: Option<Position>,
}

impl Health {
    pub fn clean(&self) -> bool {
        self.parsed && self.errors == 0 && self.missing == 0
    }
    pub fn describe(&self) -> String {
        if !self.parsed {
            return if self.abandoned {
                "not parsed (abandoned at the work limit)".into()
            } else {
                "not parsed".into()
            };
        }
        if self.clean() {
            return "clean".into();
        }
        let mut s = format!("{} error node(s), {} missing", self.errors, self.missing);
        if let Some(p) = self.first_error {
            s.push_str(&format!(", first at {}:{}", p.line, p.column));
        }
        s
    }
}

pub fn health(tree: Option<&Tree>, src: &[u8], lines: &LineIndex) -> Health {
    let Some(tree) = tree else {
        // Called only where a parse was wanted: no tree means it was abandoned.
        return Health {
            abandoned: true,
            ..Default::default()
        };
    };
    let mut h = Health {
        parsed: true,
        ..Default::default()
    };
    if !tree.root_node().has_error() {
        return h;
    }
    let mut first: Option<usize> = None;
    visit(tree.root_node(), &mut |n| {
        if n.is_error() || n.is_missing() {
            if n.is_error() {
                h.errors += 1;
            } else {
                h.missing += 1;
            }
            first = Some(first.map_or(n.start_byte(), |f| f.min(n.start_byte())));
            return false;
        }
        n.has_error()
    });
    h.first_error = first.map(|o| lines.position(src, o));
    h
}

/// Pre-order walk; `f` returns whether to descend into the node's children.
pub fn visit<'t>(root: Node<'t>, f: &mut impl FnMut(Node<'t>) -> bool) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if f(node) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_queries_compile_and_match() {
        use streaming_iterator::StreamingIterator;
        let src = b"__global__ void k() {}\nvoid f() { k<<<1, 2>>>(); }\n";
        let tree = parse(src).unwrap();
        let q = queries::kernel_launches();
        let mut c = tree_sitter::QueryCursor::new();
        let mut m = c.matches(q, tree.root_node(), &src[..]);
        let mut n = 0;
        while m.next().is_some() {
            n += 1;
        }
        assert_eq!(n, 1);
    }

    #[test]
    fn parses_cuda_and_reports_health() {
        let src = b"__global__ void k(float* x) { x[threadIdx.x] = 0; }\nint main() { k<<<1, 32>>>(0); }\n";
        let tree = parse(src).unwrap();
        let h = health(Some(&tree), src, &LineIndex::new(src));
        assert!(h.clean(), "{h:?}");
        let bad = b"int main( { k<<<1, 32>>>(0) }\n";
        let tree = parse(bad).unwrap();
        let h = health(Some(&tree), bad, &LineIndex::new(bad));
        assert!(!h.clean());
        assert!(h.first_error.is_some());
    }
}
