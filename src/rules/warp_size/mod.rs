//! warp-size (HP1xx): code that hard-wires NVIDIA's 32-lane warp. AMD GPUs of the CDNA family
//! run 64-lane wavefronts (RDNA runs 32 or 64), so lane and warp ids, masks, shuffle reductions
//! and per-warp arrays computed for 32 lanes give wrong results there.
//!
//! A literal 32 is flagged only where it takes part in lane or warp arithmetic: the other
//! operand must be thread-derived (`threadIdx`, or a variable set from it within the function),
//! a lane or warp id, or `blockDim`. `tile[32][33]`, byte counts and block shapes stay quiet.

mod ballots;
mod block_extent;
mod block_shapes;
mod blocks;
mod call_graph;
mod extent_names;
mod file_constants;
mod flow;
mod last_lane;
pub mod launch_rows;
pub(crate) mod logical;
mod one_row;
mod per_warp_arrays;
pub(crate) mod ptx_lanes;
mod queried;
mod row_exchange;
pub mod row_passes;
mod seeds;
mod shuffles;
mod sync_masks;
mod tiles;

use crate::finding::Finding;
use crate::gate::Status;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, call_args, call_name, int_value, Src};
use crate::rules::RuleInfo;
use ballots::ballots;
use file_constants::{constants_where, named_constants};
use flow::{arithmetic, lit, parts, strip_parens, Flow};
use per_warp_arrays::per_warp_arrays;
use shuffles::{
    calls, full_mask_name, is_shuffle, lane_mask_name, narrow_all_ones, shuffle_loop, Masks,
};
use std::collections::HashSet;
use tree_sitter::Node;

/// The node kinds the warp-size rules read from the file's node index.
pub const KINDS: &[K] = &[
    K::InitDeclarator,
    K::OptionalParameterDeclaration,
    K::Enumerator,
    K::FieldDeclaration,
    K::CallExpression,
    K::TemplateArgumentList,
    K::TemplateDeclaration,
    K::ForStatement,
    K::ReturnStatement,
    K::Identifier,
    K::TypeIdentifier,
    K::FunctionDefinition,
    K::FieldDeclarationList,
    K::AssignmentExpression,
    K::BinaryExpression,
    K::SubscriptExpression,
    K::ArrayDeclarator,
];

const REF_WAVE: &str = "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-cross-lane-functions";
const REF_PORTING: &str =
    "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html";

