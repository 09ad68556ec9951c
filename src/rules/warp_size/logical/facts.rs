//! Reading the facts of one file for the logical-warp model: its constants, and per function
//! body the 32- and 64-lane evidence, the variables set from thread indices, the branches only
//! lanes 0–31 run, and the callers that decide an offsets-only helper's warp.

use super::*;

/// Kernels with no lane evidence of their own that every launch in the file gives 32-thread
/// rows (`dim3 threads(32, 4)`; mmdeploy's connected-components kernels): each row is the warp
/// CUDA runs, so the kernel's lanes are 32-lane logical warps (`threadIdx.x` is the lane).
pub(super) fn launched_in_rows32(v: &View, path: &str, fns: &mut [Function]) {
    let src = v.src;
    if memchr::memmem::find(src, b"<<<").is_none()
        && memchr::memmem::find(src, b"LaunchKernel").is_none()
    {
        return;
    }
    let rows = crate::rules::warp_size::launch_rows::rows32_kernels(path, src, v.lexed);
    if rows.is_empty() {
        return;
    }
    for f in fns.iter_mut() {
        if f.warp != Warp::Wavefront || f.name.is_empty() {
            continue;
        }
        if let Some(shape) = rows.get(String::from_utf8_lossy(&f.name).as_ref()) {
            f.warp = Warp::Logical32;
            f.why32 = Some(format!(
                "every launch in this file gives it 32-thread rows, {shape}"
            ));
            f.offsets_only = false;
        }
    }
}

/// `#define NAME 32` and `const`/`constexpr` declarations `NAME = 32;` of the file, added to
/// `out` (which holds the included headers' constants the file does not redefine). A value may
/// be a constant expression of names already known (`#define WARP_SIZE (1U << LOG2_WARP_SIZE)`,
/// `constexpr uint32_t kWarpSize = kIndexGroupSize;`); two rounds resolve a name used before
/// the line that defines it.
pub(super) fn constants<'a>(v: &View<'a>, out: &mut HashMap<&'a [u8], u64>) {
    // (name token, first and last token of the value)
    let mut defs: Vec<(usize, usize, usize)> = Vec::new();
    for d in &v.lexed.directives {
        if d.name != "define" {
            continue;
        }
        let toks: Vec<usize> = d
            .tokens
            .clone()
            .filter(|&j| v.lexed.tokens[j].kind != Tok::Comment)
            .collect();
        let (Some(&name), Some(&first), Some(&last)) = (toks.get(2), toks.get(3), toks.last())
        else {
            continue;
        };
        // Function-like: `(` right after the name.
        if v.t(first) == b"(" && v.lexed.tokens[first].start == v.lexed.tokens[name].end {
            continue;
        }
        defs.push((name, first, last));
    }
    for i in 0..v.lexed.tokens.len() {
        if !v.code(i) || v.lexed.tokens[i].kind != Tok::Ident {
            continue;
        }
        let eq = v.next(i);
        if !v.is(eq, "=") || v.is(eq.and_then(|e| v.next(e)), "=") {
            continue;
        }
        let constant = (1..=4)
            .scan(i, |j, _| {
                *j = v.prev(*j)?;
                Some(*j)
            })
            .any(|j| matches!(v.t(j), b"const" | b"constexpr"));
        if !constant {
            continue;
        }
        let Some(first) = eq.and_then(|e| v.next(e)) else {
            continue;
        };
        let mut last = first;
        let mut end = None;
        for _ in 0..16 {
            match v.next(last) {
                Some(n) if v.t(n) == b";" => {
                    end = Some(n);
                    break;
                }
                Some(n) if matches!(v.t(n), b"{" | b"}") => break,
                Some(n) => last = n,
                None => break,
            }
        }
        if end.is_some() {
            defs.push((i, first, last));
        }
    }
    for _ in 0..2 {
        for &(name, first, last) in &defs {
            if let Some(n) = v.expr_in(first, last, out) {
                out.insert(v.t(name), n);
            }
        }
    }
}

/// Whether `op n` of a thread index shows 32-lane warps (`& 31`, `% 32`, `/ 32`, `>> 5`,
/// `<< 5`, `& ~31`), 64-lane ones (their 64 twins), or neither.
pub(super) fn lane_kind(op: &str, n: u64) -> Option<bool> {
    match (op, n) {
        ("&" | "& ~", 31) | ("%" | "/", 32) | (">>" | "<<", 5) => Some(true),
        ("&" | "& ~", 63) | ("%" | "/", 64) | (">>" | "<<", 6) => Some(false),
        _ => None,
    }
}

