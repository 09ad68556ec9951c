//! Blocks of 32 threads used as one warp: `kernel<<<grid, 32>>>` launches and kernel-traits
//! template arguments (`Ktraits<32, 4>`, `launch<32, 8, T>(…)` where the parameter is the
//! block's thread count). On NVIDIA such a block is exactly one warp; on AMD it is half a 64-lane
//! wavefront, so a kernel that exchanges values between lanes or computes lane ids for "the
//! block's warp" needs a look. A kernel that does no warp-level work is not flagged.

use super::extent_names::thread_count_str;
use super::flow::lit;
use super::TILED_PARTITION_32;
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, call_name, Src};
use std::collections::HashMap;
use tree_sitter::Node;

/// Calls that exchange values between the lanes of a warp, vote across it, or name a lane.
/// `__syncwarp` is not one: a barrier over a 32-thread row stays one on a wavefront holding two
/// rows (ge-spmm's row-private shared memory), and it exchanges nothing.
fn warp_call(name: &str) -> bool {
    super::is_shuffle(name)
        || name.starts_with("__ballot")
        || name.starts_with("__match_")
        || (name.starts_with("__reduce_") && name.ends_with("_sync"))
        || matches!(
            name,
            "__any_sync"
                | "__all_sync"
                | "__uni_sync"
                | "__any"
                | "__all"
                | "__activemask"
                | "__lane_id"
                | "tiled_partition"
                | "coalesced_threads"
                // WMMA: a fragment is spread over the lanes of one warp.
                | "mma_sync"
                | "load_matrix_sync"
                | "store_matrix_sync"
        )
}

/// Names whose use makes code warp-level: `warpSize`, CUB's warp primitives and warp-based
/// block algorithms (`BLOCK_SCAN_WARP_SCANS`, `BLOCK_LOAD_WARP_TRANSPOSE`), lane masks.
fn warp_name(name: &str) -> bool {
    matches!(
        name,
        "warpSize" | "WarpReduce" | "WarpScan" | "WarpExchange" | "WarpLoad" | "WarpStore"
    ) || name.starts_with("__lanemask")
        || (name.starts_with("BLOCK_") && name.contains("_WARP_"))
}

/// Whether `n` does warp-level work itself: lane exchanges or votes, `warpSize`, or lane ids
/// computed as `threadIdx.x % 32` / `& 31`.
pub(super) fn warp_level_here(s: &Src, n: Node) -> bool {
    warp_exchange_here(s, n)
        || s.descendants(n, K::BinaryExpression).iter().any(|b| {
            lane_id_of_32(s, *b)
                && b.field(F::Left).is_some_and(|l| {
                    syntax::identifiers(s, l).iter().any(|i| {
                        *i == "threadIdx" || i.to_ascii_lowercase().contains("lane") || *i == "tid"
                    })
                })
        })
}

/// `x % 32` or `x & 31`: a lane id when `x` is a thread index.
pub(super) fn lane_id_of_32(s: &Src, b: Node) -> bool {
    let op = b.field(F::Operator).map_or("", |o| s.text(o));
    matches!(
        (op, b.field(F::Right).and_then(|r| lit(s, r))),
        ("%", Some(32)) | ("&", Some(31))
    )
}

/// Whether `n` calls a function whose name says it works on a warp or its lanes
/// (`warpReduceSum`, `warp_reduce`, `laneScan`): defined in a header, it shuffles out of sight.
pub(super) fn calls_warp_named(s: &Src, n: Node) -> bool {
    s.descendants(n, K::CallExpression).iter().any(|c| {
        call_name(s, *c).is_some_and(|name| {
            let l = name.to_ascii_lowercase();
            l.contains("warp") || l.contains("lane") || l.contains("shfl") || l.contains("ballot")
        })
    })
}

