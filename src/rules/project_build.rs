//! What the project's own tree says about its ROCm build, asked once per project after the
//! per-file pass: facts a single file cannot see.
//!
//! - **Its own namespaces.** A project that declares a namespace named like CUDA's inside one
//!   of its own (`namespace ctranslate2 { namespace cuda {`) calls `cuda::get_stream()` in its
//!   namespace: that is not libcu++'s `cuda::`, so the translator's "namespace `cuda` has no
//!   HIP counterpart" is not porting work there (`cuda::std::` stays flagged).
//! - **Switches its build defines.** HP303 asks a person to check that the HIP build defines
//!   the project's ROCm switch. When a build file defines it (`-DMMCV_WITH_HIP`,
//!   `define_macros += [('MMCV_WITH_HIP', None)]`, `add_definitions(-DCT2_USE_HIP)`), or the
//!   switch is `USE_ROCM` in a PyTorch extension (`torch.utils.cpp_extension` passes
//!   `-DUSE_ROCM=1` to every ROCm extension build:
//!   <https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py>,
//!   `COMMON_HIP_FLAGS`), the check is done: PASS naming where.
//! - **ROCm counterparts.** A file or folder whose name carries a CUDA token beside one
//!   carrying a ROCm token (`mixbench-cuda/` and `mixbench-hip/`, `Dockerfile` and
//!   `Dockerfile_rocm`, `kernel_cuda.cu` and `kernel_hip.cpp`) is the CUDA half of a pair the
//!   project already keeps: the ROCm build uses the other half. Its findings become PASS naming
//!   the counterpart, unless the counterpart includes it (then the ROCm build compiles it too).
//!   A counterpart is also the sibling the build selects ([`selection`]): of `src/cuda/`,
//!   `src/hip/`, `src/raja/`, each with a `model.cmake` the build loads by `${MODEL}`, the ROCm
//!   build selects `src/hip/`; the other siblings' findings become PASS naming the selection.
//!   A per-machine build recipe for CUDA beside the folder's ROCm recipes is one too
//!   ([`recipes`]).

mod backends;
mod own_namespaces;
pub mod probes;
mod recipes;
pub mod selection;
mod stem_twins;
pub(crate) mod switches;
pub(crate) mod torch_hipify;
mod twin_builds;
mod windows_only;

pub use own_namespaces::pass_own_namespaces;
pub use switches::pass_switches_the_build_defines;
pub use torch_hipify::{names_hipify_leaves, reopen_port_rewrites};
pub use windows_only::settle_windows_builds;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Lexed, Tok};

