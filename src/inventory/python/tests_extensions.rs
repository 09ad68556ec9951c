//! Unit tests of what a PyTorch extension's build passes on: the libraries it links and where
//! its compiler flags go. Each with its negative twin.

use super::super::{kind::FileKind, scan_bytes};
use super::tests::rules;
use crate::finding::Finding;

/// The findings of `rule` in a `setup.py` holding `src`.
fn of(rule: &str, src: &str) -> Vec<Finding> {
    scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
        .into_iter()
        .filter(|f| f.rule == rule)
        .collect()
}

/// torch-batch-svd: `CUDAExtension(…, libraries=["cusolver", "cublas"])` links the CUDA
/// libraries as written under PyTorch's ROCm build: one HP851 for the list, naming the ROCm
/// libraries. Twins: a list of no CUDA library, and a list chosen by the platform.
#[test]
fn extension_links_cuda_libraries_by_name() {
    let ext = |libs: &str| {
        format!("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\nsetup(ext_modules=[CUDAExtension(\"svd\", [\"svd.cpp\"],\n    libraries={libs})])\n")
    };
    let f = of("HP851", &ext("[\"cusolver\", \"cublas\", \"m\"]"));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].line, f[0].status.as_str()), (4, "REMEDIATION"));
    assert!(
        f[0].message.contains("`cusolver`, `cublas`"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].suggestion
            .as_deref()
            .unwrap_or("")
            .contains("`hipsolver`, `hipblas`"),
        "{:?}",
        f[0].suggestion
    );
    for libs in [
        "[\"m\", \"z\"]",
        "[\"hipblas\"] if torch.version.hip else [\"cublas\"]",
    ] {
        assert!(
            rules(FileKind::SetupPy, &ext(libs))
                .iter()
                .all(|r| r.0 != "HP851"),
            "{libs}"
        );
    }
}

/// hqq: `extra_compile_args` given to `setup()` rather than to the extension is an option
/// setuptools does not know: no compiler sees its flags, so none is HP831. Twin: the same
/// dictionary given to the `CUDAExtension` is.
#[test]
fn flags_given_to_setup_reach_no_compiler() {
    let to_setup = "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\nsetup(\n    ext_modules=[CUDAExtension(\"q\", [\"q.cu\"])],\n    extra_compile_args={\"nvcc\": [\"-O3\", \"--use_fast_math\"]},\n)\n";
    assert!(rules(FileKind::SetupPy, to_setup)
        .iter()
        .all(|r| r.0 != "HP831"));
    let to_ext = "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\nsetup(\n    ext_modules=[CUDAExtension(\"q\", [\"q.cu\"],\n    extra_compile_args={\"nvcc\": [\"-O3\", \"--use_fast_math\"]})],\n)\n";
    assert!(rules(FileKind::SetupPy, to_ext).contains(&("HP831".into(), 5)));
}

/// punica's `get_cuda_version()`: the program is a name both arms of an `if` assign (`"nvcc"`,
/// or a path joined from `CUDA_HOME`), then `check_output([nvcc, "--version"])`. Twin: a name
/// assigned another program stays out.
#[test]
fn nvcc_probe_through_a_local_name() {
    let src = "import os, subprocess\nimport torch.utils.cpp_extension as torch_cpp_ext\n\ndef get_cuda_version():\n    if torch_cpp_ext.CUDA_HOME is None:\n        nvcc = \"nvcc\"\n    else:\n        nvcc = os.path.join(torch_cpp_ext.CUDA_HOME, \"bin/nvcc\")\n    txt = subprocess.check_output([nvcc, \"--version\"], text=True)\n    return txt\n";
    let f = of("HP812", src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].line, f[0].status.as_str()), (9, "REMEDIATION"));
    let twin = src
        .replace("\"nvcc\"\n", "\"gcc\"\n")
        .replace("bin/nvcc", "bin/gcc");
    assert!(of("HP812", &twin).is_empty());
}

