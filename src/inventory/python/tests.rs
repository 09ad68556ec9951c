//! Unit tests of the Python inventory: each rule on a short source, with its negative twin.

use super::super::{kind::FileKind, scan_bytes};

pub(super) fn rules(kind: FileKind, src: &str) -> Vec<(String, u32)> {
    scan_bytes("x.py", kind, src.as_bytes())
        .into_iter()
        .map(|f| (f.rule, f.line))
        .collect()
}

#[test]
fn torch_cuda_in_code_is_pass_not_in_strings_or_comments() {
    let src = "import torch\n# torch.cuda.synchronize() in a comment\ns = \"torch.cuda.is_available()\"\nif torch.cuda.is_available():\n    x = x.cuda()\ndist.init_process_group(backend=\"nccl\")\n";
    let r = rules(FileKind::Python, src);
    assert_eq!(
        r,
        vec![
            ("HP800".into(), 4),
            ("HP800".into(), 5),
            ("HP801".into(), 6)
        ]
    );
}

#[test]
fn version_checks() {
    let src = "if torch.version.cuda >= '11.8':\n    pass\nif torch.cuda.get_device_capability()[0] >= 8:\n    pass\nout = subprocess.check_output([\"nvcc\", \"--version\"])\n";
    let r = rules(FileKind::Python, src);
    assert_eq!(
        r,
        vec![
            ("HP810".into(), 1),
            ("HP811".into(), 3),
            ("HP812".into(), 5)
        ]
    );
}

#[test]
fn device_properties_are_a_capability_only_through_major_minor() {
    // flash-attention's tests: a memory size is not a compute capability.
    let src = "if torch.cuda.get_device_properties(\"cuda\").total_memory <= 16 * 2**30:\n    pass\nif torch.cuda.get_device_properties(0).major >= 9:\n    pass\n";
    let r = rules(FileKind::Python, src);
    assert!(r.contains(&("HP811".into(), 3)), "{r:?}");
    assert!(!r.contains(&("HP811".into(), 1)), "{r:?}");
}

#[test]
fn nccl_environ_and_nvml() {
    let src = "import os, pynvml\nos.environ[\"NCCL_IB_DISABLE\"] = \"1\"\nlevel = os.environ[\"NCCL_DEBUG\"]\nos.environ.setdefault(\"NCCL_NVLS_ENABLE\", \"1\")\n";
    let r = rules(FileKind::Python, src);
    assert_eq!(
        r,
        vec![
            ("HP881".into(), 1),
            ("HP890".into(), 2),
            ("HP891".into(), 4)
        ]
    );
    // flash-attention's tests: a PyTorch ProcessGroupNCCL switch, not NCCL tuning.
    let src = "import os\nos.environ[\"NCCL_ASYNC_ERROR_HANDLING\"] = \"0\"\n";
    assert_eq!(rules(FileKind::Python, src), vec![("HP894".into(), 2)]);
}

/// marlin's and PointRCNN's extensions pass nvcc no flags: the finding says there is none to
/// gate (two labellers read the generic advice as noise); the twin with nvcc flags keeps it.
#[test]
fn an_extension_without_nvcc_flags_has_none_to_gate() {
    let plain = "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\nsetup(name=\"k\", ext_modules=[CUDAExtension(\"k\", [\"k.cpp\", \"k.cu\"])], cmdclass={\"build_ext\": BuildExtension})\n";
    let with = plain.replace(
        "\"k.cu\"])",
        "\"k.cu\"], extra_compile_args={\"nvcc\": [\"-O3\"]})",
    );
    let msg = |src: &str| {
        crate::inventory::scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
            .into_iter()
            .find(|f| f.rule == "HP830")
            .map(|f| f.message)
            .unwrap_or_default()
    };
    assert!(
        msg(plain).contains("passes nvcc no flags to gate"),
        "{}",
        msg(plain)
    );
    assert!(
        msg(&with).contains("nvcc-only flags in it must be gated"),
        "{}",
        msg(&with)
    );
    // The call itself needs no change on ROCm: PASS either way (flags are HP831's).
    for src in [plain, with.as_str()] {
        let f = crate::inventory::scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
            .into_iter()
            .find(|f| f.rule == "HP830")
            .unwrap();
        assert_eq!(f.status, crate::gate::Status::Pass);
    }
}

/// gpustat: `install_requires = [...]` at module level, passed by name to `setup()`. Twin: a
/// list assigned after the call, or to another name, is not the one `setup()` gets.
#[test]
fn setup_py_requirements_through_a_module_level_list() {
    let by_name = "from setuptools import setup\ninstall_requires = [\n    'nvidia-ml-py>=12.535.108',\n    'psutil>=5.6.0',\n]\nsetup(name='g', install_requires=install_requires)\n";
    assert_eq!(rules(FileKind::SetupPy, by_name), vec![("HP820".into(), 3)]);
    let other = "from setuptools import setup\nextras = ['nvidia-ml-py']\ninstall_requires = ['psutil']\nsetup(name='g', install_requires=install_requires)\nlate = ['pynvml']\n";
    assert!(rules(FileKind::SetupPy, other).is_empty());
    // The list and the call inside one `if`/`try` block (the innermost block's assignment
    // wins over a module-level one); a list assigned in another block is not the call's.
    let nested = "from setuptools import setup\ninstall_requires = ['psutil']\nif True:\n    try:\n        install_requires = ['nvidia-ml-py']\n        setup(name='g', install_requires=install_requires)\n    except ImportError:\n        pass\n";
    assert_eq!(rules(FileKind::SetupPy, nested), vec![("HP820".into(), 5)]);
    let sibling = "from setuptools import setup\ninstall_requires = ['psutil']\nif True:\n    install_requires = ['nvidia-ml-py']\nelse:\n    setup(name='g', install_requires=install_requires)\n";
    assert!(rules(FileKind::SetupPy, sibling).is_empty());
}

