//! Facts that are one change per file. A floating-point atomic on fine-grained memory (HP708)
//! is decided by the file's allocations and the build's `-munsafe-fp-atomics`, not per call
//! (darknet's `blas_kernels.cu`: eight calls, one decision); a shell script's CUDA toolkit paths
//! (HP852 in `.sh`) are one edit of that script, which installs or locates the toolkit
//! (darknet's `setup.sh`: eight lines); a project's texture references (HP704) move to texture
//! objects together, with the code that binds and fetches them (ccminer's groestl: nine; gpusph:
//! eleven files). HIP names the target ROCm removed (HP016) in one file
//! are one update of the project's ROCm layer (ctransformers' `#define CUDA_R_16F
//! HIPBLAS_R_16F` block: four lines, each with its replacement, which the head lists). A file's
//! macros that paste a CUDA prefix (HP018, cusplibrary's `cublas##name##axpy` stubs: 21) are one
//! edit of that file, and so are a Dockerfile's or a script's NVIDIA architecture flags (HP843)
//! and a file's NVIDIA container images (HP860: one matrix of CI containers, one multi-stage
//! Dockerfile). A file's CUDA wheel indexes and wheel pages (HP822, HP864) are one edit of its
//! install steps. A file's `CUdeviceptr` arithmetic (HP505) and its legacy driver-API launch
//! sequences (HP506) are one rewrite of that file. One kernel launched with 32-thread blocks at
//! several places of a file (HP107, one launch per template instance) is one choice for that
//! kernel.
//! The file's open findings of the rule fold into the
//! first, which names the lines; the rest stay in JSON as PASS naming it.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// The rule and file an open finding's decision is kept by, when its rule is decided per file.
fn key(f: &Finding) -> Option<String> {
    // Names one `--compat-header` shim covers (CV-CUDA's `umin`, `ullmin`, `llmin`… in one
    // header; `__vmins2`, `__vmaxu4`… in another): one rerun with the shim.
    // The rerun is one for the project: HierarchicalKV's `__vcmpeq4` in twelve kernel headers
    // is one shim (`simd_video`), not twelve decisions. A vendored copy's uses stay its file's.
    if let Some(shim) = shim_of(f) {
        if super::kind::own(&f.path) {
            return Some(format!("{}\u{0}\u{0}{shim}", f.rule));
        }
        return Some(format!("{}\u{0}{}\u{0}{shim}", f.rule, f.path));
    }
    if let Some(key) = project_key(f) {
        return super::kind::own(&f.path).then_some(key);
    }
    let per_file = match f.rule.as_str() {
        // The ROCm layer's removed names are one update wherever they are (hoomd-blue's
        // `__HIP_PLATFORM_HCC__` arms in 27 files).
        "HP016" => return super::kind::own(&f.path).then(|| f.rule.clone()),
        // Texture references are one move to texture objects for the project: the kernels that
        // fetch them and the host code that binds them are often in different files (gpusph:
        // eleven files, one choice of texture objects or plain loads).
        "HP704" => return super::kind::own(&f.path).then(|| f.rule.clone()),
        // TVM's `cuda` devices and targets are one choice of the project's device and target
        // (mlc-llm: one `Target("cuda")` in its ops, `tvm.cuda(0)` in five test files).
        "HP804" => return super::kind::own(&f.path).then(|| f.rule.clone()),
        "HP708" | "HP008" | "HP018" | "HP913" => true,
        // One kernel launched with 32-thread blocks at several places of a file (VMamba's
        // `selective_scan_fwd_launch<…>`, one launch per template instance): one choice for
        // that kernel's warp-level work.
        "HP107" => {
            let kernel = f.message.strip_prefix('`')?.split('`').next()?;
            return Some(format!("HP107\u{0}{}\u{0}{kernel}", f.path));
        }
        // A file's `CUdeviceptr` arithmetic (HP505) is one choice of how it offsets device
        // pointers once they are `void*` (ShearCuda's `cudalib.cpp`: 18 sums of one kind), and
        // its legacy launch sequences (HP506) are one rewrite to `hipModuleLaunchKernel`.
        "HP505" | "HP506" => true,
        // A file's CUDA wheel indexes and other projects' wheel pages of CUDA builds are one
        // edit of its install steps (torch-quiver's Dockerfile: torch-scatter and torch-sparse
        // from one `+cu102` page of PyG, two commands).
        "HP822" | "HP864" => true,
        // A file's NVIDIA images are one choice of base images (ucx's Azure Pipelines
        // `main.yml`: 33 `nvidia/cuda` and CUDA-named containers of one matrix).
        "HP860" => true,
        "HP852" => {
            let ext = f.path.rsplit_once('.').map_or("", |(_, e)| e);
            matches!(ext, "sh" | "bash")
        }
        // A Dockerfile's or script's architecture flags are one list (MS-AMP's Dockerfiles:
        // three `-gencode` lines of one `NVCC_GENCODE` for the MSCCL build); a Makefile's and a
        // CMake build's are their build's decision.
        "HP843" => matches!(
            crate::inventory::kind::by_name(&f.path),
            Some(
                crate::inventory::kind::FileKind::Dockerfile
                    | crate::inventory::kind::FileKind::Shell
            )
        ),
        _ => false,
    };
    per_file.then(|| format!("{}\u{0}{}", f.rule, f.path))
}

