//! HP402: decisions on the compute capability (`prop.major`/`minor`, the capability as one
//! number, `cudaDevAttrComputeCapabilityMajor`), read against the majors AMD GPUs report
//! (gfx9 → 9 … gfx12 → 12) and the `if` arms AMD runs.

use super::COMPUTE_CAPABILITY_CHECK;
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, Src};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

mod flags;
mod hopper_guard;

/// The functions a file defines that return the compute capability as one number
/// (`int compute_capability() { return mProp.major * 10 + mProp.minor; }`), from its tokens
/// alone (the project model's pre-pass): a caller in this file or one that includes it holds a
/// capability where it keeps the call's value.
pub(crate) fn capability_functions(src: &[u8], lexed: &crate::lex::Lexed) -> Vec<(String, u64)> {
    let c = crate::model::token_fns::Code::of(src, lexed);
    let t = |k: usize| c.t(k);
    let mut out = Vec::new();
    for k in 0..c.toks.len() {
        if t(k) != b"return" {
            continue;
        }
        // The returned expression, up to its `;`: `… major * 10 + … minor` (or `* 100`).
        let end = (k + 1..c.toks.len().min(k + 40)).find(|&j| t(j) == b";");
        let Some(end) = end else { continue };
        let words: Vec<&[u8]> = (k + 1..end).map(t).collect();
        let scale = words.windows(3).find_map(|w| {
            (w[0] == b"major" && w[1] == b"*")
                .then(|| match w[2] {
                    b"10" => Some(10),
                    b"100" => Some(100),
                    _ => None,
                })
                .flatten()
        });
        let Some(scale) = scale.filter(|_| words.contains(&b"minor".as_slice())) else {
            continue;
        };
        // The enclosing function, through a statement's block (`if (…) {`) to the one around.
        if let Some(n) = c.enclosing_function(k) {
            let n = String::from_utf8_lossy(t(n)).into_owned();
            if !out.iter().any(|(o, _)| *o == n) {
                out.push((n, scale));
            }
        }
    }
    out
}

/// The names holding a compute capability, and the scale of those holding it as one number
/// (`major * 10 + minor` returned by a function, or assigned from a call of one).
#[derive(Default)]
struct Cc<'s> {
    names: HashSet<&'s str>,
    scaled: std::collections::HashMap<String, u64>,
}

impl<'s> Cc<'s> {
    fn contains(&self, n: &str) -> bool {
        self.names.contains(n)
    }
    fn insert(&mut self, n: &'s str) {
        self.names.insert(n);
    }
}

fn is_cc_field(s: &Src, n: Node, props: &HashSet<&str>) -> bool {
    if n.node_kind() != K::FieldExpression {
        return false;
    }
    let field = n.field(F::Field).map_or("", |f| s.text(f));
    let arg = n.field(F::Argument).map_or("", |a| s.text(a));
    matches!(field, "major" | "minor")
        && (props.contains(arg.trim_start_matches('*'))
            || arg.to_ascii_lowercase().contains("prop"))
}

