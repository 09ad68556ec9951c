//! The integer value of a constant expression as the file writes it (`96 * 1024`,
//! `SMEM_BYTES`, `2 * TILE * TILE * sizeof(float)`), for the shared-memory rule: literals,
//! `sizeof` of a type whose size is fixed, integer casts, the file's own object-like macros and
//! `const`/`constexpr` integers (`NAME = expr;`), then the constants of the project headers it
//! includes ([`Visible::constants`]). A name defined twice with different text, a name the model
//! does not know, or anything else makes the value unknown: never guessed.

use crate::lex::Tok;
use crate::model::project::Visible;
use crate::model::syntax::Src;
use std::cell::Cell;
use std::collections::HashMap;

/// Size in bytes of the element types whose size is the same on CUDA and HIP (LP64).
pub fn type_size(ty: &str) -> Option<u64> {
    let t = ty.trim_start_matches("::").trim_start_matches("std::");
    Some(match t {
        "char" | "signed char" | "unsigned char" | "bool" | "int8_t" | "uint8_t" | "char1"
        | "uchar1" | "__nv_fp8_e4m3" | "__nv_fp8_e5m2" => 1,
        "short" | "unsigned short" | "short int" | "int16_t" | "uint16_t" | "half" | "__half"
        | "__nv_bfloat16" | "nv_bfloat16" | "__hip_bfloat16" | "hip_bfloat16" | "char2"
        | "uchar2" => 2,
        "int" | "unsigned" | "unsigned int" | "signed" | "signed int" | "float" | "int32_t"
        | "uint32_t" | "half2" | "__half2" | "__nv_bfloat162" | "nv_bfloat162"
        | "__hip_bfloat162" | "char4" | "uchar4" | "short2" | "ushort2" => 4,
        "double" | "long" | "unsigned long" | "long long" | "unsigned long long" | "int64_t"
        | "uint64_t" | "size_t" | "float2" | "int2" | "uint2" | "short4" | "ushort4" => 8,
        "float3" | "int3" | "uint3" => 12,
        "float4" | "int4" | "uint4" | "double2" | "longlong2" | "ulonglong2" => 16,
        "double3" => 24,
        "double4" => 32,
        _ => return None,
    })
}

/// Integer type words a cast may name.
fn int_type_word(t: &str) -> bool {
    matches!(
        t,
        "int"
            | "unsigned"
            | "signed"
            | "long"
            | "short"
            | "size_t"
            | "uint32_t"
            | "int32_t"
            | "uint64_t"
            | "int64_t"
            | "std"
            | "::"
    )
}

/// The constants a file can resolve.
pub struct Consts<'a> {
    /// Name → expression tokens; `None` when the file defines it twice differently.
    defs: HashMap<&'a str, Option<(Vec<String>, usize)>>,
    seen: &'a Visible,
    depth: Cell<u32>,
}

impl<'a> Consts<'a> {
    pub fn of(s: &Src<'a>, seen: &'a Visible) -> Self {
        let mut defs: HashMap<&'a str, Option<(Vec<String>, usize)>> = HashMap::new();
        let mut add = |name: &'a str, toks: Vec<String>, at: usize| {
            if toks.is_empty() {
                return;
            }
            match defs.get(name) {
                Some(Some((t, _))) if *t != toks => {
                    defs.insert(name, None);
                }
                Some(_) => {}
                None => {
                    defs.insert(name, Some((toks, at)));
                }
            }
        };
        let lx = s.lexed;
        for d in lx.directives.iter().filter(|d| d.name == "define") {
            let toks: Vec<usize> = d
                .tokens
                .clone()
                .filter(|&j| lx.tokens[j].kind != Tok::Comment && s.tok(j) != "\\")
                .collect();
            let Some(&n) = toks.get(2) else { continue };
            if lx.tokens[n].kind != Tok::Ident
                || s.bytes().get(lx.tokens[n].end as usize) == Some(&b'(')
            {
                continue;
            }
            add(s.tok(n), expr_tokens(s, &toks[3..]), d.start);
        }
        // `const int NAME = expr;` / `constexpr size_t NAME = expr;` (any scope).
        let code: Vec<usize> = lx
            .code_tokens()
            .filter(|(_, t)| !t.in_directive())
            .map(|(i, _)| i)
            .collect();
        for k in 0..code.len() {
            let i = code[k];
            if lx.tokens[i].kind != Tok::Ident || code.get(k + 1).map(|&j| s.tok(j)) != Some("=") {
                continue;
            }
            let qualified = (1..=6)
                .map_while(|b| k.checked_sub(b).map(|p| s.tok(code[p])))
                .take_while(|t| !matches!(*t, ";" | "{" | "}" | "(" | ")" | "=" | ","))
                .any(|t| t == "const" || t == "constexpr");
            if !qualified {
                continue;
            }
            let mut end = k + 2;
            let mut depth = 0i32;
            while let Some(&j) = code.get(end) {
                match s.tok(j) {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" if depth > 0 => depth -= 1,
                    ";" | "," | ")" | "}" if depth == 0 => break,
                    _ => {}
                }
                end += 1;
                if end - k > 64 {
                    break;
                }
            }
            if code
                .get(end)
                .is_some_and(|&j| s.tok(j) == ";" || s.tok(j) == ",")
            {
                add(
                    s.tok(i),
                    expr_tokens(s, &code[k + 2..end]),
                    lx.tokens[i].start as usize,
                );
            }
        }
        Consts {
            defs,
            seen,
            depth: Cell::new(0),
        }
    }

    /// The value of expression tokens, `None` when unknown.
    pub fn value(&self, toks: &[String]) -> Option<u64> {
        if toks.is_empty() || self.depth.get() > 16 {
            return None;
        }
        self.depth.set(self.depth.get() + 1);
        let refs: Vec<&str> = toks.iter().map(String::as_str).collect();
        let look = |name: &str, u: crate::model::cond::Use| {
            if u != crate::model::cond::Use::Value {
                return None;
            }
            self.name(name).and_then(|v| i64::try_from(v).ok())
        };
        let v = crate::model::cond::eval(&refs, &look);
        self.depth.set(self.depth.get() - 1);
        v.and_then(|v| u64::try_from(v).ok())
    }

    /// The value of one name: the file's definition, else an included header's.
    pub fn name(&self, name: &str) -> Option<u64> {
        match self.defs.get(name) {
            Some(Some((toks, _))) => self.value(toks),
            Some(None) => None,
            None => self.seen.constants.get(name).map(|(v, _)| *v),
        }
    }

    /// Where `name` is defined: `line N` of this file, or the header's `path:line`.
    pub fn where_defined(&self, s: &Src, name: &str) -> Option<String> {
        match self.defs.get(name) {
            Some(Some((_, at))) => Some(format!("line {}", s.line(*at) + 1)),
            Some(None) => None,
            None => self.seen.constants.get(name).map(|(_, at)| at.clone()),
        }
    }
}

