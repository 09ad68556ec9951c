//! inline-asm (HP2xx): `asm`/`asm volatile` statements that hold PTX. HIP-Clang compiles for
//! AMDGPU, where PTX means nothing: each statement must be rewritten with HIP intrinsics or
//! plain C++. The finding names the PTX instructions and special registers it found and the
//! HIP replacement where one is known. Empty templates (`asm volatile("" ::: "memory")`) and
//! AMDGPU assembly are not flagged.

use super::RuleInfo;
use crate::finding::Finding;
use crate::kinds::cuda::NodeExt;
use crate::lex::Tok;
use crate::model::syntax::Src;

rule!(INLINE_PTX, "HP201", InlineAsm, Remediation, Build,
    summary: "Inline PTX assembly (`asm(\"mov.u32 %0, %%laneid;\" …)`).",
    why: "PTX is NVIDIA's virtual ISA; HIP-Clang targets AMDGPU and rejects it, so the file does not compile until every PTX statement is replaced.",
    bad: "asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));",
    good: "lane = __lane_id();",
    fix: "Replace each statement with the HIP intrinsic the message names (e.g. %laneid → __lane_id(), %smid → __smid(), ex2.approx → exp2f/__exp2f, shfl.sync → __shfl_* with width 32, `bar.sync 0` → __syncthreads(); a named barrier over part of the block, `bar.sync id, count`, has none), or with plain C++; keep the PTX under `#ifdef __CUDA_ARCH__`/`#ifndef __HIP_PLATFORM_AMD__` only if the CUDA build must stay.",
    refs: ["https://docs.nvidia.com/cuda/inline-ptx-assembly/index.html", "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html", "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/kernel_language.html"],
);

pub const RULES: &[&RuleInfo] = &[&INLINE_PTX];

/// PTX opcode (first dotted segment) or special register → HIP replacement.
const HIP_EQUIVALENTS: &[(&str, &str)] = &[
    ("%laneid", "__lane_id()"),
    ("%smid", "__smid()"),
    ("%nsmid", "hipDeviceProp_t::multiProcessorCount"),
    ("%warpid", "threadIdx / warpSize (no hardware slot id)"),
    ("%clock64", "wall_clock64() (constant rate) or clock64()"),
    ("%clock", "wall_clock64() or clock64()"),
    ("%globaltimer", "wall_clock64()"),
    ("%lanemask_lt", "__lanemask_lt()"),
    ("%lanemask_le", "__lanemask_lt() | __lanemask_eq()"),
    ("%lanemask_eq", "__lanemask_eq()"),
    ("%lanemask_gt", "__lanemask_gt()"),
    (
        "%dynamic_smem_size",
        "the launch's dynamic shared size passed as an argument",
    ),
    ("ex2", "exp2f / __exp2f"),
    ("lg2", "log2f / __log2f"),
    ("rcp", "__frcp_rn or 1.0f / x"),
    ("rsqrt", "rsqrtf"),
    ("sqrt", "sqrtf / __fsqrt_rn"),
    ("sin", "__sinf"),
    ("cos", "__cosf"),
    ("tanh", "tanhf"),
    ("shfl", "__shfl / __shfl_xor / __shfl_up / __shfl_down"),
    ("vote", "__ballot / __all / __any"),
    ("activemask", "__activemask()"),
    ("bar", "__syncthreads() (bar.warp.sync → __syncwarp())"),
    ("barrier", "__syncthreads()"),
    (
        "membar",
        "__threadfence() / __threadfence_block() / __threadfence_system()",
    ),
    ("fence", "__threadfence() or __atomic_thread_fence"),
    ("bfe", "__bitextract_u32"),
    ("bfi", "__bitinsert_u32"),
    ("prmt", "__byte_perm"),
    ("brev", "__brev"),
    ("popc", "__popc / __popcll"),
    ("clz", "__clz / __clzll"),
    ("bfind", "31 - __clz(x)"),
    ("lop3", "a plain bitwise expression"),
    ("mul", "__umulhi / __mulhi / 64-bit multiply"),
    ("mad", "a plain multiply-add (or __umulhi for .hi)"),
    ("dp4a", "__builtin_amdgcn_sdot4 / udot4 (gfx9+)"),
    (
        "cvt",
        "HIP conversion intrinsics (__float2half_rn, __float2int_rn, …) or casts",
    ),
    ("ld", "a plain load, __ldg, or __builtin_nontemporal_load"),
    ("st", "a plain store or __builtin_nontemporal_store"),
    (
        "cp",
        "plain loads into shared memory followed by __syncthreads()",
    ),
    ("mma", "rocWMMA or __builtin_amdgcn_mfma_* intrinsics"),
    ("ldmatrix", "rocWMMA load_matrix_sync"),
    ("red", "atomicAdd / atomicMax … (unused result)"),
    ("atom", "atomicAdd / atomicCAS …"),
    ("nanosleep", "__builtin_amdgcn_s_sleep"),
    ("trap", "__builtin_trap() or abort()"),
    (
        "add",
        "plain C++ (+, __builtin_add_overflow for .cc carries)",
    ),
    ("addc", "__builtin_addc / 64-bit arithmetic"),
    ("sub", "plain C++"),
    ("mov", "plain C++ (or the special-register intrinsic)"),
    ("setp", "a comparison"),
    ("selp", "the ternary operator"),
    ("min", "min()"),
    ("max", "max()"),
    ("fma", "fmaf / __fmaf_rn"),
    ("prefetch", "__builtin_prefetch or nothing"),
];

