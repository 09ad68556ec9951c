//! The project's own porting layer, in the names it declares: `#define cudaX hipX`,
//! `using cudaError_t = hipError_t;`, `typedef hipStream_t cudaStream_t;` and
//! `static const auto cudaMemcpy = hipMemcpy;` (supranational/sppark's `util/cuda2hip.hpp`,
//! force-included by its ROCm build). The declared name is never renamed: renamed, it would
//! alias HIP's name to itself (`static const auto hipMemcpy = hipMemcpy;` does not compile).
//! The declaration's other tokens and every use of the name elsewhere are still translated.

use super::Pass;

/// Whether token `i` is the name an alias declares: `using cudaError_t = hipError_t;`,
/// `typedef hipStream_t cudaStream_t;` (cuBQL's ROCm arm) or a variable initialised with the
/// name's own HIP counterpart (`static const auto cudaMemcpy = hipMemcpy;`). Like a
/// `#define`d name, it is the project's own layer: renamed, it would alias HIP's name to
/// itself. Uses elsewhere are still translated.
pub(super) fn alias_name(p: &Pass, i: usize, name: &str) -> bool {
    let l = p.lexed;
    let prev = l.prev_code(i).map(|k| p.text(k));
    let next = l.next_code(i).map(|k| p.text(k));
    if prev == Some(b"using") && next == Some(b"=") {
        return true;
    }
    if next == Some(b"=") && initialised_with_counterpart(p, i, name) {
        return true;
    }
    if next != Some(b";") {
        return false;
    }
    // `typedef … NAME;`: the statement's first word, within a few tokens, is `typedef`.
    let mut k = i;
    for _ in 0..16 {
        let Some(j) = l.prev_code(k) else {
            return false;
        };
        match p.text(j) {
            b"typedef" => return true,
            b";" | b"{" | b"}" | b"(" | b")" => return false,
            _ => k = j,
        }
    }
    false
}

/// Whether token `i` is the name a `#define` or `#undef` defines. It is never renamed: a
/// project's own porting layer (`#define cudaGraphNode_t hipGraphNode_t` under `USE_ROCM`, or
/// `#define __shfl_xor_sync(m, v, l) __shfl_xor(v, l)` for old HIP) would otherwise become a
/// self-definition (`#define hipGraphNode_t hipGraphNode_t`) or redefine HIP's own intrinsic.
/// The macro's body and every use of the name elsewhere are still translated.
pub(super) fn defined_name(p: &Pass, i: usize) -> bool {
    let t = p.lexed.tokens[i];
    if !t.in_directive() {
        return false;
    }
    let d = &p.lexed.directives[t.directive as usize];
    (d.name == "define" || d.name == "undef")
        && p.lexed.prev_code(i).is_some_and(|k| {
            matches!(p.text(k), b"define" | b"undef") && p.lexed.tokens[k].directive == t.directive
        })
}

/// Whether the declaration at token `i` (`NAME = X;` or `NAME = X,`) initialises `name` with
/// the very name the translator would write for it: `static const auto cudaMemcpy = hipMemcpy;`.
/// A member (`a.cudaX = …`) or a qualified name is not a declaration of the project's.
fn initialised_with_counterpart(p: &Pass, i: usize, name: &str) -> bool {
    let l = p.lexed;
    if l.prev_code(i)
        .is_some_and(|k| matches!(p.text(k), b"." | b"->" | b"::"))
    {
        return false;
    }
    let Some(eq) = l.next_code(i) else {
        return false;
    };
    let Some(rhs) = l.next_code(eq) else {
        return false;
    };
    if !l
        .next_code(rhs)
        .is_some_and(|k| matches!(p.text(k), b";" | b","))
    {
        return false;
    }
    let to = match p.m.resolve(name, &p.opts.target) {
        Some(crate::mappings::Resolution::Rename { to, .. }) => to,
        _ => return false,
    };
    !to.is_empty() && p.text(rhs) == to.as_bytes()
}

#[cfg(test)]
mod tests {
    fn port(src: &str) -> String {
        let opts = crate::translate::Options::for_tests("6.2", false);
        let t = crate::translate::translate_bytes(
            "k.cu",
            src.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        String::from_utf8(t.output).unwrap()
    }

    /// sppark's `cuda2hip.hpp`: a variable initialised with its name's HIP counterpart keeps
    /// its name; its uses are renamed. Twins: a variable initialised with anything else, and a
    /// member of another object, are renamed as any use is.
    #[test]
    fn a_variable_aliasing_its_own_counterpart_keeps_its_name() {
        let out = port(
            "static const auto cudaMemcpyAsync = hipMemcpyAsync;\n\
             void f(void *d, void *h) { cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, 0); }\n",
        );
        assert!(out.contains("static const auto cudaMemcpyAsync = hipMemcpyAsync;"));
        assert!(out.contains("{ hipMemcpyAsync(d, h, 4, hipMemcpyHostToDevice, 0); }"));
        let out = port("static const auto cudaMemcpyAsync = my_copy;\n");
        assert!(out.contains("static const auto hipMemcpyAsync = my_copy;"));
        let out = port("void g(T &t) { t.cudaMemcpyAsync = hipMemcpyAsync; }\n");
        assert!(out.contains("t.hipMemcpyAsync = hipMemcpyAsync;"));
    }
}
