//! Kernels every launch of which gives blocks of one 32-thread row (`<<<g, 32>>>`, `dim3(32)`):
//! on AMD each block runs in lanes 0–31 of a wavefront of its own and lanes 32–63 never run.
//! wholegraph's embedding-cache kernels and GenomeWorks' aligners are launched so, from other
//! files than the device functions that hold their warp-level code. There a ballot, a vote or a
//! match over the wavefront sets no bit above 31: what the 32-lane code keeps in 32 bits is the
//! whole answer (HP106 on a ballot kept in or returned as 32 bits, HP109 on ballots, votes and
//! matches). Such findings in functions only these kernels reach are PASS, naming the launch.
//! Not settled here: shuffles (a lane whose source lies past lane 31 reads an inactive lane,
//! where CUDA gives its own value); counts of a mask (`__ffs(m)` on an `auto` ballot is
//! ambiguous under HIP); `1 << lane` (at lane 31 the `int` sign-extends into a 64-bit mask:
//! wholegraph's `modify_mask ^= (1 << lane_idx)`); mask types HIP's `_sync` intrinsics reject at
//! compile time (HP015, HP103).

use super::launch_rows::FileRows;
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::HashMap;

/// The calls whose result a one-row block fills only in its low 32 bits.
const MASKS: [&str; 5] = ["`__ballot", "`__any", "`__all", "`__match", "`__activemask"];

/// A reached function's body (bytes), its name, and the seed kernel and launch shape.
type Body<'a> = ((usize, usize), &'a str, (&'a str, &'a str));

/// Whether the open finding is one a one-row block makes right.
fn settles(f: &Finding) -> bool {
    f.status != Status::Pass
        && match f.rule.as_str() {
            // A ballot kept in a 32-bit variable or returned as one. Not a count of a mask
            // (`__ffs(m)`, `__popc(m)`): where `m` is `auto`, HIP's 64-bit ballot makes it
            // `unsigned long long` and those calls ambiguous, whatever the block.
            "HP106" => {
                f.message.contains("in 32 bits")
                    || f.message.contains("as a 32-bit value")
                    || f.message.contains("is compared with a 32-bit full mask")
            }
            "HP109" => MASKS.iter().any(|m| f.message.starts_with(m)),
            _ => false,
        }
}