/// The HIP replacement of a PTX instruction: by its type and qualifiers where they change the
/// answer (packed halves, doubles, ordered loads and stores, fp8 conversions), else by opcode.
fn equivalent(op: &str, base: &str) -> Option<&'static str> {
    let has = |q: &str| op.split('.').skip(1).any(|p| p == q);
    let packed = has("f16x2");
    let bpacked = has("bf16x2");
    let half = has("f16") || has("bf16");
    let double = has("f64");
    let specific = match base {
        "shfl" => Some(shuffle(op)),
        "fma" if packed || bpacked => Some("__hfma2 (on __half2 / __hip_bfloat162)"),
        "fma" if half => Some("__hfma"),
        "fma" if double => Some("fma / __fma_rn"),
        "mul" if packed || bpacked => Some("__hmul2 (on __half2 / __hip_bfloat162)"),
        "mul" if half => Some("__hmul"),
        "mul" if has("hi") => Some("__umulhi / __mulhi (__umul64hi / __mul64hi for 64-bit)"),
        "mul" if has("wide") => Some("a 64-bit multiply"),
        "mul" if has("lo") => Some("a plain multiply (its low half)"),
        "mul" if double || has("f32") => Some("a plain multiply (__fmul_rn / __dmul_rn)"),
        "add" if packed || bpacked => Some("__hadd2 (on __half2 / __hip_bfloat162)"),
        "sub" if packed || bpacked => Some("__hsub2 (on __half2 / __hip_bfloat162)"),
        "max" if packed || bpacked => Some("__hmax2"),
        "min" if packed || bpacked => Some("__hmin2"),
        "ex2" if packed => Some("h2exp2"),
        "rcp" if double => Some("__drcp_rn or 1.0 / x (double)"),
        "sqrt" if double => Some("sqrt / __dsqrt_rn"),
        "rsqrt" if double => Some("rsqrt (double)"),
        "cvt" if has("e4m3x2") || has("e5m2x2") || has("e4m3") || has("e5m2") => {
            Some("HIP's fp8 conversions (`__hip_cvt_float2_to_fp8x2`, `__hip_fp8x2_e4m3`); mind that gfx942 uses the FNUZ fp8 formats")
        }
        "cvt" if has("e2m1x2") => Some("a software fp4 (e2m1) conversion, or the target's packed fp4 builtins (gfx950)"),
        "cvt" if bpacked => Some("__float22bfloat162_rn"),
        "cvt" if packed => Some("__float22half2_rn"),
        "ld" if has("acquire") || has("volatile") || has("cg") || has("relaxed") => Some(
            "a plain load; where it polls a flag or lock another block writes, an acquire atomic load (`__hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)`)",
        ),
        "st" if has("release") || has("volatile") || has("cg") || has("relaxed") => Some(
            "a plain store; where it publishes data or a lock to another block, a release atomic store (`__hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT)`)",
        ),
        _ => None,
    };
    specific.or_else(|| {
        HIP_EQUIVALENTS
            .iter()
            .find(|(k, _)| *k == base)
            .map(|(_, v)| *v)
    })
}

/// PTX instruction opcodes (the part before the first `.`), from the PTX ISA's instruction
/// set: a dotted mnemonic whose base is not one of these is not PTX.
const PTX_OPCODES: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "alloca",
    "and",
    "applypriority",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "bra",
    "brev",
    "brkpt",
    "brx",
    "call",
    "clusterlaunchcontrol",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "cvt",
    "cvta",
    "createpolicy",
    "discard",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "exit",
    "fence",
    "fma",
    "fns",
    "getctarank",
    "griddepcontrol",
    "isspacep",
    "istypep",
    "ld",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mapa",
    "match",
    "max",
    "mbarrier",
    "membar",
    "min",
    "mma",
    "mov",
    "movmatrix",
    "mul",
    "mul24",
    "multimem",
    "nanosleep",
    "neg",
    "not",
    "or",
    "pmevent",
    "popc",
    "prefetch",
    "prefetchu",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "ret",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setmaxnreg",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "st",
    "stackrestore",
    "stacksave",
    "stmatrix",
    "sub",
    "subc",
    "suld",
    "suq",
    "sured",
    "sust",
    "szext",
    "tanh",
    "tcgen05",
    "tensormap",
    "testp",
    "tex",
    "tld4",
    "trap",
    "txq",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vadd",
    "vadd2",
    "vadd4",
    "vavrg2",
    "vavrg4",
    "vmad",
    "vmax",
    "vmax2",
    "vmax4",
    "vmin",
    "vmin2",
    "vmin4",
    "vote",
    "vset",
    "vset2",
    "vset4",
    "vshl",
    "vshr",
    "vsub",
    "vsub2",
    "vsub4",
    "wgmma",
    "wmma",
    "xor",
];

