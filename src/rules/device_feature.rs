//! device-feature (HP7xx): device features that compile under HIP but behave differently on
//! AMD GPUs, or do not exist there: dynamic parallelism, Hopper-only features (clusters, TMA,
//! wgmma), clock-based timing, texture references, cooperative launch limits, managed-memory
//! hints, system-scope atomics, floating-point atomics on fine-grained memory, FP8 formats,
//! `half2` members, the second `__launch_bounds__` argument, and shared memory beyond the
//! target's LDS ([`lds`]).

pub(crate) mod consts;
pub mod cooperative;
mod dlpack;
mod dynamic;
pub mod half_atomics;
pub mod lds;
pub mod limits;
mod shapes;
pub mod spin_lock;
pub mod torch_ldg;

use shapes::{index_only_grid, launch_bounds_args, libcu_scope};

use super::inline_asm;
use super::RuleInfo;
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, Src};
use std::collections::{HashMap, HashSet};

/// The node kinds the device-feature rules read from the file's node index.
pub const KINDS: &[K] = &[K::CallExpression, K::FieldExpression];

const REF_EXT: &str =
    "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html";
const REF_FEAT: &str =
    "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/cpp_language_support.html";

rule!(DYNAMIC_PARALLELISM, "HP701", DeviceFeature, Remediation, Build,
    summary: "A kernel launched from device code (dynamic parallelism).",
    why: "HIP does not support launching kernels from the GPU; the code does not compile for AMD.",
    bad: "__global__ void parent(int* d) { child<<<1, 64>>>(d); }",
    good: "// launch child from the host after parent, or fold its work into parent",
    fix: "Move the launch to the host (a second launch, or a graph), or restructure the work into the parent kernel.",
    refs: [REF_FEAT],
);

rule!(HOPPER_ONLY_FEATURE, "HP702", DeviceFeature, Remediation, Build,
    summary: "A Hopper-or-later feature: thread-block clusters, TMA / `cp.async.bulk`, `wgmma`, distributed shared memory.",
    why: "AMD GPUs have no clusters, no tensor memory accelerator and no warpgroup MMA; these kernels must be redesigned (LDS tiling, MFMA/rocWMMA).",
    bad: "__global__ void __cluster_dims__(2, 1, 1) k(...) { cg::this_cluster().sync(); }",
    good: "__global__ void k(...) { __syncthreads(); }   // one block per former cluster member",
    fix: "Redesign the kernel without clusters/TMA: plain global→LDS copies, block-level synchronisation, MFMA via rocWMMA or hipBLASLt.",
    refs: [REF_FEAT],
);

rule!(DEVICE_CLOCK_TIMING, "HP703", DeviceFeature, Remediation, Correctness,
    summary: "Device-side timing with `clock()`/`clock64()`.",
    why: "On AMD `clock64()` counts shader-clock cycles whose rate changes with power management; durations computed from it are not comparable to NVIDIA's SM clock. `wall_clock64()` runs at a constant rate.",
    bad: "long long t0 = clock64(); work(); long long dt = clock64() - t0;",
    good: "long long t0 = wall_clock64(); work(); long long dt = wall_clock64() - t0;  // rate: hipDeviceAttributeWallClockRate",
    fix: "Use `wall_clock64()` with `hipDeviceAttributeWallClockRate` for durations; keep `clock64()` only for relative cycle counts.",
    refs: [REF_EXT],
);

rule!(TEXTURE_REFERENCE, "HP704", DeviceFeature, Remediation, Build,
    summary: "A texture reference (`texture<T, dim, mode>`, `cudaBindTexture*`).",
    why: "Texture references were removed in CUDA 12 and are deprecated (and removed in recent ROCm) in HIP; only texture objects are supported going forward.",
    bad: "texture<float, 1, cudaReadModeElementType> tex;\ncudaBindTexture(0, tex, d_in, n * sizeof(float));",
    good: "hipTextureObject_t tex;  // hipCreateTextureObject(&tex, &resDesc, &texDesc, nullptr)\nv = tex1Dfetch<float>(tex, i);",
    fix: "Convert to texture objects (`cudaCreateTextureObject` / `hipCreateTextureObject`) passed as kernel arguments.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api/modules/texture_management.html"],
);

