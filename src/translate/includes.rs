//! `#include` paths: CUDA headers to their HIP headers at the target's path, flat HIP library
//! includes (`hiprand.h`) to the installed path (`hiprand/hiprand.h`), unmapped CUDA headers
//! flagged; and the implicit `hip/hip_runtime.h` that nvcc's `cuda_runtime.h` used to provide,
//! with the standard headers that nvcc's runtime header brought and HIP's does not
//! ([`std_headers`]).

mod std_headers;

use super::rules;
use super::{Lang, Pass};
use crate::edit::Edit;
use crate::lex::Tok;

/// HIP headers that declare the runtime API (any of them satisfies the implicit include).
const RUNTIME_HEADERS: &[&str] = &["hip/hip_runtime.h", "hip/hip_runtime_api.h"];

/// The path token of an include directive and its inner text range.
pub(super) fn include_path(p: &Pass, d: usize) -> Option<(usize, std::ops::Range<usize>)> {
    let dir = &p.lexed.directives[d];
    if !matches!(dir.name.as_str(), "include" | "include_next" | "import") {
        return None;
    }
    let i = dir
        .tokens
        .clone()
        .find(|&i| matches!(p.lexed.tokens[i].kind, Tok::HeaderName | Tok::Str))?;
    let t = p.lexed.tokens[i];
    let (s, e) = (t.start as usize, t.end as usize);
    if e < s + 2 {
        return None;
    }
    Some((i, s + 1..e - 1))
}

pub(super) fn run(p: &mut Pass) {
    for d in 0..p.lexed.directives.len() {
        let Some((tok, inner)) = include_path(p, d) else {
            continue;
        };
        let Ok(path) = std::str::from_utf8(&p.src()[inner.clone()]) else {
            continue;
        };
        let path = path.trim().to_string();
        match p.m.include(&path, &p.opts.target) {
            Some(Ok(hip)) => {
                if hip != path {
                    p.edits.push(Edit::replace(inner.start, inner.end, hip));
                    p.stats.includes_rewritten += 1;
                }
            }
            Some(Err(_)) if super::compat::header(p, tok, &path) => {}
            Some(Err(row)) => {
                let rocm = p.opts.target.rocm;
                let note = (!row.note.is_empty()).then(|| row.note.clone());
                unmapped(
                    p,
                    tok,
                    format!("`{path}` has no HIP counterpart in ROCm {rocm}"),
                    note,
                );
            }
            None => {
                let rocm = p.opts.target.rocm;
                if let Some(rest) = in_cuda_install(&path) {
                    // GASAL2's `#include "/usr/local/cuda-10.1/targets/x86_64-linux/include/
                    // cuda_runtime.h"`: the header by its place in one machine's CUDA install.
                    match p.m.include(rest, &p.opts.target) {
                        Some(Ok(hip)) => {
                            p.edits.push(Edit::replace(inner.start, inner.end, hip));
                            p.stats.includes_rewritten += 1;
                        }
                        _ => unmapped(
                            p,
                            tok,
                            format!("`{path}` names a header by its place in a CUDA toolkit install, which no ROCm machine has"),
                            Some(format!("include it by name (`<{rest}>`) with the HIP counterpart's include path")),
                        ),
                    }
                    continue;
                }
                if let Some(full) = flat_hip_header(p, &path) {
                    p.edits.push(Edit::replace(inner.start, inner.end, full));
                    p.stats.includes_rewritten += 1;
                } else if let Some(lib) =
                    crate::mappings::libraries::of_header(&path).filter(|l| l.rocm.is_none())
                {
                    // A library NVIDIA ships with no ROCm counterpart (`libraries.tsv`).
                    unmapped(
                        p,
                        tok,
                        format!(
                            "`{path}` has no HIP counterpart in ROCm {rocm}: {} has no ROCm counterpart",
                            lib.name
                        ),
                        Some(lib.note.clone()),
                    );
                } else if let Some((lib, counterpart)) =
                    crate::mappings::libraries::of_header(&path)
                        .filter(|l| l.headers.contains(&path))
                        .and_then(|l| Some((l, l.rocm.clone()?)))
                {
                    // A header the table names one by one (not by a glob: rocThrust keeps
                    // many of Thrust's `thrust/system/cuda/…` headers) of a library whose ROCm
                    // counterpart has no such header (`cusolverSp_LOWLEVEL_PREVIEW.h`: hipSOLVER
                    // has no low-level sparse Cholesky): left as written, hipcc finds nothing.
                    unmapped(
                        p,
                        tok,
                        format!(
                            "`{path}` has no HIP counterpart in ROCm {rocm}: {counterpart} has no such header ({} is ported by hand)",
                            lib.name
                        ),
                        Some(lib.note.clone()),
                    );
                } else if path.starts_with("cub/") && path.ends_with(".cuh") {
                    // A CUB header hipCUB has no counterpart of (`cub/agent/…`, internals): the
                    // include would find nothing on ROCm, while the `cub::` names around it
                    // become `hipcub::`.
                    unmapped(
                        p,
                        tok,
                        format!("`{path}` has no hipCUB counterpart known in ROCm {rocm}"),
                        Some("include `hipcub/hipcub.hpp` and check that hipCUB has what the file uses".into()),
                    );
                }
            }
        }
    }
}

