//! `__ldg` on PyTorch's 16-bit types. c10 declares `__ldg(const c10::Half*)` and
//! `__ldg(const c10::BFloat16*)` only for nvcc and clang's CUDA mode, not for HIP-Clang, and
//! HIP's own `__ldg` overloads cover the built-in types and HIP's `__half`: a kernel that reads
//! `__ldg(ptr)` through a `c10::Half*` (or a `scalar_t*` the file dispatches with
//! `AT_DISPATCH_FLOATING_TYPES_AND_HALF`) does not compile under hipcc ("no matching function
//! for call to '__ldg'", rusty1s/pytorch_scatter#412, in `gather_csr_kernel<c10::Half, 4>`).

use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, Src};

rule!(TORCH_HALF_LDG, "HP715", DeviceFeature, Remediation, Build,
    summary: "`__ldg` on a `c10::Half`/`at::Half`/`BFloat16` pointer, or on a template type the file instantiates with them (`AT_DISPATCH_FLOATING_TYPES_AND_HALF`): no such overload under HIP-Clang.",
    why: "PyTorch declares `__ldg` for its 16-bit types only where nvcc or clang's CUDA mode compiles (c10/util/Half-inl.h, BFloat16-inl.h); HIP's `__ldg` takes built-in types and `__half`, so hipcc stops at the half instantiation.",
    bad: "template <typename scalar_t> __global__ void k(const scalar_t* x, scalar_t* y) { y[0] = __ldg(x); }\n// AT_DISPATCH_FLOATING_TYPES_AND_HALF(t.scalar_type(), \"k\", [&] { k<scalar_t><<<1, 1>>>(…); });",
    good: "y[0] = x[0];   // a plain load: the compiler picks the read-only path itself",
    fix: "Read through a plain load (`x[i]`), or read the raw bits (`__ldg(reinterpret_cast<const __half*>(x))`) and convert; keep `__ldg` only for built-in types.",
    refs: ["https://github.com/rusty1s/pytorch_scatter/issues/412", "https://github.com/pytorch/pytorch/blob/main/c10/util/Half-inl.h"],
);

/// PyTorch's 16-bit type names as a pointer's type text may spell them.
const TORCH_16: [&str; 4] = ["c10::Half", "at::Half", "c10::BFloat16", "at::BFloat16"];

/// Whether the file dispatches a kernel over PyTorch's half or bfloat16 types.
fn dispatches_16_bit(s: &Src) -> bool {
    s.idents().any(|(_, n)| {
        n.starts_with("AT_DISPATCH_")
            && (n.contains("HALF") || n.contains("BFLOAT16") || n.contains("REDUCED_FLOATING"))
    }) || s
        .idents()
        .any(|(_, n)| matches!(n, "kHalf" | "kBFloat16") || n == "Half" || n == "BFloat16")
}

/// The template type parameters of the function template around `n`.
fn template_params<'a>(s: &Src<'a>, n: tree_sitter::Node<'a>) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut p = s.parent(n);
    while let Some(x) = p {
        if x.node_kind() == K::TemplateDeclaration {
            if let Some(params) = x.field(F::Parameters) {
                let text = s.text(params).trim_start_matches('<').trim_end_matches('>');
                for p in text.split(',') {
                    let p = p.split('=').next().unwrap_or("").trim();
                    if p.starts_with("typename") || p.starts_with("class") {
                        if let Some(name) = p.split_whitespace().last() {
                            out.push(name);
                        }
                    }
                }
            }
        }
        p = s.parent(x);
    }
    out
}

pub fn check(s: &Src, out: &mut Vec<Finding>) {
    if !s.idents().any(|(_, n)| n == "__ldg") || s.tree.is_none() {
        return;
    }
    let dispatched = dispatches_16_bit(s);
    let mut scopes: std::collections::HashMap<usize, syntax::ScopedTypes> = Default::default();
    for call in &s.of_kinds(&[K::CallExpression]) {
        if syntax::call_name(s, *call) != Some("__ldg") {
            continue;
        }
        let Some(arg) = syntax::call_args(*call).into_iter().next() else {
            continue;
        };
        let names = syntax::identifiers(s, arg);
        // A cast names the type (`__ldg(reinterpret_cast<const __half*>(p))` is HIP's own).
        if names
            .iter()
            .any(|n| matches!(*n, "__half" | "half" | "__nv_bfloat16" | "float" | "int"))
        {
            continue;
        }
        let Some(base) = names.first().copied() else {
            continue;
        };
        let Some(ty) = s.enclosing_function(*call).and_then(|f| {
            scopes
                .entry(f.id())
                .or_insert_with(|| syntax::ScopedTypes::of(s, f))
                .type_at(base, call.start_byte())
        }) else {
            continue;
        };
        let words: Vec<&str> = ty
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .filter(|w| !w.is_empty())
            .collect();
        let named = words.iter().find(|w| TORCH_16.contains(*w)).copied();
        let templated = dispatched && template_params(s, *call).iter().any(|p| words.contains(p));
        let what = match (named, templated) {
            (Some(t), _) => format!("a `{t}*`"),
            (None, true) => format!(
                "a `{}` the file instantiates with PyTorch's half or bfloat16 type",
                ty.trim()
            ),
            _ => continue,
        };
        out.push(s.ctx.finding(
            &TORCH_HALF_LDG,
            call.byte_range(),
            format!("`__ldg` on {what}: c10 declares that overload only for nvcc and clang's CUDA mode, so hipcc finds no matching `__ldg`"),
            Some("read through a plain load (`ptr[i]`), or cast to `const __half*` and convert".into()),
        ));
    }
}

#[cfg(test)]
mod tests {
    fn fires(src: &str) -> Vec<u32> {
        crate::model::syntax::test_support::fires(src, "HP715")
    }

    /// Swin-Transformer's window kernels: `__ldg` on `scalar_t` dispatched with half. Twins: the
    /// same kernel dispatched over float and double only, and a plain load.
    #[test]
    fn ldg_on_torch_half() {
        let src = "template <typename scalar_t>\n__global__ void k(const scalar_t* x, scalar_t* y) {\n  y[0] = __ldg(x + 1);\n}\nvoid f(at::Tensor t) {\n  AT_DISPATCH_FLOATING_TYPES_AND_HALF(t.scalar_type(), \"k\", [&] { k<scalar_t><<<1, 1>>>(nullptr, nullptr); });\n}\n";
        assert_eq!(fires(src), [3]);
        let float_only = src.replace(
            "AT_DISPATCH_FLOATING_TYPES_AND_HALF",
            "AT_DISPATCH_FLOATING_TYPES",
        );
        assert!(fires(&float_only).is_empty());
        let plain = src.replace("__ldg(x + 1)", "x[1]");
        assert!(fires(&plain).is_empty());
        let named = "__global__ void g(const c10::Half* x, float* y) { y[0] = __ldg(x); }\n";
        assert_eq!(fires(named), [1]);
        let builtin = "__global__ void g(const float* x, float* y) { y[0] = __ldg(x); }\n";
        assert!(fires(builtin).is_empty());
    }
}