rule!(COOPERATIVE_LAUNCH, "HP705", DeviceFeature, Unknown, Runtime,
    summary: "Cooperative launch and grid-wide synchronisation (`cudaLaunchCooperativeKernel`, `this_grid()`).",
    why: "HIP supports cooperative groups, but the maximum co-resident grid differs (wavefront size, CU count, LDS and register limits), and multi-device cooperative launch is deprecated. A grid sized for an NVIDIA GPU can fail to launch or deadlock.",
    bad: "cudaLaunchCooperativeKernel((void*)k, grid, block, args);",
    good: "hipOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, block, 0);  // size grid ≤ nb * CUs\nhipLaunchCooperativeKernel((void*)k, grid, block, args, 0, stream);",
    fix: "Size the grid from the occupancy API on the AMD device and check `hipDeviceAttributeCooperativeLaunch`.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html"],
);

rule!(MANAGED_MEMORY_HINTS, "HP706", DeviceFeature, Unknown, Performance,
    summary: "Managed-memory hints and prefetches (`cudaMemAdvise`, `cudaMemPrefetchAsync`).",
    why: "On AMD, page migration for managed memory needs XNACK (`HSA_XNACK=1`) and a supporting GPU; without it hints are ignored or memory stays host-resident, so performance differs widely.",
    bad: "cudaMemPrefetchAsync(p, bytes, dev, stream);",
    good: "hipMemPrefetchAsync(p, bytes, dev, stream);   // effective only with XNACK enabled",
    fix: "Check the target GPU and XNACK mode; consider explicit device allocations and copies for hot data.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/memory_management/unified_memory.html"],
);

rule!(SYSTEM_SCOPE_ATOMIC, "HP707", DeviceFeature, Unknown, Correctness,
    summary: "System-scope atomics and fences (`atomicAdd_system`, `__threadfence_system`, `cuda::atomic_ref` with thread scopes).",
    why: "On AMD, system-scope atomics are coherent with the host only on fine-grained memory (`hipHostMalloc` coherent, `hipMallocManaged` with XNACK); on ordinary device memory they behave like device scope. libcu++ (`cuda::atomic_ref`, `cuda::thread_scope_*`) is not part of HIP.",
    bad: "atomicAdd_system(&flag[0], 1);   // host polls flag",
    good: "// allocate flag with hipHostMalloc(..., hipHostMallocCoherent)\natomicAdd_system(&flag[0], 1);",
    fix: "Allocate memory shared with the host as fine-grained/coherent, and replace libcu++ atomics with HIP atomics (`__hip_atomic_*` with memory scopes) or std::atomic_ref where supported.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/memory_management/coherence_control.html"],
);

rule!(FP_ATOMIC_FINE_GRAINED, "HP708", DeviceFeature, Unknown, Correctness,
    summary: "A floating-point atomic in a file that uses fine-grained (managed or host-mapped) memory.",
    why: "On several AMD GPUs (e.g. MI200), hardware floating-point atomics (used with `-munsafe-fp-atomics`) do not work on fine-grained memory: the update is silently lost. Without the flag they fall back to slower CAS loops.",
    bad: "cudaMallocManaged(&sum, sizeof(float));\n…\natomicAdd(sum, v);",
    good: "hipMalloc(&sum, sizeof(float));   // coarse-grained; or build without -munsafe-fp-atomics",
    fix: "Keep floating-point atomic targets in coarse-grained device memory, or do not use `-munsafe-fp-atomics` for this code.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#unsafe-floating-point-atomic-operations"],
);

rule!(FP8_FORMAT, "HP709", DeviceFeature, Remediation, Correctness,
    summary: "CUDA FP8 types and conversions (`__nv_fp8_e4m3`, `__nv_fp8_e5m2`, `CUDA_R_8F_E4M3`).",
    why: "AMD GPUs use two FP8 encodings: OCP (as CUDA, on gfx950/gfx12) and FNUZ (gfx942/MI300: different exponent bias, no infinities, one NaN). Data, scales and saturation written for OCP give wrong values on FNUZ hardware.",
    bad: "__nv_fp8_e4m3 q = __nv_fp8_e4m3(x * scale);",
    good: "#if defined(__gfx942__)\n__hip_fp8_e4m3_fnuz q(x * scale);\n#else\n__hip_fp8_e4m3 q(x * scale);\n#endif",
    fix: "Choose the FP8 type per target (`__hip_fp8_e4m3_fnuz` on gfx942, `__hip_fp8_e4m3` elsewhere) and adjust scales and max values.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/low_fp_types.html"],
);