pub(super) fn compute_capability(
    s: &Src,
    seen: &crate::model::project::Visible,
    out: &mut Vec<Finding>,
) {
    let Some(root) = s.tree.map(|t| t.root_node()) else {
        return;
    };
    // Functions returning the capability as one number: the file's own and its headers'.
    let mut fns: std::collections::HashMap<String, u64> = seen
        .capability_fns
        .iter()
        .map(|(n, k)| (n.clone(), *k))
        .collect();
    fns.extend(capability_functions(s.ctx.src, s.lexed));
    let cc_fn = |name: &str| fns.contains_key(name);
    let props: HashSet<&str> = syntax::typed_variables(s, root, |t| {
        t.contains("cudaDeviceProp") || t.contains("hipDeviceProp")
    })
    .into_iter()
    .collect();
    // Variables holding a compute capability, and struct members set to one.
    let mut cc = Cc::default();
    cc.scaled.extend(fns.iter().map(|(n, k)| (n.clone(), *k)));
    let mut cc_members: HashSet<&str> = HashSet::new();
    for c in &s.of_kinds(&[K::CallExpression]) {
        let args = syntax::call_args(*c);
        if args.len() >= 2
            && matches!(
                s.text(args[1]),
                "cudaDevAttrComputeCapabilityMajor"
                    | "cudaDevAttrComputeCapabilityMinor"
                    | "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"
                    | "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"
            )
        {
            // `&info.major_capability`: the member holds the capability, not the struct (a
            // struct would carry the taint to every value computed from its other members).
            let member = s
                .descendants(args[0], K::FieldExpression)
                .first()
                .and_then(|fe| fe.field(F::Field))
                .map(|f| s.text(f));
            match member {
                Some(m) => {
                    cc_members.insert(m);
                }
                None => {
                    if let Some(id) = syntax::identifiers(s, args[0]).last() {
                        cc.insert(id);
                    }
                }
            }
        }
        if syntax::call_name(s, *c) == Some("cuDeviceComputeCapability") {
            for a in args.iter().take(2) {
                if let Some(id) = syntax::identifiers(s, *a).last() {
                    cc.insert(id);
                }
            }
        }
    }
    // `mGpuComputeCap = runtime->compute_capability();`: a variable or member assigned a call
    // of a capability function holds the capability (a member by its name, as above).
    for a in &s.of_kinds(&[K::AssignmentExpression]) {
        let (Some(l), Some(r)) = (a.field(F::Left), a.field(F::Right)) else {
            continue;
        };
        let r = strip_parens(r);
        if !(r.node_kind() == K::CallExpression && syntax::call_name(s, r).is_some_and(&cc_fn)) {
            continue;
        }
        let scale = syntax::call_name(s, r).and_then(|n| fns.get(n).copied());
        let held = match l.node_kind() {
            K::Identifier => {
                cc.insert(s.text(l));
                Some(s.text(l))
            }
            K::FieldExpression => l.field(F::Field).map(|f| {
                cc_members.insert(s.text(f));
                s.text(f)
            }),
            _ => None,
        };
        if let (Some(h), Some(k)) = (held, scale) {
            cc.scaled.insert(h.to_string(), k);
        }
    }
    let mentions_cc = |n: Node, cc: &Cc| -> bool {
        let mut hit = false;
        crate::parse::visit(n, &mut |x| {
            if is_cc_field(s, x, &props)
                || (x.node_kind() == K::CallExpression
                    && syntax::call_name(s, x).is_some_and(&cc_fn))
                || (x.node_kind() == K::Identifier && cc.contains(s.text(x)))
                || (x.node_kind() == K::FieldExpression
                    && x.field(F::Field)
                        .is_some_and(|f| cc_members.contains(s.text(f))))
            {
                hit = true;
            }
            !hit
        });
        hit
    };
    for d in &s.of_kinds(&[K::InitDeclarator]) {
        if let (Some(name), Some(v)) = (
            d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x)),
            d.field(F::Value),
        ) {
            if mentions_cc(v, &cc) {
                cc.insert(name);
            }
            let v = strip_parens(v);
            if let Some(k) = (v.node_kind() == K::CallExpression)
                .then(|| syntax::call_name(s, v).and_then(|c| fns.get(c)))
                .flatten()
            {
                cc.scaled.insert(name.to_string(), *k);
            }
        }
    }
    // Every comparison of a compute capability with a number (one per line). A line whose
    // every comparison only tells pre-Maxwell GPUs apart is PASS; one real decision on the line
    // (`major < 5 || (major == 5 && minor < 3)`: fp16 from 5.3) keeps the whole line open. A
    // comparison every AMD GPU answers alike (`major >= 8`: gfx9 … gfx12 all take the arm
    // written for newer NVIDIA GPUs) is a check for a person (UNKNOWN), not a change.
    let checks: Vec<(Node, Settled)> = s
        .of_kinds(&[K::BinaryExpression])
        .into_iter()
        .filter(|b| {
            let op = b.field(F::Operator).map_or("", |o| s.text(o));
            matches!(op, "<" | ">" | "<=" | ">=" | "==" | "!=")
                && !s.descendants(*b, K::NumberLiteral).is_empty()
                && mentions_cc(*b, &cc)
        })
        .map(|b| {
            let how = if pre_maxwell_only(s, b, &props, &cc) {
                Settled::Everywhere
            } else if let Some(left) = model_pair(s, b, &|n| mentions_cc(n, &cc)) {
                if left {
                    Settled::Model
                } else {
                    Settled::Subsumed
                }
            } else if let Some(v) = settled_major(s, b, &props, &cc, AMD_MAJORS) {
                Settled::OnAmd(v)
            } else if logical_top(s, b).is_some_and(|t| amd_value(s, t, &props, &cc).is_some()) {
                Settled::Subsumed
            } else {
                Settled::Open
            };
            (b, how)
        })
        .collect();
    let line_worst = |want: fn(&Settled) -> bool| -> HashSet<usize> {
        checks
            .iter()
            .filter(|(_, how)| want(how))
            .map(|(b, _)| s.line(b.start_byte()))
            .collect()
    };
    let open_lines = line_worst(|h| matches!(h, Settled::Open));
    let amd_lines = line_worst(|h| matches!(h, Settled::OnAmd(_)));
    let amd = |n: Node| amd_value(s, n, &props, &cc);
    let mut chains: HashMap<usize, (usize, String)> = HashMap::new();
    // The file's first lookup of a per-architecture table (index into `out`) and its table.
    let mut lookup_head: Option<(usize, String)> = None;
    // The open comparisons (index into `out`), for folding flags one test combines.
    let mut open: Vec<(usize, Node)> = Vec::new();
    for (b, how) in checks {
        if how == Settled::Subsumed {
            continue;
        }
        if how == Settled::Model {
            let pair = b.parent().map_or(b, strip_parens_up);
            let mut f = s.ctx.finding(
                &COMPUTE_CAPABILITY_CHECK,
                pair.byte_range(),
                format!(
                    "`{}` names one NVIDIA GPU model by its exact compute capability: no AMD GPU reports it (HIP reports gfx9 → 9 … gfx12 → 12), so the ROCm build takes the arm written for every other GPU (nothing to change)",
                    s.text(pair)
                ),
                None,
            );
            f.status = crate::gate::Status::Pass;
            out.push(f);
            continue;
        }
        let line = s.line(b.start_byte());
        // The `if` arms AMD runs: a test in an arm an earlier test of the chain already decides
        // on every AMD GPU is never evaluated there; a test false on every AMD GPU (as on
        // Hopper and Blackwell, which report 9 … 12 too) whose `if` has no other arm, or whose
        // other arm is the chain's next test, only gates code for older NVIDIA GPUs.
        if let Some(msg) = arm_on_amd(s, b, &amd) {
            // A fail-fast guard for Hopper and later (`if (major < 9) throw …`): AMD passes it
            // and runs what it protects, which the tool has not verified.
            let guard = hopper_guard::guards(s, b);
            let mut f = s.ctx.finding(
                &COMPUTE_CAPABILITY_CHECK,
                b.byte_range(),
                guard.clone().unwrap_or(msg),
                None,
            );
            f.status = if guard.is_some() {
                crate::gate::Status::Unknown
            } else {
                crate::gate::Status::Pass
            };
            out.push(f);
            continue;
        }
        if how == Settled::Everywhere && !open_lines.contains(&line) && !amd_lines.contains(&line) {
            let sentinel = emulation_sentinel(s, b);
            let mut f = s.ctx.finding(
                &COMPUTE_CAPABILITY_CHECK,
                b.byte_range(),
                if sentinel == Some(Sentinel::Emulation) {
                    format!(
                        "`{}` tests for 9999, the capability CUDA before 3.0 reported for its device emulation mode: no GPU reports it, so every current NVIDIA GPU and every AMD GPU takes the same branch (nothing to change)",
                        s.text(b)
                    )
                } else if sentinel == Some(Sentinel::Negative) {
                    format!(
                        "`{}` tests for a negative capability, a value the program stores for \"no device\" or \"not queried\": no GPU reports it, so every NVIDIA GPU and every AMD GPU takes the same branch (nothing to change)",
                        s.text(b)
                    )
                } else {
                    format!(
                        "`{}` only tells GPUs older than compute capability 5 apart: every GPU current CUDA supports and every AMD GPU (gfx9 → 9 … gfx12 → 12) takes the same branch (nothing to change)",
                        s.text(b)
                    )
                },
                None,
            );
            f.status = crate::gate::Status::Pass;
            out.push(f);
            continue;
        }
        if let (Settled::OnAmd(v), false) = (how, open_lines.contains(&line)) {
            let mut f = s.ctx.finding(
                &COMPUTE_CAPABILITY_CHECK,
                b.byte_range(),
                format!(
                    "`{}` is {v} on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12): the ROCm build always takes the arm written for the NVIDIA GPUs {}; check that what that arm enables exists on the target",
                    s.text(b),
                    if v { "this test selects" } else { "this test excludes" },
                ),
                Some("check the arm on the target GPU; decide by feature or `gcnArchName` if it does not hold".into()),
            );
            f.status = crate::gate::Status::Unknown;
            open.push((out.len(), b));
            out.push(f);
            continue;
        }
        // A lookup of an NVIDIA per-architecture table by capability (cuda-samples'
        // `_ConvertSMVer2Cores`: `nGpuArchCoresPerSM[index].SM == ((major << 4) + minor)`): on
        // AMD it misses and takes the table's fallback, or hits the NVIDIA entry with the same
        // number. What the value feeds decides whether that matters: a check, one per file.
        if let Some(table) = table_lookup(s, b) {
            if let Some(&(h, ref first)) = lookup_head.as_ref() {
                let m = format!(
                    "`{}` looks up `{table}` the same way as line {} (`{first}`): one decision",
                    s.text(b),
                    out[h].line
                );
                let mut f = s
                    .ctx
                    .finding(&COMPUTE_CAPABILITY_CHECK, b.byte_range(), m, None);
                f.status = crate::gate::Status::Pass;
                let also = format!(" (also `{table}` on line {})", f.line);
                out[h].message.push_str(&also);
                out.push(f);
                continue;
            }
            let mut f = s.ctx.finding(
                &COMPUTE_CAPABILITY_CHECK,
                b.byte_range(),
                format!(
                    "`{}` looks up NVIDIA's per-architecture table `{table}` by compute capability: AMD GPUs report 9.x … 12.x, so the lookup misses and takes the table's fallback, or hits the NVIDIA entry with the same number (9.0 is Hopper's); check what the value feeds (core counts that rank devices, names in logs, sizes)",
                    s.text(b)
                ),
                Some("add entries for the AMD targets, or look the value up by `gcnArchName` on AMD".into()),
            );
            f.status = crate::gate::Status::Unknown;
            f.phase = crate::gate::Phase::Performance;
            lookup_head = Some((out.len(), table));
            out.push(f);
            continue;
        }
        // One `if … else if …` chain over the capability is one decision (gamer's cores-per-SM
        // table: `== 9`, `== 10`, `== 12` are one rewrite for AMD): its first open test
        // carries it, the later ones name it.
        if let Some(head) = enclosing_if(b).map(|i| chain_head(i)) {
            if let Some(&(line, ref text)) = chains.get(&head.id()) {
                let mut f = s.ctx.finding(
                    &COMPUTE_CAPABILITY_CHECK,
                    b.byte_range(),
                    format!(
                        "`{}` is part of the `if … else if` chain whose test on line {line} (`{text}`) carries it: one decision by NVIDIA compute capability",
                        s.text(b)
                    ),
                    None,
                );
                f.status = crate::gate::Status::Pass;
                out.push(f);
                continue;
            }
            chains.insert(head.id(), (line + 1, s.text(b).to_string()));
        }
        open.push((out.len(), b));
        out.push(s.ctx.finding(
            &COMPUTE_CAPABILITY_CHECK,
            b.byte_range(),
            format!(
                "`{}` decides by NVIDIA compute capability; AMD GPUs report gfx versions here",
                s.text(b)
            ),
            Some("decide by feature or by `gcnArchName` on AMD".into()),
        ));
    }
    flags::fold(s, &open, out);
}