/// dgSPARSE-Lib and vAttention: `extra_link_args=["-lcusparse"]`, `["-lcuda"]` link CUDA
/// libraries as surely as `libraries=`. Twin: `-l` flags of no CUDA library, and other flags.
#[test]
fn extension_links_cuda_libraries_by_flag() {
    let ext = |args: &str| {
        format!("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\nsetup(ext_modules=[CUDAExtension(\"v\", [\"v.cpp\"],\n    extra_link_args={args})])\n")
    };
    let f = of(
        "HP851",
        &ext("[\"-lcuda\", \"-lcusparse\", \"-Wl,-rpath,/opt/x\"]"),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].message
            .contains("`cuda`, `cusparse`, in `extra_link_args=`"),
        "{}",
        f[0].message
    );
    assert!(rules(
        FileKind::SetupPy,
        &ext("[\"-lm\", \"-fopenmp\", \"cusparse\"]")
    )
    .iter()
    .all(|r| r.0 != "HP851"));
}

/// curobo: the extension's flags are nvcc's own spellings (`--threads=8`, `--ftz=true`,
/// `--prec-div=false`, `--generate-line-info`) in a dict built inside `if USE_PYBIND:` /
/// `try:`; clang, under PyTorch's ROCm build, rejects them as unknown arguments. One HP831
/// for the list (the others PASS, folded into it). Twin: the portable `-O3` alone is nothing.
#[test]
fn nvcc_spellings_of_precision_and_threads_are_nvcc_only() {
    let src = |flags: &str| {
        format!("import os\nfrom setuptools import setup\nUSE = os.environ.get(\"X\", \"0\") == \"1\"\next_modules = []\nif USE:\n    try:\n        from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n        args = {{\n            \"nvcc\": [{flags}]\n        }}\n        ext_modules = [CUDAExtension(\"k\", [\"k.cu\"], extra_compile_args=args)]\n    except ImportError:\n        pass\nsetup(ext_modules=ext_modules)\n")
    };
    let f = of(
        "HP831",
        &src("\"--threads=8\", \"-O3\", \"--ftz=true\", \"--prec-div=false\", \"--generate-line-info\""),
    );
    let open: Vec<_> = f.iter().filter(|f| f.status.as_str() != "PASS").collect();
    assert_eq!(open.len(), 1, "{f:?}");
    assert_eq!(open[0].line, 9);
    assert!(
        open[0]
            .message
            .contains("`--threads=8`, `--ftz=true`, `--prec-div=false`, `--generate-line-info`"),
        "{}",
        open[0].message
    );
    assert!(of("HP831", &src("\"-O3\"")).is_empty());
}

/// torch-quiver's `create_extension`: the CppExtension's sources are a variable that gains
/// `glob.glob("…/cuda/*.cu")` under `if with_cuda:`. One HP836 naming the pattern. Twins: the
/// variable gains only C++ files; a `.cu` list of the same name in another function is another
/// variable.
#[test]
fn cpp_extension_sources_read_through_a_variable() {
    let quiver = |cu: &str| {
        format!("import glob\nfrom torch.utils import cpp_extension\n\ndef other():\n    srcs = ['x.cu']\n    return srcs\n\ndef create_extension(with_cuda=False):\n    srcs = []\n    srcs += glob.glob('srcs/cpp/src/quiver/*.cpp')\n    if with_cuda:\n        srcs += glob.glob('srcs/cpp/src/quiver/cuda/*.cpp')\n        srcs += glob.glob('srcs/cpp/src/quiver/cuda/*.{cu}')\n    return cpp_extension.CppExtension('torch_quiver', srcs)\n")
    };
    let f = of("HP836", &quiver("cu"));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].line, f[0].status.as_str()), (14, "REMEDIATION"));
    assert!(
        f[0].message.contains("`srcs/cpp/src/quiver/cuda/*.cu`") && f[0].message.contains("them"),
        "{}",
        f[0].message
    );
    assert!(of("HP836", &quiver("cc")).is_empty());
    let appended = "from torch.utils.cpp_extension import CppExtension\nsrcs = ['a.cpp']\nsrcs.append('k.cu')\next = CppExtension('k', sources=srcs)\n";
    assert_eq!(of("HP836", appended).len(), 1);
}
