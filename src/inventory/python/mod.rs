//! Python through tree-sitter-python. Only code is examined: a `torch.cuda` inside a string or a
//! comment is not an attribute node, so it is never flagged. Finds the portable PyTorch device
//! namespace (PASS), CUDA version and capability checks, NCCL tuning through `os.environ`, CUDA
//! extensions and their nvcc-only flags, NVML, PTX/NVRTC use, `subprocess` calls of NVIDIA tools,
//! and (in `setup.py`) `install_requires`.

use super::ts::{self, Lang};
use super::words::{self, Cx, Site, Word};
use super::{
    framework, monitoring, native_ext, packages, platform, ptx, py_capability, rocm_branch,
    version_check, Out,
};
use crate::gate::Phase;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// numba's CUDA target, as an import finding names it (the install-line `numba` finding is
/// settled against it: [`super::packages::settle_submodule_packages`]).
pub const NUMBA_CUDA: &str =
    "numba's CUDA target (`numba.cuda`; numba-hip is a port: github.com/ROCm/numba-hip)";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Module,
    SetupPy,
}

/// `a.b.c` for identifier/attribute chains.
pub fn dotted(n: Node, src: &[u8]) -> Option<String> {
    match n.node_kind() {
        K::Identifier => Some(ts::text(n, src).to_string()),
        K::Attribute => {
            let obj = dotted(n.field(F::Object)?, src)?;
            let attr = ts::text(n.field(F::Attribute)?, src);
            Some(format!("{obj}.{attr}"))
        }
        _ => None,
    }
}

/// A string literal's content and its range (without quotes); `None` for non-strings.
pub fn string(n: Node, src: &[u8]) -> Option<(String, Range<usize>)> {
    if n.node_kind() != K::String {
        return None;
    }
    let parts: Vec<Node> = ts::named_children(n)
        .into_iter()
        .filter(|c| c.node_kind() == K::StringContent)
        .collect();
    match (parts.first(), parts.last()) {
        (Some(a), Some(b)) => {
            let r = a.start_byte()..b.end_byte();
            Some((String::from_utf8_lossy(&src[r.clone()]).into_owned(), r))
        }
        _ => {
            let end = n.end_byte().saturating_sub(1);
            Some((String::new(), end..end))
        }
    }
}

fn has_ancestor(n: Node, kind: K, depth: usize) -> bool {
    let mut cur = n.parent();
    for _ in 0..depth {
        match cur {
            Some(p) if p.node_kind() == kind => return true,
            Some(p) => cur = p.parent(),
            None => return false,
        }
    }
    false
}

fn args(call: Node) -> Vec<Node> {
    call.field(F::Arguments)
        .map(ts::named_children)
        .unwrap_or_default()
}

/// The call whose keyword argument `name` holds `n` (at any depth of its value).
fn keyword_of_call<'t>(n: Node<'t>, name: &str, src: &[u8]) -> Option<Node<'t>> {
    let mut cur = n.parent();
    while let Some(p) = cur {
        if p.node_kind() == K::KeywordArgument {
            return p
                .field(F::Name)
                .is_some_and(|k| ts::text(k, src) == name)
                .then(|| p.parent().and_then(|a| a.parent()))
                .flatten()
                .filter(|c| c.node_kind() == K::Call);
        }
        if p.node_kind() == K::Call {
            return None;
        }
        cur = p.parent();
    }
    None
}

/// A call's function as written (`setup`, `setuptools.setup`).
fn callee<'s>(call: Node, src: &'s [u8]) -> &'s str {
    call.field(F::Function).map_or("", |f| ts::text(f, src))
}

fn keyword<'t>(call: Node<'t>, name: &str, src: &[u8]) -> Option<Node<'t>> {
    args(call)
        .into_iter()
        .find(|a| {
            a.node_kind() == K::KeywordArgument
                && a.field(F::Name).is_some_and(|k| ts::text(k, src) == name)
        })
        .and_then(|a| a.field(F::Value))
}

/// String literals in a list/tuple (or a single string), with ranges.
fn strings_in(n: Node, src: &[u8]) -> Vec<(String, Range<usize>)> {
    if let Some(s) = string(n, src) {
        return vec![s];
    }
    if matches!(n.node_kind(), K::List | K::Tuple | K::Set) {
        return ts::named_children(n)
            .into_iter()
            .filter_map(|c| string(c, src))
            .collect();
    }
    Vec::new()
}

