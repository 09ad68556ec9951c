use super::*;
use crate::gate::Status;

const KNOWN: &[&str] = &[
    "mulhi",
    "cudaMalloc",
    "cudaStreamCreate",
    "cublasGetStatusName",
];

fn swept(src: &str) -> FileOwn {
    let l = crate::lex::lex(src.as_bytes());
    sweep(
        src.as_bytes(),
        &l,
        &|n| KNOWN.contains(&n),
        &|n| matches!(n, "cub" | "cuda" | "thrust"),
        &|p| p.starts_with("cuda"),
    )
}

fn defs(f: &FileOwn) -> Vec<(&str, u32, &str, bool, bool)> {
    f.defs
        .iter()
        .map(|d| (d.name.as_str(), d.line, d.scope.as_str(), d.member, d.body))
        .collect()
}

#[test]
fn declarations_in_project_scopes_are_found_with_their_scope() {
    let src = "#include <cuda_runtime.h>\n\
        namespace ct { namespace cuda {\n\
        const char* cublasGetStatusName(cublasStatus_t s);\n\
        } }\n\
        template <typename T> struct fast_int {\n\
          __host__ __device__ constexpr T mulhi(T a, T b) const noexcept { return cudaMalloc(a, b); }\n\
        };\n\
        template <typename T> T fast_int<T>::mulhi(T a, T b) const { return 0; }\n\
        namespace cub { void cudaMalloc(int); }\n\
        cudaError_t cudaMalloc(void** p, size_t n);\n\
        static cudaError_t cudaStreamCreate(cudaStream_t* s) { return ::cudaStreamCreate(s); }\n\
        int x = cudaMalloc(0, 0);\n";
    let f = swept(src);
    assert!(f.cuda_headers);
    assert_eq!(
        defs(&f),
        [
            ("cublasGetStatusName", 3, "ct::cuda", false, false),
            ("mulhi", 6, "fast_int", true, true),
            ("mulhi", 8, "fast_int", true, true),
            // File scope with a body: the project's only where no CUDA header could provide it.
            ("cudaStreamCreate", 11, "", false, true),
        ],
        "a call in a body, a CUDA namespace, a file-scope re-declaration and an initializer are no definitions"
    );
}

fn port(src: &str) -> (String, Vec<crate::finding::Finding>) {
    let opts = crate::translate::Options::for_tests("6.2", false);
    let t =
        crate::translate::translate_bytes("k.cu", src.as_bytes(), crate::mappings::get(), &opts);
    assert_eq!(t.conflicts, 0);
    let out = String::from_utf8(t.output).unwrap();
    let again =
        crate::translate::translate_bytes("k.cu", out.as_bytes(), crate::mappings::get(), &opts);
    assert_eq!(String::from_utf8(again.output).unwrap(), out, "idempotent");
    (out, t.findings)
}

fn unported(fs: &[crate::finding::Finding]) -> Vec<(u32, String)> {
    fs.iter()
        .filter(|f| f.rule == "HP001" && f.status != Status::Pass)
        .map(|f| (f.line, f.message.clone()))
        .collect()
}

/// `x.mulhi(a, b)` on the project's type is its member (cuCollections' `fast_int`); a bare
/// `mulhi(a, b)` outside the class and CUDA's `__umulhi` are CUDA's as before.
#[test]
fn a_member_named_like_a_device_function_is_the_projects() {
    let src = "struct fast_int {\n\
          __device__ unsigned mulhi(unsigned a, unsigned b) const { return __umulhi(a, b); }\n\
          __device__ unsigned div(unsigned a) const { return mulhi(a, a); }\n\
        };\n\
        __device__ unsigned use(const fast_int& f, const fast_int* g) { return f.mulhi(1, 2) + g->mulhi(3, 4); }\n\
        __device__ unsigned bare(unsigned a) { return mulhi(a, a) + __umulhi(a, a); }\n";
    let (out, fs) = port(src);
    let hp001 = unported(&fs);
    assert_eq!(hp001.len(), 1, "{hp001:?}");
    assert_eq!(
        hp001[0].0, 6,
        "only the bare call outside the class: {hp001:?}"
    );
    assert!(
        out.contains("unsigned mulhi(unsigned a, unsigned b) const"),
        "{out}"
    );
    assert!(out.contains("f.mulhi(1, 2) + g->mulhi(3, 4)"), "{out}");
}

