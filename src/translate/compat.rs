//! With `--compat-header`: uses of CUDA names and headers the target lacks, where a
//! `hipport_compat.h` shim covers them, are renamed to the later release's name, reported as
//! shimmed (HP020 PASS for the release's own implementation, HP021 otherwise), and the file
//! includes the header once.

use super::includes::{include_path, insertion_point, line_after};
use super::rules;
use super::Pass;
use crate::compat::{self, Shim};
use crate::edit::Edit;
use crate::lex::Tok;
use crate::mappings::{Entry, Unported};

/// An un-ported name a shim covers: rename it and report the shim. False when none applies.
pub(super) fn name(p: &mut Pass, i: usize, name: &str, entry: &Entry, why: &Unported) -> bool {
    if !p.opts.compat_header || !matches!(why, Unported::AddedAfter(_) | Unported::NoEquivalent) {
        return false;
    }
    let Some((shim, to)) = compat::for_name(name, entry.hip.as_deref(), &p.opts.target) else {
        return false;
    };
    // The project defines the name for its ROCm build in a header this file includes: that
    // definition is what the ROCm build uses; a shim would be a second one.
    if p.project.rocm_definition(name).is_some() {
        return false;
    }
    let t = p.lexed.tokens[i];
    if to != name {
        p.edits
            .push(Edit::replace(t.start as usize, t.end as usize, &to));
    }
    *p.stats.renamed.entry("compat".into()).or_default() += 1;
    let what = match why {
        Unported::AddedAfter(v) => format!("exists only from ROCm {v}"),
        _ => "has no HIP equivalent".to_string(),
    };
    let shown = if to == name {
        format!("`{name}`")
    } else {
        format!("`{name}` → `{to}`")
    };
    report(
        p,
        shim,
        t.range(),
        format!(
            "{shown} {what}; target ROCm {} gets it from {} (shim `{}`: {})",
            p.opts.target.rocm,
            compat::HEADER_NAME,
            shim.id,
            shim.status_note()
        ),
    );
    true
}

/// An include of a CUDA header with no counterpart in the target that a shim stands in for:
/// the include becomes the compat header's.
pub(super) fn header(p: &mut Pass, tok: usize, path: &str) -> bool {
    if !p.opts.compat_header {
        return false;
    }
    let Some(shim) = compat::for_header(path, &p.opts.target) else {
        return false;
    };
    let t = p.lexed.tokens[tok];
    let new = format!("\"{}\"", compat::include_path(p.ctx.path));
    p.edits
        .push(Edit::replace(t.start as usize, t.end as usize, &new));
    p.compat_included = true;
    p.stats.includes_rewritten += 1;
    let message = header_message(p, shim, path);
    report(p, shim, t.range(), message);
    true
}

/// Shims for overloads the target lacks, wanted by a file that uses all `uses` names and one
/// of the `with` names (`atomicAdd` with `__half2`).
pub(super) fn uses(p: &mut Pass) {
    if !p.opts.compat_header {
        return;
    }
    for shim in compat::shims().iter().filter(|s| !s.uses.is_empty()) {
        if !shim.applies(&p.opts.target) || p.compat.contains(&shim.id) {
            continue;
        }
        let first = |names: &[String]| {
            p.lexed.tokens.iter().position(|t| {
                t.kind == Tok::Ident
                    && names.iter().any(|n| n.as_bytes() == t.text(p.ctx.src))
                    && !after_member_access(p, t.start as usize)
            })
        };
        let all_used = shim
            .uses
            .iter()
            .all(|u| first(std::slice::from_ref(u)).is_some());
        let with = shim.with.is_empty() || first(&shim.with).is_some();
        let Some(at) = first(&shim.uses).filter(|_| all_used && with) else {
            continue;
        };
        if project_defines(p, shim) || included_defines(p, shim) {
            continue;
        }
        let t = p.lexed.tokens[at];
        report(
            p,
            shim,
            t.range(),
            format!(
                "`{}` with `{}`: ROCm {} lacks the overload; {} adds it (shim `{}`: {})",
                shim.uses.join("`, `"),
                shim.with.join("`/`"),
                p.opts.target.rocm,
                compat::HEADER_NAME,
                shim.id,
                shim.status_note()
            ),
        );
    }
}