/// Whether `n` exchanges values between lanes, votes, or names the warp size or a lane mask
/// (`warp_level_here` without counting lane ids written as `% 32` / `& 31`).
pub(super) fn warp_exchange_here(s: &Src, n: Node) -> bool {
    if s.descendants(n, K::CallExpression)
        .iter()
        .any(|c| call_name(s, *c).is_some_and(warp_call))
    {
        return true;
    }
    s.descendants(n, K::Identifier)
        .iter()
        .chain(s.descendants(n, K::TypeIdentifier).iter())
        .any(|i| warp_name(s.text(*i)))
}

/// Function definitions of the file by name, and which of them are warp-level (themselves or
/// through a function of the file they call, two calls deep).
pub(super) struct Kernels<'a> {
    by_name: HashMap<&'a str, Vec<Node<'a>>>,
    memo: HashMap<usize, bool>,
    /// Whether anything in the file is warp-level.
    file: Option<bool>,
    /// Template names already asked [`shuffle_group`] about (one file walk per name).
    shuffle_groups: HashMap<&'a str, bool>,
}

impl<'a> Kernels<'a> {
    pub(super) fn of(s: &Src<'a>, nodes: &[Node<'a>]) -> Kernels<'a> {
        let mut by_name: HashMap<&'a str, Vec<Node<'a>>> = HashMap::new();
        for f in nodes
            .iter()
            .filter(|n| n.node_kind() == K::FunctionDefinition)
        {
            if let Some(name) = f.field(F::Declarator).and_then(|d| function_name(s, d)) {
                by_name.entry(name).or_default().push(*f);
            }
        }
        Kernels {
            by_name,
            memo: HashMap::new(),
            file: None,
            shuffle_groups: HashMap::new(),
        }
    }

    fn function_warp_level(&mut self, s: &Src<'a>, f: Node<'a>, depth: u8) -> bool {
        if let Some(&v) = self.memo.get(&f.id()) {
            return v;
        }
        // Provisional answer while the callees are looked at (recursion).
        self.memo.insert(f.id(), false);
        let mut v = warp_level_here(s, f);
        if !v && depth > 0 {
            let callees: Vec<&'a str> = s
                .descendants(f, K::CallExpression)
                .iter()
                .filter_map(|c| call_name(s, *c))
                .collect();
            for name in callees {
                let defs = self.by_name.get(name).cloned().unwrap_or_default();
                if defs
                    .into_iter()
                    .any(|d| d.id() != f.id() && self.function_warp_level(s, d, depth - 1))
                {
                    v = true;
                    break;
                }
            }
        }
        self.memo.insert(f.id(), v);
        v
    }

    /// Whether the kernel `name` is warp-level: `None` when the file does not define it.
    fn named_warp_level(&mut self, s: &Src<'a>, name: &str) -> Option<bool> {
        let defs = self.by_name.get(name)?.clone();
        Some(defs.into_iter().any(|f| self.function_warp_level(s, f, 2)))
    }

    pub(super) fn file_warp_level(&mut self, s: &Src<'a>) -> bool {
        if let Some(v) = self.file {
            return v;
        }
        let v = s.tree.is_some_and(|t| warp_level_here(s, t.root_node()));
        self.file = Some(v);
        v
    }
}

pub(super) use crate::model::syntax::function_name;

