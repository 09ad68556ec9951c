//! Names a project defines itself that read like CUDA APIs. A library type with a member
//! `mulhi`, a helper `ctranslate2::cuda::cublasGetStatusName` written for an older cuBLAS, a
//! wrapper `mylib::cudaMalloc`: each is spelled like an entry of the CUDA tables, yet a use that
//! resolves to it calls the project's code, which the port must neither rename nor report as an
//! unported API. This module finds, from tokens only, the functions a file declares or defines
//! under such names (with the namespace or class they live in), and answers for one use in a
//! unit whether C++ lookup lands on the project's definition rather than on CUDA's.
//!
//! A use is the project's when it is:
//! - a member access (`a.f(…)`, `a->f(…)`) and the project declares a member function `f`;
//! - qualified by a scope the project defines `f` in (`mylib::f`, `cuda::f` inside
//!   `namespace ctranslate2`, `fast_int<T>::f`);
//! - unqualified inside a namespace or class that declares `f` (the inner declaration hides the
//!   global CUDA one);
//! - the declaration itself;
//! - a free function the project defines at file scope, in a unit that includes no CUDA header
//!   and is not a `.cu` file (nothing else could provide the name); so is an enumerator, an
//!   enum tag, a `typedef` name or an object macro the project declares (gdrcopy's
//!   `cuda_wrapper.h` declares the driver API it loads with `dlopen` instead of including
//!   `cuda.h`).
//!
//! Promises: definitions in a CUDA namespace (`namespace cub`, `namespace cuda`) and file-scope
//! declarations without a body (the project re-declaring CUDA's own function) are never the
//! project's; `#define cudaX hipX` porting aliases are not definitions here (they are the
//! project's ROCm layer, see [`super::project`]); a globally qualified `::cudaMalloc` is CUDA's.

use crate::lex::{Lexed, Tok};
use crate::translate::compat::NOT_A_TYPE;
use std::collections::HashMap;

/// A function a file declares or defines under a CUDA-API name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnDef {
    pub name: String,
    /// 1-based.
    pub line: u32,
    /// The enclosing namespaces and classes, `::`-joined (`""` at file scope).
    pub scope: String,
    /// Declared in a class body, or defined out of line through a qualifier (`T C::f() {}`).
    pub member: bool,
    /// Defined here (`{ … }`), not only declared.
    pub body: bool,
    /// How many arguments a call may pass: parameters without a default, and all of them
    /// (`f(unsigned m, T v, int w = 32)` → `(2, 3)`).
    pub arity: (usize, usize),
}

/// One file's definitions and, for every use of a CUDA-table name in its code, the scope the
/// use sits in (for unqualified lookup).
#[derive(Debug, Default)]
pub struct FileOwn {
    pub defs: Vec<OwnDef>,
    /// Token index of each definition's name.
    def_tokens: Vec<usize>,
    /// Byte offset of each definition's name.
    def_offsets: Vec<usize>,
    /// Token index → enclosing namespaces and classes (`::`-joined) of a CUDA-named token.
    scope_of: HashMap<usize, String>,
    /// The file includes a CUDA header (`<cuda_runtime.h>`, `<cublas_v2.h>`, …).
    pub cuda_headers: bool,
}

/// What a `{` opens.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Frame {
    /// A named namespace; anonymous namespaces and `extern "C"` add no name (`None`).
    Namespace(Option<String>),
    Class(String),
    /// An enumeration's body (`enum E {`, `typedef enum E_enum {`): its enumerators are names
    /// the project defines.
    Enum,
    /// A function body, an initializer, a lambda.
    Other,
}

