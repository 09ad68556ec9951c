//! What a Python condition is on each build: `torch.version.hip`, `torch.version.cuda` (None on
//! ROCm), `IS_HIP_EXTENSION`, `ROCM_HOME`, `CUDA_HOME` (set on CUDA, unknown on ROCm: ROCm
//! PyTorch finds a CUDA toolkit only when one is installed), a user override such as
//! `os.getenv("FORCE_CUDA", "0") == "1"` (false on a ROCm build: nobody forces CUDA there), names
//! and helpers assigned from them (`IS_ROCM = torch.version.hip is not None`, `def is_hip():
//! return torch.version.hip is not None`), through `not`, `and`, `or`, `is None` and `==` on
//! platform names. Three-valued: each build gets `Some(true)`, `Some(false)` or `None` (depends
//! on something else), so `torch.cuda.is_available() and torch.version.cuda` is false on ROCm
//! and unknown on CUDA. The model ([`super::Model`]) asks this, nothing else reads conditions.
//!
//! The operating system too: the ROCm builds this tool targets run on Linux, so
//! `sys.platform == "win32"`, `sys.platform.startswith("darwin")`, `os.name == "nt"`,
//! `platform.system() == "Windows"` (and names assigned from them, `IS_WINDOWS = …`) are false on
//! the ROCm build and unknown on CUDA (CUDA builds run on Windows too); `sys.platform ==
//! "linux"` is true there. Such a value carries the operating system it tests ([`Val::os`]), so
//! the model can say why an arm is not the ROCm build's.

use crate::inventory::python::{dotted, string};
use crate::inventory::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Not;
use tree_sitter::Node;

/// A build of the project.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Rocm,
    Cuda,
}

/// What a condition (or a decorator's "the code runs") is on each build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Val {
    pub rocm: Option<bool>,
    pub cuda: Option<bool>,
    /// A test that tells the two builds apart (`torch.version.hip`, `IS_ROCM`) took part; a
    /// `CUDA_HOME` or `FORCE_CUDA` test alone does not branch for ROCm.
    pub names_platform: bool,
    /// The operating system an OS test took part (`Windows`, `macOS`, `Linux`): the ROCm
    /// build's value then comes from its target OS, Linux.
    pub os: Option<&'static str>,
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

impl Not for Val {
    type Output = Val;
    fn not(self) -> Val {
        Val {
            rocm: self.rocm.map(|v| !v),
            cuda: self.cuda.map(|v| !v),
            ..self
        }
    }
}

impl Val {
    pub const UNKNOWN: Val = Val {
        rocm: None,
        cuda: None,
        names_platform: false,
        os: None,
    };
    /// True exactly on the ROCm build.
    pub const ROCM: Val = Val {
        rocm: Some(true),
        cuda: Some(false),
        names_platform: true,
        os: None,
    };
    /// `CUDA_HOME`: set on a CUDA build, unknown on ROCm.
    const CUDA_TOOLKIT: Val = Val {
        rocm: None,
        cuda: Some(true),
        names_platform: false,
        os: None,
    };
    /// A user forcing the CUDA build (`FORCE_CUDA=1`): never on a ROCm build.
    const FORCED_CUDA: Val = Val {
        rocm: Some(false),
        cuda: None,
        names_platform: false,
        os: None,
    };
    pub fn and(self, o: Val) -> Val {
        let rocm = and3(self.rocm, o.rocm);
        // The OS test is the reason only where it decides: `!= "Darwin" and FORCE_CUDA` is
        // false on ROCm because of the second operand, not the OS.
        let os = match rocm {
            Some(false) if self.rocm == Some(false) => self.os,
            Some(false) => o.os,
            _ => self.os.or(o.os),
        };
        Val {
            rocm,
            cuda: and3(self.cuda, o.cuda),
            names_platform: self.names_platform || o.names_platform,
            os,
        }
    }
    pub fn or(self, o: Val) -> Val {
        Val {
            rocm: or3(self.rocm, o.rocm),
            cuda: or3(self.cuda, o.cuda),
            names_platform: self.names_platform || o.names_platform,
            os: self.os.or(o.os),
        }
    }
    pub fn on(self, side: Side) -> Option<bool> {
        match side {
            Side::Rocm => self.rocm,
            Side::Cuda => self.cuda,
        }
    }
    /// True on ROCm and false on CUDA: the condition of a project's ROCm arm.
    pub fn exactly_rocm(self) -> bool {
        self.rocm == Some(true) && self.cuda == Some(false)
    }
    /// A test of the operating system: true on the ROCm build when `os` is Linux, false
    /// otherwise; unknown on CUDA.
    fn os_is(os: &'static str) -> Val {
        Val {
            rocm: Some(os == "Linux"),
            cuda: None,
            names_platform: false,
            os: Some(os),
        }
    }
}