/// The namespaces a file declares inside another namespace (`namespace a { namespace cuda {`,
/// `namespace a::cuda {`), by name.
pub fn nested_namespaces(bytes: &[u8], lexed: &Lexed) -> Vec<String> {
    let text = |i: usize| {
        let t = lexed.tokens[i];
        &bytes[t.start as usize..t.end as usize]
    };
    let code: Vec<usize> = lexed
        .tokens
        .iter()
        .enumerate()
        // Code only: a directive's `namespace` (a macro's body) opens no body here.
        .filter(|(_, t)| t.kind != Tok::Comment && t.directive == crate::lex::NO_DIRECTIVE)
        .map(|(i, _)| i)
        .collect();
    // Open braces: `true` for a namespace body.
    let mut stack: Vec<bool> = Vec::new();
    let mut out: BTreeSet<String> = BTreeSet::new();
    // A file that includes libcu++ (`<cuda/atomic>`, `<cuda/std/…>`) and opens a top-level
    // `namespace cuda {` may extend libcu++'s.
    let extends_libcu = memchr::memmem::find(bytes, b"<cuda/").is_some()
        || memchr::memmem::find(bytes, b"\"cuda/").is_some();
    // `#define MONAI_NAMESPACE_DEVICE namespace cuda`: the project names its own namespace
    // through a macro it opens inside another (`namespace monai { MONAI_NAMESPACE_DEVICE {`).
    for d in &lexed.directives {
        if d.name != "define" {
            continue;
        }
        let words: Vec<&[u8]> = d
            .tokens
            .clone()
            .filter(|&i| lexed.tokens[i].kind != Tok::Comment)
            .map(&text)
            .collect();
        if let [b"#", b"define", _, b"namespace", name] = words.as_slice() {
            out.insert(String::from_utf8_lossy(name).into_owned());
        }
    }
    let mut k = 0;
    while k < code.len() {
        let i = code[k];
        match text(i) {
            b"{" => stack.push(false),
            b"}" => {
                stack.pop();
            }
            b"namespace" => {
                // `namespace a::b::c {`: every segment after the first is nested; all are when
                // a namespace is open already. `using namespace x;` and aliases are not bodies.
                let using = k > 0 && text(code[k - 1]) == b"using";
                let mut names: Vec<String> = Vec::new();
                let mut j = k + 1;
                while j < code.len() {
                    let t = lexed.tokens[code[j]];
                    let s = text(code[j]);
                    if t.kind == Tok::Ident || s == b"inline" {
                        if s != b"inline" {
                            names.push(String::from_utf8_lossy(s).into_owned());
                        }
                    } else if s != b"::" {
                        break;
                    }
                    j += 1;
                }
                if !using && j < code.len() && text(code[j]) == b"{" {
                    let inside = stack.iter().any(|&ns| ns);
                    for (n, name) in names.iter().enumerate() {
                        if inside || n > 0 {
                            out.insert(name.clone());
                        } else if !extends_libcu {
                            // A top-level one, in a file that includes no libcu++ header:
                            // written `::name` (bifrost's `namespace cuda { … child_stream }`).
                            out.insert(format!("::{name}"));
                        }
                    }
                    stack.push(true);
                    k = j + 1;
                    continue;
                }
                k = j;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out.into_iter().collect()
}

/// The tokens of a path component that name a platform, split at `-`, `_` and `.`: a whole
/// token only (`amd64` and `hipster` name none).
const CUDA_TOKENS: [&str; 3] = ["cuda", "nvidia", "nv"];
const ROCM_TOKENS: [&str; 3] = ["hip", "rocm", "amd"];
/// NVIDIA library tokens and the names a project gives its ROCm twin of a file written on that
/// library (`ext_nvml.c` beside `ext_ADL.c`, `conv_cudnn.cpp` beside `conv_miopen.cpp`,
/// `ext_nvrtc.c` beside `ext_hiprtc.c`). The pairs are the libraries' ROCm counterparts
/// (hipify's tables for the compute libraries; AMD's monitoring libraries for NVML: ADL,
/// rocm-smi, amd-smi, and the amdgpu driver's sysfs).
const LIBRARY_TWINS: [(&str, &[&str]); 14] = [
    (
        "nvml",
        &[
            "adl", "rsmi", "rocm_smi", "rocmsmi", "amdsmi", "amd_smi", "amdgpu",
        ],
    ),
    ("nvrtc", &["hiprtc"]),
    ("cudnn", &["miopen"]),
    ("cublas", &["hipblas", "rocblas"]),
    ("cublaslt", &["hipblaslt"]),
    ("cufft", &["hipfft", "rocfft"]),
    ("curand", &["hiprand", "rocrand"]),
    ("cusparse", &["hipsparse", "rocsparse"]),
    ("cusolver", &["hipsolver", "rocsolver"]),
    ("nccl", &["rccl"]),
    ("nvtx", &["roctx"]),
    ("cupti", &["roctracer", "rocprofiler"]),
    ("cub", &["hipcub"]),
    ("nvidia", &["amdgpu"]),
];

/// Whether a lower-case name token names the ROCm side: a platform token or a library twin.
fn is_rocm_token(t: &str) -> bool {
    ROCM_TOKENS.contains(&t) || LIBRARY_TWINS.iter().any(|(_, r)| r.contains(&t))
}
/// The operating system a CUDA name may carry that its ROCm twin leaves out: ROCm builds run on
/// Linux only, so `build_wheels_cuda_linux.yml` and `build_wheels_rocm.yml` are one pair.
const LINUX_TOKEN: &str = "linux";

fn split_tokens(comp: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in comp.char_indices() {
        if matches!(c, '-' | '_' | '.') {
            if i > start {
                out.push((start, i));
            }
            start = i + 1;
        }
    }
    if comp.len() > start {
        out.push((start, comp.len()));
    }
    out
}

/// `name` without its `linux` token and the separator before it (after it when it leads):
/// `build_wheels_rocm_linux.yml` → `build_wheels_rocm.yml`. None when there is no such token
/// or it is the whole stem.
fn without_linux(name: &str) -> Option<String> {
    let toks = split_tokens(name);
    let at = toks
        .iter()
        .position(|&(a, b)| name[a..b].eq_ignore_ascii_case(LINUX_TOKEN))?;
    let (a, b) = toks[at];
    let out = if a > 0 {
        format!("{}{}", &name[..a - 1], &name[b..])
    } else if b < name.len() && name.as_bytes()[b] != b'.' {
        name[b + 1..].to_string()
    } else {
        return None;
    };
    (!out.is_empty() && !out.starts_with('.')).then_some(out)
}

/// Candidate ROCm counterparts of one path component: a CUDA token swapped for a ROCm token
/// (an OS token `linux` may go too), or (for a component with no platform token) a ROCm token
/// appended before the extension, after the name or before it.
fn counterpart_names(comp: &str, file: bool) -> Vec<String> {
    let toks = split_tokens(comp);
    let mut out = Vec::new();
    let mut platform = false;
    for &(a, b) in &toks {
        let t = comp[a..b].to_ascii_lowercase();
        let twins = LIBRARY_TWINS
            .iter()
            .filter(|(c, _)| *c == t)
            .flat_map(|(_, r)| r.iter().copied());
        let platform_twins = CUDA_TOKENS
            .contains(&t.as_str())
            .then_some(ROCM_TOKENS)
            .into_iter()
            .flatten();
        let others: Vec<&str> = platform_twins.chain(twins).collect();
        if !others.is_empty() {
            platform = true;
            for r in others {
                let r = if comp[a..b].chars().all(|c| c.is_ascii_uppercase()) {
                    r.to_ascii_uppercase()
                } else {
                    r.to_string()
                };
                let swapped = format!("{}{}{}", &comp[..a], r, &comp[b..]);
                for swapped in std::iter::once(swapped.clone()).chain(without_linux(&swapped)) {
                    // A source's counterpart often changes extension too (`k_cuda.cu`,
                    // `k_hip.cpp`).
                    if file {
                        if let Some((stem, _)) = swapped.rsplit_once('.') {
                            for ext in ["hip", "cpp", "cc", "cu", "hip.cpp"] {
                                out.push(format!("{stem}.{ext}"));
                            }
                        }
                    }
                    out.push(swapped);
                }
            }
        } else if is_rocm_token(&t) {
            return Vec::new();
        }
    }
    if !platform && !toks.is_empty() {
        // `Dockerfile` → `Dockerfile_rocm`, `Dockerfile.amd`, `rocm.Dockerfile`;
        // `env.yml` → `env_rocm.yml`.
        let (stem, ext) = match comp.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s, format!(".{e}")),
            _ => (comp, String::new()),
        };
        for r in ROCM_TOKENS {
            for sep in ['_', '.', '-'] {
                out.push(format!("{stem}{sep}{r}{ext}"));
                out.push(format!("{comp}{sep}{r}"));
                out.push(format!("{r}{sep}{comp}"));
            }
            // Inside the name, at each separator: `Dockerfile_2` → `Dockerfile_hip_2`.
            for (i, c) in stem
                .char_indices()
                .filter(|(_, c)| matches!(c, '_' | '-' | '.'))
            {
                out.push(format!("{}{c}{r}{}{ext}", &stem[..i], &stem[i..]));
            }
        }
    }
    out
}

/// The ROCm counterpart of a path: the file or folder the ROCm build uses instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterpart {
    /// The counterpart (a folder ends with `/`).
    pub path: String,
    /// When the build selects it among sibling folders: how (see [`selection`]).
    pub selected: Option<String>,
}

