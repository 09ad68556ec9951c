//! Visual Studio projects (`.vcxproj`) that build CUDA: NVIDIA's CUDA build customization
//! (`<Import Project="…\BuildCustomizations\CUDA 11.1.props" />` with `<CudaCompile>` items,
//! darknet's `darknet.vcxproj`), or `<CustomBuild>` steps whose command runs `nvcc.exe`
//! (rchoetzlein/fluids3's `fluids_v3.vcxproj`, its only build). One finding per project file,
//! at the first line that shows it, naming the units it compiles, the NVIDIA architectures and
//! the CUDA libraries it links. Whether the project has another build the ROCm port uses is a
//! project-level question ([`settle`]).

use super::build;
use super::Out;
use crate::finding::Finding;
use crate::gate::Status;

/// What one `.vcxproj` says about its CUDA build.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CudaBuild {
    /// Byte range of the first line that shows the CUDA build.
    pub at: (usize, usize),
    /// The build customization's CUDA version (`11.1`), when it imports one.
    pub customization: Option<String>,
    /// `.cu` units compiled by `<CudaCompile>` items or by `nvcc` custom steps.
    pub units: Vec<String>,
    /// Units compiled by custom steps that run `nvcc` (a subset of `units`).
    pub custom_steps: usize,
    /// `sm_XX` / `compute_XX` architectures the file names, in order, once each.
    pub arches: Vec<String>,
    /// CUDA libraries in `<AdditionalDependencies>` (`cudart.lib`, `cublas.lib`, `cutil32.lib`).
    pub libraries: Vec<String>,
}

/// The value of attribute `name` in the tag starting at `tag` (`Include="a.cu"` → `a.cu`).
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let end = tag.find('>').unwrap_or(tag.len());
    let tag = &tag[..end];
    let at = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let len = tag[at..].find('"')?;
    Some(&tag[at..at + len])
}

fn push_once(v: &mut Vec<String>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

/// Each element that starts with `open` (a tag's start) up to its `close` tag (or the end of
/// the text): where it starts and its text.
fn elements<'t>(text: &'t str, open: &str, close: &str) -> Vec<(usize, &'t str)> {
    text.match_indices(open)
        .map(|(at, _)| {
            let end = text[at..].find(close).map_or(text.len(), |e| at + e);
            (at, &text[at..end])
        })
        .collect()
}

/// Reads a `.vcxproj`'s CUDA build; `None` when it builds no CUDA.
pub fn cuda_build(text: &str) -> Option<CudaBuild> {
    let mut b = CudaBuild::default();
    let mut first: Option<usize> = None;
    let mut mark = |at: usize| {
        if first.is_none_or(|f| at < f) {
            first = Some(at);
        }
    };
    // The build customization NVIDIA's CUDA installer adds to Visual Studio.
    if let Some(p) = text.find("BuildCustomizations\\CUDA ") {
        let rest = &text[p + "BuildCustomizations\\CUDA ".len()..];
        let v: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let v = v.trim_end_matches('.');
        if !v.is_empty() {
            b.customization = Some(v.to_string());
        }
        mark(p);
    }
    for (at, _) in text.match_indices("<CudaCompile Include=") {
        if let Some(u) = attribute(&text[at..], "Include") {
            push_once(&mut b.units, u);
        }
        mark(at);
    }
    // `<CustomBuild Include="x.cu">` … `<Command …>"…\nvcc.exe" …</Command>` … `</CustomBuild>`.
    for (at, body) in elements(text, "<CustomBuild Include=", "</CustomBuild>") {
        let runs_nvcc = body
            .match_indices("<Command")
            .any(|(c, _)| body[c..].split("</Command>").next().is_some_and(nvcc));
        if runs_nvcc {
            if let Some(u) = attribute(body, "Include") {
                push_once(&mut b.units, u);
            }
            b.custom_steps += 1;
            mark(at);
        }
    }
    let found = first?;
    let line_start = text[..found].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[found..].find('\n').map_or(text.len(), |n| found + n);
    b.at = (
        line_start
            + (text[line_start..line_end].len() - text[line_start..line_end].trim_start().len()),
        line_end - (text[line_start..line_end].len() - text[line_start..line_end].trim_end().len()),
    );
    for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        let lower = w.to_ascii_lowercase();
        if let Some(n) = lower
            .strip_prefix("sm_")
            .or_else(|| lower.strip_prefix("compute_"))
        {
            if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) {
                push_once(&mut b.arches, &format!("sm_{n}"));
            }
        }
    }
    for (_, element) in elements(text, "<AdditionalDependencies", "</AdditionalDependencies>") {
        let body = element.split_once('>').map_or("", |(_, b)| b);
        for lib in body.split(';').map(str::trim) {
            let lower = lib.to_ascii_lowercase();
            let stem = lower.strip_suffix(".lib").unwrap_or(&lower);
            let cuda = [
                "cuda",
                "cudart",
                "cutil",
                "nvrtc",
                "nvtoolsext",
                "nccl",
                "nvml",
            ]
            .iter()
            .any(|p| stem.starts_with(p))
                || [
                    "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn", "npp",
                ]
                .iter()
                .any(|p| stem.starts_with(p));
            if cuda && lower.ends_with(".lib") {
                push_once(&mut b.libraries, lib);
            }
        }
    }
    Some(b)
}