/// The header an absolute path into a CUDA toolkit install names: the part after its last
/// `include/` folder (`/usr/local/cuda-10.1/targets/x86_64-linux/include/cuda_runtime.h` →
/// `cuda_runtime.h`), for a path whose folders name CUDA.
fn in_cuda_install(path: &str) -> Option<&str> {
    let absolute = path.starts_with('/')
        || path
            .as_bytes()
            .get(1..3)
            .is_some_and(|s| s == b":/" || s == b":\\");
    if !absolute {
        return None;
    }
    let normal = path.replace('\\', "/");
    let at = normal.rfind("/include/")?;
    let dirs = normal[..at].to_ascii_lowercase();
    (dirs.contains("cuda") || dirs.contains("nvidia")).then(|| &path[at + "/include/".len()..])
}

/// HP004 at the include's path token `tok`: the header is left as written.
fn unmapped(p: &mut Pass, tok: usize, message: String, note: Option<String>) {
    p.stats.unported += 1;
    let t = p.lexed.tokens[tok];
    let f = p
        .ctx
        .finding(&rules::UNMAPPED_INCLUDE, t.range(), message, note);
    p.findings.push(f);
}

/// `hiprand.h` → `hiprand/hiprand.h` where the target installs the library in a subdirectory.
fn flat_hip_header(p: &Pass, path: &str) -> Option<String> {
    if path.contains('/') {
        return None;
    }
    let lib = ["hip", "roc", "miopen", "rccl"];
    if !lib.iter().any(|l| path.starts_with(l)) {
        return None;
    }
    p.m.includes
        .iter()
        .filter(|r| r.range.contains(p.opts.target.rocm))
        .flat_map(|r| [r.hip.as_deref(), r.roc.as_deref()])
        .flatten()
        .find(|h| h.contains('/') && h.rsplit('/').next() == Some(path) && !h.starts_with("hip/"))
        .map(str::to_string)
}

/// Whether the translated file already includes one of `headers` (or will after our edits)
/// outside `extern "C"` blocks (where a C++ HIP header does not compile).
fn includes_any(p: &Pass, headers: &[&str], blocks: &[ExternC]) -> bool {
    let edits = edits_by_range(p);
    for d in 0..p.lexed.directives.len() {
        let Some((_, inner)) = include_path(p, d) else {
            continue;
        };
        let at = p.lexed.directives[d].start;
        if blocks.iter().any(|b| b.open <= at && at < b.end) {
            continue;
        }
        let Ok(path) = std::str::from_utf8(&p.src()[inner.clone()]) else {
            continue;
        };
        let path = path.trim();
        let after = edits
            .get(&(inner.start, inner.end))
            .copied()
            .unwrap_or(path);
        if headers.contains(&after) {
            return true;
        }
    }
    false
}