/// The table of per-architecture records an equality test reads an entry's field of
/// (`nGpuArchCoresPerSM[index].SM == …`): the subscripted array's text. A plain list
/// (`supported[i] == cc`) is a membership test, not a lookup of data.
fn table_lookup(s: &Src, b: Node) -> Option<String> {
    if b.field(F::Operator).map_or("", |o| s.text(o)) != "==" {
        return None;
    }
    [b.field(F::Left), b.field(F::Right)]
        .into_iter()
        .flatten()
        .map(strip_parens)
        .find_map(|n| {
            let sub = match n.node_kind() {
                K::FieldExpression => n.field(F::Argument).map(strip_parens)?,
                _ => return None,
            };
            (sub.node_kind() == K::SubscriptExpression)
                .then(|| sub.field(F::Argument).map(|a| s.text(a).to_string()))
                .flatten()
        })
}

/// The first `if` of the `else if` chain `i` belongs to.
fn chain_head(i: Node) -> Node {
    let mut x = i;
    while let (Some(e), Some(p)) = (x.parent(), x.parent().and_then(|e| e.parent())) {
        if e.node_kind() != K::ElseClause || p.node_kind() != K::IfStatement {
            break;
        }
        x = p;
    }
    x
}

/// The value of a condition on every AMD GPU, when the compute-capability comparisons in it
/// settle it: a comparison answered alike for majors 9 … 12, joined by `&&`/`||`/`!`.
fn amd_value(s: &Src, n: Node, props: &HashSet<&str>, cc: &Cc) -> Option<bool> {
    let n = strip_parens(n);
    if n.node_kind() == K::ConditionClause {
        return amd_value(s, n.field(F::Value)?, props, cc);
    }
    if n.node_kind() != K::BinaryExpression {
        return None;
    }
    let op = n.field(F::Operator).map_or("", |o| s.text(o));
    let side = |f: F| n.field(f).and_then(|x| amd_value(s, x, props, cc));
    match op {
        "&&" => match (side(F::Left), side(F::Right)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        "||" => match (side(F::Left), side(F::Right)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        _ => settled_major(s, n, props, cc, AMD_MAJORS),
    }
}

/// The `if` statement whose condition holds `b` (through parentheses and `&&`/`||`/`!`).
pub(super) fn enclosing_if(b: Node) -> Option<Node> {
    let mut x = b;
    while let Some(p) = x.parent() {
        match p.node_kind() {
            K::ParenthesizedExpression
            | K::BinaryExpression
            | K::UnaryExpression
            | K::ConditionClause => {}
            K::IfStatement => {
                return p
                    .field(F::Condition)
                    .is_some_and(|c| c.id() == x.id())
                    .then_some(p);
            }
            _ => return None,
        }
        x = p;
    }
    None
}

/// PASS text for a capability test whose `if` arms AMD GPUs do not run: a test reached only
/// after an earlier test of the chain that every AMD GPU answers true, or a test of an `if`
/// false on every AMD GPU with no other arm (or the chain's next test as its other arm).
fn arm_on_amd(s: &Src, b: Node, amd: &dyn Fn(Node) -> Option<bool>) -> Option<String> {
    let own = enclosing_if(b)?;
    // Up the `else if` chain: an earlier `if` whose condition is true on every AMD GPU.
    let mut x = own;
    while let (Some(e), Some(p)) = (x.parent(), x.parent().and_then(|e| e.parent())) {
        if e.node_kind() != K::ElseClause || p.node_kind() != K::IfStatement {
            break;
        }
        let cond = p.field(F::Condition)?;
        if amd(cond) == Some(true) {
            return Some(format!(
                "`{}` is never evaluated on AMD: the test before it (line {}, `{}`) is true on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12) and takes its arm first (nothing to change here)",
                s.text(b),
                s.line(cond.start_byte()) + 1,
                s.text(strip_parens(cond.field(F::Value).unwrap_or(cond))),
            ));
        }
        x = p;
    }
    let cond = own.field(F::Condition)?;
    if amd(cond) != Some(false) {
        return None;
    }
    let other_arm = own.field(F::Alternative).and_then(|e| {
        let mut c = e.walk();
        let stmt = e
            .named_children(&mut c)
            .find(|k| k.node_kind() != K::Comment);
        stmt
    });
    match other_arm {
        None => Some(format!(
            "`{}` is false on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12), as on Hopper and Blackwell: the arm it gates runs only on older NVIDIA GPUs and the ROCm build skips it (nothing to change)",
            s.text(b)
        )),
        Some(n) if n.node_kind() == K::IfStatement => Some(format!(
            "`{}` is false on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12), as on Hopper and Blackwell: AMD goes on to the next test of the chain (line {}), which decides (nothing to change here)",
            s.text(b),
            s.line(n.start_byte()) + 1
        )),
        Some(_) => None,
    }
}

/// How a compute-capability comparison is answered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Settled {
    /// The same answer on every current NVIDIA GPU and every AMD GPU.
    Everywhere,
    /// The same answer (this one) on every AMD GPU, not on current NVIDIA GPUs.
    OnAmd(bool),
    /// A real decision.
    Open,
    /// The major half of an exact (major, minor) match (`major == 5 && minor == 3`): one NVIDIA
    /// model, never an AMD GPU; the other arm is every other GPU's.
    Model,
    /// Inside `&&`/`||` whose value every AMD GPU answers alike without it (`major >= 6 ||
    /// (major == 5 && minor >= 3)`): the other comparison holds the fact.
    Subsumed,
}

/// The outermost `&&`/`||` (through parentheses and `!`) that holds `b`.
fn logical_top<'t>(s: &Src, b: Node<'t>) -> Option<Node<'t>> {
    let mut top = None;
    let mut x = b;
    while let Some(p) = x.parent() {
        match p.node_kind() {
            K::ParenthesizedExpression | K::UnaryExpression => {}
            K::BinaryExpression
                if matches!(p.field(F::Operator).map(|o| s.text(o)), Some("&&" | "||")) =>
            {
                top = Some(p);
            }
            _ => break,
        }
        x = p;
    }
    top
}

