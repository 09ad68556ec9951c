//! One decision, one open finding, through the binary: a kernel file built on Hopper's TMA and
//! `wgmma` is one open finding (its first HP702) naming the features and counting the rest,
//! which stay in JSON as PASS naming it; the negative twin, a file of generic kernels with two
//! `wgmma` helpers, keeps every finding open (its kernels run on every GPU). Likewise FP8 uses
//! in two files and a `legacy/` folder are one open finding each; `legacy_utils/` is not one.

mod common;
use common::{hipport, write};

const TMA_KERNEL: &str = r#"#include <cuda.h>
__global__ void attn(const __grid_constant__ CUtensorMap map, float* o) {
  unsigned bar = 0;
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" :: "r"(bar), "l"(&map), "r"(0), "r"(0), "r"(bar) : "memory");
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  int lane = threadIdx.x % 32;
  o[lane] = lane;
}
"#;

/// Every finding of `scan --format json` on `root`.
fn findings(root: &std::path::Path) -> Vec<serde_json::Value> {
    let r = hipport(root, &["scan", ".", "--format", "json", "--exit-zero"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    json["findings"].as_array().unwrap().clone()
}

fn mixed() -> String {
    let mut s = String::from(
        "__device__ void fence() { asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\"); }\n\
         __device__ void commit() { asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\"); }\n\
         __global__ void sync_all() { fence(); commit(); }\n",
    );
    for i in 0..10 {
        s.push_str(&format!(
            "__global__ void k{i}(int* o) {{\n  int lane = threadIdx.x % 32;\n  o[threadIdx.x / warpSize * 32 + lane] = lane;\n}}\n"
        ));
    }
    s
}

#[test]
fn an_sm90_only_kernel_file_is_one_open_finding() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("k")).unwrap();
    write(&root.join("k/attn_tma.cu"), TMA_KERNEL);
    write(&root.join("k/mixed.cu"), &mixed());
    let all = findings(root);
    let findings = &all;
    let of = |path: &str| -> Vec<&serde_json::Value> {
        findings.iter().filter(|f| f["path"] == path).collect()
    };
    let open = |fs: &[&serde_json::Value]| fs.iter().filter(|f| f["status"] != "PASS").count();

    let tma = of("k/attn_tma.cu");
    assert_eq!(tma.len(), 5, "{tma:#?}");
    assert_eq!(open(&tma), 1);
    let head = tma.iter().find(|f| f["status"] != "PASS").unwrap();
    assert_eq!(head["rule"], "HP702");
    let msg = head["message"].as_str().unwrap();
    assert!(
        msg.contains("sm_90+/sm_100 GPUs only (`CUtensorMap` line 2, `cp.async.bulk` line 4, `wgmma` line 5)"),
        "{msg}"
    );
    assert!(
        msg.contains("4 more findings in this file (HP201 ×3, HP102 ×1)"),
        "{msg}"
    );
    for f in tma.iter().filter(|f| f["status"] == "PASS") {
        assert!(f["message"]
            .as_str()
            .unwrap()
            .ends_with("(folded into `k/attn_tma.cu:2`: this file runs only on sm_90+/sm_100 GPUs, one decision)"));
    }

    let generic = of("k/mixed.cu");
    assert_eq!(generic.len(), 12, "{generic:#?}");
    assert_eq!(open(&generic), 12);
    assert!(generic
        .iter()
        .all(|f| !f["message"].as_str().unwrap().contains("one decision")));
}

const FP8: &str = "#include <cuda_fp8.h>\n__global__ void q(const float* x, __nv_fp8_e4m3* y) {\n  y[threadIdx.x] = __nv_fp8_e4m3(x[threadIdx.x]);\n}\n";

#[test]
fn fp8_uses_and_a_legacy_folder_are_one_decision_each() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for dir in ["src", "legacy", "legacy_utils"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    write(&root.join("src/a.cu"), FP8);
    write(&root.join("src/b.cu"), FP8);
    write(&root.join("legacy/old.cu"), &mixed());
    write(&root.join("legacy_utils/u.cu"), &mixed());
    let all = findings(root);
    let findings = &all;
    let open = |pre: &str, rule: &str| {
        findings
            .iter()
            .filter(|f| {
                f["status"] != "PASS"
                    && f["path"].as_str().unwrap().starts_with(pre)
                    && (rule.is_empty() || f["rule"] == rule)
            })
            .collect::<Vec<_>>()
    };
    let fp8 = open("src/", "HP709");
    assert_eq!(fp8.len(), 1, "{findings:#?}");
    assert!(fp8[0]["message"]
        .as_str()
        .unwrap()
        .contains("one decision for the project's FP8 encoding"));
    let legacy = open("legacy/", "");
    assert_eq!(legacy.len(), 1, "{findings:#?}");
    assert!(legacy[0]["message"]
        .as_str()
        .unwrap()
        .contains("the project marks `legacy/` as no longer maintained"));
    // Twin: `legacy_utils/` is not such a folder; its findings stay open.
    assert_eq!(open("legacy_utils/", "").len(), 12);
}