/// `'-arch', 'arm64'` in a list: the Apple compiler's architecture flag (a macOS build of the
/// C++ side), not nvcc's `-arch sm_XX`.
fn apple_arch(n: Node, flag: &str, src: &[u8]) -> bool {
    flag == "-arch"
        && n.next_named_sibling()
            .and_then(|x| string(x, src))
            .is_some_and(|(s, _)| {
                matches!(
                    s.trim(),
                    "arm64" | "arm64e" | "x86_64" | "x86_64h" | "i386" | "arm64_32"
                )
            })
}

struct State {
    flavor: Flavor,
    extension_file: bool,
    /// nvcc-only flags in string literals: the flag, its range, and the list literal holding it
    /// (one list of flags is one decision: gate it on the platform).
    flag_candidates: Vec<(String, Range<usize>, Option<Range<usize>>)>,
    /// The file defines its own `class BuildExtension` (k2's CMake-driving subclass of
    /// setuptools' `build_ext`): the name is not PyTorch's, which hipifies.
    own_build_extension: bool,
    /// HP836: each `if` that builds CppExtensions with CUDA sources only when the environment
    /// names a CUDA toolkit, with the first such extension under it (which holds the rest).
    cpp_gates: Vec<(usize, usize)>,
    /// The file imports PyTorch: its extensions are PyTorch's, which its ROCm build hipifies
    /// and gives hipcc its own flags. A build without it drives nvcc itself (TIGRE's
    /// `setup.py`, a copy of PyTorch's `BuildExtension` with no `torch` import).
    torch: bool,
    /// The module imports `torch` unconditionally at its top: it runs where torch is installed.
    torch_first: bool,
    /// Plain `Extension(…)` calls that link CUDA libraries: one decision per file.
    plain_links: Vec<Range<usize>>,
    /// The names through which the file reaches TVM ([`tvm_targets`]): TVM's `cuda` devices
    /// are not PyTorch's portable ones.
    tvm: Vec<(String, String)>,
}

mod build_first;
mod cpp_ext;
mod decisions;
pub(crate) mod half_flags;
mod links;
pub(crate) mod nvidia_imports;
mod programs;
mod requires;
use links::cuda_link_libraries;
use programs::program_part;
pub(crate) mod device_strings;
pub(crate) mod taichi_arch;
pub(crate) mod triton_asm;
pub(crate) mod tvm_targets;