#[test]
fn setup_py_extension() {
    let src = "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\nsetup(\n    name=\"ops\",\n    install_requires=[\"torch>=2.1\", \"requests\"],\n    ext_modules=[CUDAExtension(\"ops\", [\"ops.cpp\", \"k.cu\"],\n        extra_compile_args={\"nvcc\": [\"-O3\", \"-gencode\", \"arch=compute_80,code=sm_80\", \"--use_fast_math\"]})],\n    cmdclass={\"build_ext\": BuildExtension},\n)\n";
    let r = rules(FileKind::SetupPy, src);
    assert_eq!(
        r,
        vec![
            ("HP820".into(), 5),
            ("HP830".into(), 6),
            ("HP831".into(), 7),
            ("HP831".into(), 7),
            ("HP831".into(), 7),
            ("HP832".into(), 8),
        ]
    );
    // k2-fsa/k2: the project's own `BuildExtension` (a setuptools `build_ext` that runs CMake)
    // is not PyTorch's, which hipifies: no HP832.
    let own = "from setuptools.command.build_ext import build_ext\nclass BuildExtension(build_ext):\n    pass\nsetup(cmdclass={\"build_ext\": BuildExtension})\n";
    assert!(rules(FileKind::SetupPy, own).iter().all(|r| r.0 != "HP832"));
}

/// One list of nvcc flags over several lines is one decision (gate the list): the first flag
/// names them all, the rest are PASS naming it. Twin: flags in two lists are two decisions.
#[test]
fn one_list_of_nvcc_flags_is_one_finding() {
    let src = "from torch.utils.cpp_extension import CUDAExtension\nnvcc = [\n    \"--expt-relaxed-constexpr\",\n    \"--expt-extended-lambda\",\n    \"--use_fast_math\",\n]\n";
    let f = scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes());
    let open: Vec<u32> = f
        .iter()
        .filter(|f| f.rule == "HP831" && f.status.as_str() != "PASS")
        .map(|f| f.line)
        .collect();
    assert_eq!(open, [3]);
    let head = f.iter().find(|f| f.rule == "HP831" && f.line == 3).unwrap();
    assert!(head.message.contains("--use_fast_math"), "{}", head.message);
    assert_eq!(f.iter().filter(|f| f.rule == "HP831").count(), 3);
    let two = "from torch.utils.cpp_extension import CUDAExtension\na = [\n    \"--expt-extended-lambda\",\n]\nb = [\n    \"--use_fast_math\",\n]\n";
    let open2 = scan_bytes("setup.py", FileKind::SetupPy, two.as_bytes())
        .into_iter()
        .filter(|f| f.rule == "HP831" && f.status.as_str() != "PASS")
        .count();
    assert_eq!(open2, 2);
}

/// stylegan2-ada's ops build through the project's own wrapper of `load()`
/// (`custom_ops.get_plugin(…, extra_cuda_cflags=['--use_fast_math'])`): the keyword names the
/// CUDA compiler's flags whatever the callee. Twin: the same list under another keyword.
#[test]
fn cuda_flags_passed_to_a_wrapper_of_load_are_nvcc_flags() {
    let src = "from . import custom_ops
plugin = custom_ops.get_plugin('p', sources=['a.cu'], extra_cuda_cflags=['--use_fast_math'])
";
    assert_eq!(rules(FileKind::Python, src), vec![("HP831".into(), 2)]);
    let other = src.replace("extra_cuda_cflags", "notes");
    assert!(rules(FileKind::Python, &other).is_empty());
}

/// torchao's setup.py asks whether a flag is in a list; it passes none.
#[test]
fn a_flag_compared_is_not_passed() {
    let src = "from torch.utils.cpp_extension import CUDAExtension\nsm90 = \"-gencode=arch=compute_90a,code=sm_90a\" in flags\nargs = [\"-gencode=arch=compute_90a,code=sm_90a\"]\n";
    assert_eq!(rules(FileKind::SetupPy, src), vec![("HP831".into(), 3)]);
}

#[test]
fn clearing_the_arch_list_lists_nothing() {
    let src = "import os\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"\"\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = caps()\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"8.0;9.0\"\n";
    assert_eq!(
        rules(FileKind::Python, src),
        vec![("HP843".into(), 3), ("HP843".into(), 4)]
    );
}

/// ROCm's PyTorch builds extensions for PYTORCH_ROCM_ARCH and never reads
/// TORCH_CUDA_ARCH_LIST: setting it is PASS. The twin: CMake's `CUDAARCHS` stays open.
#[test]
fn torch_cuda_arch_list_is_ignored_by_rocm_pytorch() {
    let src = "import os\nos.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"8.0;9.0\"\nos.environ[\"CUDAARCHS\"] = \"80\"\n";
    let got = judged(FileKind::Python, src);
    assert!(got.contains(&row("HP843", 2, "PASS", "BUILD")), "{got:?}");
    assert!(
        got.contains(&row("HP843", 3, "REMEDIATION", "BUILD")),
        "{got:?}"
    );
}

/// pytorch_scatter's macOS build: `-arch arm64` goes to Apple's clang, not nvcc; nvcc's
/// `-arch sm_80` is still flagged.
#[test]
fn apple_arch_is_not_nvcc() {
    let src = "from torch.utils.cpp_extension import CUDAExtension
extra_compile_args['cxx'] += ['-arch', 'arm64']
extra_link_args += ['-arch', 'x86_64']
nvcc_flags = ['-arch', 'sm_80']
";
    assert_eq!(rules(FileKind::SetupPy, src), vec![("HP831".into(), 4)]);
}

#[test]
fn ptx_strings() {
    let src = "PTX = \"\"\"\n.version 7.0\n.target sm_80\n.entry k()\n\"\"\"\nmod = cuModuleLoadData(PTX)\n";
    let r = rules(FileKind::Python, src);
    assert_eq!(r, vec![("HP912".into(), 1), ("HP912".into(), 6)]);
}