rule!(WARP_SIZE_CONSTANT, "HP101", WarpSize, Remediation, Correctness,
    summary: "A constant that fixes the warp size at 32 (`#define WARP_SIZE 32`, `constexpr int kWarpSize = 32`, a `static constexpr` member), its lane mask 31 (`kLaneMask = 31`) or its log2 5 (`#define LOG_WARP_SIZE 5`).",
    why: "Every use of the constant assumes 32 lanes; on a 64-lane wavefront lane ids, warp ids and reductions built on it are wrong.",
    bad: "#define WARP_SIZE 32",
    good: "#define WARP_SIZE warpSize   // or a template parameter / constexpr per target",
    fix: "Use `warpSize` at run time, or make the size a template parameter chosen per target (`__GFX9__` builds use 64; not `__AMDGCN_WAVEFRONT_SIZE`, which LLVM deprecated: llvm/llvm-project#112849, ROCm 6.3.2 release notes).",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(LANE_WARP_ARITHMETIC, "HP102", WarpSize, Remediation, Correctness,
    summary: "Lane or warp arithmetic with a literal 32 (`threadIdx.x % 32`, `& 31`, `/ 32`, `>> 5`, `blockDim.x / 32`, `1 << lane`).",
    why: "With 64-lane wavefronts `threadIdx.x % 32` is not the lane id and `/ 32` is not the wavefront id: shuffles, ballots and per-warp slots address the wrong lanes. A 32-bit `1 << lane` is undefined for lanes 32–63.",
    bad: "int lane = threadIdx.x % 32;\nint warp = threadIdx.x / 32;",
    good: "int lane = threadIdx.x % warpSize;   // or __lane_id()\nint warp = threadIdx.x / warpSize;",
    fix: "Replace 32/31/5 with `warpSize`, `warpSize - 1` or a log2 computed from it (or `__lane_id()`); use 64-bit lane masks (`1ull << lane`).",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(WARP_MASK_32BIT, "HP103", WarpSize, Remediation, Correctness,
    summary: "A 32-bit full mask (`0xffffffff`, `FULL_MASK`) passed to a `*_sync` warp intrinsic or defined for one.",
    why: "HIP's `*_sync` intrinsics take 64-bit masks; `0xffffffff` names only lanes 0–31 of a 64-lane wavefront, so the upper half does not participate.",
    bad: "#define FULL_MASK 0xffffffff\nv += __shfl_down_sync(FULL_MASK, v, 16);",
    good: "#define FULL_MASK 0xffffffffffffffffull   // or __activemask()\nv += __shfl_down_sync(FULL_MASK, v, 16);",
    fix: "Use a 64-bit mask (`~0ull`, `__activemask()`), typed `unsigned long long` / `lane_mask_t`.",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(SHUFFLE_REDUCTION_FROM_16, "HP104", WarpSize, Remediation, Correctness,
    summary: "A shuffle reduction or scan whose steps assume 32 lanes (a loop starting at offset 16, or bounded by 32), or a warp-synchronous shared-memory reduction from offset 16 over a lane id taken from `warpSize`.",
    why: "On a 64-lane wavefront a butterfly starting at 16 reduces each half separately: lane 0 ends with the sum of 32 lanes, not 64.",
    bad: "for (int offset = 16; offset > 0; offset /= 2)\n  v += __shfl_down_sync(0xffffffff, v, offset);",
    good: "for (int offset = warpSize / 2; offset > 0; offset /= 2)\n  v += __shfl_down(v, offset);",
    fix: "Start the loop at `warpSize / 2` (or bound it by `warpSize`).",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(PER_WARP_ARRAY_32, "HP105", WarpSize, Remediation, Correctness,
    summary: "A 32-slot array (one slot per warp or per lane of a 32-lane warp) indexed by a warp or lane id; out of bounds when the lane id reaches past 31 on a 64-lane wavefront (`% warpSize`, `__lane_id()`, a lane parameter, a counter from `warpSize / 2`).",
    why: "The array's size and its indexing by lane assume 32 lanes; with 64-lane wavefronts lane ids run to 63 (an out-of-bounds access), and the second reduction stage reads the wrong slots once the ids are computed from the wavefront size. In a function whose warp-level work goes only through a 32-thread cooperative-groups tile the ids are tile ranks and the finding is PASS.",
    bad: "__shared__ float warp_sums[32];\nint lane = threadIdx.x % warpSize;\nwarp_sums[lane] = v;",
    good: "__shared__ float warp_sums[64];   // the largest wavefront\nint lane = threadIdx.x % warpSize;\nwarp_sums[lane] = v;",
    fix: "Size the array for the largest wavefront (64) or the number of wavefronts, and compute the indices with `warpSize`.",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(BALLOT_32BIT, "HP106", WarpSize, Remediation, Correctness,
    summary: "A ballot or active-mask result kept in a 32-bit integer or counted with `__popc`/`__ffs`.",
    why: "On AMD `__ballot`/`__activemask` return 64-bit masks; storing them in 32 bits or counting them with `__popc`/`__ffs` drops lanes 32–63.",
    bad: "unsigned int votes = __ballot_sync(0xffffffff, pred);\nint n = __popc(votes);",
    good: "unsigned long long votes = __ballot(pred);\nint n = __popcll(votes);",
    fix: "Keep masks in `unsigned long long` (or `auto`) and use `__popcll`, `__ffsll`, `__clzll`.",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(TILED_PARTITION_32, "HP107", WarpSize, Unknown, Correctness,
    summary: "A group of 32 threads that is one warp on NVIDIA: a cooperative-groups tile (`tiled_partition<32>`, `thread_block_tile<32>`), a launch of 32-thread blocks of a kernel that does warp-level work (`k<<<grid, 32>>>`), or kernel traits given 32 threads (`Ktraits<32, 4>`, `launch<32, 8, T>()`) in a file whose kernels do warp-level work.",
    why: "A 32-thread group is the whole warp on NVIDIA but half a wavefront on CDNA; code that treats it as the hardware warp (lane exchanges over `warpSize`, ballots, lane masks, warp-synchronous shared memory, warp-based block algorithms) may break or waste half the wavefront. Kernels without warp-level work, and `case 32:` of a switch over every block size, are not flagged. A 32-thread tile whose function does its warp-level work only through the tile (`tile.shfl_down`, `cg::reduce(tile, …)`, `meta_group_rank()`) is PASS: HIP provides `thread_block_tile<N>` for every power of two up to the wavefront size, so the tile keeps its meaning on 64-lane wavefronts.",
    bad: "auto warp = cg::tiled_partition<32>(cg::this_thread_block());",
    good: "auto warp = cg::tiled_partition<64>(block);   // or keep 32 where only the tile semantics matter",
    fix: "Check whether the code needs the hardware wavefront; if so size the tile by the wavefront (64 on CDNA), otherwise keep it and note why.",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(WARPSIZE_COMPILE_TIME, "HP108", WarpSize, Remediation, Build,
    summary: "`warpSize` used as a compile-time constant (array bound, template argument, `static_assert`, `constexpr`), directly or through a project macro whose body names it (`#define NUM_WARPS (1024 / warpSize)` in an included header, then `__shared__ float sums[NUM_WARPS];`).",
    why: "From ROCm 7.0 HIP's `warpSize` is a run-time value, no longer `constexpr` (ROCm/apex#231, rocHPL 7.0.2 release notes), so these uses do not compile. Before 7.0 it is `constexpr` (the compile target's wavefront size: 64 on gfx9, 32 on RDNA) and hipcc accepts them (checked with HIP 5.2): at a target below 7.0 the finding is PASS, saying that moving to 7.0 breaks the build.",
    bad: "__shared__ float partial[warpSize];",
    good: "__shared__ float partial[64];   // the largest wavefront, or a template parameter",
    fix: "Use a compile-time maximum (64), or a value chosen per target (`#if defined(__GFX9__)` 64, else 32; `__AMDGCN_WAVEFRONT_SIZE` is deprecated, llvm/llvm-project#112849), and `warpSize` at run time.",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(BLOCK_IN_WAVEFRONTS, "HP111", WarpSize, Remediation, Correctness,
    summary: "A block's x extent measured in wavefronts (`blockDim.x / warpSize`, `blockDim.x == warpSize`, a row of threads stepping an index by `warpSize`) in a kernel some launch gives a block that is not a whole number of 64-lane wavefronts (`<<<n, 32>>>`, `dim3 b(THREADS)` with `#define THREADS 32`, `dim3 block(32, heads)`).",
    why: "`warpSize` is 64 on CDNA: for 32-thread blocks `blockDim.x / warpSize` is 0 (and 1 for 96), so code that loops over or reads one slot per warp skips the partial wavefront (a block reduction returns 0); `blockDim.x == warpSize` is true for 32-thread blocks on NVIDIA and false on AMD (and the other way for 64), so the ROCm build takes the other arm; a row of 32 threads stepping its index by `warpSize` (`c += warpSize`, `lane + warpSize * i`) visits every element on NVIDIA and skips elements 32–63 of every 64 on AMD (one finding per function). The launches are read across the project, with block sizes given by literals or by names the launching file defines.",
    bad: "int nwarps = blockDim.x / warpSize;   // launched <<<n, 32>>>",
    good: "int nwarps = (blockDim.x + warpSize - 1) / warpSize;",
    fix: "Round the count up (`(blockDim.x + warpSize - 1) / warpSize`), compare the block with the width the code's warp path assumes (32 where its shuffles start at offset 16), not `warpSize`, and step a row's index by the row's width (`blockDim.x`).",
    refs: [REF_WAVE, REF_PORTING],
);

rule!(CUB_WARP_DEFAULT_WIDTH, "HP110", WarpSize, Unknown, Correctness,
    summary: "A CUB warp primitive at its default width (`cub::WarpReduce<T>`, `cub::WarpScan<T>`) in a file whose warps are 32 lanes (warp-size constants, lane arithmetic on 32, 32-thread blocks of warp-level kernels).",
    why: "CUB's default logical warp is the hardware warp: 32 lanes on NVIDIA. hipCUB's is the wavefront: 64 lanes on CDNA (`HIPCUB_DEVICE_WARP_THREADS`). Where the code computes warp ids and per-warp storage for 32-lane warps, or launches 32-thread blocks, a 64-lane logical warp reduces across two of the code's warps or over lanes that do not exist.",
    bad: "using WarpReduce = cub::WarpReduce<float>;\nint warp_id = threadIdx.x / 32;",
    good: "using WarpReduce = cub::WarpReduce<float, 32>;   // or warps sized by the wavefront",
    fix: "Pass the logical warp width the code assumes as the second template argument, or move the kernel's warp arithmetic to the wavefront size.",
    refs: [REF_WAVE, REF_PORTING],
);

pub const RULES: &[&RuleInfo] = &[
    &WARP_SIZE_CONSTANT,
    &LANE_WARP_ARITHMETIC,
    &WARP_MASK_32BIT,
    &SHUFFLE_REDUCTION_FROM_16,
    &PER_WARP_ARRAY_32,
    &BALLOT_32BIT,
    &TILED_PARTITION_32,
    &WARPSIZE_COMPILE_TIME,
    &logical::LOGICAL_WARP_REWRITE,
    &CUB_WARP_DEFAULT_WIDTH,
    &BLOCK_IN_WAVEFRONTS,
    &row_exchange::ROW_EXCHANGE_AT_WAVEFRONT_WIDTH,
    &queried::QUERIED_WARP_SIZE_TEST,
    &last_lane::LAST_LANE_OF_WAVEFRONT,
];

/// Whether a name reads as the warp's size (`WARP_SIZE`, `kWarpSize`, `THREADS_PER_WARP`); a
/// count of warps (`WARP_PERBLOCK_SIZE`, `WARPS_PER_BLOCK`) is not.
fn warp_const_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    if l.split_once("warp")
        .is_some_and(|(_, after)| after.contains("per"))
    {
        return false;
    }
    if [
        "warpsize",
        "warp_size",
        "warpsz",
        "warp_sz",
        "wavesize",
        "wave_size",
    ]
    .iter()
    .any(|k| l.contains(k))
    {
        return true;
    }
    (l.contains("warp")
        && !l.contains("warps")
        && ["size", "sz", "width", "lanes", "threads"]
            .iter()
            .any(|k| l.contains(k)))
        || matches!(
            l.as_str(),
            "warp" | "kwarp" | "lanes_per_warp" | "threads_per_warp"
        )
}

/// The first ROCm release whose `warpSize` is not `constexpr`.
const WARPSIZE_RUNTIME_FROM: crate::version::Version = crate::version::Version::new(7, 0, 0);

/// The warp-size rules on one file. `seen` is what the project files it includes define: their
/// integer constants take part in lane arithmetic as the file's own do, and their `warpSize`
/// macros are compile-time uses of `warpSize` where the file uses them so.
pub fn check_seeing<'a>(
    s: &Src<'a>,
    target: &crate::mappings::Target,
    seen: &'a crate::model::project::Visible,
    warps: &logical::LogicalWarps,
    out: &mut Vec<Finding>,
) {
    let from = out.len();
    check(s, seen, warps, out);
    sync_masks::phase(s, target, &mut out[from..]);
    if target.rocm < WARPSIZE_RUNTIME_FROM {
        for f in out[from..]
            .iter_mut()
            .filter(|f| f.rule == WARPSIZE_COMPILE_TIME.id.code && f.status != Status::Pass)
        {
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (compiles with ROCm {}: `warpSize` is `constexpr` before ROCm 7.0, the compile target's wavefront size; moving to 7.0 breaks this build)",
                target.rocm
            ));
            f.suggestion = None;
        }
    }
}

fn check<'a>(
    s: &Src<'a>,
    seen: &'a crate::model::project::Visible,
    warps: &logical::LogicalWarps,
    out: &mut Vec<Finding>,
) {
    let macros = s.object_macros();
    let mask_args = sync_masks::mask_args(s);
    for (name, value, range) in &macros {
        constant(s, name, value, range.clone(), &mask_args, out);
    }
    for (name, value, range) in constant_functions(s) {
        constant(s, name, value, range, &mask_args, out);
    }
    tokens(s, out);
    let Some(tree) = s.tree else { return };
    let root = tree.root_node();
    // The nodes of the kinds above, in the order of a tree walk.
    let nodes = s.of_kinds(KINDS);
    // Constants declared in code: `constexpr int kWarpSize = 32;`, `static constexpr` members,
    // enumerators, defaults.
    for n in &nodes {
        if let Some((name, value)) = declared_constant(s, *n) {
            constant(s, name, s.text(value), n.byte_range(), &mask_args, out);
        }
    }
    let mut named = named_constants(s, &nodes, &macros);
    // Constants of the headers the file includes, where the file does not define the name.
    let own: HashSet<&str> = macros.iter().map(|(n, _, _)| *n).collect();
    for (name, (value, _)) in &seen.constants {
        if !own.contains(name.as_str()) && named_constant_name(name) {
            if let v @ (32 | 31 | 5) = *value {
                named.entry(name.as_str()).or_insert(v);
            }
        }
    }
    // Object-like macros whose body names `warpSize`: the file's, then its headers'.
    let mut warp_macros: std::collections::HashMap<&str, String> = macros
        .iter()
        .filter(|(_, body, _)| {
            body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == "warpSize")
        })
        .map(|(n, body, _)| (*n, format!("`{n}` (`{}`)", body.trim())))
        .collect();
    for (name, (body, at)) in &seen.warp_macros {
        if !own.contains(name.as_str()) {
            warp_macros
                .entry(name.as_str())
                .or_insert_with(|| format!("`{name}` (`{body}`, defined at {at})"));
        }
    }
    queried::tests(s, root, out);
    let ballot_macros = ballots::ballot_macros(s, seen, &warps.own_ballots);
    let mut funcs = s.descendants(root, K::FunctionDefinition);
    // Members initialised from thread indices (`int lane = threadIdx.x % 32;` in a struct).
    funcs.extend(s.descendants(root, K::FieldDeclarationList));
    if funcs.is_empty() {
        funcs.push(root);
    }
    let mut flows = Vec::with_capacity(funcs.len());
    for f in funcs {
        let flow = Flow::of(s, f, &named);
        arithmetic(s, f, &flow, out);
        per_warp_arrays(s, f, &flow, out);
        ballots(s, f, &ballot_macros, out);
        shuffles::shared_reduction_from_16(s, f, &flow, out);
        flows.push((f, flow));
    }
    // Once every function's (and member initialiser's) findings are in: the decisions a
    // function's own lane tests and PTX shuffle helpers take over them.
    let ptx_helpers = ptx_lanes::helpers(s, seen);
    // The file's warp-size constants worth 32 (`enum { warp_size = 32 }`): a function counting
    // with one works in 32-lane warps.
    let warp32 = constants_where(s, &nodes, &macros, |name, v| {
        v == 32 && warp_const_name(name)
    });
    // The helper of the first finding marked for a PTX shuffle (`out` order).
    let mut met: Option<(usize, ptx_lanes::Met)> = None;
    for (f, flow) in &flows {
        last_lane::last_lane_tests(s, *f, flow, &warp32, out);
        if let Some(m) = ptx_lanes::mark(s, *f, &ptx_helpers, out) {
            if met.as_ref().is_none_or(|(i, _)| m.0 < *i) {
                met = Some(m);
            }
        }
    }
    let bodies: Vec<std::ops::Range<usize>> = flows
        .iter()
        .filter(|(f, _)| f.node_kind() == K::FunctionDefinition)
        .map(|(f, _)| f.byte_range())
        .collect();
    let file_scope = |g: &Finding| last_lane::file_scope(&bodies, g);
    if !last_lane::file_constants(s, file_scope, out) {
        ptx_lanes::mark_file_scope(s, met.as_ref().map(|(_, m)| m), file_scope, out);
    }
    let mut masks = Masks::of(s, &nodes, &macros);
    // A mask name of the included headers whose ROCm-build value is not 32 one bits.
    masks.wide = seen
        .constants
        .iter()
        .filter(|(_, (v, _))| *v != 0xffff_ffff)
        .map(|(n, _)| n.as_str())
        .collect();
    let mut kernels = blocks::Kernels::of(s, &nodes);
    let templates = blocks::template_params(s, &nodes);
    for n in &nodes {
        match n.node_kind() {
            K::CallExpression => {
                calls(s, *n, &masks, out);
                blocks::one_warp_launch(s, *n, &mut kernels, warps, out);
            }
            K::TemplateArgumentList => {
                blocks::traits_argument(s, *n, &templates, &mut kernels, out)
            }
            K::ForStatement => shuffle_loop(s, *n, out),
            K::Identifier if s.text(*n) == "warpSize" && !projects_warp_size(s, *n) => {
                warpsize_constexpr(s, *n, "`warpSize`", out)
            }
            K::Identifier if warp_macros.contains_key(s.text(*n)) => {
                warpsize_constexpr(s, *n, &warp_macros[s.text(*n)], out)
            }
            _ => {}
        }
    }
    constants_of_a_file_without_warp_work(s, root, out);
    // `% 32 == 0` lane tests that only seed a block scan's prefix callback (mamba).
    seeds::block_scan_seeds(s, out);
    // 32-lane arithmetic and shuffle steps inside functions that only use a 32-thread tile
    // are consistent on AMD: PASS with the reason.
    let tiles = blocks::tile32_functions(s, &nodes);
    if !tiles.is_empty() {
        for f in out.iter_mut().filter(|f| {
            matches!(f.rule.as_str(), "HP102" | "HP104" | "HP105" | "HP107")
                && f.status != Status::Pass
        }) {
            if tiles
                .iter()
                .any(|r| r.start <= f.byte_range.0 && f.byte_range.1 <= r.end)
            {
                f.status = Status::Pass;
                if f.rule == "HP107" {
                    // HIP's `thread_block_tile<N>` takes any power of two up to the wavefront
                    // size: a 32-thread tile keeps its meaning (ranks, shuffles, reductions
                    // within 32 threads) on a 64-lane wavefront.
                    f.message = "32-thread cooperative-groups tile, used only through the tile's own operations: HIP provides tiles of up to the wavefront size, so it keeps its meaning on 64-lane wavefronts (nothing to change; a 64-thread tile may be faster on CDNA)".into();
                    f.suggestion = None;
                } else {
                    f.message.push_str(" (consistent with the function's 32-thread cooperative-groups tile, which HIP provides on 64-lane wavefronts: nothing to change)");
                }
            }
        }
    }
    // 32-lane reductions and 32-bit ballots that `port` rewrites safely for 32-lane logical
    // warps: PASS naming the rewrite (the model the translator asks too).
    logical::settle(s, warps, out);
    let tile32: Vec<&str> = tiles
        .iter()
        .filter_map(|r| {
            let n = s
                .tree?
                .root_node()
                .descendant_for_byte_range(r.start, r.end)?;
            let f = std::iter::successors(Some(n), |x| x.parent())
                .find(|x| x.node_kind() == K::FunctionDefinition)?;
            crate::model::syntax::function_name(s, f.field(F::Declarator)?)
        })
        .collect();
    logical::settle_launchers(s, warps, &tile32, out);
    cub_default_width(s, seen, warps, out);
}

/// CUB's warp primitives at their default width (`cub::WarpReduce<float>`) in a file whose
/// warps are 32 lanes (an open HP101/HP102/HP104/HP105/HP107 here, or a use of an included
/// header's warp-size constant worth 32): one HP110 per use.
fn cub_default_width(
    s: &Src,
    seen: &crate::model::project::Visible,
    m: &logical::LogicalWarps,
    out: &mut Vec<Finding>,
) {
    // A use of an included header's warp-size constant (`dh::WarpThreads()` = 32) counts too.
    let header_constant = s
        .idents()
        .find(|(_, name)| {
            warp_const_name(name) && seen.constants.get(*name).is_some_and(|(v, _)| *v == 32)
        })
        .map(|(i, _)| {
            s.ctx
                .lines
                .position(s.bytes(), s.lexed.tokens[i].start as usize)
                .line
        });
    let Some(evidence) = out
        .iter()
        .filter(|f| {
            matches!(
                f.rule.as_str(),
                "HP101" | "HP102" | "HP104" | "HP105" | "HP107"
            )
        })
        .filter(|f| f.status != Status::Pass)
        .map(|f| f.line)
        .chain(header_constant)
        .min()
    else {
        return;
    };
    let mut found = Vec::new();
    // The logical-warp model: where `port` gives the primitive width 32 (every function using
    // it works on 32-lane logical warps), HP109 reports the rewrite and this rule is quiet.
    for (i, name) in s.idents() {
        if !matches!(name, "WarpReduce" | "WarpScan") {
            continue;
        }
        if m.cub_rewrite(i).is_some() {
            continue;
        }
        // `cub::` or `hipcub::` before it.
        let qualified = s.lexed.prev_code(i).is_some_and(|c| s.tok(c) == "::")
            && s.lexed
                .prev_code(i)
                .and_then(|c| s.lexed.prev_code(c))
                .is_some_and(|n| matches!(s.tok(n), "cub" | "hipcub"));
        let Some(open) = s.lexed.next_code(i).filter(|&j| s.tok(j) == "<") else {
            continue;
        };
        if !qualified {
            continue;
        }
        // One template argument: no comma at depth 1 before the closing `>`.
        let (mut depth, mut commas, mut j, mut closed) = (1i32, 0, open, false);
        for _ in 0..64 {
            let Some(k) = s.lexed.next_code(j) else { break };
            j = k;
            match s.tok(k) {
                "<" | "(" | "[" => depth += 1,
                ")" | "]" => depth -= 1,
                ">" => depth -= 1,
                ">>" => depth -= 2,
                "," if depth == 1 => commas += 1,
                ";" | "{" => break,
                _ => {}
            }
            if depth <= 0 {
                closed = true;
                break;
            }
        }
        if !closed || commas > 0 {
            continue;
        }
        let start = s.lexed.tokens[i].start as usize;
        let end = s.lexed.tokens[j].end as usize;
        found.push((start..end, s.ctx.src[start..end].to_vec()));
    }
    for (range, text) in found {
        let text = String::from_utf8_lossy(&text);
        out.push(s.ctx.finding(
            &CUB_WARP_DEFAULT_WIDTH,
            range,
            format!(
                "`{text}` takes hipCUB's default logical warp, the whole wavefront (64 lanes on CDNA), while this file's warps are 32 lanes (line {evidence})"
            ),
            Some(format!(
                "give the width explicitly (`{}, 32>`) where the code's warps are 32 lanes, or size the warps by the wavefront",
                text.trim_end_matches('>')
            )),
        ));
    }
}

/// HP101 constants of a file in which nothing works at the warp level: no lane exchange, vote,
/// lane mask or `warpSize` (nor PTX lane access), and no header included after the constant that
/// could use it. The constant then only splits threads into groups of 32 over data (Parboil's
/// histogram reads per `WARP_SIZE` threads, its JDS rows padded per 32), which runs the same on
/// 64-lane wavefronts: PASS, saying so. A header's constant is left alone: its includers may
/// shuffle with it.
fn constants_of_a_file_without_warp_work(s: &Src, root: Node, out: &mut [Finding]) {
    let header = crate::walk::is_header(s.ctx.path);
    let text = s.ctx.src;
    let has = |w: &[u8]| text.windows(w.len()).any(|x| x == w);
    // Kernels launched here but defined elsewhere (an included header's vote kernels, which
    // the host checks against `warp_size = 32`) may do the warp-level work.
    let defined: HashSet<&str> = s
        .descendants(root, K::FunctionDefinition)
        .into_iter()
        .filter_map(|d| {
            d.field(F::Declarator)
                .and_then(|x| blocks::function_name(s, x))
        })
        .collect();
    let foreign_launch = s.descendants(root, K::CallExpression).iter().any(|c| {
        let mut w = c.walk();
        let launch = c
            .children(&mut w)
            .any(|n| n.node_kind() == K::KernelCallSyntax);
        launch && call_name(s, *c).is_some_and(|name| !defined.contains(name))
    });
    if header
        || foreign_launch
        || blocks::warp_exchange_here(s, root)
        || blocks::calls_warp_named(s, root)
        || has(b"laneid")
        || has(b"shfl.")
        || has(b"vote.")
    {
        return;
    }
    for f in out
        .iter_mut()
        .filter(|f| f.rule == "HP101" && f.status != Status::Pass)
    {
        let include_after = s
            .lexed
            .directives
            .iter()
            .any(|d| d.name == "include" && s.directive_range(d).start > f.byte_range.0);
        if include_after {
            continue;
        }
        f.settle(", but nothing in this file works at the warp level (no lane exchange, vote, lane mask or `warpSize`): the constant only splits threads into groups over data, the same on 64-lane wavefronts (nothing to change)");
    }
}

/// Functions that are constants: no parameters and a body that only returns a literal
/// (`constexpr int WarpThreads() { return 32; }`, `__device__ unsigned FullMask() { return
/// 0xffffffffu; }`): name, the literal, and the definition's range.
fn constant_functions<'a>(s: &Src<'a>) -> Vec<(&'a str, &'a str, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let next = |i: usize| s.lexed.next_code(i);
    for (i, name) in s.idents() {
        if s.lexed.tokens[i].in_directive() {
            continue;
        }
        // name ( ) [const|noexcept]* { return LIT ; }
        let Some(open) = next(i).filter(|&j| s.tok(j) == "(") else {
            continue;
        };
        let Some(mut j) = next(open).filter(|&j| s.tok(j) == ")") else {
            continue;
        };
        // A declaration: a type word before the name (not a call `f()`).
        let typed = s.lexed.prev_code(i).is_some_and(|p| {
            s.lexed.tokens[p].kind == crate::lex::Tok::Ident
                && !matches!(s.tok(p), "return" | "case" | "else" | "new" | "delete")
        });
        if !typed {
            continue;
        }
        j = match next(j) {
            Some(k) => k,
            None => continue,
        };
        while matches!(s.tok(j), "const" | "noexcept") {
            j = match next(j) {
                Some(k) => k,
                None => break,
            };
        }
        let toks: Vec<usize> = std::iter::successors(Some(j), |&k| next(k))
            .take(5)
            .collect();
        if let [b, r, lit, semi, e] = toks[..] {
            if s.tok(b) == "{"
                && s.tok(r) == "return"
                && s.lexed.tokens[lit].kind == crate::lex::Tok::Number
                && s.tok(semi) == ";"
                && s.tok(e) == "}"
            {
                let start = s.lexed.tokens[i].start as usize;
                out.push((name, s.tok(lit), start..s.lexed.tokens[e].end as usize));
            }
        }
    }
    out
}

/// A constant the code declares, with its value: `x = v` declarators, `static constexpr`
/// members (`field_declaration` with a default value), enumerators, defaulted parameters.
fn declared_constant<'a>(s: &Src<'a>, n: Node<'a>) -> Option<(&'a str, Node<'a>)> {
    let (name, value) = match n.node_kind() {
        K::InitDeclarator | K::OptionalParameterDeclaration | K::Enumerator => (
            n.field(F::Declarator).or_else(|| n.field(F::Name)),
            n.field(F::Value).or_else(|| n.field(F::DefaultValue)),
        ),
        K::FieldDeclaration => (n.field(F::Declarator), n.field(F::DefaultValue)),
        _ => return None,
    };
    Some((syntax::declarator_name(s, name?)?, value?))
}

/// `log2` of a 32-lane warp under a warp-size name: `#define LOG_WARP_SIZE 5`, `kWarpShift = 5`.
fn warp_log_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    (l.contains("warp") || l.contains("lane") || l.contains("wave"))
        && (l.contains("log") || l.contains("shift") || l.contains("bits"))
}

