//! The Python platform model: for every part of a file, whether the ROCm build of the project
//! runs it, the CUDA build runs it, or either. Computed once per file ([`Model::of`]) from the
//! platform tests the code makes ([`predicate`]), through `if`/`elif`/`else`, conditional
//! expressions, the short-circuit of `and`/`or`, early `return`/`raise`/`continue`/`sys.exit`/
//! `pytest.skip` (what follows `if not torch.version.cuda: return` runs only on CUDA), `assert`,
//! decorators and skip marks (`@pytest.mark.skipif(cond)`, `@unittest.skipIf/skipUnless`, a
//! decorator whose name states the platform such as `@disable_on_rocm`, `pytestmark = ...`), and
//! module functions called only from code the ROCm build skips. With polarity: an arm the ROCm
//! build takes that raises, exits or fails an assertion is a failure on ROCm
//! ([`Model::rocm_failures`]), never a PASS. Rules ask the model; none re-reads a condition.

pub mod predicate;

pub use predicate::{eval, Side, Val};

use super::python::dotted;
use super::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::{Not, Range};
use tree_sitter::Node;

/// How a block leaves early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    /// `return`, `continue`, `break`.
    Quiet,
    /// `pytest.skip(...)`, `self.skipTest(...)`, `raise unittest.SkipTest`.
    Skip,
    /// `raise Error`, `sys.exit(...)`, `assert False`: a failure.
    Fail,
}

/// An arm the ROCm build takes that fails there (`if torch.version.cuda is None: raise ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The deciding condition (or the assertion).
    pub range: Range<usize>,
    /// Its text.
    pub test: String,
    /// `raises`, `exits` or `fails the assertion`.
    pub what: &'static str,
    /// At module level: it fails when the module is imported (or setup.py run).
    pub module_level: bool,
}

/// Which code each build runs, for one file.
#[derive(Default, Debug)]
pub struct Model {
    /// Code the ROCm build does not run, each with why (a phrase).
    rocm_dead: Vec<(Range<usize>, String)>,
    /// Code the CUDA build does not run (the project's ROCm arms), each with why.
    cuda_dead: Vec<(Range<usize>, String)>,
    /// Operands evaluated on ROCm whose value decides nothing there (`cc != (9, 0)` in
    /// `cc != (9, 0) or torch.version.cuda is None`), each with the operand that decides.
    moot: Vec<(Range<usize>, String)>,
    failures: Vec<Failure>,
    branches: bool,
    /// Indices into `rocm_dead` of arms skipped only because a user switch forces CUDA
    /// (`os.getenv("FORCE_CUDA") == "1"`): dead on ROCm only where the file also branches for
    /// the platform. Without a ROCm branch the switch is how a GPU-less build (a Docker build)
    /// asks for the GPU extension on either platform: kaolin-wisp's `FORCE_CUDA=1` arm runs
    /// `nvcc -V` in its image build, and a ROCm image build would run it too.
    forced: Vec<usize>,
}

impl Model {
    /// The model of a parsed Python file.
    pub fn of(root: Node, src: &[u8]) -> Model {
        let mut m = Model::default();
        ts::each(root, &mut |n| match n.node_kind() {
            K::IfStatement => m.if_statement(n, src),
            K::ConditionalExpression => m.conditional(n, src),
            K::BooleanOperator => m.short_circuit(n, src),
            K::DecoratedDefinition => m.decorated(n, src),
            K::Module | K::Block => m.early_exits(n, src),
            K::Assignment if n.parent().and_then(|p| p.parent()) == Some(root) => {
                m.pytestmark(n, src)
            }
            _ => {}
        });
        if !m.branches {
            let forced = std::mem::take(&mut m.forced);
            let mut i = 0;
            m.rocm_dead.retain(|_| {
                i += 1;
                !forced.contains(&(i - 1))
            });
        }
        helpers_called_only_from(root, src, &mut m.rocm_dead);
        let dead = m.rocm_dead.clone();
        m.failures
            .retain(|f| !dead.iter().any(|(r, _)| r.contains(&f.range.start)));
        m
    }

