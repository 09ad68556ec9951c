//! The width of a warp intrinsic's mask. CUDA's `*_sync` intrinsics take an `unsigned` mask;
//! HIP's (ROCm 6.2 and later) take a template mask and `static_assert` that it is a 64-bit
//! integer ("Implicitly promoting a smaller integer is almost always an error"), so a mask of a
//! 32-bit type does not compile: a `uint32_t leader_mask` local, a `uint32_t mask` parameter,
//! `(1U << n) - 1`. A literal `0xffffffff` is widened by the translator on its own; this module
//! types the rest from the tokens, the way C++ does: a literal by its value and suffix, a name
//! by its declaration (in the function, its parameters, at file scope, or a `#define` of the
//! file), an expression by its widest operand, a shift by its left operand, a cast by its type.
//! Anything else (a member, a call, a template type, `auto`) is not known: no answer.

use super::*;

/// What a mask's type is, where the tokens say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Width {
    /// 32 bits or fewer: `unsigned`, `uint32_t`, `int`, `1U`.
    Narrow,
    /// 64 bits: `unsigned long long`, `uint64_t`, `1ull`, `(unsigned long long)m`.
    Wide,
}

/// Type words of 32 bits or fewer.
const NARROW_WORDS: &[&str] = &[
    "unsigned", "signed", "int", "short", "char", "bool", "uint32_t", "int32_t", "uint16_t",
    "int16_t", "uint8_t", "int8_t", "uint", "u32", "i32",
];
/// Type words of 64 bits (LP64: `long` is 64 bits).
const WIDE_WORDS: &[&str] = &[
    "long",
    "uint64_t",
    "int64_t",
    "size_t",
    "ssize_t",
    "uintptr_t",
    "intptr_t",
    "ptrdiff_t",
    "lane_mask_t",
    "u64",
    "i64",
];
/// Words of a declaration that say nothing of the type.
const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "static",
    "constexpr",
    "register",
    "__restrict__",
    "__device__",
    "__constant__",
    "__shared__",
    "__host__",
    "inline",
    "__inline__",
    "__forceinline__",
    "__noinline__",
    "extern",
];
/// Calls whose HIP result is a 64-bit mask.
const WIDE_CALLS: &[&str] = &[
    "__activemask",
    "__ballot",
    "__ballot_sync",
    "__match_any_sync",
    "__match_all_sync",
    "__lanemask_lt",
    "__lanemask_gt",
    "__lanemask_eq",
];

/// Words before a name that make it no declaration.
const NOT_TYPES: &[&str] = &[
    "return",
    "case",
    "goto",
    "sizeof",
    "else",
    "do",
    "throw",
    "delete",
    "new",
    "co_return",
    "co_yield",
    "typedef",
    "using",
    "define",
    "if",
];

fn is_word(x: &[u8], words: &[&str]) -> bool {
    words.iter().any(|w| w.as_bytes() == x)
}

/// The width of a type written as words (`unsigned int`, `const uint64_t`); `None` for words
/// that are no built-in integer type (`auto`, `T`, `MaskT`).
fn type_width(v: &View, words: &[usize]) -> Option<Width> {
    let mut width = None;
    for &w in words {
        let t = v.t(w);
        if is_word(t, QUALIFIERS) {
            continue;
        }
        if is_word(t, WIDE_WORDS) {
            width = Some(Width::Wide);
        } else if is_word(t, NARROW_WORDS) || v.aliases.is_some_and(|a| a.contains(t)) {
            width.get_or_insert(Width::Narrow);
        } else {
            return None;
        }
    }
    width
}

/// The width of a literal: a suffix with `l` is 64 bits, so is a value past 32 bits; a
/// floating literal has no mask width.
fn literal_width(text: &[u8]) -> Option<Width> {
    let s = std::str::from_utf8(text).ok()?.to_ascii_lowercase();
    let hex = s.starts_with("0x");
    if !hex && (s.contains('.') || s.contains('e') || s.ends_with('f')) {
        return None;
    }
    let suffix: String = s
        .chars()
        .rev()
        .take_while(|c| matches!(c, 'u' | 'l'))
        .collect();
    if suffix.contains('l') {
        return Some(Width::Wide);
    }
    let value = int_value(&s)?;
    Some(if value > u64::from(u32::MAX) {
        Width::Wide
    } else {
        Width::Narrow
    })
}

