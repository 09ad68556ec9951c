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
            },
            launch: if hip {
                LaunchSyntax::Hip
            } else {
                LaunchSyntax::Keep
            },
            implicit_include: true,
            compat_header: compat,
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
