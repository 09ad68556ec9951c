//! Libraries a PyTorch extension links by name (`libraries=["cusolver"]`,
//! `extra_link_args=["-lcusparse"]`).

use super::{keyword, strings_in};
use crate::inventory::{build, Out};
use tree_sitter::Node;

/// `CUDAExtension(…, libraries=["cusolver", "cublas"])`: PyTorch's ROCm build hipifies the
/// sources and adds the HIP runtime, but links the listed libraries as written, and a ROCm system
/// has no `libcusolver`: the link stops (HP851, one finding for the list: one edit gates it on
/// `torch.version.hip` with the ROCm names).
pub(super) fn cuda_link_libraries(out: &mut Out, call: Node, src: &[u8]) {
    for (kw, flag) in [("libraries", false), ("extra_link_args", true)] {
        let Some(list) = keyword(call, kw, src) else {
            continue;
        };
        let cuda: Vec<(String, &str)> = strings_in(list, src)
            .into_iter()
            .filter_map(|(s, _)| {
                // `extra_link_args=["-lcusparse"]`: only `-l` flags name libraries.
                let name = if flag {
                    s.trim().strip_prefix("-l")?.to_string()
                } else {
                    s
                };
                build::rocm_library(&name).map(|r| (name, r))
            })
            .collect();
        if cuda.is_empty() {
            continue;
        }
        let names =
            |f: fn(&(String, &str)) -> String| cuda.iter().map(f).collect::<Vec<_>>().join("`, `");
        out.push(
            &build::CUDA_LIBRARY_LINK,
            list.byte_range(),
            format!(
                "links CUDA libraries by name (`{}`, in `{kw}=`): PyTorch's ROCm build hipifies the sources but links them as written, and ROCm has no such libraries",
                names(|(c, _)| c.clone())
            ),
            Some(format!(
                "`{}` when torch.version.hip is set",
                names(|(_, r)| r.to_string())
            )),
        );
    }
}
