//! What a `setup.py` builds for each platform, read from the platform model
//! ([`super::platform`]): the source files only its CUDA arm compiles (flash-attention:
//! `csrc/flash_attn/src/*.cu` for CUDA, `csrc/flash_attn_ck/*.cpp` for ROCm) make the findings in
//! those sources' folders PASS, since the project's ROCm arm builds other code
//! ([`pass_cuda_only_sources`]); what its ROCm arm builds ([`rocm_build`]); and where
//! `torch.version.cuda` is only tested for being set ([`truthiness_tests`]).

use super::platform::{self, Model};
use super::python::dotted;
use super::ts;
use crate::finding::Finding;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use crate::registry::{FileCtx, RuleInfo};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use tree_sitter::Node;

rule!(CUDA_ONLY_EXTENSION, "HP834", NativeExtension, Remediation, Correctness,
    summary: "A `setup.py` builds a Python extension module only in an arm the ROCm build skips, and nothing the ROCm build reaches builds a module of that name.",
    why: "On ROCm the module does not exist: the feature it provides is compiled out. Its sources are not the ROCm build's (their per-line findings are PASS), so this is the one place that says so. Code that imports the module outside a `try`/`except ImportError` fails at run time there (RUNTIME); otherwise the feature is silently absent (CORRECTNESS).",
    bad: "if CUDA_VERSION:\n    extensions.append(CUDAExtension(\"awq_ext\", [\"awq_ext/gemm.cu\"]))",
    good: "build `awq_ext` from hipified sources in the ROCm arm as well, or document it as CUDA-only",
    fix: "Port the module's sources (hipify them) and build it in the ROCm arm too, or document the feature as CUDA-only (and guard its imports).",
    refs: ["https://pytorch.org/docs/stable/cpp_extension.html"],
);

rule!(CUDA_HOME_ARM, "HP835", NativeExtension, Remediation, Correctness,
    summary: "A `setup.py` picks its GPU build by `CUDA_HOME` alone: the ROCm build takes the other arm.",
    why: "PyTorch's `torch.utils.cpp_extension.CUDA_HOME` is None on a ROCm machine without a CUDA toolkit (`ROCM_HOME` is set instead), so `torch.cuda.is_available() and CUDA_HOME is not None` is false there. Where the other arm raises or exits, `pip install` fails (INSTALL); otherwise the extension silently builds without what the CUDA arm adds (`CUDAExtension`, the `.cu` sources, a `WITH_CUDA` macro): CPU-only on ROCm (CORRECTNESS).",
    bad: "if torch.cuda.is_available() and CUDA_HOME is not None:\n    extension = CUDAExtension\n    sources += source_cuda\nelse:\n    raise NotImplementedError(\"Cuda is not available\")",
    good: "if torch.cuda.is_available() and (CUDA_HOME is not None or ROCM_HOME is not None):",
    fix: "Accept ROCm in the test: `(CUDA_HOME is not None or ROCM_HOME is not None)`, `IS_HIP_EXTENSION` or `torch.version.hip` (all from PyTorch); `CUDAExtension` hipifies the CUDA sources on ROCm.",
    refs: ["https://pytorch.org/docs/stable/cpp_extension.html", "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"],
);

pub const RULES: &[&RuleInfo] = &[&CUDA_ONLY_EXTENSION, &CUDA_HOME_ARM];

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
    let model = Model::of(root, src);
    let arms: Vec<Range<usize>> = model.rocm_only().iter().map(|(r, _)| r.clone()).collect();
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
/// those named inside a CUDA-only arm (each with the arm's line and why the ROCm build skips it)
/// and all the others. Empty when the file does not test for ROCm.
pub fn build_sources(root: Node, src: &[u8]) -> (Vec<(String, String)>, Vec<String>) {
    let model = Model::of(root, src);
    if !model.branches() {
        return (Vec::new(), Vec::new());
    }
    let arms = model.rocm_dead();
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
        if let Some((a, why)) = arms.iter().find(|(a, _)| a.contains(&r.start)) {
            cuda.push((path, arm_why(n, a, why, src)));
        } else {
            other.push(path);
        }
    });
    (cuda, other)
}