/// A `#define` or a declared constant: HP101 when it fixes the warp size at 32 (or its mask 31,
/// its log2 5), HP103 when it is a 32-bit full mask used as a warp mask.
fn constant<'a>(
    s: &Src<'a>,
    name: &'a str,
    value: &str,
    range: std::ops::Range<usize>,
    mask_args: &HashSet<&str>,
    out: &mut Vec<Finding>,
) {
    let v = int_value(value);
    if v == Some(32) && warp_const_name(name) {
        out.push(s.ctx.finding(
            &WARP_SIZE_CONSTANT,
            range,
            format!("`{name}` fixes the warp size at 32; AMD wavefronts have 64 lanes"),
            Some(format!(
                "define `{name}` from `warpSize` or per target, and review its uses"
            )),
        ));
    } else if v == Some(31) && lane_mask_name(name) {
        out.push(s.ctx.finding(
            &WARP_SIZE_CONSTANT,
            range,
            format!("`{name}` = 31 is a lane mask for 32-lane warps"),
            Some("use `warpSize - 1`".into()),
        ));
    } else if v == Some(5) && warp_log_name(name) {
        out.push(s.ctx.finding(
            &WARP_SIZE_CONSTANT,
            range,
            format!("`{name}` = 5 is log2 of a 32-lane warp; AMD wavefronts have 64 lanes (6)"),
            Some("derive it from the wavefront size per target (6 where `__GFX9__` is defined, else 5)".into()),
        ));
    } else if ((v == Some(0xffff_ffff) && !syntax::is_wide_literal(value))
        || narrow_all_ones(value))
        && (full_mask_name(name) || mask_args.contains(name))
    {
        out.push(s.ctx.finding(
            &WARP_MASK_32BIT,
            range,
            format!("`{name}` is a 32-bit full warp mask; HIP masks are 64-bit"),
            Some("use `0xffffffffffffffffull` or `__activemask()`".into()),
        ));
    }
}

