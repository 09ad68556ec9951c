//! driver-api (HP5xx): CUDA driver-API patterns that have no one-to-one HIP behaviour even when
//! the names translate: explicit context lifecycles (deprecated in HIP), loading PTX or cubin
//! modules (HIP loads AMDGPU code objects), the JIT linker and its options, and integer
//! arithmetic on `CUdeviceptr` (a pointer, not an integer, in HIP).

use super::RuleInfo;
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::lex::Tok;
use crate::model::syntax::{self, Src};
use std::collections::HashSet;

pub mod loaded;

/// The node kinds the driver-API rules read from the file's node index.
pub const KINDS: &[K] = &[
    K::BinaryExpression,
    K::AssignmentExpression,
    K::UpdateExpression,
];

const REF_MODULE: &str =
    "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_driver_api.html";

rule!(CONTEXT_LIFECYCLE, "HP501", DriverApi, Remediation, Runtime,
    summary: "Explicit driver-API context management (`cuCtxCreate`, `cuCtxPushCurrent`, `cuCtxDestroy`, …).",
    why: "HIP's context API is deprecated: HIP uses one primary context per device, and push/pop/create do not give separate contexts the way CUDA does. Code that depends on context isolation or on the current-context stack behaves differently.",
    bad: "cuCtxCreate(&ctx, 0, dev);\n…\ncuCtxDestroy(ctx);",
    good: "hipSetDevice(dev);   // the primary context; no explicit lifecycle",
    fix: "Replace context creation and the push/pop stack with `hipSetDevice` (or `hipDevicePrimaryCtxRetain` where a handle is required).",
    refs: [REF_MODULE, "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/deprecated_api_list.html"],
);

rule!(MODULE_LOAD_PTX, "HP502", DriverApi, Remediation, Runtime,
    summary: "A module loaded from PTX, cubin or fatbin (`cuModuleLoad`, `cuModuleLoadData(Ex)`, `cuModuleLoadFatBinary`).",
    why: "`hipModuleLoad*` accepts AMDGPU code objects (.hsaco/.co) only; a PTX or cubin image fails to load at run time.",
    bad: "cuModuleLoad(&mod, \"kernels.ptx\");",
    good: "hipModuleLoad(&mod, \"kernels.hsaco\");   // built with hipcc --genco --offload-arch=gfx90a",
    fix: "Build the kernels into a code object (`hipcc --genco`) or compile them at run time with hiprtc, and load that.",
    refs: [REF_MODULE],
);

rule!(JIT_LINKER, "HP503", DriverApi, Remediation, Runtime,
    summary: "The driver JIT linker (`cuLinkCreate`, `cuLinkAddData`, `cuLinkComplete`, …).",
    why: "HIP links with hiprtc's linker (`hiprtcLinkCreate`…), which takes LLVM bitcode from hiprtc, not PTX or cubin inputs, and has its own option set.",
    bad: "cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, size, \"k.ptx\", 0, 0, 0);",
    good: "hiprtcLinkAddData(link, HIPRTC_JIT_INPUT_LLVM_BITCODE, code, size, \"k\", 0, 0, 0);",
    fix: "Produce bitcode with hiprtc (`-fgpu-rdc`) and link it with the hiprtc linker API.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html"],
);

rule!(JIT_OPTIONS, "HP504", DriverApi, Unknown, Runtime,
    summary: "Driver JIT options (`CUjit_option`, `CU_JIT_*`).",
    why: "HIP accepts the JIT option enums for source compatibility but ignores most of them (register limits, optimisation level, target selection, log buffers may stay empty).",
    bad: "CUjit_option opts[] = {CU_JIT_MAX_REGISTERS, CU_JIT_TARGET};",
    good: "// pass -O3 / --offload-arch to hiprtcCompileProgram instead",
    fix: "Move the options to hiprtc compile options, or drop them after checking which HIP honours.",
    refs: [REF_MODULE],
);

rule!(CUDEVICEPTR_ARITHMETIC, "HP505", DriverApi, Remediation, Build,
    summary: "Integer arithmetic on a `CUdeviceptr`.",
    why: "`CUdeviceptr` is an unsigned integer in CUDA but `hipDeviceptr_t` is `void*`: `dptr + offset` does not compile after translation (arithmetic on `void*`).",
    bad: "CUdeviceptr p = base + offset * sizeof(float);",
    good: "hipDeviceptr_t p = (char*)base + offset * sizeof(float);",
    fix: "Do the arithmetic on `char*` (or `uintptr_t` with explicit casts back to `hipDeviceptr_t`).",
    refs: [REF_MODULE],
);