/// Device-code markers that need the HIP runtime header under hipcc.
const CUDA_MARKERS: &[&[u8]] = &[
    b"__global__",
    b"__device__",
    b"__shared__",
    b"__constant__",
    b"threadIdx",
    b"blockIdx",
    b"blockDim",
    b"gridDim",
    b"dim3",
];

fn needs_runtime(p: &Pass) -> bool {
    p.stats.renamed_total() > 0
        || p.stats.unported > 0
        || p.stats.unchanged_api > 0
        || has_device_code(p)
        || includes_local_header(p)
}

/// A `.cu` file that includes a project header (`#include "…"`): nvcc put `cuda_runtime.h`
/// before that header, which may use CUDA names without including anything itself. The
/// generated `hipport_compat.h` is not one: it includes the runtime itself, and counting it
/// would add the runtime include on a rerun only (the first run saw `<math_constants.h>`).
fn includes_local_header(p: &Pass) -> bool {
    let is_cu = p
        .ctx
        .path
        .rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case("cu"));
    is_cu
        && (0..p.lexed.directives.len()).any(|d| {
            include_path(p, d).is_some_and(|(tok, inner)| {
                p.lexed.tokens[tok].kind == Tok::Str
                    && p.src()[inner].rsplit(|&c| c == b'/').next()
                        != Some(crate::compat::HEADER_NAME.as_bytes())
            })
        })
}

/// A CUDA vector type or its constructor (`uint4`, `make_float2`), which nvcc's implicit
/// `cuda_runtime.h` declared and HIP declares in `hip_runtime.h`.
fn is_vector_type(name: &[u8]) -> bool {
    let name = name.strip_prefix(b"make_").unwrap_or(name);
    let Some((&n, base)) = name.split_last() else {
        return false;
    };
    const BASES: &[&[u8]] = &[
        b"char",
        b"uchar",
        b"short",
        b"ushort",
        b"int",
        b"uint",
        b"long",
        b"ulong",
        b"longlong",
        b"ulonglong",
        b"float",
        b"double",
    ];
    (b'1'..=b'4').contains(&n) && BASES.contains(&base)
}

/// Kernels, built-in variables, launches or vector types: what `hip_runtime_api.h` alone does
/// not declare.
fn has_device_code(p: &Pass) -> bool {
    p.lexed.tokens.iter().any(|t| {
        t.kind == Tok::Ident
            && (CUDA_MARKERS.contains(&t.text(p.src())) || is_vector_type(t.text(p.src())))
            || (t.kind == Tok::Punct
                && t.text(p.src()) == b"<"
                && p.src().get(t.start as usize..t.start as usize + 3) == Some(b"<<<"))
    })
}

/// HIP headers that are not self-contained: they need the runtime header included first.
const NEEDS_RUNTIME_FIRST: &[&str] = &["hip/hip_cooperative_groups.h"];

/// The replacement of each edited byte range (the first edit of a range, as a search in order
/// would find it), so that looking up every include is linear in the file, not includes × edits.
fn edits_by_range<'p>(p: &'p Pass) -> std::collections::HashMap<(usize, usize), &'p str> {
    let mut m = std::collections::HashMap::with_capacity(p.edits.len());
    for e in &p.edits {
        m.entry((e.start, e.end)).or_insert(e.replacement.as_str());
    }
    m
}

/// The translated path of each include directive, with the directive's start offset.
fn translated_includes(p: &Pass) -> Vec<(usize, String)> {
    let edits = edits_by_range(p);
    let mut v = Vec::new();
    for d in 0..p.lexed.directives.len() {
        let Some((_, inner)) = include_path(p, d) else {
            continue;
        };
        let Ok(path) = std::str::from_utf8(&p.src()[inner.clone()]) else {
            continue;
        };
        let after = edits
            .get(&(inner.start, inner.end))
            .map(|r| r.to_string())
            .unwrap_or_else(|| path.trim().to_string());
        v.push((p.lexed.directives[d].start, after));
    }
    v
}