rule!(HALF2_MEMBER_ACCESS, "HP710", DeviceFeature, Remediation, Correctness,
    summary: "Member access `.x`/`.y` on a `__half2` value at a target before ROCm 6.0 (the variable's type is read from its declaration in scope: the enclosing block, the function's parameters, else file scope). From ROCm 6.0 HIP's `__half2` has `__half` members as CUDA's does, and `__hip_bfloat162` has always had `__hip_bfloat16` members: no finding.",
    why: "Up to ROCm 5.7 HIP's `__half2` members `x`/`y` are `unsigned short` raw bits, not `__half` values as in CUDA: `static_cast<float>(h2.x)` or `__half lo = h2.x` compiles and silently converts the bit pattern as an integer (clr changed the members to `__half` for ROCm 6.0, SWDEV-414425).",
    bad: "__half lo = h2.x;",
    good: "__half lo = __low2half(h2);",
    fix: "Use `__low2half`/`__high2half` (`__low2bfloat16`/`__high2bfloat16`) and `__halves2half2` to build values.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/low_fp_types.html"],
);

rule!(LAUNCH_BOUNDS_MIN_BLOCKS, "HP711", DeviceFeature, Remediation, Performance,
    summary: "`__launch_bounds__` with a second (or third) argument.",
    why: "In CUDA the second argument is the minimum number of blocks per SM; in HIP it is the minimum number of waves per execution unit, so the same number asks for a different register budget. A third argument (max blocks per cluster) does not exist in HIP.",
    bad: "__global__ void __launch_bounds__(256, 2) k(...);",
    good: "__global__ void __launch_bounds__(256) k(...);   // or a value computed for waves per EU",
    fix: "Drop the second argument or recompute it as waves per EU for the AMD target (or use `__attribute__((amdgpu_waves_per_eu(...)))`).",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/performance_guidelines.html"],
);

pub const RULES: &[&RuleInfo] = &[
    &DYNAMIC_PARALLELISM,
    &HOPPER_ONLY_FEATURE,
    &DEVICE_CLOCK_TIMING,
    &TEXTURE_REFERENCE,
    &COOPERATIVE_LAUNCH,
    &MANAGED_MEMORY_HINTS,
    &SYSTEM_SCOPE_ATOMIC,
    &FP_ATOMIC_FINE_GRAINED,
    &FP8_FORMAT,
    &HALF2_MEMBER_ACCESS,
    &LAUNCH_BOUNDS_MIN_BLOCKS,
    &lds::SHARED_MEMORY_OVER_LDS,
    &half_atomics::HALF_ATOMIC_ADD_MISSING,
    &torch_ldg::TORCH_HALF_LDG,
    &dlpack::DLPACK_CUDA_DEVICE_TYPE,
    &spin_lock::SPIN_LOCK_IN_WAVEFRONT,
    &limits::UNSUPPORTED_DEVICE_LIMIT,
];

const HOPPER_IDENTS: &[&str] = &[
    "__cluster_dims__",
    "this_cluster",
    "cluster_group",
    "cudaLaunchAttributeClusterDimension",
    "cudaLaunchAttributeClusterSchedulingPolicyPreference",
    "cudaFuncAttributeRequiredClusterWidth",
    "cudaFuncAttributeNonPortableClusterSizeAllowed",
    "cudaOccupancyMaxActiveClusters",
    "cuTensorMapEncodeTiled",
    "cuTensorMapEncodeIm2col",
    "CUtensorMap",
    "cp_async_bulk_tensor_1d_global_to_shared",
    "cp_async_bulk_tensor_2d_global_to_shared",
    "cp_async_bulk_tensor_3d_global_to_shared",
    "cp_async_bulk_tensor_2d_shared_to_global",
    "cp_async_bulk_global_to_shared",
    "fence_proxy_async_shared_cta",
    "__cluster_barrier_arrive",
    "__cluster_barrier_wait",
    "cluster_sync",
    "cluster_ctarank",
];
/// PTX instruction classes only sm_90 and later GPUs run (Hopper's TMA, wgmma, clusters;
/// Blackwell's `tcgen05` tensor-memory MMA). `rules::decisions::arch_only` reads the same list.
pub(crate) const HOPPER_PTX: &[&str] = &[
    "cp.async.bulk",
    "wgmma.",
    "tcgen05.",
    "barrier.cluster",
    "mapa.",
    "setmaxnreg",
    "stmatrix",
    "elect.sync",
    "%cluster",
    "multimem.",
    "cp.reduce.async.bulk",
    "tensormap.",
    "fence.proxy.async",
    "mbarrier.try_wait",
    "%clusterid",
    "griddepcontrol",
];
const TEXTURE_CALLS: &[&str] = &[
    "cudaBindTexture",
    "cudaBindTexture2D",
    "cudaBindTextureToArray",
    "cudaBindTextureToMipmappedArray",
    "cudaUnbindTexture",
    "cudaGetTextureReference",
    "cudaGetTextureAlignmentOffset",
    "cuTexRefSetAddress",
    "cuTexRefSetArray",
    "cuModuleGetTexRef",
];
const COOP: &[&str] = &[
    "cudaLaunchCooperativeKernel",
    "cudaLaunchCooperativeKernelMultiDevice",
    "cuLaunchCooperativeKernel",
    "cuLaunchCooperativeKernelMultiDevice",
    "this_grid",
    "this_multi_grid",
];
const MANAGED: &[&str] = &[
    "cudaMemAdvise",
    "cudaMemAdvise_v2",
    "cudaMemPrefetchAsync",
    "cudaMemPrefetchAsync_v2",
    "cuMemAdvise",
    "cuMemPrefetchAsync",
    "cudaMemRangeGetAttribute",
    "cudaMemRangeGetAttributes",
];
const FINE_GRAINED: &[&str] = &[
    "cudaMallocManaged",
    "cudaHostAlloc",
    "cudaHostRegister",
    "cudaHostGetDevicePointer",
    "__managed__",
    "cuMemAllocManaged",
    "cuMemHostAlloc",
];

