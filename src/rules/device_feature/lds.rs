//! HP712: a constant amount of shared memory larger than the LDS one workgroup of the target GPU
//! can allocate (`mappings/hand/lds.tsv`: 64 KiB on gfx90a/gfx942 and RDNA, 160 KiB on gfx950).
//! CUDA kernels opt into up to 163 KiB (Ampere) or 227 KiB (Hopper) of dynamic shared memory;
//! the same request on AMD fails at the attribute call and at the launch. Read from tokens, so a
//! call inside a macro body (`#define CALL_IF(...) cudaFuncSetAttribute(...)`) counts once,
//! where it is written:
//! - `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, N)` (and the HIP and
//!   driver spellings) with `N` a constant expression above the limit;
//! - a launch `<<<grid, block, N …>>>` with a constant `N` above the limit, unless the same file
//!   already sets the attribute with the same size expression (one fact, one finding);
//! - static `__shared__` arrays of one function (or of file scope) whose known bytes add up to
//!   more than the limit (BUILD: the compiler rejects the kernel). Only element types of fixed
//!   size count, and only arrays with constant extents; the sum of those is a lower bound.
//!
//! A size that is not constant, or that fits, is no finding.

use super::consts::{expr_tokens, type_size, Consts};
use crate::finding::Finding;
use crate::gate::Phase;
use crate::mappings::lds::{kib, Lds};
use crate::mappings::Target;
use crate::model::project::Visible;
use crate::model::syntax::Src;
use std::collections::{BTreeMap, HashSet};

rule!(SHARED_MEMORY_OVER_LDS, "HP712", DeviceFeature, Remediation, Runtime,
    summary: "A constant shared-memory size (dynamic opt-in, launch argument or static `__shared__` arrays) larger than the LDS one workgroup of the target GPU can allocate.",
    why: "NVIDIA GPUs let a block opt into up to 163 KiB (Ampere) or 227 KiB (Hopper) of dynamic shared memory. An AMD workgroup gets 64 KiB of LDS on gfx90a/gfx942 (MI200/MI300) and on RDNA, 160 KiB on gfx950 (MI350/MI355). A larger dynamic request makes `hipFuncSetAttribute` and the launch fail; larger static arrays fail to compile.",
    bad: "const int SMEM = 96 * 1024;\ncudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);\nk<<<grid, 256, SMEM, stream>>>(...);",
    good: "const int SMEM = 64 * 1024;   // fewer pipeline stages or smaller tiles on AMD\nhipFuncSetAttribute((const void*)k, hipFuncAttributeMaxDynamicSharedMemorySize, SMEM);\nk<<<grid, 256, SMEM, stream>>>(...);",
    fix: "Size the tiles / pipeline stages for the AMD target's LDS (query `hipDeviceAttributeMaxSharedMemoryPerBlock`), e.g. fewer stages or smaller blocks under `#ifdef __HIP_PLATFORM_AMD__`.",
    refs: ["https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html", "https://llvm.org/docs/AMDGPUUsage.html#memory-spaces"],
);

const SET_ATTRIBUTE: &[&str] = &[
    "cudaFuncSetAttribute",
    "hipFuncSetAttribute",
    "cuFuncSetAttribute",
];
const MAX_DYNAMIC: &[&str] = &[
    "cudaFuncAttributeMaxDynamicSharedMemorySize",
    "hipFuncAttributeMaxDynamicSharedMemorySize",
    "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
    "HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
];

/// Runs HP712 over a file at `target` (no finding without a known LDS limit).
pub fn check(s: &Src, target: &Target, seen: &Visible, out: &mut Vec<Finding>) {
    let Some(lds) = target.lds else { return };
    let lx = s.lexed;
    let wanted = s
        .idents()
        .any(|(_, n)| SET_ATTRIBUTE.contains(&n) || n == "__shared__")
        || lx.tokens.windows(3).any(|w| {
            w.iter()
                .all(|t| t.kind == crate::lex::Tok::Punct && t.text(s.bytes()) == b"<")
                && w[0].end == w[1].start
                && w[1].end == w[2].start
        });
    if !wanted {
        return;
    }
    let consts = Consts::of(s, seen);
    let mut attribute_exprs: HashSet<String> = HashSet::new();
    for (i, name) in s.idents() {
        if SET_ATTRIBUTE.contains(&name) && s.next_text(i) == "(" {
            attribute(s, i, &consts, &lds, &mut attribute_exprs, out);
        }
    }
    launches(s, &consts, &lds, &attribute_exprs, out);
    statics(s, &consts, &lds, out);
}

