//! Tests of [`super`]: unbuilt folders and files on real projects' shapes.
use super::*;

fn tree(files: &[(&str, &str)]) -> Vec<String> {
    let rels: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let read = |p: &str| {
        files
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, t)| t.as_bytes().to_vec())
    };
    roots(&rels, &read, &|d: &str| d.starts_with("third_party"))
}

/// faiss' shape: `gpu/perf/` holds benchmarks no CMake file names.
#[test]
fn a_folder_no_build_file_names_is_unbuilt() {
    let r = tree(&[
        ("CMakeLists.txt", "add_subdirectory(faiss)\n"),
        ("faiss/CMakeLists.txt", "add_subdirectory(gpu)\n"),
        (
            "faiss/gpu/CMakeLists.txt",
            "set(SRCS GpuIndex.cu impl/Distance.cu)\n",
        ),
        ("faiss/gpu/GpuIndex.cu", ""),
        ("faiss/gpu/impl/Distance.cu", ""),
        ("faiss/gpu/perf/PerfFlat.cu", ""),
        ("faiss/gpu/perf/PerfIVFPQ.cu", ""),
        ("faiss/gpu/perf/deep/X.cu", ""),
        ("third_party/lib/a.cu", ""),
    ]);
    assert_eq!(r, ["faiss/gpu/perf"]);
}

/// gadgetron's `radial/CMakeLists.txt`: the GUI folder's `add_subdirectory` is commented
/// out, so its CMake part (no `project()`) is reached by nothing; twin: the same line live
/// reaches it, and a `#` in a quoted string starts no comment.
#[test]
fn a_folder_named_only_in_a_comment_is_unbuilt() {
    let files = |parent: &'static str| {
        vec![
            ("CMakeLists.txt", "project(g)\nadd_subdirectory(radial)\n"),
            ("radial/CMakeLists.txt", parent),
            ("radial/a/CMakeLists.txt", "add_executable(a main.cpp)\n"),
            ("radial/a/main.cpp", ""),
            (
                "radial/gui/CMakeLists.txt",
                "add_executable(gui main.cpp)\n",
            ),
            ("radial/gui/main.cpp", ""),
        ]
    };
    let commented = "add_subdirectory(a)\n#if (QT4_FOUND)\n#  add_subdirectory(gui)\n#endif ()\n";
    assert_eq!(tree(&files(commented)), ["radial/gui"]);
    let live = "add_subdirectory(a)\nset(X \"#\")\nadd_subdirectory(gui) # the GUI\n";
    assert!(tree(&files(live)).is_empty(), "{:?}", tree(&files(live)));
    assert_eq!(
        without_comments("a \"#b\" # c\nd\\#e\n"),
        "a \"#b\" \nd\\#e\n"
    );
    // A recursive glob of headers only (gadgetron's doxygen) picks up no unit; twin: one
    // of `.cpp` files anywhere leaves every folder alone.
    let mut with_doc = files(commented);
    with_doc.push(("doc/CMakeLists.txt", "file(GLOB_RECURSE H ${DIR}/*.h)\n"));
    assert_eq!(tree(&with_doc), ["radial/gui"]);
    let mut with_units = files(commented);
    with_units.push(("doc/CMakeLists.txt", "file(GLOB_RECURSE H ${DIR}/*.cpp)\n"));
    assert!(tree(&with_units).is_empty());
}