/// `kernel<<<grid, 32>>>`: a block of exactly 32 threads is one warp on NVIDIA and half a
/// wavefront on AMD. Flagged when the kernel is warp-level or defined in another file.
pub(super) fn one_warp_launch<'a>(
    s: &Src<'a>,
    c: Node<'a>,
    kernels: &mut Kernels<'a>,
    warps: &super::logical::LogicalWarps,
    out: &mut Vec<Finding>,
) {
    let mut w = c.walk();
    let Some(k) = c
        .children(&mut w)
        .find(|n| n.node_kind() == K::KernelCallSyntax)
    else {
        return;
    };
    let mut w2 = k.walk();
    let args: Vec<Node> = k
        .named_children(&mut w2)
        .filter(|n| n.node_kind() != K::Comment)
        .collect();
    let Some(b) = args.get(1) else { return };
    let rows = lit(s, *b) != Some(32);
    // The code that fixes the shape: the literal, or the `dim3` that makes rows of 32.
    let (at, planes) = if rows {
        match dim3_32(s, c, *b) {
            Some(r) => r,
            None => return,
        }
    } else {
        (b.byte_range(), false)
    };
    // Several launches with one `dim3` are one fact, where the `dim3` is written.
    if out
        .iter()
        .any(|f| f.rule == TILED_PARTITION_32.id.code && f.byte_range == (at.start, at.end))
    {
        return;
    }
    let name = call_name(s, c).unwrap_or("");
    let why = match kernels.named_warp_level(s, name) {
        Some(false) => return,
        Some(true) => format!("`{name}` does warp-level work (shuffles, votes or lane ids)"),
        // A 2-D `dim3(32, 8)` is the usual image tile: without warp-level work in this file it
        // says nothing about warps. `{4, 8, n}` (x·y = 32, z counting warps) is a warp shape.
        None if rows && !planes && !kernels.file_warp_level(s) => return,
        None => format!("`{name}` is defined in another file"),
    };
    // The kernel's warps are 32-lane logical warps whose every warp-level call keeps CUDA's
    // meaning on a wavefront (width-32 shuffles): a row of 32 threads is one of them on AMD too.
    if let Some((why32, what)) = warps.kernel_keeps_32(s.ctx.src, s.lexed, name) {
        let mut f = s.ctx.finding(
            &TILED_PARTITION_32,
            at,
            format!("{} launch `{name}`, whose warp-level work is 32-lane logical warps ({why32}; {what}): each 32-thread row is one such warp on a 64-lane wavefront too (nothing to change)", if rows { "blocks whose rows are 32 threads" } else { "blocks of 32 threads" }),
            None,
        );
        f.status = crate::gate::Status::Pass;
        out.push(f);
        return;
    }
    out.push(s.ctx.finding(
        &TILED_PARTITION_32,
        at,
        if rows {
            format!("blocks whose rows (or x·y planes) are 32 threads (`dim3(32, n)`, `{{4, 8, n}}`: one warp each on NVIDIA) launch `{name}`: on AMD two of them share a 64-lane wavefront; {why}")
        } else {
            format!("a launch with blocks of 32 threads: one warp on NVIDIA, half a 64-lane wavefront on AMD; {why}")
        },
        Some("check the kernel does not treat the block as one hardware warp (lane exchanges over `warpSize`, ballots, lane masks, warp-synchronous shared memory), or launch `warpSize` threads".into()),
    ));
}

