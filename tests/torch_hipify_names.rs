//! End to end: HP022, CUDA names a PyTorch extension's sources keep through PyTorch's build-time
//! hipify (`mappings/torch/torch_hipify.tsv`). The kernel is an excerpt of Uni-Core's
//! `csrc/rounding/fp32_to_bf16.cu` (https://github.com/dptech-corp/Uni-Core, MIT licence,
//! Copyright (c) 2022 DP Technology), shortened; each twin changes one thing that decides it.

#[path = "common/rows.rs"]
mod rows;

use rows::Row;

fn scan(files: &[(&str, &str)]) -> Vec<Row> {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".git")).unwrap();
    rows::write(d.path(), files);
    rows::scan_root(d.path(), &[])
}

const SETUP: &str = "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\nsetup(\n    name=\"unicore_fused\",\n    ext_modules=[CUDAExtension(\"unicore_fused_rounding\", [\"csrc/rounding/interface.cpp\", \"csrc/rounding/fp32_to_bf16.cu\"])],\n    cmdclass={\"build_ext\": BuildExtension},\n)\n";

fn kernel(head: &str, ty: &str) -> String {
    format!(
        "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <torch/extension.h>\n{head}\n__global__ void fp32_to_bf16(\n    const float* input,\n    {ty}* output,\n    const int tsize) {{\n    int i = threadIdx.x + blockIdx.x * blockDim.x;\n    if (i < tsize) {{\n        output[i] = __float2bfloat16(input[i]);\n    }}\n}}\n\nvoid fp32_to_bf16_cuda(at::Tensor input, at::Tensor output) {{\n    int tsize = input.numel();\n    fp32_to_bf16<<<(tsize + 255) / 256, 256>>>(\n        (const float*)input.data_ptr(),\n        ({ty}*)output.data_ptr(),\n        tsize);\n}}\n"
    )
}

fn open(rows: &[Row]) -> Vec<&Row> {
    rows.iter()
        .filter(|r| r.0 == "HP022" && r.3 != "PASS")
        .collect()
}

/// `nv_bfloat16` in a `CUDAExtension`'s kernel: PyTorch's hipify leaves it and HIP lacks it.
/// One open finding for the extension, naming the uses.
#[test]
fn pytorch_extension_name_hipify_leaves() {
    let rows = scan(&[
        ("setup.py", SETUP),
        ("csrc/rounding/fp32_to_bf16.cu", &kernel("", "nv_bfloat16")),
    ]);
    let open = open(&rows);
    assert_eq!(open.len(), 1, "{rows:#?}");
    let (_, path, line, status, message) = open[0];
    assert_eq!(
        (path.as_str(), *line, status.as_str()),
        ("csrc/rounding/fp32_to_bf16.cu", 7, "REMEDIATION")
    );
    assert!(message.contains("`nv_bfloat16` (2 uses)"), "{message}");
    assert!(message.contains("`setup.py:6`"), "{message}");
}

/// Twins: no PyTorch build (a plain CUDA project: `port` renames it); the name PyTorch's map
/// has (`__nv_bfloat16`); the project's own ROCm alias in a header; the code only the CUDA build
/// compiles; a name only tested in a condition.
#[test]
fn no_finding_where_nothing_leaves_the_name() {
    let k = kernel("", "nv_bfloat16");
    let cases: Vec<(&str, Vec<(&str, String)>)> = vec![
        ("no PyTorch build", vec![("csrc/rounding/fp32_to_bf16.cu", k.clone())]),
        (
            "PyTorch maps __nv_bfloat16",
            vec![
                ("setup.py", SETUP.into()),
                ("csrc/rounding/fp32_to_bf16.cu", kernel("", "__nv_bfloat16")),
            ],
        ),
        (
            "the project's ROCm alias",
            vec![
                ("setup.py", SETUP.into()),
                (
                    "csrc/rounding/compat.h",
                    "#pragma once\n#ifdef USE_ROCM\n#include <hip/hip_bf16.h>\ntypedef __hip_bfloat16 nv_bfloat16;\n#endif\n".into(),
                ),
                (
                    "csrc/rounding/fp32_to_bf16.cu",
                    kernel("#include \"compat.h\"", "nv_bfloat16"),
                ),
            ],
        ),
        (
            "CUDA-only arm",
            vec![
                ("setup.py", SETUP.into()),
                (
                    "csrc/rounding/fp32_to_bf16.cu",
                    format!("#ifndef USE_ROCM\n{}#endif\n", kernel("", "nv_bfloat16")),
                ),
            ],
        ),
        (
            "condition only",
            vec![
                ("setup.py", SETUP.into()),
                (
                    "csrc/rounding/fp32_to_bf16.cu",
                    kernel("#ifdef CURAND_H_\n#define HAVE_RAND 1\n#endif", "__nv_bfloat16"),
                ),
            ],
        ),
    ];
    for (what, files) in cases {
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let rows = scan(&files);
        assert!(open(&rows).is_empty(), "{what}: {rows:#?}");
        // Without a PyTorch build the name is no fact at all (not even PASS).
        assert!(
            what != "no PyTorch build" || !rows.iter().any(|r| r.0 == "HP022"),
            "{what}: {rows:#?}"
        );
    }
}

/// HP027: a kernel that lifts PyTorch's nvcc `half` restrictions with `#undef` gets the HIP
/// twin lifted by `port` (PASS), but in a `CUDAExtension` PyTorch's ROCm build passes hipcc
/// `-D__HIP_NO_HALF_OPERATORS__=1` and does not make the change: REMEDIATION there. Twin: the
/// same kernel in a plain CUDA project stays PASS; one that lifts the HIP twin itself has none.
#[test]
fn half_restriction_lifted_for_nvcc_only_in_an_extension() {
    let k = kernel("#undef __CUDA_NO_HALF2_OPERATORS__", "__nv_bfloat16");
    let status = |files: &[(&str, &str)]| {
        scan(files)
            .into_iter()
            .filter(|r| r.0 == "HP027")
            .map(|r| (r.2, r.3))
            .collect::<Vec<_>>()
    };
    let path = "csrc/rounding/fp32_to_bf16.cu";
    assert_eq!(
        status(&[("setup.py", SETUP), (path, &k)]),
        [(4, "REMEDIATION".to_string())]
    );
    assert_eq!(status(&[(path, &k)]), [(4, "PASS".to_string())]);
    let own = k.replace(
        "#undef __CUDA_NO_HALF2_OPERATORS__",
        "#undef __CUDA_NO_HALF2_OPERATORS__\n#undef __HIP_NO_HALF_OPERATORS__",
    );
    assert!(status(&[("setup.py", SETUP), (path, &own)]).is_empty());
}