/// Words before a `(` that make it a call or a statement, not a declaration (shared with
/// `model::project`).
pub(crate) const NOT_A_TYPE: &[&[u8]] = &[
    b"return",
    b"else",
    b"do",
    b"case",
    b"throw",
    b"new",
    b"delete",
    b"sizeof",
    b"co_return",
];

/// Whether the file declares or defines one of the shim's `uses` functions itself with one of
/// its `with` types among the parameters (`__device__ void atomicAdd(half2 *, half2)` in a
/// project's own ROCm layer), or `#define`s the name: the shim would then be a second
/// definition ("functions that differ only in their return type", "ambiguous"), so none is
/// added. A declaration is the name after a type word (an identifier that is not a statement
/// keyword, or `*`/`&`), not after `.`, `->`, `=`, `return`…
fn project_defines(p: &Pass, shim: &Shim) -> bool {
    let l = p.lexed;
    (0..l.tokens.len()).any(|i| {
        let t = l.tokens[i];
        if t.kind != Tok::Ident || !shim.uses.iter().any(|u| u.as_bytes() == p.text(i)) {
            return false;
        }
        if super::own_layer::defined_name(p, i) {
            return true;
        }
        let Some(prev) = l.prev_code(i) else {
            return false;
        };
        let pt = p.text(prev);
        let typed = (l.tokens[prev].kind == Tok::Ident && !NOT_A_TYPE.contains(&pt))
            || pt == b"*"
            || pt == b"&";
        if !typed || t.in_directive() {
            return false;
        }
        let Some((_, args, close)) = super::fixups::call_args(p, i) else {
            return false;
        };
        let first = args.first().map_or(close, |a| a.0);
        (first..close).any(|k| {
            l.tokens[k].kind == Tok::Ident && shim.with.iter().any(|w| w.as_bytes() == p.text(k))
        })
    })
}

/// Whether a project file this file includes (transitively) defines one of the shim's `uses`
/// for the ROCm build: a macro of that name, or a function with one of the `with` types among
/// its parameters (`__device__ void atomicAdd(half2 *, half2)` under `#ifdef USE_ROCM` in the
/// project's `compat.cuh`). The per-file twin is [`project_defines`].
fn included_defines(p: &Pass, shim: &Shim) -> bool {
    shim.uses.iter().any(|u| {
        p.project.rocm.get(u.as_str()).is_some_and(|defs| {
            defs.iter().any(|d| !d.function) || p.project.rocm_overload(u, &shim.with).is_some()
        })
    })
}

/// A rerun: the file already includes `hipport_compat.h`, where a first run replaced the
/// include of a header a shim stands in for. The header's include is gone, so the shims it
/// brought must be recognised from their uses, or the second run reports them as missing
/// (`cg::reduce` as HP001) and regenerates the header without them. Reported at the compat
/// include with the first run's message, so an annotation made then matches.
pub(super) fn rerun(p: &mut Pass) {
    if !p.opts.compat_header {
        return;
    }
    let Some(tok) = compat_include(p) else {
        return;
    };
    for shim in compat::shims() {
        let Some(header) = shim.headers.first() else {
            continue;
        };
        if !shim.applies(&p.opts.target) || p.compat.contains(&shim.id) {
            continue;
        }
        let used = match header.as_str() {
            "cooperative_groups/reduce.h" => calls_cg_reduce(p),
            _ => false,
        };
        if used {
            let t = p.lexed.tokens[tok];
            let message = header_message(p, shim, header);
            report(p, shim, t.range(), message);
        }
    }
}