/// Without a project member, `x.mulhi(…)` is still never CUDA's free device function (a member
/// call cannot be one); the free call is, and the CUDA table's verdict stands for it.
#[test]
fn a_member_access_without_a_project_member_is_left_to_the_tables() {
    let (_, fs) = port("__device__ unsigned use(Other f) { return f.mulhi(1, 2); }\n");
    assert!(unported(&fs).is_empty(), "{fs:?}");
    let (_, fs) = port("__device__ unsigned use(Other f) { return mulhi(1, 2); }\n");
    assert_eq!(unported(&fs).len(), 1, "{fs:?}");
}

/// `mylib::cudaMalloc` is the project's wrapper; the plain and the globally qualified calls are
/// CUDA's and translated; a method named `cudaStreamCreate` is kept at its declaration and at
/// every member call, while the CUDA call in its body is translated.
#[test]
fn project_wrappers_and_methods_keep_their_names() {
    let src = "#include <cuda_runtime.h>\n\
        namespace mylib {\n\
        inline cudaError_t cudaMalloc(void** p, size_t n) { return ::cudaMalloc(p, n); }\n\
        }\n\
        class Streams {\n\
         public:\n\
          cudaError_t cudaStreamCreate(cudaStream_t* s) { return ::cudaStreamCreate(s); }\n\
        };\n\
        void k(Streams& st, cudaStream_t* s) {\n\
          void* p;\n\
          mylib::cudaMalloc(&p, 4);\n\
          cudaMalloc(&p, 4);\n\
          st.cudaStreamCreate(s);\n\
          cudaStreamCreate(s);\n\
        }\n";
    let (out, fs) = port(src);
    assert!(unported(&fs).is_empty(), "{fs:?}");
    for kept in [
        "inline hipError_t cudaMalloc(void** p, size_t n) { return ::hipMalloc(p, n); }",
        "hipError_t cudaStreamCreate(hipStream_t* s) { return ::hipStreamCreate(s); }",
        "mylib::cudaMalloc(&p, 4);\nhipMalloc(&p, 4);",
        "st.cudaStreamCreate(s);\nhipStreamCreate(s);",
    ] {
        assert!(out.contains(kept), "{kept}\n{out}");
    }
}

/// CTranslate2's form: a helper named like a cuBLAS function, declared in the project's
/// namespace and called qualified (also from a macro body) or unqualified inside the namespace.
/// The same name declared at file scope is CUDA's declaration and stays reported.
#[test]
fn a_helper_in_the_projects_namespace_is_not_an_unported_api() {
    let src = "#include <cublas_v2.h>\n\
        #define CHECK(s) ctranslate2::cuda::cublasGetStatusName(s)\n\
        namespace ctranslate2 {\n\
        namespace cuda {\n\
        const char* cublasGetStatusName(cublasStatus_t status);\n\
        void f(cublasStatus_t s) { cublasGetStatusName(s); ctranslate2::cuda::cublasGetStatusName(s); }\n\
        }\n\
        }\n";
    let (out, fs) = port(src);
    assert!(unported(&fs).is_empty(), "{fs:?}");
    assert_eq!(out.matches("cublasGetStatusName").count(), 4, "{out}");
    let (_, fs) = port(
        "#include <cublas_v2.h>\nconst char* cublasGetStatusName(cublasStatus_t status);\nvoid f(cublasStatus_t s) { cublasGetStatusName(s); }\n",
    );
    assert_eq!(unported(&fs).len(), 2, "{fs:?}");
}

/// `unit` at `path` translated at ROCm 6.2, seeing what `seen` holds of the project.
fn translate_seen(
    path: &str,
    unit: &str,
    seen: &crate::model::project::Visible,
) -> crate::translate::Translation {
    let lines = crate::source::LineIndex::new(unit.as_bytes());
    let ctx = crate::registry::FileCtx {
        path,
        src: unit.as_bytes(),
        lines: &lines,
    };
    let lexed = crate::lex::lex(unit.as_bytes());
    let opts = crate::translate::Options::for_tests("6.2", false);
    crate::translate::translate_seeing(
        &ctx,
        &lexed,
        crate::mappings::get(),
        &opts,
        None,
        seen,
        None,
    )
}