/// The arguments of the call or launch whose opening token is `open`: token indices per
/// top-level argument, and the index of the closing token. `close` is the closing text
/// (`)` or `>` of `>>>`).
fn arguments(s: &Src, open: usize, launch: bool) -> Option<(Vec<Vec<usize>>, usize)> {
    let lx = s.lexed;
    let mut args: Vec<Vec<usize>> = vec![Vec::new()];
    let mut depth = 0i32;
    let mut k = lx.next_code(open)?;
    // A launch configuration is short; an unterminated `<<<` must not make every later one
    // read far ahead (linear time on hostile input).
    let budget = if launch { 256 } else { 2000 };
    for _ in 0..budget {
        let t = s.tok(k);
        match t {
            "<" if launch && depth == 0 && is_triple(s, k, "<") => return None,
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" if depth > 0 => depth -= 1,
            ")" if !launch => return Some((args, k)),
            ">" if launch && depth == 0 && is_triple(s, k, ">") => return Some((args, k)),
            "," if depth == 0 => {
                args.push(Vec::new());
                k = lx.next_code(k)?;
                continue;
            }
            ";" => return None,
            _ => {}
        }
        args.last_mut().unwrap().push(k);
        k = lx.next_code(k)?;
    }
    None
}

/// Whether tokens `k`, `k+1`, `k+2` are `ch ch ch` written together (`<<<`, `>>>`).
fn is_triple(s: &Src, k: usize, ch: &str) -> bool {
    let lx = s.lexed;
    (k..k + 3).all(|j| j < lx.tokens.len() && s.tok(j) == ch)
        && lx.tokens[k].end == lx.tokens[k + 1].start
        && lx.tokens[k + 1].end == lx.tokens[k + 2].start
}

/// The text of an argument's tokens, joined by single spaces.
fn text(s: &Src, toks: &[usize]) -> String {
    toks.iter()
        .map(|&j| s.tok(j))
        .filter(|t| *t != "\\")
        .collect::<Vec<_>>()
        .join(" ")
}

/// ` (`SMEM` = 96 * 1024, line 3)` for a size written as one name.
fn resolved(s: &Src, consts: &Consts, toks: &[usize]) -> String {
    let code: Vec<usize> = toks.iter().copied().filter(|&j| s.tok(j) != "\\").collect();
    if let [one] = code.as_slice() {
        if s.lexed.tokens[*one].kind == crate::lex::Tok::Ident {
            if let Some(at) = consts.where_defined(s, s.tok(*one)) {
                return format!(", defined at {at}");
            }
        }
    }
    String::new()
}

fn attribute(
    s: &Src,
    i: usize,
    consts: &Consts,
    lds: &Lds,
    exprs: &mut HashSet<String>,
    out: &mut Vec<Finding>,
) {
    let Some(open) = s.lexed.next_code(i) else {
        return;
    };
    let Some((args, close)) = arguments(s, open, false) else {
        return;
    };
    // The size is the last argument and the attribute the one before it (the kernel's template
    // arguments may hold commas).
    let [.., attr, size] = args.as_slice() else {
        return;
    };
    let attr_name = attr.iter().rev().map(|&j| s.tok(j)).find(|t| *t != "\\");
    if !attr_name.is_some_and(|a| MAX_DYNAMIC.contains(&a)) {
        return;
    }
    let Some(bytes) = consts.value(&expr_tokens(s, size)) else {
        return;
    };
    if bytes <= lds.bytes {
        return;
    }
    let written = text(s, size);
    exprs.insert(written.clone());
    let t = s.lexed.tokens[i];
    let msg = format!(
        "`{}` asks for {} ({bytes} bytes) of dynamic shared memory with `{written}`{}, but {}: the attribute call and the launch fail{}",
        s.tok(i),
        kib(bytes),
        resolved(s, consts, size),
        lds.describe(),
        lds.default_note(),
    );
    let range = t.start as usize..s.lexed.tokens[close].end as usize;
    out.push(s.ctx.finding(
        &SHARED_MEMORY_OVER_LDS,
        range,
        msg,
        Some(SHARED_MEMORY_OVER_LDS.fix.to_string()),
    ));
}

fn launches(
    s: &Src,
    consts: &Consts,
    lds: &Lds,
    attribute_exprs: &HashSet<String>,
    out: &mut Vec<Finding>,
) {
    let lx = s.lexed;
    let mut k = 0;
    while k + 2 < lx.tokens.len() {
        if !(s.tok(k) == "<" && is_triple(s, k, "<")) {
            k += 1;
            continue;
        }
        let open = k + 2;
        k += 3;
        let Some((args, close)) = arguments(s, open, true) else {
            continue;
        };
        let Some(size) = args.get(2) else { continue };
        let written = text(s, size);
        if attribute_exprs.contains(&written) {
            continue;
        }
        let Some(bytes) = consts.value(&expr_tokens(s, size)) else {
            continue;
        };
        if bytes <= lds.bytes {
            continue;
        }
        let msg = format!(
            "launch with {} ({bytes} bytes) of dynamic shared memory (`{written}`{}), but {}: the launch fails{}",
            kib(bytes),
            resolved(s, consts, size),
            lds.describe(),
            lds.default_note(),
        );
        let range = lx.tokens[open - 2].start as usize..lx.tokens[close + 2].end as usize;
        out.push(s.ctx.finding(
            &SHARED_MEMORY_OVER_LDS,
            range,
            msg,
            Some(SHARED_MEMORY_OVER_LDS.fix.to_string()),
        ));
        k = close + 3;
    }
}