/// PTX instruction modifiers (state spaces, scopes, orderings, rounding, shapes…) that are
/// not types: a dotted opcode needs a type or one of these to read as PTX (`mov.u32`,
/// `bar.sync`), which rules out other ISAs' `mov.m.x` or `fence.i`.
const PTX_MODIFIERS: &[&str] = &[
    "sync",
    "aligned",
    "global",
    "shared",
    "local",
    "const",
    "param",
    "sys",
    "gpu",
    "cta",
    "cluster",
    "gl",
    "acquire",
    "release",
    "acq_rel",
    "relaxed",
    "sc",
    "weak",
    "volatile",
    "mmio",
    "async",
    "bulk",
    "tensor",
    "approx",
    "full",
    "ftz",
    "sat",
    "rn",
    "rz",
    "rm",
    "rp",
    "rni",
    "rzi",
    "rmi",
    "rpi",
    "rna",
    "wide",
    "hi",
    "lo",
    "cc",
    "ca",
    "cg",
    "cs",
    "lu",
    "cv",
    "wb",
    "wt",
    "nc",
    "wait",
    "arrive",
    "expect_tx",
    "try_wait",
    "test_wait",
    "init",
    "inval",
    "parity",
    "commit_group",
    "wait_group",
    "wait_all",
    "all",
    "any",
    "uni",
    "ballot",
    "up",
    "down",
    "bfly",
    "idx",
    "red",
    "add",
    "min",
    "max",
    "inc",
    "dec",
    "and",
    "or",
    "xor",
    "exch",
    "cas",
    "popc",
    "clamp",
    "wrap",
    "shiftwrap",
    "to",
    "proxy",
    "trans",
    "x1",
    "x2",
    "x4",
    "row",
    "col",
    "noftz",
    "relu",
    "satfinite",
    "launch_dependents",
    "ld_reduce",
    "multimem",
    "fence",
    "alloc",
    "dealloc",
    "commit",
    "mma",
    "cp",
    "ld",
    "st",
    "fractional",
    "L1",
    "L2",
    "collector",
    "level",
    "zfill",
    "mbarrier",
    "noinc",
    "pending_count",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "equ",
    "neu",
    "ltu",
    "leu",
    "gtu",
    "geu",
    "num",
    "nan",
    "ls",
    "hs",
    "nanosleep",
    "read",
    "write",
    "range",
    "m8n8",
    "m16n8k16",
    "m16n8k8",
    "m16n8k32",
    "m16n16k16",
    "m8n8k4",
    "m16n8k4",
    "abs",
    "neg",
    "mode",
    "dynamic",
];

/// Whether one dotted segment of an opcode is a PTX type or modifier.
fn ptx_suffix(seg: &str) -> bool {
    let ty = |t: &str| {
        let digits = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let letters = &t[..t.len() - digits.len()];
        matches!(letters, "b" | "s" | "u" | "f" | "bf" | "e" | "tf" | "v")
            && !digits.is_empty()
            && digits
                .chars()
                .all(|c| c.is_ascii_digit() || c == 'x' || c == 'm')
    };
    seg.contains("::") || ty(seg) || seg == "pred" || PTX_MODIFIERS.contains(&seg)
}

/// PTX opcodes without a dotted suffix that are still recognisably PTX.
const BARE_PTX: &[&str] = &[
    "trap",
    "exit",
    "ret",
    "brkpt",
    "pmevent",
    "activemask",
    "nanosleep",
    "membar",
    "bar",
    "elect",
];