pub fn check(s: &Src, rocm: crate::version::Version, out: &mut Vec<Finding>) {
    tokens(s, out);
    hopper_asm(s, out);
    dlpack::check(s, out);
    limits::check(s, out);
    if s.tree.is_some() {
        tree_rules(s, rocm, out);
        spin_lock::check(s, out);
    }
}

/// The first ROCm release whose `__half2` has `__half` members `x`/`y`, as CUDA's does (clr
/// commit 19afdf719, SWDEV-414425; `unsigned short x, y` up to rocm-5.7.1). HIP's
/// `__hip_bfloat162` has had `__hip_bfloat16 x, y` since it appeared in 5.7.0.
const HALF2_MEMBERS_FROM: crate::version::Version = crate::version::Version::new(6, 0, 0);

fn tokens(s: &Src, out: &mut Vec<Finding>) {
    let mut lines: HashSet<(usize, &str)> = HashSet::new();
    for (i, name) in s.idents() {
        let t = s.lexed.tokens[i];
        let pre = s.prev_text(i);
        let next = s.next_text(i);
        let call = next == "(";
        // Cooperative groups' lower-case names (`this_cluster`, `cluster_sync`) are also common
        // variable names (h2o4gpu's CPU k-means: `int this_cluster = labels[pt];`): the
        // feature is a call or a name qualified by its namespace.
        let plain_word = name.starts_with(|c: char| c.is_ascii_lowercase());
        let hit: Option<(&RuleInfo, String)> = if HOPPER_IDENTS.contains(&name)
            && (!plain_word || call || pre == "::")
        {
            Some((
                &HOPPER_ONLY_FEATURE,
                format!(
                    "`{name}` is a Hopper-or-later feature (clusters/TMA) with no AMD counterpart"
                ),
            ))
        } else if name == "texture" && next == "<" && pre != "::" && pre != "." {
            Some((&TEXTURE_REFERENCE, "texture reference: removed in CUDA 12 and deprecated/removed in HIP; use texture objects".to_string()))
        } else if TEXTURE_CALLS.contains(&name) && call {
            Some((
                &TEXTURE_REFERENCE,
                format!("`{name}` binds a texture reference; use texture objects"),
            ))
        } else if COOP.contains(&name) && call && !index_only_grid(s, i) {
            Some((
                &COOPERATIVE_LAUNCH,
                format!(
                    "`{name}`: grid-wide cooperation; the co-resident grid size differs on AMD"
                ),
            ))
        } else if MANAGED.contains(&name) && call {
            Some((&MANAGED_MEMORY_HINTS, format!("`{name}`: managed-memory hints only take effect with XNACK-enabled page migration on AMD")))
        } else if (name.starts_with("atomic") && name.ends_with("_system"))
            || name == "__threadfence_system"
        {
            Some((
                &SYSTEM_SCOPE_ATOMIC,
                format!("`{name}` is coherent with the host only on fine-grained memory on AMD"),
            ))
        } else if (name == "thread_scope_system"
            || ((name == "atomic_ref" || name == "atomic") && libcu_scope(s, i)))
            && pre == "::"
        {
            Some((&SYSTEM_SCOPE_ATOMIC, format!("libcu++ `cuda::{name}` is not part of HIP; scopes map to `__hip_atomic_*` memory scopes")))
        } else if name.starts_with("__nv_fp8")
            || name.starts_with("__nv_cvt_float_to_fp8")
            || name.starts_with("__nv_cvt_fp8")
            || matches!(
                name,
                "CUDA_R_8F_E4M3" | "CUDA_R_8F_E5M2" | "__NV_E4M3" | "__NV_E5M2"
            )
        {
            Some((
                &FP8_FORMAT,
                format!(
                    "`{name}`: FP8 on AMD is OCP or FNUZ depending on the GPU (gfx942 uses FNUZ)"
                ),
            ))
        } else if name == "__launch_bounds__" && call && launch_bounds_args(s, i) >= 2 {
            Some((&LAUNCH_BOUNDS_MIN_BLOCKS, "`__launch_bounds__` second argument: min blocks per SM in CUDA, min waves per EU in HIP".to_string()))
        } else {
            None
        };
        if let Some((rule, msg)) = hit {
            if lines.insert((s.line(t.start as usize), rule.id.code)) {
                out.push(
                    s.ctx
                        .finding(rule, t.range(), msg, Some(rule.fix.to_string())),
                );
            }
        }
    }
}