/// A constant that sizes data, not lanes: `TILE_DIM`, `BLOCK_ROWS`, `NUM_BUCKETS`, `kChunk`
/// (`threadIdx.x % TILE_DIM` is a tile column). Block sizes (`block_size_x`) are not data.
fn data_shape_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    [
        "tile", "row", "col", "bucket", "chunk", "bank", "item", "elem", "vec", "pad", "batch",
        "head", "bin", "byte", "bit", "len", "height",
    ]
    .iter()
    .any(|k| l.contains(k))
}

/// A name [`named_constants`] keeps: not a warp-size, lane-mask or data-shape name.
pub(super) fn named_constant_name(name: &str) -> bool {
    !warp_const_name(name) && !lane_mask_name(name) && !data_shape_name(name)
}

/// Lexer-level patterns: `tiled_partition<32>`, `thread_block_tile<32>`, `tiled_partition(g, 32)`.
fn tokens(s: &Src, out: &mut Vec<Finding>) {
    for (i, name) in s.idents() {
        if !matches!(name, "tiled_partition" | "thread_block_tile") {
            continue;
        }
        let Some(j) = s.lexed.next_code(i) else {
            continue;
        };
        let Some(k) = s.lexed.next_code(j) else {
            continue;
        };
        let hit = match s.tok(j) {
            "<" => int_value(s.tok(k)) == Some(32),
            "(" => {
                // tiled_partition(parent, 32)
                let mut m = k;
                let mut found = false;
                for _ in 0..12 {
                    let Some(n) = s.lexed.next_code(m) else { break };
                    if s.tok(m) == "," && int_value(s.tok(n)) == Some(32) && s.next_text(n) == ")" {
                        found = true;
                        break;
                    }
                    if s.tok(n) == ";" {
                        break;
                    }
                    m = n;
                }
                found
            }
            _ => false,
        };
        if hit {
            let t = s.lexed.tokens[i];
            out.push(s.ctx.finding(&TILED_PARTITION_32, t.range(), format!("`{name}` of 32 threads: a full warp on NVIDIA, half a 64-lane wavefront on AMD"), Some("size the tile by the wavefront if the code relies on it being the hardware warp".into())));
        }
    }
}