/// A custom step's command runs nvcc (`"$(CUDA_BIN_PATH)\nvcc.exe" …`, `nvcc -c …`).
fn nvcc(cmd: &str) -> bool {
    cmd.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\\' | '/' | '>' | ';'))
        .any(|w| w.eq_ignore_ascii_case("nvcc") || w.eq_ignore_ascii_case("nvcc.exe"))
}

/// One finding per `.vcxproj` that builds CUDA.
pub fn scan(out: &mut Out) {
    let text = String::from_utf8_lossy(out.src()).into_owned();
    let Some(b) = cuda_build(&text) else { return };
    let how = match (&b.customization, b.custom_steps) {
        (Some(v), 0) => format!("NVIDIA's CUDA {v} build customization"),
        (Some(v), n) => format!(
            "NVIDIA's CUDA {v} build customization and {n} custom step{} running `nvcc`",
            if n == 1 { "" } else { "s" }
        ),
        (None, 0) => "`<CudaCompile>` items (NVIDIA's CUDA build customization)".to_string(),
        (None, n) => format!(
            "{n} custom step{} running `nvcc`",
            if n == 1 { "" } else { "s" }
        ),
    };
    let units = match b.units.len() {
        0 => String::new(),
        n => {
            let shown: Vec<String> = b.units.iter().take(3).map(|u| format!("`{u}`")).collect();
            let more = if n > 3 {
                format!(" and {} more", n - 3)
            } else {
                String::new()
            };
            format!(
                " compiles {n} CUDA unit{} ({}{more})",
                if n == 1 { "" } else { "s" },
                shown.join(", ")
            )
        }
    };
    let mut extra: Vec<String> = Vec::new();
    if !b.arches.is_empty() {
        extra.push(format!("for {}", b.arches.join(", ")));
    }
    if !b.libraries.is_empty() {
        extra.push(format!("links {}", b.libraries.join(", ")));
    }
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!("; {}", extra.join("; "))
    };
    out.push(
        &build::MSBUILD_CUDA,
        b.at.0..b.at.1,
        format!("a Visual Studio project{units} with {how}{extra}: nvcc and NVIDIA's Visual Studio integration do not exist on a ROCm machine"),
        Some("build these units with hipcc: a CMake build with `LANGUAGES HIP` (or a Makefile) on Linux; on Windows, the HIP SDK's Visual Studio toolset in place of the CUDA build customization".into()),
    );
}