/// Static `__shared__` arrays: known bytes per enclosing function (file scope is its own group).
fn statics(s: &Src, consts: &Consts, lds: &Lds, out: &mut Vec<Finding>) {
    let Some(tree) = s.tree else { return };
    let root = tree.root_node();
    // Group start (function byte offset, or usize::MAX for file scope) → (first token, bytes, arrays).
    let mut groups: BTreeMap<usize, (usize, u64, usize)> = BTreeMap::new();
    for (i, name) in s.idents() {
        if name != "__shared__" || s.lexed.tokens[i].in_directive() {
            continue;
        }
        let Some(bytes) = static_bytes(s, i, consts) else {
            continue;
        };
        let t = s.lexed.tokens[i];
        let group = root
            .descendant_for_byte_range(t.start as usize, t.end as usize)
            .and_then(|n| s.enclosing_function(n))
            .map_or(usize::MAX, |f| f.start_byte());
        let g = groups.entry(group).or_insert((i, 0, 0));
        g.1 = g.1.saturating_add(bytes);
        g.2 += 1;
    }
    for (_, (first, bytes, n)) in groups {
        if bytes <= lds.bytes {
            continue;
        }
        let msg = format!(
            "{n} static `__shared__` array(s) here hold at least {} ({bytes} bytes), but {}: the kernel does not compile{}",
            kib(bytes),
            lds.describe(),
            lds.default_note(),
        );
        let mut f = s.ctx.finding(
            &SHARED_MEMORY_OVER_LDS,
            s.lexed.tokens[first].range(),
            msg,
            Some(SHARED_MEMORY_OVER_LDS.fix.to_string()),
        );
        f.phase = Phase::Build;
        out.push(f);
    }
}

/// The known bytes of the `__shared__` declaration at token `i` (`None`: `extern`, an element
/// type of unknown size, or no array with constant extents).
fn static_bytes(s: &Src, i: usize, consts: &Consts) -> Option<u64> {
    let lx = s.lexed;
    // `extern __shared__` is dynamic.
    let mut b = lx.prev_code(i);
    while let Some(p) = b {
        match s.tok(p) {
            "extern" => return None,
            "static" | "volatile" | "const" => b = lx.prev_code(p),
            _ => break,
        }
    }
    // The declaration's tokens up to `;`.
    let mut toks: Vec<usize> = Vec::new();
    let mut k = lx.next_code(i)?;
    while s.tok(k) != ";" {
        if matches!(s.tok(k), "{" | "}" | "=") || toks.len() > 200 {
            return None;
        }
        toks.push(k);
        k = lx.next_code(k)?;
    }
    // Drop qualifiers and alignment attributes.
    let mut words: Vec<usize> = Vec::new();
    let mut j = 0;
    while j < toks.len() {
        let t = s.tok(toks[j]);
        if matches!(t, "__align__" | "alignas" | "__attribute__" | "__declspec") {
            // Skip the parenthesised argument.
            let mut depth = 0;
            j += 1;
            while j < toks.len() {
                match s.tok(toks[j]) {
                    "(" => depth += 1,
                    ")" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        } else if !matches!(t, "static" | "volatile" | "const" | "__shared__") {
            words.push(toks[j]);
        }
        j += 1;
    }
    // Type words up to the first declarator name (the identifier before `[`).
    let first_bracket = words.iter().position(|&w| s.tok(w) == "[")?;
    let name_at = first_bracket.checked_sub(1)?;
    let ty = words[..name_at]
        .iter()
        .map(|&w| s.tok(w))
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" :: ", "::");
    let elem = type_size(&ty)?;
    // Declarators: `a[X][Y], b[Z]`.
    let mut total = 0u64;
    for decl in words[name_at..].split(|&w| s.tok(w) == ",") {
        if decl.iter().any(|&w| s.tok(w) == "*") {
            continue;
        }
        let mut count = 1u64;
        let mut known = decl.iter().any(|&w| s.tok(w) == "[");
        let mut d = 0;
        while d < decl.len() {
            if s.tok(decl[d]) == "[" {
                let end = decl[d..].iter().position(|&w| s.tok(w) == "]")? + d;
                match consts.value(&expr_tokens(s, &decl[d + 1..end])) {
                    Some(v) => count = count.saturating_mul(v),
                    None => known = false,
                }
                d = end;
            }
            d += 1;
        }
        if known {
            total = total.saturating_add(count.saturating_mul(elem));
        }
    }
    (total > 0).then_some(total)
}

#[cfg(test)]
#[path = "lds_tests.rs"]
mod tests;