/// The object-like macros whose body is lane or warp arithmetic of a thread index, the file's
/// own then its headers' (`env`, where the file does not define the name): `#define WARP_ID
/// (threadIdx.x >> LOG)` with `LOG` a constant, and a macro naming such a macro (`#define
/// START (WARP_ID * 480)`) inherits its kind. Value: (32-lane, the evidence's text).
pub(super) fn lane_macros(
    v: &View,
    own: &HashSet<&[u8]>,
    env: &crate::model::project::Visible,
) -> HashMap<Vec<u8>, (bool, String)> {
    let mut bodies: Vec<(Vec<u8>, String)> = Vec::new();
    for d in v.lexed.directives.iter().filter(|d| d.name == "define") {
        let toks: Vec<usize> = d
            .tokens
            .clone()
            .filter(|&j| v.lexed.tokens[j].kind != Tok::Comment)
            .collect();
        let (Some(&name), Some(&first), Some(&last)) = (toks.get(2), toks.get(3), toks.last())
        else {
            continue;
        };
        // Function-like: `(` right after the name.
        if v.t(first) == b"(" && v.lexed.tokens[first].start == v.lexed.tokens[name].end {
            continue;
        }
        let text = &v.src[v.lexed.tokens[first].start as usize..v.lexed.tokens[last].end as usize];
        let body = String::from_utf8_lossy(text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        bodies.push((v.t(name).to_vec(), body));
    }
    for (name, (body, _)) in &env.lane_macros {
        if !own.contains(name.as_bytes()) {
            bodies.push((name.as_bytes().to_vec(), body.clone()));
        }
    }
    let mut out: HashMap<Vec<u8>, (bool, String)> = HashMap::new();
    // Three rounds: macros naming macros, a few levels deep.
    for _ in 0..3 {
        for (name, body) in &bodies {
            if out.contains_key(name) {
                continue;
            }
            if let Some((is32, why)) = lane_arithmetic(v, body, &out) {
                let name = String::from_utf8_lossy(name);
                let why = why.unwrap_or_else(|| format!("`{name}` (`{body}`)"));
                out.insert(name.as_bytes().to_vec(), (is32, why));
            }
        }
    }
    out
}

/// The lane arithmetic of a macro body: `threadIdx.x OP N` (N a literal or a constant of
/// `v`), or the name of a macro already known (`known`, whose evidence it gives).
fn lane_arithmetic(
    v: &View,
    body: &str,
    known: &HashMap<Vec<u8>, (bool, String)>,
) -> Option<(bool, Option<String>)> {
    let mut words: Vec<&str> = Vec::new();
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let j = if word(b[i]) {
            (i..b.len()).find(|&j| !word(b[j])).unwrap_or(b.len())
        } else {
            i + 1
        };
        if !b[i].is_ascii_whitespace() {
            words.push(&body[i..j]);
        }
        i = j;
    }
    for (k, w) in words.iter().enumerate() {
        if let Some((is32, why)) = known.get(w.as_bytes()) {
            return Some((*is32, Some(why.clone())));
        }
        if *w != "threadIdx" || words.get(k + 1) != Some(&".") {
            continue;
        }
        let rest = &words[(k + 3).min(words.len())..];
        let (op, rhs) = match rest {
            [">", ">", r, ..] => (">>", r),
            ["<", "<", r, ..] => ("<<", r),
            ["&", "~", r, ..] => ("& ~", r),
            ["&", r, ..] if *r != "&" => ("&", r),
            ["%", r, ..] => ("%", r),
            ["/", r, ..] => ("/", r),
            _ => continue,
        };
        let n = int_value(rhs).or_else(|| v.consts.get(rhs.as_bytes()).copied());
        if let Some(is32) = n.and_then(|n| lane_kind(op, n)) {
            return Some((is32, None));
        }
    }
    None
}

/// Whether the token `body[k]` is in the value of a variable the statement declares and no
/// other token of the body names (`const uint warp_idx = thread_rank() / 32u;` that nothing
/// reads, LichtFeld-Studio's `kernel_utils.cuh`): no evidence of the warp the code assumes.
fn unread_init(v: &View, body: &[usize], k: usize) -> bool {
    let start = body[..k]
        .iter()
        .rposition(|&j| matches!(v.t(j), b";" | b"{" | b"}"))
        .map_or(0, |s| s + 1);
    let Some(eq) = (start + 1..k).find(|&e| {
        v.t(body[e]) == b"="
            && !matches!(v.t(body[e + 1]), b"=")
            && v.lexed.tokens[body[e - 1]].kind == Tok::Ident
    }) else {
        return false;
    };
    // A declaration: a type before the name (`uint warp_idx =`), not an assignment.
    if eq < start + 2 {
        return false;
    }
    let name = v.t(body[eq - 1]);
    let (first, last) = (body[0], body[body.len() - 1]);
    let range = v.lexed.tokens[first].start as usize..v.lexed.tokens[last].end as usize;
    v.lexed.idents_named(v.src, range, name) == 1
}

