//! HP701: one fact per function. A kernel that launches kernels from the device (a recursive
//! quicksort's two child launches, a launch and its device-side `cudaDeviceSynchronize`) is
//! one rewrite for AMD: its work moves to host launches or into the kernel itself. The first
//! dynamic-parallelism finding of each function carries the others' lines; they are PASS
//! naming it.

use crate::finding::Finding;
use crate::model::syntax::Src;
use std::collections::BTreeMap;

/// Folds the HP701 findings from `first` on (this file's) by the function they sit in.
pub(super) fn fold(s: &Src, first: usize, out: &mut [Finding]) {
    let mut by_fn: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in out.iter().enumerate().skip(first) {
        if f.rule != super::DYNAMIC_PARALLELISM.code() {
            continue;
        }
        if let Some(name) = crate::model::hipside::function_around(s, f.byte_range.0) {
            by_fn.entry(name).or_default().push(i);
        }
    }
    for (name, mut idx) in by_fn {
        if idx.len() < 2 {
            continue;
        }
        idx.sort_by_key(|&i| out[i].byte_range.0);
        let head = idx[0];
        let lines: Vec<String> = idx[1..].iter().map(|&i| out[i].line.to_string()).collect();
        let (hpath, hline) = (out[head].path.clone(), out[head].line);
        out[head].message.push_str(&format!(
            " — one decision for `{name}`'s dynamic parallelism: also line{} {} (one rewrite: launch from the host, or fold the child work into the kernel)",
            if lines.len() == 1 { "" } else { "s" },
            lines.join(", ")
        ));
        for &i in &idx[1..] {
            out[i].settle(&format!(
                " (part of `{name}`'s dynamic parallelism, carried by `{hpath}:{hline}`: one decision)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{fires_open, hazard_findings};

    /// A recursive quicksort launches itself twice and syncs on the device: one open finding
    /// naming the other lines. Twin: launches in two kernels stay one finding each.
    #[test]
    fn a_kernels_dynamic_parallelism_is_one_fact() {
        let src = "__global__ void qs(int* d, int l, int r) {\n  if (r <= l) return;\n  qs<<<1, 1>>>(d, l, r - 1);\n  qs<<<1, 1>>>(d, l + 1, r);\n  cudaDeviceSynchronize();\n}\n";
        assert_eq!(fires_open(src, "HP701"), [3]);
        let head = hazard_findings(src)
            .into_iter()
            .find(|f| f.rule == "HP701" && f.line == 3)
            .unwrap();
        assert!(head.message.contains("also lines 4, 5"), "{}", head.message);
        let two = "__global__ void c(int* d) { d[0] = 1; }\n__global__ void a(int* d) {\n  c<<<1, 1>>>(d);\n}\n__global__ void b(int* d) {\n  c<<<1, 1>>>(d);\n}\n";
        assert_eq!(fires_open(two, "HP701"), [3, 6]);
    }
}