    /// Why the ROCm build does not run the code at `byte`, if it does not.
    pub fn rocm_skips(&self, byte: usize) -> Option<&str> {
        find(&self.rocm_dead, byte)
    }
    /// Every range the ROCm build does not run, with why.
    pub fn rocm_dead(&self) -> &[(Range<usize>, String)] {
        &self.rocm_dead
    }
    /// Every range only the ROCm build runs (the project's ROCm arms).
    pub fn rocm_only(&self) -> &[(Range<usize>, String)] {
        &self.cuda_dead
    }
    /// Operands whose value decides nothing on ROCm, with the operand that decides.
    pub fn moot_on_rocm(&self) -> &[(Range<usize>, String)] {
        &self.moot
    }
    /// Arms the ROCm build takes that fail there.
    pub fn rocm_failures(&self) -> &[Failure] {
        &self.failures
    }
    /// Whether the file tests for the platform anywhere (an `if`, `elif` or conditional
    /// expression whose condition tells ROCm from CUDA).
    pub fn branches(&self) -> bool {
        self.branches
    }

    fn dead(&mut self, side: Side, range: Range<usize>, why: String) {
        match side {
            Side::Rocm => self.rocm_dead.push((range, why)),
            Side::Cuda => self.cuda_dead.push((range, why)),
        }
    }

    fn if_statement(&mut self, n: Node, src: &[u8]) {
        // Every arm: its condition (None for `else`), its body, the range it covers (the
        // whole clause: an `elif` condition is not evaluated once an earlier arm is taken).
        let mut arms: Vec<(Option<Node>, Option<Node>, Range<usize>)> = Vec::new();
        let cond = n.field(F::Condition);
        let body = n.field(F::Consequence);
        arms.push((cond, body, body.map_or(n.byte_range(), |b| b.byte_range())));
        let mut cur = n.walk();
        for alt in n.fields(F::Alternative, &mut cur) {
            match alt.node_kind() {
                K::ElifClause => arms.push((
                    alt.field(F::Condition),
                    alt.field(F::Consequence),
                    alt.byte_range(),
                )),
                _ => arms.push((None, alt.field(F::Body), alt.byte_range())),
            }
        }
        let mut vals: Vec<Val> = arms
            .iter()
            .map(|(c, _, _)| c.map_or(Val::ROCM.or(Val::ROCM.not()), |c| eval(c, src)))
            .collect();
        let text = |c: Option<Node>| c.map_or(String::new(), |c| ts::text(c, src).to_string());
        let mut why: Vec<Option<String>> = vec![None; arms.len()];
        if arms
            .iter()
            .any(|(c, _, _)| c.is_some_and(|c| eval(c, src).names_platform))
        {
            self.branches = true;
        }
        // The arm before `elif torch.version.hip:` is the CUDA arm whatever its condition
        // (`torch.cuda.is_available() and CUDA_HOME is not None`): the project says so.
        for j in 1..arms.len() {
            if arms[j].0.is_some() && vals[j].exactly_rocm() && vals[j - 1].rocm.is_none() {
                vals[j - 1].rocm = Some(false);
                why[j - 1] = Some(format!(
                    "CUDA arm before `elif {}`: the project's ROCm arm replaces it",
                    text(arms[j].0)
                ));
            }
        }
        // Whether each arm runs, on each build.
        let runs = |side: Side| -> Vec<Option<bool>> {
            let mut earlier_failed = Some(true);
            vals.iter()
                .map(|v| {
                    let r = and3(earlier_failed, v.on(side));
                    earlier_failed = and3(earlier_failed, v.on(side).map(|x| !x));
                    r
                })
                .collect()
        };
        let (on_rocm, on_cuda) = (runs(Side::Rocm), runs(Side::Cuda));
        for (side, taken) in [(Side::Rocm, &on_rocm), (Side::Cuda, &on_cuda)] {
            for (i, (_, b, range)) in arms.iter().enumerate() {
                if taken[i] != Some(false) {
                    continue;
                }
                let own = vals[i].on(side) == Some(false);
                // Its own test fails: the body; an earlier arm is taken: the whole clause.
                let range = match (own, b) {
                    (true, Some(b)) => b.byte_range(),
                    _ => range.clone(),
                };
                let decider = if own {
                    Some(i)
                } else {
                    (0..i).find(|j| vals[*j].on(side) == Some(true))
                };
                let test = decider.and_then(|j| arms[j].0);
                let forced = side == Side::Rocm
                    && why[i].is_none()
                    && decider.is_some_and(|j| !vals[j].names_platform && vals[j].os.is_none());
                if forced {
                    self.forced.push(self.rocm_dead.len());
                }
                let reason = match (side, &why[i]) {
                    (Side::Rocm, Some(w)) => w.clone(),
                    (Side::Rocm, None) => {
                        rocm_reason(&text(test), decider.map_or(Val::UNKNOWN, |j| vals[j]))
                    }
                    (Side::Cuda, _) => format!("ROCm-only branch of `{}`", text(test)),
                };
                self.dead(side, range, reason);
            }
        }
        // Polarity: an arm only the ROCm build takes that fails is a failure on ROCm.
        for (i, (c, b, _)) in arms.iter().enumerate() {
            if on_rocm[i] != Some(true) || on_cuda[i] != Some(false) {
                continue;
            }
            if let Some(what) = b.and_then(|b| failure_word(b, src)) {
                let at = c.or(arms[0].0).unwrap_or(n);
                self.failures.push(Failure {
                    range: at.byte_range(),
                    test: ts::text(at, src).to_string(),
                    what,
                    module_level: crate::inventory::python::at_module_level(n),
                });
            }
        }
    }

