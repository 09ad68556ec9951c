//! Which inventory parser a file gets, from its name (and for extension-less files, its first
//! bytes). C, C++ and CUDA sources are not listed: the kernel scan handles them.

use crate::walk::Input;
use std::io::Read;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Python,
    SetupPy,
    Bazel,
    Requirements,
    PyProject,
    Pipfile,
    PoetryLock,
    UvLock,
    SetupCfg,
    CondaEnv,
    Compose,
    Yaml,
    Dockerfile,
    Shell,
    CMake,
    Make,
    Elf,
    Archive,
    Wheel,
    Ptx,
    /// A Jupyter notebook: its code cells are read as Python.
    Notebook,
    /// A Visual Studio project (`.vcxproj`).
    MsBuild,
}

impl FileKind {
    pub fn is_text(self) -> bool {
        !matches!(
            self,
            FileKind::Elf | FileKind::Archive | FileKind::Wheel | FileKind::Ptx
        )
    }
}

/// Whether a file is a build file whose flags and source lists a build reads: CMake lists and
/// modules, Makefiles and their fragments (`Makefile.in`, `*.mk`), `setup.py`, Bazel files,
/// `meson.build`, and Visual Studio projects (`.vcxproj`: their `ClCompile`/`CudaCompile`
/// items list the units a Windows build compiles, BundleFusion's `FriedLiver.vcxproj`).
pub fn is_build(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    matches!(
        by_name(rel),
        Some(FileKind::CMake | FileKind::Make | FileKind::SetupPy | FileKind::Bazel)
    ) || name.starts_with("makefile")
        || name == "meson.build"
        || name.ends_with(".vcxproj")
}

/// The kind of a file by name alone; `None` when the name says nothing (binaries are sniffed
/// separately).
pub fn by_name(rel: &str) -> Option<FileKind> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    let k = match lower.as_str() {
        "setup.py" => FileKind::SetupPy,
        "build" | "build.bazel" | "workspace" | "workspace.bazel" | "module.bazel" => {
            FileKind::Bazel
        }
        "pyproject.toml" => FileKind::PyProject,
        "pipfile" => FileKind::Pipfile,
        "poetry.lock" => FileKind::PoetryLock,
        "uv.lock" => FileKind::UvLock,
        "setup.cfg" => FileKind::SetupCfg,
        "environment.yml" | "environment.yaml" | "conda.yml" | "conda.yaml" => FileKind::CondaEnv,
        "dockerfile" | "containerfile" => FileKind::Dockerfile,
        "cmakelists.txt" => FileKind::CMake,
        "makefile" | "gnumakefile" => FileKind::Make,
        // A platform's own Makefile beside the main one (`makefile.hip`, `Makefile.cuda`), and a
        // Makefile's template or variant (`Makefile_base`, which gamer's `configure.py` fills in,
        // `Makefile-linux`); a text extension makes it a document about one.
        _ if (lower.starts_with("makefile.")
            || lower.starts_with("makefile_")
            || lower.starts_with("makefile-"))
            && !matches!(
                ext,
                "md" | "txt" | "rst" | "json" | "yml" | "yaml" | "sh" | "py" | "html"
            ) =>
        {
            FileKind::Make
        }
        _ => {
            // `Dockerfile.cuda`, `cuda.Dockerfile`, and `Dockerfile_deps`, `Dockerfile-gpu`
            // (a text extension makes it a document about one: `Dockerfile_notes.md`).
            let joined = (lower.starts_with("dockerfile_") || lower.starts_with("dockerfile-"))
                && !matches!(
                    ext,
                    "md" | "txt" | "rst" | "json" | "yml" | "yaml" | "sh" | "py"
                );
            if lower.starts_with("dockerfile.") || lower.ends_with(".dockerfile") || joined {
                FileKind::Dockerfile
            } else if (lower.starts_with("docker-compose") || lower.starts_with("compose"))
                && matches!(ext, "yml" | "yaml")
            {
                FileKind::Compose
            } else if (lower.starts_with("requirements") || lower.starts_with("constraints"))
                && matches!(ext, "txt" | "in")
            {
                FileKind::Requirements
            } else if lower.starts_with("environment") && matches!(ext, "yml" | "yaml") {
                FileKind::CondaEnv
            } else {
                match ext {
                    "py" | "pyi" => FileKind::Python,
                    "ipynb" => FileKind::Notebook,
                    "bzl" => FileKind::Bazel,
                    "yml" | "yaml" => FileKind::Yaml,
                    "sh" | "bash" | "slurm" | "sbatch" | "pbs" => FileKind::Shell,
                    "cmake" => FileKind::CMake,
                    "mk" | "make" => FileKind::Make,
                    "vcxproj" => FileKind::MsBuild,
                    "whl" => FileKind::Wheel,
                    "ptx" | "cubin" | "fatbin" => FileKind::Ptx,
                    "a" => FileKind::Archive,
                    // A shared object is read by its ELF header; named `.so`, a Git LFS pointer
                    // of one is read too (HP905).
                    "so" => FileKind::Elf,
                    _ => return None,
                }
            }
        }
    };
    Some(k)
}