/// Whether a lexed file `#include`s a header `cuda_header` accepts (the include table's CUDA
/// headers, as [`includes_a_cuda_header`] passes them).
pub fn includes_cuda_header(
    bytes: &[u8],
    lexed: &Lexed,
    cuda_header: &dyn Fn(&str) -> bool,
) -> bool {
    lexed.directives.iter().any(|d| {
        d.name == "include"
            && d.tokens.clone().any(|j| {
                let t = lexed.tokens[j];
                let raw = t.text(bytes);
                t.kind == Tok::HeaderName
                    && raw.len() > 2
                    && std::str::from_utf8(&raw[1..raw.len() - 1])
                        .is_ok_and(|p| cuda_header(p.trim()))
            })
    })
}

/// Whether a lexed file includes a header the tables of `m` know as CUDA's (`<cuda_runtime.h>`,
/// `<cub/cub.cuh>`, `<cuda/std/atomic>`, `<cublas_v2.h>`), at any target.
pub fn includes_a_cuda_header(bytes: &[u8], lexed: &Lexed, m: &crate::mappings::Mappings) -> bool {
    let any = crate::mappings::Target {
        rocm: m.newest,
        roc: false,
        experimental: false,
        lds: None,
    };
    includes_cuda_header(bytes, lexed, &|p| m.include(p, &any).is_some())
}

/// The definitions of a lexed file under names `knows` accepts (the CUDA tables' names);
/// `cuda_ns` tells a CUDA namespace segment (`cub`, `cuda`, `thrust`) apart from the project's;
/// `cuda_header` tells a CUDA header include path. One linear sweep over the code tokens.
pub fn sweep(
    bytes: &[u8],
    lexed: &Lexed,
    knows: &dyn Fn(&str) -> bool,
    cuda_ns: &dyn Fn(&str) -> bool,
    cuda_header: &dyn Fn(&str) -> bool,
) -> FileOwn {
    let mut out = FileOwn {
        cuda_headers: includes_cuda_header(bytes, lexed, cuda_header),
        ..FileOwn::default()
    };
    let code: Vec<usize> = lexed
        .code_tokens()
        .filter(|(_, t)| !t.in_directive())
        .map(|(i, _)| i)
        .collect();
    let text = |k: usize| lexed.tokens[code[k]].text(bytes);
    let kind = |k: usize| lexed.tokens[code[k]].kind;
    let mut stack: Vec<Frame> = Vec::new();
    // Per open brace: whether its declaration starts with `typedef`; and for the brace last
    // closed, the same (`typedef enum E_enum { … } CUresult;` names `CUresult` after it).
    let mut typedef_heads: Vec<bool> = Vec::new();
    let mut closed_typedef = false;
    let mut decl_start = 0usize;
    for k in 0..code.len() {
        match (kind(k), text(k)) {
            (Tok::Punct, b"{") => {
                stack.push(frame(bytes, lexed, &code, decl_start, k));
                typedef_heads.push(decl_start < k && text(decl_start) == b"typedef");
                decl_start = k + 1;
            }
            (Tok::Punct, b"}") => {
                stack.pop();
                closed_typedef = typedef_heads.pop().unwrap_or(false);
                decl_start = k + 1;
            }
            (Tok::Punct, b";") => decl_start = k + 1,
            (Tok::Punct, b":")
                if k > 0 && matches!(text(k - 1), b"public" | b"private" | b"protected") =>
            {
                decl_start = k + 1
            }
            (Tok::Ident, raw) => {
                let Ok(name) = std::str::from_utf8(raw) else {
                    continue;
                };
                if !knows(name) {
                    continue;
                }
                let path = scope_path(&stack);
                if !stack.contains(&Frame::Other) {
                    let at = lexed.tokens[code[k]].start;
                    let d =
                        declarator(bytes, lexed, &code, k, &path, &stack, cuda_ns).or_else(|| {
                            let typedef = text(decl_start) == b"typedef"
                                || (closed_typedef && k == decl_start);
                            named_value(&code, k, &path, &stack, &text, typedef, at)
                        });
                    if let Some(d) = d {
                        out.defs.push(d);
                        out.def_tokens.push(code[k]);
                        out.def_offsets.push(lexed.tokens[code[k]].start as usize);
                    }
                }
                out.scope_of.insert(code[k], path);
            }
            _ => {}
        }
    }
    // `#define CU_GET_PROC_ADDRESS_DEFAULT 0` in gdrcopy's `cuda_wrapper.h`, which declares the
    // driver API it loads with `dlopen` instead of including `cuda.h`. A porting alias whose
    // body is a HIP name (`#define cudaMalloc hipMalloc`) is the project's ROCm layer, not a
    // definition here.
    for d in lexed.directives.iter().filter(|d| d.name == "define") {
        let mut toks = d
            .tokens
            .clone()
            .filter(|&t| lexed.tokens[t].kind != Tok::Comment)
            .skip_while(|&t| lexed.tokens[t].text(bytes) != b"define")
            .skip(1);
        let Some(n) = toks.next() else { continue };
        let Ok(name) = std::str::from_utf8(lexed.tokens[n].text(bytes)) else {
            continue;
        };
        if lexed.tokens[n].kind != Tok::Ident || !knows(name) {
            continue;
        }
        let alias = toks
            .find(|&t| lexed.tokens[t].kind == Tok::Ident)
            .is_some_and(|t| {
                let b = lexed.tokens[t].text(bytes);
                b.starts_with(b"hip") || b.starts_with(b"HIP") || b.starts_with(b"roc")
            });
        if alias {
            continue;
        }
        out.defs.push(OwnDef {
            name: name.to_string(),
            line: lexed.tokens[n].start,
            scope: String::new(),
            member: false,
            body: true,
            arity: (0, usize::MAX),
        });
        out.def_tokens.push(n);
        out.def_offsets.push(lexed.tokens[n].start as usize);
    }
    for d in &mut out.defs {
        // `line` was the byte offset until here: one newline count per definition.
        let at = d.line as usize;
        d.line = memchr::memchr_iter(b'\n', &bytes[..at.min(bytes.len())]).count() as u32 + 1;
    }
    out
}