/// Each path whose ROCm counterpart (file or folder) the project keeps, with the counterpart.
/// `includes` lists each source's resolved project includes: a counterpart that includes the
/// CUDA file compiles it, so it is not a replacement. `build_files` are read for a selection
/// among sibling folders (`include(src/${MODEL}/model.cmake)`): paths in the siblings the ROCm
/// build does not select have the selected ROCm sibling as counterpart.
pub fn rocm_counterparts(
    paths: &[&str],
    includes: &HashMap<String, Vec<String>>,
    build_files: &[(&str, &[u8])],
) -> BTreeMap<String, Counterpart> {
    let files: BTreeSet<&str> = paths.iter().copied().collect();
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    for p in paths {
        let mut acc = String::new();
        let comps: Vec<&str> = p.split('/').collect();
        for c in &comps[..comps.len().saturating_sub(1)] {
            if !acc.is_empty() {
                acc.push('/');
            }
            acc.push_str(c);
            dirs.insert(acc.clone());
        }
    }
    // A folder counts as a counterpart only with sources of its own: `ggml-hip/` holding just
    // a CMakeLists.txt that compiles `ggml-cuda/` is the ROCm build OF the CUDA folder.
    const SOURCE_EXTS: [&str; 9] = ["cu", "cuh", "cpp", "cc", "c", "h", "hpp", "hip", "py"];
    let with_sources: BTreeSet<&str> = paths
        .iter()
        .filter(|p| {
            p.rsplit_once('.')
                .is_some_and(|(_, e)| SOURCE_EXTS.contains(&e))
        })
        .filter_map(|p| p.rsplit_once('/').map(|(d, _)| d))
        .collect();
    let dir_has_sources = |d: &str| {
        with_sources
            .iter()
            .any(|w| *w == d || w.starts_with(&format!("{d}/")))
    };
    let files_lc: HashMap<String, &str> =
        files.iter().map(|f| (f.to_ascii_lowercase(), *f)).collect();
    let dirs_lc: HashMap<String, &str> = dirs
        .iter()
        .map(|d| (d.to_ascii_lowercase(), d.as_str()))
        .collect();
    let mut out = BTreeMap::new();
    for p in paths {
        let comps: Vec<&str> = p.split('/').collect();
        'comp: for (ci, comp) in comps.iter().enumerate() {
            let last = ci + 1 == comps.len();
            // Only the file name gets the appended form (`Dockerfile_rocm`); a folder with no
            // platform token (`src/`) has no counterpart by appending.
            let has_token = split_tokens(comp).iter().any(|&(a, b)| {
                let t = comp[a..b].to_ascii_lowercase();
                CUDA_TOKENS.contains(&t.as_str()) || LIBRARY_TWINS.iter().any(|(c, _)| *c == t)
            });
            if !last && !has_token {
                continue;
            }
            let mut cands = counterpart_names(comp, last);
            if last && !cands.is_empty() && !has_token {
                // `docker/Dockerfile` → `docker/amd/Dockerfile`: the ROCm twin in a ROCm folder
                // of the same folder.
                cands.extend(ROCM_TOKENS.iter().map(|r| format!("{r}/{comp}")));
            }
            for cand in cands {
                let prefix = comps[..ci].join("/");
                let joined = if prefix.is_empty() {
                    cand.clone()
                } else {
                    format!("{prefix}/{cand}")
                };
                // A folder counts when it has sources of its own or holds this file's twin
                // (`docker/nvidia/Dockerfile`, `docker/amd/Dockerfile`).
                // Names are compared without case (`ext_nvml.c`, `ext_ADL.c`); the counterpart
                // is reported as the tree spells it.
                let joined = if last {
                    match files_lc.get(&joined.to_ascii_lowercase()) {
                        Some(actual) => actual.to_string(),
                        None => continue,
                    }
                } else {
                    match dirs_lc.get(&joined.to_ascii_lowercase()) {
                        Some(actual)
                            if dir_has_sources(actual)
                                || files.contains(
                                    format!("{actual}/{}", comps[ci + 1..].join("/")).as_str(),
                                ) =>
                        {
                            actual.to_string()
                        }
                        _ => continue,
                    }
                };
                // Not a replacement when the counterpart file includes this one.
                if last
                    && includes
                        .get(&joined)
                        .is_some_and(|v| v.iter().any(|i| i == p))
                {
                    continue;
                }
                out.insert(
                    p.to_string(),
                    Counterpart {
                        path: if last { joined } else { format!("{joined}/") },
                        selected: None,
                    },
                );
                break 'comp;
            }
        }
    }
    // Per-machine build recipes (`blueos_nvcc_gcc.sh` beside `toss4_hipcc.sh`).
    for (p, (first, why)) in recipes::cuda_recipes_with_rocm_siblings(paths) {
        out.entry(p).or_insert(Counterpart {
            path: first,
            selected: Some(why),
        });
    }
    // Files the ROCm build replaces by another part of the project: a CUDA backend folder
    // beside the backend it compiles (VTK-m's `cont/cuda/` beside `cont/kokkos/`), the CUDA
    // build's configure-time GPU probes, and a standalone CMake project beside the setup.py that
    // builds the same sources as a PyTorch extension.
    let hip = backends::hip_builds(build_files);
    let replaced = backends::cuda_backends(paths, includes, &hip)
        .into_iter()
        .chain(probes::gpu_probes(paths, build_files, &hip))
        .chain(stem_twins::cuda_sources_with_hip_twins(
            paths, includes, &hip,
        ))
        .chain(twin_builds::cmake_beside_extension(build_files));
    for (p, (path, why)) in replaced {
        out.entry(p).or_insert(Counterpart {
            path,
            selected: Some(why),
        });
    }
    let sels = selection::selections(paths, build_files);
    for (p, (chosen, why)) in selection::unselected(paths, &sels) {
        out.entry(p).or_insert(Counterpart {
            path: chosen,
            selected: Some(why),
        });
    }
    out
}