#[test]
fn nvidia_only_imports_and_capability_through_variables() {
    let src = "import torch\nimport cuda.bindings.driver as cuda\nimport cutlass.cute as cute\nfrom quack.softmax import softmax\nimport cudf\nmajor, minor = torch.cuda.get_device_capability()\nif major >= 8:\n    pass\ncc = torch.cuda.get_device_capability(0)\nfast = cc[0] >= 9\nother = 3\nok = other >= 9\nimport numba\nfrom numba import cuda, jit\nimport numba.cuda as nc\n";
    let r = rules(FileKind::Python, src);
    let work: Vec<(String, u32)> = r.into_iter().filter(|(c, _)| c != "HP800").collect();
    assert_eq!(
        work,
        vec![
            ("HP821".into(), 2),
            ("HP821".into(), 3),
            ("HP821".into(), 4),
            ("HP811".into(), 7),
            ("HP811".into(), 10),
            // numba's CUDA target, not numba itself (line 13).
            ("HP821".into(), 14),
            ("HP821".into(), 15),
        ]
    );
}

#[test]
fn cuda_only_arms_of_rocm_tests_are_pass() {
    let src = "from torch.utils.cpp_extension import CUDAExtension\nHIP_BUILD = bool(torch.version.hip)\nif HIP_BUILD:\n    flags = [\"--offload-arch=gfx90a\"]\nelse:\n    flags = [\"-gencode\", \"--use_fast_math\"]\n    v = torch.version.cuda\nw = torch.version.cuda\nCUDAExtension(\"x\", [\"a.cu\"])\n";
    let f = super::super::scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes());
    let got: Vec<(String, u32, String)> = f
        .into_iter()
        .filter(|f| f.rule != "HP800")
        .map(|f| (f.rule, f.line, f.status.as_str().to_string()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("HP831".into(), 6, "PASS".into()),
            ("HP831".into(), 6, "PASS".into()),
            ("HP810".into(), 7, "PASS".into()),
            ("HP810".into(), 8, "REMEDIATION".into()),
            ("HP830".into(), 9, "PASS".into()),
        ]
    );
}

/// `(rule, line, status, phase)` of every finding that is not HP800.
pub(super) fn judged(kind: FileKind, src: &str) -> Vec<(String, u32, String, String)> {
    let rel = if kind == FileKind::SetupPy {
        "setup.py"
    } else {
        "x.py"
    };
    scan_bytes(rel, kind, src.as_bytes())
        .into_iter()
        .filter(|f| f.rule != "HP800")
        .map(|f| {
            (
                f.rule,
                f.line,
                f.status.as_str().to_string(),
                f.phase.as_str().to_string(),
            )
        })
        .collect()
}

pub(super) fn row(
    rule: &str,
    line: u32,
    status: &str,
    phase: &str,
) -> (String, u32, String, String) {
    (rule.into(), line, status.into(), phase.into())
}

/// Issue 20: a skip mark's capability operand decides nothing on ROCm when its own other
/// operand skips the test there; without that operand the threshold stays work.
#[test]
fn capability_operand_of_a_rocm_skip_is_moot() {
    let src = "import pytest, torch\ncc = torch.cuda.get_device_capability()\n@pytest.mark.skipif(cc != (9, 0) or torch.version.cuda is None, reason=\"sm90\")\ndef test_a():\n    pass\n";
    let got = judged(FileKind::Python, src);
    assert!(got.contains(&row("HP811", 3, "PASS", "RUNTIME")), "{got:?}");
    assert!(got.iter().all(|r| r.2 == "PASS"), "{got:?}");
    let twin = "import pytest, torch\ncc = torch.cuda.get_device_capability()\n@pytest.mark.skipif(cc != (9, 0), reason=\"sm90\")\ndef test_a():\n    pass\n";
    let got = judged(FileKind::Python, twin);
    assert!(
        got.contains(&row("HP811", 3, "REMEDIATION", "RUNTIME")),
        "{got:?}"
    );
}

/// Statements after `if not torch.version.cuda: return` run only on CUDA.
#[test]
fn early_return_guards_the_rest_of_the_block() {
    let src = "import os, torch\ndef build():\n    if not torch.version.cuda:\n        return\n    os.environ[\"CUDAARCHS\"] = \"80;90\"\n";
    let got = judged(FileKind::Python, src);
    assert!(got.contains(&row("HP843", 5, "PASS", "BUILD")), "{got:?}");
    // The guard tests something else: the arch list is set on ROCm too.
    let twin = "import os, torch\ndef build():\n    if not torch.cuda.is_available():\n        return\n    os.environ[\"CUDAARCHS\"] = \"80;90\"\n";
    let got = judged(FileKind::Python, twin);
    assert!(
        got.contains(&row("HP843", 5, "REMEDIATION", "BUILD")),
        "{got:?}"
    );
}

/// A stacked decorator that disables the test on ROCm: its findings are PASS naming it.
#[test]
fn stacked_rocm_decorator_skips_the_test() {
    let src = "import pytest, torch\n@pytest.mark.parametrize(\"n\", [1, 2])\n@disable_on_rocm\ndef test_a(n):\n    assert torch.version.cuda.startswith(\"12\")\n";
    let f = scan_bytes("x.py", FileKind::Python, src.as_bytes());
    let hp810 = f.iter().find(|f| f.rule == "HP810").unwrap();
    assert_eq!(hp810.status.as_str(), "PASS");
    assert!(
        hp810.message.contains("`@disable_on_rocm`"),
        "{}",
        hp810.message
    );
    let twin = src.replace("@disable_on_rocm\n", "@slow\n");
    let f = scan_bytes("x.py", FileKind::Python, twin.as_bytes());
    let hp810 = f.iter().find(|f| f.rule == "HP810").unwrap();
    assert_eq!(hp810.status.as_str(), "REMEDIATION");
}