/// nvcc includes `cuda_runtime.h` in every `.cu` file; hipcc does not include its counterpart.
/// And `hip_cooperative_groups.h` needs the runtime header before it, where CUDA's does not.
/// Then the standard headers that came with nvcc's runtime header and not with HIP's.
pub(super) fn implicit(p: &mut Pass) {
    if !p.opts.implicit_include {
        return;
    }
    let at = implicit_runtime(p);
    std_headers::insert(p, at);
}

/// The runtime include of [`implicit`]: the offset where it was inserted, if it was.
fn implicit_runtime(p: &mut Pass) -> Option<usize> {
    let hoisted = hoist_out_of_extern_c(p);
    let incs = translated_includes(p);
    let first_runtime = incs
        .iter()
        .find(|(_, h)| RUNTIME_HEADERS.contains(&h.as_str()))
        .map(|(at, _)| *at);
    let first_dependent = incs
        .iter()
        .find(|(_, h)| NEEDS_RUNTIME_FIRST.contains(&h.as_str()))
        .map(|(at, _)| *at);
    if let Some(dep) = first_dependent {
        if first_runtime.is_none_or(|r| r > dep) {
            let at = dep - line_indent(p.src(), dep);
            let nl = crate::source::newline_of(p.src());
            let lead = lead_newline(p.src(), at, nl);
            p.edits.push(Edit::insert(
                at,
                format!("{lead}#include <hip/hip_runtime.h>{nl}"),
            ));
            p.stats.includes_inserted += 1;
            return Some(at);
        }
    }
    if p.lang != Lang::Cuda {
        return None;
    }
    // `hip_runtime_api.h` (from `cuda_runtime_api.h`, `cuda_profiler_api.h`…) declares the host
    // API only; device code still needs the full runtime header that nvcc included implicitly.
    let blocks = extern_c_blocks(p);
    let has = |hs: &[&str]| {
        hoisted.iter().any(|h| hs.contains(&h.as_str())) || includes_any(p, hs, &blocks)
    };
    if has(&["hip/hip_runtime.h"])
        || (has(RUNTIME_HEADERS) && !has_device_code(p))
        || !needs_runtime(p)
    {
        return None;
    }
    let at = insertion_point(p);
    let nl = crate::source::newline_of(p.src());
    let lead = lead_newline(p.src(), at, nl);
    p.edits.push(Edit::insert(
        at,
        format!("{lead}#include <hip/hip_runtime.h>{nl}"),
    ));
    p.stats.includes_inserted += 1;
    Some(at)
}

/// Before the first unconditional `#include`; else after an include guard or `#pragma once`;
/// else before the first line of code. Never after the first line of code (or the conditional
/// block holding it), never before a UTF-8 BOM.
pub(super) fn insertion_point(p: &Pass) -> usize {
    outside_extern_c(p, first_insertion_point(p))
}

/// An include inside `extern "C" { … }` would give the C++ HIP headers C linkage ("templates
/// must have C++ linkage"): move the point before the block, and before the
/// `#ifdef __cplusplus` that usually wraps its opening line.
fn outside_extern_c(p: &Pass, at: usize) -> usize {
    extern_c_blocks(p)
        .into_iter()
        .find(|b| b.extern_at < at && at <= b.end)
        .map_or(at, |b| b.before)
}

/// One `extern "C" { … }` block.
struct ExternC {
    /// Offset of `extern`.
    extern_at: usize,
    /// Where a directive goes to come before the block: the start of the `extern` line, or of
    /// the `#ifdef __cplusplus` line right before it.
    before: usize,
    /// Offset just after `{`.
    open: usize,
    /// Offset just after the matching `}` (the end of the file when unclosed).
    end: usize,
}

