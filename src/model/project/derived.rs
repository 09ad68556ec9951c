//! Facts the project model derives from file texts and from every file's facts: the names a
//! configured header writes in every configuration, and the project switches HIP finds false
//! wherever they are defined.

use super::FileFacts;
use std::collections::{BTreeMap, BTreeSet};

/// The names a configured header's template (`config.h.in`) writes in every configuration
/// (`#cmakedefine01 NAME`): a `#ifndef NAME` fallback after it never applies.
pub(super) fn configured01(path: &str, bytes: &[u8]) -> Vec<String> {
    if !path.ends_with(".in") {
        return Vec::new();
    }
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["#cmakedefine01", name, ..] | ["#", "cmakedefine01", name, ..] => {
                    Some(name.to_string())
                }
                _ => None,
            }
        })
        .collect()
}

/// The switches every definition of which, in every file, is a test HIP finds false
/// ([`Project::zero_tests`]).
pub(super) fn zero_tests(facts: &[(String, FileFacts)]) -> BTreeMap<String, (String, bool)> {
    let mut out: BTreeMap<String, (String, bool)> = BTreeMap::new();
    let mut other: BTreeSet<&str> = BTreeSet::new();
    for (rel, f) in facts {
        for m in &f.macros {
            match m.hip_test {
                Some((0, arch)) => {
                    out.entry(m.name.clone())
                        .or_insert_with(|| (format!("{rel}:{}", m.line), arch));
                }
                _ => {
                    other.insert(&m.name);
                }
            }
        }
    }
    out.retain(|n, _| !other.contains(n.as_str()));
    out
}

/// A function whose body only returns a call of a warp intrinsic, in every preprocessor arm
/// (astro-accelerate's `aa_ballot`: `return(__ballot_sync(mask, XX));` for CUDA 9 and later,
/// `return(__ballot(XX));` before): the intrinsic under another name.
struct Forwarder {
    name: String,
    /// The intrinsic each arm calls, in order, with its number of arguments.
    callees: Vec<(String, usize)>,
    /// The first arm's call, as written.
    body: String,
    line: u32,
    /// Declared with a 32-bit integer return type.
    narrow: bool,
}

/// The functions of a file that only return a call of one of `targets` ([`Forwarder`]).
fn forwarders(src: &[u8], lexed: &crate::lex::Lexed, targets: &[&str]) -> Vec<Forwarder> {
    use crate::model::token_fns::{Block, Code};
    let target = |t: &[u8]| targets.iter().any(|x| x.as_bytes() == t);
    if !lexed
        .tokens
        .iter()
        .any(|t| t.kind == crate::lex::Tok::Ident && target(t.text(src)))
    {
        return Vec::new();
    }
    let code = Code::of(src, lexed);
    let mut out = Vec::new();
    for k in 0..code.toks.len() {
        let (Block::Function(name), Some(close)) = (
            if code.t(k) == b"{" {
                code.block(k)
            } else {
                Block::Other
            },
            code.close(k),
        ) else {
            continue;
        };
        // `return (* CALL ( … ) )* ;`, once or more, and nothing else.
        let mut j = k + 1;
        let mut callees = Vec::new();
        let mut first = None;
        while j < close {
            if code.t(j) != b"return" {
                break;
            }
            let mut e = j + 1;
            let mut opens = 0;
            while e < close && code.t(e) == b"(" {
                opens += 1;
                e += 1;
            }
            if !target(code.t(e)) || e + 1 >= close || code.t(e + 1) != b"(" {
                break;
            }
            let Some(end) = code.close(e + 1) else { break };
            let mut r = end + 1;
            while opens > 0 && r < close && code.t(r) == b")" {
                opens -= 1;
                r += 1;
            }
            if opens > 0 || r >= close || code.t(r) != b";" {
                break;
            }
            let at = |p: usize| lexed.tokens[code.toks[p]].start as usize;
            let end_byte = lexed.tokens[code.toks[end]].end as usize;
            let mut depth = 0usize;
            let mut args = usize::from(end > e + 2);
            for p in e + 2..end {
                match code.t(p) {
                    b"(" | b"[" | b"{" => depth += 1,
                    b")" | b"]" | b"}" => depth = depth.saturating_sub(1),
                    b"," if depth == 0 => args += 1,
                    _ => {}
                }
            }
            callees.push((String::from_utf8_lossy(code.t(e)).into_owned(), args));
            first.get_or_insert_with(|| {
                (
                    String::from_utf8_lossy(&src[at(e)..end_byte]).into_owned(),
                    at(name),
                )
            });
            j = r + 1;
        }
        let before = |n: usize| name.checked_sub(n).map(|p| code.t(p));
        let narrow = matches!(
            before(1),
            Some(b"int" | b"unsigned" | b"uint32_t" | b"int32_t" | b"uint" | b"u32")
        ) || (before(1) == Some(b"long") && before(2) != Some(b"long"));
        if let (true, Some((body, at))) = (j == close, first) {
            out.push(Forwarder {
                name: String::from_utf8_lossy(code.t(name)).into_owned(),
                callees,
                body,
                line: src[..at].iter().filter(|&&b| b == b'\n').count() as u32 + 1,
                narrow,
            });
        }
    }
    out
}

