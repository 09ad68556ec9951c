//! User definitions that HIP's headers already provide: arithmetic operators on vector types
//! (`float4 operator+=(float4&, float4)`, from cuda-samples' helper_math.h and many copies of
//! it), and `atomicAdd(double*, double)` / `atomicMax(float*, float)`-style atomics that CUDA
//! lacked on older architectures. Under hipcc they are redefinitions or ambiguous overloads, so
//! each is wrapped in `#if !defined(__HIP__)` … `#endif` and flagged (HP008).
//!
//! The guard only ever touches what it can prove is HIP's own signature: a non-template free
//! function or operator at file scope (never a member, never inside a class, namespace,
//! `extern "C"` block or a parse error), whose parameters have exactly the shape HIP declares.
//! `__HIP__` is defined by clang itself in HIP mode (hipcc 5.2: `hipcc -x hip -dM -E` lists
//! `__HIP__` and `__HIPCC__`, not `__HIP_PLATFORM_AMD__`, which `hip_common.h` defines), so the
//! guard holds even for a definition that comes before any HIP header. Every pass over the
//! file is linear: directives, tokens and braces are walked once, never per definition.

use super::Pass;
use crate::edit::Edit;
use crate::lex::{Lexed, Tok};
use crate::parse;
use crate::rules::api;
use streaming_iterator::StreamingIterator;
use tree_sitter::Node;

/// The macro the guard tests: defined by clang in HIP mode, before any header.
pub const GUARD_MACRO: &str = "__HIP__";
pub const GUARD_OPEN: &str = "#if !defined(__HIP__)";
pub const GUARD_CLOSE: &str = "#endif  // !defined(__HIP__)";

/// Macros whose `#ifndef`/`#if !defined(…)` region is already HIP-free (the guard of an earlier
/// hipport release tested `__HIP_PLATFORM_AMD__`; projects write any of these by hand).
const HIP_MACROS: &[&str] = &[
    "__HIP__",
    "__HIPCC__",
    "__HIP_PLATFORM_AMD__",
    "__HIP_PLATFORM_HCC__",
];

const INT_BASES: &[&str] = &[
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
];

/// The base of a HIP vector type name (`float4` → `float`), if it is one.
fn vector_base(t: &str) -> Option<&str> {
    let last = t.chars().last()?;
    if !('1'..='4').contains(&last) {
        return None;
    }
    let base = &t[..t.len() - 1];
    (INT_BASES.contains(&base) || base == "float" || base == "double").then_some(base)
}

fn is_vector_type(t: &str) -> bool {
    vector_base(t).is_some()
}

fn is_scalar(t: &str) -> bool {
    matches!(
        t,
        "float"
            | "double"
            | "int"
            | "unsigned"
            | "unsigned int"
            | "uint"
            | "char"
            | "signed char"
            | "unsigned char"
            | "short"
            | "unsigned short"
            | "long"
            | "unsigned long"
            | "long long"
            | "unsigned long long"
            | "size_t"
    )
}

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum By {
    Value,
    Ref,
    Ptr,
}

/// One parameter: its type name without qualifiers, and how it is passed. `None` for anything
/// this module does not model (defaults, variadics, arrays, double pointers, function types).
fn param(src: &[u8], p: Node) -> Option<(String, By)> {
    if p.kind() != "parameter_declaration" {
        return None;
    }
    let ty = p.child_by_field_name("type")?;
    if !matches!(
        ty.kind(),
        "primitive_type" | "type_identifier" | "sized_type_specifier"
    ) {
        return None;
    }
    let ty = ty
        .utf8_text(src)
        .ok()?
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let how = match p.child_by_field_name("declarator") {
        None => By::Value,
        Some(d) => match d.kind() {
            "identifier" => By::Value,
            "reference_declarator" | "abstract_reference_declarator" => {
                let inner_ok = d.named_child(0).is_none_or(|c| c.kind() == "identifier");
                if !inner_ok || d.utf8_text(src).ok()?.contains("&&") {
                    return None;
                }
                By::Ref
            }
            "pointer_declarator" | "abstract_pointer_declarator" => {
                let inner = d.child_by_field_name("declarator");
                if inner.is_some_and(|c| c.kind() != "identifier") {
                    return None;
                }
                By::Ptr
            }
            _ => return None,
        },
    };
    Some((ty, how))
}