/// Across files: a header declares the project's functions; the unit that includes it keeps
/// the member and namespaced calls, and still translates the CUDA call of the same name.
#[test]
fn definitions_reach_the_units_that_include_them() {
    use crate::model::project::{facts, Project};
    let header = "#pragma once\n#include <cuda_runtime.h>\nnamespace mylib {\ncudaError_t cudaMalloc(void** p, size_t n);\nstruct F { __device__ unsigned mulhi(unsigned a, unsigned b) const; };\n}\n";
    let unit = "#include \"mylib/alloc.h\"\nvoid k(mylib::F f) { void* p; mylib::cudaMalloc(&p, 4); cudaMalloc(&p, 4); f.mulhi(1, 2); }\n";
    let lexed = crate::lex::lex(header.as_bytes());
    let p = Project::from_facts(
        vec![(
            "include/mylib/alloc.h".into(),
            facts("include/mylib/alloc.h", header.as_bytes(), &lexed),
        )],
        ["include/mylib/alloc.h", "src/k.cu"].into_iter(),
    );
    let seen = p.visible_from("src/k.cu", &["mylib/alloc.h".to_string()]);
    assert_eq!(seen.own["cudaMalloc"][0].at, "include/mylib/alloc.h:4");
    assert!(seen.cuda_headers);
    let run = |v: &crate::model::project::Visible| {
        let t = translate_seen("src/k.cu", unit, v);
        (String::from_utf8(t.output).unwrap(), t.findings)
    };
    let (out, fs) = run(&seen);
    assert!(
        out.contains("mylib::cudaMalloc(&p, 4); hipMalloc(&p, 4); f.mulhi(1, 2);"),
        "{out}"
    );
    assert!(unported(&fs).is_empty(), "{fs:?}");
    // Negative twin: without the header's facts the namespaced call is taken for CUDA's.
    let (out, _) = run(&crate::model::project::NOTHING);
    assert!(out.contains("mylib::hipMalloc(&p, 4)"), "{out}");
    // A unit whose include the model cannot resolve still sees the project's members: a CUDA
    // API is never a member, and the header keeps the member's name.
    let unresolved = p.visible_from("src/k.cu", &[]);
    assert!(unresolved.own.is_empty());
    let (_, fs) = run(&unresolved);
    assert!(unported(&fs).is_empty(), "{fs:?}");
}

/// nvidia-texture-tools' `nvmath.h` defines `nv::saturate`; host `.cpp` files that include it
/// (and no CUDA header) call it unqualified after `using namespace nv`: the project's, no
/// HP001. Twin: the same unit beside `<cuda_runtime.h>` may reach CUDA's device `saturate`.
#[test]
fn a_namespaced_helper_reaches_host_units_without_cuda_headers() {
    use crate::model::project::{facts, Project};
    let header = "#pragma once\nnamespace nv {\n    inline float saturate(float f) { return f < 0 ? 0 : (f > 1 ? 1 : f); }\n}\n";
    let lexed = crate::lex::lex(header.as_bytes());
    let p = Project::from_facts(
        vec![(
            "src/nvmath/nvmath.h".into(),
            facts("src/nvmath/nvmath.h", header.as_bytes(), &lexed),
        )],
        ["src/nvmath/nvmath.h", "src/nvtt/Block.cpp"].into_iter(),
    );
    let run = |unit: &str| {
        let seen = p.visible_from("src/nvtt/Block.cpp", &["nvmath/nvmath.h".to_string()]);
        let t = translate_seen("src/nvtt/Block.cpp", unit, &seen);
        unported(&t.findings)
    };
    let unit = "#include \"nvmath/nvmath.h\"\nusing namespace nv;\nfloat w(float a) { return saturate(a); }\n";
    assert!(run(unit).is_empty(), "{:?}", run(unit));
    let beside = format!("#include <cuda_runtime.h>\n{unit}");
    assert_eq!(run(&beside).len(), 1, "{:?}", run(&beside));
}

/// A free function the project defines at file scope under a name the port leaves as it is
/// (cuda-samples' `static uint umin(uint, uint)` in a host `.cpp`) is its own where no CUDA
/// header is included: no HP001. Beside `<cuda_runtime.h>` the name is CUDA's. A name the port
/// renames is renamed at the definition and every use alike (other units, which cannot see a
/// `.c` file's definition, rename theirs), as before.
#[test]
fn a_file_scope_definition_counts_only_without_cuda_headers_and_renames() {
    let opts = crate::translate::Options::for_tests("6.2", false);
    let run = |path: &str, src: &str| {
        let t =
            crate::translate::translate_bytes(path, src.as_bytes(), crate::mappings::get(), &opts);
        (
            String::from_utf8(t.output).unwrap(),
            unported(&t.findings).len(),
        )
    };
    let host = "static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }\nunsigned f(unsigned x) { return umin(x, 3u); }\n";
    assert_eq!(run("sort.cpp", host).1, 0);
    assert_eq!(
        run("sort.cpp", &format!("#include <cuda_runtime.h>\n{host}")).1,
        2
    );
    assert_eq!(run("sort.cu", host).1, 2);
    let loader =
        "CUresult cuInit(unsigned int Flags, int v) { return 0; }\nvoid k() { cuInit(0, 1); }\n";
    let (out, _) = run("dynlink.c", loader);
    assert_eq!(out.matches("hipInit(").count(), 2, "{out}");
}

