//! User definitions that HIP's headers already provide: arithmetic operators on vector types
//! (`float4 operator+=(float4&, float4)`, from cuda-samples' helper_math.h and many copies of
//! it), and `atomicAdd(double*)` / `atomicMax(float*)`-style atomics that CUDA lacked on older
//! architectures. Under hipcc they are redefinitions or ambiguous overloads, so each is wrapped
//! in `#if !defined(__HIP_PLATFORM_AMD__)` … `#endif` and flagged (HP008).

use super::Pass;
use crate::edit::Edit;
use crate::parse;
use crate::rules::api;
use streaming_iterator::StreamingIterator;
use tree_sitter::Node;

pub const GUARD_OPEN: &str = "#if !defined(__HIP_PLATFORM_AMD__)";
pub const GUARD_CLOSE: &str = "#endif  // !defined(__HIP_PLATFORM_AMD__)";

fn is_vector_type(t: &str) -> bool {
    const BASES: &[&str] = &[
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
        "float",
        "double",
    ];
    let Some(last) = t.chars().last() else {
        return false;
    };
    if !('1'..='4').contains(&last) {
        return false;
    }
    BASES.contains(&&t[..t.len() - 1])
}

/// The parameter type names of a function declarator, with qualifiers and `&`/`*` stripped.
fn param_types(src: &[u8], params: Node) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = params.walk();
    for p in params.named_children(&mut c) {
        if let Some(t) = p.child_by_field_name("type") {
            out.push(t.utf8_text(src).unwrap_or("").trim().to_string());
        }
    }
    out
}

/// What HIP defines that this definition would duplicate, if anything.
fn conflict(src: &[u8], def: Node) -> Option<String> {
    let mut decl = def.child_by_field_name("declarator")?;
    // Unwrap reference/pointer declarators around the function declarator.
    while decl.kind() != "function_declarator" {
        decl = decl.child_by_field_name("declarator")?;
    }
    let name = decl.child_by_field_name("declarator")?;
    let name_text = name.utf8_text(src).ok()?.replace(' ', "");
    let params = decl.child_by_field_name("parameters")?;
    let types = param_types(src, params);
    if name.kind() == "operator_name" || name_text.starts_with("operator") {
        if types.iter().any(|t| is_vector_type(t)) {
            return Some(format!("`{name_text}` on HIP vector types"));
        }
        return None;
    }
    let first = types.first()?;
    let atomic = match name_text.as_str() {
        "atomicAdd" => first == "double",
        "atomicMax" | "atomicMin" => first == "double" || first == "float",
        _ => false,
    };
    // Parameter types come without the pointer; the declarator holds it. Require a pointer.
    let first_param = params.named_child(0)?;
    let is_ptr = first_param
        .child_by_field_name("declarator")
        .is_some_and(|d| d.kind() == "pointer_declarator");
    (atomic && is_ptr).then(|| format!("`{name_text}({first}*, …)`"))
}

/// A guarded region: line-aligned start and end, and the definitions (start, end, what) in it.
type Block = (usize, usize, Vec<(usize, usize, String)>);

fn line_start(src: &[u8], at: usize) -> usize {
    src[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
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
        || memchr::memmem::find(src, b"atomicM").is_some()
}

/// Whether `at` lies inside an open `#if !defined(__HIP_PLATFORM_AMD__)` region.
fn inside_guard(p: &Pass, at: usize) -> bool {
    let src = p.src();
    let mut stack: Vec<bool> = Vec::new();
    for d in p.lexed.directives.iter().take_while(|d| d.start < at) {
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let text = String::from_utf8_lossy(&src[d.start..d.end]);
                stack.push(
                    text.split_whitespace().collect::<String>()
                        == GUARD_OPEN.split_whitespace().collect::<String>(),
                );
            }
            "endif" => {
                stack.pop();
            }
            _ => {}
        }
    }
    stack.iter().any(|g| *g)
}

/// Whether `src[a..b]` holds only blank space and comments (annotations between definitions).
fn only_blank_or_comments(p: &Pass, a: usize, b: usize) -> bool {
    if a > b {
        return false;
    }
    let src = p.src();
    let mut covered = a;
    for t in p.lexed.tokens.iter() {
        let (s, e) = (t.start as usize, t.end as usize);
        if e <= a || s >= b {
            continue;
        }
        if t.kind != crate::lex::Tok::Comment {
            return false;
        }
        if !src[covered..s.max(covered)]
            .iter()
            .all(|c| c.is_ascii_whitespace())
        {
            return false;
        }
        covered = e.min(b);
    }
    src[covered..b].iter().all(|c| c.is_ascii_whitespace())
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
    let mut defs: Vec<(usize, usize, String)> = Vec::new();
    let query = parse::queries::overload_definitions();
    let def_index = query.capture_index_for_name("definition").unwrap_or(0);
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), src);
    while let Some(m) = matches.next() {
        for cap in m.captures().iter().filter(|c| c.index == def_index) {
            let n = cap.node;
            if let Some(what) = conflict(src, n) {
                // A template<> wrapper owns the definition's first line.
                let outer = match n.parent() {
                    Some(par) if par.kind() == "template_declaration" => par,
                    _ => n,
                };
                defs.push((outer.start_byte(), outer.end_byte(), what));
            }
        }
    }
    defs.sort();
    // Nested definitions (a member operator inside a guarded struct) are covered by the outer.
    defs.dedup_by(|b, a| b.0 < a.1);
    let nl = crate::source::newline_of(src);
    // Merge neighbours separated only by blank space into one guarded block.
    let mut blocks: Vec<Block> = Vec::new();
    for (s, e, what) in defs {
        let start = line_start(src, s);
        let end = line_end_after(src, e);
        if p.lexed
            .directives
            .iter()
            .any(|d| d.start <= s && s <= d.end)
        {
            continue; // inside a macro body
        }
        match blocks.last_mut() {
            Some(last) if only_blank_or_comments(p, last.1, start) => {
                last.1 = end;
                last.2.push((s, e, what));
            }
            _ => blocks.push((start, end, vec![(s, e, what)])),
        }
    }
    for (start, end, items) in blocks {
        if inside_guard(p, start) {
            continue; // guarded by an earlier run
        }
        let lead = if end == src.len() && !src.ends_with(b"\n") {
            nl
        } else {
            ""
        };
        p.edits
            .push(Edit::insert(start, format!("{GUARD_OPEN}{nl}")));
        p.edits
            .push(Edit::insert(end, format!("{lead}{GUARD_CLOSE}{nl}")));
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
    use super::is_vector_type;

    #[test]
    fn vector_type_names() {
        for t in ["float4", "int2", "uchar4", "double2", "ulonglong2"] {
            assert!(is_vector_type(t), "{t}");
        }
        for t in ["float", "Float4", "float5", "vec4", "int"] {
            assert!(!is_vector_type(t), "{t}");
        }
    }
}