/// A name the code at `code[k]` defines as a value or a type, not a function: an enumerator
/// (`CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124,` in an enum body), an enumeration's tag
/// (`typedef enum CUmemRangeHandleType_enum {`) or a `typedef` name (`typedef unsigned long long
/// CUdeviceptr;`, `} CUmemRangeHandleType;` after a `typedef enum … {`: `typedef` says so).
/// Enumerators count in an enum at namespace or file scope only.
fn named_value<'t>(
    code: &[usize],
    k: usize,
    path: &str,
    stack: &[Frame],
    text: &dyn Fn(usize) -> &'t [u8],
    typedef: bool,
    at: u32,
) -> Option<OwnDef> {
    let prev = k.checked_sub(1).map(text);
    let next = (k + 1 < code.len()).then(|| text(k + 1));
    let def = |body: bool| OwnDef {
        name: String::from_utf8_lossy(text(k)).into_owned(),
        line: at,
        scope: path.to_string(),
        member: false,
        body,
        arity: (0, usize::MAX),
    };
    let (last, outer) = stack
        .split_last()
        .map_or((None, stack), |(l, o)| (Some(l), o));
    let at_namespace = outer.iter().all(|f| matches!(f, Frame::Namespace(_)));
    if last == Some(&Frame::Enum) {
        return (at_namespace
            && matches!(prev, Some(b"{" | b","))
            && matches!(next, Some(b"=" | b"," | b"}")))
        .then(|| def(true));
    }
    if !stack.iter().all(|f| matches!(f, Frame::Namespace(_))) {
        return None;
    }
    if prev == Some(b"enum") && next == Some(b"{") {
        return Some(def(true));
    }
    (typedef && next == Some(b";")).then(|| def(true))
}

