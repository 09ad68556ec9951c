//! Python through tree-sitter-python. Only code is examined: a `torch.cuda` inside a string or a
//! comment is not an attribute node, so it is never flagged. Finds the portable PyTorch device
//! namespace (PASS), CUDA version and capability checks, NCCL tuning through `os.environ`, CUDA
//! extensions and their nvcc-only flags, NVML, PTX/NVRTC use, `subprocess` calls of NVIDIA tools,
//! and (in `setup.py`) `install_requires`.

use super::ts::{self, Lang};
use super::words::{self, Cx, Site, Word};
use super::{framework, monitoring, native_ext, packages, ptx, rocm_branch, version_check, Out};
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

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
    flag_candidates: Vec<(String, Range<usize>)>,
}

pub fn scan(out: &mut Out, flavor: Flavor) {
    let src = out.src();
    let Some(tree) = ts::parse(Lang::Python, src) else {
        return;
    };
    let mut st = State {
        flavor,
        extension_file: flavor == Flavor::SetupPy,
        flag_candidates: Vec::new(),
    };
    let mut nodes = Vec::new();
    ts::each(tree.root_node(), &mut |n| nodes.push(n));
    for n in nodes {
        visit(out, n, src, &mut st);
    }
    if st.extension_file {
        for (flag, r) in std::mem::take(&mut st.flag_candidates) {
            out.push(&native_ext::NVCC_ONLY_EXTENSION_FLAG, r, format!("nvcc-only flag `{flag}`: hipcc rejects or ignores it; gate it on torch.version.hip"), Some("if torch.version.hip: use --offload-arch=gfx... (or PYTORCH_ROCM_ARCH) instead".into()));
        }
    }
    capability_variables(out, tree.root_node(), src);
    // A project that already branches for ROCm: its CUDA-only arms are not porting work, and
    // its extensions are built for ROCm by its own ROCm arm.
    let root = tree.root_node();
    let cuda_only = rocm_branch::cuda_only(root, src);
    out.pass_within(&cuda_only, &[], |test| {
        format!(" (CUDA-only branch of `{test}`: the project's ROCm branch replaces it)")
    });
    // `if torch.version.cuda:` tests only whether it is set: None on ROCm picks the other arm.
    let truthiness = rocm_branch::truthiness_tests(root, src, "torch.version.cuda");
    out.pass_within(
        &truthiness,
        &[version_check::TORCH_VERSION_CUDA.id.code],
        |_| " (only tested for being set: None on ROCm takes the other arm, which is right)".into(),
    );
    if rocm_branch::has_rocm_test(root, src) {
        let whole = vec![(0..src.len() + 1, String::new())];
        out.pass_within(&whole, &[native_ext::TORCH_CUDA_EXTENSION.id.code], |_| {
            " (this file already branches for the ROCm build)".into()
        });
    }
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
                    super::distributed::nccl_setting(out, &name, r);
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
            // NVIDIA-only Python packages imported by module name.
            if let Some(m) = modules.first() {
                let name = ts::text(*m, src);
                let top = |p: &str| name == p || name.starts_with(&format!("{p}."));
                let from_cuda = name == "cuda"
                    && n.node_kind() == K::ImportFromStatement
                    && ["cuda", "cudart", "nvrtc", "bindings"]
                        .iter()
                        .any(|x| modules[1..].iter().any(|o| ts::text(*o, src) == *x));
                let package = if top("cuda.bindings") || from_cuda {
                    Some("cuda-python (`cuda.bindings`)")
                } else if top("cutlass") {
                    Some("nvidia-cutlass-dsl / nvidia-cutlass (`cutlass`)")
                } else if top("quack") {
                    Some("quack-kernels (`quack`)")
                } else {
                    None
                };
                if let Some(p) = package {
                    out.push(
                        &packages::CUDA_PACKAGE_NO_KNOWN_ROCM,
                        m.byte_range(),
                        format!("imports {p}: NVIDIA-only, no ROCm build"),
                        Some("guard the import on torch.version.hip and provide a ROCm path (Triton, Composable Kernel, hip-python)".into()),
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
                let t = s.trim();
                // `"-gencode=arch=compute_90a,code=sm_90a" in flags` asks about a flag, passes none.
                let compared = n
                    .parent()
                    .is_some_and(|p| p.node_kind() == K::ComparisonOperator);
                if words::is_nvcc_only_flag(t)
                    && !t.contains('\n')
                    && !apple_arch(n, t, src)
                    && !compared
                {
                    st.flag_candidates.push((t.to_string(), r));
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

fn attribute(out: &mut Out, n: Node, src: &[u8]) {
    // Only the outermost attribute of a chain.
    if let Some(p) = n.parent() {
        if p.node_kind() == K::Attribute && p.field(F::Object) == Some(n) {
            return;
        }
    }
    let Some(d) = dotted(n, src) else { return };
    if d == "torch.version.cuda" || d.starts_with("torch.version.cuda.") {
        out.push(
            &version_check::TORCH_VERSION_CUDA,
            n.byte_range(),
            "torch.version.cuda is None on ROCm builds".into(),
            Some("branch on torch.version.hip".into()),
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
    match last {
        "cuda" if func.node_kind() == K::Attribute && d != "torch.cuda" => {
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
        "CUDAExtension" => {
            st.extension_file = true;
            out.push(&native_ext::TORCH_CUDA_EXTENSION, n.byte_range().start..func.end_byte(), "CUDAExtension: PyTorch's ROCm build hipifies it automatically; nvcc-only flags must be gated on torch.version.hip".into(), Some("build against ROCm PyTorch; gate -gencode/-arch/--use_fast_math/-Xptxas on torch.version.hip".into()));
        }
        "load" | "load_inline" if d.contains("cpp_extension") || st.extension_file => {
            let cu = keyword(n, "sources", src)
                .map(|s| strings_in(s, src))
                .unwrap_or_default()
                .iter()
                .any(|(s, _)| s.ends_with(".cu") || s.ends_with(".cuh"));
            let inline_cuda = keyword(n, "cuda_sources", src).is_some();
            if cu || inline_cuda {
                st.extension_file = true;
                out.push(&native_ext::TORCH_CUDA_EXTENSION, n.byte_range().start..func.end_byte(), format!("{last}() builds CUDA sources at run time: PyTorch's ROCm build hipifies them; nvcc-only flags must be gated"), Some("gate extra_cuda_cflags on torch.version.hip".into()));
            }
        }
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
        "setup" if st.flavor == Flavor::SetupPy => {
            for kw in ["install_requires", "setup_requires"] {
                if let Some(v) = keyword(n, kw, src) {
                    for (s, r) in strings_in(v, src) {
                        if let Some(req) = packages::parse_req(&s, r.start) {
                            packages::check_req(out, &req);
                        }
                    }
                }
            }
        }
        _ => {}
    }
    let is_proc = d.starts_with("subprocess.")
        || matches!(
            d.as_str(),
            "os.system" | "os.popen" | "os.execvp" | "check_output" | "run" | "Popen" | "call"
        );
    if is_proc {
        if let Some(a) = args(n).into_iter().next() {
            let ws: Vec<Word> = strings_in(a, src)
                .into_iter()
                .flat_map(|(s, r)| words::split(&s, r.start))
                .collect();
            words::command(out, &ws, Site::Python, Cx::default());
        }
    }
}

/// `cc = torch.cuda.get_device_capability()` (or `major, minor = …`) then `if cc[0] >= 8:` /
/// `if major >= 8:`: a capability threshold through a variable.
fn capability_variables(out: &mut Out, root: Node, src: &[u8]) {
    let mut names: Vec<String> = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::Assignment {
            return;
        }
        let Some(right) = n.field(F::Right) else {
            return;
        };
        let capability = right.node_kind() == K::Call
            && right
                .field(F::Function)
                .and_then(|f| dotted(f, src))
                .is_some_and(|d| d.ends_with("get_device_capability"));
        if !capability {
            return;
        }
        if let Some(left) = n.field(F::Left) {
            ts::each(left, &mut |x| {
                if x.node_kind() == K::Identifier {
                    names.push(ts::text(x, src).to_string());
                }
            });
        }
    });
    if names.is_empty() {
        return;
    }
    ts::each(root, &mut |n| {
        if n.node_kind() != K::ComparisonOperator {
            return;
        }
        let uses = ts::named_children(n).into_iter().any(|c| {
            let c = if c.node_kind() == K::Subscript {
                c.field(F::Value).unwrap_or(c)
            } else {
                c
            };
            c.node_kind() == K::Identifier && names.iter().any(|x| x == ts::text(c, src))
        });
        if uses {
            out.push(
                &version_check::DEVICE_CAPABILITY_THRESHOLD,
                n.byte_range(),
                format!(
                    "threshold on a compute capability held in a variable (`{}`): on ROCm the tuple comes from the gfx architecture",
                    ts::text(n, src)
                ),
                Some("test torch.cuda.get_device_properties(0).gcnArchName or the feature itself".into()),
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    fn rules(kind: FileKind, src: &str) -> Vec<(String, u32)> {
        scan_bytes("x.py", kind, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

    #[test]
    fn torch_cuda_in_code_is_pass_not_in_strings_or_comments() {
        let src = "import torch\n# torch.cuda.synchronize() in a comment\ns = \"torch.cuda.is_available()\"\nif torch.cuda.is_available():\n    x = x.cuda()\ndist.init_process_group(backend=\"nccl\")\n";
        let r = rules(FileKind::Python, src);
        assert_eq!(
            r,
            vec![
                ("HP800".into(), 4),
                ("HP800".into(), 5),
                ("HP801".into(), 6)
            ]
        );
    }

    #[test]
    fn version_checks() {
        let src = "if torch.version.cuda >= '11.8':\n    pass\nif torch.cuda.get_device_capability()[0] >= 8:\n    pass\nout = subprocess.check_output([\"nvcc\", \"--version\"])\n";
        let r = rules(FileKind::Python, src);
        assert_eq!(
            r,
            vec![
                ("HP810".into(), 1),
                ("HP811".into(), 3),
                ("HP812".into(), 5)
            ]
        );
    }

    #[test]
    fn device_properties_are_a_capability_only_through_major_minor() {
        // flash-attention's tests: a memory size is not a compute capability.
        let src = "if torch.cuda.get_device_properties(\"cuda\").total_memory <= 16 * 2**30:\n    pass\nif torch.cuda.get_device_properties(0).major >= 9:\n    pass\n";
        let r = rules(FileKind::Python, src);
        assert!(r.contains(&("HP811".into(), 3)), "{r:?}");
        assert!(!r.contains(&("HP811".into(), 1)), "{r:?}");
    }

    #[test]
    fn nccl_environ_and_nvml() {
        let src = "import os, pynvml\nos.environ[\"NCCL_IB_DISABLE\"] = \"1\"\nlevel = os.environ[\"NCCL_DEBUG\"]\nos.environ.setdefault(\"NCCL_NVLS_ENABLE\", \"1\")\n";
        let r = rules(FileKind::Python, src);
        assert_eq!(
            r,
            vec![
                ("HP881".into(), 1),
                ("HP890".into(), 2),
                ("HP891".into(), 4)
            ]
        );
        // flash-attention's tests: a PyTorch ProcessGroupNCCL switch, not NCCL tuning.
        let src = "import os\nos.environ[\"NCCL_ASYNC_ERROR_HANDLING\"] = \"0\"\n";
        assert_eq!(rules(FileKind::Python, src), vec![("HP894".into(), 2)]);
    }

    #[test]
    fn setup_py_extension() {
        let src = "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\nsetup(\n    name=\"ops\",\n    install_requires=[\"torch>=2.1\", \"requests\"],\n    ext_modules=[CUDAExtension(\"ops\", [\"ops.cpp\", \"k.cu\"],\n        extra_compile_args={\"nvcc\": [\"-O3\", \"-gencode\", \"arch=compute_80,code=sm_80\", \"--use_fast_math\"]})],\n    cmdclass={\"build_ext\": BuildExtension},\n)\n";
        let r = rules(FileKind::SetupPy, src);
        assert_eq!(
            r,
            vec![
                ("HP820".into(), 5),
                ("HP830".into(), 6),
                ("HP831".into(), 7),
                ("HP831".into(), 7),
                ("HP831".into(), 7),
                ("HP832".into(), 8),
            ]
        );
    }

    /// torchao's setup.py asks whether a flag is in a list; it passes none.
    #[test]
    fn a_flag_compared_is_not_passed() {
        let src = "from torch.utils.cpp_extension import CUDAExtension\nsm90 = \"-gencode=arch=compute_90a,code=sm_90a\" in flags\nargs = [\"-gencode=arch=compute_90a,code=sm_90a\"]\n";
        assert_eq!(rules(FileKind::SetupPy, src), vec![("HP831".into(), 3)]);
    }

    #[test]
    fn clearing_the_arch_list_lists_nothing() {
        let src = "import os\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"\"\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = caps()\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"8.0;9.0\"\n";
        assert_eq!(
            rules(FileKind::Python, src),
            vec![("HP843".into(), 3), ("HP843".into(), 4)]
        );
    }

    /// pytorch_scatter's macOS build: `-arch arm64` goes to Apple's clang, not nvcc; nvcc's
    /// `-arch sm_80` is still flagged.
    #[test]
    fn apple_arch_is_not_nvcc() {
        let src = "from torch.utils.cpp_extension import CUDAExtension
extra_compile_args['cxx'] += ['-arch', 'arm64']
extra_link_args += ['-arch', 'x86_64']
nvcc_flags = ['-arch', 'sm_80']
";
        assert_eq!(rules(FileKind::SetupPy, src), vec![("HP831".into(), 4)]);
    }

    #[test]
    fn ptx_strings() {
        let src = "PTX = \"\"\"\n.version 7.0\n.target sm_80\n.entry k()\n\"\"\"\nmod = cuModuleLoadData(PTX)\n";
        let r = rules(FileKind::Python, src);
        assert_eq!(r, vec![("HP912".into(), 1), ("HP912".into(), 6)]);
    }

    #[test]
    fn nvidia_only_imports_and_capability_through_variables() {
        let src = "import torch\nimport cuda.bindings.driver as cuda\nimport cutlass.cute as cute\nfrom quack.softmax import softmax\nimport cudf\nmajor, minor = torch.cuda.get_device_capability()\nif major >= 8:\n    pass\ncc = torch.cuda.get_device_capability(0)\nfast = cc[0] >= 9\nother = 3\nok = other >= 9\n";
        let r = rules(FileKind::Python, src);
        let work: Vec<(String, u32)> = r.into_iter().filter(|(c, _)| c != "HP800").collect();
        assert_eq!(
            work,
            vec![
                ("HP821".into(), 2),
                ("HP821".into(), 3),
                ("HP821".into(), 4),
                ("HP811".into(), 7),
                ("HP811".into(), 10),
            ]
        );
    }

    #[test]
    fn cuda_only_arms_of_rocm_tests_are_pass() {
        let src = "from torch.utils.cpp_extension import CUDAExtension\nHIP_BUILD = bool(torch.version.hip)\nif HIP_BUILD:\n    flags = [\"--offload-arch=gfx90a\"]\nelse:\n    flags = [\"-gencode\", \"--use_fast_math\"]\n    v = torch.version.cuda\nw = torch.version.cuda\nCUDAExtension(\"x\", [\"a.cu\"])\n";
        let f = super::super::scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes());
        let got: Vec<(String, u32, String)> = f
            .into_iter()
            .filter(|f| f.rule != "HP800")
            .map(|f| (f.rule, f.line, f.status.as_str().to_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("HP831".into(), 6, "PASS".into()),
                ("HP831".into(), 6, "PASS".into()),
                ("HP810".into(), 7, "PASS".into()),
                ("HP810".into(), 8, "REMEDIATION".into()),
                ("HP830".into(), 9, "PASS".into()),
            ]
        );
    }
}
