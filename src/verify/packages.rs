//! Which package provides a header a failed unit could not find, when it is a known one: the
//! ROCm libraries a translated tree includes (rocThrust's `thrust/`, hipCUB, rocPRIM, …) and
//! the common host dependencies of CUDA samples and HPC codes (OpenMP's `omp.h`, MPI, OpenGL,
//! GLEW, GLUT, GLFW). A missing dependency is then reported as one, with what to install,
//! instead of "other".

use super::classify::Outcome;

/// Header prefix, outcome, and what to install (Debian 12 names where Debian packages it,
/// ROCm's repository names otherwise).
const PACKAGES: &[(&str, Outcome, &str)] = &[
    ("thrust/system/cuda", Outcome::UnportedApi, "CUDA's Thrust backend: include the generic thrust/ headers (rocThrust maps them to HIP)"),
    ("thrust/", Outcome::MissingHeader, "rocThrust (Thrust for HIP): ROCm package rocthrust-dev (not packaged by Debian 12; it needs rocPRIM: librocprim-dev), or -I its include directory"),
    ("rocthrust/", Outcome::MissingHeader, "rocThrust: ROCm package rocthrust-dev, or -I its include directory"),
    ("hipcub/", Outcome::MissingHeader, "hipCUB (CUB for HIP): ROCm package hipcub-dev (not packaged by Debian 12; it needs rocPRIM: librocprim-dev), or -I its include directory"),
    ("rocprim/", Outcome::MissingHeader, "rocPRIM: Debian librocprim-dev, ROCm rocprim-dev"),
    ("hiprand/", Outcome::MissingHeader, "hipRAND: Debian libhiprand-dev, ROCm hiprand-dev"),
    ("rocrand/", Outcome::MissingHeader, "rocRAND: Debian librocrand-dev, ROCm rocrand-dev"),
    ("hipsparse/", Outcome::MissingHeader, "hipSPARSE: Debian libhipsparse-dev, ROCm hipsparse-dev"),
    ("rocsparse/", Outcome::MissingHeader, "rocSPARSE: Debian librocsparse-dev, ROCm rocsparse-dev"),
    ("hipblas", Outcome::MissingHeader, "hipBLAS: ROCm package hipblas-dev (hipblaslt-dev for hipblaslt/)"),
    ("rocblas", Outcome::MissingHeader, "rocBLAS: ROCm package rocblas-dev"),
    ("hipfft", Outcome::MissingHeader, "hipFFT: ROCm package hipfft-dev"),
    ("hipsolver", Outcome::MissingHeader, "hipSOLVER: ROCm package hipsolver-dev"),
    ("miopen/", Outcome::MissingHeader, "MIOpen: ROCm package miopen-hip-dev"),
    ("rccl", Outcome::MissingHeader, "RCCL: ROCm package rccl-dev"),
    ("omp.h", Outcome::MissingThirdParty, "OpenMP: Debian libomp-dev (LLVM's OpenMP headers, for the clang hipcc runs), and -fopenmp"),
    ("mpi.h", Outcome::MissingThirdParty, "MPI: Debian libopenmpi-dev or libmpich-dev, and -I its include directory (`mpicc --showme:compile`)"),
    ("GL/glew.h", Outcome::MissingThirdParty, "GLEW: Debian libglew-dev"),
    ("GL/glut.h", Outcome::MissingThirdParty, "GLUT: Debian freeglut3-dev"),
    ("GL/freeglut", Outcome::MissingThirdParty, "GLUT: Debian freeglut3-dev"),
    ("GL/glu.h", Outcome::MissingThirdParty, "GLU: Debian libglu1-mesa-dev"),
    ("GL/", Outcome::MissingThirdParty, "OpenGL: Debian libgl-dev"),
    ("GLES", Outcome::MissingThirdParty, "OpenGL ES: Debian libgles-dev"),
    ("GLFW/", Outcome::MissingThirdParty, "GLFW: Debian libglfw3-dev"),
];

/// The outcome and install hint for a missing `header`, when a known package provides it.
pub fn lookup(header: &str) -> Option<(Outcome, &'static str)> {
    let h = header.trim_start_matches('/');
    PACKAGES
        .iter()
        .find(|(p, _, _)| h.starts_with(p))
        .map(|&(_, o, hint)| (o, hint))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_and_host_headers_name_their_package() {
        let cases = [
            (
                "thrust/device_vector.h",
                Outcome::MissingHeader,
                "rocthrust-dev",
            ),
            ("hipcub/hipcub.hpp", Outcome::MissingHeader, "hipcub-dev"),
            ("omp.h", Outcome::MissingThirdParty, "libomp-dev"),
            ("mpi.h", Outcome::MissingThirdParty, "libopenmpi-dev"),
            ("GL/glew.h", Outcome::MissingThirdParty, "libglew-dev"),
            ("GL/gl.h", Outcome::MissingThirdParty, "libgl-dev"),
            ("GL/freeglut.h", Outcome::MissingThirdParty, "freeglut3-dev"),
            ("GLFW/glfw3.h", Outcome::MissingThirdParty, "libglfw3-dev"),
            (
                "thrust/system/cuda/execution_policy.h",
                Outcome::UnportedApi,
                "generic",
            ),
        ];
        for (h, o, pkg) in cases {
            let (got, hint) = lookup(h).unwrap_or_else(|| panic!("{h}"));
            assert_eq!(got, o, "{h}");
            assert!(hint.contains(pkg), "{h}: {hint}");
        }
        assert!(lookup("project/config.h").is_none());
        assert!(lookup("ompx/x.h").is_none());
    }
}