/// The facts of the body between the braces `open` and `close`.
pub(super) fn function(v: &View, open: usize, close: usize) -> Function {
    let body: Vec<usize> = (open + 1..close).filter(|&j| v.code(j)).collect();
    let (head, mut defaults) = template_head(v, open);
    defaults.extend(locals_set_once(v, &body));
    // Variables set from a thread index (`tid = threadIdx.x`, `lane = tid & 31`), and those set
    // to exactly `threadIdx.x`; warp ids (`warp = tid / 32`).
    let mut thread: HashSet<&[u8]> = HashSet::new();
    let mut exact: HashSet<&[u8]> = HashSet::new();
    let mut warp: HashSet<&[u8]> = HashSet::new();
    let threadish = |thread: &HashSet<&[u8]>, j: Option<usize>| {
        j.is_some_and(|j| {
            let t = v.t(j);
            thread.contains(t)
                || ((t == b"x" || t == b"y" || t == b"z")
                    && v.is(v.prev(j).and_then(|d| v.prev(d)), "threadIdx"))
                || t == b"threadIdx"
                || v.lanes.contains_key(t)
        })
    };
    for _ in 0..2 {
        for (k, &j) in body.iter().enumerate() {
            if v.t(j) != b"=" || k == 0 || v.lexed.tokens[body[k - 1]].kind != Tok::Ident {
                continue;
            }
            let name = v.t(body[k - 1]);
            let rhs: Vec<usize> = body[k + 1..]
                .iter()
                .copied()
                .take_while(|&x| !matches!(v.t(x), b";" | b","))
                .collect();
            // A load (`ql = q[l]`, `v = smem[tid]`) is data, not a thread index: names inside
            // a subscript, subscripted, or a shift's count do not make the result one (ggml's
            // `(ql >> 6) & 3` reads a quant's bit field).
            let mut depth = 0i32;
            let derived = rhs.iter().enumerate().any(|(n, &x)| {
                match v.t(x) {
                    b"[" => depth += 1,
                    b"]" => depth -= 1,
                    _ => {}
                }
                // A thread-derived shift count (`hmask[k] >> in`) shifts data.
                let count = n >= 2
                    && matches!(v.t(rhs[n - 1]), b">" | b"<")
                    && v.t(rhs[n - 2]) == v.t(rhs[n - 1]);
                depth == 0
                    && !count
                    && threadish(&thread, Some(x))
                    && rhs.get(n + 1).is_none_or(|&y| v.t(y) != b"[")
            });
            if derived {
                thread.insert(name);
            }
            let texts: Vec<&[u8]> = rhs.iter().map(|&x| v.t(x)).collect();
            if texts == [&b"threadIdx"[..], b".", b"x"] {
                exact.insert(name);
            }
            let warp_id = super::warp_ids::is_warp_id(v, &rhs, &texts);
            if warp_id && threadish(&thread, Some(rhs[0])) {
                warp.insert(name);
            }
        }
    }
    // A call of a project shuffle wrapper (`aa_shfl_down(mask, v, q)`) shuffles too.
    let shuffles = body
        .iter()
        .any(|&j| SHUFFLES.contains(&name_of(v, j)) || v.wrapper(j).is_some());
    let mut why32: Option<String> = None;
    let mut why64: Option<String> = None;
    let note = |slot: &mut Option<String>, s: String| {
        if slot.is_none() {
            *slot = Some(s);
        }
    };
    for (k, &j) in body.iter().enumerate() {
        let t = v.t(j);
        let at = |d: usize| body.get(k + d).copied();
        let before = k.checked_sub(1).map(|b| body[b]);
        // `x & 31`, `x % 32`, `x / 32`, `x >> 5` of a thread index, and their 64-lane twins.
        let (op, rhs) = if t == b">" && v.is(at(1), ">") && !v.is(at(2), "=") && !v.is(before, ">")
        {
            (">>", at(2))
        } else if t == b"<" && v.is(at(1), "<") && !v.is(at(2), "=") && !v.is(before, "<") {
            // `tid << 5`: the first thread of warp `tid`.
            ("<<", at(2))
        } else if t == b"&" && v.is(at(1), "~") {
            // `tid & ~31`: the first thread of the thread's warp.
            ("& ~", at(2))
        } else {
            match t {
                b"&" | b"%" | b"/" if !v.is(at(1), "=") && !v.is(before, "&") => {
                    (std::str::from_utf8(t).unwrap_or(""), at(1))
                }
                _ => ("", None),
            }
        };
        if !op.is_empty() && threadish(&thread, before) && !unread_init(v, &body, k) {
            let rhs_text = rhs.map(|r| v.operand_text(r));
            // A template parameter counts with its default (`template <int W, int WARP_SIZE =
            // 32>`): the callers that do not pass it get that warp.
            let value = v
                .val(rhs)
                .or_else(|| rhs.and_then(|r| defaults.get(v.t(r)).copied()));
            // A shift of a warp id of 32-lane warps (`warpId << 6`, GpuMultisplit's 64 buckets
            // per warp) strides data per warp; it says nothing of the lanes.
            let of_warp_id = before.is_some_and(|b| warp.contains(v.t(b)));
            match (op, value.and_then(|n| lane_kind(op, n))) {
                ("<<" | ">>", Some(false)) if of_warp_id => {}
                (_, Some(true)) => note(
                    &mut why32,
                    format!("`{op} {}`", rhs_text.unwrap_or_default()),
                ),
                (_, Some(false)) => note(
                    &mut why64,
                    format!("`{op} {}`", rhs_text.unwrap_or_default()),
                ),
                // Only a size the model does not know (`% 16` is known, and neutral).
                (_, None)
                    if value.is_none()
                        && rhs.is_some_and(|r| {
                            v.lexed.tokens[r].kind == Tok::Ident
                                && super::super::warp_const_name(&String::from_utf8_lossy(v.t(r)))
                                && v.t(r) != b"warpSize"
                        }) =>
                {
                    note(
                        &mut why64,
                        format!(
                            "`{op} {}` of a size not set here",
                            rhs_text.unwrap_or_default()
                        ),
                    )
                }
                _ => {}
            }
        }
        // `warpSize.x`: a local `dim3 warpSize` (nvdiffrec's `getWarpSize(blockDim)`) shadows
        // the builtin; a member access is that variable, not the wavefront size. A name
        // qualified by a scope (`curobo::common::warpSize`) is the project's constant.
        let scoped = v.is(before, "::")
            && before
                .and_then(|b| v.prev(b))
                .is_some_and(|q| v.lexed.tokens[q].kind == Tok::Ident);
        // A local `int warpSize = 32;` (ADEPT's warp reduction) shadows it too: its value is
        // the local's.
        if t == b"warpSize"
            && !v.is(at(1), ".")
            && !v.is(before, "dim3")
            && !scoped
            && !defaults.contains_key(&b"warpSize"[..])
        {
            note(&mut why64, "`warpSize`".into());
        }
        // A macro whose body is lane or warp arithmetic (`WARP_ID`, `(threadIdx.x >> LOG)`).
        if let Some((is32, why)) = v.lanes.get(t) {
            note(if *is32 { &mut why32 } else { &mut why64 }, why.clone());
        }
        // `__lane_id()`, except in the own-half ballot this model's rewrite writes.
        if t == b"__lane_id" {
            let own_half = v.is(at(3), "&") && v.val(at(4)) == Some(32) && v.is(before, "(");
            if !own_half {
                note(&mut why64, "`__lane_id()`".into());
            }
        }
        // A shuffle by 16 (or 32), and `for (o = 16; …)` in a function that shuffles.
        let exchange = name_of(v, j);
        // An explicit width: 32 says the code's warp is 32 lanes (`__shfl_sync(m, v, src, 32)`),
        // 64 the wavefront's.
        if SHUFFLES.contains(&exchange) {
            let without = if exchange.ends_with("_sync") { 3 } else { 2 };
            if let Some((n, close)) = v.call(j).filter(|&(n, _)| n > without) {
                match nth_arg(v, j, close, without).and_then(|w| v.val(Some(w))) {
                    Some(32) if n == without + 1 => note(&mut why32, "shuffle width 32".into()),
                    Some(64) if n == without + 1 => note(&mut why64, "shuffle width 64".into()),
                    _ => {}
                }
            }
        }
        if SHUFFLES.contains(&exchange) && exchange != "__shfl" && exchange != "__shfl_sync" {
            if let Some((n, close)) = v.call(j) {
                let delta_at = if name_of(v, j).ends_with("_sync") {
                    2
                } else {
                    1
                };
                if let Some(d) = nth_arg(v, j, close, delta_at).filter(|_| n > delta_at) {
                    match v.val(Some(d)) {
                        Some(16) => note(&mut why32, "shuffle offset 16".into()),
                        Some(32) => note(&mut why64, "shuffle offset 32".into()),
                        _ => {}
                    }
                }
            }
        }
        if t == b"for" && shuffles && v.is(at(1), "(") {
            if let Some(end) = v.matching(body[k + 1]) {
                let header: Vec<usize> = body[k + 2..]
                    .iter()
                    .copied()
                    .take_while(|&x| x < end)
                    .collect();
                // `o = 16;`, `o = WARP_SIZE / 2;`, `o = kWarpSize >> 1;` (a template
                // parameter whose default is a constant of 32).
                if let Some(eq) = header.iter().position(|&x| v.t(x) == b"=") {
                    let init: Vec<usize> = header[eq + 1..]
                        .iter()
                        .copied()
                        .take_while(|&x| v.t(x) != b";")
                        .collect();
                    match start_value(v, &init, &defaults) {
                        Some(16) => note(&mut why32, "offsets 16…1".into()),
                        Some(32) => note(&mut why64, "offsets from 32".into()),
                        _ => {}
                    }
                }
            }
        }
    }
    let narrow_xors = body
        .iter()
        .copied()
        .filter(|&j| matches!(name_of(v, j), "__shfl_xor" | "__shfl_xor_sync"))
        .filter(|&j| xor_below_32(v, &body, j, &defaults))
        .collect();
    // Calls of project shuffle wrappers that reduce down (or by xor) from offset 16: lane 0 of
    // each 32-lane half gets CUDA's value at any width.
    let reducing_wrappers = body
        .iter()
        .copied()
        .filter(|&j| matches!(v.wrapper(j), Some(b"__shfl_down" | b"__shfl_xor")))
        .filter(|&j| in_loop_from_16(v, open, j, &defaults))
        .collect();
    let offsets_only = why32.as_deref().is_some_and(|w| w.contains("offset"));
    let warp_kind = match (&why32, &why64) {
        (Some(_), None) => Warp::Logical32,
        (Some(_), Some(_)) => Warp::Mixed,
        _ => Warp::Wavefront,
    };
    // The name before the parameter list: `k` in `void k(…) {`, `… k(…) const {`.
    let name = v
        .prev(open)
        .and_then(|p| if v.t(p) == b")" { Some(p) } else { v.prev(p) })
        .and_then(|close_paren| v.matching_back(close_paren))
        .and_then(|o| v.prev(o))
        .filter(|&n| v.lexed.tokens[n].kind == Tok::Ident)
        .map(|n| v.t(n).to_vec())
        .unwrap_or_default();
    Function {
        open,
        close,
        head,
        offsets_only,
        name,
        warp: warp_kind,
        first32: guards(v, &body, close, &exact, &warp),
        narrow_xors,
        reducing_wrappers,
        why32,
        why64,
    }
}