/// Whether byte `at` lies in the body of a `__global__` or `__device__` function as the tokens
/// delimit them (the bodies found once per file, in `bodies`). A parse error can stretch a
/// device function of the tree over the host code after it (cuOpt's `is_nth_bit_set`, whose
/// `BitsPWrd<unsigned>]` the grammar misreads, swallowed the host launcher `bin_vertices`): a
/// launch is device code only where both readings agree.
fn lexically_in_device_code(s: &Src, bodies: &mut Option<Vec<(usize, usize)>>, at: usize) -> bool {
    let bodies = bodies.get_or_insert_with(|| {
        let f = crate::rules::warp_size::launch_rows::functions;
        let src = s.ctx.src;
        f(src, s.lexed, b"__global__")
            .into_iter()
            .chain(f(src, s.lexed, b"__device__"))
            .map(|(_, o, c)| {
                (
                    s.lexed.tokens[o].start as usize,
                    s.lexed.tokens[c].end as usize,
                )
            })
            .collect()
    });
    bodies.iter().any(|&(a, b)| a <= at && at < b)
}

fn hopper_asm(s: &Src, out: &mut Vec<Finding>) {
    for (i, name) in s.idents() {
        if !matches!(name, "asm" | "__asm__" | "__asm") {
            continue;
        }
        let Some((open, close)) = inline_asm::statement(s, i) else {
            continue;
        };
        let code = inline_asm::template(s, open, close);
        if let Some(p) = HOPPER_PTX.iter().find(|p| code.contains(**p)) {
            let range = s.lexed.tokens[i].start as usize..s.lexed.tokens[close].end as usize;
            out.push(s.ctx.finding(
                &HOPPER_ONLY_FEATURE,
                range,
                format!(
                    "PTX `{}` is a Hopper-or-later feature with no AMD counterpart",
                    p.trim_end_matches('.')
                ),
                Some(HOPPER_ONLY_FEATURE.fix.to_string()),
            ));
        }
    }
}

fn tree_rules(s: &Src, rocm: crate::version::Version, out: &mut Vec<Finding>) {
    let first = out.len();
    tree_findings(s, rocm, out);
    dynamic::fold(s, first, out);
}