pub fn scan(out: &mut Out, flavor: Flavor) {
    let src = out.src();
    let Some(tree) = ts::parse(Lang::Python, src) else {
        return;
    };
    let mut st = State {
        flavor,
        extension_file: flavor == Flavor::SetupPy,
        flag_candidates: Vec::new(),
        own_build_extension: src
            .split(|&b| b == b'\n')
            .any(|l| l.trim_ascii_start().starts_with(b"class BuildExtension")),
        cpp_gates: Vec::new(),
        torch: false,
        torch_first: build_first::imports_torch_to_build(tree.root_node(), src),
        plain_links: Vec::new(),
        tvm: Vec::new(),
    };
    let mut nodes = Vec::new();
    ts::each(tree.root_node(), &mut |n| nodes.push(n));
    st.torch = nodes.iter().any(|n| {
        matches!(n.node_kind(), K::ImportStatement | K::ImportFromStatement)
            && n.named_child(0).is_some_and(|m| {
                let t = ts::text(m, src);
                t == "torch" || t.starts_with("torch.")
            })
    });
    st.tvm = tvm_targets::names(&nodes, src);
    tvm_targets::check(out, &nodes, src, &st.tvm);
    taichi_arch::check(out, &nodes, src);
    for n in nodes {
        visit(out, n, src, &mut st);
    }
    links::fold_plain(out, &st.plain_links);
    if st.extension_file {
        let flags = std::mem::take(&mut st.flag_candidates);
        let mut folded: Vec<(Range<usize>, String)> = Vec::new();
        for (i, (flag, r, list)) in flags.iter().enumerate() {
            let mates: Vec<&str> = flags
                .iter()
                .filter(|(_, _, l)| list.is_some() && l == list)
                .map(|(f, _, _)| f.as_str())
                .collect();
            let first = flags
                .iter()
                .position(|(_, _, l)| list.is_some() && l == list)
                == Some(i);
            // Without PyTorch the build runs nvcc itself: its ROCm build runs hipcc instead.
            let gate = if st.torch {
                "torch.version.hip"
            } else {
                "the ROCm build (which compiles with hipcc)"
            };
            let msg = if mates.len() > 1 && first {
                format!("nvcc-only flags in one list (`{}`): hipcc rejects or ignores them; gate the list on {gate}", mates.join("`, `"))
            } else {
                format!("nvcc-only flag `{flag}`: hipcc rejects or ignores it; gate it on {gate}")
            };
            let suggestion = if st.torch {
                "if torch.version.hip: use --offload-arch=gfx... (or PYTORCH_ROCM_ARCH) instead"
            } else {
                "for the ROCm build, compile with hipcc and pass --offload-arch=gfx... instead"
            };
            if mates.len() > 1 && !first {
                folded.push((r.clone(), mates[0].to_string()));
            }
            out.push(
                &native_ext::NVCC_ONLY_EXTENSION_FLAG,
                r.clone(),
                msg,
                Some(suggestion.into()),
            );
        }
        out.pass_within(
            &folded,
            &[native_ext::NVCC_ONLY_EXTENSION_FLAG.id.code],
            |head| format!(" (one list with `{head}`: the list's first flag holds the decision)"),
        );
    }
    py_capability::through_variables(out, tree.root_node(), src);
    // What each build runs (one model per file): code the ROCm build skips is not porting
    // work, its extensions are built for ROCm by its own ROCm arm.
    let root = tree.root_node();
    let model = platform::Model::of(root, src);
    if !model.branches() && st.torch {
        half_flags::check(out, root, src);
    }
    out.pass_within(model.rocm_dead(), &[], |why| format!(" ({why})"));
    // `if torch.version.cuda:` tests only whether it is set: None on ROCm picks the other arm.
    let truthiness = rocm_branch::truthiness_tests(root, src, "torch.version.cuda");
    out.pass_within(
        &truthiness,
        &[version_check::TORCH_VERSION_CUDA.id.code],
        |_| " (only tested for being set: None on ROCm picks the other arm; HP813 reports that arm if it fails there)".into(),
    );
    if model.branches() {
        let whole = vec![(0..src.len() + 1, String::new())];
        out.pass_within(&whole, &[native_ext::TORCH_CUDA_EXTENSION.id.code], |_| {
            " (this file already branches for the ROCm build)".into()
        });
    }
    // A file that runs PyTorch's hipify itself (`hipify_python.hipify(...)`) ports the sources
    // its CppExtensions list.
    if src.windows(7).any(|w| w == b"hipify(") {
        let whole = vec![(0..src.len() + 1, String::new())];
        out.pass_within(
            &whole,
            &[native_ext::CPP_EXTENSION_CUDA_SOURCES.id.code],
            |_| " (this file runs hipify on its sources itself)".into(),
        );
    }
    decisions::judge(out, root, src, flavor, &model);
    out.pass_within(model.rocm_dead(), &[], |why| format!(" ({why})"));
}