/// The majors HIP reports on AMD GPUs (gfx9 → 9 … gfx12 → 12).
const AMD_MAJORS: std::ops::RangeInclusive<u64> = 9..=12;

/// The majors a check meets today: NVIDIA from Maxwell (5, the oldest current CUDA builds for)
/// and AMD's gfx versions as HIP reports them (gfx9 → 9 … gfx12 → 12).
const CURRENT_MAJORS: std::ops::RangeInclusive<u64> = 5..=12;

/// The value of `b` when it compares the major compute capability with a number and gives the
/// same answer for every current major (`major >= 2`, `1 == major`), else `None`.
fn settled_major(
    s: &Src,
    b: Node,
    props: &HashSet<&str>,
    cc: &Cc,
    majors: std::ops::RangeInclusive<u64>,
) -> Option<bool> {
    let b = strip_parens(b);
    if b.node_kind() != K::BinaryExpression {
        return None;
    }
    let op = b.field(F::Operator).map_or("", |o| s.text(o));
    let (l, r) = (
        strip_parens(b.field(F::Left)?),
        strip_parens(b.field(F::Right)?),
    );
    let is_major = |n: Node| {
        (is_cc_field(s, n, props) && n.field(F::Field).is_some_and(|f| s.text(f) == "major"))
            || (n.node_kind() == K::Identifier
                && cc.contains(s.text(n))
                && s.text(n).to_ascii_lowercase().contains("major"))
    };
    let num = |n: Node| {
        (n.node_kind() == K::NumberLiteral)
            .then(|| syntax::int_value(s.text(n)))
            .flatten()
    };
    // `major * 10 + minor` (or a variable set to it): the capability as one number.
    let scale = |n: Node| combined_scale(s, n, props, cc);
    // `major OP k` as a function of the major; `k OP major` flips the comparison. A combined
    // capability is tested at every minor (0–9) of each major.
    let (k, flip, per_major) = match (is_major(l), is_major(r), scale(l), scale(r)) {
        (true, false, _, _) => (num(r)?, false, None),
        (false, true, _, _) => (num(l)?, true, None),
        (false, false, Some(m), None) => (num(r)?, false, Some(m)),
        (false, false, None, Some(m)) => (num(l)?, true, Some(m)),
        _ => return None,
    };
    let test = |m: u64| {
        let (a, c) = if flip { (k, m) } else { (m, k) };
        match op {
            "<" => a < c,
            ">" => a > c,
            "<=" => a <= c,
            ">=" => a >= c,
            "==" => a == c,
            "!=" => a != c,
            _ => false,
        }
    };
    if !matches!(op, "<" | ">" | "<=" | ">=" | "==" | "!=") {
        return None;
    }
    let values: Vec<u64> = match per_major {
        None => majors.clone().collect(),
        Some(scale) => majors
            .clone()
            .flat_map(|m| (0..=9).map(move |minor| m * scale + minor))
            .collect(),
    };
    let first = test(values[0]);
    values.iter().all(|&m| test(m) == first).then_some(first)
}

