//! Device limits HIP's runtime does not take. HIP names every CUDA limit the HIPIFY tables map
//! (`cudaLimitPrintfFifoSize` → `hipLimitPrintfFifoSize`, so the port compiles), but clr's
//! `hipDeviceSetLimit` and `hipDeviceGetLimit` accept only the stack size, the malloc heap and
//! AMD's scratch limit: any other limit returns `hipErrorUnsupportedLimit` (clr
//! `hip_device_runtime.cpp`, the `default:` of the switch; the API docs say so from 5.0).
//! pbrt-v4's `GPUInit` wraps `cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 32 MiB)` in its
//! `CUDA_CHECK`, which aborts: the ported renderer stops at start-up. HIP's device `printf`
//! buffer is not set through this call; the line has no ROCm meaning.

use crate::finding::Finding;
use crate::model::syntax::Src;

rule!(UNSUPPORTED_DEVICE_LIMIT, "HP717", DeviceFeature, Remediation, Init,
    summary: "`cudaDeviceSetLimit`/`cudaDeviceGetLimit` (or `cuCtxSetLimit`) with the printf FIFO size: HIP names the limit but its runtime rejects it with `hipErrorUnsupportedLimit`.",
    why: "clr's `hipDeviceSetLimit`/`hipDeviceGetLimit` handle only `hipLimitStackSize`, `hipLimitMallocHeapSize` and `hipExtLimitScratchCurrent`; every other limit returns `hipErrorUnsupportedLimit`. A call whose status is checked (`CUDA_CHECK(…)`) stops the program where CUDA went on.",
    bad: "CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 32 * 1024 * 1024));",
    good: "#if !defined(__HIP_PLATFORM_AMD__)\nCUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 32 * 1024 * 1024));\n#endif",
    fix: "Leave the call out of the ROCm build (HIP's device printf buffer is not set through it), or ignore `hipErrorUnsupportedLimit` from it.",
    refs: ["https://github.com/ROCm/clr/blob/rocm-6.2.0/hipamd/src/hip_device_runtime.cpp", "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___device.html"],
);

/// CUDA's limits whose HIP names HIP's runtime rejects.
const REJECTED: &[&str] = &["cudaLimitPrintfFifoSize", "CU_LIMIT_PRINTF_FIFO_SIZE"];

/// The function whose argument list holds token `i`: the name before the innermost `(` still
/// open at `i`, when the argument list is on the same statement.
fn callee<'a>(s: &Src<'a>, i: usize) -> Option<&'a str> {
    let mut depth = 0usize;
    let mut k = i;
    while let Some(p) = s.lexed.prev_code(k) {
        match s.tok(p) {
            ")" => depth += 1,
            "(" if depth == 0 => return s.lexed.prev_code(p).map(|n| s.tok(n)),
            "(" => depth -= 1,
            ";" | "{" | "}" => return None,
            _ => {}
        }
        k = p;
    }
    None
}

pub fn check(s: &Src, out: &mut Vec<Finding>) {
    for (i, name) in s.idents() {
        if !REJECTED.contains(&name) {
            continue;
        }
        // An argument of a limit call (`cudaDeviceSetLimit`, `cuCtxGetLimit`, a wrapper named
        // so); the enumerator's own declaration in a dynamic-loading header is no call.
        if !callee(s, i).is_some_and(|c| c.ends_with("SetLimit") || c.ends_with("GetLimit")) {
            continue;
        }
        let t = s.lexed.tokens[i];
        out.push(
            s.ctx.finding(
                &UNSUPPORTED_DEVICE_LIMIT,
                t.range(),
                format!(
                    "`{name}` ports to `hipLimitPrintfFifoSize`, which HIP's runtime rejects: \
                 `hipDeviceSetLimit`/`hipDeviceGetLimit` return `hipErrorUnsupportedLimit` for \
                 it in every ROCm release, so a checked call stops the program at start-up"
                ),
                Some(
                    "leave the call out of the ROCm build (HIP's device printf buffer is not set \
                 through it), or ignore `hipErrorUnsupportedLimit` from it"
                        .to_string(),
                ),
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::fires;

    /// pbrt-v4's `GPUInit`: the printf FIFO limit inside its checked call. Twins: the stack
    /// size and the malloc heap, which HIP's runtime sets, give nothing.
    #[test]
    fn printf_fifo_limit_is_rejected_at_run_time() {
        let src = "void GPUInit() {\n\
                   CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));\n\
                   CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 32 * 1024 * 1024));\n\
                   CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 * 1024 * 1024));\n\
                   cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 1 << 20);\n\
                   }\n";
        assert_eq!(fires(src, "HP717"), [3, 5]);
        let twin = "void f() { cudaDeviceSetLimit(cudaLimitStackSize, 8192); }\n";
        assert!(fires(twin, "HP717").is_empty());
        // cuda-samples' `cuda_drvapi_dynlink_cuda.h` declares the driver's enum.
        let declared = "typedef enum CUlimit_enum {\n    CU_LIMIT_STACK_SIZE = 0x00,\n    \
                        CU_LIMIT_PRINTF_FIFO_SIZE = 0x01\n} CUlimit;\n";
        assert!(fires(declared, "HP717").is_empty());
    }
}