/// Where the launch's block argument `b` is made of 32-thread rows or planes (one warp each on
/// NVIDIA): `dim3(32, n)` written in the launch, or a `dim3` variable of the launching function
/// declared `dim3 block(32, n)`, `dim3 block = dim3(32, n)`, `dim3 block{32, n}` or `dim3 block
/// = {4, 8, n}` (x·y = 32 with a third dimension counting the warps). Returns the range of the
/// shape that says so.
fn dim3_32<'a>(
    s: &Src<'a>,
    launch: Node<'a>,
    b: Node<'a>,
) -> Option<(std::ops::Range<usize>, bool)> {
    // The literal values of a block shape's dimensions (comments skipped).
    let dims = |args: Node<'a>| -> Vec<Option<u64>> {
        let mut w = args.walk();
        args.named_children(&mut w)
            .filter(|n| n.node_kind() != K::Comment)
            .map(|x| lit(s, x))
            .collect()
    };
    // x·y = 32 with a third dimension (`{4, 8, block_size / WARP_SIZE}`).
    let planes = |args: Node<'a>| {
        let d = dims(args);
        d.len() == 3 && d[0].zip(d[1]).is_some_and(|(x, y)| x * y == 32 && x < 32)
    };
    // 32 threads in x (`dim3(32, n)`), or such planes.
    let warp_rows = |args: Node<'a>| dims(args).first() == Some(&Some(32)) || planes(args);
    // `dim3(32, n)`, or `dim3{32u, n}` (a compound literal): the shape's arguments.
    let shape = |n: Node<'a>| match n.node_kind() {
        K::CallExpression if call_name(s, n) == Some("dim3") => n.field(F::Arguments),
        _ if n.kind() == "compound_literal_expression"
            && n.field(F::Type).is_some_and(|t| s.text(t) == "dim3") =>
        {
            n.field(F::Value)
        }
        _ => None,
    };
    let dim3_call = |n: Node<'a>| shape(n).is_some_and(warp_rows);
    if dim3_call(b) {
        return Some((b.byte_range(), shape(b).is_some_and(planes)));
    }
    if b.node_kind() != K::Identifier {
        return None;
    }
    let name = s.text(b);
    let f = s.enclosing_function(launch)?;
    // The declaration the launch sees: the last one of that name before it whose block holds
    // the launch (two arms of an `if` each declare their own `nthrs`).
    let mut seen = None;
    for d in s.descendants(f, K::Declaration) {
        if d.start_byte() >= launch.start_byte()
            || d.field(F::Type).is_none_or(|t| s.text(t) != "dim3")
            || d.parent().is_some_and(|p| {
                p.start_byte() > launch.start_byte() || p.end_byte() < launch.end_byte()
            })
        {
            continue;
        }
        for i in s.descendants(d, K::InitDeclarator) {
            if i.field(F::Declarator).is_some_and(|x| s.text(x) == name) {
                seen = Some(i);
            }
        }
    }
    let i = seen?;
    let v = i.field(F::Value)?;
    if matches!(v.node_kind(), K::ArgumentList | K::InitializerList) && warp_rows(v) {
        return Some((i.byte_range(), planes(v)));
    }
    if dim3_call(v) {
        return Some((i.byte_range(), shape(v).is_some_and(planes)));
    }
    None
}

/// Template parameter names of the templates the file declares, by template name.
pub(super) fn template_params<'a>(
    s: &Src<'a>,
    nodes: &[Node<'a>],
) -> HashMap<&'a str, Vec<&'a str>> {
    let mut out = HashMap::new();
    for t in nodes
        .iter()
        .filter(|n| n.node_kind() == K::TemplateDeclaration)
    {
        let Some(params) = t.field(F::Parameters) else {
            continue;
        };
        let mut c = params.walk();
        let names: Vec<&'a str> = params
            .named_children(&mut c)
            .map(|p| {
                p.field(F::Declarator)
                    .or_else(|| p.field(F::Name))
                    .and_then(|d| syntax::declarator_name(s, d))
                    .unwrap_or("")
            })
            .collect();
        let mut c2 = t.walk();
        let entity = t.named_children(&mut c2).find(|n| n.id() != params.id());
        let name = entity.and_then(|e| match e.node_kind() {
            K::StructSpecifier | K::ClassSpecifier | K::AliasDeclaration => {
                e.field(F::Name).map(|n| s.text(n))
            }
            K::FunctionDefinition | K::Declaration => {
                e.field(F::Declarator).and_then(|d| function_name(s, d))
            }
            _ => None,
        });
        if let Some(name) = name {
            out.insert(name, names);
        }
    }
    out
}