/// Whether the `warpSize` at `id` is a name the project declares, not HIP's builtin: the
/// declaration itself (`constexpr int warpSize = 32;`, HP101's), a use qualified by a scope
/// (`curobo::common::warpSize`; `::warpSize` is the builtin), or an unqualified use inside a
/// namespace of this file that declares it.
fn projects_warp_size(s: &Src, id: Node) -> bool {
    let Some(parent) = s.parent(id) else {
        return false;
    };
    match parent.node_kind() {
        K::InitDeclarator if parent.field(F::Declarator) == Some(id) => return true,
        K::QualifiedIdentifier => return !s.text(parent).trim_start().starts_with("::"),
        _ => {}
    }
    // Inside a class that declares its own `warpSize` member (SPH-EXA's `GpuConfig`).
    if flow::in_class_declaring_warp_size(s, parent) {
        return true;
    }
    let namespaces = |n: Node| -> Vec<String> {
        let mut out = Vec::new();
        let mut p = s.parent(n);
        while let Some(x) = p {
            if x.node_kind() == K::NamespaceDefinition {
                if let Some(name) = x.field(F::Name) {
                    out.push(s.text(name).to_string());
                }
            }
            p = s.parent(x);
        }
        out
    };
    // Cheap first: a declared `warpSize` is followed by `=` or `{` somewhere in the file.
    let declares = s.idents().any(|(i, name)| {
        name == "warpSize"
            && s.lexed
                .next_code(i)
                .is_some_and(|n| matches!(s.tok(n), "=" | "{"))
    });
    let here = if declares { namespaces(id) } else { Vec::new() };
    if here.is_empty() {
        return false;
    }
    let Some(root) = s.tree.map(|t| t.root_node()) else {
        return false;
    };
    s.descendants(root, K::InitDeclarator).into_iter().any(|d| {
        d.field(F::Declarator)
            .is_some_and(|x| s.text(x) == "warpSize")
            && {
                let theirs = namespaces(d);
                !theirs.is_empty() && here.ends_with(&theirs)
            }
    })
}

