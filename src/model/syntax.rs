//! Shared reading helpers for the hazard families: one view of a file (bytes, tokens, tree) and
//! small questions about it (the text of a node, the function around it, a call's name, the
//! value of a literal, the `#define`s of the file). The families decide; this module only reads.

use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::lex::{Lexed, Tok};
use crate::model::index::NodeIndex;
use crate::registry::FileCtx;
use tree_sitter::{Node, Tree};

/// The node kinds the shared helpers read from the index (declarations, for
/// [`typed_variables`] and [`ScopedTypes`]).
pub const KINDS: &[K] = &[K::Declaration, K::ParameterDeclaration, K::FieldDeclaration];

/// One file as the hazard rules see it.
pub struct Src<'a> {
    pub ctx: &'a FileCtx<'a>,
    pub lexed: &'a Lexed,
    pub tree: Option<&'a Tree>,
    /// The nodes of the kinds the families registered, and the functions, from one walk.
    index: &'a NodeIndex<'a>,
    /// The file as `str` when it is valid UTF-8 (validated once here, so the text of a node or
    /// token is a slice, not a fresh validation).
    utf8: Option<&'a str>,
    /// Per name asked to [`Src::mentions`]: the byte ranges of the identifiers spelled so, in
    /// order, from one walk of the tree.
    mentioned: std::cell::RefCell<std::collections::HashMap<&'static str, Vec<(usize, usize)>>>,
}