    fn conditional(&mut self, n: Node, src: &[u8]) {
        let kids = ts::named_children(n);
        if kids.len() != 3 {
            return;
        }
        let v = eval(kids[1], src);
        self.branches |= v.names_platform;
        let test = ts::text(kids[1], src);
        for side in [Side::Rocm, Side::Cuda] {
            let (arm, reason) = match (side, v.on(side)) {
                (_, None) => continue,
                (Side::Rocm, Some(b)) => (if b { kids[2] } else { kids[0] }, rocm_reason(test, v)),
                (Side::Cuda, Some(b)) => (
                    if b { kids[2] } else { kids[0] },
                    format!("ROCm-only branch of `{test}`"),
                ),
            };
            self.dead(side, arm.byte_range(), reason);
        }
    }

    /// `torch.version.cuda and cap >= (9, 0)`: the right side is evaluated only when the left
    /// holds, which is only on CUDA. `cap != (9, 0) or torch.version.cuda is None`: the left is
    /// evaluated on ROCm but the right settles the outcome there.
    fn short_circuit(&mut self, n: Node, src: &[u8]) {
        let (Some(l), Some(r)) = (n.field(F::Left), n.field(F::Right)) else {
            return;
        };
        let is_and = match n.field(F::Operator).map(|o| ts::text(o, src)) {
            Some("and") => true,
            Some("or") => false,
            _ => return,
        };
        let (lv, rv) = (eval(l, src), eval(r, src));
        let lt = ts::text(l, src);
        for side in [Side::Rocm, Side::Cuda] {
            if lv.on(side) == Some(!is_and) {
                let reason = match side {
                    Side::Rocm => rocm_reason(lt, lv),
                    Side::Cuda => format!("ROCm-only branch of `{lt}`"),
                };
                self.dead(side, r.byte_range(), reason);
            }
        }
        if rv.rocm == Some(!is_and) && rv.names_platform && lv.rocm.is_none() {
            self.moot
                .push((l.byte_range(), ts::text(r, src).to_string()));
        }
    }

    fn decorated(&mut self, n: Node, src: &[u8]) {
        let Some(def) = n.field(F::Definition) else {
            return;
        };
        for d in ts::named_children(n)
            .into_iter()
            .filter(|d| d.node_kind() == K::Decorator)
        {
            let Some(e) = ts::named_children(d).into_iter().next() else {
                continue;
            };
            let runs = runs_under(e, src);
            let text = ts::text(d, src);
            if runs.rocm == Some(false) {
                self.rocm_dead
                    .push((def.byte_range(), format!("skipped on ROCm by `{text}`")));
            }
            if runs.cuda == Some(false) {
                self.cuda_dead
                    .push((def.byte_range(), format!("runs only on ROCm: `{text}`")));
            }
        }
    }

