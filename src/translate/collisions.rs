//! Overloads that become one function after the port: parameter types that are different CUDA
//! types the port names alike (`cudaError_t`/`CUresult` → `hipError_t`, `cudaStream_t`/`CUstream`
//! → `hipStream_t`), or a CUDA overload beside its hand-written HIP twin. Found from tokens at
//! file, namespace and class scope; each copy is wrapped in a first-wins `#ifndef HIPPORT_ONCE_…`
//! guard (HP009). Shares the lexer-level helpers (matching brackets, guard placement) of the
//! overload-guard pass in [`super::overloads`].

use super::overloads::{code_tokens, guard_span, hip_test, matching};
use super::rules;
use super::Pass;
use crate::edit::Edit;
use crate::lex::{Lexed, Tok};

/// For each offset (ascending), whether HIP never compiles it: inside `#ifndef __HIP__`-style
/// regions or the `#else` of `#ifdef __HIP_PLATFORM_AMD__`-style ones, at any nesting. One
/// forward walk over the directives.
fn hip_free_at(src: &[u8], l: &Lexed, offsets: &[usize]) -> Vec<bool> {
    // Per open `#if`: (opened HIP-free, opened HIP-only, now in an else branch).
    let mut stack: Vec<(bool, bool, bool)> = Vec::new();
    let dirs = &l.directives;
    let mut di = 0;
    let mut out = Vec::with_capacity(offsets.len());
    for &at in offsets {
        while di < dirs.len() && dirs[di].start < at {
            let d = &dirs[di];
            match d.name.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    let t = hip_test(src, d);
                    stack.push((t == Some(false), t == Some(true), false))
                }
                "else" | "elif" | "elifdef" | "elifndef" => {
                    if let Some(top) = stack.last_mut() {
                        top.2 = true;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                _ => {}
            }
            di += 1;
        }
        out.push(
            stack
                .iter()
                .any(|&(free, only, in_else)| (free && !in_else) || (only && in_else)),
        );
    }
    out
}

/// What a `{` opens, for the overload-collision pass.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Scope {
    /// A namespace (`""` for an anonymous one) or an `extern "C"` block (`None`: adds no name).
    Namespace(Option<String>),
    /// A class, struct or union body.
    Class(String),
    /// Anything else: a function body, an initializer, an enum.
    Other,
}

/// A function definition in a namespace or class scope, found with the lexer alone.
struct FnDef {
    /// The enclosing namespaces and classes, `::`-joined (`""` at file scope).
    scope: String,
    name: String,
    /// Parameter types (names and defaults dropped) and trailing qualifiers, as written and as
    /// the port names them.
    cuda: String,
    hip: String,
    /// Bytes of the whole definition and of its parameter list.
    def: (usize, usize),
    plist: (usize, usize),
}

const NOT_A_NAME: &[&str] = &[
    "if",
    "while",
    "for",
    "switch",
    "return",
    "sizeof",
    "catch",
    "decltype",
    "alignof",
    "static_assert",
    "defined",
    "operator",
    "__attribute__",
    "__declspec",
    "alignas",
];

/// Words that are part of a parameter's type, never its name.
const TYPE_WORDS: &[&str] = &[
    "int",
    "long",
    "short",
    "char",
    "unsigned",
    "signed",
    "float",
    "double",
    "bool",
    "void",
    "const",
    "volatile",
    "auto",
    "size_t",
    "__restrict__",
    "restrict",
    "__restrict",
];