fn scope_path(stack: &[Frame]) -> String {
    stack
        .iter()
        .filter_map(|f| match f {
            Frame::Namespace(Some(n)) => Some(n.as_str()),
            Frame::Class(n) => Some(n.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("::")
}

/// What the `{` at `code[k]` opens, from the tokens since the declaration began.
fn frame(bytes: &[u8], lexed: &Lexed, code: &[usize], decl_start: usize, k: usize) -> Frame {
    let text = |j: usize| lexed.tokens[code[j]].text(bytes);
    let kind = |j: usize| lexed.tokens[code[j]].kind;
    if k >= 2 && kind(k - 1) == Tok::Str && text(k - 2) == b"extern" {
        return Frame::Namespace(None);
    }
    let head = decl_start..k;
    if let Some(n) = head.clone().find(|&j| text(j) == b"namespace") {
        let name: Vec<String> = (n + 1..k)
            .filter(|&j| kind(j) == Tok::Ident && text(j) != b"inline")
            .map(|j| String::from_utf8_lossy(text(j)).into_owned())
            .collect();
        return Frame::Namespace((!name.is_empty()).then(|| name.join("::")));
    }
    if head
        .clone()
        .any(|j| matches!(text(j), b"=" | b"(" | b"return"))
    {
        return Frame::Other;
    }
    if head.clone().any(|j| text(j) == b"enum") {
        return Frame::Enum;
    }
    let mut angle = 0i32;
    let mut name = None;
    for j in head {
        match text(j) {
            b"<" => angle += 1,
            b">" => angle -= 1,
            b"class" | b"struct" | b"union" if angle == 0 => {
                name = (j + 1 < k && kind(j + 1) == Tok::Ident)
                    .then(|| String::from_utf8_lossy(text(j + 1)).into_owned());
            }
            _ => {}
        }
    }
    name.map_or(Frame::Other, Frame::Class)
}

/// A function declarator with its name at `code[k]`: a type (or `T C::`) before it, a
/// parameter list, qualifiers, then a body, `;`, `= …` or a trailing return type.
fn declarator(
    bytes: &[u8],
    lexed: &Lexed,
    code: &[usize],
    k: usize,
    path: &str,
    stack: &[Frame],
    cuda_ns: &dyn Fn(&str) -> bool,
) -> Option<OwnDef> {
    let text = |j: usize| code.get(j).map(|&i| lexed.tokens[i].text(bytes));
    let kind = |j: usize| lexed.tokens[code[j]].kind;
    if text(k + 1)? != b"(" {
        return None;
    }
    // `T C::f(`, `T ns::C<U>::f(`: the qualifier chain, innermost last.
    let chain = qualifier(bytes, lexed, code, k);
    let before = k.checked_sub(1 + chain.1)?;
    if chain.1 > 0 && chain.0.is_empty() {
        return None; // `::f(`: the global one.
    }
    let prev = text(before)?;
    let typed = (kind(before) == Tok::Ident && !NOT_A_TYPE.contains(&prev) && prev != b"using")
        || prev == b"*"
        || prev == b"&";
    if !typed {
        return None;
    }
    let close = crate::model::project::closing_paren(text, k, code.len(), true)?;
    let mut n = close + 1;
    while matches!(
        text(n)?,
        b"const" | b"noexcept" | b"override" | b"final" | b"volatile" | b"&" | b"&&"
    ) {
        n += 1;
    }
    let body = match text(n)? {
        b"{" | b":" => true,
        b";" | b"=" => false,
        b"->" => (n..code.len().min(n + 64))
            .find(|&j| matches!(text(j), Some(b"{" | b";")))
            .is_some_and(|j| text(j) == Some(b"{")),
        _ => return None,
    };
    let scope = match (path.is_empty(), chain.0.is_empty()) {
        (_, true) => path.to_string(),
        (true, false) => chain.0.clone(),
        (false, false) => format!("{path}::{}", chain.0),
    };
    let first = scope.split("::").next().unwrap_or("");
    if (scope.is_empty() && !body) || (!first.is_empty() && cuda_ns(first)) {
        return None;
    }
    Some(OwnDef {
        name: String::from_utf8_lossy(text(k)?).into_owned(),
        line: lexed.tokens[code[k]].start,
        scope,
        member: matches!(stack.last(), Some(Frame::Class(_))) || !chain.0.is_empty(),
        body,
        arity: arity(text, k + 1, close),
    })
}

/// The arity range of the parameter list `(` at `open` … `)` at `close`: top-level commas
/// (template argument lists and nested brackets skipped) and `=` defaults; `()` and `(void)`
/// take none.
fn arity<'b>(
    text: impl Fn(usize) -> Option<&'b [u8]>,
    open: usize,
    close: usize,
) -> (usize, usize) {
    if close == open + 1 || (close == open + 2 && text(open + 1) == Some(b"void")) {
        return (0, 0);
    }
    let (mut all, mut defaults, mut depth, mut angle) = (1usize, 0usize, 0usize, 0usize);
    let mut defaulted = false;
    for j in open + 1..close {
        match text(j).unwrap_or(b"") {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => depth = depth.saturating_sub(1),
            b"<" if depth == 0 && !defaulted => angle += 1,
            b">" if depth == 0 && !defaulted => angle = angle.saturating_sub(1),
            b"=" if depth == 0 && angle == 0 => defaulted = true,
            b"," if depth == 0 && angle == 0 => {
                all += 1;
                defaults += usize::from(defaulted);
                defaulted = false;
            }
            _ => {}
        }
    }
    defaults += usize::from(defaulted);
    (all - defaults, all)
}

/// The qualifier written before the name at `code[k]` (`a::b::` → `"a::b"`, template arguments
/// dropped) and how many code tokens it spans. A leading `::` gives an empty qualifier with a
/// non-zero span.
fn qualifier(bytes: &[u8], lexed: &Lexed, code: &[usize], k: usize) -> (String, usize) {
    let text = |j: usize| lexed.tokens[code[j]].text(bytes);
    let kind = |j: usize| lexed.tokens[code[j]].kind;
    let mut parts: Vec<String> = Vec::new();
    let mut j = k;
    while j >= 1 && text(j - 1) == b"::" {
        let mut q = j - 1;
        // Skip `<…>` before the `::`.
        if q >= 1 && text(q - 1) == b">" {
            let mut depth = 0i32;
            let mut m = q - 1;
            loop {
                match text(m) {
                    b">" => depth += 1,
                    b"<" => depth -= 1,
                    _ => {}
                }
                if depth == 0 || m == 0 {
                    break;
                }
                m -= 1;
            }
            q = m;
        }
        if q >= 1 && kind(q - 1) == Tok::Ident && !NOT_A_TYPE.contains(&text(q - 1)) {
            parts.push(String::from_utf8_lossy(text(q - 1)).into_owned());
            j = q - 1;
        } else {
            // A leading `::` (or something not a name): the chain ends here.
            if parts.is_empty() {
                return (String::new(), k - (j - 1));
            }
            break;
        }
    }
    parts.reverse();
    (parts.join("::"), k - j)
}

/// A definition another unit sees: where it is and in which scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnRef {
    /// `include/mylib/alloc.h:12`.
    pub at: String,
    pub scope: String,
    pub member: bool,
    pub body: bool,
    /// As [`OwnDef::arity`].
    pub arity: (usize, usize),
}

/// The project's definitions a unit sees: its own file's and those of the files it includes.
pub struct Lookup<'a> {
    pub file: &'a FileOwn,
    /// From the included project files (`model::project::Visible::own`).
    pub included: &'a std::collections::BTreeMap<String, Vec<OwnRef>>,
    /// Member functions every header of the project declares (`Visible::members`).
    pub members: &'a std::collections::BTreeMap<String, Vec<OwnRef>>,
    /// An included project file includes a CUDA header.
    pub included_cuda_headers: bool,
    /// The unit is a `.cu`/`.cuh` file (nvcc includes the CUDA runtime implicitly).
    pub cuda_unit: bool,
}