/// The [`Val::os`] of a probe for NVIDIA's `nvidia-smi` (`shutil.which("nvidia-smi")`): not an
/// operating system, a machine without NVIDIA's driver tools, as every AMD node is.
pub const NVIDIA_SMI: &str = "nvidia-smi";

/// The operating system a platform string names, as `sys.platform` (`win32`, `cygwin`,
/// `darwin`, `linux`), `os.name` (`nt`, `posix`) or `platform.system()` (`Windows`, `Darwin`,
/// `Linux`) spell it. `posix` counts as Linux: it holds there.
fn os_named(val: &str, prefix: bool) -> Option<&'static str> {
    let v = val.to_ascii_lowercase();
    let is = |w: &str| {
        if prefix {
            w.starts_with(v.as_str()) && !v.is_empty()
        } else {
            v == w
        }
    };
    if ["win32", "cygwin", "msys", "windows", "nt", "win"]
        .iter()
        .any(|w| is(w))
    {
        Some("Windows")
    } else if ["darwin", "macos", "mac"].iter().any(|w| is(w)) {
        Some("macOS")
    } else if ["linux", "posix", "linux2"].iter().any(|w| is(w)) {
        Some("Linux")
    } else {
        None
    }
}

/// Whether an expression reads the operating system: `sys.platform`, `os.name`,
/// `platform.system()`.
fn os_subject(n: Node, src: &[u8]) -> bool {
    match n.node_kind() {
        K::Call => {
            let args = n
                .field(F::Arguments)
                .map(ts::named_children)
                .unwrap_or_default();
            args.is_empty()
                && n.field(F::Function)
                    .and_then(|f| dotted(f, src))
                    .is_some_and(|f| matches!(f.as_str(), "platform.system" | "platform.platform"))
        }
        _ => dotted(n, src).is_some_and(|d| matches!(d.as_str(), "sys.platform" | "os.name")),
    }
}