/// `rel`'s directory (`""` at the root).
fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// A unit path as a `.vcxproj` writes it (`..\..\src\k.cu`), relative to the project root.
fn resolve(vcxproj: &str, unit: &str) -> String {
    let mut parts: Vec<&str> = dir_of(vcxproj)
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    for p in unit.split(['\\', '/']) {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// `dir` is `of` or one of its ancestors.
fn ancestor(dir: &str, of: &str) -> bool {
    dir.is_empty() || of == dir || of.starts_with(&format!("{dir}/"))
}

/// Settles the `.vcxproj` findings once the project's other findings are known. Where another
/// build system of the project (CMake, Makefiles, setup.py, Bazel) builds CUDA in the Visual
/// Studio project's folder, an ancestor of it or of its units (`src/CMakeLists.txt` for
/// `project/vc2017/nvtt.vcxproj`'s `..\..\src\nvtt\k.cu`) or naming one of its `.cu` units
/// (SPTAG's `GPUSupport/CMakeLists.txt` globs `AnnService/src/Core/Common/Kernel.cu`), the
/// Visual Studio project is its
/// Windows twin and the ROCm build on Linux is that build's port (PASS, naming it); a build of
/// another folder (a book's other chapter) does not count. The Visual Studio projects that are
/// the only build of their units are one decision, held by the first. `read` gives a file's text.
pub fn settle(findings: &mut [Finding], read: &dyn Fn(&str) -> Option<Vec<u8>>) {
    let rule = build::MSBUILD_CUDA.id.code;
    let others: std::collections::BTreeSet<String> = findings
        .iter()
        .filter(|f| {
            f.rule != rule
                && build::RULES.iter().any(|r| r.id.code == f.rule)
                && !f.path.ends_with(".vcxproj")
                && super::kind::is_build(&f.path)
        })
        .map(|f| f.path.clone())
        .collect();
    // Each open finding's twin build, and whether its project compiles CUDA units at all.
    let mut twins: Vec<(usize, Option<String>, bool)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if f.rule != rule || f.status == Status::Pass {
            continue;
        }
        let mut dirs = vec![dir_of(&f.path).to_string()];
        let mut cu_names: Vec<String> = Vec::new();
        let b = read(&f.path).and_then(|t| cuda_build(&String::from_utf8_lossy(&t)));
        let units = b.as_ref().is_some_and(|b| !b.units.is_empty());
        for u in b.iter().flat_map(|b| &b.units) {
            let at = resolve(&f.path, u);
            if at.to_ascii_lowercase().ends_with(".cu") {
                cu_names.push(at.rsplit('/').next().unwrap_or(&at).to_string());
            }
            dirs.push(dir_of(&at).to_string());
        }
        let names_a_unit = |o: &str| {
            !cu_names.is_empty()
                && read(o).is_some_and(|t| {
                    let t = String::from_utf8_lossy(&t);
                    cu_names.iter().any(|n| t.contains(n.as_str()))
                })
        };
        let twin = others
            .iter()
            .filter(|o| dirs.iter().any(|d| ancestor(dir_of(o), d)))
            .max_by_key(|o| (dir_of(o).len(), std::cmp::Reverse(o.len())))
            .or_else(|| others.iter().find(|o| names_a_unit(o)))
            .cloned();
        twins.push((i, twin, units));
    }
    // A project that only links the CUDA runtime (SPTAG's `GPUSSDServing.vcxproj`: the build
    // customization, no CUDA unit) goes with the twin of a sibling project in its folder.
    let sibling_twin = |i: usize| -> Option<String> {
        let dir = dir_of(&findings[i].path);
        twins
            .iter()
            .find(|(j, t, _)| t.is_some() && dir_of(&findings[*j].path) == dir)
            .and_then(|(_, t, _)| t.clone())
    };
    let settled: Vec<(usize, Option<String>)> = twins
        .iter()
        .map(|(i, t, units)| {
            let t = t
                .clone()
                .or_else(|| (!units).then(|| sibling_twin(*i)).flatten());
            (*i, t)
        })
        .collect();
    let mut head: Option<String> = None;
    for (i, twin) in settled {
        let f = &mut findings[i];
        if let Some(o) = twin {
            f.settle(&format!(
                " (the project's Windows build: `{o}` builds the same CUDA for other platforms, and the ROCm build on Linux is its port)"
            ));
        } else if let Some(h) = &head {
            f.settle(&format!(
                " (folded into `{h}`: the project's Visual Studio builds are one decision)"
            ));
        } else {
            head = Some(format!("{}:{}", f.path, f.line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::{kind::FileKind, scan_bytes};

    const FLUIDS: &str = r#"<Project>
  <ItemDefinitionGroup>
    <Link>
      <AdditionalDependencies>tinyXML_2010.lib;opengl32.lib;cudart.lib;cutil32.lib;%(AdditionalDependencies)</AdditionalDependencies>
    </Link>
  </ItemDefinitionGroup>
  <ItemGroup>
    <None Include="fluids\radixsort.cu" />
    <CustomBuild Include="fluids\fluid_system_host.cu">
      <Command Condition="'$(Configuration)'=='Debug'">"$(CUDA_BIN_PATH)\nvcc.exe" -G -arch=sm_13 -c -o x.obj fluids\fluid_system_host.cu</Command>
    </CustomBuild>
    <CustomBuild Include="fluids\fluid_system_kern.cu">
      <Command>"$(CUDA_BIN_PATH)\nvcc.exe" -arch=sm_20 -c fluids\fluid_system_kern.cu</Command>
    </CustomBuild>
    <CustomBuild Include="shaders\copy.hlsl">
      <Command>fxc.exe /T ps_5_0 shaders\copy.hlsl</Command>
    </CustomBuild>
  </ItemGroup>
</Project>
"#;

    /// fluids3's only build: custom steps running `nvcc.exe`, NVIDIA architectures and CUDA
    /// libraries. Twins: a custom step running another tool and a `<None>` item are not units.
    #[test]
    fn custom_nvcc_steps_are_a_cuda_build() {
        let b = cuda_build(FLUIDS).unwrap();
        assert_eq!(
            b.units,
            [
                "fluids\\fluid_system_host.cu",
                "fluids\\fluid_system_kern.cu"
            ]
        );
        assert_eq!(b.custom_steps, 2);
        assert_eq!(b.arches, ["sm_13", "sm_20"]);
        assert_eq!(b.libraries, ["cudart.lib", "cutil32.lib"]);
        let f = scan_bytes("fluids_v3.vcxproj", FileKind::MsBuild, FLUIDS.as_bytes());
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!((f[0].rule.as_str(), f[0].line), ("HP854", 9));
        assert!(
            f[0].message.contains("2 custom steps running `nvcc`"),
            "{}",
            f[0].message
        );
    }

    /// darknet's shape: the CUDA build customization with `<CudaCompile>` items. Twin: a
    /// project with neither (darknet's `yolo_console_dll.vcxproj`) has no finding.
    #[test]
    fn the_cuda_build_customization_is_a_cuda_build() {
        let darknet = "<Project>\n  <ImportGroup Label=\"ExtensionSettings\">\n    <Import Project=\"$(VCTargetsPath)\\BuildCustomizations\\CUDA 11.1.props\" />\n  </ImportGroup>\n  <ItemGroup>\n    <CudaCompile Include=\"..\\..\\src\\blas_kernels.cu\" />\n    <CudaCompile Include=\"..\\..\\src\\col2im_kernels.cu\" />\n    <ClCompile Include=\"..\\..\\src\\main.c\" />\n  </ItemGroup>\n</Project>\n";
        let b = cuda_build(darknet).unwrap();
        assert_eq!(b.customization.as_deref(), Some("11.1"));
        assert_eq!(b.units.len(), 2);
        let f = scan_bytes(
            "build/darknet.vcxproj",
            FileKind::MsBuild,
            darknet.as_bytes(),
        );
        assert_eq!(f[0].line, 3);
        assert!(
            f[0].message.contains("CUDA 11.1 build customization"),
            "{}",
            f[0].message
        );
        let plain = "<Project>\n  <ItemGroup>\n    <ClCompile Include=\"main.cpp\" />\n  </ItemGroup>\n</Project>\n";
        assert!(cuda_build(plain).is_none());
        assert!(scan_bytes("a.vcxproj", FileKind::MsBuild, plain.as_bytes()).is_empty());
    }

    /// Beside a CMake build of the same CUDA (in an ancestor of the units' folder), a Visual
    /// Studio project is the Windows build: PASS naming it. Alone, the Visual Studio projects
    /// are one decision held by the first; a build of another folder (a book's other chapter)
    /// does not make them a twin.
    #[test]
    fn another_build_makes_the_visual_studio_project_the_windows_build() {
        let vs = |p: &str| Finding {
            status: Status::Remediation,
            ..Finding::bare("HP854", p, 3)
        };
        let cmake = |p: &str| Finding {
            status: Status::Remediation,
            ..Finding::bare("HP840", p, 4)
        };
        let proj = b"<Project>\n<ItemGroup>\n<CudaCompile Include=\"..\\..\\src\\nvtt\\k.cu\" />\n</ItemGroup>\n</Project>\n".to_vec();
        let read = |r: &str| (r == "project/vc/nvtt.vcxproj").then(|| proj.clone());
        let mut globbed = vec![
            vs("AnnService/Gpu.vcxproj"),
            cmake("GPUSupport/CMakeLists.txt"),
        ];
        let gpu = b"<CudaCompile Include=\"src\\Kernel.cu\" />\n".to_vec();
        let cm = b"file(GLOB SRC ${AnnService}/src/Kernel.cu)\n".to_vec();
        let read2 = |r: &str| match r {
            "AnnService/Gpu.vcxproj" => Some(gpu.clone()),
            "GPUSupport/CMakeLists.txt" => Some(cm.clone()),
            _ => None,
        };
        globbed.push(vs("AnnService/Serving.vcxproj"));
        settle(&mut globbed, &read2);
        assert_eq!(globbed[0].status, Status::Pass);
        // Links the runtime, compiles no CUDA unit: the sibling's twin.
        assert_eq!(globbed[2].status, Status::Pass, "{}", globbed[2].message);
        let mut alone = vec![vs("a.vcxproj"), vs("b/b.vcxproj"), cmake("ch1/Makefile")];
        settle(&mut alone, &read);
        assert_eq!(alone[0].status, Status::Remediation);
        assert_eq!(alone[1].status, Status::Pass);
        assert!(alone[1].message.contains("folded into `a.vcxproj:3`"));
        let mut beside = vec![vs("project/vc/nvtt.vcxproj"), cmake("src/CMakeLists.txt")];
        settle(&mut beside, &read);
        assert_eq!(beside[0].status, Status::Pass);
        assert!(beside[0]
            .message
            .contains("`src/CMakeLists.txt` builds the same CUDA"));
        assert_eq!(
            resolve("project/vc/nvtt.vcxproj", "..\\..\\src\\nvtt\\k.cu"),
            "src/nvtt/k.cu"
        );
    }
}