impl Lookup<'_> {
    /// Every definition of `name` the unit sees: `(scope, member, body, where)`, the file's own
    /// first.
    fn defs<'b>(&'b self, name: &str) -> Vec<(&'b str, bool, bool, Option<&'b str>)> {
        let mut out: Vec<(&str, bool, bool, Option<&str>)> = self
            .file
            .defs
            .iter()
            .filter(|d| d.name == name)
            .map(|d| (d.scope.as_str(), d.member, d.body, None))
            .collect();
        if let Some(rs) = self.included.get(name) {
            out.extend(
                rs.iter()
                    .map(|r| (r.scope.as_str(), r.member, r.body, Some(r.at.as_str()))),
            );
        }
        out
    }

    /// Whether the CUDA-named identifier at token `i` of the unit is a use (or the declaration)
    /// of the project's own function rather than the CUDA API. `Some(reason)` when it is.
    ///
    /// `renamed`: the port would rename the name. A file-scope definition in a `.c`/`.cc` file
    /// is invisible to the other units that call it, which keep renaming their uses and their
    /// declarations; the name stays consistent only if the port renames the definition too, so
    /// a file-scope function counts as the project's only for a name the port leaves as it is
    /// (its finding is dropped, no edit changes). Member and scoped functions are reached only
    /// through a declaration the caller includes, so every use is decided alike.
    pub fn project_use(
        &self,
        bytes: &[u8],
        lexed: &Lexed,
        i: usize,
        renamed: bool,
    ) -> Option<String> {
        let name = std::str::from_utf8(lexed.tokens[i].text(bytes)).ok()?;
        let no_cuda_header =
            !(renamed || self.cuda_unit || self.file.cuda_headers || self.included_cuda_headers);
        if let Some(n) = self.file.def_tokens.iter().position(|&t| t == i) {
            // A file-scope definition beside CUDA's headers overloads CUDA's function: it is
            // ported like every other use of the name.
            let d = &self.file.defs[n];
            return (!d.scope.is_empty() || no_cuda_header)
                .then(|| format!("`{name}` is declared here by the project"));
        }
        let at = |w: Option<&str>| w.map_or(String::new(), |w| format!(" at {w}"));
        let prev = lexed.prev_code(i);
        let prev_text = prev.map(|k| lexed.tokens[k].text(bytes));
        let defs = self.defs(name);
        if matches!(prev_text, Some(b"." | b"->")) {
            // A member function of any project header: a CUDA API is never a member, and a
            // unit calling the member includes its class, resolved by the model or not.
            let anywhere = self.members.get(name).and_then(|r| r.first());
            return defs
                .iter()
                .find(|d| d.1)
                .map(|d| d.3)
                .or(anywhere.map(|r| Some(r.at.as_str())))
                .map(|w| format!("`{name}` is a member the project declares{}", at(w)));
        }
        if defs.is_empty() {
            return None;
        }
        if prev_text == Some(b"::") {
            let q = written_qualifier(bytes, lexed, i)?;
            if q.is_empty() {
                return None;
            }
            return defs
                .iter()
                .find(|d| {
                    !d.0.is_empty()
                        && (d.0 == q
                            || d.0.ends_with(&format!("::{q}"))
                            || q.ends_with(&format!("::{}", d.0)))
                })
                .map(|d| format!("`{q}::{name}` is the project's own{}", at(d.3)));
        }
        // Unqualified: an enclosing namespace or class that declares the name hides CUDA's.
        if let Some(path) = self.file.scope_of.get(&i) {
            if let Some(d) = defs.iter().find(|d| {
                !d.0.is_empty() && (path == d.0 || path.starts_with(&format!("{}::", d.0)))
            }) {
                return Some(format!("`{name}` resolves to `{}::{name}`{}", d.0, at(d.3)));
            }
        }
        // A function the project defines, where no CUDA header could provide the name: at file
        // scope, or in a namespace an unqualified call reaches through `using namespace` or
        // argument-dependent lookup (nvidia-texture-tools' `nv::saturate` in `nvmath.h`, called
        // as `saturate(x)` in host `.cpp` files). A member is reached only through an object.
        if no_cuda_header {
            if let Some(d) = defs.iter().find(|d| d.0.is_empty() && d.2) {
                return Some(format!(
                    "`{name}` is the project's own function{} (no CUDA header in this unit)",
                    at(d.3)
                ));
            }
            if let Some(d) = defs.iter().find(|d| !d.0.is_empty() && !d.1 && d.2) {
                return Some(format!(
                    "`{name}` is the project's own `{}::{name}`{} (no CUDA header in this unit)",
                    d.0,
                    at(d.3)
                ));
            }
        }
        None
    }
}

