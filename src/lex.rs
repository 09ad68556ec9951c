//! A comment- and string-aware C/C++/CUDA lexer over raw bytes.
//!
//! It is the fast path of the translation engine (≈60× faster than a tree-sitter parse): it
//! finds every identifier in code, in every preprocessor branch and in macro bodies (which
//! tree-sitter keeps as opaque text), and never looks inside comments or string literals. It
//! never fails: malformed input (unterminated strings or comments) ends the token at the line
//! or file end.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident,
    Number,
    /// A string literal, with its prefix (`u8"…"`, `L"…"`), or a raw string `R"x(…)x"`.
    Str,
    Char,
    Comment,
    /// `<path>` after `#include`.
    HeaderName,
    /// One punctuation byte, or `::` / `->`.
    Punct,
    /// Any other byte (stray backslash, non-ASCII outside literals).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
    /// Index into `Lexed::directives` when the token is part of a preprocessor directive line.
    pub directive: u32,
}

pub const NO_DIRECTIVE: u32 = u32::MAX;

impl Token {
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
    pub fn text<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        &src[self.range()]
    }
    pub fn in_directive(&self) -> bool {
        self.directive != NO_DIRECTIVE
    }
}

/// One preprocessor directive line (with its continuations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// The directive name (`include`, `define`, `if`, …); empty for a null directive.
    pub name: String,
    /// Offset of the `#`.
    pub start: usize,
    /// Offset of the end of the line (before `\r\n` / `\n`).
    pub end: usize,
    /// Token index range of the tokens on the line, `#` included.
    pub tokens: std::ops::Range<usize>,
}

#[derive(Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub directives: Vec<Directive>,
}

impl Lexed {
    /// Tokens that are not comments.
    pub fn code_tokens(&self) -> impl Iterator<Item = (usize, &Token)> {
        self.tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind != Tok::Comment)
    }
    /// The index of the next non-comment token after `i`.
    pub fn next_code(&self, i: usize) -> Option<usize> {
        (i + 1..self.tokens.len()).find(|&j| self.tokens[j].kind != Tok::Comment)
    }
    /// The index of the previous non-comment token before `i`.
    pub fn prev_code(&self, i: usize) -> Option<usize> {
        (0..i).rev().find(|&j| self.tokens[j].kind != Tok::Comment)
    }
    /// How many identifier tokens spelled `name` start in the byte range `range` (macro bodies
    /// and arguments included): a variable named once in its function is never read there.
    pub fn idents_named(&self, src: &[u8], range: std::ops::Range<usize>, name: &[u8]) -> usize {
        let from = self
            .tokens
            .partition_point(|t| (t.start as usize) < range.start);
        self.tokens[from..]
            .iter()
            .take_while(|t| (t.start as usize) < range.end)
            .filter(|t| t.kind == Tok::Ident && t.text(src) == name)
            .count()
    }
    /// The index of the `#endif` that closes the conditional open at directive `from` (the
    /// directives from `from` on, nested conditionals skipped).
    pub fn closing_endif(&self, from: usize) -> Option<usize> {
        let mut depth = 0usize;
        for (k, d) in self.directives.iter().enumerate().skip(from) {
            match d.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" if depth == 0 => return Some(k),
                "endif" => depth -= 1,
                _ => {}
            }
        }
        None
    }
    /// The non-comment tokens of a directive line: `#`, its name, then the rest
    /// (`#` `define` `NAME` `(` …).
    pub fn directive_words(&self, d: &Directive) -> Vec<usize> {
        d.tokens
            .clone()
            .filter(|&j| self.tokens[j].kind != Tok::Comment)
            .collect()
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}
fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

thread_local! {
    static LEXES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has lexed a file: a counter for the test that each command
/// lexes a file once.
pub fn lex_count() -> usize {
    LEXES.with(|c| c.get())
}

pub fn lex(src: &[u8]) -> Lexed {
    LEXES.with(|c| c.set(c.get() + 1));
    Lexer {
        src,
        pos: 0,
        out: Lexed::default(),
        line_start: true,
        cur_dir: NO_DIRECTIVE,
        expect_header: false,
    }
    .run()
}

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    out: Lexed,
    /// Only whitespace (or comments) since the last newline.
    line_start: bool,
    cur_dir: u32,
    expect_header: bool,
}

