//! `__CUDA_ARCH__` tests in host functions (HP401 settled).

use super::open_arch_test;
use crate::finding::Finding;
use crate::model::syntax::Src;

/// A `__CUDA_ARCH__` test inside a host function (no `__device__`, `__global__`, no qualifier
/// macro, not `constexpr`, not in a lambda): only the host pass compiles code that runs there,
/// and nvcc's host pass leaves `__CUDA_ARCH__` undefined as HIP-Clang does, so both builds take
/// the same arm (CuSha's `#if __CUDA_ARCH__ >= 300` around `cudaDeviceSetSharedMemConfig` in a
/// host function: the arm never runs under nvcc either). PASS, saying so.
pub fn host_only_arms(s: &Src, out: &mut [Finding]) {
    use crate::kinds::cuda::{Field as F, NodeExt};
    let Some(tree) = s.tree else { return };
    for f in out.iter_mut() {
        let Some(di) = open_arch_test(s, f) else {
            continue;
        };
        let d = &s.lexed.directives[di];
        if !matches!(d.name.as_str(), "if" | "ifdef" | "ifndef" | "elif") {
            continue;
        }
        let range = s.directive_range(d);
        let toks = &s.lexed.tokens;
        let lo = toks.partition_point(|t| (t.start as usize) < range.start);
        if !toks[lo..]
            .iter()
            .enumerate()
            .take_while(|(_, t)| (t.start as usize) < range.end)
            .any(|(k, _)| s.tok(lo + k) == "__CUDA_ARCH__")
        {
            continue;
        }
        let Some(n) = tree.root_node().descendant_for_byte_range(d.start, d.start) else {
            continue;
        };
        let Some(func) = s.enclosing_function(n) else {
            continue;
        };
        if s.in_device_code(n) {
            continue;
        }
        let mut p = s.parent(n);
        let mut in_lambda = false;
        while let Some(x) = p {
            if x.id() == func.id() {
                break;
            }
            if x.kind() == "lambda_expression" {
                in_lambda = true;
                break;
            }
            p = s.parent(x);
        }
        let Some(body) = func.field(F::Body) else {
            continue;
        };
        if in_lambda || body.start_byte() > d.start {
            continue;
        }
        // The declaration before the body: a macro (all capitals, `CUDA_HOST_DEVICE`) or a
        // reserved name other than `__host__` may make the function a device one too.
        let head =
            std::str::from_utf8(&s.bytes()[func.start_byte()..body.start_byte()]).unwrap_or("");
        let hidden = head
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .any(|w| {
                w == "constexpr"
                    || (w.starts_with("__")
                        && !matches!(w, "__host__" | "__inline__" | "__forceinline__"))
                    || (w.len() > 1
                        && w.chars().any(|c| c.is_ascii_uppercase())
                        && !w.chars().any(|c| c.is_ascii_lowercase()))
            });
        if hidden {
            continue;
        }
        let name = func
            .field(F::Declarator)
            .and_then(|dcl| crate::model::syntax::function_name(s, dcl))
            .unwrap_or("the function");
        f.settle(&format!(
            " — but it sits in `{name}`, a host function: only host code runs there, and nvcc's host pass leaves `__CUDA_ARCH__` undefined as HIP-Clang does, so both builds take the same arm (nothing to port)"
        ));
    }
}

#[cfg(test)]
mod tests {
    /// CuSha: `#if __CUDA_ARCH__ >= 300` in a host function picks the same arm under nvcc's
    /// host pass and HIP-Clang: PASS. Twins: the same test in a `__device__` function, in a
    /// function a qualifier macro may make a device one, and in a `constexpr` function stay
    /// open.
    #[test]
    fn arch_tests_in_host_functions_are_settled() {
        use crate::model::syntax::test_support::hazard_findings;
        let open = |src: &str| crate::model::syntax::test_support::fires_open(src, "HP401");
        let host = "void process(int v) {\n  int m = 8;\n#if __CUDA_ARCH__ >= 300\n  m = 16;\n#endif\n  use(m, v);\n}\n";
        assert!(open(host).is_empty(), "{:?}", open(host));
        let settled = hazard_findings(host);
        assert!(settled
            .iter()
            .any(|f| f.rule == "HP401" && f.message.contains("`process`, a host function")));
        let device = host.replace("void process", "__device__ void process");
        assert_eq!(open(&device), [3]);
        let macro_q = host.replace("void process", "HOST_DEVICE void process");
        assert_eq!(open(&macro_q), [3]);
        let cexpr = host.replace("void process(int v)", "constexpr int process(int v)");
        assert_eq!(open(&cexpr), [3]);
    }
}
