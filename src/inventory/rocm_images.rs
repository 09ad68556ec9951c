//! A catalogue of container images with a ROCm one among them. A project that keeps one image
//! per CI lane, side by side (VTK-m's `.gitlab/ci/docker/<os>/<lane>/Dockerfile`:
//! `centos7/cuda10.2` from `nvidia/cuda:10.2-devel-centos7`, `ubuntu2204/kokkos-hip` from
//! `rocm/dev-ubuntu-22.04`), already builds its ROCm lane's image; the NVIDIA images serve its
//! CUDA lanes and ask nothing of the port. Their open findings become PASS naming the ROCm image.
//!
//! Two Dockerfiles are in one catalogue when they sit in the same folder, or at the same depth
//! below a common folder other than the tree's root. An image is ROCm's when a `FROM` of its
//! Dockerfile names a `rocm/` repository (`rocm/dev-ubuntu-22.04`, `docker.io/rocm/pytorch`).
//! A lone NVIDIA Dockerfile, or one whose only ROCm neighbour sits elsewhere in the tree, keeps
//! its findings: its image is the port's work.

use crate::finding::Finding;
use crate::gate::Status;
use crate::inventory::kind::{by_name, FileKind};

/// The first `FROM` image of a Dockerfile that is ROCm's, if any.
fn rocm_base(text: &[u8]) -> Option<String> {
    String::from_utf8_lossy(text).lines().find_map(|l| {
        let mut w = l.split_whitespace();
        if !w.next()?.eq_ignore_ascii_case("FROM") {
            return None;
        }
        let image = w.find(|x| !x.starts_with("--"))?;
        image
            .split('/')
            .rev()
            .skip(1)
            .any(|c| c == "rocm")
            .then(|| image.to_string())
    })
}

/// Whether two paths are in one catalogue (see the module documentation).
fn same_catalogue(a: &str, b: &str) -> bool {
    let (da, db): (Vec<&str>, Vec<&str>) = (a.split('/').collect(), b.split('/').collect());
    if da.len() != db.len() {
        return false;
    }
    let common = da.iter().zip(&db).take_while(|(x, y)| x == y).count();
    common + 1 == da.len() || common > 0
}

/// Settles the open findings of Dockerfiles that share a catalogue with a ROCm image
/// (`dockerfiles`: every Dockerfile of the tree with its text).
pub fn pass_nvidia_images_beside_a_rocm_image(
    findings: &mut [Finding],
    dockerfiles: &[(&str, &[u8])],
) {
    let rocm: Vec<(&str, String)> = dockerfiles
        .iter()
        .filter_map(|(rel, text)| rocm_base(text).map(|img| (*rel, img)))
        .collect();
    if rocm.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        if f.status == Status::Pass || by_name(&f.path) != Some(FileKind::Dockerfile) {
            continue;
        }
        let Some((other, image)) = rocm
            .iter()
            .find(|(r, _)| *r != f.path && same_catalogue(r, &f.path))
        else {
            continue;
        };
        f.settle(&format!(
            " (the project keeps an image per lane and already builds a ROCm one beside this, \
             `{other}` from `{image}`: this image serves its CUDA lanes)"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NV: &[u8] = b"FROM nvidia/cuda:10.2-devel-centos7\nRUN yum install -y git\n";
    const ROCM: &[u8] = b"# ROCm lane\nFROM --platform=linux/amd64 rocm/dev-ubuntu-22.04\n";

    fn run(files: &[(&str, &[u8])], at: &str) -> Status {
        let mut fs = vec![Finding::bare("HP860", at, 1)];
        pass_nvidia_images_beside_a_rocm_image(&mut fs, files);
        fs[0].status
    }

    /// VTK-m's CI images (BSD-3-Clause): one per OS and lane, one of them ROCm's.
    #[test]
    fn an_nvidia_image_in_a_catalogue_with_a_rocm_one_is_a_cuda_lanes() {
        let files: &[(&str, &[u8])] = &[
            (".gitlab/ci/docker/centos7/cuda10.2/Dockerfile", NV),
            (".gitlab/ci/docker/ubuntu2204/kokkos-hip/Dockerfile", ROCM),
        ];
        assert_eq!(
            run(files, ".gitlab/ci/docker/centos7/cuda10.2/Dockerfile"),
            Status::Pass
        );
        // Same folder: `docker/Dockerfile.cuda` beside `docker/Dockerfile.rocm`.
        let files: &[(&str, &[u8])] = &[
            ("docker/Dockerfile.cuda", NV),
            ("docker/Dockerfile.rocm", ROCM),
        ];
        assert_eq!(run(files, "docker/Dockerfile.cuda"), Status::Pass);
    }

    /// Twins: no ROCm image; a ROCm image elsewhere in the tree (other depth, or only the
    /// root in common); a `rocm` word that is not a repository (`nvidia/cuda-rocm-compare`).
    #[test]
    fn without_a_rocm_image_in_the_catalogue_the_image_is_the_ports() {
        assert_eq!(
            run(&[("docker/a/Dockerfile", NV)], "docker/a/Dockerfile"),
            Status::Remediation
        );
        let files: &[(&str, &[u8])] = &[
            ("docker/cuda/Dockerfile", NV),
            ("docker/amd/mi300/Dockerfile", ROCM),
        ];
        assert_eq!(run(files, "docker/cuda/Dockerfile"), Status::Remediation);
        let files: &[(&str, &[u8])] = &[("serve/Dockerfile", NV), ("bench/Dockerfile", ROCM)];
        assert_eq!(run(files, "serve/Dockerfile"), Status::Remediation);
        assert_eq!(rocm_base(b"FROM nvidia/cuda-rocm-compare:1\n"), None);
        assert_eq!(rocm_base(b"FROM ${BASE}\n"), None);
    }
}
