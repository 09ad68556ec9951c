use super::*;

/// GpuMultisplit's `BMS_prescan_128bucket_256`: `warpId << 6` strides 64 buckets per warp of a
/// kernel whose warps are 32-lane (`& 0x1F`, `>> 5`); it is no evidence of 64-lane lanes.
/// Twin: `threadIdx.x << 6` still is.
#[test]
fn a_shifted_warp_id_strides_data_not_lanes() {
    let src = "__global__ void k(unsigned* s, const int* x) {\n  int laneId = threadIdx.x & 0x1F;\n  int warpId = threadIdx.x >> 5;\n  unsigned b = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);\n  s[(warpId << 6) + laneId] = b;\n}\n";
    let (m, lx) = model(src);
    assert_eq!(
        m.warp_at(tok(src, &lx, "__ballot_sync", 0)),
        Warp::Logical32
    );
    let lanes = src.replace("(warpId << 6)", "(threadIdx.x << 6)");
    let (m, lx) = model(&lanes);
    assert_ne!(
        m.warp_at(tok(&lanes, &lx, "__ballot_sync", 0)),
        Warp::Logical32
    );
}
