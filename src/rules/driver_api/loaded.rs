//! CUDA libraries a program loads by name at run time (`dlopen("libcuda.so")`,
//! `LoadLibrary("nvcuda.dll")`, `ctypes.CDLL(find_library("cudart"))`) rather than links: a
//! loader that no build file shows and no rename reaches, which fails when the program starts
//! on a machine without NVIDIA's libraries.
//!
//! A program with an AMD backend of its own loads AMD's libraries the same way (a monitor's
//! `libdrm_amdgpu.so`, a runtime's `libamdhip64.so`): its CUDA loaders are one backend among
//! several, and the ROCm machine takes the AMD one ([`pass_beside_amd_loaders`]).

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::Tok;
use crate::mappings::link_names::{loaded_amd_library, loaded_cuda_library, rocm_symbols};
use crate::model::syntax::Src;

rule!(LOADED_BY_NAME, "HP507", DriverApi, Remediation, Init,
    summary: "A CUDA library loaded by name at run time (`dlopen(\"libcuda.so\")`, `LoadLibrary(\"nvcuda.dll\")`, `ctypes.CDLL(find_library(\"cudart\"))`).",
    why: "A program that loads the CUDA driver, runtime, NVRTC, cuBLAS or NVML itself finds no such file on a ROCm machine, and no rename reaches it: its counterpart has another file name (`libamdhip64.so`, `libhiprtc.so`, `libhipblas.so`, `libamd_smi.so`) and exports other symbols (`hipInit`, not `cuInit`), so the loader's symbol table must change with it. Nothing fails to build; the program fails when it starts.",
    bad: "void* h = dlopen(\"libcuda.so.1\", RTLD_NOW);\nauto init = (CUresult (*)(unsigned)) dlsym(h, \"cuInit\");",
    good: "void* h = dlopen(\"libamdhip64.so\", RTLD_NOW);\nauto init = (hipError_t (*)(unsigned)) dlsym(h, \"hipInit\");",
    fix: "Load the ROCm counterpart and resolve its `hip*` names (or link the HIP library and drop the loader); where the program keeps both, choose the library by platform.",
    refs: ["https://rocm.docs.amd.com/en/latest/reference/api-libraries.html", "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_driver_api.html"],
);

/// The text a string token holds, without its quotes and prefix (`L"…"`, `u8"…"`).
pub(crate) fn inner(text: &str) -> Option<&str> {
    let open = text.find('"')?;
    let close = text.rfind('"')?;
    (close > open).then(|| &text[open + 1..close])
}

/// What a finding's excerpt names: a C/C++ string token's contents, or a Python string's
/// (whose finding covers the contents alone).
pub fn contents(excerpt: &str) -> &str {
    let quoted = |q: char| {
        let a = excerpt.find(q)?;
        let b = excerpt.rfind(q)?;
        (b > a).then(|| &excerpt[a + 1..b])
    };
    quoted('"').or_else(|| quoted('\'')).unwrap_or(excerpt)
}

/// The library a loader's string names, and whether it is CUDA's (with its counterpart).
pub enum Loaded<'a> {
    Cuda(&'a str, &'static str),
    Amd(&'static str),
}

impl Loaded<'_> {
    /// The library's link name.
    pub fn name(&self) -> &str {
        match self {
            Loaded::Cuda(n, _) => n,
            Loaded::Amd(n) => n,
        }
    }
}

/// What `text` (a string's contents) names for a loader; `bare` also reads a bare name
/// (`find_library("cudart")`).
pub fn loaded(text: &str, bare: bool) -> Option<Loaded<'_>> {
    if let Some((name, rocm)) = loaded_cuda_library(text, bare) {
        return Some(Loaded::Cuda(name, rocm));
    }
    loaded_amd_library(text, bare).map(Loaded::Amd)
}

