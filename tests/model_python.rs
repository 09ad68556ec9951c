//! End to end: the Python platform model (issue 20, items 3 and 4) through `hipport scan
//! --format json` on temporary trees. Each case has its negative twin: the same code without the
//! platform test that decides it keeps its finding.

mod common;

use std::path::Path;

/// `(rule, path, line, status, phase, message)` of every finding.
type Row = (String, String, u64, String, String, String);

fn scan(files: &[(&str, &str)]) -> Vec<Row> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        common::write(&p, text);
    }
    let run = common::hipport(Path::new(root), &["scan", "--format", "json", "."]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or_default().to_string();
            (
                s("rule"),
                s("path"),
                f["line"].as_u64().unwrap(),
                s("status"),
                s("phase"),
                s("message"),
            )
        })
        .collect()
}

fn find<'a>(rows: &'a [Row], rule: &str, path: &str, line: u64) -> &'a Row {
    rows.iter()
        .find(|r| r.0 == rule && r.1 == path && r.2 == line)
        .unwrap_or_else(|| panic!("no {rule} at {path}:{line} in {rows:#?}"))
}

fn open(rows: &[Row]) -> Vec<(String, u64)> {
    rows.iter()
        .filter(|r| r.3 != "PASS")
        .map(|r| (r.0.clone(), r.2))
        .collect()
}

#[test]
fn a_raise_on_the_rocm_arm_is_remediation_at_import() {
    let rows = scan(&[(
        "pkg/__init__.py",
        "import torch\nif torch.version.cuda is None:\n    raise RuntimeError(\"needs CUDA\")\n",
    )]);
    let f = find(&rows, "HP813", "pkg/__init__.py", 2);
    assert_eq!((f.3.as_str(), f.4.as_str()), ("REMEDIATION", "IMPORT"));
    assert!(f.5.contains("on ROCm this arm raises"), "{}", f.5);
    let twin = scan(&[(
        "pkg/__init__.py",
        "import torch\nif torch.version.cuda is None and torch.version.hip is None:\n    raise RuntimeError(\"needs a GPU build\")\n",
    )]);
    assert!(open(&twin).is_empty(), "{twin:#?}");
}

#[test]
fn a_skip_whose_other_operand_skips_rocm_decides_nothing_there() {
    let src = |cond: &str| {
        format!("import pytest, torch\ncc = torch.cuda.get_device_capability()\n@pytest.mark.skipif({cond}, reason=\"sm90 only\")\ndef test_wgmma():\n    pass\n")
    };
    let rows = scan(&[(
        "tests/test_k.py",
        &src("cc != (9, 0) or torch.version.cuda is None"),
    )]);
    assert!(open(&rows).is_empty(), "{rows:#?}");
    assert!(find(&rows, "HP811", "tests/test_k.py", 3)
        .5
        .contains("decides nothing on ROCm"));
    let twin = scan(&[("tests/test_k.py", &src("cc != (9, 0)"))]);
    assert_eq!(open(&twin), [("HP811".to_string(), 3)]);
}

#[test]
fn what_follows_an_early_return_on_rocm_is_cuda_only() {
    let src = |guard: &str| {
        format!("import os, torch\ndef arch_list():\n    if {guard}:\n        return\n    os.environ[\"CUDAARCHS\"] = \"80;90\"\n")
    };
    let rows = scan(&[("build_ext.py", &src("not torch.version.cuda"))]);
    assert_eq!(find(&rows, "HP843", "build_ext.py", 5).3, "PASS");
    let twin = scan(&[("build_ext.py", &src("not torch.cuda.is_available()"))]);
    assert_eq!(find(&twin, "HP843", "build_ext.py", 5).3, "REMEDIATION");
}

#[test]
fn a_stacked_rocm_decorator_passes_the_test_body() {
    let src = |deco: &str| {
        format!("import pytest, torch\n@pytest.mark.parametrize(\"n\", [1, 2])\n{deco}\ndef test_version(n):\n    assert torch.version.cuda.startswith(\"12\")\n")
    };
    let rows = scan(&[("tests/test_v.py", &src("@disable_on_rocm"))]);
    let f = find(&rows, "HP810", "tests/test_v.py", 5);
    assert_eq!(f.3, "PASS");
    assert!(f.5.contains("`@disable_on_rocm`"), "{}", f.5);
    let twin = scan(&[("tests/test_v.py", &src("@pytest.mark.slow"))]);
    assert_eq!(find(&twin, "HP810", "tests/test_v.py", 5).3, "REMEDIATION");
}

#[test]
fn old_gpu_skips_pass_and_hopper_gates_stay() {
    let rows = scan(&[(
        "tests/test_a.py",
        "import pytest, torch\n@pytest.mark.skipif(torch.cuda.get_device_capability() < (8, 0), reason=\"Ampere+\")\ndef test_a():\n    pass\ndef test_b():\n    major, minor = torch.cuda.get_device_capability()\n    if major < 8:\n        pytest.skip(\"Ampere+\")\n",
    )]);
    assert!(open(&rows).is_empty(), "{rows:#?}");
    let twin = scan(&[(
        "tests/test_a.py",
        "import pytest, torch\n@pytest.mark.skipif(not (torch.cuda.get_device_capability() >= (9, 0) and torch.cuda.get_device_capability() < (10, 0)), reason=\"Hopper\")\ndef test_a():\n    pass\n",
    )]);
    // Both comparisons of the Hopper gate are one decision on one line: one open finding.
    assert_eq!(open(&twin), [("HP811".to_string(), 2)]);
}