fn visit(out: &mut Out, n: Node, src: &[u8], st: &mut State) {
    match n.node_kind() {
        K::Attribute => attribute(out, n, src),
        K::Call => call(out, n, src, st),
        K::KeywordArgument => {
            let (Some(k), Some(v)) = (n.field(F::Name), n.field(F::Value)) else {
                return;
            };
            let Some((val, _)) = string(v, src) else {
                return;
            };
            match ts::text(k, src) {
                "backend" if val.eq_ignore_ascii_case("nccl") => {
                    out.push(
                        &framework::NCCL_PROCESS_GROUP_BACKEND,
                        n.byte_range(),
                        "backend=\"nccl\" is served by RCCL on ROCm: portable".into(),
                        None,
                    );
                }
                "device" if val.starts_with("cuda") => {
                    out.push(
                        &framework::TORCH_CUDA_NAMESPACE,
                        n.byte_range(),
                        "device=\"cuda\" is the HIP device on ROCm: portable".into(),
                        None,
                    );
                }
                _ => {}
            }
        }
        K::Assignment => {
            // os.environ["NCCL_X"] = "..."
            let Some(left) = n.field(F::Left) else {
                return;
            };
            if left.node_kind() != K::Subscript {
                return;
            }
            let is_environ = left
                .field(F::Value)
                .and_then(|v| dotted(v, src))
                .is_some_and(|d| d.ends_with("environ"));
            let key = left.field(F::Subscript).and_then(|s| string(s, src));
            if let (true, Some((name, r))) = (is_environ, key) {
                let literal = n.field(F::Right).and_then(|v| string(v, src));
                // `os.environ["TORCH_CUDA_ARCH_LIST"] = ""` clears the list (DeepSpeed's op
                // builder, around a JIT build): it lists no architecture.
                if name.ends_with("ARCH_LIST")
                    && literal.as_ref().is_some_and(|(v, _)| v.is_empty())
                {
                    return;
                }
                let value = literal.unwrap_or_default();
                words::setting(out, &name, r, &value.0, value.1, Site::Python);
            }
        }
        K::Pair => {
            if let Some((name, r)) = n.field(F::Key).and_then(|k| string(k, src)) {
                if super::distributed::is_nccl_var(&name) {
                    let value = n.field(F::Value).and_then(|v| string(v, src));
                    super::distributed::nccl_setting(
                        out,
                        &name,
                        r,
                        value.as_ref().map(|v| v.0.as_str()),
                    );
                }
            }
        }
        K::ImportStatement | K::ImportFromStatement => {
            let text = ts::text(n, src);
            let modules: Vec<Node> = {
                let mut v = Vec::new();
                ts::each(n, &mut |c| {
                    if c.node_kind() == K::DottedName {
                        v.push(c)
                    }
                });
                v
            };
            if text.contains("cpp_extension") {
                st.extension_file = true;
            }
            // NVIDIA-only Python packages imported by module name, with their ROCm paths.
            if let Some(m) = modules.first() {
                let names: Vec<&str> = modules.iter().map(|m| ts::text(*m, src)).collect();
                let from = n.node_kind() == K::ImportFromStatement;
                if let Some(p) = nvidia_imports::imported(&names, from) {
                    out.push(
                        &packages::CUDA_PACKAGE_NO_KNOWN_ROCM,
                        m.byte_range(),
                        format!("imports {}: NVIDIA-only, no ROCm build", p.label),
                        Some(format!(
                            "port to {}, or guard the import on torch.version.hip and keep the module out of the ROCm stack",
                            p.rocm
                        )),
                    );
                } else if let Some(p) = nvidia_imports::imported_with_rocm(&names)
                    .filter(|_| !has_ancestor(n, K::TryStatement, 3))
                {
                    out.push(
                        &packages::CUDA_PACKAGE_WITH_ROCM_PATH,
                        m.byte_range(),
                        format!("imports {}: the CUDA build does not run on ROCm", p.label),
                        Some(format!("install {}", p.rocm)),
                    );
                }
            }
            for m in modules {
                let name = ts::text(m, src);
                if matches!(name, "pynvml" | "nvidia_smi" | "pynvml_utils")
                    || name.starts_with("pynvml.")
                {
                    out.push(
                        &monitoring::NVML_PYTHON,
                        m.byte_range(),
                        format!("imports {name} (NVML): NVIDIA-only"),
                        Some("amdsmi (AMD SMI Python package)".into()),
                    );
                    break;
                }
            }
        }
        K::Identifier
            if ts::text(n, src) == "BuildExtension"
                && !st.own_build_extension
                && !has_ancestor(n, K::ImportFromStatement, 3)
                && !has_ancestor(n, K::Attribute, 1) =>
        {
            out.push(
                &native_ext::TORCH_BUILD_EXTENSION,
                n.byte_range(),
                "BuildExtension hipifies CUDA sources on ROCm builds: portable".into(),
                None,
            );
            st.extension_file = true;
        }
        K::String => {
            if let Some((s, r)) = string(n, src) {
                device_strings::check(out, &s, r.clone());
                let t = s.trim();
                // `"-gencode=arch=compute_90a,code=sm_90a" in flags` asks about a flag, passes none.
                let compared = n
                    .parent()
                    .is_some_and(|p| p.node_kind() == K::ComparisonOperator);
                // `setup(…, extra_compile_args={"nvcc": [...]})`: setuptools' `setup()` takes no
                // such option ("Unknown distribution option") and no compiler sees the flags.
                let ignored = keyword_of_call(n, "extra_compile_args", src)
                    .is_some_and(|c| matches!(callee(c, src), "setup" | "setuptools.setup"));
                if words::is_nvcc_only_flag(t)
                    && !t.contains('\n')
                    && !apple_arch(n, t, src)
                    && !compared
                    && !ignored
                {
                    let list = n.parent().filter(|p| p.node_kind() == K::List);
                    // A list passed as the CUDA compiler's flags to any call (stylegan2's
                    // `custom_ops.get_plugin(…, extra_cuda_cflags=['--use_fast_math'])`, a
                    // wrapper of `load()`): the file builds an extension.
                    if list
                        .and_then(|l| l.parent())
                        .filter(|k| k.node_kind() == K::KeywordArgument)
                        .and_then(|k| k.field(F::Name))
                        .is_some_and(|k| {
                            matches!(
                                ts::text(k, src),
                                "extra_cuda_cflags" | "extra_cuda_flags" | "nvcc_flags"
                            )
                        })
                    {
                        st.extension_file = true;
                    }
                    st.flag_candidates
                        .push((t.to_string(), r, list.map(|p| p.byte_range())));
                } else if ptx::looks_like_ptx(&s) {
                    out.push(
                        &ptx::EMBEDDED_PTX,
                        r.start..r.start,
                        "PTX embedded in a string: AMD GPUs cannot load PTX".into(),
                        Some("HIP C++ source compiled with hiprtc".into()),
                    );
                }
            }
        }
        _ => {}
    }
}

