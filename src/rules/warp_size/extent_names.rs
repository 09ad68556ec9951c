//! What a named extent is, by its name: a block's extent along one axis (`THREADS_X`), a
//! memory layout's row width or stride (`AB_SMEM_STRIDE`), a thread count (`kNThreads`). A
//! value of 32 under such a name is that quantity, not the warp's width.

use super::flow::named;
use crate::model::syntax::Src;
use tree_sitter::Node;

/// An operand's name, lower case without underscores (`AB_SMEM_STRIDE` gives `absmemstride`).
fn squashed_name(s: &Src, n: Node) -> Option<String> {
    let name = named(s, n)?;
    Some(
        name.chars()
            .filter(|c| *c != '_')
            .collect::<String>()
            .to_ascii_lowercase(),
    )
}

/// A memory layout's extent by its name (`AB_SMEM_STRIDE`, `kSmemCols`, `LDA_PADDED`): a value
/// of 32 there is a row width or stride of a buffer, not the warp's width, so `x % STRIDE`
/// wraps a column (cuda_hgemm's shared-memory rows of 32 halves), not a lane.
pub(super) fn memory_extent_name(s: &Src, n: Node) -> bool {
    let Some(l) = squashed_name(s, n) else {
        return false;
    };
    !l.contains("warp")
        && !l.contains("lane")
        && [
            "smem", "stride", "pitch", "pad", "bank", "cols", "rows", "ldm",
        ]
        .iter()
        .any(|k| l.contains(k))
}

/// A block's extent along one axis by its name (`THREADS_X`, `BLOCK_DIM_X`, `DIMX`, `kTileX`):
/// dividing a block's threads by it gives the other axis (`THREADS_Y = THREADS_PER_BLOCK /
/// THREADS_X`), block geometry that a 64-lane wavefront does not change.
pub(super) fn axis_extent_name(s: &Src, n: Node) -> bool {
    let Some(l) = squashed_name(s, n) else {
        return false;
    };
    let Some(stem) = l.strip_suffix(['x', 'y', 'z']) else {
        return false;
    };
    let stem = stem.strip_prefix('k').unwrap_or(stem);
    !stem.contains("warp")
        && !stem.contains("lane")
        && (thread_count_str(stem)
            || matches!(
                stem,
                "dim"
                    | "block"
                    | "tile"
                    | "threads"
                    | "tb"
                    | "cta"
                    | "blockdim"
                    | "blocksize"
                    | "bdim"
            ))
}

/// [`thread_count_name`] on a name (`kNThreads_`, `NUM_THREADS`, `kBlockSize`).
pub(super) fn thread_count_str(name: &str) -> bool {
    let l: String = name
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let l = l
        .strip_prefix('k')
        .filter(|r| r.starts_with("num") || r.starts_with("block") || r.starts_with("threads"))
        .unwrap_or(&l);
    l.contains("thread")
        || matches!(
            l,
            "blocksize" | "blockdim" | "blockdimx" | "ctasize" | "bs" | "blocksz"
        )
}