/// `Ktraits<32, 4>`, `selective_scan_fwd_launch<32, 8, T>(…)`: a template argument of 32 for a
/// parameter that is the block's thread count, in a file whose kernels do warp-level work.
pub(super) fn traits_argument<'a>(
    s: &Src<'a>,
    list: Node<'a>,
    params: &HashMap<&'a str, Vec<&'a str>>,
    kernels: &mut Kernels<'a>,
    out: &mut Vec<Finding>,
) {
    let Some(owner) = s.parent(list) else { return };
    if !matches!(
        owner.node_kind(),
        K::TemplateType | K::TemplateFunction | K::TemplateMethod
    ) {
        return;
    }
    let Some(name) = owner.field(F::Name).map(|n| s.text(n)) else {
        return;
    };
    // A kernel launched with its block shape spelled out (`k<32, 4><<<grid, dim3(8, 32, 1)>>>`):
    // the launch says how many threads a block has, and a template parameter named for a block
    // size is a tile's (one_warp_launch reads the launch).
    let launched = s.parent(owner).is_some_and(|call| {
        call.node_kind() == K::CallExpression && {
            let mut w = call.walk();
            let launch = call
                .children(&mut w)
                .any(|n| n.node_kind() == K::KernelCallSyntax);
            launch
        }
    });
    if launched {
        return;
    }
    let mut c = list.walk();
    let args: Vec<Node> = list
        .named_children(&mut c)
        .filter(|n| n.node_kind() != K::Comment)
        .collect();
    for (i, a) in args.iter().enumerate() {
        if a.node_kind() != K::NumberLiteral || lit(s, *a) != Some(32) {
            continue;
        }
        let param = match params.get(name) {
            Some(p) => match p.get(i) {
                Some(p) if thread_count_str(p) => *p,
                _ => continue,
            },
            // Not declared here: kernel traits by name, the thread count first.
            None if i == 0 && name.to_ascii_lowercase().ends_with("traits") => "the thread count",
            None => continue,
        };
        if !kernels.file_warp_level(s)
            || case_dispatch(s, list)
            || *kernels
                .shuffle_groups
                .entry(name)
                .or_insert_with(|| shuffle_group(s, name))
        {
            return;
        }
        out.push(s.ctx.finding(
            &TILED_PARTITION_32,
            a.byte_range(),
            format!("`{name}<…>` with 32 threads per block (`{param}`): one warp on NVIDIA, half a 64-lane wavefront on AMD, and the file's kernels do warp-level work"),
            Some("check the kernels do not treat the block as one hardware warp, or use a block of `warpSize` (64 on CDNA) threads on AMD".into()),
        ));
        return;
    }
}

/// Whether `name` is a struct or class of this file whose body shuffles (`Allreduce<THREADS>`,
/// flash-attention's reduction helper: `__shfl_xor_sync(…, THREADS / 2)`): its thread count is
/// the width of a shuffle group, which the logical-warp model judges at the shuffles, not a
/// block size.
fn shuffle_group(s: &Src, name: &str) -> bool {
    let lx = s.lexed;
    let code: Vec<usize> = lx.code_tokens().map(|(i, _)| i).collect();
    code.windows(2).enumerate().any(|(k, w)| {
        if !matches!(s.tok(w[0]), "struct" | "class") || s.tok(w[1]) != name {
            return false;
        }
        // The body: the first `{` after the name (past a specialization's `<…>`).
        let Some(open) = code[k + 2..]
            .iter()
            .take(16)
            .position(|&j| matches!(s.tok(j), "{" | ";"))
            .map(|p| k + 2 + p)
            .filter(|&p| s.tok(code[p]) == "{")
        else {
            return false;
        };
        let mut depth = 0i32;
        for &j in &code[open..] {
            match s.tok(j) {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return false;
                    }
                }
                t if t.starts_with("__shfl") => return true,
                _ => {}
            }
        }
        false
    })
}