/// The outermost `extern "C" { … }` blocks of the file, in order (one pass over the tokens).
fn extern_c_blocks(p: &Pass) -> Vec<ExternC> {
    let toks = &p.lexed.tokens;
    let text = |i: usize| toks[i].text(p.src());
    let mut v = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let found = (toks[k].kind == Tok::Ident && text(k) == b"extern")
            .then(|| p.lexed.next_code(k).filter(|&c| text(c) == b"\"C\""))
            .flatten()
            .and_then(|c| p.lexed.next_code(c).filter(|&o| text(o) == b"{"));
        let Some(open) = found else {
            k += 1;
            continue;
        };
        let mut depth = 0i32;
        let mut close = toks.len();
        for (j, t) in toks.iter().enumerate().skip(open) {
            if t.kind != Tok::Punct {
                continue;
            }
            match text(j) {
                b"{" => depth += 1,
                b"}" => {
                    depth -= 1;
                    if depth == 0 {
                        close = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = toks.get(close).map_or(p.src().len(), |t| t.end as usize);
        let start = toks[k].start as usize;
        let mut before = start - line_indent(p.src(), start);
        // `#ifdef __cplusplus` / `#if defined(__cplusplus)` on the line before.
        if let Some(d) = p.lexed.directives.iter().rev().find(|d| d.end < before) {
            let line = &p.src()[d.start..d.end];
            if matches!(d.name.as_str(), "ifdef" | "if")
                && memchr::memmem::find(line, b"__cplusplus").is_some()
                && p.src()[d.end..before]
                    .iter()
                    .all(|b| b.is_ascii_whitespace())
            {
                before = d.start - line_indent(p.src(), d.start);
            }
        }
        v.push(ExternC {
            extern_at: start,
            before,
            open: toks[open].end as usize,
            end,
        });
        k = close.max(k + 1);
    }
    v
}

/// Includes that the translation rewrote inside an `extern "C"` block, with no conditional
/// opened inside the block around them: CUDA's C headers (`cuda.h`, `cuda_runtime_api.h`)
/// are valid there, the C++ HIP headers they become are not. Each HIP header is included once
/// more before its block, so the inner include is a no-op (every HIP header has an include
/// guard). Returns the headers hoisted.
fn hoist_out_of_extern_c(p: &mut Pass) -> Vec<String> {
    let blocks = extern_c_blocks(p);
    if blocks.is_empty() {
        return Vec::new();
    }
    let edits = edits_by_range(p);
    let mut hoist: Vec<(usize, String)> = Vec::new();
    for d in 0..p.lexed.directives.len() {
        let Some((_, inner)) = include_path(p, d) else {
            continue;
        };
        let Some(after) = edits.get(&(inner.start, inner.end)) else {
            continue;
        };
        let at = p.lexed.directives[d].start;
        let Some(b) = blocks.iter().find(|b| b.open <= at && at < b.end) else {
            continue;
        };
        // Conditionals opened inside the block and still open at the include.
        let mut depth = 0usize;
        for dir in &p.lexed.directives {
            if dir.start < b.open {
                continue;
            }
            if dir.start >= at {
                break;
            }
            match dir.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if depth == 0 && !hoist.iter().any(|(w, h)| *w == b.before && h == after) {
            hoist.push((b.before, after.to_string()));
        }
    }
    let nl = crate::source::newline_of(p.src());
    let mut hoisted = Vec::new();
    for (at, h) in hoist {
        let lead = lead_newline(p.src(), at, nl);
        p.edits
            .push(Edit::insert(at, format!("{lead}#include <{h}>{nl}")));
        p.stats.includes_inserted += 1;
        hoisted.push(h);
    }
    hoisted
}

fn first_insertion_point(p: &Pass) -> usize {
    let src = p.src();
    let bom = if src.starts_with(crate::source::UTF8_BOM) {
        3
    } else {
        0
    };
    let dirs = &p.lexed.directives;
    let mut depth = 0i32;
    let mut guard_end: Option<usize> = None;
    // An include guard: the first directive is #ifndef X and the second #define X.
    let guarded = dirs.len() >= 2
        && dirs[0].name == "ifndef"
        && dirs[1].name == "define"
        && first_code_is_directive(p, 0);
    let base = if guarded { 1 } else { 0 };
    // The first line of code outside directives: nvcc's runtime header came before it, so the
    // include goes no later than that line (or the conditional block holding it).
    let first_code = p
        .lexed
        .tokens
        .iter()
        .find(|t| t.kind != Tok::Comment && !t.in_directive())
        .map(|t| t.start as usize);
    let mut outer_if = 0usize;
    for (k, d) in dirs.iter().enumerate() {
        if let Some(c) = first_code.filter(|&c| c < d.start) {
            if depth == base {
                let line = (c - line_indent(src, c)).max(bom);
                // Right after an include guard or `#pragma once` when the code follows it.
                return guard_end.filter(|&g| g <= line).unwrap_or(line);
            }
            if depth > base {
                return outer_if;
            }
        }
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                if depth == base {
                    outer_if = d.start - line_indent(src, d.start);
                }
                depth += 1
            }
            "endif" => depth -= 1,
            "pragma" if depth == 0 && guard_end.is_none() => {
                let text = &src[d.start..d.end];
                if text.windows(4).any(|w| w == b"once") {
                    guard_end = Some(line_after(src, d.end));
                }
            }
            "define" if k == 1 && guarded => guard_end = Some(line_after(src, d.end)),
            "include" if depth == base => return d.start - line_indent(src, d.start),
            _ => {}
        }
    }
    if let Some(g) = guard_end {
        return g;
    }
    // Before the first token that is not a comment, at the start of its line.
    match p.lexed.tokens.iter().find(|t| t.kind != Tok::Comment) {
        Some(t) => (t.start as usize - line_indent(src, t.start as usize)).max(bom),
        None => src.len().max(bom),
    }
}

/// A line break to put before a directive inserted at `at` when `at` is not at the start of a
/// line (after `*/` closing a comment that began on an earlier line, or at a file's unterminated
/// last line): a directive must start its own line.
fn lead_newline<'n>(src: &[u8], at: usize, nl: &'n str) -> &'n str {
    let bom = if src.starts_with(crate::source::UTF8_BOM) {
        3
    } else {
        0
    };
    if at > bom && src[at - 1] != b'\n' {
        nl
    } else {
        ""
    }
}

