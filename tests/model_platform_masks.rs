//! A warp mask the project defines per platform in a header (FBGEMM's `cuda_prelude.cuh`:
//! `kFullWarpMask` is 64 one bits under `USE_ROCM` and 32 in the `#else`, written with C++14
//! digit separators), used by name in another file: the ROCm build compiles the 64-bit arm, so
//! nothing is open. Twin: a header that defines the name with 32 one bits only is one open
//! HP103 at the definition, which holds the use.

#[path = "common/rows.rs"]
mod rows;

const SPLIT: &str = "#pragma once\n#include <cstdint>\n#if defined(USE_ROCM)\nstatic constexpr uint64_t kFullWarpMask = 0xff'ff'ff'ff'ff'ff'ff'ffull;\n#else\nstatic constexpr uint32_t kFullWarpMask = 0xff'ff'ff'ffu;\n#endif\n";
const NARROW: &str =
    "#pragma once\n#include <cstdint>\nstatic constexpr uint32_t kFullWarpMask = 0xff'ff'ff'ffu;\n";
const FIND: &str = "#include \"prelude.cuh\"\n__global__ void k(const int* a, int* o) {\n  const bool found = a[threadIdx.x] == 3;\n  if (!__any_sync(kFullWarpMask, found)) { o[0] = 1; }\n}\n";

/// (path, line, status) of every HP103.
fn hp103(prelude: &str) -> Vec<(String, u64, String)> {
    let fs = rows::scan_files(&[("prelude.cuh", prelude), ("find.cu", FIND)], &[]);
    fs.iter()
        .filter(|f| f.0 == "HP103")
        .map(|f| (f.1.clone(), f.2, f.3.clone()))
        .collect()
}

#[test]
fn a_mask_the_project_widens_for_rocm_in_a_header_is_not_a_32_bit_mask() {
    let got = hp103(SPLIT);
    assert!(got.iter().all(|f| f.2 == "PASS"), "{got:?}");
    assert!(got.iter().all(|f| f.0 != "find.cu"), "{got:?}");
}

#[test]
fn a_mask_a_header_defines_with_32_bits_only_holds_its_use() {
    let got = hp103(NARROW);
    let open: Vec<_> = got.iter().filter(|f| f.2 != "PASS").collect();
    assert_eq!(open.len(), 1, "{got:?}");
    assert_eq!((open[0].0.as_str(), open[0].1), ("prelude.cuh", 3));
    assert!(got.iter().any(|f| f.0 == "find.cu" && f.1 == 4), "{got:?}");
}
