//! A byte-level prefilter: does a file mention anything CUDA at all? Decides whether a file that
//! the translation did not touch is worth a tree-sitter parse.

use memchr::memmem;
use std::sync::OnceLock;

const NEEDLES: &[&str] = &[
    "cuda",
    "CUDA",
    "__global__",
    "__device__",
    "__shared__",
    "<<<",
    "cub",
    "nvtx",
    "nccl",
    "__shfl",
    "warpSize",
    "asm",
];

fn finders() -> &'static Vec<memmem::Finder<'static>> {
    static F: OnceLock<Vec<memmem::Finder<'static>>> = OnceLock::new();
    F.get_or_init(|| {
        NEEDLES
            .iter()
            .map(|n| memmem::Finder::new(n.as_bytes()))
            .collect()
    })
}

pub fn mentions_cuda(bytes: &[u8]) -> bool {
    finders().iter().any(|f| f.find(bytes).is_some())
}
