//! Function definitions read from tokens alone, for the project model's pre-pass (which parses
//! nothing): a `{` whose head is `name(…)`, with `const`, `noexcept`, `override` or `final`
//! between, is the body of function `name`. Blocks of control statements (`if (…) {`) and
//! other `(…) {` heads (`__attribute__((…)) {`, a lambda `[&](…) {`) are told apart, so a reader
//! can look through a statement's block to the function around it.

use crate::lex::{Lexed, Tok, NO_DIRECTIVE};

/// Statement heads written `keyword (…) {`: their block is inside a function, not one.
const CONTROL: [&[u8]; 5] = [b"if", b"for", b"while", b"switch", b"catch"];

/// Other names before `(…) {` that never name a function definition.
const NOT_FUNCTIONS: [&[u8]; 7] = [
    b"return",
    b"sizeof",
    b"decltype",
    b"alignas",
    b"__attribute__",
    b"__launch_bounds__",
    b"defined",
];

/// Whether a name before `(` is a keyword of a statement or an operator (`if`, `sizeof`), never
/// a function's name.
pub fn keyword_head(name: &[u8]) -> bool {
    CONTROL.contains(&name) || NOT_FUNCTIONS.contains(&name)
}

/// What a `{` opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// The body of the function named at this code position.
    Function(usize),
    /// A control statement's block.
    Control,
    /// Anything else (a class, namespace, initializer, lambda).
    Other,
}

/// A file's code tokens (no comments, nothing in directives) with their matching brackets.
pub struct Code<'a> {
    src: &'a [u8],
    lexed: &'a Lexed,
    /// Indices into the lexer's tokens.
    pub toks: Vec<usize>,
    /// The matching `(`/`)` or `{`/`}` of each position, if any.
    partner: Vec<Option<usize>>,
}

impl<'a> Code<'a> {
    pub fn of(src: &'a [u8], lexed: &'a Lexed) -> Self {
        let toks: Vec<usize> = (0..lexed.tokens.len())
            .filter(|&i| {
                lexed.tokens[i].kind != Tok::Comment && lexed.tokens[i].directive == NO_DIRECTIVE
            })
            .collect();
        let mut partner = vec![None; toks.len()];
        let (mut parens, mut braces) = (Vec::new(), Vec::new());
        for k in 0..toks.len() {
            let stack = match lexed.tokens[toks[k]].text(src) {
                b"(" | b")" => &mut parens,
                b"{" | b"}" => &mut braces,
                _ => continue,
            };
            match lexed.tokens[toks[k]].text(src) {
                b"(" | b"{" => stack.push(k),
                _ => {
                    if let Some(o) = stack.pop() {
                        partner[k] = Some(o);
                        partner[o] = Some(k);
                    }
                }
            }
        }
        Code {
            src,
            lexed,
            toks,
            partner,
        }
    }

    /// The text of code position `k`.
    pub fn t(&self, k: usize) -> &'a [u8] {
        self.lexed.tokens[self.toks[k]].text(self.src)
    }

    /// Whether code position `k` is an identifier.
    pub fn ident(&self, k: usize) -> bool {
        self.lexed.tokens[self.toks[k]].kind == Tok::Ident
    }

    /// The `}` closing the `{` at `k`.
    pub fn close(&self, k: usize) -> Option<usize> {
        self.partner[k]
    }

    /// What the `{` at code position `k` opens.
    pub fn block(&self, k: usize) -> Block {
        let mut p = k;
        while p > 0
            && matches!(
                self.t(p - 1),
                b"const" | b"noexcept" | b"override" | b"final"
            )
        {
            p -= 1;
        }
        if p == 0 || self.t(p - 1) != b")" {
            return Block::Other;
        }
        let Some(open) = self.partner[p - 1].filter(|&o| o > 0) else {
            return Block::Other;
        };
        let name = self.t(open - 1);
        if CONTROL.contains(&name) {
            Block::Control
        } else if self.ident(open - 1) && !NOT_FUNCTIONS.contains(&name) {
            Block::Function(open - 1)
        } else {
            Block::Other
        }
    }

    /// The function around code position `k`: the innermost enclosing `{` that is not a
    /// control statement's block, when it is a function body; `None` inside a class, a
    /// namespace's top level or a lambda.
    pub fn enclosing_function(&self, k: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in (0..k).rev() {
            match self.t(j) {
                b"}" => depth += 1,
                b"{" if depth > 0 => depth -= 1,
                b"{" => match self.block(j) {
                    Block::Control => {}
                    Block::Function(name) => return Some(name),
                    Block::Other => return None,
                },
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_enclosing_functions() {
        let src = b"struct S { int cc() const { if (x) { return a; } return b; } };\nauto f = [&](int y) { return y; };\n__attribute__((cold)) { z; }\n";
        let lexed = crate::lex::lex(src);
        let c = Code::of(src, &lexed);
        let at = |w: &[u8], n: usize| (0..c.toks.len()).filter(|&k| c.t(k) == w).nth(n).unwrap();
        // `return a` is in the `if` block, inside `cc`; `return y` is in a lambda.
        assert_eq!(
            c.enclosing_function(at(b"a", 0)).map(|k| c.t(k)),
            Some(&b"cc"[..])
        );
        assert_eq!(c.enclosing_function(at(b"y", 1)), None);
        let braces: Vec<Block> = (0..c.toks.len())
            .filter(|&k| c.t(k) == b"{")
            .map(|k| c.block(k))
            .collect();
        assert_eq!(
            braces,
            [
                Block::Other,
                Block::Function(at(b"cc", 0)),
                Block::Control,
                Block::Other,
                Block::Other
            ]
        );
    }
}