impl<'a> Src<'a> {
    pub fn new(
        ctx: &'a FileCtx<'a>,
        lexed: &'a Lexed,
        tree: Option<&'a Tree>,
        index: &'a NodeIndex<'a>,
    ) -> Self {
        Src {
            ctx,
            lexed,
            tree,
            index,
            utf8: std::str::from_utf8(ctx.src).ok(),
            mentioned: Default::default(),
        }
    }
    /// Whether an identifier (of any identifier-like kind, as [`identifiers`]) spelled `name`
    /// lies inside `n`: `identifiers(s, n).contains(&name)` without reading the subtree. The
    /// file's identifiers of that name are found by one walk, then each question is a binary
    /// search (an identifier is a leaf with a width, so it is inside `n` when its range is):
    /// asked of every `/ 32` in `t / 32 / 32 …`, reading each subtree was quadratic.
    pub fn mentions(&self, n: Node, name: &'static str) -> bool {
        let mut cache = self.mentioned.borrow_mut();
        let at = cache.entry(name).or_insert_with(|| {
            let mut v = Vec::new();
            if let Some(t) = self.tree {
                crate::parse::visit(t.root_node(), &mut |x| {
                    if crate::kinds::cuda_identifier_like(x.kind_id()) && self.text(x) == name {
                        v.push((x.start_byte(), x.end_byte()));
                    }
                    true
                });
            }
            v
        });
        let (start, end) = (n.start_byte(), n.end_byte());
        let i = at.partition_point(|h| h.0 < start);
        at[i..].iter().take_while(|h| h.0 < end).any(|h| h.1 <= end)
    }
    /// The innermost function definition around `n` (by byte range; `Node::parent` walks
    /// from the root each time, which is quadratic over a file).
    pub fn enclosing_function(&self, n: Node) -> Option<Node<'a>> {
        self.index
            .enclosing(n)
            .map(|i| self.index.functions()[i].node)
    }
    /// Whether code at `n` runs on the device: inside a `__global__` or `__device__` function.
    pub fn in_device_code(&self, n: Node) -> bool {
        self.index
            .enclosing(n)
            .is_some_and(|i| self.index.functions()[i].device)
    }
    /// The parent of `n`, in time proportional to its depth (`Node::parent` scans from the
    /// root).
    pub fn parent(&self, n: Node<'a>) -> Option<Node<'a>> {
        self.index.parent(n)
    }
    /// Descendants of `n` (itself included) of kind `kind`, in pre-order, read from the index
    /// when a family registered the kind.
    pub fn descendants(&self, n: Node<'a>, kind: K) -> Vec<Node<'a>> {
        if self.index.has(kind) {
            return self.index.descendants(n, kind);
        }
        debug_assert!(
            false,
            "{kind:?} is not registered: add it to the family's `KINDS` (see hazards::kinds)"
        );
        descendants(n, kind)
    }
    /// Every node of the `kinds`, merged in pre-order (each kind registered).
    pub fn of_kinds(&self, kinds: &[K]) -> Vec<Node<'a>> {
        self.index.of_kinds(kinds)
    }
    pub fn bytes(&self) -> &'a [u8] {
        self.ctx.src
    }
    pub fn text(&self, n: Node) -> &'a str {
        self.slice(n.byte_range())
    }
    pub fn tok(&self, i: usize) -> &'a str {
        self.slice(self.lexed.tokens[i].range())
    }
    /// The text of a byte range, "" when it is not valid UTF-8 (a range that splits a
    /// character is not).
    fn slice(&self, r: std::ops::Range<usize>) -> &'a str {
        match self.utf8 {
            Some(s) => s.get(r).unwrap_or(""),
            None => std::str::from_utf8(&self.ctx.src[r]).unwrap_or(""),
        }
    }
    /// 0-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.ctx.lines.line_of(offset)
    }
    /// Indices of code identifier tokens (outside comments and strings).
    pub fn idents(&self) -> impl Iterator<Item = (usize, &'a str)> + '_ {
        self.lexed
            .tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind == Tok::Ident)
            .map(|(i, _)| (i, self.tok(i)))
    }
    /// The text of the next code token after `i`, or "".
    pub fn next_text(&self, i: usize) -> &'a str {
        self.lexed.next_code(i).map_or("", |j| self.tok(j))
    }
    pub fn prev_text(&self, i: usize) -> &'a str {
        self.lexed.prev_code(i).map_or("", |j| self.tok(j))
    }
    /// The `#include` directives that name a header, each with the token naming it and the
    /// path without its quotes or brackets (`cublas.h` for `#include <cublas.h>`).
    pub fn includes(
        &self,
    ) -> impl Iterator<Item = (&'a crate::lex::Directive, usize, &'a str)> + '_ {
        self.lexed
            .directives
            .iter()
            .filter(|d| d.name == "include")
            .filter_map(move |d| {
                let j = d
                    .tokens
                    .clone()
                    .find(|&j| matches!(self.lexed.tokens[j].kind, Tok::HeaderName | Tok::Str))?;
                Some((
                    d,
                    j,
                    self.tok(j)
                        .trim_matches(|c| c == '<' || c == '>' || c == '"'),
                ))
            })
    }
    /// The range of a directive without trailing comments.
    pub fn directive_range(&self, d: &crate::lex::Directive) -> std::ops::Range<usize> {
        let end = d
            .tokens
            .clone()
            .rev()
            .find(|&j| self.lexed.tokens[j].kind != Tok::Comment)
            .map_or(d.end, |j| self.lexed.tokens[j].end as usize);
        d.start..end
    }
    /// `#define NAME value` lines without parameters: (name, value text, directive range).
    pub fn object_macros(&self) -> Vec<(&'a str, &'a str, std::ops::Range<usize>)> {
        let mut out = Vec::new();
        for d in &self.lexed.directives {
            if d.name != "define" {
                continue;
            }
            let toks: Vec<usize> = self.lexed.directive_words(d);
            // `#`, `define`, NAME, value…
            if toks.len() < 4 {
                continue;
            }
            let name = self.tok(toks[2]);
            let name_end = self.lexed.tokens[toks[2]].end as usize;
            if self.ctx.src.get(name_end) == Some(&b'(') {
                continue;
            }
            let vs = self.lexed.tokens[toks[3]].start as usize;
            let ve = self.lexed.tokens[*toks.last().unwrap()].end as usize;
            let value = std::str::from_utf8(&self.ctx.src[vs..ve]).unwrap_or("");
            out.push((name, value, d.start..ve));
        }
        out
    }
}

/// The name a function definition's declarator declares (`k`, `ns::k`, `S::operator()`).
pub fn function_name<'a>(s: &Src<'a>, mut d: Node<'a>) -> Option<&'a str> {
    loop {
        match d.node_kind() {
            K::Identifier | K::FieldIdentifier => return Some(s.text(d)),
            K::QualifiedIdentifier | K::TemplateFunction => d = d.field(F::Name)?,
            _ => d = d.field(F::Declarator)?,
        }
    }
}

