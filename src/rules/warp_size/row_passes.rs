//! The project passes over launches and kernels in different files ([`run`]), in order, and the
//! last of them:
//!
//! HP107 on a launch of 32-thread blocks (or rows) whose kernel does warp-level work that the
//! port keeps, site by site. A block of 32 threads sits inside one 64-lane wavefront on AMD, so
//! its threads still run in lockstep as one group; what can change is only where the code
//! reaches over 32 lanes: a full-width ballot, a shuffle of width 64, `warpSize`. Each of those
//! sites is its own warp-size finding. Where the kernel (and what it calls in the project) has
//! such findings and every one is PASS, the port already keeps each site's meaning (width-32
//! shuffles, the ballot of the lane's own half, a tile HIP provides), and the launch asks
//! nothing more of a person: PASS naming them. A kernel with an open warp-size finding, with
//! warp-level work and no finding to show how it was judged, or naming the wavefront's width
//! (`warpSize`, or a name of a warp size, whose value a macro elsewhere may take from
//! `warpSize`: a loop from `warpSize / 2` reads lanes 32–63, which a 32-thread block does not
//! run, and is correct for a full wavefront, so no site finding speaks of it) stays UNKNOWN.

use super::launch_rows::{Def, FileRows};
use crate::finding::{Category, Finding};
use crate::gate::Status;
use std::collections::HashMap;

/// The kernel an open HP107 is about, from the launch message the rules write
/// (``launch `k` ``, `` `k` does warp-level work ``, `` `k` is defined in another file ``).
fn launched(message: &str) -> Option<&str> {
    for end_marker in ["` does warp-level work", "` is defined in another file"] {
        if let Some(end) = message.find(end_marker) {
            let start = message[..end].rfind('`')?;
            return Some(&message[start + 1..end]);
        }
    }
    let start = message.find("launch `")? + "launch `".len();
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

/// Every pass that pairs launches with the kernels they run, each file read from its own lex:
/// CUB warp primitives at their default width in kernels every launch gives 32-wide rows; a
/// block's x extent measured in wavefronts where some launch gives a partial wavefront; lane
/// reads and votes at the wavefront's width in kernels of several 32-thread rows; ballots,
/// votes and matches kept in 32 bits in kernels of one 32-thread row per block; and last, the
/// launches whose kernels' warp-level sites the port keeps ([`settle`]).
pub fn run(findings: &mut Vec<Finding>, files: &[(&str, &FileRows)]) {
    super::launch_rows::cub_in_kernels_of_32_wide_rows(findings, files);
    super::block_extent::blocks_in_wavefronts(findings, files);
    super::row_exchange::rows_sharing_a_wavefront(findings, files);
    super::one_row::settle_one_row_blocks(findings, files);
    settle(findings, files);
}

/// A function body the launched kernel reaches: its file, its bytes, the names it mentions.
type Body<'a> = (&'a str, (usize, usize), &'a [String]);

/// `warpSize`, or a name of a warp size (`WARP_SIZE`, `kWarpSize`, `warp_size`) that may stand
/// for it.
fn names_warp_width(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    name == "warpSize" || (lower.contains("warp") && lower.contains("size"))
}

/// Settles each open launch HP107 whose kernel's warp-size findings are all PASS.
fn settle(findings: &mut [Finding], files: &[(&str, &FileRows)]) {
    if !findings
        .iter()
        .any(|f| f.rule == "HP107" && f.status != Status::Pass && launched(&f.message).is_some())
    {
        return;
    }
    let mut defs: HashMap<&str, Vec<(&str, &Def)>> = HashMap::new();
    for (path, rows) in files {
        for d in &rows.defs {
            defs.entry(d.name.as_str()).or_default().push((path, d));
        }
    }
    // The bodies of the kernel and of what it calls in the project, to a bounded depth;
    // `None` where the project does not define the kernel or the walk is cut off.
    let bodies = |name: &str| -> Option<Vec<Body>> {
        Some(
            super::launch_rows::reached(&defs, name, |(_, d): (&str, &Def)| &d.callees)?
                .into_iter()
                .map(|(path, d)| (path, d.body, d.mentions.as_slice()))
                .collect(),
        )
    };
    let mut settled: Vec<(usize, String)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if f.rule != "HP107" || f.status == Status::Pass {
            continue;
        }
        let Some(name) = launched(&f.message) else {
            continue;
        };
        let Some(bodies) = bodies(name) else { continue };
        if bodies
            .iter()
            .flat_map(|(_, _, m)| m.iter())
            .any(|m| names_warp_width(m))
        {
            continue;
        }
        let inside = |g: &Finding| {
            bodies
                .iter()
                .any(|(p, (a, b), _)| g.path == *p && (*a..*b).contains(&g.byte_range.0))
        };
        let sites: Vec<&Finding> = findings
            .iter()
            .filter(|g| g.category == Category::WarpSize && g.rule != "HP107" && inside(g))
            .collect();
        if sites.is_empty() || sites.iter().any(|g| g.status != Status::Pass) {
            continue;
        }
        let mut rules: Vec<&str> = sites.iter().map(|g| g.rule.as_str()).collect();
        rules.sort_unstable();
        rules.dedup();
        let mut lines: Vec<String> = sites
            .iter()
            .map(|g| {
                if g.path == f.path {
                    g.line.to_string()
                } else {
                    format!("{}:{}", g.path, g.line)
                }
            })
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let shown = if lines.len() > 6 {
            format!("{}, …", lines[..6].join(", "))
        } else {
            lines.join(", ")
        };
        settled.push((
            i,
            format!(
                " — every warp-level site of `{name}` (and what it calls) is one the port keeps ({} PASS: {}; line{} {shown}): a block or row of 32 threads runs in lockstep inside a 64-lane wavefront as in an NVIDIA warp, and none of these sites reaches past its 32 lanes",
                sites.len(),
                rules.join(", "),
                if lines.len() == 1 { "" } else { "s" },
            ),
        ));
    }
    for (i, why) in settled {
        findings[i].settle(&why);
    }
}