pub fn check(s: &Src, seen: &crate::model::project::Visible, out: &mut Vec<Finding>) {
    // The arms only the device pass compiles, computed for the first asm statement.
    let device_arms = std::cell::OnceCell::new();
    let device_arm = |at: usize| {
        let arms = device_arms.get_or_init(|| {
            let own = crate::model::device_arms::macros(s.bytes(), s.lexed);
            let is_dev = |t: &str| {
                crate::model::device_arms::BUILTIN.contains(&t)
                    || own.iter().any(|m| m == t)
                    || seen.device_macros.contains(t)
            };
            crate::model::device_arms::arms(s.bytes(), s.lexed, &is_dev)
        });
        crate::model::device_arms::within(arms, at).map(|d| {
            format!(
                "{DEVICE_PASS}`{}`, line {})",
                crate::model::hipside::directive_text(s, d.clone()),
                s.line(d.start) + 1
            )
        })
    };
    for (i, name) in s.idents() {
        if !matches!(name, "asm" | "__asm__" | "__asm") {
            continue;
        }
        let Some((open, close)) = statement(s, i) else {
            continue;
        };
        // PTX compiles only in device code: asm in a host function is the host's assembly
        // (ARM NEON in a CPU backend, x86), whatever its mnemonics look like — unless an arm
        // only the device pass compiles holds it (pbrt-v4's `LogFatal`: `#ifdef
        // PBRT_IS_GPU_CODE` / `asm("trap;")` in a `__host__ __device__` function its header
        // declares).
        let at = s.lexed.tokens[i].start as usize;
        let in_device_arm = device_arm(at);
        if in_device_arm.is_none() && host_only(s, at) {
            continue;
        }
        let code = template(s, open, close);
        let mut found = ptx_items(&code);
        if found.is_empty() {
            found = macro_template(s, open, close, &code);
        }
        if found.is_empty() {
            continue;
        }
        let start = s.lexed.tokens[i].start as usize;
        let end = s.lexed.tokens[close].end as usize;
        let names: Vec<String> = found.iter().map(|(n, _)| format!("`{n}`")).collect();
        let mut hints: Vec<String> = found
            .iter()
            .filter_map(|(n, hip)| hip.map(|h| format!("{n} → {h}")))
            .collect();
        hints.dedup();
        let suggestion = if hints.is_empty() {
            "rewrite with HIP intrinsics or plain C++ (no direct HIP equivalent known)".to_string()
        } else {
            format!("replace with HIP: {}", hints.join("; "))
        };
        // The function it lives in, where its operands compile for AMDGPU when nothing calls
        // it (a device function no one calls is never generated; 64- and 16-bit register
        // constraints `"l"`/`"h"` fail anyway): `scan` settles the PTX of helpers no source of
        // the project calls ([`settle_uncalled`]).
        let constraints_fail = (open..close).any(|k| {
            s.lexed.tokens[k].kind == Tok::Str && {
                let t = s.tok(k).trim_matches('"');
                t.trim_start_matches(['=', '+', '&']) == "l"
                    || t.trim_start_matches(['=', '+', '&']) == "h"
            }
        });
        // A kernel (`__global__`) is an entry point: compiled whether or not this project
        // launches it.
        let kernel = s
            .tree
            .and_then(|t| t.root_node().descendant_for_byte_range(start, start))
            .and_then(|n| s.enclosing_function(n))
            .is_some_and(|f| {
                let head = f
                    .field(crate::kinds::cuda::Field::Body)
                    .map_or(f.end_byte(), |b| b.start_byte());
                String::from_utf8_lossy(&s.bytes()[f.start_byte()..head]).contains("__global__")
            });
        let host = if constraints_fail || kernel {
            String::new()
        } else {
            crate::model::hipside::function_around(s, start)
                .map_or(String::new(), |f| format!(" (in `{f}`)"))
        };
        out.push(s.ctx.finding(
            &INLINE_PTX,
            start..end,
            format!(
                "inline PTX does not compile for AMDGPU: {}{host}{}",
                names.join(", "),
                in_device_arm.unwrap_or_default()
            ),
            Some(suggestion),
        ));
    }
}

/// Whether the function around byte `at` certainly compiles for the host only: CUDA compiles a
/// function for the device only when it is `__device__`/`__global__` (a lambda inside it may be
/// too). Certain means no such qualifier in the function's text, and no word before its name
/// that could be a macro spelling one: an upper-case name this file does not define, or defines
/// with a device qualifier (`HOST_DEVICE inline`, `CUTLASS_DEVICE`).
fn host_only(s: &Src, at: usize) -> bool {
    let Some(n) = s
        .tree
        .and_then(|t| t.root_node().descendant_for_byte_range(at, at))
    else {
        return false;
    };
    let Some(f) = s.enclosing_function(n) else {
        return false;
    };
    let src = s.bytes();
    let text = &src[f.start_byte()..f.end_byte()];
    if memchr::memmem::find(text, b"__device__").is_some()
        || memchr::memmem::find(text, b"__global__").is_some()
    {
        return false;
    }
    // The head: from the end of what precedes the function (a `;`, `{`, `}` or a directive line)
    // to its name, so that a qualifier macro the grammar left outside the definition counts.
    let name_at = f
        .field(crate::kinds::cuda::Field::Declarator)
        .map_or(f.start_byte(), |d| d.start_byte());
    let before = &src[..f.start_byte()];
    let from = before
        .iter()
        .rposition(|&b| matches!(b, b';' | b'{' | b'}'))
        .map_or(0, |p| p + 1);
    let head = String::from_utf8_lossy(&src[from..name_at]);
    // The file's `#define`s, from the lexer's directives: a name defined without a device
    // qualifier in its body.
    let defines_plainly = |w: &str| {
        s.lexed.directives.iter().any(|d| {
            d.name == "define"
                && d.tokens.clone().nth(2).is_some_and(|n| {
                    let t = s.lexed.tokens[n];
                    t.text(src) == w.as_bytes() && {
                        let body = &src[t.end as usize..d.end];
                        memchr::memmem::find(body, b"__device__").is_none()
                            && memchr::memmem::find(body, b"__global__").is_none()
                    }
                })
        })
    };
    head.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|w| {
            w.len() > 1
                && w.chars().any(|c| c.is_ascii_uppercase())
                && !w.chars().any(|c| c.is_ascii_lowercase())
        })
        .all(defines_plainly)
}