/// The qualifier written before token `i` (`a::b::f` → `"a::b"`), across comments and in
/// directive lines alike; `""` for a leading `::`; `None` when no `::` precedes.
fn written_qualifier(bytes: &[u8], lexed: &Lexed, i: usize) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut j = i;
    while let Some(c) = lexed.prev_code(j) {
        if lexed.tokens[c].text(bytes) != b"::" {
            break;
        }
        let mut q = lexed.prev_code(c);
        if let Some(g) = q.filter(|&g| lexed.tokens[g].text(bytes) == b">") {
            let mut depth = 0i32;
            let mut m = g;
            loop {
                match lexed.tokens[m].text(bytes) {
                    b">" => depth += 1,
                    b"<" => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                match lexed.prev_code(m) {
                    Some(p) => m = p,
                    None => break,
                }
            }
            q = lexed.prev_code(m);
        }
        match q {
            Some(n)
                if lexed.tokens[n].kind == Tok::Ident
                    && !NOT_A_TYPE.contains(&lexed.tokens[n].text(bytes)) =>
            {
                parts.push(String::from_utf8_lossy(lexed.tokens[n].text(bytes)).into_owned());
                j = n;
            }
            _ => break,
        }
    }
    if j == i {
        return lexed
            .prev_code(i)
            .filter(|&c| lexed.tokens[c].text(bytes) == b"::")
            .map(|_| String::new());
    }
    parts.reverse();
    Some(parts.join("::"))
}