/// Whether a dotted name or identifier names the ROCm/HIP side (`torch.version.hip`,
/// `IS_HIP_EXTENSION`, `HIP_BUILD`, `ROCM_HOME`, `is_rocm`).
pub fn rocm_name(d: &str) -> bool {
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

thread_local! {
    /// How deep [`eval`] follows names and helpers: a name defined by another name is followed
    /// a few steps.
    static DEPTH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
    /// Set by [`rocm_with_cuda_toolkit`]: whether the ROCm machine has a CUDA toolkit, which
    /// gives PyTorch's `CUDA_HOME` a value there.
    static TOOLKIT: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// What the condition `n` is on the ROCm build when that machine has a CUDA toolkit (`present`)
/// or not, as PyTorch's `torch.utils.cpp_extension.CUDA_HOME` sees it. PyTorch sets
/// `CUDA_HOME = _find_cuda_home() if torch.cuda._is_compiled() else None`, and
/// `_find_cuda_home()` returns env `CUDA_HOME` or `CUDA_PATH`, else the folder above `nvcc` on
/// the PATH, else `/usr/local/cuda` if it exists, else None (pytorch/pytorch
/// torch/utils/cpp_extension.py); on ROCm `torch.cuda._is_compiled()` holds and `ROCM_HOME` is
/// the set one. So on a ROCm machine without a CUDA toolkit `CUDA_HOME` is None: a condition
/// whose value there differs between the two (`torch.cuda.is_available() and CUDA_HOME is not
/// None`) is decided by the toolkit alone, not by the platform (`or ROCM_HOME is not None`,
/// `or torch.version.hip`, `IS_HIP_EXTENSION` settle it).
pub fn rocm_with_cuda_toolkit(n: Node, src: &[u8], present: bool) -> Option<bool> {
    let before = TOOLKIT.replace(Some(present));
    let v = eval(n, src).rocm;
    TOOLKIT.set(before);
    v
}

/// Whether the condition `n` reads PyTorch's `CUDA_HOME` (see [`rocm_with_cuda_toolkit`]).
pub fn reads_torch_cuda_home(n: Node, src: &[u8]) -> bool {
    let mut found = false;
    crate::parse::visit(n, &mut |x| {
        found |= torch_cuda_home(x, src);
        !found
    });
    found
}

/// `CUDA_HOME` as PyTorch computes it: `cpp_extension.CUDA_HOME` (any prefix), or the name
/// imported from `torch.utils.cpp_extension` in a file that never assigns it (a project's own
/// `CUDA_HOME = os.getenv("CUDA_HOME", "/usr/local/cuda")` is set on every machine).
fn torch_cuda_home(n: Node, src: &[u8]) -> bool {
    match n.node_kind() {
        K::Attribute => dotted(n, src).is_some_and(|d| d.ends_with("cpp_extension.CUDA_HOME")),
        K::Identifier if ts::text(n, src) == "CUDA_HOME" => {
            let Some(p) = n.parent() else { return false };
            if matches!(
                p.node_kind(),
                K::Attribute | K::DottedName | K::ImportFromStatement | K::AliasedImport
            ) || (p.node_kind() == K::KeywordArgument && p.field(F::Name) == Some(n))
            {
                return false;
            }
            let mut root = n;
            while let Some(p) = root.parent() {
                root = p;
            }
            let (mut imported, mut assigned) = (false, false);
            crate::parse::visit(root, &mut |x| {
                match x.node_kind() {
                    K::ImportFromStatement => {
                        let t = ts::text(x, src);
                        let module = x.field(F::ModuleName).map(|m| ts::text(m, src));
                        if module.is_some_and(|m| m.ends_with("cpp_extension"))
                            && (mentions(t, "CUDA_HOME") || t.trim_end().ends_with('*'))
                        {
                            imported = true;
                        }
                        return false;
                    }
                    K::Assignment | K::AugmentedAssignment
                        if x.field(F::Left)
                            .is_some_and(|l| mentions(ts::text(l, src), "CUDA_HOME")) =>
                    {
                        assigned = true;
                    }
                    _ => {}
                }
                true
            });
            imported && !assigned
        }
        _ => false,
    }
}

/// `word` as a whole word (letters, digits and `_`) in `text`.
fn mentions(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let w = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !w(text[..i].chars().next_back()) && !w(text[i + word.len()..].chars().next())
    })
}

fn nested(f: impl FnOnce() -> Val) -> Val {
    if DEPTH.get() >= 4 {
        return Val::UNKNOWN;
    }
    DEPTH.set(DEPTH.get() + 1);
    let v = f();
    DEPTH.set(DEPTH.get() - 1);
    v
}

/// What the condition `n` is on each build.
pub fn eval(n: Node, src: &[u8]) -> Val {
    match n.node_kind() {
        K::ParenthesizedExpression => ts::named_children(n)
            .into_iter()
            .next()
            .map_or(Val::UNKNOWN, |c| eval(c, src)),
        K::NotOperator => n
            .field(F::Argument)
            .map_or(Val::UNKNOWN, |a| eval(a, src).not()),
        K::BooleanOperator => {
            let (Some(l), Some(r)) = (n.field(F::Left), n.field(F::Right)) else {
                return Val::UNKNOWN;
            };
            match n.field(F::Operator).map(|o| ts::text(o, src)) {
                Some("and") => eval(l, src).and(eval(r, src)),
                Some("or") => eval(l, src).or(eval(r, src)),
                _ => Val::UNKNOWN,
            }
        }
        K::Identifier | K::Attribute
            if TOOLKIT.get().is_some()
                && ts::text(n, src).ends_with("CUDA_HOME")
                && torch_cuda_home(n, src) =>
        {
            Val {
                rocm: TOOLKIT.get(),
                ..Val::CUDA_TOOLKIT
            }
        }
        K::Identifier => {
            // A parameter of the enclosing function holds what its caller passes, whatever its
            // words say: FBGEMM's `supports_float8_fnuz(throw_on_hip_incompatibility=True)`
            // is a choice of the caller, not a test of the platform.
            if is_parameter(n, src) {
                return Val::UNKNOWN;
            }
            // A name assigned once from a platform test means that test, whatever its words
            // say (`is_not_hip = torch.version.hip is None` is the CUDA side).
            if let Some(rhs) = assigned_value(n, src) {
                let v = nested(|| eval(rhs, src));
                if v.rocm.is_some() || v.cuda.is_some() {
                    return v;
                }
            }
            name(ts::text(n, src))
        }
        K::Attribute => dotted(n, src).map_or(Val::UNKNOWN, |d| name(&d)),
        K::Call if unset_cuda_version(n, src) => Val::FORCED_CUDA,
        K::Call => call(n, src),
        K::ComparisonOperator => comparison(n, src),
        _ => Val::UNKNOWN,
    }
}