/// Findings in files a path template picks by the runner's OS for Windows or macOS
/// (`ci/${{ runner.os }}-env.sh` → `ci/Windows-env.sh`) become PASS: the ROCm build runs on
/// Linux. `texts` are the build files and CI workflows that may name such templates.
pub fn pass_other_os_files(findings: &mut [Finding], paths: &[&str], texts: &[(&str, &[u8])]) {
    let picked = selection::os_unselected(paths, texts);
    if picked.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        if let Some(why) = picked.get(&f.path) {
            f.status = Status::Pass;
            f.message.push_str(&format!(" ({why})"));
        }
    }
}

/// Findings in files whose ROCm counterpart the project keeps become PASS, naming it.
pub fn pass_with_counterparts(findings: &mut [Finding], pairs: &BTreeMap<String, Counterpart>) {
    if pairs.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        let Some(other) = pairs.get(&f.path) else {
            continue;
        };
        f.status = Status::Pass;
        match &other.selected {
            Some(why) => f.message.push_str(&format!(" ({why})")),
            None => f.message.push_str(&format!(
                " (the project keeps a ROCm counterpart, `{}`: the ROCm build uses that, not \
                 this file)",
                other.path
            )),
        }
    }
}

/// Whether a CMake condition's words select the HIP build (`WITH_HIP`, `USE_ROCM`,
/// `CMAKE_HIP_COMPILER`, `HIP_FOUND`), with no `NOT`.
fn hip_condition(cond: &str) -> bool {
    let words: Vec<&str> = cond
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words
        .iter()
        .any(|w| w.eq_ignore_ascii_case("NOT") || w.eq_ignore_ascii_case("OR"))
    {
        return false;
    }
    words.iter().any(|w| {
        w.split('_')
            .any(|p| p.eq_ignore_ascii_case("hip") || p.eq_ignore_ascii_case("rocm"))
    })
}