/// The scale `K` when `n` is the compute capability as one number, `major * K + minor` (K 10
/// or 100), written out or held by a variable set to it (`int cc = p.major * 10 + p.minor;`).
fn combined_scale(s: &Src, n: Node, props: &HashSet<&str>, cc: &Cc) -> Option<u64> {
    let n = strip_parens(n);
    // A name assigned a call of a capability function, a member so assigned, or the call.
    let held = match n.node_kind() {
        K::Identifier => Some(s.text(n)),
        K::FieldExpression => n.field(F::Field).map(|f| s.text(f)),
        K::CallExpression => syntax::call_name(s, n).map(|c| c.rsplit("::").next().unwrap_or(c)),
        _ => None,
    };
    if let Some(k) = held.and_then(|h| cc.scaled.get(h)) {
        return Some(*k);
    }
    if n.node_kind() == K::Identifier {
        let name = s.text(n);
        if !cc.contains(name) {
            return None;
        }
        let value = s.of_kinds(&[K::InitDeclarator]).into_iter().find_map(|d| {
            (d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x))
                == Some(name))
            .then(|| d.field(F::Value))
            .flatten()
        })?;
        return (value.id() != n.id())
            .then(|| combined_scale_expr(s, value, props))
            .flatten();
    }
    combined_scale_expr(s, n, props)
}