/// Facts that are one decision for the whole project whatever the file: a macro the target's HIP
/// headers need before they declare a name (HP007: `-DOCML_BASIC_ROUNDED_OPERATIONS` for
/// pbrt-v4's `__fadd_ru`… in `float.h` and `interval.h`) is one compile flag of the build, and
/// directed-rounding arithmetic no ROCm device library implements (HP001 on `__fdiv_ru`,
/// `__fsqrt_rd`…) is one rewrite of the project's interval arithmetic, not one per call.
fn project_key(f: &Finding) -> Option<String> {
    match f.rule.as_str() {
        "HP007" => Some(format!("HP007\u{0}\u{0}{}", define_of(f)?)),
        "HP001" if f.message.contains("(directed-rounding device API)") => {
            Some("HP001\u{0}\u{0}rounding".to_string())
        }
        _ => None,
    }
}

/// The flag an HP007 finding asks for.
fn define_of(f: &Finding) -> Option<&str> {
    (f.rule == "HP007")
        .then(|| f.message.split("only when `").nth(1)?.split('`').next())
        .flatten()
}

/// The `--compat-header` shim an HP001 finding's suggestion names.
fn shim_of(f: &Finding) -> Option<&str> {
    if f.rule != "HP001" {
        return None;
    }
    let rest = f
        .suggestion
        .as_deref()?
        .strip_prefix(crate::compat::SHIM_HINT)?;
    rest.split('`').next()
}

/// What one project's directed-rounding calls with no ROCm implementation are.
const ROUNDING: &str = "the project's directed-rounding arithmetic that the target's ROCm device libraries do not implement is one rewrite (divisions, square roots and reciprocals in every release; sums, products and fmas before 5.5); where they bound an interval, compute the round-to-nearest result and step it one ulp outward (`nextafter`)";

fn what(rule: &str) -> &'static str {
    match rule {
        "HP016" => "the HIP names the target ROCm removed are one update of the project's ROCm layer",
        "HP008" => "the file's operators that HIP's vector types define with another meaning are one rename (functions the code calls where it means them)",
        "HP704" => "the project's texture references are one move to texture objects (`cudaTextureObject_t` created where the references are bound, passed to the kernels that fetch them)",
        "HP018" => "the file's macros that paste a CUDA prefix are one edit: paste the HIP prefix (`hip ## …`, `hipblas ## …`) in each",
        "HP913" => "the file's device code strings with inline PTX are one rewrite: give them a ROCm version in plain C++ or AMDGCN builtins, chosen when the target is ROCm",
        "HP843" => "the file's NVIDIA architecture flags are one list: give the ROCm build its `--offload-arch=gfx…` targets instead",
        "HP860" => "the file's NVIDIA container images are one choice: give its ROCm lanes or stages ROCm images (`rocm/dev-ubuntu-…`, `rocm/pytorch`)",
        "HP708" => "the file's floating-point atomics on fine-grained memory are one decision: coarse-grained allocations, or a build without `-munsafe-fp-atomics`",
        "HP107" => "the file's launches of this kernel with 32-thread blocks are one choice for its warp-level work: keep 32-lane logical warps inside the kernel (width-32 shuffles, the half-wavefront's masks) or launch it with 64-thread blocks",
        "HP804" => "the project's TVM devices and targets are one choice: take `tvm.rocm(0)` / `Target(\"rocm\")` from the platform once and use it everywhere",
        "HP852" => "the script's CUDA toolkit paths are one edit: point it at ROCm (`/opt/rocm`) or skip the CUDA setup on ROCm machines",
        "HP822" | "HP864" => "the file's CUDA wheel indexes and wheel pages are one edit of its install steps: take torch from the ROCm index and build the extension packages from source against it",
        _ => "these findings are one edit",
    }
}

pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            // Each removed name has its own replacement: the head keeps them with the lines.
            let lines: Vec<String> = g
                .folded
                .iter()
                .map(|f| match (&f.suggestion, g.head.rule.as_str()) {
                    (Some(s), "HP016") => format!("{} ({s})", f.line),
                    _ => f.line.to_string(),
                })
                .collect();
            let whose = if g.files() > 1 { "project" } else { "file" };
            let what = match (shim_of(g.head), define_of(g.head)) {
                (Some(shim), _) => format!("the {whose}'s names the `{shim}` shim of `--compat-header` covers are one decision: rerun `hipport port --compat-header`, or replace the calls"),
                (None, Some(define)) => format!("the {whose}'s HIP names declared only under `{define}` are one flag of the build: add `-D{define}` to its HIP compile flags once"),
                (None, None) if g.head.rule == "HP001" && project_key(g.head).is_some() => ROUNDING.to_string(),
                (None, None) => what(&g.head.rule).to_string(),
            };
            if g.files() > 1 {
                return format!(
                    " — {what} ({} more in {} files, first at {}; folded here)",
                    g.folded.len(),
                    g.files(),
                    g.first_places(4)
                );
            }
            format!(
                " — {} ({} more in this file, line{} {}, folded here)",
                what,
                g.folded.len(),
                if g.folded.len() == 1 { "" } else { "s" },
                lines.join(", ")
            )
        }),
        note: Box::new(|g| match shim_of(g.head) {
            None if define_of(g.head).is_some() => {
                super::kind::folded_into(g, "one compile flag of the build")
            }
            None if g.head.rule == "HP001" && project_key(g.head).is_some() => {
                super::kind::folded_into(g, ROUNDING)
            }
            Some(shim) => super::kind::folded_into(
                g,
                &format!(
                    "the {}'s names the `{shim}` shim covers are one rerun with `--compat-header`",
                    if g.files() > 1 { "project" } else { "file" }
                ),
            ),
            None => super::kind::folded_into(g, what(&g.head.rule)),
        }),
    }
}

/// One line of a build file or script is one edit: `nvcc … -lcuda -gencode=…` on line 1 of
/// BitNet's `compile.sh` gives HP850 (nvcc), HP851 (a CUDA library) and HP843 (an architecture
/// flag); FoundationPose's `docker run --gpus all --env NVIDIA_DISABLE_REQUIRE=1` gives HP862 and
/// HP861; CV-CUDA's `print_env.sh` line `which nvcc && nvcc --version` HP850 and HP812. The line's
/// open build, script, container and toolkit-version findings (HP84x–HP86x, HP812) fold into its first, which
/// names the rules; a C/C++ line keeps its findings apart (different facts can share one
/// there), and so does a Python line's container findings; its build and toolkit findings come
/// from one command it runs.
pub fn same_line(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            // Build (HP84x), toolkit (HP85x) and container (HP86x) settings.
            // A version probe of the toolkit (HP812, `which nvcc && nvcc --version`) too.
            let build = f.rule.starts_with("HP84")
                || f.rule.starts_with("HP85")
                || f.rule.starts_with("HP86")
                || f.rule == "HP812";
            let ext = f.path.rsplit_once('.').map_or("", |(_, e)| e);
            // A Python line's build findings come from one command it runs (clean-pvnet's
            // `os.system('nvcc … -arch=sm_52 …')`): one edit too.
            let source = matches!(ext, "cu" | "cuh" | "c" | "cc" | "cpp" | "cxx" | "h" | "hpp")
                || (ext == "py" && f.rule.starts_with("HP86"));
            (build && !source && super::kind::own(&f.path))
                .then(|| format!("{}\u{0}{}", f.path, f.line))
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one edit of this line: {} more finding{} on it folded here ({})",
                g.folded.len(),
                if g.folded.len() == 1 { "" } else { "s" },
                g.by_rule()
            )
        }),
        note: Box::new(|g| super::kind::folded_into(g, "one edit of the same line")),
    }
}

