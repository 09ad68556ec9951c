//! The built-in index variables used whole (HP024). In CUDA `threadIdx` and `blockIdx` are
//! `uint3` values and `blockDim`, `gridDim` are `dim3`s (which convert to `uint3`), so graphics
//! code with `helper_math.h`'s vector operators writes `uint3 t = blockIdx * blockDim +
//! threadIdx;` (gvdb-voxels). HIP declares them as structs of properties whose only conversion
//! is to `dim3`: no `uint3` operator takes them, and `uint3 t = threadIdx;` does not compile.
//!
//! Where the variable is an operand of arithmetic or initialises a `uint3`/`int3`, `port`
//! writes the vector CUDA had, `make_uint3(threadIdx.x, threadIdx.y, threadIdx.z)`: the same
//! value and type, so the same operators apply (PASS). Other whole uses (a `dim3` built from it,
//! an argument) are left: HIP converts them to `dim3` as CUDA's `dim3` parameters expect. A file
//! that declares a variable of the same name (`dim3 blockDim(16, 16);` on the host) is left
//! alone. A second run changes nothing: every rewritten use is followed by `.`.

use super::Pass;
use crate::edit::Edit;
use crate::gate::Status;
use crate::lex::Tok;
use crate::version::Version;

/// The first release whose HIP headers declare the index variables' components as
/// `unsigned int` properties (ROCm/clr `0f9f8b52`, "Make threadIdx, blockIdx compatible with
/// CUDA": absent from the `rocm-6.0.2` tag's `amd_hip_runtime.h`, present in `rocm-6.1.0`'s).
/// Before it `threadIdx.x` is an object that converts to `unsigned int`, which a variadic
/// argument never does: device `printf` stops the build ("cannot compile this non-scalar arg to
/// printf yet", ROCm/hip#2963, closed as won't fix).
const SCALAR_COMPONENTS: Version = Version::new(6, 1, 0);

const NAMES: &[&str] = &["threadIdx", "blockIdx", "blockDim", "gridDim"];

const ARITH: &[&[u8]] = &[b"*", b"+", b"-", b"/", b"%"];

pub(super) fn run(p: &mut Pass) {
    let lexed = p.lexed;
    let code = |i: usize| lexed.tokens[i].kind != Tok::Comment;
    let next = |i: usize| (i + 1..lexed.tokens.len()).find(|&j| code(j));
    let prev = |i: usize| (0..i).rev().find(|&j| code(j));
    let uses: Vec<usize> = (0..lexed.tokens.len())
        .filter(|&i| {
            lexed.tokens[i].kind == Tok::Ident && NAMES.iter().any(|n| n.as_bytes() == p.text(i))
        })
        .collect();
    if uses.is_empty() {
        return;
    }
    // Names the file declares itself (`dim3 blockDim(16, 16);`): a type word before them,
    // or a pointer or reference declarator after a vector type (gadgetron's `setup_grid(unsigned int n,
    // dim3 *blockDim, dim3* gridDim)`, whose `*blockDim = dim3(256)` is no built-in), where
    // what comes before the type starts a declaration (`(`, `,`, `;`, a brace, a qualifier):
    // `x = a * blockDim` is arithmetic.
    let type_word = |k: usize| {
        lexed.tokens[k].kind == Tok::Ident
            && !matches!(p.text(k), b"return" | b"case" | b"sizeof" | b"else")
    };
    let declared: Vec<&[u8]> = uses
        .iter()
        .filter(|&&i| {
            !lexed.tokens[i].in_directive()
                && prev(i).is_some_and(|k| {
                    type_word(k)
                        || (matches!(p.text(k), b"*" | b"&" | b"&&")
                            && prev(k).is_some_and(|t| {
                                // cp2k's `compute_block_boundaries(const int *blockDim, …)`:
                                // a pointer to a built-in type is a parameter too.
                                matches!(
                                    p.text(t),
                                    b"dim3"
                                        | b"uint3"
                                        | b"int3"
                                        | b"auto"
                                        | b"int"
                                        | b"unsigned"
                                        | b"long"
                                        | b"short"
                                        | b"char"
                                        | b"float"
                                        | b"double"
                                        | b"size_t"
                                        | b"void"
                                ) && prev(t).is_none_or(|b| {
                                    matches!(
                                        p.text(b),
                                        b"(" | b"," | b";" | b"{" | b"}" | b"const" | b"volatile"
                                    )
                                })
                            }))
                })
        })
        .map(|&i| p.text(i))
        .collect();
    let mut lines: Vec<(usize, usize, usize, Vec<String>)> = Vec::new();
    for &i in &uses {
        let name = p.text(i);
        if declared.contains(&name) {
            continue;
        }
        // Neighbours on the same line of a macro body (or in code, for code).
        let here = lexed.tokens[i].directive;
        let next = |k: usize| next(k).filter(|&j| lexed.tokens[j].directive == here);
        let prev = |k: usize| prev(k).filter(|&j| lexed.tokens[j].directive == here);
        let after = next(i).map(|j| p.text(j));
        if matches!(after, Some(b"." | b"->" | b"(" | b"[")) {
            continue;
        }
        let before = prev(i).map(|j| p.text(j));
        let arithmetic =
            before.is_some_and(|b| ARITH.contains(&b)) || after.is_some_and(|a| ARITH.contains(&a));
        // `uint3 t = threadIdx;`, `const int3 b = blockIdx;`
        let vector_init = before == Some(b"=")
            && prev(i)
                .and_then(prev)
                .and_then(prev)
                .is_some_and(|t| matches!(p.text(t), b"uint3" | b"int3"));
        if !(arithmetic || vector_init) {
            continue;
        }
        // A unary minus or a pointer (`*threadIdx`) is not CUDA code anyone writes; an
        // operator right after `(`, `,` or `=` is unary: leave it.
        if before.is_some_and(|b| ARITH.contains(&b))
            && prev(i)
                .and_then(prev)
                .is_none_or(|k| matches!(p.text(k), b"(" | b"," | b"=" | b"return"))
            && !after.is_some_and(|a| ARITH.contains(&a))
        {
            continue;
        }
        let n = String::from_utf8_lossy(name).into_owned();
        let t = lexed.tokens[i];
        p.edits.push(Edit::replace(
            t.start as usize,
            t.end as usize,
            format!("make_uint3({n}.x, {n}.y, {n}.z)"),
        ));
        p.stats.fixups += 1;
        let line = p.ctx.lines.line_of(t.start as usize);
        match lines.last_mut() {
            Some(l) if l.0 == line => {
                l.2 = t.end as usize;
                if !l.3.contains(&n) {
                    l.3.push(n);
                }
            }
            _ => lines.push((line, t.start as usize, t.end as usize, vec![n])),
        }
    }
    for (_, start, end, names) in lines {
        let list = names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut f = p.ctx.finding(
            &super::rules::BUILTIN_INDEX_VECTOR,
            start..end,
            format!("{list} used as a whole vector: CUDA's are `uint3`/`dim3` values, HIP's are structs that convert only to `dim3`, so no `uint3` operator or initialiser takes them; `hipport port` wrote `make_uint3(v.x, v.y, v.z)`, the value CUDA had (done)"),
            None,
        );
        f.status = Status::Pass;
        p.findings.push(f);
    }
}

