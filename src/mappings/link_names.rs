//! The file names of NVIDIA's libraries and of their ROCm counterparts, as a linker (`-lcublas`)
//! or a dynamic loader (`dlopen("libcublas.so.12")`, `LoadLibrary("cublas64_12.dll")`,
//! `ctypes.util.find_library("cublas")`) names them. The counterparts are the libraries the
//! ROCm packages install: <https://rocm.docs.amd.com/en/latest/reference/api-libraries.html>
//! (hipBLAS `libhipblas.so`, hipBLASLt `libhipblaslt.so`, hipFFT, hipRAND, hipSPARSE,
//! hipSOLVER, MIOpen `libMIOpen.so`, RCCL `librccl.so`), the HIP runtime `libamdhip64.so` and
//! hiprtc `libhiprtc.so` (<https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html>),
//! ROCTx `libroctx64.so`, AMD SMI `libamd_smi.so`
//! (<https://rocm.docs.amd.com/projects/amdsmi/en/latest/>).

/// The ROCm library for a CUDA library's link name (as in `-l<name>`).
pub fn rocm_library(cuda: &str) -> Option<&'static str> {
    Some(match cuda {
        "cudart" | "cudart_static" | "cuda" => "amdhip64",
        "cublas" | "cublas_static" => "hipblas",
        "cublasLt" | "cublasLt_static" => "hipblaslt",
        "cudnn" => "MIOpen",
        "nccl" | "nccl_static" => "rccl",
        "cufft" | "cufft_static" => "hipfft",
        "curand" | "curand_static" => "hiprand",
        "cusparse" | "cusparse_static" => "hipsparse",
        "cusolver" | "cusolver_static" => "hipsolver",
        "nvrtc" => "hiprtc",
        "nvToolsExt" => "roctx64",
        "nvidia-ml" => "amd_smi",
        "cupti" => "rocprofiler-sdk",
        // NVIDIA's video decoder (NVDEC, `libnvcuvid.so`) and JPEG decoder: rocDecode
        // (`librocdecode.so`, <https://rocm.docs.amd.com/projects/rocDecode/en/latest/>) and
        // rocJPEG (`librocjpeg.so`, <https://rocm.docs.amd.com/projects/rocJPEG/en/latest/>).
        "nvcuvid" => "rocdecode",
        "nvjpeg" | "nvjpeg_static" => "rocjpeg",
        _ => return None,
    })
}

/// NVIDIA-only libraries with no ROCm library of the same API, by link name: the rewrite each
/// needs. TensorRT's (`nvinfer`, its plugins and parsers): MIGraphX compiles and runs ONNX
/// models with its own API (<https://rocm.docs.amd.com/projects/AMDMIGraphX/en/latest/>).
pub fn nvidia_only(name: &str) -> Option<&'static str> {
    Some(match name {
        "nvinfer" | "nvinfer_plugin" | "nvonnxparser" | "nvparsers" | "nvinfer_lean"
        | "nvinfer_dispatch" => "migraphx",
        // NVIDIA's video encoder (NVENC, loaded as `libnvidia-encode.so.1` / `nvEncodeAPI64.dll`):
        // no ROCm library encodes video; AMD's encoder is the Advanced Media Framework
        // (`libamfrt64.so.1`, <https://github.com/GPUOpen-LibrariesAndSDKs/AMF>), another API.
        "nvidia-encode" | "nvEncodeAPI" | "nvEncodeAPI64" => "amfrt64",
        _ => return None,
    })
}

/// The names a ROCm counterpart of [`rocm_library`] exports, as a loader resolves them
/// (`dlsym(h, "hipInit")`): RCCL keeps NCCL's.
pub fn rocm_symbols(rocm: &str) -> &'static str {
    match rocm {
        "amdhip64" => "`hip*`",
        "hipblas" => "`hipblas*`",
        "hipblaslt" => "`hipblasLt*`",
        "MIOpen" => "`miopen*`",
        "rccl" => "the same `nccl*`",
        "hipfft" => "`hipfft*`",
        "hiprand" => "`hiprand*`",
        "hipsparse" => "`hipsparse*`",
        "hipsolver" => "`hipsolver*`",
        "hiprtc" => "`hiprtc*`",
        "roctx64" => "`roctx*`",
        "amd_smi" => "`amdsmi_*`",
        "rocdecode" => "`rocDec*`",
        "rocjpeg" => "`rocJpeg*`",
        "amfrt64" => "`AMFInit`/`AMF*`",
        "migraphx" => "`migraphx_*`",
        _ => "its own",
    }
}

/// Libraries of the AMD GPU stack a program loads by name when it has an AMD backend of its own:
/// the ROCm counterparts above, the HSA runtime, ROCm SMI and the kernel driver's `libdrm_amdgpu`
/// (what a monitor reads AMD GPUs through).
const AMD_LIBRARIES: &[&str] = &[
    "amdhip64",
    "hiprtc",
    "hipblas",
    "hipblaslt",
    "rocblas",
    "MIOpen",
    "rccl",
    "hipfft",
    "rocfft",
    "hiprand",
    "rocrand",
    "hipsparse",
    "rocsparse",
    "hipsolver",
    "rocsolver",
    "roctx64",
    "amd_smi",
    "rocm_smi64",
    "hsa-runtime64",
    "drm_amdgpu",
    "rocdecode",
    "rocjpeg",
    "amfrt64",
    "migraphx",
];