fn tree_findings(s: &Src, rocm: crate::version::Version, out: &mut Vec<Finding>) {
    let root = s.tree.unwrap().root_node();
    let fine_grained = s.idents().any(|(_, n)| FINE_GRAINED.contains(&n));
    // Only `__half2` before ROCm 6.0 differs from CUDA (`bfloat162` never did).
    let is_half2 = |t: &str| rocm < HALF2_MEMBERS_FROM && matches!(t, "__half2" | "half2");
    // Names declared `__half2` anywhere; each use is then resolved in its own function first,
    // since `a`, `v`, `dm` are `float2` in one function and `half2` in the next.
    let half2: HashSet<&str> = syntax::typed_variables(s, root, is_half2)
        .into_iter()
        .collect();
    let mut scopes: HashMap<usize, syntax::ScopedTypes> = HashMap::new();
    // Per-file indexes built once, on first need (a walk of the tree per atomic call or per
    // `.x` made the rule quadratic in the file size).
    let mut fp_vars: Option<HashSet<&str>> = None;
    let mut file_half2: HashMap<&str, bool> = HashMap::new();
    let mut device_bodies: Option<Vec<(usize, usize)>> = None;
    for n in &s.of_kinds(&[K::CallExpression, K::FieldExpression]) {
        match n.node_kind() {
            K::CallExpression => {
                let name = syntax::call_name(s, *n).unwrap_or("");
                if syntax::is_launch(*n)
                    && syntax::in_device_code(s, *n)
                    && lexically_in_device_code(s, &mut device_bodies, n.start_byte())
                {
                    out.push(s.ctx.finding(&DYNAMIC_PARALLELISM, n.byte_range(), format!("kernel `{name}` launched from device code: HIP has no dynamic parallelism"), Some("launch it from the host, or fold the work into the calling kernel".into())));
                } else if matches!(
                    name,
                    "cudaDeviceSynchronize" | "cudaGetParameterBuffer" | "cudaLaunchDevice"
                ) && syntax::in_device_code(s, *n)
                {
                    out.push(s.ctx.finding(&DYNAMIC_PARALLELISM, n.byte_range(), format!("`{name}` in device code is part of dynamic parallelism, which HIP lacks"), Some("synchronise from the host instead".into())));
                } else if matches!(name, "clock" | "clock64" | "__clock64")
                    && syntax::call_args(*n).is_empty()
                    && syntax::in_device_code(s, *n)
                {
                    out.push(s.ctx.finding(&DEVICE_CLOCK_TIMING, n.byte_range(), format!("`{name}()` in device code counts variable-rate shader cycles on AMD"), Some("use `wall_clock64()` and `hipDeviceAttributeWallClockRate` for durations".into())));
                } else if fine_grained
                    && matches!(
                        name,
                        "atomicAdd"
                            | "atomicSub"
                            | "atomicMax"
                            | "atomicMin"
                            | "atomicExch"
                            | "unsafeAtomicAdd"
                    )
                    && fp_target(s, *n, &mut fp_vars)
                {
                    out.push(s.ctx.finding(&FP_ATOMIC_FINE_GRAINED, n.byte_range(), format!("floating-point `{name}` in a file that allocates managed/host-mapped memory: unsafe FP atomics are lost on fine-grained memory"), Some("keep the target in coarse-grained device memory or build without -munsafe-fp-atomics".into())));
                }
            }
            K::FieldExpression if !half2.is_empty() => {
                let field = n.field(F::Field).map_or("", |f| s.text(f));
                let arg = n.field(F::Argument).map_or("", |a| s.text(a));
                if !(matches!(field, "x" | "y")
                    && half2.contains(arg)
                    && n.field(F::Operator).is_some_and(|o| s.text(o) == "."))
                {
                    continue;
                }
                // The declaration in scope at the use (a block's own, else the function's
                // parameters), not any declaration of the name in the function.
                let ty = match s.enclosing_function(*n) {
                    Some(f) => scopes
                        .entry(f.id())
                        .or_insert_with(|| syntax::ScopedTypes::of(s, f))
                        .type_at(arg, n.start_byte()),
                    None => None,
                };
                let ty = match ty {
                    Some(t) if is_half2(t) => t,
                    Some(_) => continue,
                    None if *file_half2
                        .entry(arg)
                        .or_insert_with(|| file_scope_half2(s, root, arg, is_half2)) =>
                    {
                        "__half2"
                    }
                    None => continue,
                };
                out.push(s.ctx.finding(
                    &HALF2_MEMBER_ACCESS,
                    n.byte_range(),
                    format!(
                        "`{arg}.{field}` on a `{ty}`: up to ROCm 5.7 HIP's members are `unsigned short` raw bits, not `__half` values (the target is ROCm {rocm}; from 6.0 they are `__half`)"
                    ),
                    Some(format!(
                        "use `{}({arg})`, or target ROCm 6.0 or later",
                        if field == "x" { "__low2half" } else { "__high2half" }
                    )),
                ));
            }
            _ => {}
        }
    }
}

/// Whether `name` is declared with a half2 type outside any function (a global or a member).
fn file_scope_half2(
    s: &Src,
    root: tree_sitter::Node,
    name: &str,
    is_half2: impl Fn(&str) -> bool,
) -> bool {
    [K::Declaration, K::FieldDeclaration].iter().any(|kind| {
        s.descendants(root, *kind).into_iter().any(|d| {
            s.enclosing_function(d).is_none()
                && d.field(F::Type).is_some_and(|t| is_half2(s.text(t)))
                && {
                    let mut c = d.walk();
                    let found = d
                        .fields(F::Declarator, &mut c)
                        .any(|x| syntax::declarator_name(s, x) == Some(name));
                    found
                }
        })
    })
}