/// Whether `n` is a function definition declared `constexpr` (or `consteval`), or the body or
/// a block of one.
fn constexpr_function(s: &Src, n: Node) -> bool {
    let Some(f) = s.enclosing_function(n) else {
        return false;
    };
    let Some(body) = f.child_by_field_name("body") else {
        return false;
    };
    let head = &s.ctx.src[f.start_byte()..body.start_byte()];
    String::from_utf8_lossy(head)
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == "constexpr" || w == "consteval")
}

/// HP108 when identifier `id` (`warpSize`, or a macro whose body names it, described by
/// `what`) sits in a compile-time context.
fn warpsize_constexpr<'a>(s: &Src<'a>, id: Node<'a>, what: &str, out: &mut Vec<Finding>) {
    let mut p = s.parent(id);
    let mut returned = false;
    while let Some(x) = p {
        let why = match x.node_kind() {
            K::ReturnStatement => {
                returned = true;
                p = s.parent(x);
                continue;
            }
            // `constexpr int warp_size() { return warpSize; }`: every caller's array bound or
            // template argument is this value.
            K::CompoundStatement | K::FunctionDefinition
                if returned && constexpr_function(s, x) =>
            {
                Some("as the value of a `constexpr` function")
            }
            K::TemplateArgumentList => Some("as a template argument"),
            K::StaticAssertDeclaration => Some("in a `static_assert`"),
            K::ArrayDeclarator => Some("as an array bound"),
            K::CaseStatement => Some("as a `case` label"),
            K::Declaration
                if s.text(x).starts_with("constexpr") || s.text(x).contains(" constexpr ") =>
            {
                Some("to initialise a `constexpr`")
            }
            K::CompoundStatement
            | K::FunctionDefinition
            | K::ExpressionStatement
            | K::ParameterList => None,
            _ => {
                p = s.parent(x);
                continue;
            }
        };
        if let Some(why) = why {
            out.push(s.ctx.finding(
                &WARPSIZE_COMPILE_TIME,
                id.byte_range(),
                if what == "`warpSize`" {
                    format!("`warpSize` used {why}: it is not a compile-time constant in HIP")
                } else {
                    format!("{what} used {why}: it expands to `warpSize`, which is not a compile-time constant in HIP")
                },
                Some("use a compile-time maximum (64) or a template parameter".into()),
            ));
        }
        return;
    }
}

#[cfg(test)]
mod launch_rows_tests;
#[cfg(test)]
mod names_tests;
#[cfg(test)]
mod shapes_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_groups;
#[cfg(test)]
mod tests_logical;
