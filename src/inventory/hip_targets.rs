//! The GPU targets of the project's own HIP build (HP847). A HIP code object runs only on the
//! GPUs it was compiled for: a kernel launched on any other fails at run time
//! (`hipErrorNoBinaryForGpu`). A project that already builds for HIP (CMake's HIP language, or
//! `hipcc` in its Makefiles) chooses those GPUs with `CMAKE_HIP_ARCHITECTURES`,
//! `HIP_ARCHITECTURES`, `AMDGPU_TARGETS`/`GPU_TARGETS` or `--offload-arch`, in its build files,
//! its scripts or the build line its documentation gives. Three cases need a person:
//! - a list that lacks the target GPU (`--offload-arch`/`hipport.toml`): REMEDIATION;
//! - the list switched off (`set(CMAKE_HIP_ARCHITECTURES OFF)`): CMake passes no target, the
//!   compiler's default is built: REMEDIATION;
//! - no target named anywhere: CMake takes the GPUs of the machine that configures
//!   (`rocm_agent_enumerator`) and the compiler's default where it has none (CI runners,
//!   containers), hipcc likewise: UNKNOWN, check what the build produces.
//!
//! A project with no HIP build of its own gets nothing here: its CUDA architecture settings
//! (HP843) already ask for the targets.

use super::shell::unquote;
use super::ts::{self, Lang};
use crate::finding::Finding;
use crate::gate::Status;
use crate::kinds::cmake::{Kind as K, NodeExt};
use crate::registry::{FileCtx, RuleInfo};

rule!(HIP_BUILD_GPU_TARGETS, "HP847", BuildSystem, Unknown, Runtime,
    summary: "The project's own HIP build names no GPU target, switches the list off, or names a list without the target GPU.",
    why: "A HIP code object runs only on the GPUs it was compiled for; on any other GPU the kernel launch fails (`hipErrorNoBinaryForGpu`). Without a list, CMake compiles for the GPUs of the machine that configures (`rocm_agent_enumerator`), or the compiler's default on a machine without one (CI runners, containers).",
    bad: "enable_language(HIP)\nadd_library(k k.hip)",
    good: "set(CMAKE_HIP_ARCHITECTURES \"gfx90a;gfx942\" CACHE STRING \"AMD GPUs\")\nenable_language(HIP)\nadd_library(k k.hip)",
    fix: "Name the GPUs the build must run on: `-DCMAKE_HIP_ARCHITECTURES=gfx942` (CMake), `--offload-arch=gfx942` (hipcc).",
    refs: ["https://cmake.org/cmake/help/latest/variable/CMAKE_HIP_ARCHITECTURES.html", "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html"],
);

pub const RULES: &[&RuleInfo] = &[&HIP_BUILD_GPU_TARGETS];

/// The words that name the HIP build's GPU targets, in any file.
const TARGET_WORDS: [&str; 6] = [
    "HIP_ARCHITECTURES",
    "AMDGPU_TARGETS",
    "GPU_TARGETS",
    "offload-arch",
    "amdgpu-target",
    "amdgpu_target",
];

/// Where the project's HIP build starts: a CMake file enabling the HIP language, or a
/// Makefile running hipcc. `(path, byte range, what)`.
pub fn hip_build_start(
    files: &[(&str, &[u8])],
) -> Option<(String, std::ops::Range<usize>, String)> {
    for (rel, src) in files {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name == "CMakeLists.txt" || name.ends_with(".cmake") {
            if memchr::memmem::find(src, b"HIP").is_none() {
                continue;
            }
            let Some(tree) = ts::parse(Lang::CMake, src) else {
                continue;
            };
            let mut found = None;
            ts::each(tree.root_node(), &mut |n| {
                if found.is_some() || n.node_kind() != K::NormalCommand {
                    return;
                }
                let Some((cmd, args)) = super::cmake::command_of(n, src) else {
                    return;
                };
                let words: Vec<&str> = args.iter().map(|a| unquote(ts::text(*a, src))).collect();
                let hip = match cmd.as_str() {
                    "enable_language" => words.first() == Some(&"HIP"),
                    "project" => words
                        .iter()
                        .skip_while(|w| **w != "LANGUAGES")
                        .any(|w| *w == "HIP"),
                    _ => false,
                };
                if hip {
                    found = Some((n.start_byte()..n.end_byte(), format!("`{cmd}(… HIP …)`")));
                }
            });
            if let Some((r, what)) = found {
                return Some((rel.to_string(), r, what));
            }
        } else if is_make(name) {
            let text = String::from_utf8_lossy(src);
            let mut at = 0;
            for l in text.split_inclusive('\n') {
                let t = l.trim_start();
                let runs_hipcc = !t.starts_with('#')
                    && t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '/'))
                        .any(|w| w == "hipcc" || w.ends_with("/hipcc"));
                if runs_hipcc {
                    let end = at + l.trim_end().len();
                    return Some((rel.to_string(), at..end, "hipcc".into()));
                }
                at += l.len();
            }
        }
    }
    None
}

