//! HP705 where the grid is already sized for the device it runs on. A cooperative launch fails
//! (or a grid-wide sync deadlocks) when more blocks are launched than can be co-resident, and
//! the co-resident count differs on AMD GPUs. Code that computes the grid from the occupancy API
//! at run time (`cudaOccupancyMaxActiveBlocksPerMultiprocessor` × the multiprocessor count)
//! asks the device it runs on; the port renames the calls and HIP answers them for the AMD
//! device, so the size holds there too. Its HP705 findings are PASS, naming the call, in the file
//! that calls it and in the files it includes (the kernel of `this_grid()` in a header, launched
//! from the file that sizes it). Multi-device cooperative launches keep theirs: HIP deprecates
//! them whatever the grid.

use crate::finding::Finding;
use crate::gate::Status;

/// The occupancy calls that give blocks per multiprocessor for a kernel and block size.
const OCCUPANCY: [&str; 2] = [
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
];

/// The occupancy call a file's text makes, if any (`…WithFlags` variants included).
fn sizes_by_occupancy(bytes: &[u8]) -> Option<&'static str> {
    OCCUPANCY
        .iter()
        .find(|w| memchr::memmem::find(bytes, w.as_bytes()).is_some())
        .copied()
}

/// Settles open HP705 findings in files that size their grid from the occupancy API, or that
/// such a file includes (`includes`: each source's quoted includes, resolved by `resolve`).
pub fn settle_sized_grids(
    findings: &mut [Finding],
    files: &[(&str, &[u8])],
    includes: &[(String, Vec<String>)],
    resolve: &dyn Fn(&str, &str) -> String,
) {
    let code = super::COOPERATIVE_LAUNCH.id.code;
    if !findings
        .iter()
        .any(|f| f.rule == code && f.status != Status::Pass)
    {
        return;
    }
    let sizing: Vec<(&str, &'static str)> = files
        .iter()
        .filter_map(|(r, b)| sizes_by_occupancy(b).map(|c| (*r, c)))
        .collect();
    if sizing.is_empty() {
        return;
    }
    let by = |path: &str| -> Option<(String, &'static str)> {
        if let Some((r, c)) = sizing.iter().find(|(r, _)| *r == path) {
            return Some((r.to_string(), c));
        }
        includes.iter().find_map(|(from, incs)| {
            let (_, c) = sizing.iter().find(|(r, _)| *r == from)?;
            incs.iter()
                .any(|i| resolve(from, i) == path)
                .then(|| (from.clone(), *c))
        })
    };
    for f in findings.iter_mut() {
        if f.rule != code || f.status == Status::Pass || f.message.contains("MultiDevice") {
            continue;
        }
        if let Some((file, call)) = by(&f.path) {
            f.settle(&format!(
                " (`{file}` sizes the grid with `{call}` at run time: HIP answers it for the AMD device, so the grid stays co-resident there)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coop(path: &str, what: &str) -> Finding {
        Finding {
            rule: "HP705".into(),
            status: Status::Unknown,
            message: format!(
                "`{what}`: grid-wide cooperation; the co-resident grid size differs on AMD"
            ),
            ..Finding::bare("HP705", path, 3)
        }
    }

    /// punica's SGMV: the launcher sizes the grid from the occupancy API and falls back to a
    /// plain launch; the kernel's `this_grid()` is in a header it includes. Twins: a launcher
    /// with a fixed grid, and a multi-device launch.
    #[test]
    fn grids_sized_from_occupancy_are_settled() {
        let sized: &[u8] = b"#include \"sgmv.cuh\"\nvoid run() { cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 256, 0); cudaLaunchCooperativeKernel((void*)k, g, b, a, 0, s); }\n";
        let fixed: &[u8] = b"#include \"other.cuh\"\nvoid run() { cudaLaunchCooperativeKernel((void*)k, 1024, 256, a, 0, s); }\n";
        let files: Vec<(&str, &[u8])> = vec![("csrc/sgmv_all.cu", sized), ("csrc/fixed.cu", fixed)];
        let includes = vec![
            ("csrc/sgmv_all.cu".to_string(), vec!["sgmv.cuh".to_string()]),
            ("csrc/fixed.cu".to_string(), vec!["other.cuh".to_string()]),
        ];
        let resolve = |from: &str, inc: &str| {
            let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
            format!("{dir}/{inc}")
        };
        let mut fs = vec![
            coop("csrc/sgmv_all.cu", "cudaLaunchCooperativeKernel"),
            coop("csrc/sgmv.cuh", "this_grid"),
            coop("csrc/fixed.cu", "cudaLaunchCooperativeKernel"),
            coop("csrc/other.cuh", "this_grid"),
            coop("csrc/sgmv_all.cu", "cudaLaunchCooperativeKernelMultiDevice"),
        ];
        settle_sized_grids(&mut fs, &files, &includes, &resolve);
        let st: Vec<Status> = fs.iter().map(|f| f.status).collect();
        assert_eq!(
            st,
            [
                Status::Pass,
                Status::Pass,
                Status::Unknown,
                Status::Unknown,
                Status::Unknown
            ]
        );
        assert!(fs[1].message.contains("`csrc/sgmv_all.cu` sizes the grid with `cudaOccupancyMaxActiveBlocksPerMultiprocessor`"));
    }
}
