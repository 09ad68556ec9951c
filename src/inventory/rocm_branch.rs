//! Which Python code only runs for the CUDA build of a project that already branches for ROCm:
//! the other arm of `if torch.version.hip:`, `if IS_HIP_EXTENSION:`, `if HIP_BUILD:`,
//! `if ROCM_HOME is not None:`, `if BUILD_TARGET == "rocm":` (and their negations, `elif` and
//! `x if HIP_BUILD else y`). nvcc flags, `torch.version.cuda` and `sm_XX` strings there are not
//! porting work: the project's ROCm arm replaces them. Findings there become PASS with the reason.
//! Conditions joined with `and`/`or` are read by what each outcome implies: the body of
//! `if not SKIP_CUDA_BUILD and not IS_ROCM:` only runs on CUDA, the `else` of
//! `if IS_HIP_EXTENSION or FORCE:` only on CUDA; `if torch.version.hip and X:` decides nothing
//! for its `else`. A `setup.py` that lists its CUDA sources only in the CUDA arm (flash-attention:
//! `csrc/flash_attn/src/*.cu` for CUDA, `csrc/flash_attn_ck/*.cpp` for ROCm) makes the findings in
//! those sources' folders PASS: the project's ROCm arm builds other code ([`pass_cuda_only_sources`]).

use super::python::dotted;
use super::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// Whether a dotted name or identifier names the ROCm/HIP side (`torch.version.hip`,
/// `IS_HIP_EXTENSION`, `HIP_BUILD`, `ROCM_HOME`, `is_rocm`).
fn rocm_name(d: &str) -> bool {
    d.split(['.', '_']).any(|w| {
        matches!(
            w.to_ascii_lowercase().as_str(),
            "hip" | "rocm" | "amd" | "hipcc"
        )
    })
}

fn cuda_word(s: &str) -> bool {
    matches!(s.to_ascii_lowercase().as_str(), "cuda" | "nvidia" | "nvcc")
}

/// `Some(true)` when the condition holds exactly for the ROCm build, `Some(false)` when it holds
/// exactly for the CUDA build, `None` when it does not decide the platform alone.
pub fn rocm_test(n: Node, src: &[u8]) -> Option<bool> {
    match implies(n, src) {
        (Some(t), Some(f)) if t != f => Some(t),
        _ => None,
    }
}

/// What each outcome of a condition says about the platform: `(when true, when false)`, each
/// `Some(true)` for "only on ROCm", `Some(false)` for "only on CUDA", `None` for "either".
fn implies(n: Node, src: &[u8]) -> (Option<bool>, Option<bool>) {
    match n.node_kind() {
        K::ParenthesizedExpression => match ts::named_children(n).into_iter().next() {
            Some(c) => implies(c, src),
            None => (None, None),
        },
        K::NotOperator => match n.field(F::Argument) {
            Some(a) => {
                let (t, f) = implies(a, src);
                (f, t)
            }
            None => (None, None),
        },
        K::BooleanOperator => {
            let (Some(l), Some(r)) = (n.field(F::Left), n.field(F::Right)) else {
                return (None, None);
            };
            let op = n
                .child_by_field_name("operator")
                .map(|o| ts::text(o, src))
                .unwrap_or("");
            let ((lt, lf), (rt, rf)) = (implies(l, src), implies(r, src));
            let same = |a: Option<bool>, b: Option<bool>| if a == b { a } else { None };
            match op {
                // Both hold: either side's platform holds. One fails: only a platform both
                // sides' failures share.
                "and" => (lt.or(rt), same(lf, rf)),
                "or" => (same(lt, rt), lf.or(rf)),
                _ => (None, None),
            }
        }
        // A name assigned once from a platform test means that test, whatever its words say
        // (`is_not_hip = torch.version.hip is None` is the CUDA side).
        K::Identifier if assigned_test(n, src).is_some() => assigned_test(n, src).unwrap(),
        _ => match atom(n, src) {
            Some(v) => (Some(v), Some(!v)),
            None => (None, None),
        },
    }
}