/// The function's locals declared with an integer literal and never assigned again (`int
/// warpSize = 32;` in ADEPT's warp reduction, whose loop then starts at `warpSize / 2`): worth
/// that value wherever the body reads them, as a template default is. A local that is assigned,
/// incremented or has its address taken later is not a constant.
fn locals_set_once<'a>(v: &View<'a>, body: &[usize]) -> HashMap<&'a [u8], u64> {
    const TYPES: &[&[u8]] = &[
        b"int",
        b"unsigned",
        b"short",
        b"long",
        b"size_t",
        b"uint32_t",
        b"int32_t",
        b"uint",
        b"auto",
        b"const",
        b"constexpr",
    ];
    let mut out = HashMap::new();
    for (k, &j) in body.iter().enumerate() {
        if v.t(j) != b"=" || k < 2 {
            continue;
        }
        let (ty, name) = (body[k - 2], body[k - 1]);
        if v.lexed.tokens[name].kind != Tok::Ident || !TYPES.contains(&v.t(ty)) {
            continue;
        }
        let t = |m: usize| body.get(m).map_or(&b""[..], |&x| v.t(x));
        let end = |m: usize| matches!(t(m), b";" | b",");
        let number = |m: usize| {
            body.get(m)
                .filter(|&&x| v.lexed.tokens[x].kind == Tok::Number)
                .and_then(|&x| v.val(Some(x)))
        };
        let val = if end(k + 2) {
            // `int warpSize = 32;`
            number(k + 1)
        } else if t(k + 2) == b"/" && end(k + 4) {
            // `const int kWarp_size = warp_size / ROW_PER_WARP;`: a part of a 32-lane warp,
            // whatever the divisor: its lanes stay inside the warp (worth 32 here, the bound).
            let warp = number(k + 1).or_else(|| out.get(t(k + 1)).copied());
            (warp == Some(32)
                && body
                    .get(k + 3)
                    .is_some_and(|&x| matches!(v.lexed.tokens[x].kind, Tok::Ident | Tok::Number)))
            .then_some(32)
        } else {
            None
        };
        let Some(val) = val else {
            continue;
        };
        let n = v.t(name);
        let changed = (0..body.len()).any(|m| {
            if m == k - 1 || t(m) != n {
                return false;
            }
            let (y, z) = (t(m + 1), t(m + 2));
            let assigned = y == b"=" && z != b"=";
            let compound =
                matches!(y, b"+" | b"-" | b"*" | b"/" | b"%" | b"&" | b"|" | b"^") && z == b"=";
            let shifted = matches!(y, b">" | b"<") && z == y && t(m + 3) == b"=";
            let stepped = matches!(y, b"+" | b"-") && z == y;
            let before = m.checked_sub(1).map_or(&b""[..], t);
            let before2 = m.checked_sub(2).map_or(&b""[..], t);
            let pre = matches!(before, b"+" | b"-") && before2 == before;
            let address = before == b"&" && matches!(before2, b"(" | b"," | b"=" | b"");
            assigned || compound || shifted || stepped || pre || address
        });
        if !changed {
            out.insert(n, val);
        }
    }
    out
}