#[cfg(test)]
mod tests {
    use super::launched;
    use crate::gate::Status;

    /// The launch's HP107 after the per-file rules of both files and the project passes.
    fn launch_status(kernel: &str, launch: &str) -> (Status, String) {
        let files = [("k.cuh", kernel), ("main.cu", launch)];
        let rows = super::super::call_graph::rows_of(&files);
        let refs: Vec<(&str, &super::FileRows)> =
            rows.iter().map(|(p, r)| (p.as_str(), r)).collect();
        let mut findings = Vec::new();
        for (path, src) in files {
            findings.extend(crate::model::syntax::test_support::hazard_findings_at(
                path, src,
            ));
        }
        super::run(&mut findings, &refs);
        let f = findings.into_iter().find(|f| f.rule == "HP107").unwrap();
        (f.status, f.message)
    }

    const LAUNCH: &str = "#include \"k.cuh\"\nvoid go(const float* in, float* out, int n) {\n  blend<<<n, 32>>>(in, out);\n}\n";

    /// A kernel of 32-lane logical warps (offsets 16…1, `& 31`), launched with 32-thread
    /// blocks from another file: every warp-level site is a PASS the port keeps, so the launch
    /// is PASS naming them. Twins: a shuffle loop sized by `warpSize` reaches past 32 lanes (an
    /// open site), and a vote with no finding of its own says nothing: both stay UNKNOWN.
    #[test]
    fn a_launch_whose_kernel_keeps_every_warp_site_is_pass() {
        let kept = "__device__ float reduce32(float v) {\n  for (int off = 16; off > 0; off >>= 1)\n    v += __shfl_down_sync(0xffffffff, v, off);\n  return v;\n}\n__global__ void blend(const float* in, float* out) {\n  float v = reduce32(in[blockIdx.x * 32 + threadIdx.x]);\n  if ((threadIdx.x & 31) == 0) out[blockIdx.x] = v;\n}\n";
        let (status, message) = launch_status(kept, LAUNCH);
        assert_eq!(status, Status::Pass, "{message}");
        assert!(
            message.contains("every warp-level site of `blend`"),
            "{message}"
        );
        let wide = kept.replace("int off = 16", "int off = warpSize / 2");
        assert_eq!(launch_status(&wide, LAUNCH).0, Status::Unknown);
        let named = kept.replace("int off = 16", "int off = WARP_SIZE / 2");
        assert_eq!(launch_status(&named, LAUNCH).0, Status::Unknown);
        let unjudged = "__global__ void blend(const float* in, float* out) {\n  if (__any_sync(0xffffffff, in[threadIdx.x] > 0.f)) out[blockIdx.x] = 1.f;\n}\n";
        assert_eq!(launch_status(unjudged, LAUNCH).0, Status::Unknown);
    }

    #[test]
    fn the_kernel_is_read_from_each_launch_message() {
        assert_eq!(launched("a launch with blocks of 32 threads: one warp on NVIDIA, half a 64-lane wavefront on AMD; `k` does warp-level work (shuffles, votes or lane ids)"), Some("k"));
        assert_eq!(launched("a launch with blocks of 32 threads: one warp on NVIDIA, half a 64-lane wavefront on AMD; `blend` is defined in another file"), Some("blend"));
        assert_eq!(launched("blocks whose rows (or x·y planes) are 32 threads (`dim3(32, n)`, `{4, 8, n}`: one warp each on NVIDIA) launch `trace`: on AMD two of them share a 64-lane wavefront; `trace` does warp-level work (shuffles, votes or lane ids)"), Some("trace"));
        assert_eq!(launched("`cg::tiled_partition<32>`: a tile"), None);
    }
}