const BALLOTS: [&str; 3] = ["__ballot_sync", "__ballot", "__activemask"];
const SHUFFLES: [&str; 8] = [
    "__shfl",
    "__shfl_sync",
    "__shfl_up",
    "__shfl_up_sync",
    "__shfl_down",
    "__shfl_down_sync",
    "__shfl_xor",
    "__shfl_xor_sync",
];

/// A wrapper: its name, what it forwards to (the ballot as written, or a shuffle's mask-less
/// intrinsic) and its line.
pub type Wrapper = (String, String, u32);

/// The ballot wrappers and the shuffle wrappers of a file ([`ballot_functions`],
/// [`shuffle_functions`]), read in one pass over its function bodies.
pub fn warp_wrappers(src: &[u8], lexed: &crate::lex::Lexed) -> (Vec<Wrapper>, Vec<Wrapper>) {
    let targets: Vec<&str> = BALLOTS.iter().chain(SHUFFLES.iter()).copied().collect();
    let fs = forwarders(src, lexed, &targets);
    let ballots = fs
        .iter()
        .filter(|f| !f.narrow && f.callees.iter().all(|(c, _)| BALLOTS.contains(&c.as_str())))
        .map(|f| (f.name.clone(), f.body.clone(), f.line))
        .collect();
    let shuffles = fs
        .iter()
        .filter_map(|f| {
            let family = f.callees.first()?.0.trim_end_matches("_sync").to_string();
            f.callees
                .iter()
                .all(|(c, n)| {
                    let widthless = if c.ends_with("_sync") { 3 } else { 2 };
                    SHUFFLES.contains(&c.as_str())
                        && c.trim_end_matches("_sync") == family
                        && *n <= widthless
                })
                .then(|| (f.name.clone(), family, f.line))
        })
        .collect();
    (ballots, shuffles)
}

/// The functions whose body only returns a ballot, in every preprocessor arm
/// (a `Forwarder`): a ballot under another name, like a ballot macro. Each with the first
/// return's expression and its line. A wrapper declared with a 32-bit return type cuts the
/// ballot itself (darknet's `uint32_t ballot32`, reported and rewritten there): its callers
/// get 32 bits, so it is left out.
pub fn ballot_functions(src: &[u8], lexed: &crate::lex::Lexed) -> Vec<(String, String, u32)> {
    warp_wrappers(src, lexed).0
}

/// The functions whose body only returns a lane exchange of one direction in every arm, with
/// no width (astro-accelerate's `aa_shfl_down`: `__shfl_down_sync(mask, XX, YY)` for CUDA 9,
/// `__shfl_down(XX, YY)` before), each with that direction's mask-less intrinsic
/// (`__shfl_down`) and its line. A wrapper that passes a width (FlexFlow's `WARP_SHFL_XOR(mask,
/// var, laneMask, width)`) leaves the width to its callers: no wrapper here.
pub fn shuffle_functions(src: &[u8], lexed: &crate::lex::Lexed) -> Vec<(String, String, u32)> {
    warp_wrappers(src, lexed).1
}

/// Whether a macro body is a ballot of the wavefront (`__ballot_sync(FULL_MASK, P)`,
/// `__ballot(P)`): its first name.
pub fn is_ballot_body(body: &str) -> bool {
    let first = body
        .trim_start_matches(|c: char| c == '(' || c.is_whitespace())
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    matches!(first, "__ballot_sync" | "__ballot" | "__activemask")
}

/// The index (into the code tokens `text` reads) of the `)` that closes the first `(` after
/// `k`, looking at most 400 tokens ahead; `None` past that, at the end, or, when `strict`, at a
/// `;`, `{` or `}` (a declaration's parameter list holds none).
pub(crate) fn closing_paren<'b>(
    text: impl Fn(usize) -> Option<&'b [u8]>,
    k: usize,
    len: usize,
    strict: bool,
) -> Option<usize> {
    let mut depth = 0usize;
    for n in k + 1..len.min(k + 400) {
        match text(n)? {
            b"(" => depth += 1,
            b")" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(n);
                }
            }
            b";" | b"{" | b"}" if strict => return None,
            _ => {}
        }
    }
    None
}