/// Why the ROCm build skips the arm `arm` that holds `n`: the `if`/`elif` whose test is false
/// there, with its line (`` `if CUDA_VERSION:` at line 171 ``), else the model's reason with the
/// arm's line.
fn arm_why(n: Node, arm: &Range<usize>, why: &str, src: &[u8]) -> String {
    let line = |b: usize| src[..b].iter().filter(|c| **c == b'\n').count() + 1;
    match arm_test(n, arm) {
        Some((p, c)) => format!(
            "`{} {}:` at line {} is false on ROCm",
            keyword(p),
            ts::text(c, src),
            line(p.start_byte())
        ),
        None => format!("line {}: {why}", line(arm.start)),
    }
}

/// The `if`/`elif` (and its condition) whose body is the arm `arm` that holds `n`.
fn arm_test<'t>(n: Node<'t>, arm: &Range<usize>) -> Option<(Node<'t>, Node<'t>)> {
    let mut at = n;
    while let Some(p) = at.parent() {
        at = p;
        if !matches!(p.node_kind(), K::IfStatement | K::ElifClause) {
            continue;
        }
        let body = p.field(F::Consequence).map(|b| b.byte_range());
        if body.as_ref() != Some(arm) && p.byte_range() != *arm {
            continue;
        }
        return p.field(F::Condition).map(|c| (p, c));
    }
    None
}

fn keyword(p: Node) -> &'static str {
    if p.node_kind() == K::IfStatement {
        "if"
    } else {
        "elif"
    }
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
            K::Identifier => platform::predicate::assigned_value(a, src)
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

/// Folders (relative to the report root, `/`-separated) holding only sources that a `setup.py`
/// builds in its CUDA arm, each with the setup.py that says so and why (its first source's arm).
pub fn cuda_only_folders(setups: &[(String, Vec<u8>)]) -> Vec<(String, String, String)> {
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
        let mut dirs: Vec<String> = cuda.iter().map(|(p, _)| dir(p)).collect();
        dirs.sort();
        dirs.dedup();
        for d in dirs {
            // A folder the ROCm arm (or an unconditional list) also builds from, in it or in a
            // folder below it, is shared.
            let shared = other_dirs.iter().any(|o| o.starts_with(d.as_str()));
            if !shared && d != base {
                let why = cuda
                    .iter()
                    .find(|(p, _)| dir(p) == d)
                    .map_or(String::new(), |(_, w)| w.clone());
                out.push((d, rel.clone(), why));
            }
        }
    }
    out
}