/// The finding for a string naming a library for a loader: REMEDIATION for a CUDA library
/// (`others`: the lines of the file's other names for it), PASS for an AMD one.
pub fn finding_for(
    ctx: &crate::registry::FileCtx,
    range: std::ops::Range<usize>,
    text: &str,
    what: Loaded,
    others: &[usize],
) -> Finding {
    match what {
        Loaded::Cuda(name, rocm) => {
            let also = match others {
                [] => String::new(),
                ls => format!(
                    " (also named on line{} {})",
                    if ls.len() > 1 { "s" } else { "" },
                    ls.iter()
                        .map(|l| l.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            // NVTX only annotates: without it a program loses its profiler ranges, not its GPU
            // path (fluids3's `PERF_INIT` falls back to CPU markers).
            let markers = name.to_ascii_lowercase().starts_with("nvtoolsext")
                || name.to_ascii_lowercase().starts_with("nvtx");
            let consequence = if markers {
                "so the load fails and the profiler ranges it would mark are lost (NVTX only annotates; the program runs on unless it requires the library)"
            } else {
                "so the load fails at start-up (the GPU path is lost, or the program stops)"
            };
            let mut f = ctx.finding(
                &LOADED_BY_NAME,
                range,
                format!("`{text}` is loaded by name at run time{also}: a ROCm machine has no NVIDIA `lib{name}`, {consequence}; its counterpart `lib{rocm}.so` exports {} names", rocm_symbols(rocm)),
                Some(match rocm_symbols(rocm) {
                    same if same.starts_with("the same") => format!("load `lib{rocm}.so` instead"),
                    names => format!("load `lib{rocm}.so` and resolve its {names} names, or link it and drop the loader"),
                }),
            );
            if markers {
                f.phase = crate::gate::Phase::Performance;
            }
            f
        }
        Loaded::Amd(name) => {
            let mut f = ctx.finding(
                &LOADED_BY_NAME,
                range,
                format!(
                    "`{text}` is loaded by name at run time: the project's own AMD path (`{name}`)"
                ),
                None,
            );
            f.status = Status::Pass;
            f
        }
    }
}

/// A shared object's name (`libcuda.so`, `libcudart.so.12`), as Linux loaders take them.
fn linux(name: &str) -> bool {
    name.ends_with(".so") || name.contains(".so.")
}

/// One finding per library a file names for a loader: the first string, with the lines of the
/// others.
pub fn check(s: &Src, out: &mut Vec<Finding>) {
    // Every string token of every file would be read: most files name no library file at all.
    let names_a_file = [&b".so"[..], b".dll", b".DLL", b".dylib"]
        .iter()
        .any(|n| memchr::memmem::find(s.ctx.src, n).is_some());
    if !names_a_file {
        return;
    }
    // (link name, first string's range and text, the other strings' lines).
    let mut seen: Vec<(String, std::ops::Range<usize>, String, Vec<usize>)> = Vec::new();
    for t in s.lexed.tokens.iter().filter(|t| t.kind == Tok::Str) {
        if s.lexed
            .directives
            .get(t.directive as usize)
            .is_some_and(|d| d.name == "include")
        {
            continue;
        }
        let text = String::from_utf8_lossy(t.text(s.bytes()));
        let Some(body) = inner(&text) else { continue };
        let Some(what) = loaded(body, false) else {
            continue;
        };
        let key = what.name().to_string();
        let line = s.line(t.start as usize) + 1;
        match seen.iter_mut().find(|(k, ..)| *k == key) {
            // A Linux name holds the finding (ROCm's platform); the others' lines go with it.
            Some((_, range, head, lines)) if linux(body) && !linux(head) => {
                lines.push(s.line(range.start) + 1);
                lines.sort_unstable();
                *range = t.range();
                *head = body.to_string();
            }
            Some((_, _, _, lines)) => lines.push(line),
            None => seen.push((key, t.range(), body.to_string(), Vec::new())),
        }
    }
    for (_, range, body, others) in seen {
        if let Some(what) = loaded(&body, false) {
            out.push(finding_for(s.ctx, range, &body, what, &others));
        }
    }
}

/// Once the whole project is read: the loaders beside AMD ones ([`pass_beside_amd_loaders`])
/// and the names the loaders resolve ([`fold_into_loaders`]).
pub fn settle_loaders(findings: &mut [Finding], read: &dyn Fn(&str) -> Option<Vec<u8>>) {
    pass_beside_amd_loaders(findings);
    fold_into_loaders(findings, read);
}

/// Once the whole project is read: where it loads a library of the AMD stack by name too, its
/// open loaders of CUDA libraries are its NVIDIA backend's (PASS, naming the AMD loader).
pub fn pass_beside_amd_loaders(findings: &mut [Finding]) {
    let amd = findings.iter().find(|f| {
        f.rule == LOADED_BY_NAME.id.code
            && f.status == Status::Pass
            && matches!(loaded(contents(&f.excerpt), true), Some(Loaded::Amd(_)))
    });
    let Some(amd) = amd.map(|f| format!("{}:{}", f.path, f.line)) else {
        return;
    };
    for f in findings.iter_mut() {
        if f.rule == LOADED_BY_NAME.id.code && f.status != Status::Pass {
            f.status = Status::Pass;
            f.message = format!(
                "{}; the project loads an AMD library by name too (`{amd}`): this loader is its NVIDIA backend's, and a ROCm machine takes the AMD one",
                f.message
            );
            f.suggestion = None;
        }
    }
}

/// The rules of API names the loader's table holds (un-ported, deprecated, not yet in the
/// target, the context API).
const TABLE_RULES: &[&str] = &["HP001", "HP002", "HP003", "HP501"];

/// Once the whole project is read: a CUDA name a file resolves by string from the CUDA
/// library it loads by name (nvidia-texture-tools' `driverapi.cpp`: `cuCtxAttach =
/// (cuCtxAttachPtr) nvcuda.bindSymbol("cuCtxAttach")`, with a member of the same name) is an
/// entry of that loader's symbol table, which the loader's finding (HP507) ports as a whole:
/// its own findings become PASS naming the loader. A name the file also calls without the
/// string, in a file that loads nothing, stays open. `read` gives a file's text.
pub fn fold_into_loaders(findings: &mut [Finding], read: &dyn Fn(&str) -> Option<Vec<u8>>) {
    let loaders: std::collections::BTreeMap<String, u32> = findings
        .iter()
        .filter(|f| {
            f.rule == LOADED_BY_NAME.id.code
                && matches!(loaded(contents(&f.excerpt), true), Some(Loaded::Cuda(..)))
        })
        .fold(std::collections::BTreeMap::new(), |mut m, f| {
            m.entry(f.path.clone()).or_insert(f.line);
            m
        });
    if loaders.is_empty() {
        return;
    }
    let mut texts: std::collections::BTreeMap<String, Option<String>> = Default::default();
    // Per loader file, the names it resolves that HIP has no equivalent of (HP001).
    let mut without: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for f in findings.iter_mut() {
        if f.status == Status::Pass || !TABLE_RULES.contains(&f.rule.as_str()) {
            continue;
        }
        let Some(&line) = loaders.get(&f.path) else {
            continue;
        };
        let name = f.excerpt.trim().to_string();
        if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            continue;
        }
        let text = texts
            .entry(f.path.clone())
            .or_insert_with(|| read(&f.path).map(|t| String::from_utf8_lossy(&t).into_owned()));
        if text
            .as_deref()
            .is_some_and(|t| t.contains(&format!("\"{name}\"")))
        {
            let note = format!(
                " (an entry of the symbol table the loader at line {line} resolves by name (`\"{name}\"`): it is ported with the loader, HP507)"
            );
            f.settle(&note);
            if f.rule == "HP001" {
                let names = without.entry(f.path.clone()).or_default();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    // The loader's finding says which of its entries have no HIP equivalent: those calls need
    // another way, not a new symbol name.
    for f in findings.iter_mut() {
        if f.rule != LOADED_BY_NAME.id.code || loaders.get(&f.path) != Some(&f.line) {
            continue;
        }
        if let Some(names) = without.get(&f.path) {
            let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
            let more = names.len().saturating_sub(4);
            f.message.push_str(&format!(
                "; {} of the names it resolves ha{} no HIP equivalent ({}{}): those calls need another way",
                names.len(),
                if names.len() == 1 { "s" } else { "ve" },
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::syntax::test_support::{fires, hazard_findings};

    /// libgpuarray's loaders: one finding per library per file, naming the other lines.
    #[test]
    fn cuda_libraries_loaded_by_name() {
        let src = "#ifdef _WIN32\nstatic char libname[] = \"nvcuda.dll\";\n#else\nstatic char libname[] = \"libcuda.so\";\n#endif\nint load(void) {\n  void *h = ga_load_library(\"libnvrtc.so\", 0);\n  snprintf(n, 64, \"cublas64_%d%d.dll\", 12, 0);\n  return h != 0;\n}\n";
        assert_eq!(fires(src, "HP507"), [4, 7, 8]);
        let fs = hazard_findings(src);
        let m = &fs.iter().find(|f| f.rule == "HP507").unwrap().message;
        assert!(m.contains("also named on line 2"), "{m}");
        assert!(m.contains("libamdhip64.so") && m.contains("`hip*`"), "{m}");
        let nccl = hazard_findings("void* h = dlopen(\"libnccl.so.2\", 1);\n");
        let f = nccl.iter().find(|f| f.rule == "HP507").unwrap();
        assert!(
            f.message.contains("the same `nccl*` names"),
            "{}",
            f.message
        );
        assert_eq!(f.suggestion.as_deref(), Some("load `librccl.so` instead"));
    }

    /// fluids3's `PERF_INIT`: NVTX loaded by name loses profiler ranges, not the GPU path
    /// (PERFORMANCE). Twin: the driver's load keeps the start-up failure (INIT).
    #[test]
    fn a_loaded_nvtx_loses_markers_not_the_program() {
        let fs = hazard_findings("void f() { LoadLibrary(TEXT(\"nvToolsExt32_1.dll\")); }\n");
        let f = fs.iter().find(|f| f.rule == "HP507").unwrap();
        assert_eq!(f.phase, crate::gate::Phase::Performance);
        assert!(f.message.contains("profiler ranges"), "{}", f.message);
        let fs = hazard_findings("void f() { LoadLibrary(TEXT(\"nvcuda.dll\")); }\n");
        let f = fs.iter().find(|f| f.rule == "HP507").unwrap();
        assert_eq!(f.phase, crate::gate::Phase::Init);
        assert!(f.message.contains("fails at start-up"), "{}", f.message);
    }

    /// nvidia-texture-tools' `driverapi.cpp`: the names its loader resolves by string are the
    /// loader's table (PASS naming it). Twins: a name it does not resolve, and the same name in
    /// a file that loads nothing, stay open.
    #[test]
    fn names_a_loader_resolves_go_with_the_loader() {
        let loader = "#include <cuda.h>\nstruct D {\n  D() {\n    Library nvcuda(\"nvcuda.dll\");\n    cuCtxAttach = (cuCtxAttachPtr) nvcuda.bindSymbol(\"cuCtxAttach\");\n  }\n  cuCtxAttachPtr cuCtxAttach;\n};\nCUdevprop p;\n";
        let plain = "#include <cuda.h>\nvoid f(CUcontext* c) { cuCtxAttach(c, 0); }\n";
        let opts = crate::translate::Options::for_tests("6.2", false);
        let mut fs: Vec<Finding> = Vec::new();
        for (path, src) in [("t/driverapi.cpp", loader), ("plain.cpp", plain)] {
            fs.extend(crate::model::syntax::test_support::hazard_findings_at(
                path, src,
            ));
            let t = crate::translate::translate_bytes(
                path,
                src.as_bytes(),
                crate::mappings::get(),
                &opts,
            );
            fs.extend(t.findings);
        }
        let read = |r: &str| match r {
            "t/driverapi.cpp" => Some(loader.as_bytes().to_vec()),
            "plain.cpp" => Some(plain.as_bytes().to_vec()),
            _ => None,
        };
        fold_into_loaders(&mut fs, &read);
        let open: Vec<(&str, u32, &str)> = fs
            .iter()
            .filter(|f| f.status != Status::Pass && f.rule == "HP001")
            .map(|f| (f.path.as_str(), f.line, f.excerpt.as_str()))
            .collect();
        assert_eq!(
            open,
            [
                ("t/driverapi.cpp", 9, "CUdevprop"),
                ("plain.cpp", 2, "cuCtxAttach")
            ],
            "{fs:#?}"
        );
        assert!(fs.iter().any(|f| f.line == 5
            && f.rule == "HP001"
            && f.message.contains("the loader at line 4")));
        let loader = fs.iter().find(|f| f.rule == "HP507").unwrap();
        assert!(
            loader
                .message
                .contains("1 of the names it resolves has no HIP equivalent (`cuCtxAttach`)"),
            "{}",
            loader.message
        );
    }

    /// Twins: names that are not a loader's (an include, a message, OpenCL's library, an
    /// archive), and an AMD library, which is PASS.
    #[test]
    fn other_strings_are_not_loaded_cuda_libraries() {
        let src = "#include \"libcuda.so\"\nconst char* a = \"libcuda.so is missing\";\nconst char* b = \"libOpenCL.so\";\nconst char* c = \"libcudart_static.a\";\nconst char* d = \"libdrm_amdgpu.so.1\";\n";
        let fs = hazard_findings(src);
        let all: Vec<_> = fs.iter().filter(|f| f.rule == "HP507").collect();
        assert_eq!(all.len(), 1);
        assert_eq!((all[0].line, all[0].status), (5, Status::Pass));
    }

    /// nvtop: NVML loaded in its NVIDIA file, libdrm_amdgpu in its AMD file: one backend of
    /// several. Without the AMD loader the NVML one stays open.
    #[test]
    fn a_cuda_loader_beside_an_amd_loader_is_a_backend() {
        let nv = hazard_findings("void* h = dlopen(\"libnvidia-ml.so.1\", 1);\n");
        let amd = hazard_findings("void* h = dlopen(\"libdrm_amdgpu.so.1\", 1);\n");
        let mut alone: Vec<Finding> = nv.iter().filter(|f| f.rule == "HP507").cloned().collect();
        pass_beside_amd_loaders(&mut alone);
        assert_eq!(alone[0].status, Status::Remediation);
        let mut both = alone.clone();
        both.extend(amd.into_iter().filter(|f| f.rule == "HP507"));
        pass_beside_amd_loaders(&mut both);
        assert!(both.iter().all(|f| f.status == Status::Pass));
        assert!(
            both[0].message.contains("NVIDIA backend"),
            "{}",
            both[0].message
        );
    }
}