/// Whether identifier `n` names a parameter of the function (or lambda) it is used in.
fn is_parameter(n: Node, src: &[u8]) -> bool {
    let want = ts::text(n, src);
    let mut cur = n.parent();
    while let Some(p) = cur {
        if matches!(p.node_kind(), K::FunctionDefinition | K::Lambda) {
            let Some(params) = p.field(F::Parameters) else {
                return false;
            };
            return ts::named_children(params).into_iter().any(|q| {
                let name = match q.node_kind() {
                    K::Identifier => Some(q),
                    K::DefaultParameter | K::TypedDefaultParameter => q.field(F::Name),
                    K::TypedParameter => q.named_child(0),
                    _ => None,
                };
                name.is_some_and(|x| ts::text(x, src) == want)
            });
        }
        cur = p.parent();
    }
    false
}

fn name(d: &str) -> Val {
    if d == "torch.version.cuda" {
        // Set only on CUDA builds of PyTorch.
        return Val::ROCM.not();
    }
    if d == "CUDA_HOME" || d.ends_with(".CUDA_HOME") {
        return Val::CUDA_TOOLKIT;
    }
    if rocm_name(d) {
        return Val::ROCM;
    }
    Val::UNKNOWN
}

fn call(n: Node, src: &[u8]) -> Val {
    let Some(f) = n.field(F::Function).and_then(|f| dotted(f, src)) else {
        return Val::UNKNOWN;
    };
    let args = n
        .field(F::Arguments)
        .map(ts::named_children)
        .unwrap_or_default();
    match f.as_str() {
        "bool" if args.len() == 1 => return eval(args[0], src),
        // `os.path.exists(CUDA_HOME)`: the toolkit's folder is there where `CUDA_HOME` is set
        // (asked only with or without a toolkit, see [`rocm_with_cuda_toolkit`]).
        "os.path.exists" | "os.path.isdir"
            if TOOLKIT.get().is_some()
                && args.len() == 1
                && ts::text(args[0], src).ends_with("CUDA_HOME") =>
        {
            return eval(args[0], src)
        }
        // `shutil.which("nvidia-smi")`: NVIDIA's tool is not installed on an AMD node.
        "shutil.which" | "which" | "find_executable" | "distutils.spawn.find_executable"
            if args.len() == 1 && string(args[0], src).is_some_and(|(v, _)| v == "nvidia-smi") =>
        {
            return Val {
                rocm: Some(false),
                cuda: None,
                names_platform: false,
                os: Some(NVIDIA_SMI),
            };
        }
        // `sys.platform.startswith("win")`
        "sys.platform.startswith" if args.len() == 1 => {
            return string(args[0], src)
                .and_then(|(v, _)| os_named(&v, true))
                .map_or(Val::UNKNOWN, Val::os_is);
        }
        "int" if args.len() == 1 => {
            return match env_read(args[0], src) {
                Some(k) if forces_cuda(&k) => Val::FORCED_CUDA,
                _ => Val::UNKNOWN,
            }
        }
        // `getattr(torch.version, "hip", None)`
        "getattr" if args.len() >= 2 => {
            let (Some((attr, _)), Some(obj)) = (string(args[1], src), dotted(args[0], src)) else {
                return Val::UNKNOWN;
            };
            return name(&format!("{obj}.{attr}"));
        }
        _ => {}
    }
    if !args.is_empty() {
        return Val::UNKNOWN;
    }
    // A helper of the file that returns a platform test (`def is_hip(): return ...`).
    if let Some(ret) = helper_return(n, &f, src) {
        let v = nested(|| eval(ret, src));
        if v.rocm.is_some() || v.cuda.is_some() {
            return v;
        }
    }
    if rocm_name(&f) {
        Val::ROCM
    } else {
        Val::UNKNOWN
    }
}