/// The source files (relative to the report root) that a `setup.py` names only inside arms the
/// ROCm build skips (`if CUDA_VERSION:` with `CUDA_VERSION = os.getenv("CUDA_VERSION") or
/// torch.version.cuda`), each with why: the ROCm build does not compile them. A file also named
/// outside such an arm stays the ROCm build's.
pub fn cuda_only_files(setups: &[(String, Vec<u8>)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (rel, bytes) in setups {
        let Some(tree) = ts::parse(ts::Lang::Python, bytes) else {
            continue;
        };
        let (cuda, other) = build_sources(tree.root_node(), bytes);
        let base = rel
            .rsplit_once('/')
            .map_or(String::new(), |(d, _)| format!("{d}/"));
        for (p, why) in cuda {
            if other.contains(&p)
                || out
                    .iter()
                    .any(|(o, _): &(String, String)| *o == base.clone() + &p)
            {
                continue;
            }
            out.push((
                format!("{base}{p}"),
                format!("listed only in a CUDA arm of {rel} ({why})"),
            ));
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
        if let Some((_, setup, why)) = folders
            .iter()
            .find(|(d, _, _)| f.path.starts_with(d.as_str()))
        {
            f.status = crate::gate::Status::Pass;
            f.message.push_str(&format!(
                " (built only by a CUDA arm of `{setup}` ({why}): the ROCm build does not compile this folder)"
            ));
        }
    }
}

/// The calls that build a Python extension module (`setuptools.Extension`,
/// `torch.utils.cpp_extension.CUDAExtension`/`CppExtension`).
const EXTENSION_CALLS: &[&str] = &["Extension", "CUDAExtension", "CppExtension"];

pub(crate) fn is_source(text: &str) -> bool {
    SOURCE_EXTS.iter().any(|e| text.ends_with(e)) && !text.contains(char::is_whitespace)
}

/// An extension-building call: the module it builds (`None` unless a plain string literal, first
/// argument or `name=`) and how many source files it names.
fn extension_call(n: Node, src: &[u8]) -> Option<(Option<String>, usize)> {
    if n.node_kind() != K::Call {
        return None;
    }
    let f = dotted(n.field(F::Function)?, src)?;
    if !EXTENSION_CALLS.contains(&f.rsplit('.').next()?) {
        return None;
    }
    let args = n.field(F::Arguments)?;
    let mut name = None;
    for (i, a) in ts::named_children(args).into_iter().enumerate() {
        if a.node_kind() == K::KeywordArgument {
            if a.field(F::Name).map(|k| ts::text(k, src)) == Some("name") {
                name = a.field(F::Value);
            }
        } else if i == 0 {
            name = Some(a);
        }
    }
    let name = name
        .and_then(|v| super::python::string(v, src))
        .map(|(t, _)| t)
        .filter(|t| {
            !t.is_empty()
                && t.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        });
    let mut sources = 0;
    ts::each(args, &mut |s| {
        if super::python::string(s, src).is_some_and(|(t, _)| is_source(&t)) {
            sources += 1;
        }
    });
    Some((name, sources))
}

/// Extensions that a `setup.py` arm the ROCm build skips builds, grouped by that arm.
struct SkippedArm {
    setup: String,
    /// The `if`/`elif` header (else the arm's start), and why the ROCm build skips it.
    header: Range<usize>,
    why: String,
    exts: Vec<(String, usize)>,
}

/// Findings (HP834) for extension modules that `setup.py` files build only in arms the ROCm build
/// skips (`if CUDA_VERSION: extensions.append(CUDAExtension("awq_ext", [...]))`) while no call
/// the ROCm build reaches, in any of them, builds a module of that name: one per arm, naming the
/// modules. `py` gives the project's Python files (read only when there is such a module); a
/// module one of them imports outside a `try`/`except ImportError` makes the finding RUNTIME.
pub fn extensions_rocm_leaves_out(
    setups: &[(String, Vec<u8>)],
    py: &dyn Fn() -> Vec<(String, Vec<u8>)>,
) -> Vec<Finding> {
    let mut arms: Vec<SkippedArm> = Vec::new();
    let mut built = BTreeSet::new();
    for (rel, bytes) in setups {
        let Some(tree) = ts::parse(ts::Lang::Python, bytes) else {
            continue;
        };
        let model = Model::of(tree.root_node(), bytes);
        let dead = if model.branches() {
            model.rocm_dead()
        } else {
            &[]
        };
        let mut mine: BTreeMap<usize, SkippedArm> = BTreeMap::new();
        // A module the ROCm build reaches under a name we cannot read may be any of them.
        let mut opaque = false;
        ts::each(tree.root_node(), &mut |n| {
            let Some((name, sources)) = extension_call(n, bytes) else {
                return;
            };
            let Some((arm, why)) = dead.iter().find(|(a, _)| a.contains(&n.start_byte())) else {
                match name {
                    Some(name) => {
                        built.insert(name);
                    }
                    None => opaque = true,
                }
                return;
            };
            let Some(name) = name else {
                return;
            };
            let header = match arm_test(n, arm) {
                Some((p, c)) => p.start_byte()..c.end_byte(),
                None => {
                    let end = bytes[arm.start..]
                        .iter()
                        .position(|b| *b == b'\n')
                        .map_or(arm.end, |i| arm.start + i);
                    arm.start..end
                }
            };
            let a = mine.entry(header.start).or_insert_with(|| SkippedArm {
                setup: rel.clone(),
                header,
                why: arm_why(n, arm, why, bytes),
                exts: Vec::new(),
            });
            if !a.exts.iter().any(|(e, _)| *e == name) {
                a.exts.push((name, sources));
            }
        });
        if !opaque {
            arms.extend(mine.into_values());
        }
    }
    for a in arms.iter_mut() {
        a.exts.retain(|(e, _)| !built.contains(e));
    }
    arms.retain(|a| !a.exts.is_empty());
    if arms.is_empty() {
        return Vec::new();
    }
    let files = py();
    let mut out = Vec::new();
    for a in arms {
        let Some((_, bytes)) = setups.iter().find(|(r, _)| *r == a.setup) else {
            continue;
        };
        let names: Vec<String> = a.exts.iter().map(|(e, _)| format!("`{e}`")).collect();
        let listed: Vec<String> = a
            .exts
            .iter()
            .map(|(e, n)| match n {
                0 => format!("`{e}`"),
                1 => format!("`{e}` (1 source)"),
                n => format!("`{e}` ({n} sources)"),
            })
            .collect();
        let importer = a.exts.iter().find_map(|(e, _)| {
            files.iter().find_map(|(rel, b)| {
                unguarded_import(b, e).map(|line| format!("`{rel}:{line}` imports `{e}`"))
            })
        });
        let (one, it) = if a.exts.len() == 1 {
            ("this module does", "it")
        } else {
            ("these modules do", "them")
        };
        let effect = match &importer {
            Some(i) => format!("{i} outside a `try`/`except ImportError`, which fails there"),
            None => {
                format!("nothing imports {it} unguarded, so the feature is silently absent there")
            }
        };
        let message = format!(
            "In `{}`, {}, so the ROCm build leaves out {}: {one} not exist on ROCm; {effect}. Port the sources (hipify them) and build {it} in the ROCm arm, or document {it} as CUDA-only",
            a.setup,
            a.why,
            and_list(&listed),
        );
        let lines = crate::source::LineIndex::new(bytes);
        let ctx = FileCtx {
            path: &a.setup,
            src: bytes,
            lines: &lines,
        };
        let mut f = ctx.finding(
            &CUDA_ONLY_EXTENSION,
            a.header.clone(),
            message,
            Some(format!(
                "hipify the sources of {} and build {it} in the ROCm arm of `{}`, or document {it} as CUDA-only",
                and_list(&names),
                a.setup
            )),
        );
        if importer.is_some() {
            f.phase = crate::gate::Phase::Runtime;
        }
        out.push(f);
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The line of the first import of module `name` in a Python file (`import name`, `from name
/// import x`, `from pkg import mod` for `pkg.mod`, `importlib.import_module("name")`) that is not
/// inside the body of a `try` whose `except` catches `ImportError`.
fn unguarded_import(bytes: &[u8], name: &str) -> Option<usize> {
    let last = name.rsplit('.').next().unwrap_or(name);
    memchr::memmem::find(bytes, last.as_bytes())?;
    let tree = ts::parse(ts::Lang::Python, bytes)?;
    let is = |m: &str| m == name || m.strip_prefix(name).is_some_and(|r| r.starts_with('.'));
    let mut hit = None;
    ts::each(tree.root_node(), &mut |n| {
        if hit.is_some() {
            return;
        }
        let first_dotted = |x: Node| -> Option<String> {
            match x.node_kind() {
                K::DottedName => Some(ts::text(x, bytes).to_string()),
                K::AliasedImport => ts::named_children(x)
                    .first()
                    .filter(|d| d.node_kind() == K::DottedName)
                    .map(|d| ts::text(*d, bytes).to_string()),
                _ => None,
            }
        };
        let imports = match n.node_kind() {
            K::ImportStatement => ts::named_children(n)
                .into_iter()
                .filter_map(first_dotted)
                .any(|m| is(&m)),
            K::ImportFromStatement => {
                let kids = ts::named_children(n);
                match kids.first().and_then(|m| first_dotted(*m)) {
                    Some(m) => {
                        is(&m)
                            || kids[1..]
                                .iter()
                                .filter_map(|x| first_dotted(*x))
                                .any(|x| format!("{m}.{x}") == name)
                    }
                    None => false,
                }
            }
            K::Call => {
                let f = n.field(F::Function).and_then(|f| dotted(f, bytes));
                let dynamic = f
                    .as_deref()
                    .is_some_and(|f| f == "__import__" || f.ends_with("import_module"));
                dynamic
                    && n.field(F::Arguments)
                        .and_then(|a| ts::named_children(a).first().copied())
                        .and_then(|a| super::python::string(a, bytes))
                        .is_some_and(|(t, _)| t == name)
            }
            _ => false,
        };
        if imports && !import_guarded(n, bytes) {
            hit = Some(n.start_position().row + 1);
        }
    });
    hit
}

/// Whether `n` sits in the body of a `try` with an `except` that catches a failed import
/// (`ImportError`, `ModuleNotFoundError`, `Exception`, or a bare `except:`), or under an `if`
/// (`if MARLIN_AVAILABLE: import m`): then the import need not run on ROCm.
fn import_guarded(n: Node, src: &[u8]) -> bool {
    let mut at = n;
    while let Some(p) = at.parent() {
        if p.node_kind() == K::IfStatement {
            return true;
        }
        if p.node_kind() == K::TryStatement
            && p.field(F::Body).map(|b| b.id()) == Some(at.id())
            && ts::named_children(p).into_iter().any(|c| {
                if c.node_kind() != K::ExceptClause {
                    return false;
                }
                let caught: Vec<Node> = ts::named_children(c)
                    .into_iter()
                    .filter(|x| x.node_kind() != K::Block)
                    .collect();
                caught.is_empty()
                    || caught.iter().any(|x| {
                        let t = ts::text(*x, src);
                        t.contains("ImportError")
                            || t.contains("ModuleNotFoundError")
                            || t.contains("Exception")
                    })
            })
        {
            return true;
        }
        at = p;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(setups: &[(String, Vec<u8>)]) -> Vec<(String, String)> {
        cuda_only_folders(setups)
            .into_iter()
            .map(|(d, s, _)| (d, s))
            .collect()
    }

    #[test]
    fn sources_only_the_cuda_arm_builds() {
        // flash-attention's setup.py, shortened.
        let src = "IS_ROCM = IS_HIP_EXTENSION\nif not SKIP_CUDA_BUILD and not IS_ROCM:\n    ext_modules.append(CUDAExtension(sources=[\"csrc/flash_attn/flash_api.cpp\", \"csrc/flash_attn/src/flash_fwd_hdim32_fp16_sm80.cu\"]))\nelif not SKIP_CUDA_BUILD and IS_ROCM:\n    sources = [\"csrc/flash_attn_ck/flash_api.cpp\", \"csrc/shared/common.cu\"]\nextra = [\"csrc/shared/x.cu\"]\n";
        let setups = vec![("setup.py".to_string(), src.as_bytes().to_vec())];
        assert_eq!(
            folders(&setups),
            vec![
                ("csrc/flash_attn/".to_string(), "setup.py".to_string()),
                ("csrc/flash_attn/src/".to_string(), "setup.py".to_string()),
            ]
        );
        // The same setup.py in a sub-package: folders are relative to it.
        let setups = vec![("pkg/setup.py".to_string(), src.as_bytes().to_vec())];
        assert_eq!(folders(&setups)[1].0, "pkg/csrc/flash_attn/src/");
        // No ROCm test in the file: nothing is CUDA-only.
        let plain = "ext_modules.append(CUDAExtension(sources=[\"csrc/a/k.cu\"]))\n";
        assert!(folders(&[("setup.py".into(), plain.as_bytes().to_vec())]).is_empty());
    }

    /// torchao's setup.py: the mxfp8 sources are named through `os.path.join` of variables, and
    /// built only `if use_cuda:` (`use_cuda = torch.version.cuda and CUDA_HOME is not None`).
    #[test]
    fn joined_source_paths_resolve_to_their_folder() {
        let src = "import os\ndef get_extensions():\n    this_dir = os.path.dirname(os.path.abspath(__file__))\n    extensions_dir = os.path.join(this_dir, \"pkg\", \"csrc\")\n    mx_dir = os.path.join(extensions_dir, \"cuda\", \"mx_kernels\")\n    use_cuda = torch.version.cuda and CUDA_HOME is not None\n    use_rocm = torch.version.hip and ROCM_HOME is not None\n    sources = [os.path.join(extensions_dir, \"ops.cpp\")]\n    if use_cuda:\n        mx = [os.path.join(mx_dir, \"mxfp8_cuda.cu\"), os.path.join(unknown(), mx_dir, \"x.cu\")]\n        other = [os.path.join(this_dir, get(), \"y.cu\")]\n";
        let setups = vec![("setup.py".to_string(), src.as_bytes().to_vec())];
        assert_eq!(
            folders(&setups),
            vec![(
                "pkg/csrc/cuda/mx_kernels/".to_string(),
                "setup.py".to_string()
            )]
        );
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        let (cuda, other) = build_sources(tree.root_node(), src.as_bytes());
        // An unknown argument after the first: the bare file name, as before.
        let cuda: Vec<&str> = cuda.iter().map(|(p, _)| p.as_str()).collect();
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

    /// A name assigned from a platform test (`CUDA_VERSION = os.getenv("CUDA_VERSION") or
    /// torch.version.cuda`) guards extensions with no ROCm arm: their sources are not the ROCm
    /// build's, unless also named outside the arm.
    #[test]
    fn sources_under_a_name_for_the_cuda_build() {
        let src = "CUDA_VERSION = os.getenv(\"CUDA_VERSION\", None) or torch.version.cuda\nROCM_VERSION = torch.version.hip\nexts = []\nif CUDA_VERSION:\n    exts.append(CUDAExtension(\"a_ext\", [\"ext/a.cpp\", \"ext/q/k.cu\", \"ext/shared.cu\"]))\nexts.append(CUDAExtension(\"b_ext\", [\"ext/b/b.cpp\", \"ext/shared.cu\"]))\n";
        let setups = vec![("setup.py".to_string(), src.as_bytes().to_vec())];
        let files = cuda_only_files(&setups);
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["ext/a.cpp", "ext/q/k.cu"]);
        assert!(
            files[0].1.contains("line 4") && files[0].1.contains("CUDA_VERSION"),
            "{}",
            files[0].1
        );
        // `ext/` also holds a folder the ROCm build compiles (`ext/b/`): only `ext/q/` is CUDA's.
        assert_eq!(
            folders(&setups),
            vec![("ext/q/".to_string(), "setup.py".to_string())]
        );
        // Twins: a condition either build takes, or a name assigned from something else.
        for cond in ["CUDA_VERSION or ROCM_VERSION", "WITH_KERNELS"] {
            let twin = src
                .replace("if CUDA_VERSION:", &format!("if {cond}:"))
                .replace("ROCM_VERSION = torch.version.hip\n", "ROCM_VERSION = torch.version.hip\nWITH_KERNELS = os.getenv(\"K\") or flag\nif ROCM_VERSION:\n    pass\n");
            let setups = vec![("setup.py".to_string(), twin.into_bytes())];
            assert!(cuda_only_files(&setups).is_empty(), "{cond}");
        }
    }

    fn left_out(setup: &str, py: &[(&str, &str)]) -> Vec<Finding> {
        let setups = vec![("setup.py".to_string(), setup.as_bytes().to_vec())];
        let py: Vec<(String, Vec<u8>)> = py
            .iter()
            .map(|(r, b)| (r.to_string(), b.as_bytes().to_vec()))
            .collect();
        extensions_rocm_leaves_out(&setups, &|| py.clone())
    }

    const CUDA_ARM: &str = "CUDA_VERSION = os.getenv(\"CUDA_VERSION\", None) or torch.version.cuda\nROCM_VERSION = torch.version.hip\nexts = []\nif CUDA_VERSION:\n    exts.append(CUDAExtension(\"a_ext\", [\"ext/a.cpp\", \"ext/a.cu\"]))\n    exts.append(CUDAExtension(name=\"v2_ext\", sources=[\"ext/v2.cu\"]))\nexts.append(CUDAExtension(\"b_ext\", [\"ext/b/b.cu\"]))\n";

    /// Extensions built only in an arm the ROCm build skips: one finding at the condition,
    /// naming them; RUNTIME when a module imports one unguarded, else CORRECTNESS.
    #[test]
    fn extensions_only_a_cuda_arm_builds() {
        let got = left_out(CUDA_ARM, &[("pkg/ops.py", "import torch\nimport a_ext\n")]);
        assert_eq!(got.len(), 1);
        let f = &got[0];
        assert_eq!(
            (f.rule.as_str(), f.path.as_str(), f.line),
            ("HP834", "setup.py", 4)
        );
        assert_eq!(f.status, crate::gate::Status::Remediation);
        assert_eq!(f.phase, crate::gate::Phase::Runtime);
        assert!(
            f.message.contains("`if CUDA_VERSION:` at line 4")
                && f.message
                    .contains("`a_ext` (2 sources) and `v2_ext` (1 source)")
                && f.message.contains("`pkg/ops.py:2` imports `a_ext`")
                && !f.message.contains("b_ext"),
            "{}",
            f.message
        );
        for py in [
            "from a_ext import gemm\n",
            "def f():\n    return importlib.import_module(\"v2_ext\")\n",
        ] {
            let got = left_out(CUDA_ARM, &[("m.py", py)]);
            assert_eq!(got[0].phase, crate::gate::Phase::Runtime, "{py}");
        }
        // A dotted module name imported from its package.
        let dotted = CUDA_ARM.replace("\"a_ext\"", "\"pkg.a_ext\"");
        let got = left_out(&dotted, &[("m.py", "from pkg import a_ext\n")]);
        assert_eq!(got[0].phase, crate::gate::Phase::Runtime);
        // Nothing imports them: the feature is silently absent.
        let got = left_out(CUDA_ARM, &[("m.py", "import b_ext\n")]);
        assert_eq!(got[0].phase, crate::gate::Phase::Correctness);
        assert!(
            got[0].message.contains("silently absent"),
            "{}",
            got[0].message
        );
    }

    #[test]
    fn extensions_the_rocm_build_also_builds_or_imports_it_guards() {
        // Guarded imports: the module may be missing.
        for py in [
            "try:\n    import a_ext\nexcept ImportError:\n    a_ext = None\n",
            "try:\n    from a_ext import f\nexcept (ModuleNotFoundError, OSError):\n    pass\n",
            "if HAVE_KERNELS:\n    import a_ext\n",
        ] {
            let got = left_out(CUDA_ARM, &[("m.py", py)]);
            assert_eq!(got[0].phase, crate::gate::Phase::Correctness, "{py}");
        }
        // `except ValueError` does not catch a failed import.
        let py = "try:\n    import a_ext\nexcept ValueError:\n    pass\n";
        assert_eq!(
            left_out(CUDA_ARM, &[("m.py", py)])[0].phase,
            crate::gate::Phase::Runtime
        );
        // A name the ROCm build also builds (outside the arm) is not left out.
        let both = CUDA_ARM.replace("\"b_ext\"", "\"a_ext\"");
        let got = left_out(&both, &[]);
        assert_eq!(got.len(), 1);
        assert!(!got[0].message.contains("a_ext"), "{}", got[0].message);
        let all = format!("{both}exts.append(CUDAExtension(\"v2_ext\", [\"x.cu\"]))\n");
        assert!(left_out(&all, &[("m.py", "import a_ext\n")]).is_empty());
        // The ROCm arm rebuilds the same module from other sources.
        let rocm = "IS_ROCM = IS_HIP_EXTENSION\nif IS_ROCM:\n    ext = CUDAExtension(\"m_cuda\", [\"hip/a.hip\"])\nelse:\n    ext = CUDAExtension(\"m_cuda\", [\"cuda/a.cu\"])\n";
        assert!(left_out(rocm, &[("m.py", "import m_cuda\n")]).is_empty());
        // Its twin: the ROCm arm builds another module.
        let other = rocm.replacen("\"m_cuda\"", "\"m_hip\"", 1);
        let got = left_out(&other, &[("m.py", "import m_cuda\n")]);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].phase, crate::gate::Phase::Runtime);
        // A module built under a name we cannot read may be any of them.
        let opaque = format!("{CUDA_ARM}exts.append(CUDAExtension(name, [\"x.cu\"]))\n");
        assert!(left_out(&opaque, &[]).is_empty());
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
}
