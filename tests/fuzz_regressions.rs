//! Inputs `cargo xtask fuzz` found (over real public CUDA files, mutated), reduced by hand, each
//! checked the way the fuzzer checks a case: no panic, `port` idempotent, every comment and
//! string literal kept. The comment of each test names the failure and the fix.

use hipport::pipeline::{process_bytes, Work};
use hipport::translate::{LaunchSyntax, Options};

fn work(rocm: &str, hip: bool, compat: bool) -> Work {
    Work {
        translate: Options {
            target: hipport::mappings::Target {
                rocm: rocm.parse().unwrap(),
                roc: false,
                experimental: false,
                lds: None,
            },
            launch: if hip {
                LaunchSyntax::Hip
            } else {
                LaunchSyntax::Keep
            },
            implicit_include: true,
            compat_header: compat,
            unsafe_fixes: false,
        },
        hazards: true,
        annotate: false,
        keep_output: true,
        max_file_size: u64::MAX,
        parse_health: true,
    }
}

/// Ports `src` twice and returns the first output; fails when the second run changes it.
fn port_settles(rel: &str, src: &[u8], w: &Work) -> Vec<u8> {
    let m = hipport::mappings::get();
    let once = process_bytes(rel, src.to_vec(), w, m).output;
    let twice = process_bytes(rel, once.clone(), w, m).output;
    assert_eq!(
        String::from_utf8_lossy(&twice),
        String::from_utf8_lossy(&once),
        "the second run changed the output of {rel}"
    );
    once
}

/// A header whose only CUDA name is a warp `_sync` intrinsic, for a target without it: the
/// first run made `__shfl(…)` and added no runtime include, the second saw `__shfl` as a HIP
/// name and added it (fuzz seed 12, from ggml's `gla.cuh`). The fallback now counts as a rename.
#[test]
fn a_warp_sync_fallback_alone_adds_the_runtime_include_on_the_first_run() {
    for (rel, src) in [
        (
            "a.cuh",
            &b"#include \"common.cuh\"\nvoid f(int x) { __shfl_sync(0xffffffff, x, 1); }\n"[..],
        ),
        (
            "b.cuh",
            b"#include \"common.cuh\"\r\n\r\nvoid f(ctx &__shfl_sync(0xffffffff#endif\r\n,  ctx, t * dst);\r\n",
        ),
    ] {
        for (hip, compat) in [(false, false), (true, true)] {
            let out = port_settles(rel, src, &work("5.2.0", hip, compat));
            let text = String::from_utf8_lossy(&out);
            assert!(text.contains("__shfl("), "{text}");
            assert!(text.contains("#include <hip/hip_runtime.h>"), "{text}");
        }
    }
}

/// A launch inside the (unclosed) argument list of another launch: the first run kept the inner
/// `<<<…>>>` inside the outer call's copied arguments, the second rewrote it (fuzz seed 12, from
/// cuda-samples' `nv12_resize.cu` with `k<<<1, 32>>>(` and 4 396 `{` inserted). A launch now
/// rewrites its head and leaves its arguments in place, so the inner one is rewritten too.
#[test]
fn a_launch_inside_another_launchs_arguments_is_rewritten_in_the_same_run() {
    let src = b"void f() {\n    cudaTexture{{{k<<<1, 32>>>({{{Object_t tex = 0;\n    dim3 grid(1);\n    resize<<<grid, block, 0, stream>>>(\n        a, b);\n    check(cudaDestr}oy(x));\n}\n";
    for compat in [false, true] {
        let out = port_settles("n.cu", src, &work("5.2.0", true, compat));
        let text = String::from_utf8_lossy(&out);
        assert!(!text.contains("<<<"), "{text}");
        assert!(
            text.contains("hipLaunchKernelGGL(resize, dim3(grid), dim3(block), 0, stream,"),
            "{text}"
        );
    }
}

/// `port --annotate`, as the CLI runs it: hazard rules on, a note above each flagged line.
fn annotated(rocm: &str, compat: bool) -> Work {
    let mut w = work(rocm, false, compat);
    w.annotate = true;
    w
}

/// Issue 23 item 10a, from llm.c's `train_gpt2_fp32.cu`: with `--compat-header` the first run
/// replaced `#include <cooperative_groups/reduce.h>` by the compat header, so the second run no
/// longer knew `cg::reduce` was shimmed and added an HP001 note on every call (and would have
/// regenerated the header without the shim). The shim is now recognised from the calls.
#[test]
fn cg_reduce_behind_the_compat_header_is_not_reported_missing_on_a_rerun() {
    let src = b"#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n__global__ void k(float* out, const float* in) {\n    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());\n    float sum = cg::reduce(warp, in[threadIdx.x], cg::plus<float>{});\n    out[0] = sum;\n}\n";
    let w = annotated("5.2.0", true);
    let once = port_settles("train.cu", src, &w);
    let text = String::from_utf8_lossy(&once);
    assert!(!text.contains("HP001"), "{text}");
    assert_eq!(text.matches("// hipport HP021").count(), 1, "{text}");
    let m = hipport::mappings::get();
    let again = process_bytes("train.cu", once.clone(), &w, m);
    assert_eq!(
        again.compat,
        vec!["cg_reduce".to_string()],
        "the rerun keeps the shim"
    );
    assert!(again.findings.iter().all(|f| f.rule != "HP001"));
}

