//! binary-dependency rules: prebuilt ELF shared objects, executables, static archives and wheels
//! in the tree that need CUDA libraries or embed CUDA fat binaries. Without their source, only
//! the vendor (or a replacement) can provide a ROCm build, so they are UNKNOWN, never guessed.
//! ELF is read with `goblin`, wheels with `zip`.

use super::Out;
use crate::registry::RuleInfo;
use goblin::elf::Elf;
use std::io::Read;

rule!(PREBUILT_CUDA_DEPENDENCY, "HP900", BinaryDependency, Unknown, Import,
    summary: "A prebuilt shared object or executable whose dynamic dependencies include CUDA libraries.",
    why: "Its DT_NEEDED entries (libcudart, libcublas, libcudnn, libnccl...) do not exist on ROCm, so it fails to load; with no source in the tree it cannot be ported here.",
    bad: "third_party/libfastops.so -> NEEDED libcudart.so.12",
    good: "third_party/libfastops.so rebuilt by its vendor for ROCm (NEEDED libamdhip64.so.6)",
    fix: "No source: needs a ROCm build from its vendor, or a replacement.",
    refs: ["https://refspecs.linuxfoundation.org/elf/gabi4+/ch5.dynamic.html"],
);

rule!(EMBEDDED_CUDA_FATBIN, "HP901", BinaryDependency, Unknown, Import,
    summary: "A binary that embeds CUDA device code (`.nv_fatbin` section).",
    why: "The embedded kernels are NVIDIA machine code or PTX; AMD GPUs cannot run them.",
    bad: "libkernels.so with a .nv_fatbin section",
    good: "libkernels.so built with hipcc (.hip_fatbin)",
    fix: "No source: needs a ROCm build from its vendor, or a replacement.",
    refs: ["https://docs.nvidia.com/cuda/cuda-binary-utilities/index.html"],
);

rule!(WHEEL_WITH_CUDA_BINARY, "HP902", BinaryDependency, Unknown, Install,
    summary: "A wheel in the tree whose shared objects need CUDA libraries or embed CUDA device code.",
    why: "A prebuilt CUDA wheel cannot use AMD GPUs and cannot be rebuilt from here.",
    bad: "wheels/fastops-1.0-cp310-linux_x86_64.whl (fastops/_C.so -> libcudart.so.12)",
    good: "a ROCm build of the wheel from its vendor, or a source build against ROCm",
    fix: "No source: needs a ROCm build from its vendor, or a replacement.",
    refs: ["https://packaging.python.org/en/latest/specifications/binary-distribution-format/"],
);

rule!(STATIC_ARCHIVE_CUDA_OBJECTS, "HP903", BinaryDependency, Unknown, Build,
    summary: "A static archive whose objects embed CUDA device code or call the CUDA runtime.",
    why: "Linking it into a ROCm build fails (undefined CUDA symbols) or carries NVIDIA-only kernels.",
    bad: "lib/libkernels.a (kernels.o: .nv_fatbin, __cudaRegisterFatBinary)",
    good: "lib/libkernels.a rebuilt with hipcc",
    fix: "No source: needs a ROCm build from its vendor, or a replacement.",
    refs: ["https://docs.nvidia.com/cuda/cuda-binary-utilities/index.html"],
);

rule!(BINARY_IN_LFS, "HP905", BinaryDependency, Unknown, Build,
    summary: "A prebuilt library (`.a`, `.so`, `.whl`) of which the checkout holds only a Git LFS pointer: its content is not there to read.",
    why: "A prebuilt binary in a CUDA project is usually built with nvcc (CV-CUDA's `3rdparty/cuOSD/x86_64/lib/libcuosd.a`, linked into its tests); if it carries CUDA code, a ROCm build cannot link or load it, and without its source only its vendor can rebuild it. hipport reads binaries for CUDA dependencies and device code (HP900–HP903), but an LFS pointer has neither.",
    bad: "3rdparty/cuOSD/x86_64/lib/libcuosd.a  (version https://git-lfs.github.com/spec/v1 …)",
    good: "git lfs pull, then rerun hipport on the tree: the library is read like any other",
    fix: "Fetch the LFS objects (`git lfs pull`) and rerun the scan, or find out from its vendor whether the library needs CUDA.",
    refs: ["https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md"],
);

/// How a Git LFS pointer file starts.
const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/v1";