/// The integer value of a C literal (`32`, `0x1F`, `32u`, `0xffffffffUL`, C++14's
/// `0xff'ff'ff'ffu`), ignoring suffixes and digit separators.
pub fn int_value(s: &str) -> Option<u64> {
    let s = s.trim().trim_start_matches('(').trim_end_matches(')');
    let joined;
    let s = if s.contains('\'') && !s.starts_with('\'') {
        joined = s.replace('\'', "");
        joined.as_str()
    } else {
        s
    };
    let t = s.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

/// A literal with a 64-bit suffix (`1ull`, `0xffffffffffffffffULL`).
pub fn is_wide_literal(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    l.ends_with("ll") || l.ends_with("llu") || l.ends_with("ul") || l.ends_with("lu")
}

/// The name a call expression calls: the last identifier of `f`, `ns::f`, `f<T>`, `obj.f`.
pub fn call_name<'a>(s: &Src<'a>, call: Node) -> Option<&'a str> {
    let mut f = call.field(F::Function)?;
    loop {
        match f.node_kind() {
            K::Identifier | K::FieldIdentifier => return Some(s.text(f)),
            K::QualifiedIdentifier | K::TemplateFunction | K::TemplateMethod => {
                f = f.field(F::Name)?
            }
            K::FieldExpression => f = f.field(F::Field)?,
            _ => return None,
        }
    }
}

/// The call's argument nodes (named children of its argument list).
pub fn call_args<'a>(call: Node<'a>) -> Vec<Node<'a>> {
    let Some(args) = call.field(F::Arguments) else {
        return Vec::new();
    };
    let mut c = args.walk();
    args.named_children(&mut c)
        .filter(|n| n.node_kind() != K::Comment)
        .collect()
}

/// Whether a call is a `<<<…>>>` launch.
pub fn is_launch(call: Node) -> bool {
    let mut c = call.walk();
    let found = call
        .children(&mut c)
        .any(|n| n.node_kind() == K::KernelCallSyntax);
    found
}

pub(crate) fn qualified(src: &[u8], func: Node, qual: &str) -> bool {
    let text = |n: Node| std::str::from_utf8(&src[n.byte_range()]).unwrap_or("");
    let qual_kind = K::named(qual);
    let mut c = func.walk();
    let found = func.children(&mut c).any(|n| {
        (qual_kind != K::Other && n.node_kind() == qual_kind)
            || (matches!(
                n.node_kind(),
                K::AttributeSpecifier | K::TypeQualifier | K::MsCallModifier
            ) && text(n) == qual)
    });
    found
}

/// Whether code at `n` runs on the device: inside a `__global__` or `__device__` function.
pub fn in_device_code(s: &Src, n: Node) -> bool {
    s.in_device_code(n)
}

/// Identifiers inside `n` (any identifier-like kind, since ERROR nodes change kinds).
pub fn identifiers<'a>(s: &Src<'a>, n: Node) -> Vec<&'a str> {
    let mut v = Vec::new();
    crate::parse::visit(n, &mut |x| {
        if crate::kinds::cuda_identifier_like(x.kind_id()) {
            v.push(s.text(x));
        }
        true
    });
    v
}

/// Descendants of `n` (itself included) of kind `kind`.
pub fn descendants<'a>(n: Node<'a>, kind: K) -> Vec<Node<'a>> {
    let mut v = Vec::new();
    crate::parse::visit(n, &mut |x| {
        if x.node_kind() == kind {
            v.push(x);
        }
        true
    });
    v
}

/// The declared name of a declarator (`x`, `*x`, `x[32]`, `x = …`).
pub fn declarator_name<'a>(s: &Src<'a>, mut d: Node) -> Option<&'a str> {
    loop {
        if d.node_kind() == K::Identifier || d.node_kind() == K::FieldIdentifier {
            return Some(s.text(d));
        }
        d = d.field(F::Declarator)?;
    }
}