/// The marker [`check`] puts on PTX whose operands compile for AMDGPU: the function around it.
const IN_FUNCTION: &str = " (in `";

/// The marker [`check`] puts on PTX in an arm only the device pass compiles: device code
/// whatever file holds it ([`settle_host_files`] keeps it).
pub(crate) const DEVICE_PASS: &str = " (in the device pass: ";

mod host_files;
pub mod ptx_text;
mod uncalled;
pub use host_files::settle_host_files;
pub use uncalled::settle_uncalled;

/// The `(` and matching `)` token indices of the asm statement whose keyword is token `i`.
pub(crate) fn statement(s: &Src, i: usize) -> Option<(usize, usize)> {
    let mut j = s.lexed.next_code(i)?;
    while matches!(
        s.tok(j),
        "volatile" | "__volatile__" | "__volatile" | "inline" | "goto"
    ) {
        j = s.lexed.next_code(j)?;
    }
    if s.tok(j) != "(" {
        return None;
    }
    let mut depth = 0i32;
    let mut k = j;
    loop {
        match s.tok(k) {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some((j, k));
                }
            }
            _ => {}
        }
        k = s.lexed.next_code(k)?;
        if k - j > 4000 {
            return None;
        }
    }
}

/// PTX in a template that starts with a macro (`asm(LD_NC ".f32 %0, [%1];" …)`): the macro's
/// string value when the file defines it, else the rest of the template when it reads as PTX
/// operands (a `.type` suffix, `[%1]` addresses or `{%0, %1}` vectors).
fn macro_template(
    s: &Src,
    open: usize,
    close: usize,
    code: &str,
) -> Vec<(String, Option<&'static str>)> {
    let mut k = open + 1;
    while k < close && s.lexed.tokens[k].kind == Tok::Comment {
        k += 1;
    }
    if k >= close || s.lexed.tokens[k].kind != Tok::Ident {
        return Vec::new();
    }
    let name = s.tok(k);
    if let Some((_, body, _)) = s.object_macros().into_iter().find(|(n, _, _)| *n == name) {
        if body.starts_with('"') {
            let joined = format!("{}{}", body.trim_matches('"'), code);
            return ptx_items(&joined);
        }
    }
    let rest = code.trim_start();
    let suffix = rest
        .strip_prefix('.')
        .and_then(|r| r.split(|c: char| c.is_whitespace()).next())
        .is_some_and(|seg| seg.split('.').any(ptx_suffix));
    let operands = rest.contains("[%") || rest.contains("{%");
    if suffix || (operands && code.contains('%')) {
        vec![(format!("{name} …"), None)]
    } else {
        Vec::new()
    }
}

/// The assembly template: string literals before the first top-level `:`.
pub(crate) fn template(s: &Src, open: usize, close: usize) -> String {
    let mut code = String::new();
    let mut depth = 0;
    for k in open + 1..close {
        let t = s.lexed.tokens[k];
        match (t.kind, s.tok(k)) {
            (Tok::Punct, "(") => depth += 1,
            (Tok::Punct, ")") => depth -= 1,
            (Tok::Punct, ":") if depth == 0 => break,
            (Tok::Str, text) => {
                let inner = text.trim_start_matches(|c: char| c != '"');
                code.push_str(inner.trim_matches('"'));
                code.push('\n');
            }
            _ => {}
        }
    }
    code.replace("\\n", "\n").replace("\\t", " ")
}

/// What a named barrier over part of a block becomes: no HIP intrinsic waits for a subset.
const NAMED_BARRIER: &str = "no HIP counterpart: a named barrier over a subset of the block's threads (`bar.sync id, count`, `bar.arrive`); `__syncthreads()` would wait for every thread of the block and hang where the others never arrive. Restructure the thread roles it separates (one role per block or kernel, or a shared-memory flag with atomics and `__builtin_amdgcn_s_sleep`)";