/// A binary the checkout holds only as a Git LFS pointer: HP905. True when it is one.
fn lfs_pointer(out: &mut Out) -> bool {
    if !out.src().starts_with(LFS_POINTER) {
        return false;
    }
    if system_library(out.ctx.path) {
        // CV-CUDA's `libdl-2.17_stub.so`: the C library's, no GPU code in it.
        return true;
    }
    out.push(
        &BINARY_IN_LFS,
        0..0,
        "prebuilt library kept in Git LFS: this checkout holds only its pointer, so whether it needs CUDA is not known".into(),
        Some("`git lfs pull` and rerun the scan, or ask its vendor for a ROCm build".into()),
    );
    true
}

/// The C runtime's libraries (and stubs of them, `libdl-2.17_stub.so`): no GPU code.
fn system_library(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name
        .strip_prefix("lib")
        .unwrap_or(name)
        .split(['.', '-', '_'])
        .next()
        .unwrap_or("");
    matches!(
        stem,
        "c" | "m" | "dl" | "rt" | "pthread" | "stdc++" | "gcc" | "util" | "resolv" | "z"
    )
}

pub const RULES: &[&RuleInfo] = &[
    &BINARY_IN_LFS,
    &PREBUILT_CUDA_DEPENDENCY,
    &EMBEDDED_CUDA_FATBIN,
    &WHEEL_WITH_CUDA_BINARY,
    &STATIC_ARCHIVE_CUDA_OBJECTS,
];

const CUDA_LIBS: &[&str] = &[
    "libcudart",
    "libcuda.",
    "libcublas",
    "libcudnn",
    "libnccl",
    "libnvrtc",
    "libcufft",
    "libcurand",
    "libcusparse",
    "libcusolver",
    "libnvToolsExt",
    "libnvidia-ml",
    "libcupti",
    "libnvjpeg",
    "libnpp",
    "libnvinfer",
    "libcutensor",
];

/// What one ELF image needs from CUDA.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ElfCuda {
    pub needed: Vec<String>,
    pub fatbin: bool,
    /// Undefined CUDA runtime symbols (relocatable objects).
    pub cuda_symbols: bool,
}

impl ElfCuda {
    pub fn any(&self) -> bool {
        !self.needed.is_empty() || self.fatbin || self.cuda_symbols
    }
}

pub fn is_cuda_lib(soname: &str) -> bool {
    CUDA_LIBS.iter().any(|p| soname.starts_with(p))
}

/// Reads an ELF image's CUDA needs; `None` if it is not ELF.
pub fn elf_cuda(bytes: &[u8]) -> Option<ElfCuda> {
    let elf = Elf::parse(bytes).ok()?;
    let needed = elf
        .libraries
        .iter()
        .filter(|l| is_cuda_lib(l))
        .map(|l| l.to_string())
        .collect();
    let fatbin = elf.section_headers.iter().any(|sh| {
        matches!(
            elf.shdr_strtab.get_at(sh.sh_name),
            Some(".nv_fatbin" | "__nv_relfatbin" | ".nvFatBinSegment")
        )
    });
    let cuda_symbols = elf.syms.iter().any(|s| {
        s.is_import()
            && elf.strtab.get_at(s.st_name).is_some_and(|n| {
                n.starts_with("__cudaRegisterFatBinary") || n.starts_with("cudaLaunchKernel")
            })
    });
    Some(ElfCuda {
        needed,
        fatbin,
        cuda_symbols,
    })
}

fn describe(c: &ElfCuda) -> String {
    let mut parts = Vec::new();
    if !c.needed.is_empty() {
        parts.push(format!("needs {}", c.needed.join(", ")));
    }
    if c.fatbin {
        parts.push("embeds CUDA device code (.nv_fatbin)".to_string());
    }
    if c.cuda_symbols && c.needed.is_empty() {
        parts.push("calls the CUDA runtime".to_string());
    }
    parts.join("; ")
}

const NO_SOURCE: &str = "no source: needs a ROCm build from its vendor, or a replacement";

/// An ELF file or `ar` archive.
pub fn scan(out: &mut Out) {
    if lfs_pointer(out) {
        return;
    }
    let bytes = out.src();
    if bytes.starts_with(b"!<arch>\n") {
        return scan_archive(out);
    }
    let Some(c) = elf_cuda(bytes) else { return };
    if !c.needed.is_empty() {
        out.push(
            &PREBUILT_CUDA_DEPENDENCY,
            0..0,
            format!("prebuilt binary {}: {NO_SOURCE}", describe(&c)),
            Some(NO_SOURCE.into()),
        );
    } else if c.fatbin || c.cuda_symbols {
        out.push(
            &EMBEDDED_CUDA_FATBIN,
            0..0,
            format!("prebuilt binary {}: {NO_SOURCE}", describe(&c)),
            Some(NO_SOURCE.into()),
        );
    }
}