/// A definition in a branch HIP never compiles (flashinfer's `make_bfloat162` for CUDA < 12.2
/// on pre-sm_80) is not what a HIP build calls: its uses stay CUDA's. The same definition
/// compiled by both builds is the project's.
#[test]
fn a_definition_hip_never_compiles_is_not_the_projects() {
    let def = "namespace fi {\n__device__ __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { __nv_bfloat162 t; return t; }\n}\n";
    let uses = "namespace fi {\n__device__ void fill(__nv_bfloat162* d, __nv_bfloat16 v) { *d = make_bfloat162(v, v); }\n}\n";
    let guarded =
        format!("#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 800)\n{def}#endif\n{uses}");
    let l = crate::lex::lex(guarded.as_bytes());
    let own = sweep_with("v.cuh", guarded.as_bytes(), &l, crate::mappings::get());
    assert!(own.defs.is_empty(), "{:?}", own.defs);
    let open = format!("{def}{uses}");
    let l = crate::lex::lex(open.as_bytes());
    let own = sweep_with("v.cuh", open.as_bytes(), &l, crate::mappings::get());
    assert_eq!(own.defs.len(), 1, "{:?}", own.defs);
    let (_, fs) = port(&open);
    assert!(unported(&fs).iter().all(|(line, _)| *line != 5), "{fs:?}");
    let (_, fs) = port(&guarded);
    assert!(unported(&fs).iter().any(|(line, _)| *line == 7), "{fs:?}");
}

/// gdrcopy's `cuda_wrapper.h`: a C library that declares the driver API it loads with `dlopen`
/// instead of including `cuda.h`. Its enumerators, enum tags, `typedef` names and object
/// macros are the project's definitions; a porting alias (`#define cuX hipX`) is not one.
#[test]
fn enumerators_typedefs_and_macros_the_project_declares_are_its_own() {
    let src = "typedef enum CUdevice_attribute_enum {\n  CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124,\n  CU_DEVICE_ATTRIBUTE_MAX = 0x7FFFFFFF\n} CUdevice_attribute;\ntypedef unsigned long long CUdeviceptr;\n#define CU_GET_PROC_ADDRESS_DEFAULT 0\n#define cuMemAlloc hipMalloc\nint f(void) { int x = CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED; return x; }\n";
    let l = crate::lex::lex(src.as_bytes());
    let known = [
        "CUdevice_attribute_enum",
        "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED",
        "CU_DEVICE_ATTRIBUTE_MAX",
        "CUdevice_attribute",
        "CUdeviceptr",
        "CU_GET_PROC_ADDRESS_DEFAULT",
        "cuMemAlloc",
    ];
    let f = sweep(
        src.as_bytes(),
        &l,
        &|n| known.contains(&n),
        &|_| false,
        &|p| p.starts_with("cuda"),
    );
    let names: Vec<(&str, u32)> = f.defs.iter().map(|d| (d.name.as_str(), d.line)).collect();
    assert_eq!(
        names,
        [
            ("CUdevice_attribute_enum", 1),
            ("CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED", 2),
            ("CU_DEVICE_ATTRIBUTE_MAX", 3),
            ("CUdevice_attribute", 4),
            ("CUdeviceptr", 5),
            ("CU_GET_PROC_ADDRESS_DEFAULT", 6),
        ]
    );
}

/// In a C unit with no CUDA header, a use of such a name is the project's: no HP001. Twin: the
/// same unit including `cuda.h` reaches CUDA's names, which HIP lacks (HP001 stays).
#[test]
fn a_unit_without_cuda_headers_uses_the_projects_own_driver_names() {
    let shim = "#define CU_GET_PROC_ADDRESS_DEFAULT 0\ntypedef enum CUdevice_attribute_enum {\n  CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124\n} CUdevice_attribute;\nint f(void) { return CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED + CU_GET_PROC_ADDRESS_DEFAULT; }\n";
    let opts = crate::translate::Options::for_tests("6.2", false);
    let hp001 = |src: &str| -> usize {
        crate::translate::translate_bytes("shim.c", src.as_bytes(), crate::mappings::get(), &opts)
            .findings
            .iter()
            .filter(|f| f.rule == "HP001" && f.status != Status::Pass)
            .count()
    };
    assert_eq!(hp001(shim), 0);
    let with_cuda = format!("#include <cuda.h>\n{shim}");
    assert!(hp001(&with_cuda) > 0);
}
