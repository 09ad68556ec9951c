//! Warp ids of 32-lane warps, as a function's assignments write them: `tid / 32`, `tid >> 5`,
//! `threadIdx.x >> 5` (a whole operand, then the divisor). A warp id's shifts stride data per
//! warp (GpuMultisplit's `warpId << 6`: 64 buckets per warp), not lanes.

use super::View;

/// Whether an assignment's right-hand side (`rhs` tokens, `texts` their text) is a warp id of
/// 32-lane warps.
pub(super) fn is_warp_id(v: &View, rhs: &[usize], texts: &[&[u8]]) -> bool {
    let n = texts.len();
    let plain = |k: usize| k == 1 || (k == 3 && texts[..3] == [&b"threadIdx"[..], b".", b"x"]);
    (n >= 3 && plain(n - 2) && texts[n - 2] == b"/" && v.val(Some(rhs[n - 1])) == Some(32))
        || (n >= 4
            && plain(n - 3)
            && texts[n - 3..n - 1] == [&b">"[..], b">"]
            && v.val(Some(rhs[n - 1])) == Some(5))
}