/// `major * K + minor` (either order of the sum and of the product).
fn combined_scale_expr(s: &Src, n: Node, props: &HashSet<&str>) -> Option<u64> {
    let n = strip_parens(n);
    if n.node_kind() != K::BinaryExpression || n.field(F::Operator).map(|o| s.text(o)) != Some("+")
    {
        return None;
    }
    let field = |x: Node, want: &str| {
        let x = strip_parens(x);
        is_cc_field(s, x, props) && x.field(F::Field).is_some_and(|f| s.text(f) == want)
    };
    let (a, b) = (n.field(F::Left)?, n.field(F::Right)?);
    let (product, minor) = if field(b, "minor") { (a, b) } else { (b, a) };
    if !field(minor, "minor") {
        return None;
    }
    let product = strip_parens(product);
    if product.node_kind() != K::BinaryExpression
        || product.field(F::Operator).map(|o| s.text(o)) != Some("*")
    {
        return None;
    }
    let (x, y) = (product.field(F::Left)?, product.field(F::Right)?);
    let (major, k) = if field(x, "major") { (x, y) } else { (y, x) };
    if !field(major, "major") {
        return None;
    }
    let k = strip_parens(k);
    let k = (k.node_kind() == K::NumberLiteral)
        .then(|| syntax::int_value(s.text(k)))
        .flatten()?;
    matches!(k, 10 | 100).then_some(k)
}

