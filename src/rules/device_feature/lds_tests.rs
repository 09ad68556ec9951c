//! HP712: constant shared-memory sizes against the target's LDS.

use crate::finding::Finding;
use crate::gate::{Phase, Status};
use crate::model::project::Visible;

fn run_at(src: &str, archs: &[&str], seen: &Visible) -> Vec<Finding> {
    let bytes = src.as_bytes();
    let lines = crate::source::LineIndex::new(bytes);
    let ctx = crate::rules::FileCtx {
        path: "k.cu",
        src: bytes,
        lines: &lines,
    };
    let tree = crate::parse::parse(bytes);
    let lexed = crate::lex::lex(bytes);
    let archs: Vec<String> = archs.iter().map(|a| a.to_string()).collect();
    let target = crate::mappings::Target {
        rocm: "6.4.0".parse().unwrap(),
        roc: false,
        experimental: false,
        lds: crate::mappings::lds::for_archs(&archs),
    };
    crate::rules::hazards::check_lexed(
        &ctx,
        &lexed,
        tree.as_ref(),
        &target,
        seen,
        &mut Vec::new(),
        &mut Vec::new(),
    )
    .into_iter()
    .filter(|f| f.rule == "HP712")
    .collect()
}

fn run(src: &str, arch: &str) -> Vec<Finding> {
    run_at(src, &[arch], &Visible::default())
}

const NAMED: &str = "const int SHARED_MEM = 96 * 1024;\n\
__global__ void k(int4 *p) { extern __shared__ int4 sh[]; sh[0] = p[0]; }\n\
void go(int4 *p, cudaStream_t st) {\n\
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED_MEM);\n\
  k<<<1, 256, SHARED_MEM, st>>>(p);\n\
}\n";

#[test]
fn a_named_96_kib_opt_in_exceeds_gfx942_once_with_its_launch() {
    let fs = run(NAMED, "gfx942");
    assert_eq!(fs.len(), 1, "{fs:#?}");
    let f = &fs[0];
    assert_eq!(
        (f.line, f.status, f.phase),
        (4, Status::Remediation, Phase::Runtime)
    );
    for part in [
        "96 KiB",
        "98304 bytes",
        "gfx942",
        "64 KiB",
        "`SHARED_MEM`, defined at line 1",
    ] {
        assert!(f.message.contains(part), "{part}: {}", f.message);
    }
}

#[test]
fn the_same_96_kib_fits_gfx950_and_48_kib_fits_gfx942() {
    assert!(run(NAMED, "gfx950").is_empty());
    let small = NAMED.replace("96 * 1024", "48 * 1024");
    assert!(run(&small, "gfx942").is_empty());
}

#[test]
fn a_size_that_is_not_constant_or_another_attribute_is_no_finding() {
    let runtime = NAMED.replace(
        "const int SHARED_MEM = 96 * 1024;",
        "int SHARED_MEM = pick();",
    );
    assert!(run(&runtime, "gfx942").is_empty());
    let other = "void go() { cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 100 * 1024); }\n";
    assert!(run(other, "gfx942").is_empty());
}

#[test]
fn a_call_in_a_macro_body_with_template_commas_and_the_hip_spelling_count() {
    let src = "#define SMEM (128 * 1024)\n\
#define CALL(A, B) \\\n\
  hipFuncSetAttribute( \\\n\
    K<A, B>, \\\n\
    hipFuncAttributeMaxDynamicSharedMemorySize, SMEM);\n";
    let fs = run(src, "gfx90a");
    assert_eq!(fs.iter().map(|f| f.line).collect::<Vec<_>>(), [3]);
    assert!(fs[0].message.contains("128 KiB"), "{}", fs[0].message);
}

#[test]
fn a_launch_alone_is_a_finding_with_sizeof_and_the_default_arch() {
    let src = "#define TILE 128\n__global__ void k(float*);\nvoid go(float *p) { k<<<1, 256, 2 * TILE * TILE * sizeof(float)>>>(p); }\n";
    let fs = run_at(src, &[], &Visible::default());
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert!(fs[0].message.contains("128 KiB"), "{}", fs[0].message);
    assert!(fs[0].message.contains("gfx90a"), "{}", fs[0].message);
    assert!(
        fs[0].message.contains("default target"),
        "{}",
        fs[0].message
    );
    let fits = src.replace("2 * TILE", "TILE");
    assert!(run_at(&fits, &[], &Visible::default()).is_empty());
    // A type whose size is not fixed leaves the size unknown.
    let unknown = src.replace("sizeof(float)", "sizeof(Foo)");
    assert!(run(&unknown, "gfx942").is_empty());
}

#[test]
fn a_constant_of_an_included_header_resolves_and_a_redefinition_does_not() {
    let src = "#include \"cfg.h\"\nvoid go() { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES); }\n";
    let mut seen = Visible::default();
    seen.constants
        .insert("SMEM_BYTES".into(), (100 * 1024, "cfg.h:2".into()));
    let fs = run_at(src, &["gfx1100"], &seen);
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert!(fs[0].message.contains("cfg.h:2"), "{}", fs[0].message);
    assert!(run_at(src, &["gfx1100"], &Visible::default()).is_empty());
    let twice = "#if A\n#define S (96*1024)\n#else\n#define S (32*1024)\n#endif\nvoid go() { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S); }\n";
    assert!(run(twice, "gfx942").is_empty(), "two values: unknown");
}

#[test]
fn static_shared_arrays_of_one_kernel_add_up() {
    let src = "#define N 128\n__global__ void k(float *p) {\n  __shared__ float a[N][N];\n  __shared__ __align__(16) float b[N][N];\n  p[0] = a[0][0] + b[0][0];\n}\n";
    let fs = run(src, "gfx942");
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert_eq!((fs[0].line, fs[0].phase), (3, Phase::Build));
    assert!(fs[0].message.contains("128 KiB"), "{}", fs[0].message);
    assert!(run(src, "gfx950").is_empty(), "128 KiB fits in 160 KiB");
    let one = "#define N 128\n__global__ void k(float *p) {\n  __shared__ float a[N][N];\n  p[0] = a[0][0];\n}\n__global__ void j(float *p) {\n  __shared__ float b[N][N];\n  p[0] = b[0][0];\n}\n";
    assert!(run(one, "gfx942").is_empty(), "64 KiB per kernel fits");
    let templ = "template <typename T> __global__ void k(T *p) { __shared__ T a[256][256]; p[0] = a[0][0]; }\n";
    assert!(run(templ, "gfx942").is_empty(), "element size unknown");
}