/// A Python build file's CUDA toolkit read (HP852: `CUDA_HOME` where nothing guards it) and its
/// `nvcc -V` probe (HP812) are one fact: the probe runs the toolkit `CUDA_HOME` names
/// (SpargeAttn, EETQ, flute: `subprocess.check_output([CUDA_HOME + "/bin/nvcc", "-V"])`), and the
/// file's ROCm arm skips both or neither. The read folds into the probe.
pub fn toolkit_probe(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (matches!(f.rule.as_str(), "HP812" | "HP852")
                && f.path.ends_with(".py")
                && super::kind::own(&f.path))
            .then(|| f.path.clone())
        }),
        head: |m| Some(m.iter().position(|f| f.rule == "HP812").unwrap_or(0)),
        folds: |h, f| h.rule == "HP812" && f.rule == "HP852",
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let lines: Vec<String> = g.folded.iter().map(|f| f.line.to_string()).collect();
            format!(
                " — one fact with the file's CUDA toolkit read{} (line{} {}, folded here): on ROCm, skip the probe or ask hipcc/`torch.version.hip`",
                if g.folded.len() == 1 { "" } else { "s" },
                if g.folded.len() == 1 { "" } else { "s" },
                lines.join(", ")
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the CUDA toolkit read feeds the file's nvcc probe")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Status;

    fn f(rule: &str, path: &str, line: u32) -> Finding {
        Finding {
            status: Status::Remediation,
            message: "m".into(),
            ..Finding::bare(rule, path, line)
        }
    }

    /// darknet: eight FP atomics in one file and eight toolkit paths in `setup.sh` are one
    /// finding each, and so are MS-AMP's architecture flags in one Dockerfile. Twins: a toolkit
    /// path or an architecture flag in a Makefile is the build's (folded elsewhere, not here),
    /// and a lone atomic in another file stays its own. ucx's CI matrix of NVIDIA containers
    /// is one choice of images per file (twin: another file's image stays its own).
    #[test]
    fn per_file_facts_fold_into_the_first() {
        let mut fs = vec![
            f("HP708", "src/blas_kernels.cu", 1070),
            f("HP708", "src/blas_kernels.cu", 1075),
            f("HP708", "src/other.cu", 3),
            f("HP852", "scripts/setup.sh", 65),
            f("HP852", "scripts/setup.sh", 69),
            f("HP852", "Makefile", 133),
            f("HP852", "Makefile", 136),
            f("HP843", "dockerfile/torch2.1-cuda12.2.dockerfile", 47),
            f("HP843", "dockerfile/torch2.1-cuda12.2.dockerfile", 48),
            f("HP843", "Makefile", 20),
            f("HP843", "Makefile", 21),
            f("HP860", "buildlib/pr/main.yml", 129),
            f("HP860", "buildlib/pr/main.yml", 132),
            f("HP860", "docker/release.Dockerfile", 3),
            f("HP505", "src/cudalib.cpp", 111),
            f("HP505", "src/cudalib.cpp", 1499),
            f("HP505", "src/GPUop.cpp", 12),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<String> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| format!("{}:{}", x.path, x.line))
            .collect();
        assert_eq!(
            open,
            [
                "src/blas_kernels.cu:1070",
                "src/other.cu:3",
                "scripts/setup.sh:65",
                "Makefile:133",
                "Makefile:136",
                "dockerfile/torch2.1-cuda12.2.dockerfile:47",
                "Makefile:20",
                "Makefile:21",
                "buildlib/pr/main.yml:129",
                "docker/release.Dockerfile:3",
                "src/cudalib.cpp:111",
                "src/GPUop.cpp:12"
            ]
        );
        assert!(
            fs[0].message.contains("1 more in this file, line 1075"),
            "{}",
            fs[0].message
        );
        assert_eq!(
            fs[4].folded_into.as_ref().unwrap().at,
            "scripts/setup.sh:65"
        );
    }

    /// VMamba: one kernel launched with 32-thread blocks once per template instance is one
    /// choice. Twins: another kernel of the file, the same kernel in another file.
    #[test]
    fn one_kernels_half_wavefront_launches_are_one_choice() {
        let launch = |path: &str, line: u32, kernel: &str| {
            Finding {
            status: Status::Unknown,
            message: format!("`{kernel}<…>` with 32 threads per block (`kNThreads`): one warp on NVIDIA, half a 64-lane wavefront on AMD"),
            ..Finding::bare("HP107", path, line)
        }
        };
        let mut fs = vec![
            launch("cus/bwd.cuh", 296, "bwd_launch"),
            launch("cus/bwd.cuh", 298, "bwd_launch"),
            launch("cus/bwd.cuh", 300, "bwd_launch"),
            launch("cus/bwd.cuh", 310, "other_launch"),
            launch("cus/fwd.cuh", 193, "bwd_launch"),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<u32> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| x.line)
            .collect();
        assert_eq!(open, [296, 310, 193]);
        assert!(
            fs[0].message.contains("64-thread blocks"),
            "{}",
            fs[0].message
        );
    }

    /// ccminer's groestl: the project's texture references are one move to texture objects,
    /// across files (the head names where). Twin: a vendored file's stays its own.
    /// The findings `port` gives two files of interval arithmetic at a target.
    fn rounding(rocm: &str) -> Vec<Finding> {
        let opts = crate::translate::Options::for_tests(rocm, false);
        let files = [
            (
                "src/util/float.h",
                "__device__ inline float AddUp(float a, float b) { return __fadd_ru(a, b); }\n\
                 __device__ inline float MulDown(float a, float b) { return __fmul_rd(a, b); }\n\
                 __device__ inline float DivUp(float a, float b) { return __fdiv_ru(a, b); }\n\
                 __device__ inline double SqrtDown(double a) { return __dsqrt_rd(a); }\n",
            ),
            (
                "src/util/interval.h",
                "__device__ inline float SubUp(float a, float b) { return __fsub_ru(a, b); }\n\
                 __device__ inline float DivDown(float a, float b) { return __fdiv_rd(a, b); }\n",
            ),
        ];
        files
            .iter()
            .flat_map(|(path, src)| {
                crate::translate::translate_bytes(
                    path,
                    src.as_bytes(),
                    crate::mappings::get(),
                    &opts,
                )
                .findings
            })
            .filter(|f| matches!(f.rule.as_str(), "HP001" | "HP007"))
            .collect()
    }

    /// pbrt-v4's interval arithmetic: directed-rounding sums and products need one compile
    /// flag for the whole project from ROCm 5.5 (HIP declares them only under
    /// `OCML_BASIC_ROUNDED_OPERATIONS`), and the divisions and square roots no ROCm device
    /// library implements are one rewrite, in every file. Twin: before 5.5 the sums and
    /// products are that rewrite too, and another unported name stays its own finding.
    #[test]
    fn directed_rounding_is_one_flag_and_one_rewrite_for_the_project() {
        let mut fs = rounding("6.2");
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<String> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| format!("{} {}:{}", x.rule, x.path, x.line))
            .collect();
        assert_eq!(
            open,
            ["HP007 src/util/float.h:1", "HP001 src/util/float.h:3"],
            "{fs:#?}"
        );
        let flag = fs
            .iter()
            .find(|x| x.rule == "HP007" && x.status != Status::Pass)
            .unwrap();
        assert!(
            flag.message.contains("`-DOCML_BASIC_ROUNDED_OPERATIONS`")
                && flag.message.contains("1 more in 2 files"),
            "{}",
            flag.message
        );
        let rewrite = fs
            .iter()
            .find(|x| x.rule == "HP001" && x.status != Status::Pass)
            .unwrap();
        assert!(
            rewrite.message.contains("directed-rounding device API")
                && rewrite.message.contains("2 more in 2 files"),
            "{}",
            rewrite.message
        );

        let mut fs = rounding("5.2");
        assert!(fs.iter().all(|x| x.rule == "HP001"), "{fs:#?}");
        assert_eq!(fs.len(), 6);
        fs.push(Finding {
            message: "`cudaGraphicsMapFlagsWriteDiscard` has no HIP equivalent (runtime API)"
                .into(),
            ..f("HP001", "src/gpu/cudagl.h", 374)
        });
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<String> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| format!("{}:{}", x.path, x.line))
            .collect();
        assert_eq!(open, ["src/util/float.h:1", "src/gpu/cudagl.h:374"]);
    }

    #[test]
    fn texture_references_of_one_project_are_one_move() {
        let mut fs = vec![
            f("HP704", "heavy/cuda_groestl512.cu", 20),
            f("HP704", "heavy/cuda_groestl512.cu", 21),
            f("HP704", "heavy/cuda_groestl512.cu", 22),
            f("HP704", "Algo256/cuda_fugue256.cu", 18),
            f("HP008", "cuda_helper.h", 489),
            f("HP008", "cuda_helper.h", 494),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<u32> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| x.line)
            .collect();
        assert_eq!(open, [20, 489]);
        assert!(
            fs[0].message.contains("texture objects")
                && fs[0].message.contains("Algo256/cuda_fugue256.cu:18"),
            "{}",
            fs[0].message
        );
        let mut fs = vec![
            f("HP704", "src/tex.cu", 20),
            f("HP704", "third_party/cub/tex.cu", 21),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert!(fs.iter().all(|x| x.status != Status::Pass), "{fs:?}");
    }

    /// A file's removed HIP names fold into the first, which keeps each line's replacement.
    /// Across files they are still one update of the project's ROCm layer (hoomd-blue's
    /// `__HIP_PLATFORM_HCC__` in 21 files), the head naming where.
    #[test]
    fn removed_hip_names_of_one_file_keep_their_replacements_in_the_head() {
        let g = |path: &str, line: u32, w: &str| Finding {
            suggestion: Some(format!("write `{w}`")),
            ..f("HP016", path, line)
        };
        let mut fs = vec![
            g("ggml-cuda.cu", 17, "HIPBLAS_COMPUTE_32F"),
            g("ggml-cuda.cu", 24, "HIP_R_16F"),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert!(
            fs[0].message.contains("line 24 (write `HIP_R_16F`)"),
            "{}",
            fs[0].message
        );
        assert_eq!(fs[1].status, Status::Pass);
        let mut fs = vec![
            g("ggml-cuda.cu", 17, "HIPBLAS_COMPUTE_32F"),
            g("ggml-cuda.cu", 24, "HIP_R_16F"),
            g("other.h", 3, "HIP_R_32F"),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert!(
            fs[0]
                .message
                .contains("(2 more in 2 files, first at `ggml-cuda.cu:17`, `other.h:3`"),
            "{}",
            fs[0].message
        );
        assert!(fs[1..].iter().all(|x| x.status == Status::Pass));
    }

    /// BitNet's `compile.sh`: three build findings on one nvcc line are one edit. Twins: the
    /// same rules on another line, and two findings on one line of a `.cu` file, stay apart.
    #[test]
    fn one_line_of_a_build_script_is_one_edit() {
        let mut fs = vec![
            f("HP850", "gpu/compile.sh", 1),
            f("HP851", "gpu/compile.sh", 1),
            f("HP843", "gpu/compile.sh", 1),
            f("HP843", "gpu/compile.sh", 2),
            f("HP852", "k.cu", 3),
            f("HP850", "k.cu", 3),
            // CV-CUDA's `which nvcc && nvcc --version`: the probe and the version read.
            f("HP850", "print_env.sh", 55),
            f("HP812", "print_env.sh", 55),
        ];
        let k = same_line(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<(&str, u32)> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.as_str(), x.line))
            .collect();
        assert_eq!(
            open,
            [
                ("gpu/compile.sh", 1),
                ("gpu/compile.sh", 2),
                ("k.cu", 3),
                ("k.cu", 3),
                ("print_env.sh", 55)
            ]
        );
        assert!(
            fs[0].message.contains("2 more findings on it"),
            "{}",
            fs[0].message
        );
    }

    /// CV-CUDA's `MathWrappersImpl.hpp`: `umin`, `ullmin`, `llmin`… that the `int_minmax` shim of
    /// `--compat-header` covers are one decision, and so are the same shim's names in the
    /// project's other files (HierarchicalKV's `__vcmpeq4` in twelve kernel headers: one rerun
    /// with the shim). Twins: a name no shim covers, another shim's names, and a vendored
    /// copy's uses stay their own.
    #[test]
    fn names_one_shim_covers_are_one_decision_per_project() {
        let shim = |path: &str, line: u32, id: &str| Finding {
            suggestion: Some(format!("{}{id}`)", crate::compat::SHIM_HINT)),
            ..f("HP001", path, line)
        };
        let mut fs = vec![
            shim("MathWrappersImpl.hpp", 282, "int_minmax"),
            shim("MathWrappersImpl.hpp", 286, "int_minmax"),
            shim("MathWrappersImpl.hpp", 290, "int_minmax"),
            f("HP001", "MathWrappersImpl.hpp", 300),
            shim("Other.hpp", 7, "int_minmax"),
            shim("Other.hpp", 9, "simd_video"),
            shim("third_party/lib/x.hpp", 3, "int_minmax"),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            crate::decisions::test_support::open(&fs),
            [
                ("MathWrappersImpl.hpp", 282),
                ("MathWrappersImpl.hpp", 300),
                ("Other.hpp", 9),
                ("third_party/lib/x.hpp", 3)
            ]
        );
        assert!(
            fs[0]
                .message
                .contains("the project's names the `int_minmax` shim"),
            "{}",
            fs[0].message
        );
        assert!(
            fs[0].message.contains("3 more in 2 files"),
            "{}",
            fs[0].message
        );
    }

    /// clean-pvnet's `os.system('nvcc … -arch=sm_52 …')` in a `setup.py`: the nvcc run and its
    /// architecture flag are one edit of the command. Twin: a C++ line keeps its findings apart.
    #[test]
    fn one_python_command_line_is_one_edit() {
        let mut fs = vec![
            f("HP850", "lib/nn/setup.py", 4),
            f("HP843", "lib/nn/setup.py", 4),
            f("HP850", "lib/nn/build.cpp", 4),
            f("HP843", "lib/nn/build.cpp", 4),
        ];
        let k = same_line(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            crate::decisions::test_support::open(&fs),
            [
                ("lib/nn/setup.py", 4),
                ("lib/nn/build.cpp", 4),
                ("lib/nn/build.cpp", 4)
            ]
        );
    }

    /// FoundationPose's `docker run --gpus all --env NVIDIA_DISABLE_REQUIRE=1`: two container
    /// findings on one script line are one edit.
    #[test]
    fn one_docker_run_line_is_one_edit() {
        let mut fs = vec![
            f("HP862", "docker/run_container.sh", 3),
            f("HP861", "docker/run_container.sh", 3),
        ];
        let k = same_line(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            crate::decisions::test_support::open(&fs),
            [("docker/run_container.sh", 3)]
        );
    }

    /// SpargeAttn's `setup.py`: the `CUDA_HOME` read folds into the `nvcc -V` probe of the same
    /// file, wherever it is. Twins: a read in a file with no probe, and a probe in a shell script
    /// (not Python), stay their own.
    #[test]
    fn a_python_toolkit_read_folds_into_the_files_nvcc_probe() {
        let mut fs = vec![
            f("HP852", "setup.py", 135),
            f("HP812", "setup.py", 81),
            f("HP852", "tools/build.py", 4),
            f("HP812", "build.sh", 3),
            f("HP852", "build.sh", 5),
        ];
        let k = toolkit_probe(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<String> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| format!("{}:{}", x.path, x.line))
            .collect();
        assert_eq!(
            open,
            [
                "setup.py:81",
                "tools/build.py:4",
                "build.sh:3",
                "build.sh:5"
            ]
        );
        assert!(
            fs[1].message.contains("line 135, folded here"),
            "{}",
            fs[1].message
        );
        assert_eq!(fs[0].folded_into.as_ref().unwrap().at, "setup.py:81");
    }
}