/// `cc < (8, 0)`: every AMD GPU answers like every NVIDIA GPU from Ampere on (PASS); a
/// Hopper-only gate tells current GPUs apart (REMEDIATION).
#[test]
fn old_gpu_skips_pass_and_hopper_gates_stay() {
    let src = "import torch\ncc = torch.cuda.get_device_capability()\nif cc < (8, 0):\n    skip()\nmajor, minor = torch.cuda.get_device_capability()\nif major < 8:\n    skip()\n";
    let got = judged(FileKind::Python, src);
    assert_eq!(
        got,
        [
            row("HP811", 3, "PASS", "RUNTIME"),
            row("HP811", 6, "PASS", "RUNTIME")
        ]
    );
    let twin = "import torch\ncc = torch.cuda.get_device_capability()\nif cc >= (9, 0) and cc < (10, 0):\n    hopper()\n";
    let got = judged(FileKind::Python, twin);
    assert_eq!(
        got,
        [
            row("HP811", 3, "REMEDIATION", "RUNTIME"),
            // The gate's two comparisons are one fact: the second folds into the first.
            row("HP811", 3, "PASS", "RUNTIME")
        ]
    );
}

/// dgl's shapes: a test choosing its expected results by `cc[0] < 7`, and a library guard
/// `assert major >= 7`: every AMD GPU takes the arm every current NVIDIA GPU takes, and nothing
/// needs changing (PASS), in test code and outside it (only pre-Volta GPUs answer otherwise).
/// Twins: an Ampere threshold with an `else` outside test code chooses a library path (a
/// check, UNKNOWN); a guard at Hopper (`>= 9`) tells current GPUs apart (REMEDIATION).
#[test]
fn settled_thresholds_in_tests_and_guards_pass() {
    let test = "import torch
def test_order():
    if torch.cuda.get_device_capability()[0] < 7:
        want = [0, 3]
    else:
        want = [3, 0]
";
    let at = |rel: &str, src: &str| -> Vec<(u32, String)> {
        scan_bytes(rel, FileKind::Python, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP811")
            .map(|f| (f.line, f.status.as_str().to_string()))
            .collect()
    };
    assert_eq!(at("tests/test_order.py", test), [(3, "PASS".into())]);
    // Outside test code a test of pre-Volta GPUs only needs nothing either; one at Ampere
    // with an `else` (every AMD GPU runs the arm written for Ampere on) is a check.
    assert_eq!(at("pkg/order.py", test), [(3, "PASS".into())]);
    let ampere = test.replace("[0] < 7", "[0] < 8");
    assert_eq!(at("pkg/order.py", &ampere), [(3, "UNKNOWN".into())]);
    let guard = "import torch
class Cache:
    def __init__(self):
        major, _ = torch.cuda.get_device_capability()
        assert major >= 7, \"needs Volta\"
";
    assert_eq!(at("pkg/cache.py", guard), [(5, "PASS".into())]);
    let raise = "import torch
def f():
    if torch.cuda.get_device_capability() < (7, 0):
        raise RuntimeError(\"needs Volta\")
";
    assert_eq!(at("pkg/f.py", raise), [(3, "PASS".into())]);
    let hopper = guard.replace(">= 7", ">= 9");
    assert_eq!(at("pkg/cache.py", &hopper), [(5, "REMEDIATION".into())]);
}

/// A raise on the ROCm arm is a failure at import, never a PASS.
#[test]
fn a_raise_on_the_rocm_arm_fails_at_import() {
    let src =
        "import torch\nif torch.version.cuda is None:\n    raise RuntimeError(\"needs CUDA\")\n";
    let got = judged(FileKind::Python, src);
    assert!(
        got.contains(&row("HP813", 2, "REMEDIATION", "IMPORT")),
        "{got:?}"
    );
    // Inside a function: when it runs.
    let src =
        "import torch\ndef f():\n    if torch.version.hip:\n        raise NotImplementedError\n";
    let got = judged(FileKind::Python, src);
    assert!(
        got.contains(&row("HP813", 3, "REMEDIATION", "RUNTIME")),
        "{got:?}"
    );
    // Twin: raises only when PyTorch has neither GPU build.
    let twin = "import torch\nif torch.version.cuda is None and torch.version.hip is None:\n    raise RuntimeError(\"needs a GPU build\")\n";
    let got = judged(FileKind::Python, twin);
    assert!(got.iter().all(|r| r.0 != "HP813"), "{got:?}");
    assert!(got.iter().all(|r| r.2 == "PASS"), "{got:?}");
    // An `assert` that fails on ROCm, and a skip (not a failure).
    let src = "import torch\nassert torch.version.cuda is not None, \"CUDA only\"\nif torch.version.hip:\n    pytest.skip(\"no\")\n";
    let got = judged(FileKind::Python, src);
    assert_eq!(got.iter().filter(|r| r.0 == "HP813").count(), 1, "{got:?}");
}

/// setup.py: the arm before `elif torch.version.hip:` is the CUDA arm whatever its condition.
#[test]
fn the_arm_before_elif_hip_is_the_cuda_arm() {
    let src = "import os, torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CUDAExtension\nif (torch.cuda.is_available() and CUDA_HOME is not None and torch.version.cuda is not None) or os.getenv(\"FORCE_CUDA\", \"0\") == \"1\":\n    flags = [\"-gencode\", \"arch=compute_80,code=sm_80\"]\nelif torch.version.hip:\n    flags = [\"--offload-arch=gfx942\"]\nCUDAExtension(\"x\", [\"a.cu\"])\n";
    let got = judged(FileKind::SetupPy, src);
    assert!(got.contains(&row("HP831", 4, "PASS", "BUILD")), "{got:?}");
    // Twin: no ROCm arm; the flags stay work.
    let twin = "import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CUDAExtension\nif torch.cuda.is_available() and CUDA_HOME is not None:\n    flags = [\"-gencode\", \"arch=compute_80,code=sm_80\"]\nelse:\n    flags = []\nCUDAExtension(\"x\", [\"a.cu\"])\n";
    let got = judged(FileKind::SetupPy, twin);
    assert!(
        got.contains(&row("HP831", 4, "REMEDIATION", "BUILD")),
        "{got:?}"
    );
}

/// `nvcc -V` through a path join at module level breaks the install; in the CUDA arm, PASS.
#[test]
fn nvcc_probe_by_path_at_module_level() {
    let src = "import subprocess\ncuda_dir = os.environ.get(\"CUDA_ROOT\", \"/usr/local/cuda\")\nout = subprocess.check_output([cuda_dir + \"/bin/nvcc\", \"-V\"])\nv = subprocess.run([f\"{cuda_dir}/bin/nvcc\", \"--version\"])\n";
    let got = judged(FileKind::SetupPy, src);
    assert!(
        got.contains(&row("HP812", 3, "REMEDIATION", "INSTALL")),
        "{got:?}"
    );
    assert!(
        got.contains(&row("HP812", 4, "REMEDIATION", "INSTALL")),
        "{got:?}"
    );
    let twin = "import subprocess, torch\nif torch.version.cuda:\n    out = subprocess.check_output([os.path.join(CUDA_HOME, \"bin\", \"nvcc\"), \"-V\"])\n";
    let got = judged(FileKind::SetupPy, twin);
    assert!(got.contains(&row("HP812", 3, "PASS", "INSTALL")), "{got:?}");
}

/// `CUDA_HOME` read in Python: one HP852 per file; read only in the CUDA arm, PASS.
#[test]
fn cuda_home_reads_are_one_fact() {
    let src = "import os\nfrom torch.utils.cpp_extension import CUDA_HOME\ninc = os.path.join(CUDA_HOME, \"include\")\nlib = os.path.join(CUDA_HOME, \"lib64\")\nhome = os.environ[\"CUDA_HOME\"]\n";
    let got = judged(FileKind::Python, src);
    assert_eq!(got, [row("HP852", 3, "REMEDIATION", "BUILD")]);
    let twin = "import os, torch\nfrom torch.utils.cpp_extension import CUDA_HOME\nif torch.version.cuda is not None:\n    inc = os.path.join(CUDA_HOME, \"include\")\n";
    let got: Vec<_> = judged(FileKind::Python, twin)
        .into_iter()
        .filter(|r| r.0 == "HP852")
        .collect();
    assert_eq!(got, [row("HP852", 4, "PASS", "BUILD")]);
    // Guarded uses: tested for None, a parameter, inside try, after an early return, an
    // optional environment read.
    let guarded = "import os\nfrom torch.utils.cpp_extension import CUDA_HOME\nif CUDA_HOME is not None:\n    a = os.path.join(CUDA_HOME, \"include\")\nb = CUDA_HOME + \"/bin\" if CUDA_HOME else None\ndef f(CUDA_HOME):\n    return os.path.join(CUDA_HOME, \"bin\")\ntry:\n    c = os.environ[\"CUDA_HOME\"]\nexcept KeyError:\n    c = None\ndef g():\n    if not CUDA_HOME:\n        return\n    d = os.path.join(CUDA_HOME, \"lib64\")\ne = os.getenv(\"CUDA_PATH\")\n";
    let got = judged(FileKind::Python, guarded);
    assert!(got.iter().all(|r| r.0 != "HP852"), "{got:?}");
    // A raise when it is missing fails on ROCm: the use after it counts.
    let raises = "import os\nfrom torch.utils.cpp_extension import CUDA_HOME\nif CUDA_HOME is None:\n    raise RuntimeError(\"no CUDA\")\nd = os.path.join(CUDA_HOME, \"lib64\")\n";
    let got = judged(FileKind::Python, raises);
    assert_eq!(got, [row("HP852", 5, "REMEDIATION", "BUILD")]);
    // warp-rnnt's TensorFlow binding: a default instead of None, and the message says so.
    let dflt = "import os\nCUDA_HOME = os.environ.get(\"CUDA_HOME\", \"/usr/local/cuda\")\ninc = [os.path.join(CUDA_HOME, \"include\")]\n";
    let fs = scan_bytes("setup.py", FileKind::Python, dflt.as_bytes());
    let f = fs.iter().find(|f| f.rule == "HP852").expect("HP852");
    assert!(
        f.message.contains("defaults to `\"/usr/local/cuda\"`"),
        "{}",
        f.message
    );
    let none = scan_bytes("setup.py", FileKind::Python, src.as_bytes());
    let f = none.iter().find(|f| f.rule == "HP852").expect("HP852");
    assert!(f.message.contains("is None"), "{}", f.message);
}

/// `torch.backends.cudnn.version()` compared with a number is MIOpen's version on ROCm.
#[test]
fn cudnn_version_thresholds() {
    let src = "import torch\nif torch.backends.cudnn.version() >= 8000:\n    fast()\ntorch.backends.cudnn.enabled = True\n";
    let got = judged(FileKind::Python, src);
    assert_eq!(
        got,
        [
            row("HP803", 2, "REMEDIATION", "CORRECTNESS"),
            row("HP802", 4, "PASS", "RUNTIME")
        ]
    );
}

/// PyCUDA has no ROCm build.
#[test]
fn pycuda_imports() {
    let src = "import pycuda.autoinit\nfrom pycuda import driver\nimport pycudax\n";
    let got = judged(FileKind::Python, src);
    assert_eq!(
        got,
        [
            row("HP821", 1, "UNKNOWN", "INSTALL"),
            row("HP821", 2, "UNKNOWN", "INSTALL")
        ]
    );
}

/// Issue 20: a setup.py arm decided by PyTorch's `CUDA_HOME`, None on a ROCm machine without a
/// CUDA toolkit. The other arm raises: the install fails (one HP835, INSTALL, at the condition).
#[test]
fn cuda_home_arm_that_raises_on_rocm() {
    let head = "import glob, os, torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n";
    let body = "def get_extensions():\n    sources = glob.glob(\"src/*.cpp\")\n    source_cuda = glob.glob(\"src/cuda/*.cu\")\n    extension = CppExtension\n    define_macros = []\n    if torch.cuda.is_available() and CUDA_HOME is not None:\n        extension = CUDAExtension\n        sources += source_cuda\n        define_macros += [(\"WITH_CUDA\", None)]\n    else:\n        raise NotImplementedError(\"Cuda is not available\")\n    return [extension(\"ops\", sources, define_macros=define_macros)]\n";
    let got = judged(FileKind::SetupPy, &format!("{head}{body}"));
    let hp835: Vec<_> = got.iter().filter(|r| r.0 == "HP835").collect();
    assert_eq!(
        hp835,
        [&row("HP835", 8, "REMEDIATION", "INSTALL")],
        "{got:?}"
    );
    // At module level, with `os.path.exists(CUDA_HOME)` and `sys.exit`.
    let src = format!("{head}import sys\nif not os.path.exists(CUDA_HOME):\n    print(\"CUDA is required\")\n    sys.exit(1)\n");
    let got = judged(FileKind::SetupPy, &src);
    assert!(
        got.contains(&row("HP835", 4, "REMEDIATION", "INSTALL")),
        "{got:?}"
    );
    // Negative twin: ROCm is accepted in the test; the condition is a PASS.
    for accepts in [
        "(CUDA_HOME is not None or ROCM_HOME is not None)",
        "(CUDA_HOME is not None or torch.version.hip is not None)",
        "(CUDA_HOME or IS_HIP_EXTENSION)",
    ] {
        let twin = format!("{head}{}", body.replace("CUDA_HOME is not None", accepts));
        let got = judged(FileKind::SetupPy, &twin);
        let hp835: Vec<_> = got.iter().filter(|r| r.0 == "HP835").collect();
        assert_eq!(
            hp835,
            [&row("HP835", 8, "PASS", "CORRECTNESS")],
            "{accepts}: {got:?}"
        );
        assert!(got.iter().all(|r| r.2 == "PASS"), "{accepts}: {got:?}");
    }
}

/// Without the raise the ROCm build silently builds CPU-only: CORRECTNESS naming what the CUDA
/// arm adds. Twins: a `CUDA_HOME is None` arm that only warns, a project's own `CUDA_HOME` with
/// a default (set on every machine), a chain with its own ROCm arm, a module that is no setup.py.
#[test]
fn cuda_home_arm_that_drops_the_gpu_build_on_rocm() {
    let src = "import glob, torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\nsources = [\"a.cpp\"]\nextension = CppExtension\ndefine_macros = []\nif torch.cuda.is_available() and CUDA_HOME is not None:\n    extension = CUDAExtension\n    sources += glob.glob(\"cuda/*.cu\")\n    sources.append(\"b.cu\")\n    define_macros += [(\"WITH_CUDA\", None)]\n";
    let f = scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes());
    let hp835: Vec<_> = f.iter().filter(|f| f.rule == "HP835").collect();
    assert_eq!(hp835.len(), 1, "{f:?}");
    let h = hp835[0];
    assert_eq!(
        (h.line, h.status.as_str(), h.phase.as_str()),
        (6, "REMEDIATION", "CORRECTNESS")
    );
    for name in ["`CUDAExtension`", "`cuda/*.cu`", "`b.cu`", "`WITH_CUDA`"] {
        assert!(h.message.contains(name), "{name}: {}", h.message);
    }
    // `if CUDA_HOME is None:` only warns: it changes nothing the ROCm build compiles.
    let warns = "import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CUDAExtension\nif CUDA_HOME is None:\n    print(\"warning: no CUDA toolkit found\")\n";
    let got = judged(FileKind::SetupPy, warns);
    assert!(got.iter().all(|r| r.0 != "HP835"), "{got:?}");
    // The same test where the arm raises: on ROCm this arm is taken.
    let raises = warns.replace("print(", "raise RuntimeError(");
    let got = judged(FileKind::SetupPy, &raises);
    assert!(
        got.contains(&row("HP835", 3, "REMEDIATION", "INSTALL")),
        "{got:?}"
    );
    // A project's own `CUDA_HOME` with a default is set on a ROCm machine too.
    let own = src.replace(
        "from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension\n",
        "from torch.utils.cpp_extension import CppExtension, CUDAExtension\nCUDA_HOME = os.getenv(\"CUDA_HOME\", \"/usr/local/cuda\")\n",
    );
    let got = judged(FileKind::SetupPy, &own);
    assert!(got.iter().all(|r| r.0 != "HP835"), "{got:?}");
    // The project's ROCm arm follows: the platform model's case, not this one.
    let rocm_arm = format!("{src}elif torch.version.hip:\n    sources += [\"hip/a.hip\"]\n");
    let got = judged(FileKind::SetupPy, &rocm_arm);
    assert!(got.iter().all(|r| r.0 != "HP835"), "{got:?}");
    // Not a setup.py.
    let got = judged(FileKind::Python, src);
    assert!(got.iter().all(|r| r.0 != "HP835"), "{got:?}");
    // The test assigned to a flag first (nicolas-chaulet/torch-points-kernels): the finding is on
    // the assignment; twin: a flag that accepts ROCm too.
    let flag = "import torch\nfrom torch.utils.cpp_extension import CUDA_HOME, CUDAExtension\nWITH_CUDA = torch.cuda.is_available() and CUDA_HOME is not None\nif os.getenv('FORCE_CUDA', '0') == '1':\n    WITH_CUDA = True\ndef exts():\n    out = []\n    if WITH_CUDA:\n        out.append(CUDAExtension('x', ['a.cu']))\n    return out\n";
    let got = judged(FileKind::SetupPy, flag);
    assert!(
        got.contains(&row("HP835", 3, "REMEDIATION", "CORRECTNESS")),
        "{got:?}"
    );
    let rocm_too = flag.replace(
        "CUDA_HOME is not None\n",
        "(CUDA_HOME is not None or ROCM_HOME is not None)\n",
    );
    let got = judged(FileKind::SetupPy, &rocm_too);
    assert!(
        got.iter().all(|r| r.0 != "HP835" || r.2 == "PASS"),
        "{got:?}"
    );
}

/// A branch behind `shutil.which("nvidia-smi")` runs only where NVIDIA's tool is installed:
/// an AMD node skips it. Twin: another test keeps the call open.
#[test]
fn nvidia_smi_behind_a_which_probe_is_pass() {
    let src = "import shutil, subprocess\ndef gpu_info():\n    if shutil.which(\"nvidia-smi\"):\n        return subprocess.check_output([\"nvidia-smi\", \"-L\"])\n    return \"\"\n";
    let got = judged(FileKind::Python, src);
    assert!(
        got.iter()
            .any(|r| r.0 == "HP880" && r.1 == 4 && r.2 == "PASS"),
        "{got:?}"
    );
    let twin = src.replace("shutil.which(\"nvidia-smi\")", "verbose");
    let got = judged(FileKind::Python, &twin);
    assert!(
        got.iter()
            .any(|r| r.0 == "HP880" && r.1 == 4 && r.2 != "PASS"),
        "{got:?}"
    );
}

/// `torch.version.cuda` only shown (an f-string, a print or log argument, a `%` format) is
/// None on ROCm and prints as "None": PASS. Twins: a method called on it, in an f-string or not,
/// fails there.
#[test]
fn torch_version_cuda_only_shown_is_pass() {
    let src = "import torch, logging\nprint(f\"CUDA {torch.version.cuda}\")\nprint(\"cuda\", torch.version.cuda)\nlogging.info(\"cuda %s\", torch.version.cuda)\ns = \"cuda %s\" % torch.version.cuda\nt = f\"cu{torch.version.cuda.replace('.', '')}\"\nv = torch.version.cuda.split(\".\")\nprint(f\"{torch.version.cuda=}\")\n";
    let got = judged(FileKind::Python, src);
    let at = |line: u32| {
        got.iter()
            .filter(|r| r.0 == "HP810" && r.1 == line)
            .map(|r| r.2.clone())
            .collect::<Vec<_>>()
    };
    for line in [2, 3, 4, 5, 8] {
        assert_eq!(at(line), ["PASS"], "line {line}: {got:?}");
    }
    for line in [6, 7] {
        assert_eq!(at(line), ["REMEDIATION"], "line {line}: {got:?}");
    }
}

#[test]
fn cpp_extensions_with_cuda_sources_are_not_hipified() {
    // fairseq's shape: CUDA sources in a CppExtension, built only when the environment names
    // a CUDA toolkit.
    let src = "import os\nfrom torch.utils import cpp_extension\nexts = [cpp_extension.CppExtension(\"cpu\", sources=[\"a.cpp\"])]\nif \"CUDA_HOME\" in os.environ:\n    exts.append(cpp_extension.CppExtension(\"nat\", sources=[\"edit_dist.cu\", \"binding.cpp\"]))\n";
    let f: Vec<_> = scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
        .into_iter()
        .filter(|f| f.rule == "HP836")
        .collect();
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].line, f[0].status.as_str()), (5, "REMEDIATION"));
    assert!(f[0].message.contains("`edit_dist.cu`") && f[0].message.contains("CUDA_HOME"));
    // Negative twins: a CUDAExtension (hipified), a CppExtension on the CUDA-only arm of the
    // project's own ROCm branch, a file that hipifies its sources itself.
    let src = "import torch\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\nCUDAExtension(\"a\", [\"k.cu\"])\nif torch.version.hip:\n    pass\nelse:\n    CppExtension(\"b\", [\"k.cu\"])\n";
    let open = |src: &str| {
        scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP836" && f.status.as_str() != "PASS")
            .count()
    };
    assert_eq!(open(src), 0);
    let src = "from torch.utils.hipify import hipify_python\nfrom torch.utils.cpp_extension import CppExtension\nhipify_python.hipify(project_directory='.', output_directory='.')\nCppExtension(\"b\", sources=[\"k.cu\"])\n";
    assert_eq!(open(src), 0);
}