rule!(LEGACY_LAUNCH, "HP506", DriverApi, Remediation, Build,
    summary: "The legacy driver-API launch sequence (`cuParamSetSize`, `cuParamSetv`/`i`/`f`, `cuFuncSetBlockShape`, `cuFuncSetSharedSize`, `cuLaunchGrid(Async)`, `cuLaunch`).",
    why: "CUDA 4.0 replaced this sequence with `cuLaunchKernel`, and HIP has no form of any of its calls: the whole sequence of a launch becomes one `hipModuleLaunchKernel` call that takes the grid, the block, the shared size, the stream and the arguments.",
    bad: "cuParamSetv(f, 0, &d, sizeof(d));\ncuParamSetSize(f, sizeof(d));\ncuFuncSetBlockShape(f, 16, 16, 1);\ncuLaunchGridAsync(f, gx, gy, stream);",
    good: "void* args[] = {&d};\nhipModuleLaunchKernel(f, gx, gy, 1, 16, 16, 1, 0, stream, args, nullptr);",
    fix: "Collect the parameters into a `void*` array and launch with `hipModuleLaunchKernel`; drop the parameter-setting and block-shape calls.",
    refs: [REF_MODULE, "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___module.html"],
);

pub mod device_nodes;

pub const RULES: &[&RuleInfo] = &[
    &CONTEXT_LIFECYCLE,
    &MODULE_LOAD_PTX,
    &JIT_LINKER,
    &JIT_OPTIONS,
    &CUDEVICEPTR_ARITHMETIC,
    &LEGACY_LAUNCH,
    &loaded::LOADED_BY_NAME,
    &device_nodes::NVIDIA_DEVICE_NODE,
];

/// The calls of the pre-4.0 launch sequence ([`LEGACY_LAUNCH`]); the last three launch.
const LEGACY_CALLS: &[&str] = &[
    "cuParamSetSize",
    "cuParamSetv",
    "cuParamSeti",
    "cuParamSetf",
    "cuParamSetTexRef",
    "cuFuncSetBlockShape",
    "cuFuncSetSharedSize",
    "cuLaunch",
    "cuLaunchGrid",
    "cuLaunchGridAsync",
];

/// One finding per legacy launch sequence ([`LEGACY_LAUNCH`]): the calls on one `CUfunction`
/// (their first argument; gpu-burn sets the parameters in one member function and launches in
/// another) are one rewrite, held at its launch (its last call where none launches); the
/// translator's "no HIP equivalent" on each call folds into it.
pub fn legacy_launches(s: &Src, out: &mut Vec<Finding>, translated: &mut [Finding]) {
    // (the function handle's text, call token) of every call of the sequence.
    let mut calls: Vec<(String, usize)> = Vec::new();
    for (i, name) in s.idents() {
        if !name.starts_with("cu") || !LEGACY_CALLS.contains(&name) || s.next_text(i) != "(" {
            continue;
        }
        let pre = s.prev_text(i);
        if pre == "." || pre == "->" {
            continue;
        }
        // The first argument: the tokens up to the first `,` or `)` at depth 0.
        let mut handle = String::new();
        let mut depth = 0i32;
        let mut k = s.lexed.next_code(i).and_then(|o| s.lexed.next_code(o));
        while let Some(j) = k {
            match s.tok(j) {
                "(" | "[" => depth += 1,
                ")" | "]" if depth == 0 => break,
                ")" | "]" => depth -= 1,
                "," if depth == 0 => break,
                t => handle.push_str(t),
            }
            k = s.lexed.next_code(j);
        }
        calls.push((handle, i));
    }
    let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (func, i) in calls {
        groups.entry(func).or_default().push(i);
    }
    for toks in groups.values() {
        let name = |i: usize| s.tok(i);
        let head = toks
            .iter()
            .rev()
            .find(|&&i| name(i).starts_with("cuLaunch"))
            .or_else(|| toks.last())
            .copied()
            .unwrap_or(toks[0]);
        let t = s.lexed.tokens[head];
        let line = s.line(t.start as usize) + 1;
        let mut names: Vec<&str> = toks.iter().map(|&i| name(i)).collect();
        names.dedup();
        let lines: Vec<String> = toks
            .iter()
            .map(|&i| (s.line(s.lexed.tokens[i].start as usize) + 1).to_string())
            .collect();
        out.push(s.ctx.finding(
            &LEGACY_LAUNCH,
            t.range(),
            format!(
                "the legacy launch sequence ({} call(s): `{}`, lines {}) has no HIP form: it is one rewrite as `hipModuleLaunchKernel`",
                toks.len(),
                names.join("`, `"),
                lines.join(", ")
            ),
            Some("collect the parameters into a `void*` array and launch with `hipModuleLaunchKernel(f, gridX, gridY, 1, blockX, blockY, blockZ, sharedBytes, stream, args, nullptr)`; drop the parameter-setting and block-shape calls".into()),
        ));
        let at = format!("{}:{line}", s.ctx.path);
        let starts: HashSet<usize> = toks
            .iter()
            .map(|&i| s.lexed.tokens[i].start as usize)
            .collect();
        for f in translated.iter_mut() {
            if f.status != crate::gate::Status::Pass && starts.contains(&f.byte_range.0) {
                crate::finding::Folded::fold(f, at.clone());
                f.message.push_str(&format!(
                    " (one rewrite with the launch sequence at line {line}: HP506)"
                ));
            }
        }
    }
}