fn scan_archive(out: &mut Out) {
    let bytes = out.src();
    let Ok(ar) = goblin::archive::Archive::parse(bytes) else {
        return;
    };
    let mut hits = Vec::new();
    for name in ar.members() {
        if let Ok(member) = ar.extract(name, bytes) {
            if let Some(c) = elf_cuda(member) {
                if c.any() {
                    hits.push(format!("{name}: {}", describe(&c)));
                }
            }
        }
    }
    if !hits.is_empty() {
        hits.sort();
        out.push(
            &STATIC_ARCHIVE_CUDA_OBJECTS,
            0..0,
            format!(
                "static archive with CUDA objects ({}): {NO_SOURCE}",
                hits.join("; ")
            ),
            Some(NO_SOURCE.into()),
        );
    }
}

/// The largest wheel member read when looking for CUDA shared objects.
const MAX_MEMBER: u64 = 256 * 1024 * 1024;

/// A wheel: every shared object inside is checked.
pub fn scan_wheel(out: &mut Out) {
    if lfs_pointer(out) {
        return;
    }
    let reader = std::io::Cursor::new(out.src());
    let Ok(mut zip) = zip::ZipArchive::new(reader) else {
        return;
    };
    let mut hits = Vec::new();
    for i in 0..zip.len() {
        let Ok(mut f) = zip.by_index(i) else { continue };
        let Ok(name) = f.name().map(|n| n.to_string()) else {
            continue;
        };
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".ptx") || lower.ends_with(".cubin") || lower.ends_with(".fatbin") {
            hits.push(format!("{name}: NVIDIA device code"));
            continue;
        }
        if !(lower.ends_with(".so") || lower.contains(".so.")) || f.size() > MAX_MEMBER {
            continue;
        }
        let mut buf = Vec::with_capacity(f.size() as usize);
        if f.read_to_end(&mut buf).is_err() {
            continue;
        }
        if let Some(c) = elf_cuda(&buf) {
            if c.any() {
                hits.push(format!("{name}: {}", describe(&c)));
            }
        }
    }
    if !hits.is_empty() {
        hits.sort();
        out.push(
            &WHEEL_WITH_CUDA_BINARY,
            0..0,
            format!(
                "prebuilt wheel with CUDA binaries ({}): {NO_SOURCE}",
                hits.join("; ")
            ),
            Some(NO_SOURCE.into()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_sonames() {
        assert!(is_cuda_lib("libcudart.so.12"));
        assert!(is_cuda_lib("libcuda.so.1"));
        assert!(is_cuda_lib("libcublasLt.so.12"));
        assert!(!is_cuda_lib("libc.so.6"));
        assert!(!is_cuda_lib("libamdhip64.so.6"));
    }

    #[test]
    fn not_elf_is_none() {
        assert!(elf_cuda(b"hello").is_none());
    }

    /// CV-CUDA's `libcuosd.a` and a `.so` as Git LFS pointers: HP905 UNKNOWN. Twins: a text file
    /// named `.so` that is no pointer (a linker script), and an empty archive, give nothing.
    #[test]
    fn libraries_kept_in_lfs_are_unknown() {
        use crate::inventory::{kind::FileKind, scan_bytes};
        let pointer =
            "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 1843200\n";
        for (path, kind) in [
            ("3rdparty/cuOSD/x86_64/lib/libcuosd.a", FileKind::Archive),
            ("lib/libops.so", FileKind::Elf),
        ] {
            let f = scan_bytes(path, kind, pointer.as_bytes());
            assert_eq!(f.len(), 1, "{path}: {f:?}");
            assert_eq!(
                (f[0].rule.as_str(), f[0].status.as_str()),
                ("HP905", "UNKNOWN")
            );
        }
        assert!(scan_bytes("lib/libc.so", FileKind::Elf, b"GROUP ( /lib/libc.so.6 )\n").is_empty());
        assert!(scan_bytes(
            "stubs/libdl-2.17_stub.so",
            FileKind::Elf,
            pointer.as_bytes()
        )
        .is_empty());
        assert!(scan_bytes("lib/empty.a", FileKind::Archive, b"!<arch>\n").is_empty());
        assert_eq!(
            crate::inventory::kind::by_name("3rdparty/x/lib/libops.so"),
            Some(FileKind::Elf)
        );
    }
}