/// Operators HIP defines on its vector types, and which of them need an integer element type.
fn operator_shape_ok(op: &str, params: &[(String, By)]) -> bool {
    const ARITH: &[&str] = &["+", "-", "*", "/"];
    const INTEGRAL: &[&str] = &["%", "&", "|", "^", "<<", ">>"];
    const COMPOUND: &[&str] = &["+=", "-=", "*=", "/="];
    const COMPOUND_INT: &[&str] = &["%=", "&=", "|=", "^=", "<<=", ">>="];
    if params.iter().any(|(_, how)| *how == By::Ptr) {
        return false;
    }
    let vec_bases: Vec<&str> = params.iter().filter_map(|(t, _)| vector_base(t)).collect();
    let Some(&base) = vec_bases.first() else {
        return false;
    };
    // Mixed vector types (`float3 * float4`) are not HIP's.
    let vec_ty = params
        .iter()
        .find(|(t, _)| is_vector_type(t))
        .map(|(t, _)| t.as_str())
        .unwrap_or("");
    if params.iter().any(|(t, _)| is_vector_type(t) && t != vec_ty) {
        return false;
    }
    let integral = INT_BASES.contains(&base);
    let other_ok = |t: &str| t == vec_ty || is_scalar(t);
    match params {
        [(a, how)] => {
            a == vec_ty
                && match op {
                    "-" => true,
                    "~" => integral,
                    "++" | "--" => *how == By::Ref,
                    _ => false,
                }
        }
        [(a, how_a), (b, _)] => {
            if ARITH.contains(&op) || (integral && INTEGRAL.contains(&op)) {
                (a == vec_ty && other_ok(b)) || (b == vec_ty && other_ok(a))
            } else if COMPOUND.contains(&op) || (integral && COMPOUND_INT.contains(&op)) {
                // A member of HIP's vector type: the left operand is the vector, by reference.
                a == vec_ty
                    && *how_a == By::Ref
                    && (b == vec_ty || (COMPOUND.contains(&op) && is_scalar(b)))
            } else if matches!(op, "++" | "--") {
                a == vec_ty && *how_a == By::Ref && b == "int"
            } else {
                false
            }
        }
        _ => false,
    }
}

/// Whether a definition sits at file scope: only the translation unit and preprocessor
/// branches above it (no class, namespace, `extern "C"`, template or parse error).
fn at_file_scope(def: Node) -> bool {
    let mut n = def;
    while let Some(p) = n.parent() {
        match p.kind() {
            "translation_unit" => return true,
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
            | "preproc_elifdef" => n = p,
            _ => return false,
        }
    }
    false
}

/// What HIP defines that this definition would duplicate, if anything.
fn conflict(src: &[u8], def: Node) -> Option<String> {
    if def.has_error() || !at_file_scope(def) {
        return None;
    }
    let decl = def.child_by_field_name("declarator")?;
    // The function declarator itself: a reference/pointer return type wraps it.
    let mut fdecl = decl;
    while fdecl.kind() != "function_declarator" {
        if !matches!(fdecl.kind(), "reference_declarator" | "pointer_declarator") {
            return None;
        }
        fdecl = fdecl.named_child(0)?;
    }
    // Trailing qualifiers (`const`, `noexcept`, `-> T`) are members' or beyond what is modelled.
    let name = fdecl.child_by_field_name("declarator")?;
    let params = fdecl.child_by_field_name("parameters")?;
    if fdecl.named_child_count() != 2 {
        return None;
    }
    let mut c = params.walk();
    let mut ps = Vec::new();
    for p in params.named_children(&mut c) {
        if p.kind() == "comment" {
            continue;
        }
        ps.push(param(src, p)?);
    }
    let name_text = name.utf8_text(src).ok()?.replace(char::is_whitespace, "");
    match name.kind() {
        "operator_name" => {
            let op = name_text.strip_prefix("operator")?;
            operator_shape_ok(op, &ps).then(|| format!("`{name_text}` on HIP vector types"))
        }
        "identifier" => {
            let [(t, By::Ptr), (v, By::Value)] = ps.as_slice() else {
                return None;
            };
            let ok = matches!(
                name_text.as_str(),
                "atomicAdd" | "atomicSub" | "atomicMax" | "atomicMin"
            ) && matches!(t.as_str(), "float" | "double")
                && t == v;
            ok.then(|| format!("`{name_text}({t}*, {v})`"))
        }
        _ => None,
    }
}

/// A guarded region: line-aligned start and end, and the definitions (start, end, what) in it.
type Block = (usize, usize, Vec<(usize, usize, String)>);