/// Item 10b: an unrolled `__shfl_down_sync(…, 16)`, `…8`, `…4` reduction for ROCm 5.2. The
/// HP104 note names the intrinsic as written: `__shfl_down_sync` on the first run,
/// `__shfl_down` on the second, which added a second note. A note of the same rule above the
/// statement now counts as present.
#[test]
fn an_unrolled_shuffle_reduction_keeps_one_note_per_rule() {
    let src = b"__global__ void k(float *out, float v) {\n    v += __shfl_down_sync(0xffffffff, v, 16);\n    v += __shfl_down_sync(0xffffffff, v, 8);\n    v += __shfl_down_sync(0xffffffff, v, 4);\n    out[threadIdx.x] = v;\n}\n";
    for compat in [false, true] {
        let once = port_settles("r.cu", src, &annotated("5.2.0", compat));
        let text = String::from_utf8_lossy(&once);
        assert_eq!(text.matches("HP104").count(), 1, "{text}");
        assert_eq!(text.matches("// hipport HP005").count(), 3, "{text}");
    }
}

/// Item 10c: a statement that starts on the line a block comment ends on (or inside a raw
/// string, or after a backslash-newline) got its note at the start of that line: inside the
/// comment or the literal (changing it), or joined to the line before. Notes now go above the
/// line the comment, string or continued line starts on.
#[test]
fn a_note_never_lands_inside_a_comment_a_raw_string_or_a_continued_line() {
    let cases: [(&[u8], &str); 3] = [
        (
            b"__global__ void k(float *out, float v) {\n    /* a comment\n    */ v += __shfl_down_sync(0xffffffff, v, 16);\n    out[0] = v;\n}\n",
            "\n    /* a comment\n",
        ),
        (
            b"__global__ void k(float *out, float v) {\n    const char *s = R\"(x\n)\"; v += __shfl_down_sync(0xffffffff, v, 16);\n    out[0] = v + s[0];\n}\n",
            "\n    const char *s = R\"(x\n",
        ),
        (
            b"__global__ void k(float *out, float v) {\n    out[1] = v; \\\n    v += __shfl_down_sync(0xffffffff, v, 16);\n    out[0] = v;\n}\n",
            "\n    out[1] = v; \\\n",
        ),
    ];
    for (src, after_notes) in cases {
        let once = port_settles("c.cu", src, &annotated("5.2.0", false));
        let text = String::from_utf8_lossy(&once);
        let at = text.find(after_notes).expect(after_notes);
        assert!(text[..at].contains("// hipport HP104"), "{text}");
        assert!(!text[at..].contains("// hipport"), "{text}");
    }
}

/// Item 10d: lone CR line ends (every `\n` turned into `\r`): lines were counted at `\n`
/// only, so every note went to the top of the file and was matched against the wrong lines.
/// And a `.cu` file whose only include is `math_constants.h` with `--compat-header`: the first
/// run made it `#include "hipport_compat.h"`, which the second counted as a project header
/// needing the runtime include before it.
#[test]
fn lone_cr_files_and_a_lone_math_constants_include_settle() {
    let src = b"__global__ void k(float *out, float v) {\r    /* a comment\r    */ v += __shfl_down_sync(0xffffffff, v, 16);\r    out[threadIdx.x % 32] = v;\r}\r";
    for compat in [false, true] {
        let once = port_settles("cr.cu", src, &annotated("5.2.0", compat));
        let text = String::from_utf8_lossy(&once);
        let note = text.find("// hipport HP104").expect("a note");
        let comment = text.find("/* a comment").unwrap();
        let kernel = text.find("__global__").unwrap();
        assert!(kernel < note && note < comment, "{text:?}");
    }
    for w in [work("5.2.0", false, true), annotated("5.2.0", true)] {
        let once = port_settles("m.cu", b"#include <math_constants.h>\n", &w);
        let text = String::from_utf8_lossy(&once);
        assert!(text.contains("#include \"hipport_compat.h\"\n"), "{text}");
        assert!(!text.contains("hip_runtime.h"), "{text}");
    }
}

/// cuda-samples' `cuda-c-linking.cpp` (unmodified, fuzz seed 12): a JIT option on the line of a
/// `cuLinkAddData(…)` call is covered by the link call's HP503, but once the port made it
/// `hiprtcLinkAddData(…)` the option (left as it is: ROCm 6.2 lacks `hipJitInputPtx`) got an
/// HP504 note of its own on the second run. A translated link call now covers its line too.
#[test]
fn a_jit_option_in_a_translated_link_call_gets_no_new_note() {
    let src = b"#include <cuda.h>\nvoid f(CUlinkState l, const char *p, size_t n) {\n    checkCudaErrors(cuLinkAddData(l, CU_JIT_INPUT_PTX, (void *)p, n, \"x\", 0, NULL, NULL));\n}\n";
    let once = port_settles("l.cpp", src, &annotated("6.2.0", false));
    let text = String::from_utf8_lossy(&once);
    assert!(text.contains("hiprtcLinkAddData"), "{text}");
    assert!(!text.contains("HP504"), "{text}");
}

/// An `#include` line inside a warp `_sync` call's mask, for a target without the `_sync` form:
/// deleting the mask took the directive with it and overlapped the include's rewrite, so the
/// first run lost the runtime include and the second added it (fuzz seed 1, from the
/// `warp_logical32_macros_rocm52` golden with `#include <cuda_runtime.h>` inserted inside the
/// mask). A mask whose tokens hold a directive is now left as written.
#[test]
fn a_directive_inside_a_dropped_mask_stays() {
    let src = b"__global__ void scan(unsigned* s)\n{\n    s[threadIdx.x] += __shfl_sync(0xfffff\n#include <cuda_runtime.h>\nffe, s[threadIdx.x - 1], 1);\n}\n";
    for (hip, compat) in [(false, false), (true, true)] {
        let out = port_settles("k.cu", src, &work("5.2.0", hip, compat));
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("#include <hip/hip_runtime.h>"), "{text}");
    }
}