/// Extensions whose files are never inventoried by content sniffing (sources, docs, data).
fn sniffable(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    match name.rsplit_once('.') {
        None => true,
        Some((_, ext)) => {
            let ext = ext.to_ascii_lowercase();
            ext == "so"
                || ext == "o"
                || ext == "node"
                || ext == "bin"
                || ext == "out"
                || ext.chars().all(|c| c.is_ascii_digit()) // libfoo.so.12
                || name.contains(".so.")
        }
    }
}

/// The kind of a walked file: by name, else by its first bytes (ELF, `ar` archive, shebang).
pub fn classify(input: &Input) -> Option<FileKind> {
    if let Some(k) = by_name(&input.rel) {
        return Some(k);
    }
    if !sniffable(&input.rel) || input.size < 4 {
        return None;
    }
    let mut head = [0u8; 64];
    let n = std::fs::File::open(&input.path)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    sniff(&head[..n])
}

pub fn sniff(head: &[u8]) -> Option<FileKind> {
    if head.starts_with(b"\x7fELF") {
        return Some(FileKind::Elf);
    }
    if head.starts_with(b"!<arch>\n") {
        return Some(FileKind::Archive);
    }
    if head.starts_with(b"#!") {
        let line = head.split(|&b| b == b'\n').next().unwrap_or(head);
        let line = String::from_utf8_lossy(line);
        let shells = ["/sh", "/bash", "env sh", "env bash", "/dash", "/zsh"];
        if shells.iter().any(|s| line.contains(s)) {
            return Some(FileKind::Shell);
        }
        if line.contains("python") {
            return Some(FileKind::Python);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(by_name("a/setup.py"), Some(FileKind::SetupPy));
        assert_eq!(
            by_name("requirements-gpu.txt"),
            Some(FileKind::Requirements)
        );
        assert_eq!(
            by_name("docker/Dockerfile.cuda"),
            Some(FileKind::Dockerfile)
        );
        assert_eq!(
            by_name("docker/Dockerfile_deps"),
            Some(FileKind::Dockerfile)
        );
        assert_eq!(by_name("Dockerfile-gpu"), Some(FileKind::Dockerfile));
        assert_eq!(by_name("docs/Dockerfile_notes.md"), None);
        assert_eq!(by_name("docker-compose.yml"), Some(FileKind::Compose));
        assert_eq!(by_name("k8s/deploy.yaml"), Some(FileKind::Yaml));
        assert_eq!(by_name("CMakeLists.txt"), Some(FileKind::CMake));
        assert_eq!(by_name("kernels/k.ptx"), Some(FileKind::Ptx));
        assert_eq!(by_name("notes.txt"), None);
        assert_eq!(by_name("src/k.cu"), None);
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff(b"\x7fELF\x02\x01"), Some(FileKind::Elf));
        assert_eq!(sniff(b"#!/usr/bin/env bash\n"), Some(FileKind::Shell));
        assert_eq!(sniff(b"#!/usr/bin/python3\n"), Some(FileKind::Python));
        assert_eq!(sniff(b"plain"), None);
        assert!(sniffable("lib/libfoo.so.12"));
        assert!(!sniffable("README.md"));
    }
}
