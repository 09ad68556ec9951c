//! Dockerfiles: instructions are read as logical lines (continuations joined, comments dropped);
//! `RUN`/`CMD`/`ENTRYPOINT`/`HEALTHCHECK` shell forms go through tree-sitter-bash at their real
//! offsets, exec forms (`["a", "b"]`) through a JSON reader, `FROM`/`ARG`/`ENV` are read here.

use super::container;
use super::shell;
use super::tables;
use super::words::{self, Cx, Site, Word};
use super::Out;
use std::ops::Range;

/// One instruction: keyword and the byte range of its arguments.
struct Instr {
    keyword: String,
    args: Range<usize>,
}

fn instructions(src: &[u8]) -> Vec<Instr> {
    let mut out = Vec::new();
    let mut pos = 0;
    let n = src.len();
    while pos < n {
        // Start of a physical line.
        let line_end = memchr::memchr(b'\n', &src[pos..]).map_or(n, |i| pos + i);
        let line = &src[pos..line_end];
        let trimmed = line.iter().position(|b| !b.is_ascii_whitespace());
        let Some(ind) = trimmed else {
            pos = line_end + 1;
            continue;
        };
        if line[ind] == b'#' {
            pos = line_end + 1;
            continue;
        }
        let kw_start = pos + ind;
        let kw_end = src[kw_start..line_end]
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .map_or(line_end, |i| kw_start + i);
        let keyword = String::from_utf8_lossy(&src[kw_start..kw_end]).to_ascii_uppercase();
        // Extend over continuation lines (a trailing backslash).
        let mut end = line_end;
        loop {
            let l = &src[..end];
            let trimmed_end = l
                .iter()
                .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r'))
                .map_or(0, |i| i + 1);
            if trimmed_end > kw_start && src[trimmed_end - 1] == b'\\' && end < n {
                end = memchr::memchr(b'\n', &src[end + 1..]).map_or(n, |i| end + 1 + i);
            } else {
                break;
            }
        }
        let args_start = src[kw_end..end]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map_or(end, |i| kw_end + i);
        out.push(Instr {
            keyword,
            args: args_start..end,
        });
        pos = end + 1;
    }
    out
}

/// Checks an image reference (from `FROM`, an `ARG` default, a compose or k8s `image:`).
pub fn image_ref(out: &mut Out, image: &str, range: Range<usize>) {
    let image = image.trim().trim_matches('"');
    let Some(row) = tables::get().image(image) else {
        return;
    };
    if row.pattern.contains("k8s-device-plugin") {
        out.push(
            &super::deployment::K8S_NVIDIA_GPU_OPERATOR,
            range,
            format!("image {image} is NVIDIA's device plugin"),
            Some(row.rocm_image.clone()),
        );
        return;
    }
    if row.pattern.contains("dcgm-exporter") {
        out.push(
            &super::monitoring::DCGM,
            range,
            format!("image {image} is NVIDIA's DCGM exporter"),
            Some(row.rocm_image.clone()),
        );
        return;
    }
    let tables = tables::get();
    let (rocm_image, stack) = tables.rocm_image(row, out.rocm);
    let (note, source) = match stack {
        Some(s) => (
            format!(
                "{}; built for ROCm {}, target ROCm {}",
                row.note, s.rocm, out.rocm
            ),
            s.source.split(" ; ").next().unwrap_or(""),
        ),
        None => (
            row.note.clone(),
            row.source.split(" ; ").next().unwrap_or(""),
        ),
    };
    let (msg, sugg) = if rocm_image == "none-known" {
        (
            format!(
                "image {image} is an NVIDIA image with no ROCm image in hipport's table ({})",
                row.note
            ),
            None,
        )
    } else {
        (
            format!("image {image} is an NVIDIA image; ROCm image: {rocm_image} ({note})"),
            Some(format!("{rocm_image} (source: {source})")),
        )
    };
    out.push(&container::NVIDIA_BASE_IMAGE, range, msg, sugg);
}