/// The tokens of an expression (token indices into `s`), ready for [`Consts::value`]:
/// comments and line continuations dropped, two-byte operators merged, `sizeof(T)` replaced by
/// its size when the type's size is fixed, integer casts dropped.
pub fn expr_tokens(s: &Src, idx: &[usize]) -> Vec<String> {
    let lx = s.lexed;
    let mut raw: Vec<String> = Vec::new();
    let mut last_end = usize::MAX;
    for &j in idx {
        let t = lx.tokens[j];
        if t.kind == Tok::Comment || s.tok(j) == "\\" {
            continue;
        }
        let text = s.tok(j);
        let merge = t.kind == Tok::Punct
            && last_end == t.start as usize
            && raw.last().is_some_and(|p| {
                matches!(
                    (p.as_str(), text),
                    ("<", "<")
                        | (">", ">")
                        | ("<" | ">" | "=" | "!", "=")
                        | ("&", "&")
                        | ("|", "|")
                )
            });
        if merge {
            raw.last_mut().unwrap().push_str(text);
        } else {
            raw.push(text.to_string());
        }
        last_end = t.end as usize;
    }
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let t = raw[i].as_str();
        // `sizeof(T)` / `sizeof T`.
        if t == "sizeof" {
            let paren = raw.get(i + 1).is_some_and(|p| p == "(");
            let close = if paren {
                raw[i + 1..]
                    .iter()
                    .position(|p| p == ")")
                    .map(|p| i + 1 + p)
            } else {
                None
            };
            match close {
                Some(c) => {
                    let ty = raw[i + 2..c].join(" ").replace(" :: ", "::");
                    match type_size(&ty) {
                        Some(n) => out.push(n.to_string()),
                        None => out.push("sizeof".into()), // unknown: the value stays unknown
                    }
                    i = c + 1;
                }
                None => {
                    out.push("sizeof".into());
                    i += 1;
                }
            }
            continue;
        }
        // `(size_t)` / `(unsigned int)`.
        if t == "(" {
            if let Some(c) = raw[i + 1..]
                .iter()
                .position(|p| p == ")")
                .map(|p| i + 1 + p)
            {
                if c > i + 1 && raw[i + 1..c].iter().all(|w| int_type_word(w)) {
                    i = c + 1;
                    continue;
                }
            }
        }
        // `size_t(x)` functional casts, `static_cast<size_t>(x)`.
        if int_type_word(t) && t != "::" && raw.get(i + 1).is_some_and(|p| p == "(") {
            i += 1;
            continue;
        }
        if t == "static_cast" && raw.get(i + 1).is_some_and(|p| p == "<") {
            if let Some(c) = raw[i + 2..]
                .iter()
                .position(|p| p == ">")
                .map(|p| i + 2 + p)
            {
                if raw[i + 2..c].iter().all(|w| int_type_word(w)) {
                    i = c + 1;
                    continue;
                }
            }
        }
        out.push(raw[i].clone());
        i += 1;
    }
    out
}