fn first_code_is_directive(p: &Pass, d: usize) -> bool {
    let first = p.lexed.tokens.iter().position(|t| t.kind != Tok::Comment);
    first == Some(p.lexed.directives[d].tokens.start)
}

/// The blank space before `at` on its logical line: blanks and line continuations (`\` before
/// LF or CRLF), so an insertion never lands after a continuation that would join it to the
/// line above.
pub(super) fn line_indent(src: &[u8], at: usize) -> usize {
    let mut k = at;
    loop {
        if k > 0 && (src[k - 1] == b' ' || src[k - 1] == b'\t') {
            k -= 1;
        } else if k >= 2 && src[k - 1] == b'\n' && src[k - 2] == b'\\' {
            k -= 2;
        } else if k >= 3 && src[k - 1] == b'\n' && src[k - 2] == b'\r' && src[k - 3] == b'\\' {
            k -= 3;
        } else {
            break;
        }
    }
    at - k
}

pub(super) fn line_after(src: &[u8], end: usize) -> usize {
    match memchr::memchr(b'\n', &src[end..]) {
        Some(i) => end + i + 1,
        None => src.len(),
    }
}

#[cfg(test)]
mod library_header_tests {
    use crate::mappings::{get, Target};
    use crate::translate::{translate_bytes, LaunchSyntax, Options};

    fn hp004(src: &str) -> Vec<String> {
        let opts = Options {
            target: Target {
                rocm: "6.2.0".parse().unwrap(),
                roc: false,
                experimental: false,
                lds: None,
            },
            launch: LaunchSyntax::Keep,
            implicit_include: false,
            compat_header: false,
            unsafe_fixes: false,
        };
        translate_bytes("a.cu", src.as_bytes(), get(), &opts)
            .findings
            .into_iter()
            .filter(|f| f.rule == "HP004")
            .map(|f| f.message)
            .collect()
    }