/// A condition's text on one line, cut at 60 characters.
fn short_text(t: &str) -> String {
    let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(60).collect::<String>())
    } else {
        one
    }
}

/// Whether the value at `n` is only shown: the whole of an f-string's `{…}` (with or without
/// `=` or a format spec), or a direct argument of `print`, a logging call (`logger.info`,
/// `logging.warning`, `warnings.warn`) or `str.format`, or the right side of a `%` format.
fn only_shown(n: Node, src: &[u8]) -> bool {
    let Some(p) = n.parent() else { return false };
    match p.node_kind() {
        K::Interpolation => true,
        K::ArgumentList => {
            let Some(f) = p
                .parent()
                .filter(|c| c.node_kind() == K::Call)
                .and_then(|c| c.field(F::Function))
            else {
                return false;
            };
            let name = ts::text(f, src);
            let last = name.rsplit('.').next().unwrap_or(name);
            name == "print"
                || name == "warnings.warn"
                || (name.contains('.')
                    && matches!(
                        last,
                        "debug" | "info" | "warning" | "warn" | "error" | "critical" | "format"
                    ))
        }
        K::BinaryOperator => {
            p.field(F::Right).is_some_and(|r| r.id() == n.id())
                && p.field(F::Left).is_some_and(|l| l.node_kind() == K::String)
                && p.field(F::Operator)
                    .is_some_and(|o| ts::text(o, src) == "%")
        }
        K::Tuple => p.parent().is_some_and(|b| {
            b.node_kind() == K::BinaryOperator
                && b.field(F::Left).is_some_and(|l| l.node_kind() == K::String)
        }),
        _ => false,
    }
}