fn line_start(src: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &src[..at]).map_or(0, |i| i + 1)
}

fn line_end_after(src: &[u8], at: usize) -> usize {
    match memchr::memchr(b'\n', &src[at..]) {
        Some(i) => at + i + 1,
        None => src.len(),
    }
}

/// Whether a file may hold such definitions (a byte search, before any parse).
pub fn may_apply(src: &[u8]) -> bool {
    memchr::memmem::find(src, b"operator").is_some()
        || memchr::memmem::find(src, b"atomicAdd").is_some()
        || memchr::memmem::find(src, b"atomicSub").is_some()
        || memchr::memmem::find(src, b"atomicM").is_some()
}

/// The index of the first token starting at or after `at`.
fn token_at_or_after(l: &Lexed, at: usize) -> usize {
    l.tokens.partition_point(|t| (t.start as usize) < at)
}

/// Whether `at` falls strictly inside a token (a comment, a string, a name).
fn inside_token(l: &Lexed, at: usize) -> bool {
    let i = token_at_or_after(l, at);
    i > 0 && l.tokens[i - 1].end as usize > at
}

/// Whether `src[a..b]` holds only blank space and whole comments. Looks only at the tokens in
/// the range, so checking every gap between definitions is linear over the file.
fn only_blank_or_comments(src: &[u8], l: &Lexed, a: usize, b: usize) -> bool {
    if a > b || inside_token(l, a) {
        return false;
    }
    let mut covered = a;
    for t in &l.tokens[token_at_or_after(l, a)..] {
        let (s, e) = (t.start as usize, t.end as usize);
        if s >= b {
            break;
        }
        if t.kind != Tok::Comment || e > b {
            return false;
        }
        if !src[covered..s].iter().all(|c| c.is_ascii_whitespace()) {
            return false;
        }
        covered = e;
    }
    src[covered..b].iter().all(|c| c.is_ascii_whitespace())
}

/// Whether a directive opens a region HIP does not compile (`#ifndef __HIP__`,
/// `#if !defined(__HIP_PLATFORM_AMD__)`, …).
fn is_hip_free_open(src: &[u8], d: &crate::lex::Directive) -> bool {
    let text: String = String::from_utf8_lossy(&src[d.start..d.end])
        .split_whitespace()
        .collect();
    HIP_MACROS.iter().any(|m| {
        text == format!("#ifndef{m}")
            || text == format!("#if!defined({m})")
            || text == format!("#if!defined{m}")
    })
}

/// Brace depth at each `{`/`}` of code (directives excluded), for a binary search by offset.
fn brace_depths(src: &[u8], l: &Lexed) -> Vec<(usize, i32)> {
    let mut depth = 0i32;
    let mut out = Vec::new();
    for t in &l.tokens {
        if t.kind != Tok::Punct || t.in_directive() {
            continue;
        }
        match t.text(src) {
            b"{" => depth += 1,
            b"}" => depth -= 1,
            _ => continue,
        }
        out.push((t.start as usize, depth));
    }
    out
}