/// A barrier instruction that names part of the block: `bar.sync 1, 64` / `barrier.sync id,
/// count` (a thread count), or `bar.arrive` / `bar.red` (arrive without waiting, or a reduction
/// over a named barrier). `bar.sync 0` and `barrier.sync.aligned id` of the whole block are
/// `__syncthreads()`; `bar.warp.sync` is `__syncwarp()`.
fn named_barrier(op: &str, base: &str, operands: &str) -> bool {
    if !matches!(base, "bar" | "barrier") || op.split('.').nth(1) == Some("warp") {
        return false;
    }
    let mode = op.split('.').nth(1).unwrap_or("");
    matches!(mode, "arrive" | "red") || operands.contains(',')
}

/// The HIP form of a PTX shuffle: a PTX shuffle exchanges within a 32-lane warp (or the
/// narrower segment its `c` operand sets), HIP's default width is the wavefront (64 lanes on
/// CDNA), so the width is spelled out.
fn shuffle(op: &str) -> &'static str {
    let mode = op
        .split('.')
        .find(|p| matches!(*p, "up" | "down" | "bfly" | "idx"));
    match mode {
        Some("up") => "__shfl_up(v, delta, 32): a PTX shuffle spans a 32-lane warp (or the narrower segment its c operand sets) and HIP's default width is the 64-lane wavefront",
        Some("down") => "__shfl_down(v, delta, 32): a PTX shuffle spans a 32-lane warp (or the narrower segment its c operand sets) and HIP's default width is the 64-lane wavefront",
        Some("bfly") => "__shfl_xor(v, laneMask, 32): a PTX shuffle spans a 32-lane warp (or the narrower segment its c operand sets) and HIP's default width is the 64-lane wavefront",
        Some("idx") => "__shfl(v, srcLane, 32): a PTX shuffle spans a 32-lane warp (or the narrower segment its c operand sets) and HIP's default width is the 64-lane wavefront",
        _ => "__shfl / __shfl_xor / __shfl_up / __shfl_down with width 32 (a PTX shuffle spans a 32-lane warp)",
    }
}