fn attribute(out: &mut Out, n: Node, src: &[u8]) {
    // Only the outermost attribute of a chain.
    if let Some(p) = n.parent() {
        if p.node_kind() == K::Attribute && p.field(F::Object) == Some(n) {
            return;
        }
    }
    let Some(d) = dotted(n, src) else { return };
    if d == "torch.version.cuda" && only_shown(n, src) {
        // `print(f"CUDA {torch.version.cuda}")`: None on ROCm prints as "None".
        out.push_pass(
            &version_check::TORCH_VERSION_CUDA,
            n.byte_range(),
            "torch.version.cuda is only shown here (an f-string, a print or log argument): on ROCm it shows \"None\" and nothing fails".into(),
        );
    } else if d == "torch.version.cuda" || d.starts_with("torch.version.cuda.") {
        out.push(
            &version_check::TORCH_VERSION_CUDA,
            n.byte_range(),
            "torch.version.cuda is None on ROCm builds".into(),
            Some("branch on torch.version.hip".into()),
        );
    } else if d == "torch.backends.cudnn.version"
        && n.parent().is_some_and(|c| c.node_kind() == K::Call)
        && compared_with_number(n.parent().unwrap())
    {
        out.push(
            &framework::CUDNN_VERSION_THRESHOLD,
            n.byte_range(),
            "threshold on torch.backends.cudnn.version(): on ROCm it is MIOpen's version, not a cuDNN release".into(),
            Some("decide the MIOpen case on torch.version.hip, or test the feature itself".into()),
        );
    } else if d.starts_with("torch.backends.cudnn") {
        out.push(
            &framework::TORCH_BACKENDS_CUDNN,
            n.byte_range(),
            format!("{d}: MIOpen serves torch.backends.cudnn on ROCm: portable"),
            None,
        );
    } else if d == "torch.cuda" || d.starts_with("torch.cuda.") {
        // `get_device_properties(...)` names a capability only through `.major`/`.minor`;
        // `.total_memory`, `.multi_processor_count` or `.name` compared are not capabilities.
        let property = n
            .parent()
            .filter(|c| c.node_kind() == K::Call)
            .and_then(|c| c.parent().filter(|a| a.node_kind() == K::Attribute))
            .and_then(|a| a.field(F::Attribute))
            .map(|a| ts::text(a, src));
        let capability = d.ends_with("get_device_capability")
            || (d.ends_with("get_device_properties")
                && property.is_none_or(|p| matches!(p, "major" | "minor")));
        if capability && has_ancestor(n, K::ComparisonOperator, 5) {
            out.push(
                &version_check::DEVICE_CAPABILITY_THRESHOLD,
                n.byte_range(),
                format!("threshold on {d}(): on ROCm the tuple comes from the gfx architecture"),
                Some(
                    "test torch.cuda.get_device_properties(0).gcnArchName or the feature itself"
                        .into(),
                ),
            );
        } else {
            out.push(
                &framework::TORCH_CUDA_NAMESPACE,
                n.byte_range(),
                format!("{d}: PyTorch on ROCm keeps the torch.cuda namespace: portable"),
                None,
            );
        }
    }
}

/// Whether `e` is an operand of a comparison with a number (`>= 8000`, `< 7`).
fn compared_with_number(e: Node) -> bool {
    e.parent().is_some_and(|p| {
        p.node_kind() == K::ComparisonOperator
            && ts::named_children(p)
                .iter()
                .any(|c| c.id() != e.id() && c.node_kind() == K::Integer)
    })
}

/// Whether `n` is outside every function: it runs when the module is imported.
pub(crate) fn at_module_level(n: Node) -> bool {
    let mut cur = n.parent();
    while let Some(p) = cur {
        if p.node_kind() == K::FunctionDefinition {
            return false;
        }
        cur = p.parent();
    }
    true
}

/// A library a loader call names (`ctypes.CDLL("libcuda.so")`, `find_library("cudart")`,
/// a project's `_try_load_library("nvrtc")`): one finding per library per file
/// ([`crate::rules::driver_api::loaded`]). A bare name counts only for a library search.
fn loaded_library(out: &mut Out, call: &str, text: &str, range: Range<usize>) {
    use crate::rules::driver_api::loaded::{finding_for, loaded};
    let lower = call.to_ascii_lowercase();
    let search = lower.contains("find_library") || lower.contains("load_library");
    let loader = search || matches!(call, "CDLL" | "WinDLL" | "PyDLL" | "LoadLibrary" | "dlopen");
    if !loader {
        return;
    }
    let Some(what) = loaded(text, search) else {
        return;
    };
    let f = finding_for(&out.ctx, range, text, what, &[]);
    // The string's contents, between its first and last quote (after a prefix: `r"…"`).
    let name = what_name(text, search);
    out.push_unless(f, |o| {
        what_name(crate::rules::driver_api::loaded::contents(&o.excerpt), true) == name
    });
}

/// The value a name was last assigned before `at` (`install_requires = [...]` at the top of
/// `setup.py`, `extra_cuda_args = {...}` inside the `if USE_PYBIND:` / `try:` that builds the
/// extensions), for a name `at` is: the statements before it in each block around it, the
/// innermost first; `None` otherwise.
fn module_value<'t>(at: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    if at.node_kind() != K::Identifier {
        return None;
    }
    let name = ts::text(at, src);
    let mut block = at.parent();
    while let Some(b) = block {
        if matches!(b.node_kind(), K::Module | K::Block) {
            let mut found = None;
            for stmt in ts::named_children(b) {
                if stmt.start_byte() >= at.start_byte() {
                    break;
                }
                if stmt.node_kind() != K::ExpressionStatement {
                    continue;
                }
                for a in ts::named_children(stmt) {
                    if a.node_kind() == K::Assignment
                        && a.field(F::Left).is_some_and(|l| ts::text(l, src) == name)
                    {
                        found = a.field(F::Right).or(found);
                    }
                }
            }
            if found.is_some() {
                return found;
            }
        }
        block = b.parent();
    }
    None
}