/// `printf("%u", threadIdx.x)` below ROCm 6.1: every argument after the format that is exactly
/// one component of an index variable gets `(unsigned int)`, the type CUDA gives it (HP026,
/// PASS: done). An argument that is an expression (`threadIdx.x + 1`) already has that type
/// through HIP's operators; a second run changes nothing, since the cast is no longer bare.
pub(super) fn printf_args(p: &mut Pass, i: usize) {
    if p.opts.target.rocm >= SCALAR_COMPONENTS {
        return;
    }
    let Some((_, args, _)) = super::fixups::call_args(p, i) else {
        return;
    };
    let toks = &p.lexed.tokens;
    let code: Vec<Vec<usize>> = args
        .iter()
        .map(|&(a, b)| (a..b).filter(|&k| toks[k].kind != Tok::Comment).collect())
        .collect();
    let mut cast = Vec::new();
    for arg in code.iter().skip(1) {
        let [v, dot, c] = arg[..] else { continue };
        if NAMES.iter().any(|n| n.as_bytes() == p.text(v))
            && p.text(dot) == b"."
            && matches!(p.text(c), b"x" | b"y" | b"z")
        {
            cast.push((v, c));
        }
    }
    if cast.is_empty() {
        return;
    }
    let shown: Vec<String> = cast
        .iter()
        .map(|&(v, c)| {
            format!(
                "`{}.{}`",
                String::from_utf8_lossy(p.text(v)),
                String::from_utf8_lossy(p.text(c))
            )
        })
        .collect();
    for &(v, _) in &cast {
        let at = p.lexed.tokens[v].start as usize;
        p.edits.push(Edit::insert(at, "(unsigned int)"));
        p.stats.fixups += 1;
    }
    let t = p.lexed.tokens[i];
    let end = p.lexed.tokens[cast.last().expect("non-empty").1].end as usize;
    let mut f = p.ctx.finding(
        &super::rules::INDEX_COMPONENT_VARARG,
        t.start as usize..end,
        format!(
            "{} passed to `printf` as is: before ROCm 6.1 HIP's index components are objects that convert to `unsigned int`, which a variadic argument never does, so hipcc stops (\"cannot compile this non-scalar arg to printf yet\") at target ROCm {}; `hipport port` wrote `(unsigned int)`, the type CUDA gives them (done)",
            shown.join(", "),
            p.opts.target.rocm
        ),
        None,
    );
    f.status = Status::Pass;
    p.findings.push(f);
}