/// Function bodies whose warp-level work goes only through a cooperative-groups tile of 32
/// threads (`thread_block_tile<32>` parameters or `tiled_partition<32>` tiles, `tile.shfl_down`,
/// `cg::reduce(tile, …)`) with no raw warp intrinsic and no `warpSize`: there `threadIdx.x % 32`
/// is the tile rank and `/ 32` the tile index, and HIP provides 32-thread tiles on 64-lane
/// wavefronts, so the 32-lane arithmetic is consistent on AMD.
pub(super) fn tile32_functions(s: &Src, nodes: &[Node]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for f in nodes
        .iter()
        .filter(|n| n.node_kind() == K::FunctionDefinition)
    {
        // The argument first, then the owner (a parent lookup, from the index).
        let tile32 = s.descendants(*f, K::TemplateArgumentList).iter().any(|a| {
            let mut c = a.walk();
            let first = a.named_children(&mut c).next();
            first.is_some_and(|x| lit(s, x) == Some(32)) && {
                let owner = s
                    .parent(*a)
                    .and_then(|p| p.field(F::Name))
                    .map_or("", |n| s.text(n));
                matches!(owner, "tiled_partition" | "thread_block_tile")
            }
        });
        if !tile32 {
            continue;
        }
        let raw = s.descendants(*f, K::CallExpression).iter().any(|c| {
            let name = call_name(s, *c).unwrap_or("");
            let member = c
                .field(F::Function)
                .is_some_and(|x| x.node_kind() == K::FieldExpression);
            name.starts_with("__") && warp_call(name) && !member
        }) || s
            .descendants(*f, K::Identifier)
            .iter()
            .any(|i| warp_name(s.text(*i)));
        if !raw {
            out.push(f.byte_range());
        }
    }
    out
}

