//! Lane groups that exchange nothing across lanes. A 32-lane id or warp id (`lane = tid & 31`,
//! `warp = tid >> 5`) is arithmetic, not a hazard: inside a 64-lane wavefront each half is one
//! 32-lane group, and the groups keep their meaning until something exchanges data between
//! lanes at the wavefront's width (a shuffle, a ballot or vote, a CUB or cooperative-groups warp
//! primitive, inline assembly) or computes lanes from the wavefront (`warpSize`, `__lane_id()`,
//! PTX `%laneid`). Those calls carry their own findings (HP104, HP106, HP107, HP110, HP201); a
//! function that makes none of them, directly or through the functions of this file it calls,
//! keeps CUDA's meaning, so its HP102 is PASS saying why. The warp-level code of functions
//! defined in other files is judged where it is defined (their file's own findings).
//!
//! Not settled: a function that also names a warp-size constant (`WARP_SIZE`): a literal 32
//! beside it is a second spelling of the width that a port of the constant leaves behind.

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Tok, NO_DIRECTIVE};
use crate::model::syntax::Src;
use std::collections::HashMap;

/// Tokens that exchange data across lanes or read the wavefront's lanes.
fn exchanges(t: &[u8]) -> bool {
    (super::warp_level_name(t) && t != b"__syncwarp")
        || matches!(
            t,
            b"asm"
                | b"__asm__"
                | b"__asm"
                | b"warpSize"
                | b"__lane_id"
                | b"WarpReduce"
                | b"WarpScan"
                | b"WarpExchange"
                | b"WarpLoad"
                | b"WarpStore"
                | b"tiled_partition"
                | b"thread_block_tile"
                | b"coalesced_threads"
                | b"coalesced_group"
        )
}

/// Settles the file's open HP102 findings in functions that exchange nothing across lanes.
pub(super) fn settle(s: &Src, out: &mut [Finding]) {
    if !out
        .iter()
        .any(|f| f.rule == "HP102" && f.status != Status::Pass)
    {
        return;
    }
    let (src, lexed) = (s.ctx.src, s.lexed);
    // PTX's hardware lane id anywhere in the file: its lanes are the wavefront's.
    let hardware_lane = lexed
        .tokens
        .iter()
        .any(|t| t.kind == Tok::Str && memchr::memmem::find(t.text(src), b"%laneid").is_some());
    if hardware_lane {
        return;
    }
    let Some(root) = s.tree.map(|t| t.root_node()) else {
        return;
    };
    use crate::kinds::cuda::{Field, Kind as K, NodeExt};
    let functions = s.descendants(root, K::FunctionDefinition);
    // The file's functions by name (every definition of an overloaded name).
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, f) in functions.iter().enumerate() {
        if let Some(name) = f
            .field(Field::Declarator)
            .and_then(|d| crate::model::syntax::function_name(s, d))
        {
            by_name.entry(name).or_default().push(k);
        }
    }
    let mut memo: HashMap<usize, bool> = HashMap::new();
    for f in out
        .iter_mut()
        .filter(|f| f.rule == "HP102" && f.status != Status::Pass)
    {
        let Some(node) = root.descendant_for_byte_range(f.byte_range.0, f.byte_range.0) else {
            continue;
        };
        let Some(k) = s
            .enclosing_function(node)
            .and_then(|g| functions.iter().position(|h| h.id() == g.id()))
        else {
            continue;
        };
        let quiet = quiet(s, &functions, k, &by_name, &mut memo, 0);
        if quiet && !names_warp_size(s, functions[k]) {
            f.settle(QUIET);
        }
    }
}

/// What a settled HP102 says.
const QUIET: &str = ", but nothing in this function exchanges data across lanes (no shuffle, ballot, vote, warp primitive or inline assembly, here or in the functions of this file it calls) and nothing computes lanes from the wavefront: each half of a 64-lane wavefront is one such 32-lane group, so the ids keep CUDA's meaning (nothing to change; the warp-level code of functions defined elsewhere is judged where it is defined)";

/// The code tokens of function `k` (its whole definition).
fn tokens(s: &Src, n: tree_sitter::Node) -> std::ops::Range<usize> {
    let lexed = s.lexed;
    let a = lexed
        .tokens
        .partition_point(|t| (t.start as usize) < n.start_byte());
    let b = lexed
        .tokens
        .partition_point(|t| (t.start as usize) < n.end_byte());
    a..b
}