const CONTEXT_CALLS: &[&str] = &[
    "cuCtxCreate",
    "cuCtxCreate_v2",
    "cuCtxCreate_v3",
    "cuCtxCreate_v4",
    "cuCtxDestroy",
    "cuCtxDestroy_v2",
    "cuCtxPushCurrent",
    "cuCtxPushCurrent_v2",
    "cuCtxPopCurrent",
    "cuCtxPopCurrent_v2",
    "cuCtxSetCurrent",
    "cuCtxGetCurrent",
    "cuCtxAttach",
    "cuCtxDetach",
];
const MODULE_CALLS: &[&str] = &[
    "cuModuleLoad",
    "cuModuleLoadData",
    "cuModuleLoadDataEx",
    "cuModuleLoadFatBinary",
    "cuLibraryLoadData",
    "cuLibraryLoadFromFile",
    "cudaLibraryLoadData",
    "cudaLibraryLoadFromFile",
];
const LINK_CALLS: &[&str] = &[
    "cuLinkCreate",
    "cuLinkCreate_v2",
    "cuLinkAddData",
    "cuLinkAddData_v2",
    "cuLinkAddFile",
    "cuLinkAddFile_v2",
    "cuLinkComplete",
    "cuLinkDestroy",
];

pub fn check(s: &Src, out: &mut Vec<Finding>) {
    let mut lines_done: HashSet<usize> = HashSet::new();
    for (i, name) in s.idents() {
        let t = s.lexed.tokens[i];
        let pre = s.prev_text(i);
        if pre == "." || pre == "->" {
            continue;
        }
        let line = s.line(t.start as usize);
        if CONTEXT_CALLS.contains(&name) && s.next_text(i) == "(" {
            out.push(s.ctx.finding(&CONTEXT_LIFECYCLE, t.range(), format!("`{name}`: HIP's context API is deprecated and contexts are per-device primary contexts"), Some("use `hipSetDevice` (primary context) instead of an explicit context lifecycle".into())));
            lines_done.insert(line);
        } else if MODULE_CALLS.contains(&name) && s.next_text(i) == "(" {
            let what = module_image(s, i);
            out.push(s.ctx.finding(&MODULE_LOAD_PTX, t.range(), format!("`{name}` loads {what}; HIP modules must be AMDGPU code objects"), Some("build a code object with `hipcc --genco --offload-arch=…` or compile with hiprtc".into())));
            lines_done.insert(line);
        } else if LINK_CALLS.contains(&name) && s.next_text(i) == "(" {
            out.push(s.ctx.finding(
                &JIT_LINKER,
                t.range(),
                format!(
                    "`{name}`: the driver JIT linker takes PTX/cubin; HIP links hiprtc bitcode"
                ),
                Some("link with `hiprtcLinkCreate`/`hiprtcLinkAddData` on LLVM bitcode".into()),
            ));
            lines_done.insert(line);
        } else if name.starts_with("hiprtcLink") && s.next_text(i) == "(" {
            // A link call `port` already translated: its options were reported with the CUDA
            // call, so a rerun on ported code adds no HP504 the first run did not.
            lines_done.insert(line);
        }
    }
    for (i, name) in s.idents() {
        let t = s.lexed.tokens[i];
        if (name.starts_with("CU_JIT_") || name == "CUjit_option")
            // `CU_JIT_X = 0,` is the enum declaring the option (a dynlink header), not a use.
            && s.next_text(i) != "="
            && !lines_done.contains(&s.line(t.start as usize))
        {
            lines_done.insert(s.line(t.start as usize));
            out.push(s.ctx.finding(
                &JIT_OPTIONS,
                t.range(),
                format!("`{name}`: most driver JIT options are accepted but ignored by HIP"),
                Some("pass compile options to hiprtc instead".into()),
            ));
        }
    }
    deviceptr_arithmetic(s, out);
}