/// Sources a CMake file removes from its lists in an arm only the HIP build runs
/// (`elseif(WITH_HIP)` … `list(REMOVE_ITEM CUDA_SOURCES src/ops/awq/gemm_gpu.cu)`), relative
/// to the CMake file's folder, with the reason: the HIP build does not compile them.
pub fn removed_from_hip_build(rel: &str, text: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(text);
    // The condition of each open `if` arm; `else()` has none we can read.
    let mut arms: Vec<Option<String>> = Vec::new();
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        let lower = l.to_ascii_lowercase();
        let cond = |l: &str| {
            l.split_once('(')
                .map(|(_, r)| r.rsplit_once(')').map_or(r, |(c, _)| c).to_string())
        };
        if lower.starts_with("if(") || lower.starts_with("if (") {
            arms.push(cond(l));
        } else if lower.starts_with("elseif(") || lower.starts_with("elseif (") {
            if let Some(top) = arms.last_mut() {
                *top = cond(l);
            }
        } else if lower.starts_with("else(") || lower.starts_with("else (") {
            if let Some(top) = arms.last_mut() {
                *top = None;
            }
        } else if lower.starts_with("endif") {
            arms.pop();
        } else if lower.starts_with("list(remove_item") || lower.starts_with("list (remove_item") {
            let start = i;
            let mut args = String::new();
            loop {
                args.push_str(lines[i]);
                args.push(' ');
                if lines[i].contains(')') || i + 1 >= lines.len() {
                    break;
                }
                i += 1;
            }
            let arm = arms.iter().rev().flatten().next().cloned();
            if let Some(c) = arm.filter(|c| hip_condition(c)) {
                let words = args
                    .split_once('(')
                    .map_or("", |(_, r)| r)
                    .split(|ch: char| ch.is_whitespace() || ch == ')' || ch == '"');
                for w in words.skip(2) {
                    let w = w
                        .trim_start_matches("${CMAKE_CURRENT_SOURCE_DIR}/")
                        .trim_start_matches("${PROJECT_SOURCE_DIR}/")
                        .trim_start_matches("./");
                    let ext = w.rsplit_once('.').map_or("", |(_, e)| e);
                    if w.is_empty()
                        || w.contains('$')
                        || !matches!(ext, "cu" | "cuh" | "cpp" | "cc" | "cxx" | "c" | "h" | "hpp")
                    {
                        continue;
                    }
                    out.push((
                        w.to_string(),
                        format!(
                            "removed from the HIP build by {rel}:{} (`list(REMOVE_ITEM …)` under \
                             `{c}`)",
                            start + 1
                        ),
                    ));
                }
            }
        }
        i += 1;
    }
    out
}