/// A Makefile as the inventory knows it, or an Automake fragment (`config/hip.am`).
fn is_make(name: &str) -> bool {
    super::kind::by_name(name) == Some(super::kind::FileKind::Make) || name.ends_with(".am")
}

/// The gfx names of a text (`gfx90a`, `gfx942:xnack+` read as `gfx942`).
fn gfx_names(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            w.len() > 3 && w.starts_with("gfx") && w[3..].bytes().all(|b| b.is_ascii_hexdigit())
        })
        .map(str::to_string)
        .collect()
}

/// What the project says about its HIP targets: gfx names with where, and where a CMake file
/// switches the list off.
#[derive(Default)]
struct Said {
    gfx: Vec<(String, String)>,
    off: Option<String>,
    mentioned: Option<String>,
}

fn read_targets(rel: &str, src: &[u8], said: &mut Said) {
    let text = String::from_utf8_lossy(src);
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let cmake = name == "CMakeLists.txt" || name.ends_with(".cmake");
    for (i, l) in text.lines().enumerate() {
        let Some(w) = TARGET_WORDS.iter().find(|w| l.contains(*w)) else {
            continue;
        };
        let at = format!("{rel}:{}", i + 1);
        said.mentioned.get_or_insert_with(|| at.clone());
        // A CMake `set()` with a cache documentation string: the values stand before `CACHE`.
        let values = if cmake {
            l.split(" CACHE ").next().unwrap_or(l)
        } else {
            l
        };
        let after = values.split_once(w).map_or("", |(_, r)| r);
        let found = gfx_names(after);
        if found.is_empty() {
            let v = after
                .trim_start_matches(['}', ' ', '=', '"', '\''])
                .split([' ', ')', '"'])
                .next()
                .unwrap_or("");
            if cmake && l.trim_start().to_ascii_lowercase().starts_with("set(") && v == "OFF" {
                said.off.get_or_insert(at.clone());
            }
        }
        for g in found {
            said.gfx.push((g, at.clone()));
        }
    }
}