/// The template header of the function whose body opens at `open` (`template <int W =
/// WARP_SIZE> __device__ float f(float v) {`): the token index of `template` (else `open`), and
/// its parameters' defaults worth a known value (a literal or a file constant).
fn template_head<'a>(v: &View<'a>, open: usize) -> (usize, HashMap<&'a [u8], u64>) {
    let mut defaults = HashMap::new();
    // Back from the body to the parameter list's `(`, then over the declaration's words.
    let Some(close_paren) = (0..8)
        .scan(open, |j, _| {
            *j = v.prev(*j)?;
            Some(*j)
        })
        .find(|&j| v.t(j) == b")")
    else {
        return (open, defaults);
    };
    let Some(paren) = v.matching_back(close_paren) else {
        return (open, defaults);
    };
    let mut j = paren;
    let mut gt = None;
    for _ in 0..24 {
        let Some(p) = v.prev(j) else { break };
        if matches!(v.t(p), b";" | b"{" | b"}" | b")") {
            break;
        }
        if v.t(p) == b">" {
            gt = Some(p);
            break;
        }
        j = p;
    }
    let Some(gt) = gt else {
        return (paren, defaults);
    };
    // The matching `<`, with `template` before it.
    let mut depth = 0i32;
    let mut lt = None;
    let mut k = gt;
    for _ in 0..200 {
        match v.t(k) {
            b">" => depth += 1,
            b"<" => {
                depth -= 1;
                if depth == 0 {
                    lt = Some(k);
                    break;
                }
            }
            b";" | b"{" | b"}" => break,
            _ => {}
        }
        let Some(p) = v.prev(k) else { break };
        k = p;
    }
    let Some(lt) = lt.filter(|&lt| v.is(v.prev(lt), "template")) else {
        return (paren, defaults);
    };
    let mut x = lt;
    while let Some(n) = v.next(x).filter(|&n| n < gt) {
        if v.t(n) == b"=" && v.matches_comma_or(v.next(v.next(n).unwrap_or(n)), gt) {
            let name = v.prev(n).filter(|&p| v.lexed.tokens[p].kind == Tok::Ident);
            if let (Some(name), Some(val)) = (name, v.val(v.next(n))) {
                defaults.insert(v.t(name), val);
            }
        }
        x = n;
    }
    (v.prev(lt).unwrap_or(lt), defaults)
}