    /// `pytestmark = pytest.mark.skipif(torch.version.hip is not None, ...)` (or a list of
    /// marks): the whole file.
    fn pytestmark(&mut self, n: Node, src: &[u8]) {
        if n.field(F::Left).map(|l| ts::text(l, src)) != Some("pytestmark") {
            return;
        }
        let Some(v) = n.field(F::Right) else { return };
        let marks = if v.node_kind() == K::List {
            ts::named_children(v)
        } else {
            vec![v]
        };
        let whole = 0..src.len() + 1;
        for m in marks {
            if runs_under(m, src).rocm == Some(false) {
                let why = format!("skipped on ROCm by `pytestmark = {}`", ts::text(m, src));
                self.rocm_dead.push((whole.clone(), why));
            }
        }
    }

    /// Statements after an `if` whose taken arm leaves the block run only on the other build;
    /// an `assert` false on ROCm fails there and nothing after it runs.
    fn early_exits(&mut self, block: Node, src: &[u8]) {
        let stmts: Vec<Node> = ts::named_children(block)
            .into_iter()
            .filter(|s| s.node_kind() != K::Comment)
            .collect();
        let end = if block.node_kind() == K::Module {
            src.len() + 1
        } else {
            block.end_byte()
        };
        for (i, s) in stmts.iter().enumerate() {
            let rest = stmts
                .get(i + 1)
                .map_or(end..end, |next| next.start_byte()..end);
            match s.node_kind() {
                K::IfStatement if s.field(F::Alternative).is_none() && !rest.is_empty() => {
                    let (Some(c), Some(b)) = (s.field(F::Condition), s.field(F::Consequence))
                    else {
                        continue;
                    };
                    if exit_of(b, src).is_none() {
                        continue;
                    }
                    let v = eval(c, src);
                    let head = format!("if {}:", ts::text(c, src));
                    if v.rocm == Some(true) {
                        let why = match v.os {
                            Some(predicate::NVIDIA_SMI) => format!(
                                "runs only where NVIDIA's `nvidia-smi` is installed: `{head}` \
                                 leaves first on an AMD node"
                            ),
                            Some(_) => format!(
                                "runs only on another operating system: `{head}` leaves first on \
                                 Linux, the ROCm build's target OS"
                            ),
                            None => format!("runs only on CUDA: `{head}` leaves first on ROCm"),
                        };
                        self.rocm_dead.push((rest.clone(), why));
                    }
                    if v.cuda == Some(true) {
                        self.cuda_dead.push((
                            rest,
                            format!("runs only on ROCm: `{head}` leaves first on CUDA"),
                        ));
                    }
                }
                K::AssertStatement => {
                    let Some(c) = ts::named_children(*s).into_iter().next() else {
                        continue;
                    };
                    let v = eval(c, src);
                    if v.rocm == Some(false) && v.names_platform {
                        self.failures.push(Failure {
                            range: c.byte_range(),
                            test: ts::text(c, src).to_string(),
                            what: "fails the assertion",
                            module_level: crate::inventory::python::at_module_level(*s),
                        });
                        if !rest.is_empty() {
                            self.rocm_dead.push((
                                rest,
                                format!(
                                    "not reached on ROCm: `assert {}` fails first",
                                    ts::text(c, src)
                                ),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Why the ROCm build skips a branch decided by `test`, whose value is `v`: another operating
/// system's branch (the ROCm build targets Linux), or the CUDA branch of a platform test.
fn rocm_reason(test: &str, v: Val) -> String {
    match v.os {
        Some(predicate::NVIDIA_SMI) => format!(
            "branch that runs only where NVIDIA's `nvidia-smi` is installed (`{test}`): an AMD \
             node skips it"
        ),
        Some(os) => format!(
            "branch for another operating system (`{test}`, a {os} test): the ROCm build's \
             target OS is Linux"
        ),
        None => format!("CUDA-only branch of `{test}`: the project's ROCm branch replaces it"),
    }
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    Val {
        rocm: a,
        ..Val::UNKNOWN
    }
    .and(Val {
        rocm: b,
        ..Val::UNKNOWN
    })
    .rocm
}

fn find(ranges: &[(Range<usize>, String)], byte: usize) -> Option<&str> {
    ranges
        .iter()
        .find(|(r, _)| r.contains(&byte))
        .map(|(_, w)| w.as_str())
}

/// How a block that ends in a failure fails: `raises`, `exits`, `fails the assertion`.
pub fn failure_word(block: Node, src: &[u8]) -> Option<&'static str> {
    if exit_of(block, src)? != Exit::Fail {
        return None;
    }
    let last = ts::named_children(block)
        .into_iter()
        .rfind(|s| s.node_kind() != K::Comment)?;
    Some(match last.node_kind() {
        K::RaiseStatement => "raises",
        K::AssertStatement => "fails the assertion",
        _ => "exits",
    })
}

/// Whether a block ends by skipping the test it is in (`pytest.skip(...)`, `self.skipTest(...)`,
/// `raise unittest.SkipTest(...)`, a helper named `skip...`).
pub fn skips(block: Node, src: &[u8]) -> bool {
    exit_of(block, src) == Some(Exit::Skip)
}

/// How a block ends when its last statement leaves it.
fn exit_of(block: Node, src: &[u8]) -> Option<Exit> {
    let last = ts::named_children(block)
        .into_iter()
        .rfind(|s| s.node_kind() != K::Comment)?;
    match last.node_kind() {
        K::ReturnStatement | K::ContinueStatement | K::BreakStatement => Some(Exit::Quiet),
        K::RaiseStatement => {
            let t = ts::text(last, src);
            Some(if t.contains("SkipTest") || t.contains("skip.Exception") {
                Exit::Skip
            } else {
                Exit::Fail
            })
        }
        K::AssertStatement => ts::named_children(last)
            .first()
            .filter(|c| c.node_kind() == K::False_)
            .map(|_| Exit::Fail),
        K::ExpressionStatement => {
            let call = ts::named_children(last)
                .into_iter()
                .next()
                .filter(|c| c.node_kind() == K::Call)?;
            let f = dotted(call.field(F::Function)?, src)?;
            let last_name = f.rsplit('.').next().unwrap_or(&f);
            match (f.as_str(), last_name) {
                ("sys.exit" | "exit" | "quit" | "os._exit" | "os.abort" | "pytest.fail", _) => {
                    Some(Exit::Fail)
                }
                ("pytest.skip" | "pytest.xfail", _) | (_, "skipTest") => Some(Exit::Skip),
                _ if last_name.to_ascii_lowercase().starts_with("skip") => Some(Exit::Skip),
                _ => None,
            }
        }
        _ => None,
    }
}

/// What "the decorated code runs" is on each build, from one decorator or mark.
fn runs_under(e: Node, src: &[u8]) -> Val {
    if e.node_kind() == K::Call {
        let f = e
            .field(F::Function)
            .and_then(|f| dotted(f, src))
            .unwrap_or_default();
        let last = f.rsplit('.').next().unwrap_or(&f).to_ascii_lowercase();
        let first = e
            .field(F::Arguments)
            .and_then(|a| ts::named_children(a).into_iter().next())
            .filter(|a| a.node_kind() != K::KeywordArgument);
        match (last.as_str(), first) {
            ("skipif", Some(c)) => return eval(c, src).not(),
            ("skipunless", Some(c)) => return eval(c, src),
            ("skipif" | "skipunless", None) => return Val::UNKNOWN,
            _ => return named_decorator(&f),
        }
    }
    if e.node_kind() == K::Identifier {
        if let Some(v) = predicate::assigned_value(e, src) {
            if v.node_kind() == K::Call {
                return runs_under(v, src);
            }
        }
    }
    dotted(e, src).map_or(Val::UNKNOWN, |d| named_decorator(&d))
}

/// A decorator whose name states the platform: `@disable_on_rocm`, `@skip_if_rocm`,
/// `@skipIfRocm` (not on ROCm), `@skip_if_not_rocm`, `@rocm_only` (only on ROCm).
fn named_decorator(d: &str) -> Val {
    let last = d.rsplit('.').next().unwrap_or(d);
    // snake_case and camelCase words.
    let mut words: Vec<String> = Vec::new();
    for part in last.split('_').filter(|p| !p.is_empty()) {
        let mut w = String::new();
        let chars: Vec<char> = part.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            let boundary = i > 0
                && c.is_ascii_uppercase()
                && (chars[i - 1].is_ascii_lowercase()
                    || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()));
            if boundary && !w.is_empty() {
                words.push(std::mem::take(&mut w).to_ascii_lowercase());
            }
            w.push(*c);
        }
        words.push(w.to_ascii_lowercase());
    }
    let has = |xs: &[&str]| words.iter().any(|w| xs.contains(&w.as_str()));
    if !has(&["rocm", "hip", "amd"]) {
        return Val::UNKNOWN;
    }
    let skip = has(&["skip", "disable", "disabled", "exclude", "excluded"]);
    let negated = has(&["not", "unless", "no", "without"]);
    let only = has(&["only", "requires", "require"]);
    let not_on_rocm = match (skip, negated, only) {
        (true, false, _) => true,
        (true, true, _) => false,
        (false, true, false) => true,
        (false, false, true) => false,
        _ => return Val::UNKNOWN,
    };
    if not_on_rocm {
        Val {
            rocm: Some(false),
            cuda: None,
            names_platform: true,
            os: None,
        }
    } else {
        Val {
            rocm: None,
            cuda: Some(false),
            names_platform: true,
            os: None,
        }
    }
}

/// Module-level functions whose every use is a call inside code the ROCm build skips
/// (flash-attention's `add_cuda_gencodes(...)`, called only under `if not SKIP_CUDA_BUILD and
/// not IS_ROCM:`): their bodies only run for the CUDA build too. Repeated until no more are
/// found (a helper of a helper). A function also named anywhere else is left alone.
fn helpers_called_only_from(root: Node, src: &[u8], out: &mut Vec<(Range<usize>, String)>) {
    let defs: Vec<(String, Node)> = ts::named_children(root)
        .into_iter()
        .filter(|d| d.node_kind() == K::FunctionDefinition)
        .filter_map(|d| Some((ts::text(d.field(F::Name)?, src).to_string(), d)))
        .collect();
    if defs.is_empty() || out.is_empty() {
        return;
    }
    let mut idents: Vec<Node> = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() == K::Identifier && defs.iter().any(|(d, _)| d == ts::text(n, src)) {
            idents.push(n);
        }
    });
    let mut done: Vec<bool> = vec![false; defs.len()];
    loop {
        let mut changed = false;
        for (i, (name, def)) in defs.iter().enumerate() {
            if done[i] || out.iter().any(|(r, _)| r.contains(&def.start_byte())) {
                continue;
            }
            let mut uses = idents
                .iter()
                .filter(|n| ts::text(**n, src) == name && def.field(F::Name) != Some(**n));
            let mut why = None;
            let all_dead_calls = uses.all(|u| {
                let is_call = u
                    .parent()
                    .is_some_and(|p| p.node_kind() == K::Call && p.field(F::Function) == Some(*u));
                let arm = out.iter().find(|(r, _)| r.contains(&u.start_byte()));
                if let (true, Some((_, w))) = (is_call, arm) {
                    why.get_or_insert_with(|| w.clone());
                    true
                } else {
                    false
                }
            });
            if let (true, Some(w), Some(body)) = (all_dead_calls, why, def.field(F::Body)) {
                out.push((
                    body.byte_range(),
                    format!("{w}; `{name}()` is called only there"),
                ));
                done[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

#[cfg(test)]
mod tests;