fn scope_of_brace(src: &[u8], l: &Lexed, code: &[usize], decl_start: usize, k: usize) -> Scope {
    let text = |j: usize| l.tokens[code[j]].text(src);
    let kind = |j: usize| l.tokens[code[j]].kind;
    if k == 0 {
        return Scope::Other;
    }
    // `extern "C" {`
    if kind(k - 1) == Tok::Str && k >= 2 && text(k - 2) == b"extern" {
        return Scope::Namespace(None);
    }
    // `namespace {`, `namespace a::b {`, `inline namespace v1 {`
    let mut j = k;
    let mut parts: Vec<&[u8]> = Vec::new();
    while j > decl_start && kind(j - 1) == Tok::Ident && text(j - 1) != b"namespace" {
        parts.push(text(j - 1));
        j -= 1;
        if j > decl_start && text(j - 1) == b"::" {
            j -= 1;
        } else {
            break;
        }
    }
    if j > decl_start && text(j - 1) == b"namespace" {
        parts.reverse();
        let name = parts
            .iter()
            .map(|p| String::from_utf8_lossy(p))
            .collect::<Vec<_>>()
            .join("::");
        return Scope::Namespace(Some(name));
    }
    // `struct S {`, `class S : public B<T> {`, `template <class T> struct S {`.
    let head: Vec<usize> = (decl_start..k).collect();
    if head
        .iter()
        .any(|&j| matches!(text(j), b"=" | b"(" | b"return" | b"enum"))
    {
        return Scope::Other;
    }
    // The last `class`/`struct`/`union` keyword at template depth 0 names the class.
    let mut angle = 0i32;
    let mut name = None;
    for (n, &j) in head.iter().enumerate() {
        match text(j) {
            b"<" => angle += 1,
            b">" => angle -= 1,
            b"class" | b"struct" | b"union" if angle == 0 => {
                name = head
                    .get(n + 1)
                    .filter(|&&x| kind(x) == Tok::Ident)
                    .map(|&x| String::from_utf8_lossy(text(x)).into_owned());
            }
            _ => {}
        }
    }
    name.map_or(Scope::Other, Scope::Class)
}