/// `["a", "b"]` exec form → words, with ranges of each string.
fn exec_form(src: &[u8], args: Range<usize>) -> Option<Vec<Word>> {
    let full = std::str::from_utf8(&src[args.clone()]).ok()?;
    let text = full.trim();
    if !text.starts_with('[') {
        return None;
    }
    let args = args.start + (full.len() - full.trim_start().len())..args.end;
    let items: Vec<String> = serde_json::from_str(text).ok()?;
    let mut words = Vec::new();
    let mut from = args.start;
    for it in items {
        let quoted = serde_json::to_string(&it).ok()?;
        let at = find(src, from, args.end, quoted.as_bytes()).unwrap_or(from);
        words.push(Word::new(it, at..at + quoted.len()));
        from = at + quoted.len();
    }
    Some(words)
}

fn find(src: &[u8], from: usize, to: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(&src[from..to], needle).map(|i| from + i)
}

fn command(out: &mut Out, args: Range<usize>, cx: Cx) {
    let src = out.src();
    match exec_form(src, args.clone()) {
        Some(words) => words::command(out, &words, Site::Container, cx),
        None => shell::scan_fragment(out, args.start, &src[args], Site::Container, cx),
    }
}

/// `ENV K=V K2="V 2"` or `ENV K V`: the shell reader handles both forms as assignments/words.
fn env(out: &mut Out, args: Range<usize>) {
    let src = out.src();
    let text = std::str::from_utf8(&src[args.clone()]).unwrap_or("");
    let first = text.split_whitespace().next().unwrap_or("");
    if first.contains('=') {
        // Bash parses `K=V K2=V2` as assignments.
        shell::scan_fragment(out, args.start, &src[args], Site::Container, Cx::default());
    } else if !first.is_empty() {
        let value = text[first.len()..].trim();
        let vstart = args.start + text.find(value).unwrap_or(0);
        words::setting(
            out,
            first,
            args.start..args.start + first.len(),
            shell::unquote(value),
            vstart..vstart + value.len(),
            Site::Container,
        );
    }
}

/// CPU architectures ROCm has no build for (it ships for x86-64, and for some products arm64).
const NO_ROCM_ARCH: [&str; 3] = ["ppc64le", "s390x", "ppc64"];

/// The architecture ROCm does not support that every base image of the Dockerfile is built for
/// (`FROM nvidia/cuda-ppc64le:…`, `FROM --platform=linux/ppc64le …`), or that its file name
/// names (`Dockerfile.build-mpi-ppc64le`).
fn foreign_arch(path: &str, froms: &[&str]) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let named = |t: &str| {
        NO_ROCM_ARCH.iter().copied().find(|a| {
            t.split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == *a)
        })
    };
    if let Some(a) = named(name) {
        return Some(a);
    }
    let first = named(froms.first()?)?;
    froms
        .iter()
        .all(|f| named(f) == Some(first))
        .then_some(first)
}