/// A finding of `rule` at `path` over `range` with `msg`, for the tests of this module's passes.
#[cfg(test)]
fn test_finding(rule: &str, path: &str, msg: &str, range: (usize, usize)) -> Finding {
    Finding {
        message: msg.into(),
        byte_range: range,
        ..Finding::bare(rule, path, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(src: &str) -> Vec<String> {
        let lexed = crate::lex::lex(src.as_bytes());
        nested_namespaces(src.as_bytes(), &lexed)
    }

    #[test]
    fn nested_namespaces_are_the_projects() {
        assert_eq!(
            nested("namespace ct { namespace cuda { int f(); } }"),
            vec!["::ct", "cuda"]
        );
        assert_eq!(
            nested("namespace ct::cuda { int f(); }"),
            vec!["::ct", "cuda"]
        );
        // A top-level one is written `::cuda` (bifrost's `namespace cuda {`), unless the file
        // includes libcu++, whose namespace it may extend; `using namespace` declares nothing;
        // a class body is not a namespace.
        assert_eq!(nested("namespace cuda { int f(); }"), vec!["::cuda"]);
        assert!(nested("#include <cuda/atomic>\nnamespace cuda { int f(); }").is_empty());
        assert!(nested("namespace a { using namespace cuda; }")
            .iter()
            .all(|n| n == "::a"));
        assert_eq!(
            nested("struct s { int cuda; }; namespace cuda { }"),
            vec!["::cuda"]
        );
        // MONAI's `#define MONAI_NAMESPACE_DEVICE namespace cuda`, opened inside `monai`; the
        // macro's body opens nothing where it is defined.
        assert_eq!(
            nested("#define NS namespace cuda\nnamespace monai {\nNS { int f(); }\n}"),
            vec!["::monai", "cuda"]
        );
    }

    #[test]
    fn sources_removed_in_the_hip_arm() {
        let cmake = b"if(WITH_CUDA)\n  x()\nelseif(WITH_HIP)\n  list(REMOVE_ITEM CUDA_SOURCES\n    src/awq/gemm_gpu.cu\n    src/awq/gemv_gpu.cu\n  )\nendif()\n";
        let got = removed_from_hip_build("CMakeLists.txt", cmake);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, "src/awq/gemm_gpu.cu");
        assert!(got[0].1.contains("CMakeLists.txt:4"), "{}", got[0].1);
        // Twins: the same removal in the CUDA arm, or under `NOT WITH_HIP`, removes nothing
        // from the HIP build.
        let cuda = b"if(WITH_CUDA)\n  list(REMOVE_ITEM S a.cu)\nendif()\nif(NOT WITH_HIP)\n  list(REMOVE_ITEM S b.cu)\nendif()\n";
        assert!(removed_from_hip_build("CMakeLists.txt", cuda).is_empty());
    }

    #[test]
    fn counterparts_of_files_and_folders() {
        let paths = [
            "mixbench-cuda/main.cu",
            "mixbench-hip/main.cpp",
            "docker/Dockerfile",
            "docker/Dockerfile_rocm",
            "src/k_cuda.cu",
            "src/k_hip.cpp",
            "bench/cuda_linops.cpp",
            "bench/hip_linops.hip.cpp",
            "src/w_cuda.cu",
            "src/w_hip.cpp",
            "lonely-cuda/a.cu",
            "src/Dockerfile",
            "ggml-cuda/k.cu",
            "ggml-hip/CMakeLists.txt",
            ".gitlab/Dockerfile_2",
            ".gitlab/Dockerfile_hip_2",
            ".gitlab/Dockerfile_3",
        ];
        let mut inc = HashMap::new();
        inc.insert(
            "src/w_hip.cpp".to_string(),
            vec!["src/w_cuda.cu".to_string()],
        );
        let got = rocm_counterparts(&paths, &inc, &[]);
        assert_eq!(got["mixbench-cuda/main.cu"].path, "mixbench-hip/");
        assert_eq!(got["docker/Dockerfile"].path, "docker/Dockerfile_rocm");
        // SPH-EXA's CI images: the ROCm token inside the name.
        assert_eq!(got[".gitlab/Dockerfile_2"].path, ".gitlab/Dockerfile_hip_2");
        assert!(!got.contains_key(".gitlab/Dockerfile_3"));
        assert_eq!(got["src/k_cuda.cu"].path, "src/k_hip.cpp", "{got:?}");
        assert_eq!(
            got["bench/cuda_linops.cpp"].path,
            "bench/hip_linops.hip.cpp"
        );
        // Twins: a HIP wrapper that includes the CUDA file compiles it; no counterpart, no
        // pass; the ROCm halves themselves are never CUDA halves.
        assert!(!got.contains_key("src/w_cuda.cu"));
        assert!(!got.contains_key("lonely-cuda/a.cu"));
        assert!(!got.contains_key("src/Dockerfile"));
        assert!(!got.contains_key("mixbench-hip/main.cpp"));
        // A ROCm folder with no sources of its own builds the CUDA folder.
        assert!(!got.contains_key("ggml-cuda/k.cu"));
    }

    /// A file written on an NVIDIA library beside the project's twin on that library's ROCm
    /// counterpart (monitoring through NVML beside ADL, runtime compilation through NVRTC beside
    /// hipRTC, cuDNN beside MIOpen); names compared without case.
    #[test]
    fn counterparts_on_the_rocm_twin_of_a_library() {
        let paths = [
            "src/ext_nvml.c",
            "src/ext_ADL.c",
            "include/ext_nvml.h",
            "include/ext_adl.h",
            "src/ext_nvrtc.c",
            "src/ext_hiprtc.c",
            "ops/conv_cudnn.cpp",
            "ops/conv_miopen.cpp",
            "gpuinfo/extract_gpuinfo_nvidia.c",
            "gpuinfo/extract_gpuinfo_amdgpu.c",
            // Twins: no ROCm twin, another library's twin, a token inside a word, the ROCm
            // halves themselves.
            "tools/lonely_nvml.c",
            "ops/gemm_cublas.cpp",
            "ops/gemm_miopen.cpp",
            "ops/nvmlx.c",
            "ops/adlx.c",
        ];
        let got = rocm_counterparts(&paths, &HashMap::new(), &[]);
        let at = |p: &str| got.get(p).map(|c| c.path.as_str());
        assert_eq!(at("src/ext_nvml.c"), Some("src/ext_ADL.c"), "{got:?}");
        assert_eq!(at("include/ext_nvml.h"), Some("include/ext_adl.h"));
        assert_eq!(at("src/ext_nvrtc.c"), Some("src/ext_hiprtc.c"));
        assert_eq!(at("ops/conv_cudnn.cpp"), Some("ops/conv_miopen.cpp"));
        assert_eq!(
            at("gpuinfo/extract_gpuinfo_nvidia.c"),
            Some("gpuinfo/extract_gpuinfo_amdgpu.c")
        );
        for p in [
            "tools/lonely_nvml.c",
            "ops/gemm_cublas.cpp",
            "ops/nvmlx.c",
            "src/ext_ADL.c",
            "src/ext_hiprtc.c",
            "ops/conv_miopen.cpp",
        ] {
            assert_eq!(at(p), None, "{p}");
        }
    }

    #[test]
    fn counterparts_spelled_amd_and_without_the_os() {
        let paths = [
            // `amd` as a name part, after `_`, `.`, `-`, or as a folder.
            "Dockerfile",
            "Dockerfile_amd",
            "a/Dockerfile",
            "a/Dockerfile.amd",
            "b/env.yml",
            "b/amd-env.yml",
            "docker/Dockerfile",
            "docker/amd/Dockerfile",
            "deploy/nvidia/Dockerfile",
            "deploy/amd/Dockerfile",
            "ci/Dockerfile.nv",
            "ci/Dockerfile.rocm",
            // A CUDA workflow for Linux beside the ROCm one (ROCm runs on Linux only).
            ".github/workflows/build_wheels_cuda_linux.yml",
            ".github/workflows/build_wheels_cuda_windows.yml",
            ".github/workflows/build_wheels_rocm.yml",
            ".github/workflows/build.yml",
            ".github/workflows/build_rocm.yml",
            // Twins: arch suffixes and words that start with a ROCm token are not ROCm.
            "c/Dockerfile",
            "c/Dockerfile_amd64",
            "d/ci.yml",
            "d/hipster.yml",
            "d/ci_hipster.yml",
            "d/ci.amd64.yml",
            // A ROCm twin in another folder.
            "e/Dockerfile",
            "f/Dockerfile_amd",
            "g/Dockerfile",
            "g/x/amd/Dockerfile",
        ];
        let got = rocm_counterparts(&paths, &HashMap::new(), &[]);
        let at = |p: &str| got.get(p).map(|c| c.path.as_str());
        assert_eq!(at("Dockerfile"), Some("Dockerfile_amd"), "{got:?}");
        assert_eq!(at("a/Dockerfile"), Some("a/Dockerfile.amd"));
        assert_eq!(at("b/env.yml"), Some("b/amd-env.yml"));
        assert_eq!(at("docker/Dockerfile"), Some("docker/amd/Dockerfile"));
        assert_eq!(at("deploy/nvidia/Dockerfile"), Some("deploy/amd/"));
        assert_eq!(at("ci/Dockerfile.nv"), Some("ci/Dockerfile.rocm"));
        assert_eq!(
            at(".github/workflows/build_wheels_cuda_linux.yml"),
            Some(".github/workflows/build_wheels_rocm.yml")
        );
        assert_eq!(
            at(".github/workflows/build.yml"),
            Some(".github/workflows/build_rocm.yml")
        );
        // The Windows workflow keeps its OS: no ROCm twin by name.
        assert_eq!(at(".github/workflows/build_wheels_cuda_windows.yml"), None);
        for p in ["c/Dockerfile", "d/ci.yml", "e/Dockerfile", "g/Dockerfile"] {
            assert_eq!(at(p), None, "{p}");
        }
        // The ROCm halves are never CUDA halves.
        for p in [
            "Dockerfile_amd",
            "docker/amd/Dockerfile",
            "deploy/amd/Dockerfile",
        ] {
            assert_eq!(at(p), None, "{p}");
        }
    }

    #[test]
    fn an_os_token_leaves_the_name() {
        assert_eq!(
            without_linux("build_cuda_linux.yml").as_deref(),
            Some("build_cuda.yml")
        );
        assert_eq!(
            without_linux("linux-build.yml").as_deref(),
            Some("build.yml")
        );
        assert_eq!(without_linux("linux.yml"), None);
        assert_eq!(without_linux("linuxbrew.yml"), None);
    }
}