/// The project pass over each source's [`FileRows`].
pub fn settle_one_row_blocks(findings: &mut [Finding], files: &[(&str, &FileRows)]) {
    if !findings.iter().any(settles) {
        return;
    }
    // Kernels every launch of which (at least one) is one 32-thread row, with its shape.
    let mut seeds = super::call_graph::kernels_launched_only(files, |l| {
        l.x.as_ref().is_some_and(|(x, _)| *x == 32) && l.one_row
    });
    // A kernel whose `__launch_bounds__` caps its blocks at 32 threads is one row however it
    // is launched.
    for (k, s) in super::launch_rows::bounded_kernels(files) {
        seeds.entry(k).or_insert(s);
    }
    if seeds.is_empty() {
        return;
    }
    let graph = super::call_graph::Graph::new(files);
    let reach =
        super::call_graph::reached_only_from(files, &graph, &seeds, super::block_extent::DEPTH);
    // Each reached function's body, by file.
    let mut bodies: HashMap<&str, Vec<Body>> = HashMap::new();
    for (path, d) in super::call_graph::defs(files) {
        if let Some(via) = reach.get(&(d.qualified.as_str(), path)) {
            bodies
                .entry(path)
                .or_default()
                .push((d.body, d.name.as_str(), *via));
        }
    }
    for f in findings.iter_mut().filter(|f| settles(f)) {
        let Some(inside) = bodies.get(f.path.as_str()).and_then(|b| {
            b.iter()
                .find(|(body, _, _)| body.0 <= f.byte_range.0 && f.byte_range.1 <= body.1)
        }) else {
            continue;
        };
        let (_, name, (kernel, shape)) = inside;
        let whose = if name == kernel {
            format!("kernel `{kernel}`")
        } else {
            format!("`{name}`, which only kernel `{kernel}` (and kernels launched alike) reaches,")
        };
        f.settle(&format!(
            " — but {whose} runs in blocks of one 32-thread row ({shape}): on AMD each block runs in lanes 0–31 of a wavefront of its own and lanes 32–63 never run, so no bit above 31 is set and the 32-bit value is the whole answer; nothing to change"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::syntax::test_support::hazard_findings_at;

    /// The files' own findings, then this pass over their launches.
    fn run(files: &[(&str, &str)]) -> Vec<Finding> {
        let rows = super::super::call_graph::rows_of(files);
        let view: Vec<(&str, &FileRows)> = rows.iter().map(|(p, r)| (p.as_str(), r)).collect();
        let mut out: Vec<Finding> = files
            .iter()
            .flat_map(|(p, s)| hazard_findings_at(p, s))
            .collect();
        settle_one_row_blocks(&mut out, &view);
        out
    }

    fn open(f: &[Finding], rule: &str) -> Vec<(String, u32)> {
        f.iter()
            .filter(|x| x.rule == rule && x.status != Status::Pass)
            .map(|x| (x.path.clone(), x.line))
            .collect()
    }

    /// wholegraph's embedding cache (Apache-2.0): a header's device function keeps a ballot in
    /// 32 bits and counts it with `__ffs`; the `.cu` launches its only caller `<<<n, 32>>>`.
    const CACHE: &str = "__device__ __forceinline__ int key_index(bool hit) {\n  unsigned int mask = __ballot_sync(0xFFFFFFFF, hit);\n  return __ffs(mask) - 1;\n}\n";
    const KERNEL: &str = "#include \"cache.cuh\"\n__global__ void find(const int* k, int* o) {\n  o[blockIdx.x] = key_index(k[threadIdx.x] == 7);\n}\nvoid go(const int* k, int* o, int n, cudaStream_t s) {\n  find<<<n, 32, 0, s>>>(k, o);\n}\n";

    #[test]
    fn ballots_in_blocks_of_one_row_are_whole() {
        let f = run(&[("cache.cuh", CACHE), ("cache.cu", KERNEL)]);
        assert!(open(&f, "HP106").is_empty(), "{f:#?}");
        let settled = f
            .iter()
            .find(|x| x.rule == "HP106" && x.path == "cache.cuh")
            .expect("the ballot's finding");
        assert!(
            settled.message.contains("blocks of one 32-thread row"),
            "{}",
            settled.message
        );
        // Twins: a launch of 64 threads, or of two 32-thread rows (`dim3(32, 2)`), shares the
        // wavefront: the 32-bit ballot loses lanes 32–63.
        for other in ["find<<<n, 64, 0, s>>>", "find<<<n, dim3(32, 2), 0, s>>>"] {
            let k = KERNEL.replace("find<<<n, 32, 0, s>>>", other);
            let f = run(&[("cache.cuh", CACHE), ("cache.cu", &k)]);
            assert!(!open(&f, "HP106").is_empty(), "{other}: {f:#?}");
        }
        // wholegraph's write-back loop: `auto` holds HIP's 64-bit ballot, `__ffs` of it is
        // ambiguous and `1 << 31` sign-extends into it; one-row blocks change neither.
        let loop_ = "__global__ void back(const int* k, int* o) {\n  auto m = __ballot_sync(0xFFFFFFFF, k[threadIdx.x] > 0);\n  while (m != 0) {\n    int lane = __ffs(m) - 1;\n    o[lane] = 1;\n    m ^= (1 << lane);\n  }\n}\nvoid go(const int* k, int* o, int n) { back<<<n, 32>>>(k, o); }\n";
        // `__activemask() == 0xffffffff` in a kernel of one 32-thread row: lanes 32–63 never
        // run, so the mask is 32 one bits and the test means what it meant; twin: 64 threads.
        let all = "__global__ void all(int* o) {\n  if (__activemask() == 0xffffffff) o[threadIdx.x] = 1;\n}\nvoid go(int* o, int n) { all<<<n, 32>>>(o); }\n";
        assert!(open(&run(&[("all.cu", all)]), "HP106").is_empty());
        let wide = all.replace("<<<n, 32>>>", "<<<n, 64>>>");
        assert_eq!(
            open(&run(&[("all.cu", &wide)]), "HP106"),
            [("all.cu".to_string(), 2)]
        );
        let f = run(&[("back.cu", loop_)]);
        assert_eq!(open(&f, "HP102"), [("back.cu".to_string(), 6)], "{f:#?}");
        assert_eq!(open(&f, "HP106"), [("back.cu".to_string(), 4)], "{f:#?}");
        // A second caller launched otherwise keeps it open too.
        let k = format!("{KERNEL}__global__ void wide(const int* k, int* o) {{ o[0] = key_index(k[0] == 1); }}\nvoid run(const int* k, int* o) {{ wide<<<1, 256>>>(k, o); }}\n");
        let f = run(&[("cache.cuh", CACHE), ("cache.cu", &k)]);
        assert!(!open(&f, "HP106").is_empty(), "{f:#?}");
    }
}