/// The expression inside parentheses and casts: `((int)p.major)` is `p.major`.
fn strip_parens(mut n: Node) -> Node {
    loop {
        let inner = match n.node_kind() {
            K::ParenthesizedExpression => n.named_child(0),
            K::CastExpression => n.field(F::Value),
            _ => None,
        };
        match inner {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// Whether `b` is one half of an exact compute-capability match, `X == n && Y == m` with both
/// sides comparing a capability with a number (Jitify's Tegra list: `(cc_major == 5 &&
/// cc_minor == 3) || …`): `Some(true)` for the left half, `Some(false)` for the right.
fn model_pair(s: &Src, b: Node, mentions_cc: &dyn Fn(Node) -> bool) -> Option<bool> {
    // Numbers below 9 only: AMD GPUs report majors 9 … 12 (gfx90a is 9.0), so `major == 9 &&
    // minor == 0` may be one.
    let eq = |n: Node| {
        let n = strip_parens(n);
        let numbers = s.descendants(n, K::NumberLiteral);
        n.node_kind() == K::BinaryExpression
            && n.field(F::Operator).is_some_and(|o| s.text(o) == "==")
            && !numbers.is_empty()
            && numbers
                .iter()
                .all(|x| crate::model::syntax::int_value(s.text(*x)).is_some_and(|v| v < 9))
            && mentions_cc(n)
    };
    if !eq(b) {
        return None;
    }
    let mut p = b.parent()?;
    let mut child = b;
    while p.node_kind() == K::ParenthesizedExpression {
        child = p;
        p = p.parent()?;
    }
    if p.node_kind() != K::BinaryExpression
        || p.field(F::Operator).is_none_or(|o| s.text(o) != "&&")
    {
        return None;
    }
    let (l, r) = (p.field(F::Left)?, p.field(F::Right)?);
    let other = if l == child { r } else { l };
    eq(other).then_some(l == child)
}

/// The `&&` holding a model pair, through the parentheses between it and the comparison.
fn strip_parens_up(mut n: Node) -> Node {
    while n.node_kind() == K::ParenthesizedExpression {
        match n.parent() {
            Some(p) => n = p,
            None => break,
        }
    }
    n
}

/// `minor != 9999`, `major == 9999`: the capability CUDA before 3.0 reported for its device
/// emulation mode (beagle-lib's device filter); `major == -1`, a negative sentinel a program
/// stores for "no device" or "not queried" (nvidia-texture-tools' `CudaUtils.cpp`). No GPU
/// reports either, NVIDIA's or AMD's: an equality test with one gives every GPU one answer.
fn emulation_sentinel(s: &Src, b: Node) -> Option<Sentinel> {
    let op = b.field(F::Operator).map_or("", |o| s.text(o));
    let sentinel = |n: Node| {
        let t: String = s.text(n).chars().filter(|c| !c.is_whitespace()).collect();
        // The grammar reads `-1` as one number literal and `- 1` as a unary expression.
        let negative = t.strip_prefix('-').is_some_and(|d| {
            !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()) && d.bytes().any(|c| c != b'0')
        });
        match n.node_kind() {
            K::NumberLiteral if t == "9999" => Some(Sentinel::Emulation),
            K::NumberLiteral | K::UnaryExpression if negative => Some(Sentinel::Negative),
            _ => None,
        }
    };
    if !matches!(op, "==" | "!=") {
        return None;
    }
    [b.field(F::Left), b.field(F::Right)]
        .into_iter()
        .flatten()
        .find_map(sentinel)
}

/// Which value no GPU reports a capability test compares with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sentinel {
    /// 9999, CUDA's device emulation mode before 3.0.
    Emulation,
    /// A negative value the program stores for "no device" or "not queried".
    Negative,
}

/// Whether the comparison `b` only separates pre-Maxwell GPUs: its major test gives one answer
/// for every current GPU (`major >= 2`), or a condition around it does (`minor >= 3` in
/// `major == 1 && minor >= 3`, where `major == 1` is false on every current GPU).
fn pre_maxwell_only(s: &Src, b: Node, props: &HashSet<&str>, cc: &Cc) -> bool {
    if settled_major(s, b, props, cc, CURRENT_MAJORS).is_some()
        || emulation_sentinel(s, b).is_some()
    {
        return true;
    }
    let mut x = b;
    while let Some(p) = x.parent() {
        match p.node_kind() {
            K::ParenthesizedExpression => {}
            K::BinaryExpression => {
                let op = p.field(F::Operator).map_or("", |o| s.text(o));
                let decides = match op {
                    "&&" => false,
                    "||" => true,
                    _ => return false,
                };
                let other = [p.field(F::Left), p.field(F::Right)]
                    .into_iter()
                    .flatten()
                    .find(|o| o.id() != x.id());
                if other.and_then(|o| settled_major(s, o, props, cc, CURRENT_MAJORS))
                    == Some(decides)
                {
                    return true;
                }
            }
            _ => return false,
        }
        x = p;
    }
    false
}

#[cfg(test)]
mod tests;