/// Whether the xor shuffle named at token `call` exchanges by a lane mask below 32: a literal
/// or constant (`16`, `HALF_WARP`), or the counter of an enclosing `for` that starts below 32
/// and falls (`o = WARP_SIZE / 2; o > 0; o /= 2`) or rises to a bound of at most 32 (`o = 1; o
/// < 32; o *= 2`). Such an xor never leaves the lane's 32-lane half, so HIP's default width
/// (the 64-lane wavefront) gives every lane the partner CUDA gave it.
fn xor_below_32(v: &View, body: &[usize], call: usize, defaults: &HashMap<&[u8], u64>) -> bool {
    let val = |j: usize| v.val(Some(j)).or_else(|| defaults.get(v.t(j)).copied());
    let Some((_, close)) = v.call(call) else {
        return false;
    };
    let at = if v.t(call).ends_with(b"_sync") { 2 } else { 1 };
    let Some(d) = nth_arg(v, call, close, at) else {
        return false;
    };
    if let Some(n) = val(d) {
        return n < 32;
    }
    if v.lexed.tokens[d].kind != Tok::Ident {
        return false;
    }
    let counter = v.t(d);
    // The innermost enclosing `for` whose header sets the counter.
    let k = body.partition_point(|&j| j < call);
    for &f in body[..k].iter().rev() {
        if v.t(f) != b"for" || !v.is(v.next(f), "(") {
            continue;
        }
        let Some(paren) = v.next(f) else { continue };
        let Some(end) = v.matching(paren) else {
            continue;
        };
        let Some(stop) = statement_end(v, end) else {
            continue;
        };
        if stop < call {
            continue;
        }
        let header: Vec<usize> = (paren + 1..end).filter(|&j| v.code(j)).collect();
        let parts: Vec<&[usize]> = header.split(|&j| v.t(j) == b";").collect();
        let [init, cond, step] = parts[..] else {
            continue;
        };
        let Some(eq) = init.iter().position(|&j| v.t(j) == b"=") else {
            continue;
        };
        if eq == 0 || v.t(init[eq - 1]) != counter {
            continue;
        }
        let Some(start) = start_value(v, &init[eq + 1..], defaults) else {
            return false;
        };
        let step: Vec<&[u8]> = step.iter().map(|&j| v.t(j)).collect();
        // `o /= 2`, `o >>= 1`, `o--`, `o -= 1`, `o = o / 2`.
        let falls = step.iter().any(|t| matches!(*t, b"/" | b">" | b"-"));
        if falls {
            return start < 32;
        }
        // Rising: bounded by `counter < N` (N ≤ 32) or `counter <= N` (N < 32).
        let cond: Vec<usize> = cond.to_vec();
        return match cond.as_slice() {
            [c, lt, n] if v.t(*c) == counter && v.t(*lt) == b"<" => {
                val(*n).is_some_and(|n| n <= 32)
            }
            [c, lt, eq, n] if v.t(*c) == counter && v.t(*lt) == b"<" && v.t(*eq) == b"=" => {
                val(*n).is_some_and(|n| n < 32)
            }
            _ => false,
        };
    }
    false
}

/// The value a `for` loop's counter starts from: a literal or constant (`16`, `HALF`), or
/// one halved (`WARP_SIZE / 2`, `kWarpSize >> 1`), with the function's template defaults.
fn start_value(v: &View, init: &[usize], defaults: &HashMap<&[u8], u64>) -> Option<u64> {
    let val = |j: usize| v.val(Some(j)).or_else(|| defaults.get(v.t(j)).copied());
    let texts: Vec<&[u8]> = init.iter().map(|&j| v.t(j)).collect();
    match texts.as_slice() {
        [_] => val(init[0]),
        [_, b"/", _] => Some(val(init[0])? / val(init[2]).filter(|&d| d > 0)?),
        [_, b">", b">", _] => Some(val(init[0])? >> val(init[3]).filter(|&s| s < 64)?),
        _ => None,
    }
}