/// Variables declared in `scope` with a type whose text satisfies `pred`: (name, type text).
pub fn typed_variables<'a>(s: &Src<'a>, scope: Node, pred: impl Fn(&str) -> bool) -> Vec<&'a str> {
    let mut out = Vec::new();
    for kind in [K::Declaration, K::ParameterDeclaration, K::FieldDeclaration] {
        for d in s.descendants(scope, kind) {
            let Some(ty) = d.field(F::Type) else {
                continue;
            };
            if !pred(s.text(ty)) {
                continue;
            }
            let mut c = d.walk();
            for decl in d.fields(F::Declarator, &mut c) {
                if let Some(name) = declarator_name(s, decl) {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// The declared types of a function's variables and parameters, each with the code its
/// declaration covers (the block, `for` statement or function it is declared in): a use
/// resolves to the innermost declaration before it whose scope contains it, so `t` declared
/// `__half2` in one block and `float2` in the next are two variables.
pub struct ScopedTypes<'a> {
    /// name → (declaration start, scope start, scope end, type text).
    decls: std::collections::HashMap<&'a str, Vec<(usize, usize, usize, &'a str)>>,
}

impl<'a> ScopedTypes<'a> {
    pub fn of(s: &Src<'a>, f: Node<'a>) -> ScopedTypes<'a> {
        let mut decls: std::collections::HashMap<&'a str, Vec<_>> =
            std::collections::HashMap::new();
        for kind in [K::ParameterDeclaration, K::Declaration] {
            for d in s.descendants(f, kind) {
                let Some(ty) = d.field(F::Type) else {
                    continue;
                };
                // Parameters cover the function; a declaration its block or `for`.
                let scope = if kind == K::ParameterDeclaration {
                    f
                } else {
                    let mut p = s.parent(d);
                    while let Some(x) = p {
                        if matches!(
                            x.node_kind(),
                            K::CompoundStatement | K::ForStatement | K::FunctionDefinition
                        ) {
                            break;
                        }
                        p = s.parent(x);
                    }
                    p.unwrap_or(f)
                };
                let mut c = d.walk();
                for decl in d.fields(F::Declarator, &mut c) {
                    if let Some(name) = declarator_name(s, decl) {
                        decls.entry(name).or_default().push((
                            d.start_byte(),
                            scope.start_byte(),
                            scope.end_byte(),
                            s.text(ty),
                        ));
                    }
                }
            }
        }
        ScopedTypes { decls }
    }

    /// The type of `name` as seen at byte `at`; `None` when the function does not declare it
    /// in a scope around `at`.
    pub fn type_at(&self, name: &str, at: usize) -> Option<&'a str> {
        self.decls
            .get(name)?
            .iter()
            .filter(|(d, st, en, _)| *d <= at && *st <= at && at < *en)
            .max_by_key(|(d, st, _, _)| (*st, *d))
            .map(|(_, _, _, ty)| *ty)
    }
}

/// Helpers for the rule modules' unit tests.
/// A mask written out that names every lane (the translator widens it, the logical-warp model
/// counts it full): `0xffffffff`, `~0u`, `0xFFFFFFFFU`, `uint32_t(-1)`, `-1`,
/// `(unsigned)-1`, `__activemask()`.
pub(crate) fn full_mask_literal(t: &str) -> bool {
    let raw: String = t
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    // A C cast keeps its parentheses: `(uint32_t)-1`, `(unsigned)-1`.
    if [
        "(uint32_t)-1",
        "(unsigned)-1",
        "(unsignedint)-1",
        "(uint)-1",
    ]
    .iter()
    .any(|c| raw == *c || raw == format!("({c})"))
    {
        return true;
    }
    let t = raw
        .trim_start_matches('(')
        .trim_end_matches(')')
        .to_string();
    let t = t.trim_end_matches(['u', 'l']);
    matches!(
        t,
        "0xffffffff" | "0xffffffffffffffff" | "~0" | "-1" | "~0x0"
    ) || [
        "uint32_t(-1",
        "(uint32_t)-1",
        "(unsigned)-1",
        "(unsignedint)-1",
        "unsigned(-1",
        "~uint32_t(0",
        "~(unsigned)0",
        "static_cast<uint32_t>(-1",
        "static_cast<unsigned>(-1",
        "static_cast<unsignedint>(-1",
    ]
    .iter()
    .any(|p| t.starts_with(p))
        || t == "__activemask("
}