/// Inside `case 32:` of a switch over block sizes (`case 32: reduce<T, 32><<<…>>>`): one size
/// among all the supported ones, chosen at run time, not a design that assumes one warp.
fn case_dispatch<'a>(s: &Src<'a>, n: Node<'a>) -> bool {
    let mut p = s.parent(n);
    while let Some(x) = p {
        match x.node_kind() {
            K::CaseStatement => return x.field(F::Value).and_then(|v| lit(s, v)) == Some(32),
            K::FunctionDefinition | K::CompoundStatement
                if s.parent(x)
                    .is_some_and(|q| q.node_kind() == K::FunctionDefinition) =>
            {
                return false
            }
            _ => p = s.parent(x),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::fires;

    #[test]
    fn one_warp_launches_of_warp_level_kernels() {
        let src = r#"__device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  return v;
}
__global__ void reduce_one_warp(float* x) {
  float v = warp_sum(x[threadIdx.x]);
  if (threadIdx.x == 0) x[blockIdx.x] = v;
}
__global__ void vote(int* x) { x[threadIdx.x] = __ballot_sync(0xffffffffu, x[threadIdx.x]); }
__global__ void scale(float* x) { x[blockIdx.x * 32 + threadIdx.x] *= 2.f; }
void host(float* f, int* i, int n) {
  reduce_one_warp<<<n, 32>>>(f);
  vote<<<n, 32, 0, 0>>>(i);
  scale<<<n, 32>>>(f);
  external_kernel<<<n, 32>>>(f);
  reduce_one_warp<<<32, 256>>>(f);
}
"#;
        // Through a device function it calls; a kernel defined elsewhere is a review item; a
        // kernel without warp-level work and a grid of 32 blocks are not.
        assert_eq!(fires(src, "HP107"), [12, 13, 15]);
    }

    #[test]
    fn kernel_traits_with_32_threads() {
        let src = r#"template <int kNThreads_, int kNItems_>
struct Ktraits {
  static constexpr int kNThreads = kNThreads_;
  using BlockScanT = cub::BlockScan<float, kNThreads, cub::BLOCK_SCAN_WARP_SCANS>;
};
template <int kNThreads, int kNItems, typename T>
void scan_launch(T* p) { scan_kernel<Ktraits<kNThreads, kNItems>><<<1, kNThreads>>>(p); }
template <int bx, int by> __global__ void jacobi(float* p) { p[threadIdx.y * bx + threadIdx.x] = 0; }
template <class T, unsigned int blockSize> __global__ void reduce4(T* p) { p[0] = 0; }
template <typename T>
void dispatch(T* p, int n, int threads) {
  if (n <= 128) {
    scan_launch<32, 4, T>(p);
  } else {
    scan_launch<64, 16, T>(p);
  }
  scan_kernel<Ktraits<32, 8>><<<1, 64>>>(p);
  jacobi<32, 6><<<n, dim3(32, 6)>>>(p);
  switch (threads) {
    case 32: reduce4<T, 32><<<n, threads>>>(p); break;
    case 64: reduce4<T, 64><<<n, threads>>>(p); break;
  }
}
"#;
        // `kNThreads`/`kNThreads_` are thread counts; `bx` is a tile width; `case 32:` is one
        // size among all those a switch dispatches.
        assert_eq!(fires(src, "HP107"), [13, 17]);
        // A file whose kernels do no warp-level work: the same arguments are not flagged.
        let plain = src.replace("cub::BLOCK_SCAN_WARP_SCANS", "cub::BLOCK_SCAN_RAKING");
        assert!(fires(&plain, "HP107").is_empty());
        // Traits declared in another header are recognised by name.
        let elsewhere = "__global__ void k(float* p) { p[0] = __shfl_xor(p[0], 1); }\nvoid h(float* p) { run<Flash_kernel_traits<32, 4>>(p); run<Other<32, 4>>(p); }\n";
        assert_eq!(fires(elsewhere, "HP107"), [2]);
        // A launch that spells out its block (torchsparse's `gemm<32, 4, …><<<g, dim3(8, 32,
        // 1)>>>`, 256 threads): the template's `BLOCK_SIZE` is a tile. Twin: the same
        // template called without a launch is read by its parameter's name.
        let tile = "template <int BLOCK_SIZE, int N> __global__ void gemm(float* p) { p[0] = __shfl_xor(p[0], 1); }\nvoid h(float* p, int n) {\n  gemm<32, 4><<<n, dim3(8, 32, 1)>>>(p);\n  run(gemm<32, 4>);\n}\n";
        assert_eq!(fires(tile, "HP107"), [4]);
    }

    #[test]
    fn arithmetic_consistent_with_a_32_thread_tile_is_pass() {
        let src = r#"__device__ float block_sum(const cg::thread_block_tile<32>& warp, float v) {
  __shared__ float sums[32];
  int warp_id = threadIdx.x / 32;
  int lane_id = threadIdx.x % 32;
  int num_warps = blockDim.x / 32;
  v = cg::reduce(warp, v, cg::plus<float>{});
  if (lane_id == 0) sums[warp_id] = v;
  __syncthreads();
  v = (lane_id < num_warps) ? sums[lane_id] : 0.f;
  for (int o = 16; o > 0; o /= 2) v += warp.shfl_down(v, o);
  return v;
}
__device__ float mixed(float v) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int lane = threadIdx.x % 32;
  v += __shfl_xor_sync(0xffffffff, v, 16);
  return v + tile.thread_rank() + lane;
}
__device__ float no_tile(float v) {
  int lane = threadIdx.x % 32;
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  return v + lane;
}
"#;
        use crate::model::syntax::test_support::fires_open;
        // The tile-only function: found, but PASS.
        assert_eq!(fires(src, "HP102"), [3, 4, 5, 15, 20]);
        // `mixed` and `no_tile`: their lane ids are those of 32-lane logical warps whose every
        // shuffle `port` passes width 32 (the logical-warp model): PASS too.
        assert!(fires_open(src, "HP102").is_empty());
        assert_eq!(fires(src, "HP104"), [10, 16, 21]);
        // `mixed` and `no_tile` shuffle raw 32-lane logical warps (`% 32`, offset 16): `port`
        // passes width 32 (the logical-warp model), so their reductions are PASS too.
        assert!(fires_open(src, "HP104").is_empty());
        // Their twin whose lanes come from `warpSize` stays open.
        let wave = "__device__ float f(float v) {\n  int lane = threadIdx.x % warpSize;\n  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n  return v + lane;\n}\n";
        assert_eq!(fires_open(wave, "HP104"), [3]);
        // And a 32-lane id beside a lane id from `warpSize` stays open (a choice).
        let both = "__device__ float f(float v) {\n  int lane = threadIdx.x % 32;\n  v += __shfl_xor_sync(0xffffffff, v, 16);\n  return v + lane + threadIdx.x % warpSize;\n}\n";
        assert_eq!(fires_open(both, "HP102"), [2]);
    }
}