/// Whether an atomic's target (first argument) is a float/double variable declared anywhere in
/// the file (its function's declarations are part of the file's). `vars` caches the file's
/// floating-point variable names, built on the first atomic call.
fn fp_target<'a>(
    s: &Src<'a>,
    call: tree_sitter::Node,
    vars: &mut Option<HashSet<&'a str>>,
) -> bool {
    let Some(arg) = syntax::call_args(call).into_iter().next() else {
        return false;
    };
    let Some(base) = syntax::identifiers(s, arg).into_iter().next() else {
        return false;
    };
    let vars = vars.get_or_insert_with(|| {
        let is_fp = |t: &str| matches!(t, "float" | "double" | "__half" | "half" | "__nv_bfloat16");
        syntax::typed_variables(s, s.tree.unwrap().root_node(), is_fp)
            .into_iter()
            .collect()
    });
    vars.contains(base)
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{fires, fires_for};

    #[test]
    fn device_features_in_device_code_only() {
        let src = "__global__ void child(int* d);\n__global__ void __launch_bounds__(256, 2) parent(int* d, float* f) {\n  child<<<1, 1>>>(d);\n  long long t = clock64();\n  atomicAdd_system(d, 1);\n  atomicAdd(f, 1.0f);\n}\n__global__ void __launch_bounds__(256) k() {}\nint main() {\n  clock_t c = clock();\n  child<<<1, 1>>>(0);\n  cudaMemPrefetchAsync(p, n, 0, 0);\n  cudaLaunchCooperativeKernel((void*)k, 1, 1, 0);\n}\n";
        assert_eq!(fires(src, "HP701"), [3]);
        assert_eq!(fires(src, "HP703"), [4]);
        assert_eq!(fires(src, "HP707"), [5]);
        assert!(
            fires(src, "HP708").is_empty(),
            "no fine-grained memory in the file"
        );
        assert_eq!(fires(src, "HP711"), [2]);
        assert_eq!(fires(src, "HP706"), [12]);
        assert_eq!(fires(src, "HP705"), [13]);
    }

    /// cuOpt's `load_balanced_partition_helpers.cuh` (github.com/NVIDIA/cuopt `e6a401d`, lines
    /// 110–114 and 190–215, Apache-2.0, © NVIDIA): the grammar misreads `BitsPWrd<unsigned>]`
    /// and the tree stretches `is_nth_bit_set` over the host launcher `bin_vertices`, whose three
    /// launches were HP701. A launch is device code only where the tokens agree. Twin (added
    /// line 32): a launch inside a kernel still is.
    #[test]
    fn a_parse_error_does_not_make_a_host_launcher_device_code() {
        let src = "template <typename T>\n__device__ bool is_nth_bit_set(unsigned* bitmap, T index)\n{\n  return bitmap[index / BitsPWrd<unsigned>] & (unsigned{1} << (index % BitsPWrd<unsigned>));\n}\n}\n\ntemplate <typename i_t>\nvoid bin_vertices(rmm::device_uvector<i_t>& reorg_vertices,\n                  rmm::device_uvector<i_t>& bin_count_offsets,\n                  rmm::device_uvector<i_t>& bin_count,\n                  unsigned* active_bitmap,\n                  const i_t* offsets,\n                  i_t vertex_begin,\n                  i_t vertex_end,\n                  cudaStream_t stream)\n{\n  const unsigned BLOCK_SIZE = 512;\n  unsigned blocks           = ((vertex_end - vertex_begin) + BLOCK_SIZE - 1) / BLOCK_SIZE;\n  count_bin_sizes<i_t><<<blocks, BLOCK_SIZE, 0, stream>>>(\n    bin_count.data(), offsets, vertex_begin, vertex_end, active_bitmap);\n\n  exclusive_scan<<<1, 1, 0, stream>>>(bin_count.data(), bin_count_offsets.data());\n\n  i_t vertex_count = bin_count.back_element(stream);\n  reorg_vertices.resize(vertex_count, stream);\n\n  create_vertex_bins<i_t><<<blocks, BLOCK_SIZE, 0, stream>>>(\n    reorg_vertices.data(), bin_count.data(), offsets, vertex_begin, vertex_end, active_bitmap);\n}\n\n__global__ void parent(int* p) { exclusive_scan<<<1, 1>>>(p, p); }\n";
        assert_eq!(fires(src, "HP701"), [32]);
    }

    #[test]
    fn grid_used_only_as_an_index_is_not_cooperation() {
        let idx = "__global__ void k(int* p) {\n  auto i = cg::this_grid().thread_rank();\n  auto g = cooperative_groups::this_grid();\n  p[g.thread_rank()] = i;\n}\n";
        assert!(fires(idx, "HP705").is_empty(), "{:?}", fires(idx, "HP705"));
        // Twins: a grid that synchronises, directly or through its variable, or is handed on.
        let sync = "__global__ void k(int* p) {\n  cg::this_grid().sync();\n  auto g = cg::this_grid();\n  g.sync();\n  grid_group h = this_grid();\n  helper(h);\n}\n";
        assert_eq!(fires(sync, "HP705"), [2, 3, 5]);
    }

    #[test]
    fn fp_atomics_fp8_half2_hopper() {
        let src = "__global__ void k(float* f, int* i, __half2 h, __nv_fp8_e4m3* q) {\n  atomicAdd(f, 1.0f);\n  atomicAdd(i, 1);\n  float x = h.x;\n  cg::this_cluster().sync();\n}\nint main() { cudaMallocManaged(&p, 4); }\n";
        assert_eq!(fires(src, "HP708"), [2]);
        assert_eq!(fires_for("5.7.1", src, "HP710"), [4]);
        // `__launch_bounds__(N, 1)` asks for nothing on either side; `(N, 2)` and a third
        // argument do.
        let lb = "__global__ void __launch_bounds__(256, 1) a() {}\n__global__ void __launch_bounds__(256, 2) b() {}\n__global__ void __launch_bounds__(256) c() {}\n__global__ void __launch_bounds__(256, 1, 2) d() {}\n";
        assert_eq!(fires(lb, "HP711"), [2, 4]);
        // From ROCm 6.0 `__half2` has `__half` members, as in CUDA: nothing to say.
        assert!(fires_for("6.0.0", src, "HP710").is_empty());
        // `__hip_bfloat162` has had `__hip_bfloat16` members since it exists (5.7.0).
        let bf =
            "__global__ void k(__nv_bfloat162 b, float* o) {\n  o[0] = __bfloat162float(b.x);\n}\n";
        assert!(fires_for("5.7.1", bf, "HP710").is_empty());
        assert_eq!(fires(src, "HP709"), [1]);
        assert_eq!(fires(src, "HP702"), [5]);
        // h2o4gpu's CPU k-means: a variable named `this_cluster` is no cluster; the same name
        // called unqualified, or a qualified type, is.
        let var = "void f(int* labels, int* members, int pt) {\n  int this_cluster = labels[pt];\n  members[this_cluster]++;\n}\n";
        assert!(fires(var, "HP702").is_empty());
        let used =
            "__global__ void k() {\n  auto c = this_cluster();\n  cg::cluster_group g = c;\n}\n";
        assert_eq!(fires(used, "HP702"), [2, 3]);
    }

    #[test]
    fn blackwell_tensor_memory_ptx_is_arch_only() {
        let src = "__device__ void f(unsigned a) {\n  asm volatile(\"tcgen05.wait::ld.sync.aligned;\" ::: \"memory\");\n  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0}, {%1}, {%2}, {%3};\" : \"+r\"(a));\n}\n";
        // Twin: `mma.sync` runs on sm_80 too.
        assert_eq!(fires(src, "HP702"), [2]);
    }

    #[test]
    fn half2_members_resolved_by_the_declaration_in_scope() {
        let src = r#"#include <cuda_fp16.h>
__half2 g;
__device__ float b(float2 h) { return h.x + h.y; }
__device__ float c(const float* p) {
  float2 g = make_float2(p[0], p[1]);
  return g.x;
}
__device__ float d(const __half2* p, const float2* q) {
  float s = 0.f;
  {
    __half2 t = p[0];
    s += __half2float(t.x);
  }
  {
    float2 t = q[0];
    s += t.x;
  }
  for (int i = 0; i < 2; ++i) { float2 h = q[i]; s += h.y; }
  return s;
}
__device__ float e(__half2 h) {
  { float2 h2 = make_float2(0.f, 1.f); }
  return __half2float(h.y);
}
__device__ float f() { return __half2float(g.x); }
"#;
        // `t` is `__half2` in the first block and `float2` in the second; `g` is the file's
        // `__half2` except where `c` declares its own; `h` is a `float2` parameter in `b`.
        assert_eq!(fires_for("5.7.1", src, "HP710"), [12, 23, 25]);
    }
}