/// The returned expression of a module-level function `name` without parameters whose body is
/// one `return` (after an optional docstring).
fn helper_return<'t>(from: Node<'t>, name: &str, src: &[u8]) -> Option<Node<'t>> {
    let mut root = from;
    while let Some(p) = root.parent() {
        root = p;
    }
    let def = ts::named_children(root).into_iter().find(|d| {
        d.node_kind() == K::FunctionDefinition
            && d.field(F::Name).map(|x| ts::text(x, src)) == Some(name)
    })?;
    let params = def.child_by_field_name("parameters")?;
    if !ts::named_children(params).is_empty() {
        return None;
    }
    let body: Vec<Node> = ts::named_children(def.field(F::Body)?)
        .into_iter()
        .filter(|s| s.node_kind() != K::Comment)
        .filter(|s| {
            !(s.node_kind() == K::ExpressionStatement
                && ts::named_children(*s)
                    .first()
                    .is_some_and(|e| e.node_kind() == K::String))
        })
        .collect();
    match body.as_slice() {
        [r] if r.node_kind() == K::ReturnStatement => ts::named_children(*r).into_iter().next(),
        _ => None,
    }
}

/// The variable an environment read names: `os.getenv("K", ...)`, `os.environ.get("K")`,
/// `os.environ["K"]`.
pub fn env_read(n: Node, src: &[u8]) -> Option<String> {
    match n.node_kind() {
        K::Call => {
            let f = dotted(n.field(F::Function)?, src)?;
            if !matches!(
                f.as_str(),
                "os.getenv" | "getenv" | "os.environ.get" | "environ.get"
            ) {
                return None;
            }
            let first = ts::named_children(n.field(F::Arguments)?)
                .into_iter()
                .next()?;
            string(first, src).map(|(s, _)| s)
        }
        K::Subscript => {
            let v = dotted(n.field(F::Value)?, src)?;
            if !v.ends_with("environ") {
                return None;
            }
            string(n.field(F::Subscript)?, src).map(|(s, _)| s)
        }
        _ => None,
    }
}

/// What an environment read gives where the variable is unset: `Some(Some(default))` for a
/// literal default (`os.getenv("X", "1")`, `os.environ.get("X", default="1")`), `Some(None)`
/// for none (`os.getenv("X")`: None), `None` when not known (a non-literal default, or
/// `os.environ["X"]`, which raises).
fn env_default(n: Node, src: &[u8]) -> Option<Option<String>> {
    if n.node_kind() != K::Call {
        return None;
    }
    let args = ts::named_children(n.field(F::Arguments)?);
    let default = args.get(1).copied().map(|a| {
        if a.node_kind() == K::KeywordArgument {
            a.field(F::Value)
        } else {
            Some(a)
        }
    });
    match default {
        None => Some(None),
        Some(Some(d)) if d.node_kind() == K::None => Some(None),
        Some(Some(d)) => string(d, src).map(|(v, _)| Some(v)),
        Some(None) => None,
    }
}

/// `os.getenv("CUDA_VERSION")` (or with a `None`/`""` default) tested for being set: a CUDA
/// toolkit's version variable, which a ROCm machine does not set, so it is false there and
/// unknown on CUDA (`os.getenv("CUDA_VERSION") or torch.version.cuda` is then false on ROCm and
/// true on CUDA). A truthy default (`os.getenv("CUDA_VERSION", "12.1")`) says nothing.
fn unset_cuda_version(n: Node, src: &[u8]) -> bool {
    let Some(key) = env_read(n, src) else {
        return false;
    };
    let words: Vec<String> = key.split('_').map(|w| w.to_ascii_uppercase()).collect();
    if words.len() != 2 || words[0] != "CUDA" || !matches!(words[1].as_str(), "VERSION" | "VER") {
        return false;
    }
    let args = n
        .field(F::Arguments)
        .map(ts::named_children)
        .unwrap_or_default();
    match args.get(1) {
        None => true,
        Some(d) if d.node_kind() == K::None => true,
        Some(d) => string(*d, src).is_some_and(|(v, _)| v.is_empty()),
    }
}