/// How a string names a library: its link name, read from a file name a loader takes
/// (`libcudart.so.12`, `/usr/lib/libnvrtc.dylib`, `nvcuda.dll`, `cublas64_%d%d.dll`,
/// `nvrtc64_120_0.dll`); `bare` also takes the bare name a library search takes (`cudart`).
fn link_name(text: &str, bare: bool) -> Option<&str> {
    let base = text.rsplit(['/', '\\']).next().unwrap_or(text);
    if let Some(rest) = base.strip_prefix("lib") {
        // `libX.so`, `libX.so.12`, `libX.dylib`, `libX.12.dylib`.
        let (stem, tail) = rest.split_once('.')?;
        let unix = tail == "so"
            || tail.starts_with("so.")
            || tail == "dylib"
            || tail.ends_with(".dylib")
                && tail
                    .trim_end_matches(".dylib")
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.');
        return unix.then_some(stem);
    }
    if let Some(stem) = base
        .strip_suffix(".dll")
        .or_else(|| base.strip_suffix(".DLL"))
    {
        if stem.eq_ignore_ascii_case("nvcuda") {
            return Some("cuda");
        }
        // `cublas64_12`, `nvrtc64_120_0`, `cudart64_%d%d`: the name before the word size.
        let name = stem
            .split_once("64_")
            .or_else(|| stem.split_once("32_"))
            .map_or(stem, |(n, _)| n);
        return Some(name);
    }
    (bare
        && !base.is_empty()
        && base
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    .then_some(base)
}

/// A CUDA library a string names for a loader (a loader's file name, or a bare name where
/// `bare`): its link name and its ROCm counterpart's.
pub fn loaded_cuda_library(text: &str, bare: bool) -> Option<(&str, &'static str)> {
    let name = link_name(text, bare)?;
    let rocm = rocm_library(name).or_else(|| nvidia_only(name))?;
    // The static archives are linked, never loaded.
    (!name.ends_with("_static")).then_some((name, rocm))
}

/// A library of the AMD GPU stack a string names for a loader (the ROCm libraries above, HSA,
/// ROCm SMI, `libdrm_amdgpu`).
pub fn loaded_amd_library(text: &str, bare: bool) -> Option<&'static str> {
    let name = link_name(text, bare)?;
    AMD_LIBRARIES.iter().copied().find(|a| *a == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loader_names_of_cuda_libraries() {
        fn cuda(t: &str) -> Option<&str> {
            loaded_cuda_library(t, false).map(|(n, _)| n)
        }
        assert_eq!(cuda("libcuda.so"), Some("cuda"));
        assert_eq!(cuda("libcudart.so.12"), Some("cudart"));
        assert_eq!(cuda("libnvidia-ml.so.1"), Some("nvidia-ml"));
        assert_eq!(
            cuda("/Developer/NVIDIA/CUDA-%d.%d/lib/libcublas.dylib"),
            Some("cublas")
        );
        assert_eq!(cuda("libcublas.12.dylib"), Some("cublas"));
        assert_eq!(cuda("nvcuda.dll"), Some("cuda"));
        assert_eq!(cuda("cublas64_%d%d.dll"), Some("cublas"));
        assert_eq!(cuda("nvrtc64_120_0.dll"), Some("nvrtc"));
        assert_eq!(
            loaded_cuda_library("libnvrtc.so", false).map(|(_, r)| r),
            Some("hiprtc")
        );
        // Not a loader's file name, not a CUDA library, a bare name where none is taken.
        // Video and JPEG codecs, TensorRT: loaded by name as often as linked.
        let to = |t| loaded_cuda_library(t, false).map(|(_, r)| r);
        assert_eq!(to("libnvcuvid.so.1"), Some("rocdecode"));
        assert_eq!(to("libnvidia-encode.so.1"), Some("amfrt64"));
        assert_eq!(to("nvEncodeAPI64.dll"), Some("amfrt64"));
        assert_eq!(to("libnvinfer.so.10"), Some("migraphx"));
        assert_eq!(cuda("libcuda.a"), None);
        assert_eq!(cuda("libclblast.so"), None);
        assert_eq!(cuda("libcudart_static.so"), None);
        assert_eq!(cuda("cudart"), None);
        assert_eq!(cuda("libcuda.so is missing"), None);
        assert_eq!(
            loaded_cuda_library("cudart", true).map(|(n, _)| n),
            Some("cudart")
        );
        assert_eq!(loaded_cuda_library("dl", true), None);
    }

    #[test]
    fn loader_names_of_amd_libraries() {
        assert_eq!(
            loaded_amd_library("libdrm_amdgpu.so.1", false),
            Some("drm_amdgpu")
        );
        assert_eq!(
            loaded_amd_library("libamdhip64.so", false),
            Some("amdhip64")
        );
        assert_eq!(loaded_amd_library("amdhip64.dll", false), Some("amdhip64"));
        assert_eq!(loaded_amd_library("libdrm.so.2", false), None);
        assert_eq!(loaded_amd_library("libcuda.so", false), None);
    }
}