/// Whether function `k`, and the functions of this file it calls (a few levels deep), make no
/// cross-lane exchange and read no wavefront lane.
fn quiet(
    s: &Src,
    functions: &[tree_sitter::Node],
    k: usize,
    by_name: &HashMap<&str, Vec<usize>>,
    memo: &mut HashMap<usize, bool>,
    depth: usize,
) -> bool {
    if let Some(&q) = memo.get(&k) {
        return q;
    }
    if depth > 4 {
        return false;
    }
    // Provisionally quiet while its callees are read (recursion ends here).
    memo.insert(k, true);
    let lexed = s.lexed;
    let code: Vec<usize> = tokens(s, functions[k])
        .filter(|&j| {
            lexed.tokens[j].kind != Tok::Comment && lexed.tokens[j].directive == NO_DIRECTIVE
        })
        .collect();
    let mut q = true;
    for (x, &j) in code.iter().enumerate() {
        if lexed.tokens[j].kind != Tok::Ident {
            continue;
        }
        let t = s.tok(j);
        if exchanges(t.as_bytes()) {
            q = false;
            break;
        }
        let called = code
            .get(x + 1)
            .is_some_and(|&n| matches!(s.tok(n), "(" | "<"));
        if !called {
            continue;
        }
        match by_name.get(t) {
            Some(defs) => {
                let callees: Vec<usize> = defs.iter().copied().filter(|&d| d != k).collect();
                if !callees
                    .into_iter()
                    .all(|d| quiet(s, functions, d, by_name, memo, depth + 1))
                {
                    q = false;
                    break;
                }
            }
            // Warp-level work by name in another file (`warp_reduce`, `shfl`, `ballot`): its
            // width is the one this function's groups meet.
            None if super::settle::warp_level_elsewhere(t.as_bytes()) => {
                q = false;
                break;
            }
            None => {}
        }
    }
    memo.insert(k, q);
    q
}

/// Whether function `n` names a warp-size constant (`WARP_SIZE`, `kWarpSize`) besides its
/// literal 32s.
fn names_warp_size(s: &Src, n: tree_sitter::Node) -> bool {
    tokens(s, n).any(|j| {
        s.lexed.tokens[j].kind == Tok::Ident && {
            let t = s.tok(j);
            t != "warpSize" && super::super::warp_const_name(t)
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;

    fn hp102(src: &str) -> Vec<(u32, Status)> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP102")
            .map(|f| (f.line, f.status))
            .collect()
    }

    /// SlabHash's kernels: a 32-lane id passed to a member function of another file, nothing
    /// exchanged here. Twins: the same kernel that shuffles at the wavefront's width, that calls
    /// a warp-named helper of another file, that calls this file's shuffling helper, that reads
    /// `warpSize`, and that names a `WARP_SIZE` constant beside its literal.
    #[test]
    fn ids_of_groups_that_exchange_nothing_settle() {
        let quiet = "__global__ void k(int* keys, int n, Table t) {\n  unsigned tid = threadIdx.x + blockIdx.x * blockDim.x;\n  unsigned lane = threadIdx.x & 0x1F;\n  if ((tid - lane) >= n) return;\n  t.insert(keys[tid], lane);\n}\n";
        let f = hp102(quiet);
        assert!(!f.is_empty(), "{f:?}");
        assert!(f.iter().all(|(_, s)| *s == Status::Pass), "{f:?}");
        let found = hazard_findings(quiet);
        let m = &found.iter().find(|f| f.rule == "HP102").unwrap().message;
        assert!(m.contains("nothing in this function exchanges"), "{m}");

        let shuffles = quiet.replace(
            "t.insert(keys[tid], lane);",
            "int v = __shfl_sync(0xffffffff, keys[tid], 0, 64);\n  t.insert(v, lane);",
        );
        assert!(hp102(&shuffles).iter().any(|(_, s)| *s != Status::Pass));
        let helper = quiet.replace("t.insert(", "warp_reduce_insert(");
        assert!(hp102(&helper).iter().any(|(_, s)| *s != Status::Pass));
        let local = format!(
            "__device__ int bcast(int v) {{ return __reduce_add_sync(0xffffffff, v); }}\n{}",
            quiet.replace(
                "t.insert(keys[tid], lane);",
                "t.insert(bcast(keys[tid]), lane);"
            )
        );
        assert!(hp102(&local).iter().any(|(_, s)| *s != Status::Pass));
        let wave = quiet.replace(
            "t.insert(keys[tid], lane);",
            "t.insert(keys[tid], lane + warpSize);",
        );
        assert!(hp102(&wave).iter().any(|(_, s)| *s != Status::Pass));
        let named = format!(
            "#define WARP_SIZE 32\n{}",
            quiet.replace(
                "t.insert(keys[tid], lane);",
                "t.insert(keys[tid], lane * WARP_SIZE);"
            )
        );
        assert!(hp102(&named).iter().any(|(_, s)| *s != Status::Pass));
    }

    /// cuda-samples' host reference for a `%laneid` kernel computes `i % 32`: the file reads the
    /// hardware lane, so the 32 is the wavefront's width there.
    #[test]
    fn a_file_reading_the_hardware_lane_keeps_its_32s() {
        let src = "__global__ void k(int* p) {\n  unsigned l;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));\n  p[threadIdx.x] = l;\n}\nvoid ref(int* h, int n) {\n  for (int i = 0; i < n; i++) h[i] = i % 32;\n}\n";
        let f = hp102(src);
        assert!(f.iter().any(|(_, s)| *s == Status::Remediation), "{f:?}");
    }
}