/// Twins: a folder named by a build file, a unit named by file name or stem, a folder with
/// its own build file, a recursive glob, a project that is not built with CMake.
#[test]
fn folders_a_build_names_or_may_glob_are_built() {
    let base = [
        ("CMakeLists.txt", "add_subdirectory(bench)\nadd_executable(t tools/run_all.cu)\ncuda_add_executable(x extra/k)\n"),
        ("bench/a.cu", ""),
        ("tools/run_all.cu", ""),
        ("extra/k.cu", ""),
        ("own/CMakeLists.txt", "project(own CUDA)\n"),
        ("own/b.cu", ""),
        ("README.md", "Build the demo: `cd own && cmake -B build`.\n"),
    ];
    assert!(tree(&base).is_empty(), "{:?}", tree(&base));
    let globbed = [
        ("CMakeLists.txt", "file(GLOB_RECURSE S *.cu)\n"),
        ("perf/a.cu", ""),
    ];
    assert!(tree(&globbed).is_empty());
    let make = [("Makefile", "all:\n"), ("perf/a.cu", "")];
    assert!(tree(&make).is_empty());
    // `perf` inside a longer word is not the folder's name.
    let longer = [
        ("CMakeLists.txt", "set(PERFORMANCE ON)\nmessage(perfect)\n"),
        ("perf/a.cu", ""),
    ];
    assert_eq!(tree(&longer), ["perf"]);
    // aphrodite's `autoquant/format.cu`: a plain-word stem spelled elsewhere (`FORMAT`, a
    // `format` file of another kind) does not name it; a file name or an identifier-like
    // stem does.
    let plain = [
        (
            "CMakeLists.txt",
            "string(TOLOWER format x)
set(S kernels/a.cu quantization/hadamard.safetensors)
",
        ),
        ("kernels/a.cu", ""),
        ("kernels/autoquant/format.cu", ""),
        ("kernels/hadamard/h.cu", ""),
    ];
    assert_eq!(tree(&plain), ["kernels/autoquant", "kernels/hadamard"]);
    let by_name = [
        (
            "CMakeLists.txt",
            "set(S format.cu gemm_s4_f16)
",
        ),
        ("q/format.cu", ""),
        ("r/gemm_s4_f16.cu", ""),
    ];
    assert!(tree(&by_name).is_empty(), "{:?}", tree(&by_name));
    // A built folder's unit no build file names is unbuilt alone; twin: a glob may pick
    // it up.
    let beside = [
        (
            "CMakeLists.txt",
            "set(S m/marlin.cu)
",
        ),
        ("m/marlin.cu", ""),
        ("m/marlin_zero.cu", ""),
    ];
    assert_eq!(tree(&beside), ["m/marlin_zero.cu"]);
    let globbed = [
        (
            "CMakeLists.txt",
            "set(S m/marlin.cu)
file(GLOB X m/*.cu)
",
        ),
        ("m/marlin.cu", ""),
        ("m/marlin_zero.cu", ""),
    ];
    assert!(tree(&globbed).is_empty());
    // magma's `testing/fortran2.cpp`: a glob of headers only, and the folder's testers
    // listed one by one in a Makefile fragment, leave the unlisted file unbuilt. Twins: a
    // Make wildcard or a glob whose pattern may match units picks it up.
    let headers = [
        ("Makefile", "include testing/Makefile.src\n"),
        (
            "CMakeLists.txt",
            "file(GLOB headers include/*.h \"${B}/include/*.h\")\ninclude(CMake.src)\n",
        ),
        (
            "testing/Makefile.src",
            "libtest_src := $(cdir)/testing_zgemm.cpp $(cdir)/testing_zaxpy.cpp\n",
        ),
        ("testing/testing_zgemm.cpp", ""),
        ("testing/testing_zaxpy.cpp", ""),
        ("testing/fortran2.cpp", ""),
    ];
    assert_eq!(tree(&headers), ["testing/fortran2.cpp"]);
    // A pattern that matches units of another folder reaches none here.
    let mut other = headers.to_vec();
    other.push(("make.gen", "x: $(wildcard interface_cuda/*.cpp)\n"));
    assert_eq!(tree(&other), ["testing/fortran2.cpp"]);
    // A folder's own Makefile that builds a unit by its stem names it.
    let mut stem = headers.to_vec();
    stem.push(("testing/Makefile", "all: fortran2\n"));
    assert!(tree(&stem).is_empty(), "{:?}", tree(&stem));
    for glob in [
        "S := $(wildcard $(cdir)/*.cpp)\n",
        "S := $(shell ls testing/*.cpp)\n",
        "file(GLOB S testing/*)\n",
        "file(GLOB S testing/*.c*)\n",
        "aux_source_directory(testing S)\n",
    ] {
        let mut t = headers.to_vec();
        t.push(("cmake/more.cmake", glob));
        assert!(tree(&t).is_empty(), "{glob}: {:?}", tree(&t));
    }
}

/// flashlight's `pkg/halide/`: a part of the CMake build (no `project()`) with its own
/// `CMakeLists.txt` that the package list never adds. Twin: the package that is added.
/// taichi's `misc/baselines/`: experiments with their own Makefile in a CMake project. Twins:
/// the same folder named by the CMake build, or run from CI, is built.
#[test]
fn a_makefile_folder_nothing_runs_is_unbuilt() {
    let base = [
        ("CMakeLists.txt", "project(t)\nadd_subdirectory(src)\n"),
        ("src/CMakeLists.txt", "add_library(t a.cpp)\n"),
        ("src/a.cpp", ""),
        ("misc/baselines/Makefile", "all:\n\tnvcc -o ldg ldg.cu\n"),
        ("misc/baselines/ldg.cu", ""),
    ];
    assert_eq!(tree(&base), ["misc/baselines"]);
    // cuml: the CMake project lives in `cpp/`; a folder of it nothing names is unbuilt,
    // a folder outside every CMake project is not judged.
    let nested = [
        (
            "cpp/CMakeLists.txt",
            "project(c)\nadd_library(c src/a.cu)\n",
        ),
        ("cpp/src/a.cu", ""),
        ("cpp/src/tsne/cannylab/bh.cu", ""),
        ("notebooks/x/k.cu", ""),
    ];
    assert_eq!(tree(&nested), ["cpp/src/tsne/cannylab"]);
    // Bonsai's `runtime/`: a CMake 2.8 top without `project()` lists its kernels one by
    // one; a kernel it does not list is unbuilt.
    let bonsai = [
        (
            "runtime/CMakeLists.txt",
            "CMAKE_MINIMUM_REQUIRED(VERSION 2.8)\ncuda_add_executable(b CUDAkernels/warp_new.cu)\n",
        ),
        ("runtime/CUDAkernels/warp_new.cu", ""),
        ("runtime/CUDAkernels/gravity_old.cu", ""),
    ];
    assert_eq!(tree(&bonsai), ["runtime/CUDAkernels/gravity_old.cu"]);
    // A recursive glob under another folder reaches nothing here; one at the root may
    // reach anything.
    let mut glob = base.to_vec();
    glob.push((
        "cmake/Tests.cmake",
        "file(GLOB_RECURSE T \"tests/cpp/*.cpp\")\n",
    ));
    assert_eq!(tree(&glob), ["misc/baselines"]);
    glob.push((
        "cmake/All.cmake",
        "file(GLOB_RECURSE A ${PROJECT_SOURCE_DIR}/*.cu)\n",
    ));
    assert!(tree(&glob).is_empty(), "{:?}", tree(&glob));
    let mut ci = base.to_vec();
    ci.push((".github/workflows/b.yml", "run: make -C misc/baselines\n"));
    assert!(tree(&ci).is_empty(), "{:?}", tree(&ci));
    let mut cmake = base.to_vec();
    cmake[0] = (
        "CMakeLists.txt",
        "project(t)\nadd_subdirectory(src)\nadd_custom_target(b COMMAND make -C misc/baselines)\n",
    );
    assert!(tree(&cmake).is_empty(), "{:?}", tree(&cmake));
}

/// BitBLAS' `testing/cpp/`: a standalone CMake project (CUDA gtests) beside a `setup.py`
/// build, that no build file, CI file, script or document names. Twins: the same folder run
/// by CI, or spelled by a document; a tree with no root build (the folder may be the
/// project's build); a standalone project named by the root CMake build.
#[test]
fn a_standalone_project_nothing_runs_is_unbuilt() {
    let base = [
        ("setup.py", "setup(name='b')\n"),
        (
            ".github/workflows/ci.yml",
            "run: cd testing/python && pytest\n",
        ),
        (
            "testing/cpp/CMakeLists.txt",
            "project(T LANGUAGES CXX CUDA)\nadd_subdirectory(i4)\n",
        ),
        ("testing/cpp/i4/CMakeLists.txt", "add_executable(t i4.cu)\n"),
        ("testing/cpp/i4/i4.cu", ""),
        ("testing/python/test_a.py", ""),
        ("docs/QuickStart.md", "See `testing/python/test_a.py`.\n"),
    ];
    assert_eq!(tree(&base), ["testing/cpp"]);
    let mut ci = base.to_vec();
    ci[1] = (
        ".github/workflows/ci.yml",
        "run: cmake -S testing/cpp -B b\n",
    );
    assert!(tree(&ci).is_empty(), "{:?}", tree(&ci));
    let mut doc = base.to_vec();
    doc[6] = (
        "docs/QuickStart.md",
        "The CUDA tests live in testing/cpp.\n",
    );
    assert!(tree(&doc).is_empty(), "{:?}", tree(&doc));
    // A longer path or name is not the folder.
    let mut longer = base.to_vec();
    longer[6] = (
        "docs/QuickStart.md",
        "See testing/cppx and mytesting/cpp.\n",
    );
    assert_eq!(tree(&longer), ["testing/cpp"]);
    let no_root: Vec<_> = base
        .iter()
        .filter(|(p, _)| *p != "setup.py")
        .copied()
        .collect();
    assert!(tree(&no_root).is_empty(), "{:?}", tree(&no_root));
    // Maven's `java/pom.xml` builds `${basedir}/src/main/native`: a path from its folder.
    let mut maven = base.to_vec();
    maven.push(("testing/pom.xml", "<arg value=\"${basedir}/cpp\"/>\n"));
    assert!(tree(&maven).is_empty(), "{:?}", tree(&maven));
    let mut added = base.to_vec();
    added[0] = (
        "CMakeLists.txt",
        "project(b)\nadd_subdirectory(testing/cpp)\n",
    );
    assert!(tree(&added).is_empty(), "{:?}", tree(&added));
}

#[test]
fn a_cmake_part_nothing_adds_is_unbuilt() {
    let r = tree(&[
        ("CMakeLists.txt", "add_subdirectory(pkg)\n"),
        (
            "pkg/CMakeLists.txt",
            "register_package(NAME vision)\nfunction(fl_add_and_link_halide_lib)\nendfunction()\n",
        ),
        ("pkg/vision/CMakeLists.txt", "add_library(v a.cpp)\n"),
        ("pkg/vision/a.cpp", ""),
        (
            "pkg/halide/CMakeLists.txt",
            "add_library(h HalideInterface.cpp)\nadd_subdirectory(test)\n",
        ),
        ("pkg/halide/HalideInterface.cpp", ""),
        (
            "pkg/halide/test/CMakeLists.txt",
            "add_executable(t t.cpp)\n",
        ),
        ("pkg/halide/test/t.cpp", ""),
    ]);
    assert_eq!(r, ["pkg/halide"]);
    // Subfolders added by listing the folder: their names are never spelled.
    let listed = tree(&[
        ("CMakeLists.txt", "file(GLOB children RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} *)\nforeach(c ${children})\n  add_subdirectory(${c})\nendforeach()\n"),
        ("halide/CMakeLists.txt", "add_library(h a.cpp)\n"),
        ("halide/a.cpp", ""),
    ]);
    assert!(listed.is_empty(), "{listed:?}");
}

/// A sample folder beside a CMake build, built only by a Makefile of its own: the decision
/// says so (that Makefile is its build), and not that no build file compiles it. Twin: a
/// folder with no build file at all keeps the general message.
#[test]
fn a_folder_built_only_by_its_own_makefile_says_so() {
    use crate::decisions::test_support::f as at;
    let summary = |paths: &[(&str, &str, u32)]| {
        let mut fs: Vec<_> = paths.iter().map(|(r, p, l)| at(r, p, *l)).collect();
        crate::decisions::fold(&mut fs, &kind(vec!["nested".into()]));
        fs[0].message.clone()
    };
    let own = summary(&[
        ("HP850", "nested/Makefile", 2),
        ("HP701", "nested/nested.cu", 12),
    ]);
    assert!(own.contains("only a Makefile of its own does"), "{own}");
    let none = summary(&[("HP701", "nested/a.cu", 3), ("HP701", "nested/b.cu", 4)]);
    assert!(
        none.contains("no build file of the project compiles"),
        "{none}"
    );
}