/// "a PTX file", "a cubin image", or "a module image" from the call's arguments.
fn module_image(s: &Src, i: usize) -> &'static str {
    let mut k = i;
    for _ in 0..24 {
        let Some(n) = s.lexed.next_code(k) else { break };
        let t = s.lexed.tokens[n];
        let text = s.tok(n).to_ascii_lowercase();
        if t.kind == Tok::Str && text.contains(".ptx")
            || text.contains("ptx") && t.kind == Tok::Ident
        {
            return "PTX";
        }
        if text.contains("cubin") || text.contains("fatbin") {
            return "a cubin/fatbin image";
        }
        if text == ";" {
            break;
        }
        k = n;
    }
    "a CUDA module image (PTX or cubin)"
}

fn deviceptr_arithmetic(s: &Src, out: &mut Vec<Finding>) {
    let Some(tree) = s.tree else { return };
    let root = tree.root_node();
    let vars: HashSet<&str> = syntax::typed_variables(s, root, |t| t == "CUdeviceptr")
        .into_iter()
        .collect();
    if vars.is_empty() {
        return;
    }
    let is_var = |n: tree_sitter::Node| {
        let mut n = n;
        while n.node_kind() == K::ParenthesizedExpression {
            match n.named_child(0) {
                Some(c) => n = c,
                None => break,
            }
        }
        n.node_kind() == K::Identifier && vars.contains(s.text(n))
    };
    for n in s.of_kinds(&[
        K::BinaryExpression,
        K::AssignmentExpression,
        K::UpdateExpression,
    ]) {
        let hit = match n.node_kind() {
            K::BinaryExpression => {
                let op = n.field(F::Operator).map_or("", |o| s.text(o));
                matches!(op, "+" | "-")
                    && (n.field(F::Left).is_some_and(is_var)
                        || n.field(F::Right).is_some_and(is_var))
            }
            K::AssignmentExpression => {
                let op = n.field(F::Operator).map_or("", |o| s.text(o));
                matches!(op, "+=" | "-=") && n.field(F::Left).is_some_and(is_var)
            }
            K::UpdateExpression => n.field(F::Argument).is_some_and(is_var),
            _ => false,
        };
        if hit {
            out.push(s.ctx.finding(
                &CUDEVICEPTR_ARITHMETIC,
                n.byte_range(),
                format!(
                    "`{}` treats a `CUdeviceptr` as an integer; `hipDeviceptr_t` is `void*`",
                    s.text(n)
                ),
                Some("do the arithmetic on `(char*)ptr`".into()),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::fires;

    #[test]
    fn lifecycle_modules_linker_options_and_pointer_math() {
        let src = "int main() {\n  cuCtxCreate(&ctx, 0, dev);\n  cuModuleLoad(&m, \"k.ptx\");\n  cuModuleGetFunction(&f, m, \"k\");\n  cuLinkCreate(0, 0, 0, &l);\n  CUjit_option o = CU_JIT_MAX_REGISTERS;\n  CUdeviceptr a, b;\n  b = a + 16;\n  size_t n = 16 + 4;\n  cuDevicePrimaryCtxRetain(&ctx, dev);\n}\n";
        assert_eq!(fires(src, "HP501"), [2]);
        assert_eq!(fires(src, "HP502"), [3]);
        assert_eq!(fires(src, "HP503"), [5]);
        assert_eq!(fires(src, "HP504"), [6]);
        assert_eq!(fires(src, "HP505"), [8]);
    }
}

#[cfg(test)]
mod legacy_launch_tests {
    use crate::model::syntax::test_support::hazard_findings_at;

    /// gpu-burn's shape: parameters and block shape set in one member function, the launch in
    /// another, all on one `CUfunction`: one rewrite. Twins: a second function handle is its own
    /// sequence; `cuLaunchKernel` (CUDA 4.0+) is translated and needs no rewrite.
    #[test]
    fn a_legacy_launch_sequence_is_one_rewrite() {
        let src = "struct K {\n  CUfunction f, g;\n  void init(float* d) {\n    cuParamSetSize(f, sizeof(d));\n    cuParamSetv(f, 0, &d, sizeof(d));\n    cuFuncSetBlockShape(f, 16, 16, 1);\n  }\n  void run() {\n    cuLaunchGridAsync(f, 8, 8, 0);\n    cuLaunchGrid(g, 4, 4);\n  }\n  void modern(void** a) { cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, a, 0); }\n};\n";
        let fs: Vec<_> = hazard_findings_at("k.cpp", src)
            .into_iter()
            .filter(|f| f.rule == "HP506")
            .collect();
        assert_eq!(fs.len(), 2, "{fs:?}");
        assert_eq!(fs[0].line, 9);
        assert!(
            fs[0].message.contains("lines 4, 5, 6, 9"),
            "{}",
            fs[0].message
        );
        assert_eq!(fs[1].line, 10);
    }
}