/// Parameter types of a parameter list (code positions `a..b`), each token as written and as
/// the port names it; parameter names and default arguments are dropped.
fn param_types(
    src: &[u8],
    l: &Lexed,
    code: &[usize],
    a: usize,
    b: usize,
    rename: &dyn Fn(&str) -> Option<String>,
) -> (String, String) {
    let text = |j: usize| l.tokens[code[j]].text(src);
    let kind = |j: usize| l.tokens[code[j]].kind;
    let mut parts: Vec<Vec<usize>> = vec![Vec::new()];
    let mut depth = 0i32;
    for j in a..b {
        match text(j) {
            b"(" | b"[" | b"{" | b"<" => depth += 1,
            b")" | b"]" | b"}" | b">" => depth -= 1,
            b"," if depth == 0 => {
                parts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().expect("one part").push(j);
    }
    let mut cuda = Vec::new();
    let mut hip = Vec::new();
    for mut part in parts {
        if let Some(eq) = part.iter().position(|&j| text(j) == b"=") {
            part.truncate(eq);
        }
        // A trailing name: an identifier after something else, not a type word, not `a::b`.
        if part.len() >= 2 {
            let last = part[part.len() - 1];
            let word = String::from_utf8_lossy(text(last));
            if kind(last) == Tok::Ident
                && !TYPE_WORDS.contains(&word.as_ref())
                && text(part[part.len() - 2]) != b"::"
                && rename(&word).is_none()
            {
                part.pop();
            }
        }
        let words: Vec<String> = part
            .iter()
            .map(|&j| String::from_utf8_lossy(text(j)).into_owned())
            .collect();
        let renamed: Vec<String> = words
            .iter()
            .map(|w| rename(w).unwrap_or_else(|| w.clone()))
            .collect();
        cuda.push(words.join(" "));
        hip.push(renamed.join(" "));
    }
    (cuda.join(", "), hip.join(", "))
}

/// Function definitions at file, namespace and class scope (never inside a function body),
/// with a head of names, `&` and `*` only (no templates, no macro calls, no attributes).
/// Linear in the file: each body is skipped once found.
fn scoped_definitions(
    src: &[u8],
    l: &Lexed,
    rename: &dyn Fn(&str) -> Option<String>,
) -> Vec<FnDef> {
    let code = code_tokens(l);
    let m = matching(src, l, &code);
    let text = |k: usize| l.tokens[code[k]].text(src);
    let kind = |k: usize| l.tokens[code[k]].kind;
    let mut out = Vec::new();
    let mut scopes: Vec<Scope> = Vec::new();
    let mut decl_start = 0usize;
    let mut k = 0;
    while k < code.len() {
        match (kind(k), text(k)) {
            (Tok::Punct, b"{") => {
                scopes.push(scope_of_brace(src, l, &code, decl_start, k));
                decl_start = k + 1;
            }
            (Tok::Punct, b"}") => {
                scopes.pop();
                decl_start = k + 1;
            }
            (Tok::Punct, b";") => decl_start = k + 1,
            (Tok::Punct, b":")
                if k > 0 && matches!(text(k - 1), b"public" | b"private" | b"protected") =>
            {
                decl_start = k + 1
            }
            (Tok::Ident, name)
                if !scopes.contains(&Scope::Other)
                    && k + 1 < code.len()
                    && text(k + 1) == b"("
                    && !NOT_A_NAME.contains(&String::from_utf8_lossy(name).as_ref()) =>
            {
                let open = k + 1;
                let close = m[open];
                // Qualifiers between `)` and `{` (`const`, `noexcept`, `override`).
                let mut body = close.saturating_add(1);
                while body < code.len() && kind(body) == Tok::Ident {
                    body += 1;
                }
                let ok_head = (decl_start..k).all(|j| {
                    kind(j) == Tok::Ident
                        || (kind(j) == Tok::Punct && matches!(text(j), b"&" | b"*"))
                }) && (decl_start..k).any(|j| kind(j) == Tok::Ident);
                if close != usize::MAX
                    && body < code.len()
                    && text(body) == b"{"
                    && m[body] != usize::MAX
                {
                    if ok_head {
                        let (mut cuda, mut hip) =
                            param_types(src, l, &code, open + 1, close, rename);
                        for j in close + 1..body {
                            let q = String::from_utf8_lossy(text(j));
                            cuda.push(' ');
                            cuda.push_str(&q);
                            hip.push(' ');
                            hip.push_str(&q);
                        }
                        let names: Vec<String> = scopes
                            .iter()
                            .filter_map(|s| match s {
                                Scope::Namespace(n) => n.clone(),
                                Scope::Class(n) => Some(n.clone()),
                                Scope::Other => None,
                            })
                            .collect();
                        out.push(FnDef {
                            scope: names.join("::"),
                            name: String::from_utf8_lossy(name).into_owned(),
                            cuda,
                            hip,
                            def: (
                                l.tokens[code[decl_start]].start as usize,
                                l.tokens[code[m[body]]].end as usize,
                            ),
                            plist: (
                                l.tokens[code[open]].start as usize,
                                l.tokens[code[close]].end as usize,
                            ),
                        });
                    }
                    // Nothing inside the body is a declaration scope.
                    k = m[body] + 1;
                    decl_start = k;
                    continue;
                }
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// The macro that lets only the first of a set of colliding overloads compile.
fn once_macro(d: &FnDef) -> String {
    let raw = format!("HIPPORT_ONCE_{}_{}_{}", d.scope, d.name, d.hip);
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '_' };
        // No doubled underscores from punctuation (`a::b`, `x, y`): they are reserved names.
        if !(c == '_' && out.ends_with('_') && out.len() > "HIPPORT_ONCE".len()) {
            out.push(c);
        }
    }
    out.trim_end_matches('_').to_string()
}

/// Whether a file may hold overloads that collide after the port (a byte search).
fn may_collide(src: &[u8]) -> bool {
    memchr::memmem::find(src, b"CU").is_some() || memchr::memmem::find(src, b"cuda").is_some()
}

/// Overloads whose parameter types are different CUDA types the port names alike
/// (`cudaError_t`/`CUresult` → `hipError_t`, `cudaStream_t`/`CUstream` → `hipStream_t`), or a
/// CUDA overload beside its hand-written HIP twin: after the port they are one function defined
/// twice. At file and namespace scope (and in a class body), each definition of the set is
/// wrapped in `#ifndef HIPPORT_ONCE_…` / `#define …` / `#endif`, so whichever one a unit
/// compiles first serves every call (they take the same HIP type) and the others drop out
/// (HP009, PASS). Where a definition cannot be guarded on lines of its own, HP009 stays
/// REMEDIATION. On the output every copy names the HIP type, so nothing collides on a rerun.
pub(super) fn run(p: &mut Pass) {
    let src = p.src();
    if !may_collide(src) {
        return;
    }
    let (m, target) = (p.m, p.opts.target);
    let rename = |w: &str| match m.resolve(w, &target) {
        Some(crate::mappings::Resolution::Rename { to, .. }) => Some(to.to_string()),
        _ => None,
    };
    let mut defs = scoped_definitions(src, p.lexed, &rename);
    // A copy HIP never compiles (`#ifndef __HIP_PLATFORM_AMD__`, the `#else` of
    // `#ifdef __HIPCC__`) collides with nothing.
    let free = hip_free_at(
        src,
        p.lexed,
        &defs.iter().map(|d| d.def.0).collect::<Vec<_>>(),
    );
    let mut keep = free.iter().map(|f| !f);
    defs.retain(|_| keep.next().unwrap_or(true));
    let mut groups: std::collections::BTreeMap<(&str, &str, &str), Vec<&FnDef>> =
        std::collections::BTreeMap::new();
    for d in &defs {
        groups
            .entry((d.scope.as_str(), d.name.as_str(), d.hip.as_str()))
            .or_default()
            .push(d);
    }
    let nl = crate::source::newline_of(src);
    let mut sets: Vec<Vec<&FnDef>> = groups
        .into_values()
        .filter(|g| {
            let first = &g[0].cuda;
            g.iter().any(|d| d.cuda != *first) && g.iter().any(|d| d.cuda != d.hip)
        })
        .collect();
    sets.sort_by_key(|g| g[0].def.0);
    for set in sets {
        let spans: Option<Vec<(usize, usize)>> = set
            .iter()
            .map(|d| guard_span(src, p.lexed, d.def.0, d.def.1))
            .collect();
        let last = set[set.len() - 1];
        let first = set[0];
        let lines: Vec<String> = set[..set.len() - 1]
            .iter()
            .map(|d| {
                format!(
                    "`{}({})` at line {}",
                    d.name,
                    d.cuda,
                    p.ctx.lines.position(src, d.def.0).line
                )
            })
            .collect();
        let what = format!(
            "`{}({})` and {} are {} `{}({})` after the port",
            last.name,
            last.cuda,
            lines.join(", "),
            if set.len() == 2 { "both" } else { "all" },
            first.name,
            first.hip
        );
        let Some(spans) = spans else {
            p.findings.push(p.ctx.finding(
                &rules::OVERLOADS_COLLIDE,
                last.plist.0..last.plist.1,
                format!("{what}: a unit that compiles both redefines it"),
                Some("keep one for HIP: guard the others with `#if !defined(__HIP__)`, or rename one".into()),
            ));
            continue;
        };
        let mac = once_macro(first);
        for (start, end) in spans {
            let lead_at = |at: usize| {
                if at > 0 && src[at - 1] != b'\n' {
                    nl
                } else {
                    ""
                }
            };
            p.edits.push(Edit::insert(
                start,
                format!("{}#ifndef {mac}{nl}#define {mac}{nl}", lead_at(start)),
            ));
            let close = Edit::insert(end, format!("{}#endif  // {mac}{nl}", lead_at(end)));
            match p.edits.iter().position(|x| x.start == end && x.end == end) {
                Some(i) => p.edits.insert(i, close),
                None => p.edits.push(close),
            }
        }
        p.stats.fixups += 1;
        let mut f = p.ctx.finding(
            &rules::OVERLOADS_COLLIDE,
            last.plist.0..last.plist.1,
            format!("{what}: each copy is wrapped in `#ifndef {mac}`, so the first one a unit compiles serves every call and the others drop out"),
            Some("keep the copy HIP should use and delete the others when tidying the port".into()),
        );
        f.status = crate::gate::Status::Pass;
        p.findings.push(f);
    }
}

#[cfg(test)]
mod tests {
    fn ported(src: &str) -> (String, Vec<crate::finding::Finding>) {
        let opts = crate::translate::Options::for_tests("6.2", false);
        let t = crate::translate::translate_bytes(
            "helper.h",
            src.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        assert_eq!(t.conflicts, 0);
        let out = String::from_utf8(t.output).unwrap();
        // A rerun on the output finds nothing more to guard.
        let again = crate::translate::translate_bytes(
            "helper.h",
            out.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        assert_eq!(String::from_utf8(again.output).unwrap(), out, "idempotent");
        assert!(again.findings.iter().all(|f| f.rule != "HP009"));
        let hp009 = t
            .findings
            .into_iter()
            .filter(|f| f.rule == "HP009")
            .collect();
        (out, hp009)
    }

    /// cuda-samples' helper_cuda.h: `_cudaGetErrorEnum(cudaError_t)` and `(CUresult)` are one
    /// function after the port, whatever the parameters are called; overloads on types HIP keeps
    /// apart (`cublasStatus_t` → `hipblasStatus_t`), other names and other parameter types are
    /// not. A CUDA overload beside a hand-written HIP twin collides too.
    #[test]
    fn colliding_overloads_are_guarded_first_wins() {
        let src = "static const char *_cudaGetErrorEnum(cudaError_t error) { return \"\"; }\n\
            #ifdef CUDA_DRIVER_API\n\
            static const char *_cudaGetErrorEnum(CUresult err) { return \"\"; }\n\
            #endif\n\
            static const char *_cudaGetErrorEnum(cublasStatus_t error) { return \"\"; }\n\
            void sync(cudaStream_t s) {}\n\
            void sync(int s) {}\n\
            void check(hipError_t e, int line = 0) {}\n\
            void check(cudaError_t e, int line = 0) {}\n\
            void other(CUresult error) {}\n";
        let (out, found) = ported(src);
        let lines: Vec<u32> = found.iter().map(|f| f.line).collect();
        assert_eq!(lines, [3, 9], "{found:?}");
        assert!(found.iter().all(|f| f.status == crate::gate::Status::Pass));
        assert!(found[0]
            .message
            .contains("`_cudaGetErrorEnum(cudaError_t)` at line 1"));
        let mac = "HIPPORT_ONCE_cudaGetErrorEnum_hipError_t";
        assert_eq!(
            out.matches(&format!("#ifndef {mac}\n#define {mac}\n"))
                .count(),
            2
        );
        assert_eq!(out.matches(&format!("#endif  // {mac}\n")).count(), 2);
        assert!(
            out.contains("#ifndef HIPPORT_ONCE_check_hipError_t_int\n"),
            "{out}"
        );
        // Not guarded: different HIP types, a single definition.
        for line in [
            "static const char *_cudaGetErrorEnum(hipblasStatus_t error)",
            "void sync(hipStream_t s) {}",
            "void other(hipError_t error) {}",
        ] {
            let at = out.find(line).unwrap_or_else(|| panic!("{line}\n{out}"));
            let before = out[..at].lines().last().unwrap_or("");
            assert!(!before.starts_with("#define HIPPORT_ONCE"), "{line}\n{out}");
        }
        assert!(!out.contains("HIPPORT_ONCE_sync") && !out.contains("HIPPORT_ONCE_other"));
    }

    /// Scopes: overloads in one class or namespace collide; the same name in two namespaces,
    /// a local declaration or a function body does not; templates are never touched.
    #[test]
    fn colliding_overloads_by_scope() {
        let src = "namespace a {\n\
            void f(cudaStream_t s) {}\n\
            }\n\
            namespace b {\n\
            void f(CUstream s) {}\n\
            }\n\
            struct S : public Base<int> {\n\
             public:\n\
              void set(cudaStream_t s) const { }\n\
              void set(CUstream s) const { }\n\
            };\n\
            void g() {\n\
              auto h = [](cudaStream_t s) {};\n\
              auto k = [](CUstream s) {};\n\
            }\n\
            template <typename T> void t(cudaError_t e) {}\n\
            template <typename T> void t(CUresult e) {}\n";
        let (out, found) = ported(src);
        let lines: Vec<u32> = found.iter().map(|f| f.line).collect();
        assert_eq!(lines, [10], "{found:?}");
        assert!(
            out.contains("#ifndef HIPPORT_ONCE_S_set_hipStream_t_const\n"),
            "{out}"
        );
        assert_eq!(out.matches("#ifndef").count(), 2, "{out}");
    }

    /// Copies HIP never compiles are not part of a collision: a project that already keeps its
    /// CUDA overload from HIP, or writes the HIP one in the `#ifdef __HIPCC__` arm.
    #[test]
    fn colliding_overloads_in_hip_free_branches_are_left() {
        let src = "void f(cudaError_t e) {}\n\
            #ifndef __HIP_PLATFORM_AMD__\n\
            void f(CUresult e) {}\n\
            #endif\n\
            #ifdef __HIPCC__\n\
            void g(hipStream_t s) {}\n\
            #else\n\
            void g(cudaStream_t s) {}\n\
            #endif\n";
        let (out, found) = ported(src);
        assert!(found.is_empty(), "{found:?}");
        assert!(!out.contains("HIPPORT_ONCE"), "{out}");
    }

    /// A copy that cannot be guarded on lines of its own (it shares its line with other code)
    /// leaves the whole set unguarded and HP009 a REMEDIATION.
    #[test]
    fn colliding_overloads_on_a_shared_line_are_reported_not_guarded() {
        let src = "static int x = 0; void f(cudaStream_t s) {}\nvoid f(CUstream s) {}\n";
        let (out, found) = ported(src);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].status, crate::gate::Status::Remediation);
        assert!(!out.contains("HIPPORT_ONCE"), "{out}");
    }
}