/// A single test that names the platform (no `and`/`or`/`not` around it).
fn atom(n: Node, src: &[u8]) -> Option<bool> {
    match n.node_kind() {
        K::ParenthesizedExpression | K::NotOperator | K::BooleanOperator => rocm_test(n, src),
        K::Identifier | K::Attribute => {
            let d = dotted(n, src)?;
            if d == "torch.version.cuda" {
                // Set only on CUDA builds of PyTorch.
                return Some(false);
            }
            rocm_name(&d).then_some(true)
        }
        K::Call => {
            let f = dotted(n.field(F::Function)?, src)?;
            let args = n
                .field(F::Arguments)
                .map(ts::named_children)
                .unwrap_or_default();
            if f == "bool" && args.len() == 1 {
                return rocm_test(args[0], src);
            }
            // `getattr(torch.version, "hip", None)`
            if f == "getattr" && args.len() >= 2 {
                let (attr, _) = super::python::string(args[1], src)?;
                let obj = dotted(args[0], src)?;
                return rocm_name(&format!("{obj}.{attr}")).then_some(true);
            }
            (args.is_empty() && rocm_name(&f)).then_some(true)
        }
        K::ComparisonOperator => {
            let kids = ts::children(n);
            if kids.len() != 3 && kids.len() != 4 {
                return None;
            }
            let left = kids[0];
            let right = *kids.last()?;
            let op: String = kids[1..kids.len() - 1]
                .iter()
                .map(|k| ts::text(*k, src))
                .collect::<Vec<_>>()
                .join(" ");
            let positive = match op.as_str() {
                "is not" | "!=" => false,
                "is" | "==" => true,
                _ => return None,
            };
            match right.node_kind() {
                K::None => rocm_test(left, src).map(|v| if positive { !v } else { v }),
                K::String => {
                    let (val, _) = super::python::string(right, src)?;
                    let side = if rocm_name(&val) {
                        true
                    } else if cuda_word(&val) {
                        false
                    } else {
                        return None;
                    };
                    let subject = dotted(left, src)?;
                    if !subject.to_ascii_lowercase().contains("target")
                        && !subject.to_ascii_lowercase().contains("backend")
                        && !subject.to_ascii_lowercase().contains("platform")
                        && !rocm_name(&subject)
                    {
                        return None;
                    }
                    Some(if positive { side } else { !side })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

thread_local! {
    /// How deep [`assigned_test`] is: a name defined by another name is followed a few steps.
    static DEPTH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// What a name stands for when it is assigned exactly once from a condition that says something
/// about the platform, in the enclosing function's body or else at module level:
/// `is_not_hip = torch.version.hip is None` is the CUDA side, `IS_ROCM = torch.version.hip is not
/// None` the ROCm side, `is_cuda = torch.cuda.is_available() and torch.version.cuda` holds only
/// on CUDA. `None` when the name is assigned elsewhere, more than once, or from anything else.
fn assigned_test(n: Node, src: &[u8]) -> Option<(Option<bool>, Option<bool>)> {
    let rhs = assigned_value(n, src)?;
    if DEPTH.get() >= 4 {
        return None;
    }
    DEPTH.set(DEPTH.get() + 1);
    let v = implies(rhs, src);
    DEPTH.set(DEPTH.get() - 1);
    (v != (None, None)).then_some(v)
}

/// Byte ranges that only the CUDA build runs, each with the ROCm test that separates it.
pub fn cuda_only(root: Node, src: &[u8]) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    ts::each(root, &mut |n| match n.node_kind() {
        K::IfStatement | K::ElifClause => {
            let Some(c) = n.field(F::Condition) else {
                return;
            };
            let (when_true, when_false) = implies(c, src);
            let test = ts::text(c, src).to_string();
            if when_true == Some(false) {
                if let Some(b) = n.field(F::Consequence) {
                    out.push((b.byte_range(), test.clone()));
                }
            }
            // Every `elif`/`else` arm runs only when the test failed.
            if n.node_kind() == K::IfStatement && when_false == Some(false) {
                let mut cur = n.walk();
                for alt in n.fields(F::Alternative, &mut cur) {
                    out.push((alt.byte_range(), test.clone()));
                }
            }
        }
        K::ConditionalExpression => {
            let kids = ts::named_children(n);
            if kids.len() != 3 {
                return;
            }
            let (when_true, when_false) = implies(kids[1], src);
            let test = ts::text(kids[1], src).to_string();
            if when_true == Some(false) {
                out.push((kids[0].byte_range(), test.clone()));
            }
            if when_false == Some(false) {
                out.push((kids[2].byte_range(), test));
            }
        }
        // `torch.version.cuda and cap >= (9, 0)`: the right side is evaluated only when the
        // left holds, which is only on CUDA (and `IS_HIP or x`: only when it fails, on CUDA).
        K::BooleanOperator => {
            let (Some(l), Some(r)) = (n.field(F::Left), n.field(F::Right)) else {
                return;
            };
            let op = n
                .child_by_field_name("operator")
                .map(|o| ts::text(o, src))
                .unwrap_or("");
            let (when_true, when_false) = implies(l, src);
            let cuda_only = match op {
                "and" => when_true == Some(false),
                "or" => when_false == Some(false),
                _ => false,
            };
            if cuda_only {
                out.push((r.byte_range(), ts::text(l, src).to_string()));
            }
        }
        _ => {}
    });
    helpers_called_only_from(root, src, &mut out);
    out
}

/// Module-level functions whose every use is a call inside a CUDA-only range (flash-attention's
/// `add_cuda_gencodes(...)`, called only under `if not SKIP_CUDA_BUILD and not IS_ROCM:`): their
/// bodies only run for the CUDA build too. Repeated until no more are found (a helper of a
/// helper). A function also named anywhere else (another call, passed as a value) is left alone.
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
            let mut test = None;
            let all_cuda_calls = uses.all(|u| {
                let is_call = u
                    .parent()
                    .is_some_and(|p| p.node_kind() == K::Call && p.field(F::Function) == Some(*u));
                let arm = out.iter().find(|(r, _)| r.contains(&u.start_byte()));
                if let (true, Some((_, t))) = (is_call, arm) {
                    test.get_or_insert_with(|| t.clone());
                    true
                } else {
                    false
                }
            });
            if let (true, Some(t), Some(body)) = (all_cuda_calls, test, def.field(F::Body)) {
                out.push((body.byte_range(), format!("{t}` → `{name}()")));
                done[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Byte ranges that only the ROCm build runs: the arms of a platform test that hold on ROCm alone
/// (the body of `if IS_ROCM:`, of `elif not SKIP_CUDA_BUILD and IS_ROCM:`, the `else` of
/// `if not torch.version.hip:`).
pub fn rocm_only(root: Node, src: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    ts::each(root, &mut |n| match n.node_kind() {
        K::IfStatement | K::ElifClause => {
            let Some(c) = n.field(F::Condition) else {
                return;
            };
            let (when_true, when_false) = implies(c, src);
            if when_true == Some(true) {
                if let Some(b) = n.field(F::Consequence) {
                    out.push(b.byte_range());
                }
            }
            if n.node_kind() == K::IfStatement && when_false == Some(true) {
                let mut cur = n.walk();
                for alt in n.fields(F::Alternative, &mut cur) {
                    out.push(alt.byte_range());
                }
            }
        }
        K::ConditionalExpression => {
            let kids = ts::named_children(n);
            if kids.len() != 3 {
                return;
            }
            let (when_true, when_false) = implies(kids[1], src);
            if when_true == Some(true) {
                out.push(kids[0].byte_range());
            }
            if when_false == Some(true) {
                out.push(kids[2].byte_range());
            }
        }
        _ => {}
    });
    out
}

/// A compile flag only a ROCm (hipcc/clang) build passes.
fn rocm_flag(s: &str) -> bool {
    s.starts_with("--offload-arch")
        || s.starts_with("--amdgpu-target")
        || s.starts_with("-fgpu-")
        || s.contains("__HIP_PLATFORM")
        || s.contains("USE_ROCM")
        || s.starts_with("-munsafe-fp-atomics")
}

/// What a `setup.py`'s ROCm arms build: the source files they name and whether they pass ROCm
/// compile flags. `None` when no ROCm-only arm names a source or a ROCm flag (no test for ROCm
/// at all, or one that only skips the build or picks install requirements).
pub fn rocm_build(root: Node, src: &[u8]) -> Option<Vec<String>> {
    let arms = rocm_only(root, src);
    if arms.is_empty() {
        return None;
    }
    let (mut sources, mut flags) = (Vec::new(), false);
    ts::each(root, &mut |n| {
        if n.node_kind() != K::String {
            return;
        }
        let Some((text, r)) = super::python::string(n, src) else {
            return;
        };
        if !arms.iter().any(|a| a.contains(&r.start)) {
            return;
        }
        if SOURCE_EXTS.iter().any(|e| text.ends_with(e)) && !text.contains(char::is_whitespace) {
            sources.push(text.trim_start_matches("./").to_string());
        } else if rocm_flag(text.trim()) {
            flags = true;
        }
    });
    (flags || !sources.is_empty()).then_some(sources)
}

/// Places where `name` is only tested for being set: the whole condition of an `if`/`elif`/
/// conditional expression, or an operand of `not`/`and`/`or` (anywhere: `return
/// torch.cuda.is_available() and torch.version.cuda and ...`), or compared with `None` anywhere
/// (`is_cuda = torch.version.cuda is not None`).
pub fn truthiness_tests(root: Node, src: &[u8], name: &str) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    ts::each(root, &mut |n| {
        if matches!(n.node_kind(), K::BooleanOperator | K::NotOperator) {
            for x in ts::named_children(n) {
                if x.node_kind() == K::Attribute && dotted(x, src).as_deref() == Some(name) {
                    out.push((x.byte_range(), name.to_string()));
                }
            }
        }
        if n.node_kind() == K::ComparisonOperator {
            let kids = ts::children(n);
            let op: Vec<&str> = kids
                .get(1..kids.len().saturating_sub(1))
                .unwrap_or_default()
                .iter()
                .map(|k| ts::text(*k, src))
                .collect();
            let none_test = matches!(
                op.as_slice(),
                ["is"] | ["is not"] | ["is", "not"] | ["=="] | ["!="]
            );
            if none_test && kids.len() >= 3 {
                let (l, r) = (kids[0], kids[kids.len() - 1]);
                for (x, other) in [(l, r), (r, l)] {
                    if other.node_kind() == K::None
                        && x.node_kind() == K::Attribute
                        && dotted(x, src).as_deref() == Some(name)
                    {
                        out.push((x.byte_range(), name.to_string()));
                    }
                }
            }
        }
        let c = match n.node_kind() {
            K::IfStatement | K::ElifClause => n.field(F::Condition),
            K::ConditionalExpression => ts::named_children(n).get(1).copied(),
            _ => None,
        };
        let mut stack: Vec<Node> = c.into_iter().collect();
        while let Some(x) = stack.pop() {
            match x.node_kind() {
                K::ParenthesizedExpression | K::NotOperator | K::BooleanOperator => {
                    stack.extend(ts::named_children(x))
                }
                K::Attribute if dotted(x, src).as_deref() == Some(name) => {
                    out.push((x.byte_range(), name.to_string()))
                }
                _ => {}
            }
        }
    });
    out
}

const SOURCE_EXTS: &[&str] = &[".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".hip"];

/// The source files a `setup.py` names (string literals ending in a source extension), split into
/// those named only inside a CUDA-only arm and all the others. Empty when the file does not test
/// for ROCm.
pub fn build_sources(root: Node, src: &[u8]) -> (Vec<String>, Vec<String>) {
    if !has_rocm_test(root, src) {
        return (Vec::new(), Vec::new());
    }
    let arms = cuda_only(root, src);
    let (mut cuda, mut other) = (Vec::new(), Vec::new());
    ts::each(root, &mut |n| {
        if n.node_kind() != K::String {
            return;
        }
        let Some((text, r)) = super::python::string(n, src) else {
            return;
        };
        if !SOURCE_EXTS.iter().any(|e| text.ends_with(e)) || text.contains(char::is_whitespace) {
            return;
        }
        let path = joined_path(n, src).unwrap_or_else(|| text.trim_start_matches("./").to_string());
        if arms.iter().any(|(a, _)| a.contains(&r.start)) {
            cuda.push(path);
        } else {
            other.push(path);
        }
    });
    (cuda, other)
}

/// The path a source file name stands for when it is the last argument of `os.path.join(...)`
/// whose other arguments are string literals or names assigned once from such joins (in the
/// enclosing function, else at module level): torchao's `os.path.join(mxfp8_extension_dir,
/// "mxfp8_cuda.cu")` with `mxfp8_extension_dir = os.path.join(extensions_dir, "cuda",
/// "mx_kernels")` is `torchao/csrc/cuda/mx_kernels/mxfp8_cuda.cu`. The first argument may be the
/// setup.py's own folder (`this_dir`, `os.path.dirname(__file__)`): anything there that is not
/// a join or a string counts as that folder. `None` when a later argument is unknown.
fn joined_path(n: Node, src: &[u8]) -> Option<String> {
    let args = n.parent().filter(|p| p.node_kind() == K::ArgumentList)?;
    let call = args.parent().filter(|c| c.node_kind() == K::Call)?;
    let kids = ts::named_children(args);
    if kids.last() != Some(&n) {
        return None;
    }
    join_parts(call, src, 0).map(|parts| parts.join("/"))
}

/// The path segments of an `os.path.join(...)` call (see [`joined_path`]).
fn join_parts(call: Node, src: &[u8], depth: u8) -> Option<Vec<String>> {
    let f = dotted(call.field(F::Function)?, src)?;
    if f != "os.path.join" || depth > 4 {
        return None;
    }
    let mut out = Vec::new();
    for (i, a) in ts::named_children(call.field(F::Arguments)?)
        .into_iter()
        .enumerate()
    {
        if let Some((text, _)) = super::python::string(a, src) {
            out.extend(
                text.split('/')
                    .filter(|p| !p.is_empty() && *p != ".")
                    .map(str::to_string),
            );
            continue;
        }
        let resolved = match a.node_kind() {
            K::Call => join_parts(a, src, depth + 1),
            K::Identifier => assigned_value(a, src)
                .filter(|v| v.node_kind() == K::Call)
                .and_then(|v| join_parts(v, src, depth + 1)),
            _ => None,
        };
        match resolved {
            Some(parts) => out.extend(parts),
            // The setup.py's own folder (`this_dir`, `os.path.dirname(__file__)`).
            None if i == 0 => {}
            None => return None,
        }
    }
    Some(out)
}

/// The value a name is assigned exactly once, in the enclosing function's body or else at module
/// level.
fn assigned_value<'t>(n: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let name = ts::text(n, src);
    let assignments = |scope: Node<'t>| -> Vec<Node<'t>> {
        let mut rhs = Vec::new();
        for st in ts::named_children(scope) {
            for a in ts::named_children(st) {
                if a.node_kind() == K::Assignment
                    && a.field(F::Left).map(|l| ts::text(l, src)) == Some(name)
                {
                    rhs.extend(a.field(F::Right));
                }
            }
        }
        rhs
    };
    let mut root = n;
    let mut function_body = None;
    while let Some(p) = root.parent() {
        if function_body.is_none() && p.node_kind() == K::FunctionDefinition {
            function_body = p.field(F::Body);
        }
        root = p;
    }
    let mut rhs = function_body.map(assignments).unwrap_or_default();
    if rhs.is_empty() {
        rhs = assignments(root);
    }
    (rhs.len() == 1).then(|| rhs[0])
}

/// Folders (relative to the report root, `/`-separated) holding only sources that a `setup.py`
/// builds in its CUDA arm, each with the setup.py that says so.
pub fn cuda_only_folders(setups: &[(String, Vec<u8>)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (rel, bytes) in setups {
        let Some(tree) = ts::parse(ts::Lang::Python, bytes) else {
            continue;
        };
        let (cuda, other) = build_sources(tree.root_node(), bytes);
        let base = rel
            .rsplit_once('/')
            .map_or(String::new(), |(d, _)| format!("{d}/"));
        let dir = |p: &String| {
            p.rsplit_once('/')
                .map(|(d, _)| format!("{base}{d}/"))
                .unwrap_or_else(|| base.clone())
        };
        let other_dirs: Vec<String> = other.iter().map(dir).collect();
        let mut dirs: Vec<String> = cuda.iter().map(dir).collect();
        dirs.sort();
        dirs.dedup();
        for d in dirs {
            // A folder the ROCm arm (or an unconditional list) also builds from is shared.
            let shared = other_dirs.iter().any(|o| o == &d);
            if !shared && d != base {
                out.push((d, rel.clone()));
            }
        }
    }
    out
}

/// Findings in folders that only a `setup.py`'s CUDA arm builds become PASS with the reason.
pub fn pass_cuda_only_sources(
    findings: &mut [crate::finding::Finding],
    setups: &[(String, Vec<u8>)],
) {
    let folders = cuda_only_folders(setups);
    if folders.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        if f.status == crate::gate::Status::Pass {
            continue;
        }
        if let Some((_, setup)) = folders.iter().find(|(d, _)| f.path.starts_with(d.as_str())) {
            f.status = crate::gate::Status::Pass;
            f.message.push_str(&format!(
                " (built only by the CUDA arm of `{setup}`: the project's ROCm arm builds other sources)"
            ));
        }
    }
}

/// Whether the file tests for the ROCm build anywhere (an `if`, `elif` or a conditional
/// expression whose condition names the platform, alone or inside `and`/`or`).
pub fn has_rocm_test(root: Node, src: &[u8]) -> bool {
    let mut found = false;
    ts::each(root, &mut |n| {
        if found {
            return;
        }
        let c = match n.node_kind() {
            K::IfStatement | K::ElifClause => n.field(F::Condition),
            K::ConditionalExpression => ts::named_children(n).get(1).copied(),
            _ => None,
        };
        found = c.is_some_and(|c| implies(c, src) != (None, None));
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(src: &str) -> Vec<String> {
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        cuda_only(tree.root_node(), src.as_bytes())
            .into_iter()
            .map(|(r, _)| src[r].split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[test]
    fn cuda_arms_of_rocm_tests() {
        let src = "if HIP_BUILD:\n    a = 1\nelse:\n    b = 2\nif not IS_HIP_EXTENSION:\n    c = 3\nif torch.version.hip is None:\n    d = 4\nif BUILD_TARGET == \"rocm\":\n    e = 5\nelif x:\n    f = 6\nv = \"hip\" if bool(torch.version.hip) else \"cu\"\nif ROCM_HOME is not None and y:\n    g = 7\nif SKIP_CUDA_BUILD:\n    h = 8\n";
        assert_eq!(
            ranges(src),
            vec!["else: b = 2", "c = 3", "d = 4", "elif x: f = 6", "\"cu\"",]
        );
    }

    #[test]
    fn helpers_called_only_from_a_cuda_arm_are_cuda_only() {
        // flash-attention's setup.py: `add_cuda_gencodes` is called only in the CUDA arm.
        let src = "def add_cuda_gencodes(cc_flag):\n    cc_flag += [\"-gencode\", \"arch=compute_80,code=sm_80\"]\n    return cc_flag\n\ndef helper2():\n    return add_cuda_gencodes([])\n\ndef shared():\n    return [\"-O3\"]\n\nif not SKIP_CUDA_BUILD and not IS_ROCM:\n    cc = helper2() + shared()\nelif IS_ROCM:\n    r = shared()\n";
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        let got = cuda_only(tree.root_node(), src.as_bytes());
        let bodies: Vec<&str> = got.iter().map(|(r, _)| src[r.clone()].trim()).collect();
        assert!(
            bodies
                .iter()
                .any(|b| b.starts_with("return add_cuda_gencodes")),
            "{bodies:?}"
        );
        assert!(
            bodies.iter().any(|b| b.starts_with("cc_flag += [")),
            "{bodies:?}"
        );
        // `shared()` is also called from the ROCm arm: not CUDA-only.
        assert!(!bodies.iter().any(|b| b.contains("-O3")), "{bodies:?}");
        let (_, test) = got
            .iter()
            .find(|(r, _)| src[r.clone()].contains("-gencode"))
            .unwrap();
        assert!(test.ends_with("`add_cuda_gencodes()"), "{test}");
        // Referenced as a value too (a callback): left alone.
        let src =
            "def f():\n    x = [\"-gencode\"]\n\nif not IS_HIP_EXTENSION:\n    f()\nhooks = [f]\n";
        assert_eq!(ranges(src), vec!["f()"]);
        // Never called: left alone.
        let src = "def f():\n    x = 1\n\nif not IS_HIP_EXTENSION:\n    y = 2\n";
        assert_eq!(ranges(src), vec!["y = 2"]);
    }

    #[test]
    fn sources_only_the_cuda_arm_builds() {
        // flash-attention's setup.py, shortened.
        let src = "IS_ROCM = IS_HIP_EXTENSION\nif not SKIP_CUDA_BUILD and not IS_ROCM:\n    ext_modules.append(CUDAExtension(sources=[\"csrc/flash_attn/flash_api.cpp\", \"csrc/flash_attn/src/flash_fwd_hdim32_fp16_sm80.cu\"]))\nelif not SKIP_CUDA_BUILD and IS_ROCM:\n    sources = [\"csrc/flash_attn_ck/flash_api.cpp\", \"csrc/shared/common.cu\"]\nextra = [\"csrc/shared/x.cu\"]\n";
        let setups = vec![("setup.py".to_string(), src.as_bytes().to_vec())];
        assert_eq!(
            cuda_only_folders(&setups),
            vec![
                ("csrc/flash_attn/".to_string(), "setup.py".to_string()),
                ("csrc/flash_attn/src/".to_string(), "setup.py".to_string()),
            ]
        );
        // The same setup.py in a sub-package: folders are relative to it.
        let setups = vec![("pkg/setup.py".to_string(), src.as_bytes().to_vec())];
        assert_eq!(cuda_only_folders(&setups)[1].0, "pkg/csrc/flash_attn/src/");
        // No ROCm test in the file: nothing is CUDA-only.
        let plain = "ext_modules.append(CUDAExtension(sources=[\"csrc/a/k.cu\"]))\n";
        assert!(cuda_only_folders(&[("setup.py".into(), plain.as_bytes().to_vec())]).is_empty());
    }

    /// pytorch_scatter's `__init__.py`: `is_not_hip` names HIP but stands for the CUDA build;
    /// a name assigned from a platform test means that test, not its words.
    #[test]
    fn names_assigned_from_platform_tests_mean_the_test() {
        let src = "is_not_hip = torch.version.hip is None\nis_cuda = torch.version.cuda is not None\nif is_not_hip and is_cuda and v != -1:\n    a = 1\nIS_ROCM = torch.version.hip is not None\nif not IS_ROCM:\n    b = 2\n";
        // The operands after the CUDA-only `is_not_hip` are evaluated only on CUDA too.
        assert_eq!(ranges(src), vec!["a = 1", "v != -1", "is_cuda", "b = 2"]);
        // Assigned twice, or from something that is no platform test: the name's words decide.
        let src = "use_hip = False\nuse_hip = detect()\nif not use_hip:\n    a = 1\nhip_ok = check()\nif not hip_ok:\n    b = 2\nif not_cuda_x:\n    c = 3\n";
        assert_eq!(ranges(src), vec!["a = 1", "b = 2"]);
    }

    /// torchao's `torchao/utils.py`: a capability threshold after `torch.version.cuda` in an
    /// `and` chain, or under a local `is_cuda` assigned from one, is evaluated only on CUDA.
    #[test]
    fn and_chains_and_local_names_guard_their_right_side() {
        let src = "def at_least_90():\n    return (\n        torch.cuda.is_available()\n        and torch.version.cuda\n        and cap() >= (9, 0)\n    )\n\ndef is_sm(a, b):\n    is_cuda = torch.cuda.is_available() and torch.version.cuda\n    return cap() == (a, b) if is_cuda else False\n\nok = IS_HIP or cap2() >= 8\n";
        assert_eq!(
            ranges(src),
            vec!["cap() >= (9, 0)", "cap() == (a, b)", "cap2() >= 8"]
        );
        // Neither side names the platform, or the left holds on ROCm: nothing is CUDA-only.
        let src = "def f():\n    return torch.cuda.is_available() and cap() >= (9, 0)\n\ng = IS_HIP and cap() >= 9\nh = torch.version.cuda or cap() >= 9\n";
        assert!(ranges(src).is_empty(), "{:?}", ranges(src));
    }

    /// torchao's setup.py: the mxfp8 sources are named through `os.path.join` of variables, and
    /// built only `if use_cuda:` (`use_cuda = torch.version.cuda and CUDA_HOME is not None`).
    #[test]
    fn joined_source_paths_resolve_to_their_folder() {
        let src = "import os\ndef get_extensions():\n    this_dir = os.path.dirname(os.path.abspath(__file__))\n    extensions_dir = os.path.join(this_dir, \"pkg\", \"csrc\")\n    mx_dir = os.path.join(extensions_dir, \"cuda\", \"mx_kernels\")\n    use_cuda = torch.version.cuda and CUDA_HOME is not None\n    use_rocm = torch.version.hip and ROCM_HOME is not None\n    sources = [os.path.join(extensions_dir, \"ops.cpp\")]\n    if use_cuda:\n        mx = [os.path.join(mx_dir, \"mxfp8_cuda.cu\"), os.path.join(unknown(), mx_dir, \"x.cu\")]\n        other = [os.path.join(this_dir, get(), \"y.cu\")]\n";
        let setups = vec![("setup.py".to_string(), src.as_bytes().to_vec())];
        assert_eq!(
            cuda_only_folders(&setups),
            vec![(
                "pkg/csrc/cuda/mx_kernels/".to_string(),
                "setup.py".to_string()
            )]
        );
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        let (cuda, other) = build_sources(tree.root_node(), src.as_bytes());
        // An unknown argument after the first: the bare file name, as before.
        assert_eq!(
            cuda,
            [
                "pkg/csrc/cuda/mx_kernels/mxfp8_cuda.cu",
                "pkg/csrc/cuda/mx_kernels/x.cu",
                "y.cu"
            ]
        );
        assert_eq!(other, ["pkg/csrc/ops.cpp"]);
    }

    #[test]
    fn none_comparisons_only_test_for_being_set() {
        let src = "is_cuda = torch.version.cuda is not None\nv = torch.version.cuda.split('.')\nif x:\n    w = None == torch.version.cuda\ny = ok() and torch.version.cuda\n";
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        let got = truthiness_tests(tree.root_node(), src.as_bytes(), "torch.version.cuda");
        let lines: Vec<usize> = got
            .iter()
            .map(|(r, _)| src[..r.start].matches('\n').count() + 1)
            .collect();
        assert_eq!(lines, [1, 4, 5]);
    }

    #[test]
    fn and_or_conditions_decide_by_what_each_outcome_implies() {
        // flash-attention's setup.py: the first arm is CUDA-only, the `elif` arm is ROCm's.
        let src = "if not SKIP_CUDA_BUILD and not IS_ROCM:\n    a = 1\nelif not SKIP_CUDA_BUILD and IS_ROCM:\n    b = 2\nelse:\n    c = 3\n";
        assert_eq!(ranges(src), vec!["a = 1"]);
        // `or` with a ROCm test: the else arm is CUDA-only, the body is not (and `FORCE` is
        // only evaluated on CUDA).
        let src = "if IS_HIP_EXTENSION or FORCE:\n    a = 1\nelse:\n    b = 2\n";
        assert_eq!(ranges(src), vec!["else: b = 2", "FORCE"]);
        // `not hip or X`: the body runs on ROCm when X holds, the else arm only on ROCm.
        let src = "if not IS_HIP_EXTENSION or X:\n    a = 1\nelse:\n    b = 2\n";
        assert!(ranges(src).is_empty());
        // `hip and X`: neither arm is CUDA-only.
        let src = "if torch.version.hip and X:\n    a = 1\nelse:\n    b = 2\n";
        assert!(ranges(src).is_empty());
        // An `elif` whose own test is CUDA-only after an unrelated `if`.
        let src = "if DEBUG:\n    a = 1\nelif not is_rocm() and FAST:\n    b = 2\n";
        assert_eq!(ranges(src), vec!["b = 2", "FAST"]);
        // Parenthesised and nested (`(A or B)` is evaluated only on CUDA too).
        let src = "x = 1 if (not HIP_BUILD and (A or B)) else 2\n";
        assert_eq!(ranges(src), vec!["1", "(A or B)"]);
        let tree = ts::parse(
            ts::Lang::Python,
            b"if torch.version.hip and X:\n    a = 1\n",
        )
        .unwrap();
        assert!(has_rocm_test(
            tree.root_node(),
            b"if torch.version.hip and X:\n    a = 1\n"
        ));
    }
}