/// The link name of the library `text` names for a loader, if any.
fn what_name(text: &str, bare: bool) -> Option<String> {
    crate::rules::driver_api::loaded::loaded(text, bare).map(|w| w.name().to_string())
}

fn call(out: &mut Out, n: Node, src: &[u8], st: &mut State) {
    let Some(func) = n.field(F::Function) else {
        return;
    };
    let d = dotted(func, src).unwrap_or_default();
    let last = if func.node_kind() == K::Attribute {
        func.field(F::Attribute)
            .map(|a| ts::text(a, src))
            .unwrap_or("")
    } else {
        ts::text(func, src)
    };
    let first_str = args(n).into_iter().next().and_then(|a| string(a, src));
    if let Some((text, range)) = &first_str {
        loaded_library(out, last, text, range.clone());
    }
    match last {
        "cuda"
            if func.node_kind() == K::Attribute
                && d != "torch.cuda"
                && !tvm_targets::is_tvm_call(&d, &st.tvm) =>
        {
            let start = func
                .field(F::Attribute)
                .map_or(n.start_byte(), |a| a.start_byte());
            out.push(
                &framework::TORCH_CUDA_NAMESPACE,
                start..n.end_byte(),
                ".cuda() moves to the HIP device on ROCm: portable".into(),
                None,
            );
        }
        "to" if first_str
            .as_ref()
            .is_some_and(|(s, _)| s.starts_with("cuda")) =>
        {
            out.push(
                &framework::TORCH_CUDA_NAMESPACE,
                n.byte_range(),
                ".to(\"cuda\") is the HIP device on ROCm: portable".into(),
                None,
            );
        }
        "device"
            if d == "torch.device"
                && first_str
                    .as_ref()
                    .is_some_and(|(s, _)| s.starts_with("cuda")) =>
        {
            out.push(
                &framework::TORCH_CUDA_NAMESPACE,
                n.byte_range(),
                "torch.device(\"cuda\") is the HIP device on ROCm: portable".into(),
                None,
            );
        }
        "init_process_group"
            if first_str
                .as_ref()
                .is_some_and(|(s, _)| s.eq_ignore_ascii_case("nccl")) =>
        {
            let r = first_str.map(|(_, r)| r).unwrap_or(n.byte_range());
            out.push(
                &framework::NCCL_PROCESS_GROUP_BACKEND,
                r,
                "the nccl backend is served by RCCL on ROCm: portable".into(),
                None,
            );
        }
        "Extension" | "Pybind11Extension" => {
            if let Some(r) = links::plain_links(out, n, src) {
                st.plain_links.push(r);
            }
        }
        "CUDAExtension" => {
            st.extension_file = true;
            cuda_link_libraries(out, n, src);
            // An extension that passes nvcc nothing (no `nvcc` arguments, no flag list named
            // in the call) has no flag to gate: what is left is building it against ROCm
            // PyTorch (its kernels' findings are their own).
            let call = String::from_utf8_lossy(&src[n.byte_range()]);
            let flags = call.contains("nvcc") || call.contains("extra_compile_args");
            let (message, suggestion) = if flags {
                ("CUDAExtension: PyTorch's ROCm build hipifies it automatically; nvcc-only flags in it must be gated on torch.version.hip (each is reported as HP831)", "build against ROCm PyTorch; gate -gencode/-arch/--use_fast_math/-Xptxas on torch.version.hip")
            } else {
                ("CUDAExtension: PyTorch's ROCm build hipifies it automatically and the call passes nvcc no flags to gate; its kernels' findings are their own", "build it against ROCm PyTorch and review its kernels' findings")
            };
            out.push(
                &native_ext::TORCH_CUDA_EXTENSION,
                n.byte_range().start..func.end_byte(),
                message.into(),
                Some(suggestion.into()),
            );
        }
        "load" | "load_inline" if d.contains("cpp_extension") || st.extension_file => {
            let sources = keyword(n, "sources", src);
            let listed = sources.map(|s| strings_in(s, src)).unwrap_or_default();
            let cu = listed
                .iter()
                .any(|(s, _)| s.ends_with(".cu") || s.ends_with(".cuh"))
                // `sources=source_paths`, built from a list elsewhere in the module (nvdiffrec's
                // renderutils): CUDA when the call says `with_cuda=True` or the module names
                // `.cu` files.
                || (listed.is_empty()
                    && sources.is_some()
                    && (keyword(n, "with_cuda", src)
                        .is_some_and(|w| &src[w.byte_range()] == b"True")
                        || names_cuda_sources(src)));
            let inline_cuda = keyword(n, "cuda_sources", src).is_some();
            if cu || inline_cuda {
                st.extension_file = true;
                out.push(&native_ext::TORCH_CUDA_EXTENSION, n.byte_range().start..func.end_byte(), format!("{last}() builds CUDA sources at run time: PyTorch's ROCm build hipifies them; nvcc-only flags in it must be gated (each is reported as HP831)"), Some("gate extra_cuda_cflags on torch.version.hip".into()));
            }
        }
        "inline_asm_elementwise" => triton_asm::inline_asm(out, n, func, src),
        "CppExtension" => cpp_ext::cuda_sources(out, n, func, src, st),
        "cuModuleLoadData"
        | "cuModuleLoadDataEx"
        | "cuModuleLoad"
        | "nvrtcCreateProgram"
        | "nvrtcCompileProgram" => {
            out.push(
                &ptx::EMBEDDED_PTX,
                n.byte_range().start..func.end_byte(),
                format!("{last}: NVIDIA run-time code loading (PTX/NVRTC)"),
                Some(
                    "hiprtc with HIP C++ source, or hipModuleLoadData with AMD code objects".into(),
                ),
            );
        }
        "setdefault" | "putenv" if d.contains("environ") || d == "os.putenv" => {
            if let Some((name, r)) = first_str {
                let value = args(n)
                    .get(1)
                    .and_then(|v| string(*v, src))
                    .unwrap_or_default();
                words::setting(out, &name, r, &value.0, value.1, Site::Python);
            }
        }
        "which" => {
            if let Some((program, at)) = first_str.clone() {
                programs::nvcc_probe(out, n, &program, at, src);
            }
        }
        "setup" if st.flavor == Flavor::SetupPy => requires::setup_call(out, n, src, st),
        _ => {}
    }
    let is_proc = d.starts_with("subprocess.")
        || matches!(
            d.as_str(),
            "os.system" | "os.popen" | "os.execvp" | "check_output" | "run" | "Popen" | "call"
        );
    if is_proc {
        // `cmd = 'nvidia-smi …'; subprocess.run(cmd, shell=True)`: the command the name holds.
        if let Some(a) = args(n)
            .into_iter()
            .next()
            .map(|a| module_value(a, src).unwrap_or(a))
        {
            let parts: Vec<(String, Range<usize>)> = if matches!(a.node_kind(), K::List | K::Tuple)
            {
                ts::named_children(a)
                    .into_iter()
                    .filter_map(|e| program_part(e, src))
                    .collect()
            } else {
                program_part(a, src).into_iter().collect()
            };
            // `call(["nvcc"])`: the program alone, nothing else in the list.
            let alone =
                matches!(a.node_kind(), K::List | K::Tuple) && ts::named_children(a).len() == 1;
            if let (true, Some((program, at))) = (alone, parts.first()) {
                programs::nvcc_probe(out, n, program, at.clone(), src);
            }
            let ws: Vec<Word> = parts
                .into_iter()
                .flat_map(|(s, r)| words::split(&s, r.start))
                .collect();
            words::command(out, &ws, Site::Python, Cx::default());
            // A probe at module level breaks the import (the install, for setup.py).
            if at_module_level(n) {
                let phase = match st.flavor {
                    Flavor::SetupPy => Phase::Install,
                    Flavor::Module => Phase::Import,
                };
                out.set_phase(
                    version_check::NVCC_VERSION_PROBE.id.code,
                    n.byte_range(),
                    phase,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_arms;
#[cfg(test)]
mod tests_extensions;

/// Whether a Python module's text names a CUDA source file in a string literal (`'c_src/loss.cu'`).
fn names_cuda_sources(src: &[u8]) -> bool {
    let text = String::from_utf8_lossy(src);
    [".cu'", ".cu\"", ".cuh'", ".cuh\""]
        .iter()
        .any(|end| text.contains(end))
}