/// The arm before `elif torch.version.hip:` is the CUDA arm whatever its condition: its flags and
/// the sources only it compiles are PASS. Without a ROCm arm they stay work.
#[test]
fn setup_py_cuda_arm_before_elif_hip() {
    let setup = |cond: &str, rocm_arm: bool| {
        format!(
            "import os, torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CUDAExtension, BuildExtension\nif {cond}:\n    sources = [\"csrc/cuda/k.cu\"]\n    flags = [\"-gencode\", \"arch=compute_80,code=sm_80\"]\n{}\next = CUDAExtension(\"ops\", sources, extra_compile_args={{\"nvcc\": flags}})\n",
            if rocm_arm {
                "elif torch.version.hip:\n    sources = [\"csrc/hip/k.hip\"]\n    flags = [\"--offload-arch=gfx942\"]"
            } else {
                "else:\n    sources = []\n    flags = []"
            }
        )
    };
    let issue = "(torch.cuda.is_available() and CUDA_HOME is not None and torch.version.cuda is not None) or os.getenv(\"FORCE_CUDA\", \"0\") == \"1\"";
    let loose = "torch.cuda.is_available() and CUDA_HOME is not None";
    // A hazard no model of the kernel settles (inline PTX): only the build arm decides it.
    let kernel = "__global__ void k(float* x) {\n  asm volatile(\"membar.gl;\");\n  x[threadIdx.x] = 0.0f;\n}\n";
    for cond in [issue, loose] {
        let rows = scan(&[("setup.py", &setup(cond, true)), ("csrc/cuda/k.cu", kernel)]);
        assert_eq!(find(&rows, "HP831", "setup.py", 5).3, "PASS", "{cond}");
        let kernel_rows: Vec<&Row> = rows.iter().filter(|r| r.1 == "csrc/cuda/k.cu").collect();
        assert!(!kernel_rows.is_empty(), "{rows:#?}");
        assert!(kernel_rows.iter().all(|r| r.3 == "PASS"), "{rows:#?}");
    }
    // Twin: the same loose condition without a ROCm arm: nothing says it is CUDA's arm.
    let twin = scan(&[
        ("setup.py", &setup(loose, false)),
        ("csrc/cuda/k.cu", kernel),
    ]);
    assert_eq!(find(&twin, "HP831", "setup.py", 5).3, "REMEDIATION");
    assert!(
        twin.iter()
            .any(|r| r.1 == "csrc/cuda/k.cu" && r.3 != "PASS"),
        "{twin:#?}"
    );
}

#[test]
fn an_nvcc_probe_by_path_breaks_the_install() {
    let rows = scan(&[(
        "setup.py",
        "import os, subprocess\ncuda_dir = os.environ.get(\"CUDA_ROOT\", \"/usr/local/cuda\")\nout = subprocess.check_output([cuda_dir + \"/bin/nvcc\", \"-V\"])\n",
    )]);
    let f = find(&rows, "HP812", "setup.py", 3);
    assert_eq!((f.3.as_str(), f.4.as_str()), ("REMEDIATION", "INSTALL"));
    let twin = scan(&[(
        "setup.py",
        "import os, subprocess, torch\nif torch.version.cuda:\n    out = subprocess.check_output([os.path.join(cuda_dir, \"bin\", \"nvcc\"), \"-V\"])\n",
    )]);
    assert_eq!(find(&twin, "HP812", "setup.py", 3).3, "PASS");
}

#[test]
fn cuda_home_in_python_is_one_fact() {
    let rows = scan(&[(
        "build.py",
        "import os\nfrom torch.utils.cpp_extension import CUDA_HOME\ninc = os.path.join(CUDA_HOME, \"include\")\nlib = os.path.join(CUDA_HOME, \"lib64\")\n",
    )]);
    let hp852: Vec<&Row> = rows.iter().filter(|r| r.0 == "HP852").collect();
    assert_eq!(hp852.len(), 1, "{rows:#?}");
    assert_eq!((hp852[0].2, hp852[0].3.as_str()), (3, "REMEDIATION"));
    let twin = scan(&[(
        "build.py",
        "import os, torch\nfrom torch.utils.cpp_extension import CUDA_HOME\nif torch.version.hip is None:\n    inc = os.path.join(CUDA_HOME, \"include\")\n",
    )]);
    assert_eq!(find(&twin, "HP852", "build.py", 4).3, "PASS");
}

#[test]
fn cudnn_version_thresholds() {
    let rows = scan(&[(
        "model.py",
        "import torch\nif torch.backends.cudnn.version() >= 8000:\n    fast = True\ntorch.backends.cudnn.enabled = True\n",
    )]);
    let f = find(&rows, "HP803", "model.py", 2);
    assert_eq!((f.3.as_str(), f.4.as_str()), ("REMEDIATION", "CORRECTNESS"));
    assert_eq!(find(&rows, "HP802", "model.py", 4).3, "PASS");
    let twin = scan(&[(
        "model.py",
        "import torch\nv = torch.backends.cudnn.version()\n",
    )]);
    assert!(open(&twin).is_empty(), "{twin:#?}");
}

/// PyCUDA has no ROCm build (hip-python is a port, not a drop-in).
#[test]
fn pycuda_imports() {
    let rows = scan(&[("gpu.py", "import pycuda.driver as drv\n")]);
    let f = find(&rows, "HP821", "gpu.py", 1);
    assert_eq!(f.3, "UNKNOWN");
    assert!(f.5.contains("hip-python"), "{}", f.5);
    let twin = scan(&[("gpu.py", "import pycudax\nimport cupy_helpers\n")]);
    assert!(open(&twin).is_empty(), "{twin:#?}");
}