/// PTX instructions and special registers in a template, each with its HIP replacement.
pub fn ptx_items(code: &str) -> Vec<(String, Option<&'static str>)> {
    let mut out: Vec<(String, Option<&'static str>)> = Vec::new();
    let mut push = |name: String, hip: Option<&'static str>| {
        if !out.iter().any(|(n, _)| *n == name) {
            out.push((name, hip));
        }
    };
    for stmt in code.split([';', '\n', '{', '}']) {
        let mut words = stmt.split_whitespace().peekable();
        // Predicates (`@p`) and labels (`L1:`).
        while words
            .peek()
            .is_some_and(|w| w.starts_with('@') || w.ends_with(':'))
        {
            words.next();
        }
        let Some(op) = words.next() else { continue };
        if op.starts_with('.')
            || op.starts_with("s_")
            || op.starts_with("v_")
            || op.starts_with("ds_")
            || op.starts_with("global_")
            || op.starts_with("buffer_")
            || op.starts_with("flat_")
        {
            continue;
        }
        let base = op.split('.').next().unwrap_or("");
        // Other ISAs use dotted mnemonics too (RISC-V `fadd.s`, vendor `flw.ps`):
        // only opcodes PTX defines count.
        let dotted = op.contains('.')
            && PTX_OPCODES.contains(&base)
            // `"ld." #space ".u32"`: a template pasted from literals ends the opcode at a `.`.
            && (op.ends_with('.') || op.split('.').skip(1).any(ptx_suffix));
        if dotted || BARE_PTX.contains(&op) {
            let operands: String = words.collect::<Vec<_>>().join(" ");
            let hip = if named_barrier(op, base, &operands) {
                Some(NAMED_BARRIER)
            } else {
                equivalent(op, base)
            };
            push(op.to_string(), hip);
        }
    }
    for (reg, hip) in HIP_EQUIVALENTS.iter().filter(|(k, _)| k.starts_with('%')) {
        let pat = format!("%{reg}");
        let mut from = 0;
        while let Some(p) = code[from..].find(&pat) {
            let end = from + p + pat.len();
            let next = code[end..].chars().next();
            if !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                push(reg.to_string(), Some(hip));
                break;
            }
            from = end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The replacement follows the instruction's types: llm-awq's `fma.rn.f16x2` and
    /// `mul.f16x2` are packed-half operations, xmrig's `rcp.approx.ftz.f64` a double, and a
    /// split-K lock's `ld.global.cg`/`st.global.cg` need ordering. Twins keep the opcode's
    /// general advice.
    #[test]
    fn replacements_follow_types_and_ordering() {
        let hip = |op: &str| equivalent(op, op.split('.').next().unwrap()).unwrap_or("");
        assert!(hip("fma.rn.f16x2").starts_with("__hfma2"));
        assert!(hip("mul.f16x2").starts_with("__hmul2"));
        assert!(hip("rcp.approx.ftz.f64").starts_with("__drcp_rn"));
        assert!(hip("ld.global.cg.b32").contains("__ATOMIC_ACQUIRE"));
        assert!(hip("st.global.cg.b32").contains("__ATOMIC_RELEASE"));
        assert!(hip("cvt.rn.satfinite.e4m3x2.f32").contains("fp8"));
        assert_eq!(hip("fma.rn.f32"), "fmaf / __fmaf_rn");
        assert_eq!(hip("rcp.approx.ftz.f32"), "__frcp_rn or 1.0f / x");
        assert_eq!(hip("mul.lo.u32"), "a plain multiply (its low half)");
        assert_eq!(hip("mul.u32"), "__umulhi / __mulhi / 64-bit multiply");
        assert_eq!(
            hip("ld.global.nc.f32"),
            "a plain load, __ldg, or __builtin_nontemporal_load"
        );
    }

    #[test]
    fn names_instructions_and_registers() {
        let items = ptx_items("mov.u32 %0, %%laneid;");
        let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["mov.u32", "%laneid"]);
        assert_eq!(items[1].1, Some("__lane_id()"));
        let items = ptx_items("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ex2.approx.f32 %0, %1; }");
        assert!(items
            .iter()
            .any(|(n, h)| n == "ex2.approx.f32" && h.unwrap().contains("exp2f")));
        assert!(ptx_items("").is_empty());
        assert!(ptx_items("s_waitcnt vmcnt(0)").is_empty());
        assert!(ptx_items("%%clock64_x").is_empty());
        // RISC-V and vendor vector ISAs use dotted mnemonics too.
        assert!(ptx_items("flw.ps f10, 0(%[p])\n fadd.ps f10, f10, f11").is_empty());
        assert!(ptx_items("fmv.x.s %0, %1").is_empty());
        assert!(ptx_items("mov.m.x m0, zero, 0xff").is_empty());
        assert!(ptx_items("fence.i").is_empty());
        for ptx in [
            "mov.b32 {%0, %1}, %2;",
            "bar.sync 0;",
            "membar.gl;",
            "griddepcontrol.wait;",
            "fence.proxy.async.shared::cta;",
            "cp.async.commit_group;",
            "elect.sync %0|%1, %2;",
            "ld.global.nc.L1::no_allocate.v4.s32 {%0,%1,%2,%3}, [%4];",
            "cvt.rn.bf16x2.f32 %0, %1, %2;",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};",
            "ld.global.cs.u8 {%0}, [%1];",
            "prmt.b32 %0, %1, %2, %3;",
            "mul.wide.u32 %0, %1, %2;",
        ] {
            assert!(!ptx_items(ptx).is_empty(), "{ptx}");
        }
        assert!(
            !ptx_items("cp.async.bulk.tensor.2d.shared::cluster.global [%0], [%1];").is_empty()
        );
    }

    /// A named barrier over part of the block (nv-wavenet's `bar.sync %0, %1` between its
    /// warp-specialised roles) has no HIP counterpart; its twins, the whole block's `bar.sync
    /// 0` and a warp's `bar.warp.sync`, keep their intrinsics.
    #[test]
    fn named_barriers_are_not_syncthreads() {
        let hint = |ptx: &str| ptx_items(ptx)[0].1.unwrap_or("");
        assert!(hint("bar.sync %0, %1;").starts_with("no HIP counterpart: a named barrier"));
        assert!(hint("bar.sync 1, 64;").starts_with("no HIP counterpart"));
        assert!(hint("bar.arrive 2, 128;").starts_with("no HIP counterpart"));
        assert!(hint("barrier.sync.aligned 1, 96;").starts_with("no HIP counterpart"));
        assert!(hint("bar.sync 0;").starts_with("__syncthreads()"));
        assert!(hint("bar.warp.sync %0;").contains("__syncwarp()"));
    }

    /// A PTX shuffle spans 32 lanes: its HIP form names width 32 (surfelwarp's `shfl.up.b32`
    /// scan, which 32-lane logical warps call).
    #[test]
    fn ptx_shuffles_keep_width_32() {
        let hint = |ptx: &str| ptx_items(ptx)[0].1.unwrap_or("");
        assert!(hint("shfl.up.b32 r0|p, %1, %2, 0;").starts_with("__shfl_up(v, delta, 32)"));
        assert!(hint("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, %3;")
            .starts_with("__shfl_xor(v, laneMask, 32)"));
        assert!(
            hint("shfl.sync.idx.b32 %0, %1, %2, 0x1f, -1;").starts_with("__shfl(v, srcLane, 32)")
        );
    }
}