/// A function a header defines: whether its body does warp-level work itself, and the names it
/// calls (read by the warp-size rules' `function_calls` token pass).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnCalls {
    pub name: String,
    pub direct: bool,
    pub calls: Vec<String>,
}

/// The project's functions that do warp-level work: directly, through a warp-work macro of any
/// header, or by calling (two levels deep, by name) a function that does; device functions only
/// ([`FnCalls`]). A name defined
/// twice counts when either definition does.
pub(super) fn warp_fns(facts: &[(String, FileFacts)]) -> BTreeSet<String> {
    let macros: BTreeSet<&str> = facts
        .iter()
        .flat_map(|(_, f)| f.warp_work_macros.iter().map(String::as_str))
        .collect();
    let mut out: BTreeSet<String> = BTreeSet::new();
    // Two levels of callers: a kernel calling a model method that reduces (graphvite), and
    // its wrapper. Vendored copies (a CUB in `third_party/`) are their own projects.
    let own = || {
        facts
            .iter()
            .filter(|(rel, _)| crate::model::folders::component_of(rel).is_none())
    };
    for round in 0..3 {
        let before = out.len();
        for (_, f) in own() {
            for c in &f.fn_calls {
                let calls_warp =
                    |n: &String| (round == 0 && macros.contains(n.as_str())) || out.contains(n);
                if !out.contains(&c.name)
                    && ((round == 0 && c.direct) || c.calls.iter().any(calls_warp))
                {
                    out.insert(c.name.clone());
                }
            }
        }
        if round > 0 && out.len() == before {
            break;
        }
    }
    out
}

impl super::Project {
    /// The project's [`Project::zero_tests`] and [`Project::other_backends`] `v` has no pin of
    /// its own for.
    pub(super) fn add_zero_tests(&self, v: &mut super::Visible) {
        use crate::model::macro_env::Known;
        let zero = self
            .zero_tests
            .iter()
            .map(|(n, (at, arch))| (n, at, Known::Zero, *arch));
        let off = self
            .other_backends
            .iter()
            .map(|(n, at)| (n, at, Known::Undefined, false));
        for (name, at, known, arch) in zero.chain(off) {
            if !v.hip_pins.contains_key(name) {
                let line = at.rsplit_once(':').and_then(|(_, l)| l.parse().ok());
                let pin = crate::model::hip_pins::HipPin {
                    name: name.clone(),
                    known,
                    line: line.unwrap_or(0),
                    arch,
                    platform: false,
                };
                v.hip_pins.insert(name.clone(), (pin, at.clone()));
            }
        }
    }
}

pub(super) fn join_tokens(bytes: &[u8], lexed: &crate::lex::Lexed, toks: &[usize]) -> String {
    toks.iter()
        .map(|&j| String::from_utf8_lossy(lexed.tokens[j].text(bytes)).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

use crate::translate::compat::NOT_A_TYPE;

/// A function defined or declared with its name at `code[k]`: a type word before it, and
/// `{` or `;` after its parameter list.
pub(super) fn function(
    bytes: &[u8],
    lexed: &crate::lex::Lexed,
    code: &[usize],
    k: usize,
) -> Option<super::Function> {
    let text = |n: usize| code.get(n).map(|&i| lexed.tokens[i].text(bytes));
    let name = text(k)?;
    if text(k + 1)? != b"(" || NOT_A_TYPE.contains(&name) || lexed.tokens[code[k]].in_directive() {
        return None;
    }
    let prev = text(k.checked_sub(1)?)?;
    let prev_kind = lexed.tokens[code[k - 1]].kind;
    let typed = (prev_kind == crate::lex::Tok::Ident && !NOT_A_TYPE.contains(&prev))
        || prev == b"*"
        || prev == b"&";
    if !typed {
        return None;
    }
    let close = closing_paren(text, k, code.len(), false)?;
    // `) {`, `) ;`, `) const {`, `) noexcept {`.
    let mut n = close + 1;
    while matches!(text(n)?, b"const" | b"noexcept" | b"override") {
        n += 1;
    }
    if !matches!(text(n)?, b"{" | b";") {
        return None;
    }
    Some(super::Function {
        name: String::from_utf8_lossy(name).into_owned(),
        line: 0,
        params: join_tokens(bytes, lexed, &code[k + 2..close]),
    })
}