/// The HP847 finding of a project, if any: `files` are the project's own files with their
/// bytes (build files first), `targets` the GPUs the port targets (may be empty).
pub fn hip_targets(files: &[(&str, &[u8])], targets: &[String]) -> Option<Finding> {
    let (rel, range, what) = hip_build_start(files)?;
    let mut said = Said::default();
    for (r, src) in files {
        if TARGET_WORDS
            .iter()
            .any(|w| memchr::memmem::find(src, w.as_bytes()).is_some())
        {
            read_targets(r, src, &mut said);
        }
    }
    let src = files.iter().find(|(r, _)| *r == rel).map(|(_, b)| *b)?;
    let lines = crate::lines::LineIndex::new(src);
    let ctx = FileCtx {
        path: &rel,
        src,
        lines: &lines,
    };
    let want: Vec<&str> = targets
        .iter()
        .map(|t| t.split(':').next().unwrap_or(t))
        .collect();
    let named = || {
        if want.is_empty() {
            "the GPUs it must run on (e.g. gfx942)".to_string()
        } else {
            want.join(", ")
        }
    };
    // A default switched off in CMake wins over lists only scripts or CI pass: whoever
    // configures by hand gets no target.
    let cmake_lists = said.gfx.iter().any(|(_, at)| {
        let file = at.rsplit_once(':').map_or(at.as_str(), |(f, _)| f);
        file.ends_with("CMakeLists.txt") || file.ends_with(".cmake")
    });
    let mut f;
    if said.off.is_some() && !cmake_lists {
        let off = said.off.as_deref().unwrap_or_default();
        let elsewhere = said
            .gfx
            .first()
            .map(|(g, at)| format!(" (only {at} names one, {g})"))
            .unwrap_or_default();
        f = ctx.finding(
            &HIP_BUILD_GPU_TARGETS,
            range,
            format!(
                "the project's HIP build ({what}) switches its GPU list off by default (`CMAKE_HIP_ARCHITECTURES` OFF at {off}){elsewhere}: CMake passes no target, so the HIP code is built for the compiler's default GPU only unless whoever configures names the targets"
            ),
            Some(format!(
                "configure with `-DCMAKE_HIP_ARCHITECTURES=` naming {}, or give the variable that default",
                named()
            )),
        );
        f.status = Status::Remediation;
    } else if !said.gfx.is_empty() {
        let missing: Vec<&str> = want
            .iter()
            .copied()
            .filter(|t| !said.gfx.iter().any(|(g, _)| g == t))
            .collect();
        if missing.is_empty() {
            return None;
        }
        let mut listed: Vec<&str> = said.gfx.iter().map(|(g, _)| g.as_str()).collect();
        listed.sort();
        listed.dedup();
        f = ctx.finding(
            &HIP_BUILD_GPU_TARGETS,
            range,
            format!(
                "the project's HIP build ({what}) compiles for {} ({}), not for {}: its kernels will not load on that GPU (`hipErrorNoBinaryForGpu`)",
                listed.join(", "),
                said.gfx[0].1,
                missing.join(", ")
            ),
            Some(format!("add {} to the HIP build's GPU targets", missing.join(", "))),
        );
        f.status = Status::Remediation;
    } else if said.mentioned.is_none() {
        f = ctx.finding(
            &HIP_BUILD_GPU_TARGETS,
            range,
            format!(
                "the project's HIP build ({what}) names no GPU target in its build files, scripts or documentation: it compiles for the GPUs of the machine that builds it, or the compiler's default where that machine has none (CI runners, containers), and fails to launch on any other (`hipErrorNoBinaryForGpu`)"
            ),
            Some(format!(
                "name {} (`CMAKE_HIP_ARCHITECTURES`, or `--offload-arch=` for hipcc), or check that every build runs on the GPU it targets",
                named()
            )),
        );
    } else {
        return None;
    }
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)], targets: &[&str]) -> Option<Finding> {
        let files: Vec<(&str, &[u8])> = files.iter().map(|(r, t)| (*r, t.as_bytes())).collect();
        let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
        hip_targets(&files, &targets)
    }

    /// SpFFT's shape: `enable_language(HIP)` and nothing names a GPU: UNKNOWN.
    #[test]
    fn a_hip_build_naming_no_gpu_is_unknown() {
        let cm = "project(p LANGUAGES CXX)\nif(SPFFT_ROCM)\n  enable_language(HIP)\nendif()\n";
        let f = run(&[("CMakeLists.txt", cm)], &[]).expect("a finding");
        assert_eq!(f.status, Status::Unknown);
        assert_eq!(f.line, 3);
        assert!(f.message.contains("names no GPU target"), "{}", f.message);
        // The README's build line names the targets: nothing to say.
        let readme = "cmake -DSPFFT_ROCM=ON -DCMAKE_HIP_ARCHITECTURES=gfx90a ..\n";
        assert!(run(&[("CMakeLists.txt", cm), ("README.md", readme)], &[]).is_none());
        // No HIP build of its own (a CUDA project): HP843 asks, not this rule.
        let cuda = "project(p LANGUAGES CXX CUDA)\n";
        assert!(run(&[("CMakeLists.txt", cuda)], &[]).is_none());
    }

    /// heffte's shape: the list defaults to OFF (its doc string's example is not a value).
    /// SIRIUS's shape: a default list without the target GPU. Twin: a list with it.
    #[test]
    fn a_list_switched_off_or_without_the_target() {
        let cm = "project(h LANGUAGES CXX)\nif (ROCM AND NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n    set(CMAKE_HIP_ARCHITECTURES \"OFF\" CACHE STRING \"e.g., -DCMAKE_HIP_ARCHITECTURES=gfx803;gfx1100\")\nendif()\nenable_language(HIP)\n";
        let f = run(&[("CMakeLists.txt", cm)], &[]).expect("a finding");
        assert_eq!(f.status, Status::Remediation);
        assert!(
            f.message.contains("OFF at CMakeLists.txt:3"),
            "{}",
            f.message
        );
        // A CI script's list does not reach whoever configures by hand.
        let ci = "spack install heffte+rocm amdgpu_target=gfx90a\n";
        let f = run(&[("CMakeLists.txt", cm), ("ci/build.sh", ci)], &[]).expect("a finding");
        assert!(
            f.message.contains("only ci/build.sh:1 names one"),
            "{}",
            f.message
        );
        let list =
            "project(s LANGUAGES CXX HIP)\nset(CMAKE_HIP_ARCHITECTURES gfx801 gfx900 gfx90a)\n";
        let f = run(&[("CMakeLists.txt", list)], &["gfx942"]).expect("a finding");
        assert_eq!(f.status, Status::Remediation);
        assert!(
            f.message.contains("gfx801, gfx900, gfx90a"),
            "{}",
            f.message
        );
        assert!(f.message.contains("not for gfx942"), "{}", f.message);
        assert!(run(&[("CMakeLists.txt", list)], &["gfx90a"]).is_none());
        // No target configured: a list is the project's choice.
        assert!(run(&[("CMakeLists.txt", list)], &[]).is_none());
    }

    /// ucx's shape: hipcc in a Makefile fragment without `--offload-arch`. Twin: a comment
    /// naming hipcc is not a build.
    #[test]
    fn hipcc_in_a_makefile_naming_no_gpu() {
        let am = "HIPCC ?= hipcc\nHIPCC_CMD = $(HIPCC) -c $< -o $@\n";
        let f = run(&[("config/hip.am", am)], &[]).expect("a finding");
        assert_eq!(f.line, 1);
        assert_eq!(f.status, Status::Unknown);
        let comment = "# build with hipcc if you like\nall:\n\tcc -o x x.c\n";
        assert!(run(&[("Makefile", comment)], &[]).is_none());
        let with = "HIPCC ?= hipcc\nHIPFLAGS = --offload-arch=gfx90a\n";
        assert!(run(&[("Makefile", with)], &[]).is_none());
    }
}