impl<'a> Lexer<'a> {
    fn peek(&self, k: usize) -> u8 {
        *self.src.get(self.pos + k).unwrap_or(&0)
    }

    fn push(&mut self, kind: Tok, start: usize) {
        self.out.tokens.push(Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
            directive: self.cur_dir,
        });
    }

    fn end_directive(&mut self, at: usize) {
        if self.cur_dir != NO_DIRECTIVE {
            let d = &mut self.out.directives[self.cur_dir as usize];
            d.end = at;
            d.tokens.end = self.out.tokens.len();
            self.cur_dir = NO_DIRECTIVE;
        }
        self.expect_header = false;
    }

    fn run(mut self) -> Lexed {
        let src = self.src;
        let n = src.len();
        // A UTF-8 BOM is not a token.
        if src.starts_with(crate::lines::UTF8_BOM) {
            self.pos = 3;
        }
        while self.pos < n {
            let b = src[self.pos];
            match b {
                b'\n' => {
                    let end = if self.pos > 0 && src[self.pos - 1] == b'\r' {
                        self.pos - 1
                    } else {
                        self.pos
                    };
                    self.end_directive(end);
                    self.pos += 1;
                    self.line_start = true;
                }
                b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => self.pos += 1,
                b'\\' if self.peek(1) == b'\n' => self.pos += 2,
                b'\\' if self.peek(1) == b'\r' && self.peek(2) == b'\n' => self.pos += 3,
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'#' if self.line_start && self.cur_dir == NO_DIRECTIVE => self.directive_start(),
                b'"' => {
                    let s = self.pos;
                    self.quoted(b'"');
                    self.push(Tok::Str, s);
                    self.line_start = false;
                }
                b'\'' => {
                    let s = self.pos;
                    self.quoted(b'\'');
                    self.push(Tok::Char, s);
                    self.line_start = false;
                }
                b'<' if self.expect_header => {
                    let s = self.pos;
                    while self.pos < n && src[self.pos] != b'>' && src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                    if self.pos < n && src[self.pos] == b'>' {
                        self.pos += 1;
                    }
                    self.push(Tok::HeaderName, s);
                    self.expect_header = false;
                }
                _ if b.is_ascii_digit() || (b == b'.' && self.peek(1).is_ascii_digit()) => {
                    self.number()
                }
                _ if is_ident_start(b) => self.ident(),
                b':' if self.peek(1) == b':' => {
                    let s = self.pos;
                    self.pos += 2;
                    self.push(Tok::Punct, s);
                    self.line_start = false;
                }
                b'-' if self.peek(1) == b'>' => {
                    let s = self.pos;
                    self.pos += 2;
                    self.push(Tok::Punct, s);
                    self.line_start = false;
                }
                _ if b.is_ascii_punctuation() => {
                    let s = self.pos;
                    self.pos += 1;
                    self.push(Tok::Punct, s);
                    self.line_start = false;
                    self.expect_header = false;
                }
                _ => {
                    let s = self.pos;
                    self.pos += 1;
                    self.push(Tok::Other, s);
                    self.line_start = false;
                }
            }
        }
        self.end_directive(n);
        self.out
    }

    fn line_comment(&mut self) {
        let s = self.pos;
        let src = self.src;
        while self.pos < src.len() {
            match src[self.pos] {
                b'\n' => {
                    // A backslash before the newline continues the comment.
                    let mut k = self.pos;
                    if k > s && src[k - 1] == b'\r' {
                        k -= 1;
                    }
                    if k > s && src[k - 1] == b'\\' {
                        self.pos += 1;
                        continue;
                    }
                    break;
                }
                _ => self.pos += 1,
            }
        }
        let mut end = self.pos;
        if end > s && src[end - 1] == b'\r' {
            end -= 1;
        }
        let save = self.pos;
        self.pos = end;
        self.push(Tok::Comment, s);
        self.pos = save;
    }

    fn block_comment(&mut self) {
        let s = self.pos;
        self.pos += 2;
        match memchr::memmem::find(&self.src[self.pos..], b"*/") {
            Some(i) => self.pos += i + 2,
            None => self.pos = self.src.len(),
        }
        self.push(Tok::Comment, s);
    }

    fn directive_start(&mut self) {
        let s = self.pos;
        let idx = self.out.directives.len() as u32;
        self.cur_dir = idx;
        self.pos += 1;
        self.push(Tok::Punct, s);
        // The directive name follows after optional blanks.
        let mut p = self.pos;
        while p < self.src.len() && (self.src[p] == b' ' || self.src[p] == b'\t') {
            p += 1;
        }
        let name_start = p;
        while p < self.src.len() && is_ident_continue(self.src[p]) {
            p += 1;
        }
        let name = String::from_utf8_lossy(&self.src[name_start..p]).into_owned();
        self.expect_header = matches!(name.as_str(), "include" | "include_next" | "import");
        self.out.directives.push(Directive {
            name,
            start: s,
            end: s,
            tokens: self.out.tokens.len() - 1..self.out.tokens.len(),
        });
        self.line_start = false;
        if self.expect_header {
            // Lex the name itself now so `<` after it is a header name.
            self.pos = name_start;
            self.ident_plain();
            self.expect_header = true;
        }
    }

    fn quoted(&mut self, q: u8) {
        let src = self.src;
        self.pos += 1;
        while self.pos < src.len() {
            match src[self.pos] {
                // An escape, or a line continuation (`\` before LF or CRLF).
                b'\\'
                    if src.get(self.pos + 1) == Some(&b'\r')
                        && src.get(self.pos + 2) == Some(&b'\n') =>
                {
                    self.pos += 3
                }
                b'\\' => self.pos += 2,
                b'\n' => return,
                c if c == q => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(src.len());
    }

    fn number(&mut self) {
        let s = self.pos;
        let src = self.src;
        self.pos += 1;
        while self.pos < src.len() {
            let c = src[self.pos];
            let exponent_sign =
                (c == b'+' || c == b'-') && matches!(src[self.pos - 1], b'e' | b'E' | b'p' | b'P');
            let digit_separator = c == b'\'' && self.peek(1).is_ascii_alphanumeric();
            if exponent_sign
                || digit_separator
                || c.is_ascii_alphanumeric()
                || c == b'_'
                || c == b'.'
            {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.push(Tok::Number, s);
        self.line_start = false;
    }

    fn ident_plain(&mut self) {
        let s = self.pos;
        while self.pos < self.src.len() && is_ident_continue(self.src[self.pos]) {
            self.pos += 1;
        }
        self.push(Tok::Ident, s);
    }

    fn ident(&mut self) {
        let s = self.pos;
        while self.pos < self.src.len() && is_ident_continue(self.src[self.pos]) {
            self.pos += 1;
        }
        let word = &self.src[s..self.pos];
        let next = self.peek(0);
        self.line_start = false;
        self.expect_header = false;
        if next == b'"' && matches!(word, b"R" | b"u8R" | b"uR" | b"UR" | b"LR") {
            self.raw_string(s);
            return;
        }
        if (next == b'"' || next == b'\'') && matches!(word, b"u8" | b"u" | b"U" | b"L") {
            self.quoted(next);
            self.push(if next == b'"' { Tok::Str } else { Tok::Char }, s);
            return;
        }
        self.push(Tok::Ident, s);
    }

    fn raw_string(&mut self, s: usize) {
        let src = self.src;
        // At the opening quote: R"delim( ... )delim"
        let dstart = self.pos + 1;
        let mut p = dstart;
        while p < src.len() && p - dstart <= 16 && !matches!(src[p], b'(' | b'"' | b'\n') {
            p += 1;
        }
        if p >= src.len() || src[p] != b'(' {
            // Not a raw string after all: lex as an ordinary string.
            self.quoted(b'"');
            self.push(Tok::Str, s);
            return;
        }
        let mut close = Vec::with_capacity(p - dstart + 2);
        close.push(b')');
        close.extend_from_slice(&src[dstart..p]);
        close.push(b'"');
        match memchr::memmem::find(&src[p + 1..], &close) {
            Some(i) => self.pos = p + 1 + i + close.len(),
            None => self.pos = src.len(),
        }
        self.push(Tok::Str, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, String)> {
        let l = lex(src.as_bytes());
        l.tokens
            .iter()
            .map(|t| {
                (
                    t.kind,
                    String::from_utf8_lossy(t.text(src.as_bytes())).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn comments_and_strings_hide_identifiers() {
        let src = "cudaMalloc(&p, n); // cudaFree\n/* cudaMemcpy */ s = \"cudaMalloc failed\";";
        let idents: Vec<String> = kinds(src)
            .into_iter()
            .filter(|(k, _)| *k == Tok::Ident)
            .map(|(_, s)| s)
            .collect();
        assert_eq!(idents, ["cudaMalloc", "p", "n", "s"]);
    }

    #[test]
    fn raw_strings_char_literals_and_digit_separators() {
        let src = "auto k = R\"(cudaMalloc \" x)\"; char c = '\"'; int n = 1'000'000; f(cudaFree);";
        let idents: Vec<String> = kinds(src)
            .into_iter()
            .filter(|(k, _)| *k == Tok::Ident)
            .map(|(_, s)| s)
            .collect();
        assert_eq!(
            idents,
            ["auto", "k", "char", "c", "int", "n", "f", "cudaFree"]
        );
    }

    #[test]
    fn directives_and_header_names() {
        let src = "#include <cuda_runtime.h>\n  # include \"cublas_v2.h\"\n#define CHECK(x) \\\n  cudaGetErrorString(x)\nint y;";
        let l = lex(src.as_bytes());
        assert_eq!(l.directives.len(), 3);
        assert_eq!(l.directives[0].name, "include");
        assert_eq!(l.directives[2].name, "define");
        let hdr = l.tokens.iter().find(|t| t.kind == Tok::HeaderName).unwrap();
        assert_eq!(hdr.text(src.as_bytes()), b"<cuda_runtime.h>");
        let g = l
            .tokens
            .iter()
            .find(|t| t.text(src.as_bytes()) == b"cudaGetErrorString")
            .unwrap();
        assert_eq!(g.directive, 2, "continuation lines belong to the directive");
        let y = l
            .tokens
            .iter()
            .find(|t| t.text(src.as_bytes()) == b"y")
            .unwrap();
        assert!(!y.in_directive());
    }

    #[test]
    fn less_than_outside_include_is_punct() {
        let src = "if (a < b) k<<<1, 2>>>(x);";
        assert!(kinds(src).iter().all(|(k, _)| *k != Tok::HeaderName));
    }

    #[test]
    fn unterminated_things_do_not_hang() {
        for src in ["\"abc", "/* abc", "'x", "R\"x(abc", "#include <abc", "a\\"] {
            let _ = lex(src.as_bytes());
        }
    }

    #[test]
    fn string_continues_after_backslash_crlf() {
        let src = "s = \"a \\\r\ncudaFree b\";\r\nc;";
        let idents: Vec<String> = kinds(src)
            .into_iter()
            .filter(|(k, _)| *k == Tok::Ident)
            .map(|(_, s)| s)
            .collect();
        assert_eq!(idents, ["s", "c"]);
    }

    #[test]
    fn line_comment_continues_after_backslash() {
        let src = "// a \\\n cudaFree(x);\nb";
        let idents: Vec<String> = kinds(src)
            .into_iter()
            .filter(|(k, _)| *k == Tok::Ident)
            .map(|(_, s)| s)
            .collect();
        assert_eq!(idents, ["b"]);
    }
}