/// `cg::reduce(`, `cooperative_groups::reduce(`, through a namespace alias or after
/// `using namespace cooperative_groups`.
fn calls_cg_reduce(p: &Pass) -> bool {
    let l = p.lexed;
    let text = |i: usize| p.text(i);
    let mut spaces: Vec<&[u8]> = vec![b"cg", b"cooperative_groups"];
    let mut using = false;
    for (i, t) in l.tokens.iter().enumerate() {
        if t.kind != Tok::Ident || text(i) != b"cooperative_groups" {
            continue;
        }
        let prev = l.prev_code(i);
        let prev2 = prev.and_then(|j| l.prev_code(j));
        match prev.map(text) {
            // `namespace cg2 = cooperative_groups;`
            Some(b"=") => spaces.extend(prev2.map(text)),
            // `using namespace cooperative_groups;`
            Some(b"namespace") => using |= prev2.map(text) == Some(b"using"),
            _ => {}
        }
    }
    l.tokens.iter().enumerate().any(|(i, t)| {
        if t.kind != Tok::Ident || text(i) != b"reduce" || l.next_code(i).map(text) != Some(b"(") {
            return false;
        }
        let Some(before) = l.prev_code(i) else {
            return false;
        };
        match text(before) {
            b"::" => l
                .prev_code(before)
                .is_some_and(|n| spaces.contains(&text(n))),
            b"." | b"->" => false,
            _ => using,
        }
    })
}

/// The token of `#include "…hipport_compat.h"`, when the file has one.
fn compat_include(p: &Pass) -> Option<usize> {
    (0..p.lexed.directives.len()).find_map(|d| {
        include_path(p, d).and_then(|(tok, inner)| {
            p.ctx.src[inner]
                .rsplit(|&c| c == b'/')
                .next()
                .is_some_and(|name| name == compat::HEADER_NAME.as_bytes())
                .then_some(tok)
        })
    })
}

fn header_message(p: &Pass, shim: &Shim, path: &str) -> String {
    format!(
        "`{path}` has no HIP counterpart in ROCm {}; {} provides it (shim `{}`: {})",
        p.opts.target.rocm,
        compat::HEADER_NAME,
        shim.id,
        shim.status_note()
    )
}

fn after_member_access(p: &Pass, start: usize) -> bool {
    let src = p.ctx.src;
    let mut k = start;
    while k > 0 && (src[k - 1] == b' ' || src[k - 1] == b'\t') {
        k -= 1;
    }
    k > 0 && (src[k - 1] == b'.' || (k > 1 && &src[k - 2..k] == b"->"))
}

fn report(p: &mut Pass, shim: &Shim, range: std::ops::Range<usize>, message: String) {
    p.compat.insert(shim.id.clone());
    let (rule, help) = if shim.exact {
        (&rules::COMPAT_SHIM, None)
    } else {
        (
            &rules::COMPAT_SHIM_REVIEW,
            Some(format!(
                "verify at runtime: the shim's note in {} says how it differs",
                compat::HEADER_NAME
            )),
        )
    };
    let f = p.ctx.finding(rule, range, message, help);
    p.findings.push(f);
}

/// Includes the compat header once in a file that uses a shim: after the last top-level
/// `#include` before the first shimmed use, else where the runtime header would go.
pub(super) fn include(p: &mut Pass) {
    if p.compat.is_empty() || p.compat_included || already_included(p) {
        return;
    }
    let first_use = p
        .findings
        .iter()
        .filter(|f| {
            f.rule == rules::COMPAT_SHIM.id.code || f.rule == rules::COMPAT_SHIM_REVIEW.id.code
        })
        .map(|f| f.byte_range.0)
        .min()
        .unwrap_or(0);
    let src = p.ctx.src;
    let mut depth = 0i32;
    let mut after_last: Option<usize> = None;
    for d in &p.lexed.directives {
        if d.start >= first_use {
            break;
        }
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" => depth -= 1,
            "include" if depth <= guard_depth(p) => after_last = Some(line_after(src, d.end)),
            _ => {}
        }
    }
    let at = after_last.unwrap_or_else(|| insertion_point(p));
    let nl = crate::source::newline_of(src);
    let lead = if at == src.len() && at > 0 && src[at - 1] != b'\n' {
        nl
    } else {
        ""
    };
    p.edits.push(Edit::insert(
        at,
        format!(
            "{lead}#include \"{}\"{nl}",
            compat::include_path(p.ctx.path)
        ),
    ));
    p.stats.includes_inserted += 1;
    p.compat_included = true;
}

/// 1 inside an include guard (`#ifndef X` / `#define X` first), else 0.
fn guard_depth(p: &Pass) -> i32 {
    let d = &p.lexed.directives;
    i32::from(d.len() >= 2 && d[0].name == "ifndef" && d[1].name == "define")
}

fn already_included(p: &Pass) -> bool {
    compat_include(p).is_some()
}