/// Whether token `j`, inside the body opening at `open`, is in a `for` loop whose counter
/// starts at 16 (`for (int q = 16; …)`, `q = HALF_WARP`): a reduction from offset 16 down.
fn in_loop_from_16(v: &View, open: usize, j: usize, defaults: &HashMap<&[u8], u64>) -> bool {
    (open..j).any(|k| {
        if !v.code(k) || v.t(k) != b"for" {
            return false;
        }
        let Some(paren) = v.next(k).filter(|&o| v.t(o) == b"(") else {
            return false;
        };
        let Some(close) = v.matching(paren) else {
            return false;
        };
        if statement_end(v, close).is_none_or(|end| end < j) {
            return false;
        }
        let header: Vec<usize> = (paren + 1..close).filter(|&x| v.code(x)).collect();
        let Some(eq) = header.iter().position(|&x| v.t(x) == b"=") else {
            return false;
        };
        let init: Vec<usize> = header[eq + 1..]
            .iter()
            .copied()
            .take_while(|&x| v.t(x) != b";")
            .collect();
        // It halves: the step (after the second `;`) shifts right or divides (`q >>= 1`,
        // `q = q / 2`); a loop that grows from 16 reaches 32 and crosses the halves.
        let halves = header
            .iter()
            .filter(|&&x| v.t(x) == b";")
            .nth(1)
            .is_some_and(|&semi| {
                header
                    .iter()
                    .filter(|&&x| x > semi)
                    .any(|&x| matches!(v.t(x), b">" | b">>" | b">=" | b">>=" | b"/" | b"/="))
            });
        halves && start_value(v, &init, defaults) == Some(16)
    })
}

/// Which functions of the file call each name (`name(`), by index into `fns`, each caller
/// once per name: one pass over the bodies, so that the callers of every helper are looked up,
/// not searched (a file of many copies of the same functions stays linear).
fn call_index<'a>(v: &View<'a>, fns: &[Function]) -> HashMap<&'a [u8], Vec<usize>> {
    let mut index: HashMap<&'a [u8], Vec<usize>> = HashMap::new();
    for (gi, g) in fns.iter().enumerate() {
        for j in g.open..g.close {
            // `f(…)` and `f<T>(…)`: a template helper's callers give it their warp too.
            if v.code(j)
                && v.lexed.tokens[j].kind == Tok::Ident
                && (v.is(v.next(j), "(") || super::settle::template_call(v, v.next(j)))
            {
                let callers = index.entry(v.t(j)).or_default();
                if callers.last() != Some(&gi) {
                    callers.push(gi);
                }
            }
        }
    }
    index
}

/// A helper whose only 32-lane evidence is its shuffle offsets (`for (o = 16; …)`) called from
/// a function of the file that computes lanes from the wavefront (`warpSize`): the caller's
/// lanes span 64, so the helper's width is a choice, not a safe rewrite.
pub(super) fn callers(v: &View, fns: &mut [Function]) {
    let index = call_index(v, fns);
    let none: Vec<usize> = Vec::new();
    let mut mixed: Vec<(usize, String)> = Vec::new();
    for (k, f) in fns.iter().enumerate() {
        if f.warp != Warp::Logical32 || !f.offsets_only || f.name.is_empty() {
            continue;
        }
        let caller = index
            .get(f.name.as_slice())
            .unwrap_or(&none)
            .iter()
            .map(|&g| &fns[g])
            .find(|g| g.open != f.open && g.why64.is_some());
        if let Some(g) = caller {
            mixed.push((
                k,
                format!(
                    "called from `{}`, whose lanes come from {}",
                    String::from_utf8_lossy(&g.name),
                    g.why64.as_deref().unwrap_or("")
                ),
            ));
        }
    }
    for (k, why) in mixed {
        fns[k].warp = Warp::Mixed;
        fns[k].why64 = Some(why);
    }
    inherit(fns, &index);
}

/// "called from `k`, which shows `& 31`"; along a chain, "called from `mid`, called from `k`,
/// which shows `& 31`".
fn via(caller: &str, why32: &str) -> String {
    if why32.starts_with("called from ") {
        format!("called from `{caller}`, {why32}")
    } else {
        format!("called from `{caller}`, which shows {why32}")
    }
}

/// What a helper inherits from its callers: its warp and the evidence (32-lane, 64-lane).
type Verdict = (Warp, String, Option<String>);