pub(super) fn run(p: &mut Pass) {
    let src = p.src();
    if !may_apply(src) {
        return;
    }
    let own;
    let tree = match p.tree {
        Some(t) => t,
        None => match parse::parse(src) {
            Some(t) => {
                own = t;
                &own
            }
            None => return,
        },
    };
    let l = p.lexed;
    let mut defs: Vec<(usize, usize, String)> = Vec::new();
    let query = parse::queries::overload_definitions();
    let def_index = query.capture_index_for_name("definition").unwrap_or(0);
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), src);
    while let Some(m) = matches.next() {
        for cap in m.captures().iter().filter(|c| c.index == def_index) {
            let n = cap.node;
            if let Some(what) = conflict(src, n) {
                defs.push((n.start_byte(), n.end_byte(), what));
            }
        }
    }
    defs.sort();
    defs.dedup_by(|b, a| b.0 < a.1);
    let braces = brace_depths(src, l);
    let dirs = &l.directives;
    let nl = crate::source::newline_of(src);
    // Merge neighbours separated only by blank space and comments into one guarded block.
    let mut blocks: Vec<Block> = Vec::new();
    let mut d_next = 0; // first directive starting after the previous definition
    for (s, e, what) in defs {
        // The lexer must agree that a definition starts here in code (not inside a comment or
        // string the parser read differently, e.g. an unterminated one), outside any brace
        // and outside a macro body.
        let k = token_at_or_after(l, s);
        let Some(first) = l.tokens.get(k) else {
            continue;
        };
        if first.start as usize != s || first.kind != Tok::Ident || first.in_directive() {
            continue;
        }
        let depth = match braces.partition_point(|&(at, _)| at < s) {
            0 => 0,
            i => braces[i - 1].1,
        };
        if depth != 0 {
            continue;
        }
        while d_next < dirs.len() && dirs[d_next].start < s {
            d_next += 1;
        }
        if d_next > 0 && dirs[d_next - 1].end > s {
            continue; // inside a directive (a macro body)
        }
        let start = line_start(src, s);
        let end = line_end_after(src, e);
        // The guard lines go on lines of their own: nothing but blanks and whole comments may
        // share the definition's first and last line, and no line continuation may join them.
        let continued = start >= 2 && {
            let before = &src[..start - 1];
            let before = before.strip_suffix(b"\r").unwrap_or(before);
            before.ends_with(b"\\")
        };
        if continued
            || !only_blank_or_comments(src, l, start, s)
            || !only_blank_or_comments(src, l, e, end)
            || inside_token(l, end)
        {
            continue;
        }
        match blocks.last_mut() {
            Some(last) if only_blank_or_comments(src, l, last.1, start) => {
                last.1 = end;
                last.2.push((s, e, what));
            }
            _ => blocks.push((start, end, vec![(s, e, what)])),
        }
    }
    // One forward walk over the directives decides which blocks an earlier run (or the
    // project) already keeps from HIP.
    let mut stack: Vec<bool> = Vec::new();
    let mut di = 0;
    for (start, end, items) in blocks {
        while di < dirs.len() && dirs[di].start < start {
            let d = &dirs[di];
            match d.name.as_str() {
                "if" | "ifdef" | "ifndef" => stack.push(is_hip_free_open(src, d)),
                "else" | "elif" | "elifdef" | "elifndef" => {
                    if let Some(top) = stack.last_mut() {
                        *top = false;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                _ => {}
            }
            di += 1;
        }
        if stack.iter().any(|g| *g) {
            continue;
        }
        let lead = if end == src.len() && !src.ends_with(b"\n") {
            nl
        } else {
            ""
        };
        p.edits
            .push(Edit::insert(start, format!("{GUARD_OPEN}{nl}")));
        // The guard closes before anything else inserted at the same offset (the implicit
        // runtime include must never land inside the guard).
        let close = Edit::insert(end, format!("{lead}{GUARD_CLOSE}{nl}"));
        match p.edits.iter().position(|x| x.start == end && x.end == end) {
            Some(i) => p.edits.insert(i, close),
            None => p.edits.push(close),
        }
        p.stats.fixups += 1;
        for (s, e, what) in items {
            let head_end = memchr::memchr(b'{', &src[s..e]).map_or(e, |i| s + i);
            let f = p.ctx.finding(
                &api::HIP_DEFINES_OVERLOAD,
                s..head_end,
                format!("{what} is already defined by HIP: this definition was guarded out for HIP"),
                Some("check that HIP's version has the semantics this code expects, then delete the guarded copy".into()),
            );
            p.findings.push(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_type_names() {
        for t in ["float4", "int2", "uchar4", "double2", "ulonglong2"] {
            assert!(is_vector_type(t), "{t}");
        }
        for t in ["float", "Float4", "float5", "vec4", "int"] {
            assert!(!is_vector_type(t), "{t}");
        }
    }

    fn port(path: &str, src: &str) -> String {
        let opts = crate::translate::Options {
            target: crate::mappings::Target {
                rocm: "5.2".parse().unwrap(),
                roc: false,
                experimental: false,
            },
            launch: crate::translate::LaunchSyntax::Keep,
            implicit_include: true,
        };
        let t =
            crate::translate::translate_bytes(path, src.as_bytes(), crate::mappings::get(), &opts);
        assert_eq!(t.conflicts, 0);
        String::from_utf8(t.output).unwrap()
    }

    const OP: &str = "inline __device__ float2 operator+(float2 a, float2 b) { return a; }\n";

    #[test]
    fn guards_free_operators_once() {
        let out = port("a.h", OP);
        assert_eq!(out, format!("{GUARD_OPEN}\n{OP}{GUARD_CLOSE}\n"));
        // A rerun finds its own guard, and the guard of earlier releases, and adds nothing.
        assert_eq!(port("a.h", &out), out);
        let old = format!("#if !defined(__HIP_PLATFORM_AMD__)\n{OP}#endif\n");
        assert_eq!(port("a.h", &old), old);
        // In the `#else` of a HIP test the code is HIP's: guarded.
        let els = format!("#ifndef __HIP__\nint a;\n#else\n{OP}#endif\n");
        assert!(port("a.h", &els).contains(GUARD_OPEN));
    }

    #[test]
    fn never_touches_members_templates_or_user_scopes() {
        for src in [
            "struct S {\n  __device__ float2 operator()(const float2 &a, const float2 &b) const { return a; }\n};\n",
            "struct S {\n  friend float2 operator+(float2 a, float2 b) { return a; }\n};\n",
            "template <typename T> __device__ T operator+(T a, T b) { return a; }\n",
            "template <> __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
            "namespace ns {\ninline __device__ float2 operator+(float2 a, float2 b) { return a; }\n}\n",
            "extern \"C\" {\n__device__ double atomicAdd(double *p, double v) { return v; }\n}\n",
            "float2 S<float>::operator()(float2 a, float2 b) { return a; }\n",
            "__device__ double atomicAdd(double *p, float v) { return v; }\n",
            "__device__ double atomicAdd(double **p, double v) { return v; }\n",
        ] {
            assert_eq!(port("a.h", src), src, "{src}");
        }
    }

    #[test]
    fn guard_lines_never_land_in_comments_strings_or_code() {
        for src in [
            // An unterminated comment: the parser may still see a definition; the lexer does not.
            "/* open\ninline __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
            // Code sharing the first or last line.
            "int x; inline __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
            "inline __device__ float2 operator+(float2 a, float2 b) { return a; } int y;\n",
            // A comment opened after the definition and closed lines later.
            "inline __device__ float2 operator+(float2 a, float2 b) { return a; } /* a\nb */\n",
            // A macro body.
            "#define OPS \\\ninline __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
        ] {
            let out = port("a.h", src);
            assert_eq!(out, port("a.h", &out), "rerun changes {src:?}");
            assert!(!out.contains(GUARD_OPEN), "{src:?} → {out}");
        }
    }

    #[test]
    fn implicit_include_comes_before_the_guard() {
        let src =
            format!("// helpers\n{OP}__global__ void k(float2 *p) {{ p[0] = p[0] + p[1]; }}\n");
        let out = port("a.cu", &src);
        let inc = out.find("#include <hip/hip_runtime.h>").unwrap();
        let open = out.find(GUARD_OPEN).unwrap();
        assert!(inc < open, "{out}");
    }

    fn sig(v: &[(&str, By)]) -> Vec<(String, By)> {
        v.iter().map(|(t, h)| (t.to_string(), *h)).collect()
    }

    #[test]
    fn operator_shapes_are_hips_only() {
        use By::*;
        assert!(operator_shape_ok(
            "+",
            &sig(&[("float4", Value), ("float4", Value)])
        ));
        assert!(operator_shape_ok(
            "*",
            &sig(&[("float", Value), ("float4", Ref)])
        ));
        assert!(operator_shape_ok(
            "+=",
            &sig(&[("float4", Ref), ("float4", Value)])
        ));
        assert!(operator_shape_ok(
            "*=",
            &sig(&[("float2", Ref), ("float", Value)])
        ));
        assert!(operator_shape_ok("-", &sig(&[("float2", Ref)])));
        assert!(operator_shape_ok(
            "&",
            &sig(&[("int2", Value), ("int2", Value)])
        ));
        // Not HIP's: mixed vectors, by-value compound assignment, float bit ops, pointers,
        // comparison operators (HIP's return a different type), three parameters.
        assert!(!operator_shape_ok(
            "*",
            &sig(&[("float3", Value), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "+=",
            &sig(&[("float4", Value), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "&",
            &sig(&[("float2", Value), ("float2", Value)])
        ));
        assert!(!operator_shape_ok(
            "+",
            &sig(&[("float4", Ptr), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "==",
            &sig(&[("float4", Value), ("float4", Value)])
        ));
        assert!(!operator_shape_ok(
            "()",
            &sig(&[("float2", Ref), ("float2", Ref)])
        ));
        assert!(!operator_shape_ok(
            "+",
            &sig(&[("MyVec", Value), ("MyVec", Value)])
        ));
        assert!(!operator_shape_ok(
            "+",
            &sig(&[("float4", Value), ("float4", Value), ("float4", Value)])
        ));
    }
}