/// An environment switch by which a user forces the CUDA build (`FORCE_CUDA`, `WITH_CUDA`,
/// `USE_CUDA`): a ROCm build never sets it.
fn forces_cuda(key: &str) -> bool {
    let words: Vec<String> = key.split('_').map(|w| w.to_ascii_uppercase()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    has("CUDA")
        && ["FORCE", "WITH", "USE", "ENABLE"].iter().any(|w| has(w))
        && !["ROCM", "HIP", "SKIP", "NO", "DISABLE"]
            .iter()
            .any(|w| has(w))
}

fn comparison(n: Node, src: &[u8]) -> Val {
    let kids = ts::children(n);
    if kids.len() != 3 && kids.len() != 4 {
        return Val::UNKNOWN;
    }
    let (left, right) = (kids[0], kids[kids.len() - 1]);
    let op: String = kids[1..kids.len() - 1]
        .iter()
        .map(|k| ts::text(*k, src))
        .collect::<Vec<_>>()
        .join(" ");
    let positive = match op.as_str() {
        "is not" | "!=" => false,
        "is" | "==" => true,
        _ => return Val::UNKNOWN,
    };
    let (subject, other) = if left.node_kind() == K::None || left.node_kind() == K::String {
        (right, left)
    } else {
        (left, right)
    };
    match other.node_kind() {
        K::None => {
            let v = eval(subject, src);
            if positive {
                v.not()
            } else {
                v
            }
        }
        K::String => {
            let Some((val, _)) = string(other, src) else {
                return Val::UNKNOWN;
            };
            if os_subject(subject, src) {
                let v = os_named(&val, false).map_or(Val::UNKNOWN, Val::os_is);
                return if positive { v } else { v.not() };
            }
            if env_read(subject, src).is_some_and(|k| forces_cuda(&k)) {
                // Nobody sets a CUDA-forcing variable on a ROCm machine: the read gives the
                // call's default (`os.getenv("WITH_CUDA", "1") != "0"` is true there), or None.
                if let Some(default) = env_default(subject, src) {
                    let equal = default.as_deref() == Some(val.as_str());
                    return Val {
                        rocm: Some(equal == positive),
                        ..Val::UNKNOWN
                    };
                }
                let truthy = matches!(
                    val.to_ascii_lowercase().as_str(),
                    "1" | "true" | "on" | "yes"
                );
                let falsy = matches!(
                    val.to_ascii_lowercase().as_str(),
                    "0" | "" | "false" | "off" | "no"
                );
                return match (truthy, falsy, positive) {
                    (true, _, true) | (_, true, false) => Val::FORCED_CUDA,
                    (true, _, false) | (_, true, true) => Val::FORCED_CUDA.not(),
                    _ => Val::UNKNOWN,
                };
            }
            let side = if rocm_name(&val) {
                Val::ROCM
            } else if cuda_word(&val) {
                Val::ROCM.not()
            } else {
                return Val::UNKNOWN;
            };
            let Some(subj) = dotted(subject, src) else {
                return Val::UNKNOWN;
            };
            let lower = subj.to_ascii_lowercase();
            // A torch device's type (`target_device.type != "cuda"`) is "cuda" on ROCm builds
            // of PyTorch too: it names no platform.
            if lower.ends_with(".type") || lower.contains("device") {
                return Val::UNKNOWN;
            }
            if !["target", "backend", "platform", "system"]
                .iter()
                .any(|w| lower.contains(w))
                && !rocm_name(&subj)
                && !platform_selector(subject, src)
            {
                return Val::UNKNOWN;
            }
            if positive {
                side
            } else {
                side.not()
            }
        }
        _ => Val::UNKNOWN,
    }
}

/// Whether a plain name is the module's platform selector: every module-level value it is
/// assigned (directly or in an `if` arm) is a string or `None`, one of them a ROCm word
/// (`SYSTEM = "rocm"` under `if torch.version.hip`, `"cuda"` in the `elif`).
fn platform_selector(n: Node, src: &[u8]) -> bool {
    if n.node_kind() != K::Identifier {
        return false;
    }
    let name = ts::text(n, src);
    let mut root = n;
    while let Some(p) = root.parent() {
        root = p;
    }
    let (mut rocm, mut other) = (false, false);
    crate::parse::visit(root, &mut |x| {
        if matches!(x.node_kind(), K::FunctionDefinition | K::ClassDefinition) {
            return false;
        }
        if x.node_kind() == K::Assignment
            && x.field(F::Left).map(|l| ts::text(l, src)) == Some(name)
        {
            match x.field(F::Right) {
                Some(r) if r.node_kind() == K::String => {
                    if string(r, src).is_some_and(|(v, _)| rocm_name(&v)) {
                        rocm = true;
                    }
                }
                Some(r) if r.node_kind() == K::None => {}
                Some(r) if r.node_kind() == K::ConditionalExpression => {
                    let strings = ts::named_children(r)
                        .into_iter()
                        .filter(|c| c.node_kind() == K::String)
                        .filter_map(|c| string(c, src));
                    for (v, _) in strings {
                        rocm |= rocm_name(&v);
                    }
                }
                _ => other = true,
            }
        }
        true
    });
    rocm && !other
}

/// The value a name is assigned exactly once, anywhere in the enclosing function's body (nested
/// blocks included, nested functions not), or else among the module's top-level statements.
pub fn assigned_value<'t>(n: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let name = ts::text(n, src);
    let is_it = |a: Node| {
        a.node_kind() == K::Assignment && a.field(F::Left).map(|l| ts::text(l, src)) == Some(name)
    };
    let mut root = n;
    let mut function_body = None;
    while let Some(p) = root.parent() {
        if function_body.is_none() && p.node_kind() == K::FunctionDefinition {
            function_body = p.field(F::Body);
        }
        root = p;
    }
    let mut rhs = Vec::new();
    if let Some(body) = function_body {
        crate::parse::visit(body, &mut |x| {
            if x.node_kind() == K::FunctionDefinition || x.node_kind() == K::ClassDefinition {
                return false;
            }
            if is_it(x) {
                rhs.extend(x.field(F::Right));
            }
            true
        });
    }
    if rhs.is_empty() {
        for st in ts::named_children(root) {
            for a in ts::named_children(st) {
                if is_it(a) {
                    rhs.extend(a.field(F::Right));
                }
            }
        }
    }
    (rhs.len() == 1).then(|| rhs[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of the last statement's expression (`x = <cond>` → `<cond>`).
    fn val(src: &str) -> Val {
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        let last = ts::named_children(tree.root_node()).pop().unwrap();
        let e = ts::named_children(last).pop().unwrap();
        let e = e.field(F::Right).unwrap_or(e);
        eval(e, src.as_bytes())
    }

    #[test]
    fn platform_atoms_and_their_negations() {
        assert_eq!(val("x = torch.version.hip"), Val::ROCM);
        assert_eq!(val("x = torch.version.cuda is None"), Val::ROCM);
        assert_eq!(val("x = not torch.version.cuda"), Val::ROCM);
        assert_eq!(val("x = torch.version.cuda is not None"), Val::ROCM.not());
        assert_eq!(val("x = IS_HIP_EXTENSION"), Val::ROCM);
        assert_eq!(val("x = BUILD_TARGET == \"rocm\""), Val::ROCM);
        assert_eq!(val("x = getattr(torch.version, \"hip\", None)"), Val::ROCM);
        // Not a platform test.
        assert_eq!(val("x = torch.cuda.is_available()"), Val::UNKNOWN);
        assert_eq!(val("x = mode == \"rocm\""), Val::UNKNOWN);
    }

    #[test]
    fn cuda_home_and_force_cuda_are_one_sided() {
        let v = val("x = CUDA_HOME is not None");
        assert_eq!(
            (v.rocm, v.cuda, v.names_platform),
            (None, Some(true), false)
        );
        let v = val("x = os.getenv(\"FORCE_CUDA\", \"0\") == \"1\"");
        assert_eq!((v.rocm, v.cuda), (Some(false), None));
        let v = val("x = os.environ.get(\"FORCE_CUDA\", \"0\") == \"0\"");
        assert_eq!((v.rocm, v.cuda), (Some(true), None));
        // Another variable, or one that skips the build: nothing said.
        assert_eq!(
            val("x = os.getenv(\"SKIP_CUDA_BUILD\") == \"1\""),
            Val::UNKNOWN
        );
        assert_eq!(val("x = os.getenv(\"MAX_JOBS\") == \"1\""), Val::UNKNOWN);
        // The setup.py arm before `elif torch.version.hip:`: false on ROCm whatever CUDA_HOME is.
        // A CUDA toolkit's version variable: a ROCm machine does not set it.
        let v = val("x = os.getenv(\"CUDA_VERSION\", None) or torch.version.cuda");
        assert_eq!((v.rocm, v.cuda), (Some(false), Some(true)));
        let src = "CUDA_VERSION = os.environ.get(\"CUDA_VERSION\") or torch.version.cuda\nx = CUDA_VERSION";
        assert_eq!(val(src).rocm, Some(false));
        // With a version as default, another variable, or another test: not decided on ROCm.
        let v = val("x = os.getenv(\"CUDA_VERSION\", \"12.1\") or torch.version.cuda");
        assert_eq!(v.rocm, None);
        assert_eq!(
            val("x = os.getenv(\"TORCH_VERSION\") or torch.version.cuda").rocm,
            None
        );
        assert_eq!(val("x = os.getenv(\"CUDA_VERSION\") == \"12\"").rocm, None);
        let src = "CUDA_VERSION = os.getenv(\"CUDA_VERSION\") or torch.version.cuda\nROCM_VERSION = torch.version.hip\nx = CUDA_VERSION or ROCM_VERSION";
        assert_eq!(val(src).rocm, Some(true));
        let v = val("x = (torch.cuda.is_available() and CUDA_HOME is not None and torch.version.cuda is not None) or os.getenv(\"FORCE_CUDA\", \"0\") == \"1\"");
        assert_eq!((v.rocm, v.cuda), (Some(false), None));
    }

    /// PyTorch's `CUDA_HOME` on a ROCm machine with and without a CUDA toolkit.
    #[test]
    fn cuda_home_with_and_without_a_toolkit() {
        let on_rocm = |src: &str| {
            let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
            let last = ts::named_children(tree.root_node()).pop().unwrap();
            let e = ts::named_children(last).pop().unwrap();
            let e = e.field(F::Right).unwrap_or(e);
            let b = src.as_bytes();
            (
                rocm_with_cuda_toolkit(e, b, true),
                rocm_with_cuda_toolkit(e, b, false),
                reads_torch_cuda_home(e, b),
            )
        };
        let imp = "from torch.utils.cpp_extension import CUDA_HOME\n";
        for (cond, want) in [
            (
                "torch.cuda.is_available() and CUDA_HOME is not None",
                (None, Some(false), true),
            ),
            ("CUDA_HOME is None", (Some(false), Some(true), true)),
            ("os.path.exists(CUDA_HOME)", (Some(true), Some(false), true)),
            // ROCm or-ed in: the toolkit decides nothing.
            (
                "CUDA_HOME is not None or ROCM_HOME is not None",
                (Some(true), Some(true), true),
            ),
            (
                "CUDA_HOME or torch.version.hip",
                (Some(true), Some(true), true),
            ),
        ] {
            assert_eq!(on_rocm(&format!("{imp}x = {cond}")), want, "{cond}");
        }
        // Spelled through the module, without the import.
        let v = on_rocm("x = torch.utils.cpp_extension.CUDA_HOME is not None");
        assert_eq!(v, (Some(true), Some(false), true));
        // Not PyTorch's: not imported from it, or assigned by the project (a default path).
        assert_eq!(on_rocm("x = CUDA_HOME is not None"), (None, None, false));
        let own = format!("{imp}CUDA_HOME = os.getenv(\"CUDA_HOME\", \"/usr/local/cuda\")\nx = CUDA_HOME is not None");
        assert_eq!(on_rocm(&own), (None, None, false));
        // The ordinary model is unchanged: unknown on ROCm, set on CUDA.
        let v = val(&format!("{imp}x = os.path.exists(CUDA_HOME)"));
        assert_eq!(v, Val::UNKNOWN);
    }

    #[test]
    fn helpers_and_names_stand_for_their_test() {
        let src = "def is_hip():\n    \"\"\"doc\"\"\"\n    return torch.version.hip is not None\nx = is_hip()";
        assert_eq!(val(src), Val::ROCM);
        // A helper with parameters, or with more than a return: its name's words decide.
        let src = "def is_hip(d):\n    return torch.version.hip is not None\nx = is_hip(0)";
        assert_eq!(val(src), Val::UNKNOWN);
        let src =
            "def cuda_ok():\n    log()\n    return torch.version.cuda is not None\nx = cuda_ok()";
        assert_eq!(val(src), Val::UNKNOWN);
        let src = "IS_NOT_HIP = torch.version.hip is None\nx = IS_NOT_HIP";
        assert_eq!(val(src), Val::ROCM.not());
    }

    #[test]
    fn and_or_are_three_valued() {
        let v = val("x = torch.version.hip and X");
        assert_eq!((v.rocm, v.cuda), (None, Some(false)));
        let v = val("x = cc != (9, 0) or torch.version.cuda is None");
        assert_eq!((v.rocm, v.cuda), (Some(true), None));
        let v = val("x = torch.version.cuda is None and torch.version.hip is None");
        assert_eq!((v.rocm, v.cuda), (Some(false), Some(false)));
    }
}