/// [`sweep`] with the CUDA tables of `m`, less the definitions in branches HIP never compiles
/// (`#if … defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800`): under HIP a use of the name there
/// reaches CUDA's function, not the project's.
pub fn sweep_with(
    path: &str,
    bytes: &[u8],
    lexed: &Lexed,
    m: &crate::mappings::Mappings,
) -> FileOwn {
    let any = crate::mappings::Target {
        rocm: m.newest,
        roc: false,
        experimental: false,
        lds: None,
    };
    let mut own = sweep(
        bytes,
        lexed,
        &|n| m.knows(n),
        &|n| m.is_namespace_segment(n),
        &|p| m.include(p, &any).is_some(),
    );
    if own.defs.is_empty() || lexed.directives.iter().all(|d| !d.name.starts_with("if")) {
        return own;
    }
    let sides = crate::model::cuda_side::with_src(path, bytes, lexed, |s| {
        let regions = crate::model::hipside::regions(s);
        crate::model::hipside::sides_at(&regions, &own.def_offsets)
    });
    let keep: Vec<bool> = sides
        .iter()
        .map(|s| !matches!(s, Some(crate::model::hipside::Side::Never(_))))
        .collect();
    let mut k = keep.iter();
    own.defs.retain(|_| *k.next().unwrap_or(&true));
    let mut k = keep.iter();
    own.def_tokens.retain(|_| *k.next().unwrap_or(&true));
    let mut k = keep.iter();
    own.def_offsets.retain(|_| *k.next().unwrap_or(&true));
    own
}

#[cfg(test)]
mod tests;