pub fn scan(out: &mut Out) {
    let src = out.src();
    let mut froms: Vec<&str> = Vec::new();
    for ins in instructions(src) {
        match ins.keyword.as_str() {
            "FROM" => {
                let text = std::str::from_utf8(&src[ins.args.clone()]).unwrap_or("");
                froms.push(text);
                let image = text
                    .split_whitespace()
                    .find(|w| !w.starts_with("--"))
                    .unwrap_or("");
                if let Some(i) = text.find(image) {
                    let r = ins.args.start + i..ins.args.start + i + image.len();
                    image_ref(out, image, r);
                }
            }
            "ARG" => {
                let text = std::str::from_utf8(&src[ins.args.clone()]).unwrap_or("");
                if let Some((name, value)) = text.trim().split_once('=') {
                    let v = shell::unquote(value);
                    let vstart = ins.args.start + text.find(v).unwrap_or(0);
                    if tables::get().image(v).is_some() {
                        image_ref(out, v, vstart..vstart + v.len());
                    } else if name.trim().starts_with("NCCL_") {
                        // A build argument (`ARG NCCL_COMMIT=…`, the commit of an NCCL source
                        // build) lives only while the image builds: NCCL never reads it.
                    } else {
                        let nstart = ins.args.start + text.find(name).unwrap_or(0);
                        words::setting(
                            out,
                            name.trim(),
                            nstart..nstart + name.trim().len(),
                            v,
                            vstart..vstart + v.len(),
                            Site::Container,
                        );
                    }
                }
            }
            "ENV" => env(out, ins.args),
            "RUN" | "CMD" | "ENTRYPOINT" => command(out, ins.args, Cx::default()),
            "HEALTHCHECK" => {
                let text = std::str::from_utf8(&src[ins.args.clone()]).unwrap_or("");
                if let Some(i) = text.find("CMD") {
                    let start = ins.args.start + i + 3;
                    command(
                        out,
                        start..ins.args.end,
                        Cx {
                            probe: Some("the HEALTHCHECK"),
                        },
                    );
                }
            }
            _ => {}
        }
    }
    // An image for a CPU ROCm does not run on is never the ROCm build's: what it sets up needs
    // nothing (nnabla-ext-cuda's ppc64le development image).
    if let Some(arch) = foreign_arch(out.ctx.path, &froms) {
        let why = format!(
            " (this image is built for {arch}, a CPU architecture ROCm has no build for: the Dockerfile is never on the ROCm path)"
        );
        out.pass_within(&[(0..src.len(), String::new())], &[], |_| why.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes, scan_bytes_for};

    fn rules(src: &str) -> Vec<(String, u32)> {
        scan_bytes("Dockerfile", FileKind::Dockerfile, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

    #[test]
    fn dockerfile_items() {
        let src = "# FROM nvidia/cuda:12.1.0-base in a comment\nFROM nvidia/cuda:12.1.0-devel-ubuntu22.04 AS build\nENV CUDA_HOME=/usr/local/cuda \\\n    NVIDIA_VISIBLE_DEVICES=all\nRUN pip install torch \\\n    --index-url https://download.pytorch.org/whl/cu121\nHEALTHCHECK CMD [\"nvidia-smi\"]\nENV NCCL_DEBUG INFO\n";
        let r = rules(src);
        assert!(r.contains(&("HP860".into(), 2)), "{r:?}");
        assert!(r.contains(&("HP863".into(), 3)), "{r:?}");
        assert!(r.contains(&("HP861".into(), 4)), "{r:?}");
        assert!(r.contains(&("HP864".into(), 6)), "{r:?}");
        assert!(r.contains(&("HP820".into(), 5)), "{r:?}");
        assert!(r.contains(&("HP880".into(), 7)), "{r:?}");
        assert!(r.contains(&("HP893".into(), 8)), "{r:?}");
        assert!(!r.iter().any(|(_, l)| *l == 1));
    }

    /// O-CNN's `ARG NCCL_COMMIT=…` pins an NCCL source build: a build argument NCCL never
    /// reads, so no NCCL setting. Twin: `ENV NCCL_P2P_LEVEL=SYS` reaches the container's NCCL.
    #[test]
    fn nccl_named_build_arguments_are_not_nccl_settings() {
        let r = rules("FROM ubuntu:22.04\nARG NCCL_COMMIT=286916a1\nENV NCCL_P2P_LEVEL=SYS\n");
        assert!(!r.iter().any(|(_, l)| *l == 2), "{r:?}");
        assert!(
            r.iter().any(|(c, l)| *l == 3 && c.starts_with("HP89")),
            "{r:?}"
        );
    }

    /// nnabla-ext-cuda's ppc64le image: ROCm has no ppc64le build, so nothing in it is open.
    /// Twins: the same Dockerfile for x86-64, and a multi-stage file with one ppc64le stage.
    #[test]
    fn images_for_cpus_rocm_does_not_support_need_nothing() {
        let src = "FROM nvidia/cuda-ppc64le:12.1.0-devel-rockylinux8\nENV NCCL_P2P_LEVEL=SYS\nRUN nvcc -V\n";
        let statuses = |path: &str, src: &str| -> Vec<String> {
            scan_bytes(path, FileKind::Dockerfile, src.as_bytes())
                .into_iter()
                .map(|f| f.status.as_str().to_string())
                .collect()
        };
        let s = statuses("docker/Dockerfile.build", src);
        assert!(!s.is_empty() && s.iter().all(|s| s == "PASS"), "{s:?}");
        let x86 = src.replace("cuda-ppc64le", "cuda");
        assert!(statuses("docker/Dockerfile.build", &x86)
            .iter()
            .any(|s| s == "REMEDIATION"));
        let s = statuses("docker/Dockerfile.build-mpi-ppc64le", &x86);
        assert!(s.iter().all(|s| s == "PASS"), "{s:?}");
        let mixed = format!("{src}FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\n");
        assert!(statuses("Dockerfile", &mixed)
            .iter()
            .any(|s| s == "REMEDIATION"));
    }

    /// The image and wheel-index suggestions follow the target release: a 5.2.0 and a 7.2.4
    /// target no longer both get a 6.2.4 image.
    #[test]
    fn suggestions_follow_the_target() {
        let src = "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN pip install torch --index-url https://download.pytorch.org/whl/cu121\n";
        let sugg = |v: &str, rule: &str| -> String {
            scan_bytes_for(
                "Dockerfile",
                FileKind::Dockerfile,
                src.as_bytes(),
                v.parse().unwrap(),
            )
            .into_iter()
            .find(|f| f.rule == rule)
            .and_then(|f| f.suggestion)
            .unwrap_or_default()
        };
        assert!(sugg("5.2.0", "HP860").starts_with("rocm/dev-ubuntu-20.04:5.2.3"));
        assert!(sugg("7.2.4", "HP860").starts_with("rocm/dev-ubuntu-24.04:7.2.4"));
        assert!(sugg("6.2.0", "HP860").starts_with("rocm/dev-ubuntu-22.04:6.2.4"));
        assert!(
            sugg("5.2.0", "HP864").ends_with("whl/rocm5.2"),
            "{}",
            sugg("5.2.0", "HP864")
        );
        assert!(sugg("7.2.4", "HP864").ends_with("whl/rocm7.2"));
    }
}

/// Whether a Dockerfile builds a Windows container: a Windows base image (`windowsservercore`,
/// `nanoserver`, `mcr.microsoft.com/windows`), a PowerShell or cmd `SHELL`, or a place in a
/// folder named for Windows (`tools/windows/Dockerfile.install`, whose base image is an argument).
pub fn windows_container(rel: &str, text: &[u8]) -> bool {
    let folder = rel
        .rsplit_once('/')
        .map_or("", |(d, _)| d)
        .split('/')
        .any(|p| {
            matches!(
                p.to_ascii_lowercase().as_str(),
                "windows" | "win" | "win32" | "win64"
            )
        });
    let t = String::from_utf8_lossy(text).to_ascii_lowercase();
    folder
        || t.contains("windowsservercore")
        || t.contains("nanoserver")
        || t.contains("mcr.microsoft.com/windows")
        || t.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("shell [\"powershell") || l.starts_with("shell [\"cmd")
        })
}

/// Findings in Windows containers become PASS: the ROCm build's target OS is Linux.
pub fn pass_windows_containers(
    findings: &mut [crate::finding::Finding],
    texts: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    for f in findings.iter_mut() {
        if f.status == crate::gate::Status::Pass || !super::component::is_dockerfile(&f.path) {
            continue;
        }
        if texts
            .get(&f.path)
            .is_some_and(|t| windows_container(&f.path, t))
        {
            f.settle(
                " (a Windows container: the ROCm build's target OS is Linux, so nothing here runs for it)",
            );
        }
    }
}

#[cfg(test)]
mod windows_tests {
    use super::*;

    #[test]
    fn windows_containers_are_not_the_rocm_build() {
        assert!(windows_container(
            "tools/windows/Dockerfile.install",
            b"ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n"
        ));
        assert!(windows_container(
            "docker/Dockerfile",
            b"FROM mcr.microsoft.com/dotnet/framework/sdk:4.8-windowsservercore-ltsc2022\n"
        ));
        assert!(windows_container(
            "Dockerfile",
            b"FROM python\nSHELL [\"powershell\", \"-Command\"]\n"
        ));
        // Twins: a Linux image, and a folder whose name only contains `win`.
        assert!(!windows_container(
            "tools/linux/Dockerfile.base",
            b"FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n"
        ));
        assert!(!windows_container(
            "winograd/Dockerfile",
            b"FROM ubuntu:22.04\n"
        ));
    }
}