#[cfg(test)]
mod rule_tests {
    use crate::model::syntax::test_support::{fires, fires_open};

    #[test]
    fn ptx_behind_a_macro() {
        let src = "#define LD_NC \"ld.global.nc\"\n__device__ float f(const float* p) {\n  float r;\n  asm volatile(LD_NC \".f32 %0, [%1];\" : \"=f\"(r) : \"l\"(p));\n  asm volatile(OTHER_LD \".s32 %0, [%1];\" : \"=r\"(r) : \"l\"(p));\n  asm volatile(BARRIER_STR ::: \"memory\");\n  return r;\n}\n";
        assert_eq!(fires(src, "HP201"), [4, 5]);
    }

    /// TNN's ARM backend: NEON assembly with dotted mnemonics (`vsub.f16`, `vmax.f16`) in plain
    /// C++ functions is the host's assembly, not PTX. Twins: the same text in a `__device__`
    /// function, behind a qualifier macro the file defines with `__device__`, and behind one it
    /// does not define (unknown: kept).
    #[test]
    fn asm_in_host_functions_is_not_ptx() {
        let host = "static inline void sub8(float* a) {\n  asm volatile(\"vsub.f16 q0, q0, q1\\n\" \"vmax.f16 q0, q0, q2\\n\" : : \"r\"(a) : \"q0\");\n}\nstruct Half8 { Half8 operator-(const Half8& o) const { asm(\"vsub.f16 %q0, %q1, %q2\" : \"=w\"(v) : \"w\"(v), \"w\"(o.v)); return *this; } };\n";
        assert!(fires(host, "HP201").is_empty());
        let dev = "__device__ void sub8(float* a) {\n  asm volatile(\"sub.f16 %0, %0, %1;\" : \"+h\"(a[0]) : \"h\"(a[1]));\n}\n";
        assert_eq!(fires(dev, "HP201"), [2]);
        let mac = "#define HD __host__ __device__\nHD inline void sub8(float* a) {\n  asm volatile(\"sub.f16 %0, %0, %1;\" : \"+h\"(a[0]) : \"h\"(a[1]));\n}\n";
        assert_eq!(fires(mac, "HP201"), [3]);
        let unknown = "FUNC_QUALIFIER void sub8(float* a) {\n  asm volatile(\"sub.f16 %0, %0, %1;\" : \"+h\"(a[0]) : \"h\"(a[1]));\n}\n";
        assert_eq!(fires(unknown, "HP201"), [2]);
        let plain = "#define FORCE_INLINE inline\nFORCE_INLINE void sub8(float* a) {\n  asm volatile(\"sub.f16 %0, %0, %1;\" : \"+h\"(a[0]) : \"h\"(a[1]));\n}\n";
        assert!(fires(plain, "HP201").is_empty());
        let lambda = "void host_launch(float* a) {\n  auto f = [=] __device__ (int i) { asm volatile(\"sub.f16 %0, %0, %1;\" : \"+h\"(a[0]) : \"h\"(a[1])); };\n}\n";
        assert_eq!(fires(lambda, "HP201"), [2]);
    }

    /// pbrt-v4's `LogFatal`: a definition without qualifiers (its header declares it
    /// `__host__ __device__`) whose `#ifdef PBRT_IS_GPU_CODE` arm traps; the macro is set only
    /// where `__CUDA_ARCH__` is defined, so the arm is device code. Twins: the `#else` arm's
    /// host assembly, and a switch set on both sides, stay silent.
    #[test]
    fn asm_in_an_arm_only_the_device_pass_compiles_is_ptx() {
        let src = "#if defined(__CUDA_ARCH__)\n#define PBRT_IS_GPU_CODE\n#endif\n\
                   void LogFatal(const char *s) {\n#ifdef PBRT_IS_GPU_CODE\n    asm(\"trap;\");\n\
                   #else\n    asm(\"int $3\");\n#endif\n}\n";
        assert_eq!(fires_open(src, "HP201"), [6]);
        let both = src.replace(
            "#endif\nvoid",
            "#else\n#define PBRT_IS_GPU_CODE\n#endif\nvoid",
        );
        assert!(fires(&both, "HP201").is_empty());
    }

    #[test]
    fn ptx_statements_not_barriers_or_strings() {
        let src = "__device__ unsigned f() {\n  unsigned r;\n  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n  asm volatile(\"\" ::: \"memory\");\n  const char* s = \"asm(\\\"mov.u32\\\")\";\n  __asm__ __volatile__(\"s_nop 0\");\n  return r;\n}\n";
        assert_eq!(fires(src, "HP201"), [3]);
    }
}