/// The token after `toks[k]` in the slice, if any.
fn at<'a>(v: &View<'a>, toks: &[usize], k: usize) -> Option<&'a [u8]> {
    toks.get(k).map(|&i| v.t(i))
}

/// The index (in `toks`) of the closer matching the opener at `k`.
fn close_of(v: &View, toks: &[usize], k: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (m, &i) in toks.iter().enumerate().skip(k) {
        match v.t(i) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(m);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `toks[k]` and `toks[k + 1]` form a shift operator (`<<`, `>>`, written adjacent).
fn shift_at(v: &View, toks: &[usize], k: usize) -> bool {
    let (Some(&a), Some(&b)) = (toks.get(k), toks.get(k + 1)) else {
        return false;
    };
    let (ta, tb) = (&v.lexed.tokens[a], &v.lexed.tokens[b]);
    ta.end == tb.start && matches!((v.t(a), v.t(b)), (b"<", b"<") | (b">", b">"))
}

/// The index after the operand starting at `k`: unary operators, then a literal, a name with
/// its calls, subscripts and members, or a parenthesised group.
fn skip_operand(v: &View, toks: &[usize], mut k: usize) -> usize {
    while at(v, toks, k).is_some_and(|t| matches!(t, b"~" | b"-" | b"!" | b"+")) {
        k += 1;
    }
    match at(v, toks, k) {
        Some(b"(") => close_of(v, toks, k).map_or(toks.len(), |c| c + 1),
        Some(_) => {
            k += 1;
            loop {
                match at(v, toks, k) {
                    Some(b"(") | Some(b"[") => {
                        k = close_of(v, toks, k).map_or(toks.len(), |c| c + 1)
                    }
                    Some(b".") | Some(b"->") | Some(b"::") => k += 2,
                    _ => return k,
                }
            }
        }
        None => k,
    }
}

/// The width of the expression `toks` (indices of its tokens, in order); `None` where any
/// operand that decides it is not known.
pub(super) fn expr_width(
    v: &View,
    toks: &[usize],
    decl: &dyn Fn(usize) -> Option<Width>,
) -> Option<Width> {
    let mut width: Option<Width> = None;
    let mut k = 0;
    let join = |w: Width, width: &mut Option<Width>| {
        *width = Some(width.map_or(w, |x| x.max(w)));
    };
    while k < toks.len() {
        let i = toks[k];
        let t = v.t(i);
        let kind = v.lexed.tokens[i].kind;
        if shift_at(v, toks, k) {
            // The right operand of a shift does not change its type: skip it, up to the next
            // operator that binds less tightly than a shift.
            k += 2;
            while k < toks.len() {
                match v.t(toks[k]) {
                    b"(" | b"[" => k = close_of(v, toks, k).map_or(toks.len(), |c| c + 1),
                    b"<" | b">" | b"&" | b"^" | b"|" | b"?" | b":" | b"," | b"=" | b"!" => break,
                    _ => k += 1,
                }
            }
            continue;
        }
        match kind {
            Tok::Number => {
                join(literal_width(t)?, &mut width);
                k += 1;
            }
            Tok::Ident => {
                if t == b"static_cast" || t == b"reinterpret_cast" {
                    // `static_cast<T>(x)`: the type between the angle brackets.
                    let close = (k + 2..toks.len()).find(|&m| v.t(toks[m]) == b">")?;
                    join(type_width(v, &toks[k + 2..close])?, &mut width);
                    k = skip_operand(v, toks, close + 1);
                    continue;
                }
                if t == b"true" || t == b"false" {
                    join(Width::Narrow, &mut width);
                    k += 1;
                    continue;
                }
                // `ns::f(…)`: the call of `f`, typed by its declaration.
                let mut name = k;
                while at(v, toks, name + 1) == Some(b"::")
                    && toks
                        .get(name + 2)
                        .is_some_and(|&n| v.lexed.tokens[n].kind == Tok::Ident)
                {
                    name += 2;
                }
                match at(v, toks, name + 1) {
                    Some(b"(") if is_word(v.t(toks[name]), WIDE_CALLS) => {
                        join(Width::Wide, &mut width);
                    }
                    // A function the file declares with an integer return type
                    // (`__device__ uint32_t shfl_mask(int n)`).
                    Some(b"(") => join(decl(toks[name])?, &mut width),
                    Some(b".") | Some(b"->") | Some(b"::") => return None,
                    _ => join(decl(i)?, &mut width),
                }
                k = skip_operand(v, toks, name);
            }
            Tok::Punct => match t {
                b"(" => {
                    let close = close_of(v, toks, k)?;
                    let inner = &toks[k + 1..close];
                    let cast = !inner.is_empty()
                        && inner.iter().all(|&w| {
                            v.lexed.tokens[w].kind == Tok::Ident && type_width(v, &[w]).is_some()
                        });
                    if cast {
                        join(type_width(v, inner)?, &mut width);
                        k = skip_operand(v, toks, close + 1);
                    } else {
                        join(expr_width(v, inner, decl)?, &mut width);
                        k = close + 1;
                    }
                }
                // A conditional or a comparison: not a mask this module types.
                b"?" | b"<" | b">" | b"=" => return None,
                b"!" if at(v, toks, k + 1) == Some(b"=") => return None,
                _ => k += 1,
            },
            _ => return None,
        }
    }
    width
}

/// Words before a name that make it no declaration.
fn declaration(v: &View, d: usize) -> Option<Option<Width>> {
    let mut words = Vec::new();
    let mut j = v.prev(d);
    while let Some(p) = j {
        if v.lexed.tokens[p].kind != Tok::Ident {
            break;
        }
        words.push(p);
        j = v.prev(p);
    }
    // `return mask`, `case MASK`: no declaration.
    if words.is_empty() || is_word(v.t(words[0]), NOT_TYPES) {
        return None;
    }
    words.reverse();
    Some(type_width(v, &words))
}

/// The file's declarations a mask may name, read once: variables declared at file scope (by
/// name, in order, with their widths) and object-like `#define`s (typed by their bodies).
#[derive(Debug, Default)]
pub(super) struct Decls {
    file: HashMap<Vec<u8>, Vec<(usize, Option<Width>)>>,
    defines: HashMap<Vec<u8>, Option<Width>>,
    /// Functions declared at namespace scope, by name: the width of their return type
    /// (`None` where a declaration's type is no built-in integer, or two disagree).
    calls: HashMap<Vec<u8>, Option<Width>>,
    /// Functions the included project headers declare with a 32-bit return type.
    pub(super) included_narrow: HashSet<Vec<u8>>,
}

impl Decls {
    pub(super) fn of(v: &View) -> Decls {
        let mut out = Decls::default();
        // Per open brace, whether it opens a namespace (or `extern "C"`): names declared
        // inside only those are at file scope.
        let mut braces: Vec<bool> = Vec::new();
        for d in 0..v.lexed.tokens.len() {
            if !v.code(d) {
                continue;
            }
            match v.t(d) {
                b"{" => {
                    let p = v.prev(d);
                    let namespace = v.is(p, "namespace")
                        || v.is(p.and_then(|p| v.prev(p)), "namespace")
                        || (p.is_some_and(|p| v.lexed.tokens[p].kind == Tok::Str)
                            && v.is(p.and_then(|p| v.prev(p)), "extern"));
                    braces.push(namespace);
                }
                b"}" => {
                    braces.pop();
                }
                x if braces.iter().all(|&n| n) && v.lexed.tokens[d].kind == Tok::Ident => {
                    if let Some(w) = declaration(v, d) {
                        if v.is(v.next(d), "(") {
                            let e = out.calls.entry(x.to_vec()).or_insert(w);
                            if *e != w {
                                *e = None;
                            }
                        } else {
                            out.file.entry(x.to_vec()).or_default().push((d, w));
                        }
                    }
                }
                _ => {}
            }
        }
        let lexed = v.lexed;
        for d in lexed.directives.iter().filter(|d| d.name == "define") {
            let toks: Vec<usize> = lexed.directive_words(d);
            if toks.len() < 4 {
                continue;
            }
            // A function-like macro: `(` right after the name.
            let function_like =
                v.t(toks[3]) == b"(" && lexed.tokens[toks[2]].end == lexed.tokens[toks[3]].start;
            let w = if function_like {
                None
            } else {
                expr_width(v, &toks[3..], &|_| None)
            };
            out.defines.insert(v.t(toks[2]).to_vec(), w);
        }
        out
    }
}

/// The functions a file declares at namespace scope with a 32-bit integer return type, for
/// the files that include it (the project model's pre-pass).
pub(crate) fn narrow_returns(src: &[u8], lexed: &Lexed) -> Vec<String> {
    if !lexed
        .tokens
        .iter()
        .any(|t| t.kind == Tok::Ident && is_word(t.text(src), NARROW_WORDS))
    {
        return Vec::new();
    }
    let v = View::bare(src, lexed);
    let mut out: Vec<String> = Decls::of(&v)
        .calls
        .into_iter()
        .filter(|(_, w)| *w == Some(Width::Narrow))
        .map(|(n, _)| String::from_utf8_lossy(&n).into_owned())
        .collect();
    out.sort();
    out
}

/// The names a file declares at any scope as integer types of 32 bits or fewer
/// (`typedef uint32_t PxU32;`, `using u32 = unsigned int;`), for its own reading and for the
/// files that include it (the project model's pre-pass).
pub(crate) fn narrow_types(src: &[u8], lexed: &Lexed) -> Vec<String> {
    let v = View::bare(src, lexed);
    let mut out = Vec::new();
    for i in 0..lexed.tokens.len() {
        if !v.code(i) || !matches!(v.t(i), b"typedef" | b"using") {
            continue;
        }
        // The words up to the `;`: `typedef W… NAME ;` or `using NAME = W… ;`.
        let mut words = Vec::new();
        let mut j = v.next(i);
        while let Some(k) = j.filter(|_| words.len() < 8) {
            if v.t(k) == b";" {
                break;
            }
            words.push(k);
            j = v.next(k);
        }
        if !v.is(j, ";") {
            continue;
        }
        let (name, ty) = match v.t(i) {
            b"typedef" => match words.split_last() {
                Some((&n, ty)) => (n, ty.to_vec()),
                None => continue,
            },
            _ if words.len() >= 3 && v.t(words[1]) == b"=" => (words[0], words[2..].to_vec()),
            _ => continue,
        };
        let idents = ty.iter().all(|&w| v.lexed.tokens[w].kind == Tok::Ident);
        if v.lexed.tokens[name].kind == Tok::Ident
            && idents
            && type_width(&v, &ty) == Some(Width::Narrow)
        {
            out.push(String::from_utf8_lossy(v.t(name)).into_owned());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The width a name was declared with, looking back from its use at token `use_at`: a local
/// or parameter of the enclosing function (from its parameter list `params` on), else a
/// declaration at file scope before the function, else a `#define` of the file.
pub(super) fn declared(v: &View, decls: &Decls, use_at: usize, params: usize) -> Option<Width> {
    let name = v.t(use_at);
    if v.is(v.next(use_at), "(") {
        return match decls.calls.get(name) {
            Some(w) => *w,
            None => decls
                .included_narrow
                .contains(name)
                .then_some(Width::Narrow),
        };
    }
    for d in (params..use_at).rev() {
        if v.code(d) && v.t(d) == name {
            if let Some(w) = declaration(v, d) {
                return w;
            }
        }
    }
    if let Some(found) = decls
        .file
        .get(name)
        .and_then(|ds| ds.iter().rev().find(|(d, _)| *d < params))
    {
        return found.1;
    }
    decls.defines.get(name).copied().flatten()
}

/// How the translator gives a 32-bit mask the 64 bits HIP requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MaskFix {
    /// `(unsigned long long)(m)`: the lanes it names, where lanes 0–31 of the wavefront are
    /// the ones that run the call.
    ZeroExtend,
    /// `((unsigned long long)(m) << (__lane_id() & 32))`: the lanes of the caller's own
    /// 32-lane half, where each half of the wavefront is one CUDA warp.
    OwnHalf,
    /// `(0xffffffffull << (__lane_id() & 32))` in place of a partial literal (`0x0000ffff`):
    /// every lane of the caller's 32-lane half, where the whole half runs a shuffle whose
    /// width confines the exchange (the value does not depend on the mask; HIP's check wants
    /// the mask to name exactly the lanes that run the call).
    WholeHalf,
}

/// What [`MaskFix::WholeHalf`] writes.
pub(crate) const WHOLE_HALF: &str = "(0xffffffffull << (__lane_id() & 32))";

/// A `*_sync` call's mask of a 32-bit type and the widening that keeps its meaning.
#[derive(Clone, Debug)]
pub(crate) struct NarrowMask {
    /// The mask argument's first and last tokens.
    pub first: usize,
    pub last: usize,
    pub fix: MaskFix,
    /// Safe where the lanes that run the call are known (32-lane logical warps, or lanes 0–31
    /// only); unsafe in a function whose lanes span the wavefront (or mix both).
    pub applicability: Applicability,
    /// Why: the function's 32-lane evidence or the guard that confines the call.
    pub why: String,
}

/// Whether the call named `x` takes a lane mask first.
pub(crate) fn takes_mask(x: &[u8]) -> bool {
    x.starts_with(b"__") && (x.ends_with(b"_sync") || x == b"__syncwarp") && warp_level_name(x)
}

impl LogicalWarps {
    /// The file's declarations, read on first use.
    fn decls(&self, v: &View) -> &Decls {
        self.decls.get_or_init(|| Decls {
            included_narrow: self.included_narrow.clone(),
            ..Decls::of(v)
        })
    }

    /// Whether the file declares the function `name` with a 32-bit integer return type.
    pub(super) fn returns_narrow(&self, v: &View, name: &[u8]) -> bool {
        self.decls(v).calls.get(name) == Some(&Some(Width::Narrow))
    }

    /// The mask of the `*_sync` call named at token `i` where its type is 32 bits (HIP's form
    /// does not compile), with the widening that keeps CUDA's meaning. A single full literal
    /// (`0xffffffff`) is not this module's: the translator widens it by value.
    pub(crate) fn narrow_mask(&self, src: &[u8], lexed: &Lexed, i: usize) -> Option<NarrowMask> {
        let v = self.view(src, lexed);
        if !takes_mask(v.t(i)) {
            return None;
        }
        let open = v.next(i).filter(|&o| v.t(o) == b"(")?;
        let close = v.matching(open)?;
        let (mut first, mut last) = *votes::arguments(&v, open, close).first()?;
        // `(0xffffffff)`: the parentheses of a macro-style spelling are no part of the value.
        while v.t(first) == b"(" && v.matching(first) == Some(last) {
            match (v.next(first), v.prev(last)) {
                (Some(a), Some(b)) if a <= b => (first, last) = (a, b),
                _ => return None,
            }
        }
        if first == last && lexed.tokens[first].kind == Tok::Number {
            return self.partial_literal(&v, i, first);
        }
        let toks: Vec<usize> = (first..=last).filter(|&j| v.code(j)).collect();
        // A full mask spelled as an expression (`~0`, `uint32_t(-1)`) is the translator's to
        // widen by value, as a literal is: one edit of the range, not two.
        let text: Vec<u8> = toks.iter().flat_map(|&j| v.t(j).to_vec()).collect();
        if crate::model::syntax::full_mask_literal(&String::from_utf8_lossy(&text)) {
            return None;
        }
        let f = self.function(i);
        // Declarations are looked up from the function's parameter list on.
        let params = f
            .and_then(|f| v.prev(f.open))
            .and_then(|p| {
                let p = if v.t(p) == b")" { Some(p) } else { v.prev(p) }?;
                v.matching_back(p)
            })
            .unwrap_or(0);
        let decls = self.decls(&v);
        let decl = |j: usize| declared(&v, decls, j, params);
        if expr_width(&v, &toks, &decl)? != Width::Narrow {
            return None;
        }
        let (fix, applicability, why) = self.widening(i);
        Some(NarrowMask {
            first,
            last,
            fix,
            applicability,
            why,
        })
    }

    /// A literal mask naming some lanes only (`0x0000ffff`, `0x3`): an `int` literal, so HIP's
    /// `_sync` form does not compile either. A shuffle (or `__syncwarp`) the whole 32-lane half
    /// of a function of logical warps runs unconditionally gets every lane of that half: its
    /// width confines the exchange, so the values CUDA computed are kept, and HIP's mask check
    /// (the mask names exactly the lanes that run the call) holds. Elsewhere the lanes that run
    /// the call are not known: the widening is unsafe.
    fn partial_literal(&self, v: &View, i: usize, lit: usize) -> Option<NarrowMask> {
        let text = v.t(lit).to_ascii_lowercase();
        if text.ends_with(b"ll") || text.ends_with(b"llu") {
            return None;
        }
        let value = crate::model::syntax::int_value(std::str::from_utf8(&text).ok()?)?;
        if value == 0 || value >= 0xffff_ffff {
            return None;
        }
        let name = name_of(v, i);
        let f = self.function(i)?;
        let shuffle = name == "__syncwarp" || (SHUFFLES.contains(&name) && name.ends_with("_sync"));
        if shuffle
            && f.warp == Warp::Logical32
            && self.first32(i).is_none()
            && unconditional(v, f, i)
        {
            return Some(NarrowMask {
                first: lit,
                last: lit,
                fix: MaskFix::WholeHalf,
                applicability: Applicability::Safe,
                why: format!(
                    "the whole 32-lane logical warp runs the call ({}) and a shuffle's value does not depend on its mask (its width confines the exchange), so every lane of the half is named: HIP checks that the mask names exactly the lanes that run the call",
                    f.why32.as_deref().unwrap_or("")
                ),
            });
        }
        let (fix, _, why) = self.widening(i);
        Some(NarrowMask {
            first: lit,
            last: lit,
            fix,
            applicability: Applicability::Unsafe,
            why: format!(
                "{why}; the literal names only some lanes, so check which lanes run the call"
            ),
        })
    }

    /// The widening of a 32-bit mask at the call named at token `i`, by what the function's
    /// lanes are.
    fn widening(&self, i: usize) -> (MaskFix, Applicability, String) {
        let f = self.function(i);
        match (self.first32(i), f.map(|f| f.warp)) {
            (Some(g), _) => (
                MaskFix::ZeroExtend,
                Applicability::Safe,
                format!("only lanes 0–31 run the call (`{g}`)"),
            ),
            (None, Some(Warp::Logical32)) => (
                MaskFix::OwnHalf,
                Applicability::Safe,
                format!(
                    "the function's lanes are 32-lane logical warps ({})",
                    f.and_then(|f| f.why32.as_deref()).unwrap_or("")
                ),
            ),
            (None, Some(Warp::Mixed)) => (
                MaskFix::OwnHalf,
                Applicability::Unsafe,
                format!(
                    "the function mixes 32-lane logical warps ({}) with wavefront lanes ({})",
                    f.and_then(|f| f.why32.as_deref()).unwrap_or(""),
                    f.and_then(|f| f.why64.as_deref()).unwrap_or("")
                ),
            ),
            _ => (
                MaskFix::ZeroExtend,
                Applicability::Unsafe,
                "the lanes that run the call may span the 64-lane wavefront".to_string(),
            ),
        }
    }
}

/// Whether every lane that enters function `f` reaches the call at token `i`: no exit before it
/// (`return`, `break`, `continue`, `goto`), and no branch around it (`if`, `else`, `while`,
/// `switch`, `?:`); `for` loops whose header does not read `threadIdx` run on every lane alike
/// (`for (int o = 16; o > 0; o >>= 1)`).
fn unconditional(v: &View, f: &Function, i: usize) -> bool {
    let uniform_for = |close: usize| -> bool {
        let Some(open) = v.matching_back(close) else {
            return false;
        };
        v.prev(open).is_some_and(|k| v.t(k) == b"for")
            && !(open..close).any(|k| v.code(k) && v.t(k) == b"threadIdx")
    };
    let mut opens: Vec<usize> = Vec::new();
    let mut stmt = f.open;
    for j in f.open + 1..i {
        if !v.code(j) {
            continue;
        }
        match v.t(j) {
            b"return" | b"break" | b"continue" | b"goto" => return false,
            b"{" => {
                opens.push(j);
                stmt = j;
            }
            b"}" => {
                opens.pop();
                stmt = j;
            }
            b";" => stmt = j,
            _ => {}
        }
    }
    // Every block around the call is a uniform `for` body (the function body is `f.open`).
    for &b in &opens {
        if !v.prev(b).is_some_and(|p| v.t(p) == b")" && uniform_for(p)) {
            return false;
        }
    }
    // The statement holding the call: no branch keyword, no `?`, and a `)` left open closes
    // a uniform `for` header (`for (…; o /= 2) v += __shfl_down_sync(…)`).
    let mut depth = 0i32;
    for j in stmt + 1..i {
        if !v.code(j) {
            continue;
        }
        match v.t(j) {
            b"if" | b"else" | b"while" | b"switch" | b"case" | b"default" | b"?" | b"do" => {
                return false
            }
            b"(" => depth += 1,
            b")" => {
                depth -= 1;
                if depth < 0 {
                    if !uniform_for(j) {
                        return false;
                    }
                    depth = 0;
                }
            }
            _ => {}
        }
    }
    true
}