#[cfg(test)]
pub mod test_support {
    use super::*;

    /// Runs `f` on a token-only [`Src`] of `src` (no tree): for the preprocessor models.
    pub fn with_tokens<R>(src: &str, f: impl FnOnce(&Src) -> R) -> R {
        let lexed = crate::lex::lex(src.as_bytes());
        let lines = crate::source::LineIndex::new(src.as_bytes());
        let ctx = crate::registry::FileCtx {
            path: "a.cu",
            src: src.as_bytes(),
            lines: &lines,
        };
        let index = crate::model::index::NodeIndex::new(ctx.src, None, &[]);
        f(&Src::new(&ctx, &lexed, None, &index))
    }

    /// Every hazard finding on `src` (as `t.cu`, parsed, default target), in line order.
    pub fn hazard_findings(src: &str) -> Vec<crate::finding::Finding> {
        hazard_findings_at("t.cu", src)
    }

    /// [`hazard_findings`] for a file at `path` (rules that read the extension).
    pub fn hazard_findings_at(path: &str, src: &str) -> Vec<crate::finding::Finding> {
        hazard_findings_for(path, src, crate::record::target::default_rocm())
    }

    /// The lines where `rule` fires on `src` (as `t.cu`) for the ROCm release `rocm`.
    pub fn fires_for(rocm: &str, src: &str, rule: &str) -> Vec<u32> {
        hazard_findings_for("t.cu", src, rocm.parse().expect("a release"))
            .into_iter()
            .filter(|f| f.rule == rule)
            .map(|f| f.line)
            .collect()
    }

    /// [`hazard_findings_at`] for the ROCm release `rocm`.
    pub fn hazard_findings_for(
        path: &str,
        src: &str,
        rocm: crate::version::Version,
    ) -> Vec<crate::finding::Finding> {
        let bytes = src.as_bytes();
        let lines = crate::source::LineIndex::new(bytes);
        let ctx = FileCtx {
            path,
            src: bytes,
            lines: &lines,
        };
        let tree = crate::parse::parse(bytes);
        let target = crate::mappings::Target {
            rocm,
            roc: false,
            experimental: false,
            lds: None,
        };
        crate::rules::hazards::check(&ctx, tree.as_ref(), &target)
    }

    /// Test helper: the (line, rule code) pairs the hazard rules raise on `src`.
    pub fn hazard_lines(src: &str) -> Vec<(u32, String)> {
        hazard_findings(src)
            .into_iter()
            .map(|f| (f.line, f.rule))
            .collect()
    }

    /// Test helper: the messages of `rule`'s findings on `src`, in line order.
    pub fn messages(src: &str, rule: &str) -> Vec<String> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == rule)
            .map(|f| f.message)
            .collect()
    }

    /// Test helper: the lines (1-based) where `rule` fires with a status other than PASS.
    pub fn fires_open(src: &str, rule: &str) -> Vec<u32> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == rule && f.status != crate::gate::Status::Pass)
            .map(|f| f.line)
            .collect()
    }

    /// Test helper: whether `rule` fires on each line (1-based) of `src`.
    pub fn fires(src: &str, rule: &str) -> Vec<u32> {
        hazard_lines(src)
            .into_iter()
            .filter(|(_, r)| r == rule)
            .map(|(l, _)| l)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_values() {
        assert_eq!(int_value("32"), Some(32));
        assert_eq!(int_value("0x1F"), Some(31));
        assert_eq!(int_value("0xffffffffu"), Some(0xffff_ffff));
        assert_eq!(int_value("32.0f"), None);
        // C++14 digit separators (FBGEMM's `0xff'ff'ff'ffu`); a character literal is no integer.
        assert_eq!(int_value("0xff'ff'ff'ffu"), Some(0xffff_ffff));
        assert_eq!(int_value("1'000"), Some(1000));
        assert_eq!(int_value("'a'"), None);
        assert!(is_wide_literal("1ull") && !is_wide_literal("1u"));
    }
}