/// A PyTorch extension's kernels are hipified by PyTorch's build, which does not make
/// `hipport port`'s width-32 rewrites: those that keep CUDA's meaning are the person's to apply
/// (one REMEDIATION per file). An xor by a lane mask below 32 (`for (m = 16; m >= 1; m /= 2)`)
/// needs none: it never leaves its 32-lane half at HIP's default width, so nothing opens. The
/// twin: the same reduction by `__shfl_down_sync` crosses halves and opens.
#[test]
fn a_pytorch_extension_is_asked_only_for_rewrites_that_change_meaning() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("csrc")).unwrap();
    write(
        &root.join("setup.py"),
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\nsetup(name='x', ext_modules=[CUDAExtension('x', ['csrc/k.cu'])], cmdclass={'build_ext': BuildExtension})\n",
    );
    let kernel = "#include <cuda_runtime.h>\n__global__ void k(const float* x, float* out) {\n  int lane = threadIdx.x & 31;\n  float v = x[threadIdx.x];\n  for (int m = 16; m >= 1; m /= 2) v += __shfl_xor(v, m);\n  if (lane == 0) out[threadIdx.x / 32] = v;\n}\n";
    write(&root.join("csrc/k.cu"), kernel);
    let open_warp = |root: &std::path::Path| -> Vec<String> {
        findings(root)
            .iter()
            .filter(|f| f["path"] == "csrc/k.cu" && f["status"] != "PASS")
            .map(|f| format!("{} {}", f["rule"], f["message"]))
            .collect()
    };
    assert!(open_warp(root).is_empty(), "{:?}", open_warp(root));
    write(
        &root.join("csrc/k.cu"),
        &kernel.replace("__shfl_xor(v, m)", "__shfl_down(v, m)"),
    );
    let open = open_warp(root);
    assert_eq!(open.len(), 1, "{open:?}");
    assert!(
        open[0].starts_with("\"HP109\"") && open[0].contains("built by PyTorch (`setup.py:"),
        "{open:?}"
    );
    // omniserve's GEMM launchers: a kernel passed to `cudaFuncSetAttribute` needs the
    // `const void*` cast PyTorch's hipify does not write.
    write(
        &root.join("csrc/k.cu"),
        &format!("{kernel}void go(const float* x, float* o) {{\n  auto kernel_func = k;\n  cudaFuncSetAttribute(kernel_func, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);\n  k<<<1, 64, 1024>>>(x, o);\n}}\n"),
    );
    let open = open_warp(root);
    assert_eq!(open.len(), 1, "{open:?}");
    assert!(
        open[0].starts_with("\"HP017\"") && open[0].contains("built by PyTorch"),
        "{open:?}"
    );
}

/// GpuBTree's shape: a header-only library whose header includes the `.cu` files of a folder no
/// build file names (`#include "map/kernels/map_warps.cu"`): the folder is compiled with every
/// unit that includes the header, so its findings stay open. Twin: a folder of units nothing
/// outside it includes or names is one unbuilt decision.
#[test]
fn a_folder_of_units_a_header_includes_is_built() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for dir in ["src/map/kernels", "test", "perf"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    write(
        &root.join("CMakeLists.txt"),
        "project(t LANGUAGES CXX CUDA)\nadd_executable(t test/test_map.cu)\n",
    );
    write(
        &root.join("src/Lib.h"),
        "#include \"map/kernels/map_warps.cu\"\n",
    );
    write(&root.join("src/map/kernels/map_warps.cu"), &mixed());
    write(&root.join("test/test_map.cu"), "#include \"Lib.h\"\n");
    write(&root.join("perf/old.cu"), &mixed());
    // An include from inside the unbuilt folder itself builds nothing.
    write(&root.join("perf/all.h"), "#include \"old.cu\"\n");
    let all = findings(root);
    let findings = &all;
    let open = |pre: &str| {
        findings
            .iter()
            .filter(|f| f["status"] != "PASS" && f["path"].as_str().unwrap().starts_with(pre))
            .collect::<Vec<_>>()
    };
    assert!(open("src/map/").len() > 1, "{findings:#?}");
    assert!(open("src/map/").iter().all(|f| !f["message"]
        .as_str()
        .unwrap()
        .contains("no build file of the project compiles")));
    let perf = open("perf/");
    assert_eq!(perf.len(), 1, "{findings:#?}");
    assert!(perf[0]["message"]
        .as_str()
        .unwrap()
        .contains("no build file of the project compiles `perf/`"));
}

/// A Visual Studio project is a build (BundleFusion's `FriedLiver.vcxproj` is its only one):
/// headers beside its compiled units that no file includes are one set-aside decision, as in a
/// CMake project. Twin: the same tree without the `.vcxproj` has no build to judge by, and its
/// headers' findings stay open one by one.
#[test]
fn headers_a_visual_studio_build_never_includes_are_one_decision() {
    let tree = |vcxproj: bool| {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        std::fs::create_dir_all(root.join("Source")).unwrap();
        if vcxproj {
            write(
                &root.join("App.vcxproj"),
                "<Project>\n  <ItemGroup>\n    <CudaCompile Include=\"Source\\k.cu\" />\n  </ItemGroup>\n</Project>\n",
            );
        }
        write(
            &root.join("Source/k.cu"),
            "#include \"used.h\"\n__global__ void k() {}\n",
        );
        write(&root.join("Source/used.h"), "#pragma once\nint used();\n");
        write(
            &root.join("Source/helper_old.h"),
            "#pragma once\ninline void a() { cudaGLSetGLDevice(0); }\ninline void b() { cuGLInit(0); }\n",
        );
        findings(root)
            .iter()
            .filter(|f| f["status"] != "PASS" && f["path"] == "Source/helper_old.h")
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let with = tree(true);
    assert_eq!(with.len(), 1, "{with:#?}");
    assert!(
        with[0].contains("no source file of the project includes `Source/helper_old.h`"),
        "{with:#?}"
    );
    let without = tree(false);
    assert_eq!(without.len(), 2, "{without:#?}");
}