#[test]
fn nccl_values_that_leave_rccl_as_it_runs_are_pass() {
    // Megatron-LM's test scripts: NVLS switched off, NVLS excluded from the algorithms, an
    // InfiniBand timeout of the fabric. Twins: NVLS switched on, an algorithm RCCL has
    // excluded, channel counts tuned for NVIDIA.
    let statuses = |kind: FileKind, path: &str, src: &str| -> Vec<(u32, String)> {
        scan_bytes(path, kind, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP890" || f.rule == "HP891")
            .map(|f| (f.line, f.status.as_str().to_string()))
            .collect()
    };
    let py = "import os\nos.environ[\"NCCL_NVLS_ENABLE\"] = \"0\"\nos.environ[\"NCCL_ALGO\"] = \"^NVLS,CollNetDirect\"\nos.environ[\"NCCL_NVLS_ENABLE\"] = \"1\"\nos.environ[\"NCCL_ALGO\"] = \"^Ring\"\nos.environ[\"NCCL_MIN_NCHANNELS\"] = \"32\"\nos.environ[\"NCCL_NVLS_ENABLE\"] = flag\n";
    let s = statuses(FileKind::Python, "x.py", py);
    let pass: Vec<u32> = s.iter().filter(|x| x.1 == "PASS").map(|x| x.0).collect();
    assert_eq!(pass, [2, 3], "{s:?}");
    assert_eq!(s.len(), 6, "{s:?}");
    let sh = "#!/bin/bash\nexport NCCL_IB_TIMEOUT=23\nexport NCCL_COLLNET_ENABLE=0\nexport NCCL_IB_HCA=mlx5_0\nexport NCCL_VERSION=2.30.7-1+cuda13.3\n";
    let s = statuses(FileKind::Shell, "ci/train.sh", sh);
    assert_eq!(
        s,
        [
            (2, "PASS".to_string()),
            (3, "PASS".to_string()),
            (4, "REMEDIATION".to_string())
        ]
    );
}

#[test]
fn capability_skips_every_amd_gpu_answers_alike_are_checks() {
    // lmdeploy's kernel tests: `cc[0] < 9` skips Ampere, never an AMD GPU (a check). Twins: a
    // skip every current GPU answers alike (`< 8`: PASS) and one naming one generation
    // (`== (9, 0)`: gfx90a only, a decision).
    let src = "import pytest, torch\n@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 9, reason='cc>=9')\ndef test_a():\n    pass\n@pytest.mark.skipif(torch.cuda.get_device_capability()[0] < 8, reason='')\ndef test_b():\n    pass\n@pytest.mark.skipif(torch.cuda.get_device_capability() == (9, 0), reason='')\ndef test_c():\n    pass\n";
    let f: Vec<(u32, String)> = scan_bytes("tests/t.py", FileKind::Python, src.as_bytes())
        .into_iter()
        .filter(|f| f.rule == "HP811")
        .map(|f| (f.line, f.status.as_str().to_string()))
        .collect();
    assert_eq!(
        f,
        [
            (2, "UNKNOWN".to_string()),
            (5, "PASS".to_string()),
            (8, "REMEDIATION".to_string())
        ]
    );
}

/// s4's unicornn baseline compiles CUDA C with pynvrtc; Megatron-LM's copy service imports
/// nvshmem4py; ngp_pl imports tiny-cuda-nn's bindings: none has a ROCm build. Twins: names that
/// only start alike.
#[test]
fn nvrtc_and_nvshmem_bindings_are_nvidia_only() {
    let src = "from pynvrtc.compiler import Program\nimport nvshmem.core as nvshmem\nimport pynvrtcx\nimport nvshmemx\nimport tinycudann as tcnn\nimport tinycudann_x\n";
    let got = judged(FileKind::Python, src);
    assert_eq!(
        got,
        [
            row("HP821", 1, "UNKNOWN", "INSTALL"),
            row("HP821", 2, "UNKNOWN", "INSTALL"),
            row("HP821", 5, "UNKNOWN", "INSTALL")
        ]
    );
}

/// stable-fast's setup.py: `platform.system() != "Darwin" and os.getenv("WITH_CUDA", "1") !=
/// "0"` is true on a Linux ROCm machine (nobody sets WITH_CUDA, its default is "1"), so the
/// nvcc flags in that arm are the ROCm build's (a false PASS before). Twins: a Windows-only arm
/// is not; an arm only a user forcing CUDA takes (`FORCE_CUDA` defaulting to "0") is not in a
/// file that branches for ROCm, and is in one that does not (kaolin-wisp: a GPU-less image
/// build sets `FORCE_CUDA=1` on either platform).
#[test]
fn environment_defaults_decide_cuda_forcing_tests() {
    let status = |cond: &str| -> String {
        let src = format!("import os, platform\nfrom torch.utils.cpp_extension import CUDAExtension\nif {cond}:\n    flags = [\"--use_fast_math\"]\nCUDAExtension(\"x\", [\"k.cu\"], extra_compile_args={{\"nvcc\": flags}})\n");
        scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
            .into_iter()
            .find(|f| f.rule == "HP831")
            .map(|f| f.status.as_str().to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        status("platform.system() != \"Darwin\" and os.getenv(\"WITH_CUDA\", \"1\") != \"0\""),
        "REMEDIATION"
    );
    assert_eq!(status("platform.system() == \"Windows\""), "PASS");
    assert_eq!(
        status("os.getenv(\"FORCE_CUDA\", \"0\") == \"1\""),
        "REMEDIATION"
    );
    let forced = "import os, torch\nfrom torch.utils.cpp_extension import CUDAExtension\nif torch.version.hip:\n    print(\"rocm\")\nif os.getenv(\"FORCE_CUDA\", \"0\") == \"1\":\n    flags = [\"--use_fast_math\"]\nCUDAExtension(\"x\", [\"k.cu\"], extra_compile_args={\"nvcc\": flags})\n";
    let f = scan_bytes("setup.py", FileKind::SetupPy, forced.as_bytes());
    assert!(
        f.iter()
            .any(|f| f.rule == "HP831" && f.status == crate::gate::Status::Pass),
        "{f:#?}"
    );
}

/// clean-pvnet's cffi builds: `os.system('nvcc src/x.cu -c … -arch=sm_52 -I {}'.format(inc))`
/// compiles a kernel with nvcc (HP850) for an NVIDIA architecture (HP843), as a string, a
/// `.format` template or a `%` template. Twins: a message that names nvcc, a command that
/// only prints it, and an architecture flag in a list no command runs stay silent.
#[test]
fn a_process_call_that_compiles_with_nvcc_is_the_build() {
    let src = "import os\nos.system('nvcc a.cu -c -o a.o -arch=sm_52')\nos.system('nvcc a.cu -c -arch=sm_60 -I {}'.format(inc))\nos.system('nvcc %s -arch=sm_70' % inc)\nprint('build with nvcc -arch=sm_52')\nos.system('echo nvcc -arch=sm_52')\nflags = ['-arch=sm_52']\n";
    let r = rules(FileKind::Python, src);
    assert_eq!(
        r,
        vec![
            ("HP850".into(), 2),
            ("HP843".into(), 2),
            ("HP850".into(), 3),
            ("HP843".into(), 3),
            ("HP850".into(), 4),
            ("HP843".into(), 4)
        ]
    );
}