    /// GASAL2's include of `cuda_runtime.h` by its place in a CUDA 10.1 install: ported to
    /// HIP's header. A header of that install HIP has no counterpart of is HP004 naming the
    /// install. Twins: an absolute path into the project's own folders stays as written.
    #[test]
    fn a_header_named_by_its_place_in_a_cuda_install_is_ported() {
        let port = |src: &str| {
            let opts = crate::translate::Options::for_tests("6.2", false);
            let t = crate::translate::translate_bytes(
                "gasal.h",
                src.as_bytes(),
                crate::mappings::get(),
                &opts,
            );
            (String::from_utf8(t.output).unwrap(), t.findings)
        };
        let (out, _) =
            port("#include \"/usr/local/cuda-10.1/targets/x86_64-linux/include/cuda_runtime.h\"\n");
        assert!(out.contains("#include \"hip/hip_runtime.h\""), "{out}");
        let (_, found) = port("#include \"/usr/local/cuda/include/no_such_header.h\"\n");
        assert!(
            found
                .iter()
                .any(|f| f.rule == "HP004" && f.message.contains("CUDA toolkit install")),
            "{found:?}"
        );
        let own = "#include \"/opt/proj/include/cudaish/x.h\"\n";
        let (out, _) = port(own);
        assert_eq!(out, own);
        assert_eq!(super::in_cuda_install("/opt/proj/include/x.h"), None);
        assert_eq!(super::in_cuda_install("cuda/include/x.h"), None);
    }

    #[test]
    fn a_library_with_no_rocm_counterpart_is_flagged_at_its_include() {
        let m = hp004("#include <nvcomp/lz4.h>\n#include <cufftdx.hpp>\n");
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(m[0].contains("nvCOMP has no ROCm counterpart"), "{m:?}");
        assert!(m[1].contains("cuFFTDx"), "{m:?}");
        // Twins: a library with a counterpart, and a header of no listed library.
        assert!(hp004("#include <cublas_v2.h>\n#include <mynvcomp/lz4.h>\n").is_empty());
    }

    /// fixstars/cuda-bundle-adjustment includes `<cusolverSp_LOWLEVEL_PREVIEW.h>`: cuSOLVER's
    /// low-level sparse Cholesky, which hipSOLVER (its counterpart) has no header or API for.
    /// Twin: `<cusolverSp.h>`, which hipSOLVER's header replaces, is translated.
    #[test]
    fn a_library_header_its_counterpart_lacks_is_flagged_at_its_include() {
        let m = hp004("#include <cusolverSp.h>\n#include <cusolverSp_LOWLEVEL_PREVIEW.h>\n");
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].contains("`cusolverSp_LOWLEVEL_PREVIEW.h` has no HIP counterpart")
                && m[0].contains("hipSOLVER has no such header"),
            "{m:?}"
        );
        let lib = crate::mappings::libraries::of_name("cusolverSpDcsrcholFactor")
            .map(|l| l.name.as_str());
        assert_eq!(lib, Some("cuSOLVER low-level sparse Cholesky"));
        assert_eq!(
            crate::mappings::libraries::of_name("cusolverSpDcsrlsvchol").map(|l| l.name.as_str()),
            None
        );
    }

    /// The primitive headers behind `<cuda_pipeline.h>` and `<cuda_awbarrier.h>` (SpargeAttn
    /// includes `<cuda_pipeline_primitives.h>` directly, set 44) have no HIP counterpart either.
    #[test]
    fn pipeline_and_barrier_primitive_headers_have_no_hip_counterpart() {
        let m = hp004(
            "#include <cuda_pipeline_primitives.h>\n#include <cuda_awbarrier_primitives.h>\n",
        );
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(
            m[0].contains("`cuda_pipeline_primitives.h` has no HIP counterpart"),
            "{m:?}"
        );
        assert!(hp004("#include <cuda_fp16.h>\n").is_empty());
    }

    /// nv-wavenet's `nv_wavenet_util.cuh` includes CUDA's header-only occupancy calculator
    /// (`"cuda_occupancy.h"`, `cudaOccMaxActiveBlocksPerMultiprocessor`): no HIP counterpart.
    /// Twin: `<cuda_runtime.h>`, whose occupancy functions HIP has.
    #[test]
    fn the_occupancy_calculator_header_has_no_hip_counterpart() {
        let m = hp004("#include \"cuda_occupancy.h\"\n#include <cuda_runtime.h>\n");
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].contains("`cuda_occupancy.h` has no HIP counterpart"),
            "{m:?}"
        );
    }
}