#[cfg(test)]
mod tests {
    fn port(src: &str) -> (String, usize) {
        let t = crate::translate::translate_for_tests(src, "6.2");
        let n = t.findings.iter().filter(|f| f.rule == "HP024").count();
        (String::from_utf8(t.output).unwrap(), n)
    }

    /// Arithmetic and a `uint3` initialiser are rewritten; an argument, a `dim3`, a member
    /// access and a file's own variable of the name are not; a second run changes nothing.
    #[test]
    fn whole_index_vectors_become_make_uint3_where_a_uint3_is_needed() {
        let src = "__global__ void k(uint3* o) {\n  o[0] = blockIdx * blockDim + threadIdx;\n  uint3 t = threadIdx;\n  f(threadIdx);\n  dim3 d = blockIdx;\n  o[1].x = threadIdx.x * 2;\n}\n";
        let (out, n) = port(src);
        assert!(out.contains("o[0] = make_uint3(blockIdx.x, blockIdx.y, blockIdx.z) * make_uint3(blockDim.x, blockDim.y, blockDim.z) + make_uint3(threadIdx.x, threadIdx.y, threadIdx.z);"), "{out}");
        assert!(
            out.contains("uint3 t = make_uint3(threadIdx.x, threadIdx.y, threadIdx.z);"),
            "{out}"
        );
        assert!(
            out.contains("f(threadIdx);") && out.contains("dim3 d = blockIdx;"),
            "{out}"
        );
        assert_eq!(n, 2);
        assert_eq!(port(&out).0, out);
        let own =
            "void h() {\n  dim3 blockDim(16, 16);\n  int n = 64 / blockDim.x + blockDim * 0;\n}\n";
        assert_eq!(port(own), (own.to_string(), 0));
        // gadgetron's `setup_grid`: host parameters `dim3 *blockDim, dim3* gridDim`, written
        // through (`*blockDim = dim3(256);`), are the function's own; twin: a product of a
        // local and the built-in in an argument is still the built-in.
        let params = "inline void setup_grid(unsigned int n, dim3 *blockDim, dim3* gridDim) {\n  *blockDim = dim3(256);\n  *gridDim = dim3((n + blockDim->x - 1) / blockDim->x);\n}\n";
        assert_eq!(port(params), (params.to_string(), 0));
        // cp2k's C prototype `compute_block_boundaries(const int *blockDim, …)` in a header
        // the CPU sources include: a parameter, not the built-in.
        let proto = "extern void compute_block_boundaries(\n    const int *blockDim, const int *lb_grid,\n    int *pol_offsets);\nvoid g(unsigned *gridDim);\n";
        assert_eq!(port(proto), (proto.to_string(), 0));
        let product = "__global__ void k(uint3* o, uint3 s) {\n  f(s * blockIdx);\n}\n";
        let (out, n) = port(product);
        assert!(
            out.contains("f(s * make_uint3(blockIdx.x, blockIdx.y, blockIdx.z));") && n == 1,
            "{out}"
        );
    }

    /// Bare components passed to `printf` get the cast below 6.1 (one finding per call); an
    /// expression, the format itself and a 6.1 target are left; a second run changes nothing.
    #[test]
    fn bare_index_components_passed_to_printf_are_cast_before_rocm_6_1() {
        let src = "__global__ void k(int n) {\n  printf(\"%u %u %d\\n\", blockIdx.x, threadIdx.y, n);\n  printf(\"%u\\n\", threadIdx.x + 1);\n}\n";
        let t = crate::translate::translate_for_tests(src, "5.2");
        let out = String::from_utf8(t.output).unwrap();
        assert!(
            out.contains(
                "printf(\"%u %u %d\\n\", (unsigned int)blockIdx.x, (unsigned int)threadIdx.y, n);"
            ),
            "{out}"
        );
        assert!(out.contains("printf(\"%u\\n\", threadIdx.x + 1);"), "{out}");
        let hp026: Vec<_> = t.findings.iter().filter(|f| f.rule == "HP026").collect();
        assert_eq!(hp026.len(), 1);
        assert!(hp026[0].message.contains("`blockIdx.x`, `threadIdx.y`"));
        let again = crate::translate::translate_for_tests(&out, "5.2");
        assert_eq!(String::from_utf8(again.output).unwrap(), out);
        let at61 = crate::translate::translate_for_tests(src, "6.1");
        assert!(!String::from_utf8(at61.output)
            .unwrap()
            .contains("(unsigned int)"));
        assert!(at61.findings.iter().all(|f| f.rule != "HP026"));
    }
}