/// A helper with no lane evidence of its own (`__shfl_sync(m, x, basis_dim)` in a per-ray
/// device function) runs on its callers' lanes: where every function of the file that calls
/// it works on 32-lane logical warps, so does the helper (chains of helpers, `kernel → mid →
/// trace`, settle in a few rounds); where one caller computes lanes from the wavefront and
/// another from 32-lane groups, a person chooses. A helper nothing here calls stays as it is.
/// Functions of one name (overloads, copies) share one verdict, computed once per round.
fn inherit(fns: &mut [Function], index: &HashMap<&[u8], Vec<usize>>) {
    for _ in 0..4 {
        let mut verdicts: HashMap<Vec<u8>, Option<Verdict>> = HashMap::new();
        for f in fns.iter() {
            if f.why32.is_some() || f.why64.is_some() || f.name.is_empty() {
                continue;
            }
            if verdicts.contains_key(&f.name) {
                continue;
            }
            let callers: Vec<&Function> = index
                .get(f.name.as_slice())
                .map(|c| {
                    c.iter()
                        .map(|&g| &fns[g])
                        .filter(|g| g.name != f.name)
                        .collect()
                })
                .unwrap_or_default();
            let name = |g: &Function| String::from_utf8_lossy(&g.name).into_owned();
            let logical = callers.iter().find(|g| g.warp == Warp::Logical32);
            let wide = callers.iter().find(|g| g.why64.is_some());
            let verdict = match (logical, wide) {
                (Some(l), Some(w)) => Some((
                    Warp::Mixed,
                    via(&name(l), l.why32.as_deref().unwrap_or("")),
                    Some(format!(
                        "called from `{}`, whose lanes come from {}",
                        name(w),
                        w.why64.as_deref().unwrap_or("")
                    )),
                )),
                (Some(l), None) if callers.iter().all(|g| g.warp == Warp::Logical32) => Some((
                    Warp::Logical32,
                    via(&name(l), l.why32.as_deref().unwrap_or("")),
                    None,
                )),
                _ => None,
            };
            verdicts.insert(f.name.clone(), verdict);
        }
        let mut changed = false;
        for f in fns.iter_mut() {
            if f.why32.is_some() || f.why64.is_some() {
                continue;
            }
            if let Some(Some((warp, why32, why64))) = verdicts.get(&f.name) {
                f.warp = *warp;
                f.why32 = Some(why32.clone());
                f.why64 = why64.clone();
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// The `n`th top-level argument of the call named at `name` when it is one token.
fn nth_arg(v: &View, name: usize, close: usize, n: usize) -> Option<usize> {
    let open = v.next(name)?;
    let mut depth = 0;
    let mut idx = 0;
    let mut toks = Vec::new();
    for j in open + 1..close {
        if !v.code(j) {
            continue;
        }
        match v.t(j) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => depth -= 1,
            b"," if depth == 0 => {
                idx += 1;
                continue;
            }
            _ => {}
        }
        if idx == n {
            toks.push(j);
        }
    }
    (toks.len() == 1).then(|| toks[0])
}

/// Regions run only by lanes 0–31 of the first wavefront: the branch of `if (threadIdx.x <
/// 32)` (or of a variable set to exactly `threadIdx.x`), of `if (warp == 0)` with `warp = tid /
/// 32`, and what follows `if (threadIdx.x >= 32) return;`.
fn guards(
    v: &View,
    body: &[usize],
    close: usize,
    exact: &HashSet<&[u8]>,
    warp: &HashSet<&[u8]>,
) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (k, &j) in body.iter().enumerate() {
        if v.t(j) != b"if" || !v.is(body.get(k + 1).copied(), "(") {
            continue;
        }
        let Some(end) = v.matching(body[k + 1]) else {
            continue;
        };
        let cond: Vec<usize> = body[k + 2..]
            .iter()
            .copied()
            .take_while(|&x| x < end)
            .collect();
        let texts: Vec<&[u8]> = cond.iter().map(|&x| v.t(x)).collect();
        let (thread, rest) = if texts.starts_with(&[b"threadIdx", b".", b"x"]) {
            (true, &cond[3..])
        } else if texts.first().is_some_and(|t| exact.contains(t)) {
            (true, &cond[1..])
        } else {
            (false, &cond[..])
        };
        let rt: Vec<&[u8]> = rest.iter().map(|&x| v.t(x)).collect();
        let last = rest.last().copied();
        let below_32 = thread && rt.len() == 2 && rt[0] == b"<" && v.val(last) == Some(32);
        let warp_0 = texts.len() == 4
            && warp.contains(texts[0])
            && texts[1..3] == [&b"="[..], b"="]
            && v.val(Some(cond[3])) == Some(0);
        let above = thread
            && rt.len() == 3
            && rt[0] == b">"
            && rt[1] == b"="
            && v.val(last) == Some(32)
            && v.is(v.next(end), "return");
        let guard = || {
            let a = v.lexed.tokens[body[k + 1]].end as usize;
            let b = v.lexed.tokens[end].start as usize;
            String::from_utf8_lossy(&v.src[a..b]).trim().to_string()
        };
        if above {
            out.push((end, close, guard()));
        } else if below_32 || warp_0 {
            if let Some(stmt_end) = statement_end(v, end) {
                out.push((end, stmt_end, guard()));
            }
        }
    }
    out
}

/// The last token of the statement after token `after` (a block, a `for`/`while` with its
/// body, or a statement up to its `;`).
pub(super) fn statement_end(v: &View, after: usize) -> Option<usize> {
    let s = v.next(after)?;
    match v.t(s) {
        b"{" => v.matching(s),
        b"for" | b"while" | b"if" => {
            let open = v.next(s).filter(|&o| v.t(o) == b"(")?;
            statement_end(v, v.matching(open)?)
        }
        _ => {
            let mut j = s;
            let mut depth = 0;
            loop {
                match v.t(j) {
                    b"(" | b"[" | b"{" => depth += 1,
                    b")" | b"]" | b"}" => depth -= 1,
                    b";" if depth == 0 => return Some(j),
                    _ => {}
                }
                j = v.next(j)?;
            }
        }
    }
}
