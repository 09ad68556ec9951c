//! PTX inside Triton kernels: `tl.inline_asm_elementwise("bar.sync 0;", …)` hands its text to
//! the backend's assembler. ROCm's Triton backend assembles AMDGCN, so a PTX body fails when
//! the kernel is compiled on ROCm (at its first launch). The string is device code the C++
//! rules never see; this reads it where Triton does: the `asm` argument of the call, a string
//! literal (f-strings and implicit concatenations included) or a name assigned one in the same
//! file.
//!
//! PTX is told from AMDGCN by its instruction names: every PTX instruction carries dotted
//! qualifiers (`mov.u32`, `bar.sync`, `atom.global.cas.b32`, `.reg .pred`), AMDGCN mnemonics
//! never do (`v_add_f32`, `s_barrier`, `global_load_dword`). One finding per call (HP912), with
//! what Triton itself offers for the instructions it names. A call in an arm the ROCm build
//! does not run is settled by the file's platform model, like every Python finding.

use super::{args, keyword};
use crate::inventory::ts;
use crate::inventory::{ptx, Out};
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use tree_sitter::Node;

/// The instruction names of an inline-assembly body that are PTX (distinct, in order of first
/// use).
pub fn ptx_instructions(asm: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for stmt in asm.split([';', '\n', '{', '}']) {
        let mut s = stmt.trim();
        // A label (`send_signal:`) and a guard predicate (`@%p0`, `@!%p0`) come first.
        if let Some((l, rest)) = s.split_once(':') {
            if !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                s = rest.trim();
            }
        }
        if s.starts_with('@') {
            s = s
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r.trim());
        }
        let head = s.split(char::is_whitespace).next().unwrap_or("");
        if is_ptx_name(head) {
            // `multimem.ld_reduce.relaxed.sys…` is shown as its first two parts.
            let short: String = head.split('.').take(2).collect::<Vec<_>>().join(".");
            let short = if head.starts_with('.') {
                head.to_string()
            } else {
                short
            };
            if !found.contains(&short) {
                found.push(short);
            }
        }
    }
    found
}

/// The first four instruction names in backticks, `, …` when there are more.
pub fn listed(ins: &[String]) -> String {
    let shown: Vec<String> = ins.iter().take(4).map(|i| format!("`{i}`")).collect();
    let more = if ins.len() > shown.len() { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// Orders instruction names by what the code does first; declarations and predicate plumbing
/// last (stable otherwise).
pub fn doing_first(ins: &mut [String]) {
    ins.sort_by_key(|i| match i.split('.').next().unwrap_or("") {
        "" => 2,
        "setp" | "bra" | "mov" | "selp" => 1,
        _ => 0,
    });
}

/// `mov.u32`, `bar.sync`, `.reg`: a PTX instruction or directive name.
fn is_ptx_name(w: &str) -> bool {
    if let Some(d) = w.strip_prefix('.') {
        return matches!(d, "reg" | "local" | "shared" | "param" | "global" | "const");
    }
    let mut parts = w.split('.');
    let op = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    !op.is_empty()
        && op.starts_with(|c: char| c.is_ascii_lowercase())
        && op
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !rest.is_empty()
        && rest.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        })
}

/// What Triton offers for an instruction family, if anything.
fn advice(ins: &[String]) -> String {
    let has = |p: &str| ins.iter().any(|i| i.starts_with(p));
    let mut parts: Vec<&str> = Vec::new();
    if has("multimem.") {
        parts.push("`multimem.*` is NVLink SHARP multicast, which AMD GPUs do not have: reduce over the peers' buffers with per-peer loads, or through RCCL");
    }
    if has("bar.") {
        parts.push("`bar.sync` is `tl.debug_barrier()`");
    }
    if has("atom.") || has("red.") {
        parts.push("atomics are `tl.atomic_cas`/`tl.atomic_add` with `sem=`/`scope=`");
    }
    if has("ld.") || has("st.") {
        parts.push("plain loads and stores are `tl.load`/`tl.store` (`volatile=True` or `cache_modifier=` where the PTX sets a cache policy)");
    }
    let rest = "write it with Triton operations (bit ops, `tl.math`, `.to()`), or give the call an AMDGCN body under `torch.version.hip`";
    if parts.is_empty() {
        return rest.to_string();
    }
    format!("{}; otherwise {rest}", parts.join("; "))
}

/// The text of an `asm` argument: a string, an implicit concatenation of strings, or a name
/// assigned one string in this file (its literal parts only: `{sem}` in an f-string stays out).
fn asm_text(n: Node, src: &[u8]) -> Option<String> {
    match n.node_kind() {
        K::String => {
            let mut s = String::new();
            for c in ts::named_children(n) {
                // `atom.global.{sem}.sys.cas.b32`: a value stands where the name goes on.
                match c.node_kind() {
                    K::StringContent => s.push_str(ts::text(c, src)),
                    K::Interpolation => s.push('x'),
                    _ => {}
                }
            }
            Some(s)
        }
        K::ConcatenatedString => Some(
            ts::named_children(n)
                .into_iter()
                .filter_map(|c| asm_text(c, src))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        K::ParenthesizedExpression => asm_text(ts::named_children(n).into_iter().next()?, src),
        K::Identifier => {
            let name = ts::text(n, src);
            let mut root = n;
            while let Some(p) = root.parent() {
                root = p;
            }
            let mut values = Vec::new();
            ts::each(root, &mut |a| {
                if a.node_kind() == K::Assignment
                    && a.field(F::Left).is_some_and(|l| ts::text(l, src) == name)
                {
                    if let Some(r) = a.field(F::Right) {
                        values.push(r);
                    }
                }
            });
            match values.as_slice() {
                [one] if one.node_kind() != K::Identifier => asm_text(*one, src),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `tl.inline_asm_elementwise(asm, …)` at `call`.
pub fn inline_asm(out: &mut Out, call: Node, func: Node, src: &[u8]) {
    let asm = keyword(call, "asm", src).or_else(|| {
        args(call)
            .into_iter()
            .find(|a| a.node_kind() != K::KeywordArgument && a.node_kind() != K::Comment)
    });
    let Some(asm) = asm else { return };
    let Some(text) = asm_text(asm, src) else {
        return;
    };
    let ins = ptx_instructions(&text);
    if ins.is_empty() {
        return;
    }
    let mut ins = ins;
    doing_first(&mut ins);
    // The function around the call, named so the project pass can tell whether anything calls
    // it ([`settle_uncalled`]).
    let around = enclosing_def(call, src).map_or(String::new(), |n| format!("{IN_FUNCTION}{n}`)"));
    out.push(
        &ptx::EMBEDDED_PTX,
        call.start_byte()..func.end_byte(),
        format!(
            "Triton inline assembly in PTX ({}): ROCm's Triton assembles AMDGCN, so this kernel fails to compile on ROCm at its first launch{around}",
            listed(&ins)
        ),
        Some(advice(&ins)),
    );
}

/// The marker before the name of the function a finding's call is in.
const IN_FUNCTION: &str = " (in `";

/// The name of the innermost `def` around `n`.
fn enclosing_def<'s>(n: Node, src: &'s [u8]) -> Option<&'s str> {
    let mut cur = n.parent();
    while let Some(p) = cur {
        if p.node_kind() == K::FunctionDefinition {
            return p.field(F::Name).map(|x| ts::text(x, src));
        }
        cur = p.parent();
    }
    None
}

/// HP912 in a function nothing in the project names but its own `def` (gemlite's
/// `next_power_of_2_logapprox_triton`, replaced by a bitwise variant the kernels call): Triton
/// compiles a `@triton.jit` function only when a launched kernel calls it, so ROCm never
/// assembles that PTX. `pythons` are the project's Python files. A name written anywhere else
/// (a call, an import, an assignment, a string) keeps the finding open.
pub fn settle_uncalled(findings: &mut [crate::finding::Finding], pythons: &[(&str, &[u8])]) {
    for f in findings.iter_mut() {
        if f.rule != ptx::EMBEDDED_PTX.id.code || f.status == crate::gate::Status::Pass {
            continue;
        }
        let Some(at) = f.message.rfind(IN_FUNCTION) else {
            continue;
        };
        let rest = &f.message[at + IN_FUNCTION.len()..];
        let Some(name) = rest.split('`').next().filter(|n| !n.is_empty()) else {
            continue;
        };
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let uses: usize = pythons
            .iter()
            .map(|(_, text)| {
                memchr::memmem::find_iter(text, name.as_bytes())
                    .filter(|&i| {
                        (i == 0 || !word(text[i - 1]))
                            && text.get(i + name.len()).is_none_or(|&b| !word(b))
                    })
                    .count()
            })
            .sum();
        if uses <= 1 {
            let name = name.to_string();
            f.settle(&format!(
                " — `{name}` is named nowhere else in the project's Python: Triton compiles a `@triton.jit` function only when a launched kernel calls it, so ROCm never assembles this PTX (port or delete it when something calls it)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ptx_instructions;
    use crate::gate::Status;
    use crate::inventory::{kind::FileKind, scan_bytes};

    fn triton(src: &str) -> Vec<(u32, Status, String)> {
        scan_bytes("k.py", FileKind::Python, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP912")
            .map(|f| (f.line, f.status, f.message))
            .collect()
    }

    #[test]
    fn ptx_bodies_are_found_amdgcn_bodies_and_rocm_arms_are_not_open() {
        // Megatron-LM's shape: a PTX barrier, an f-string CAS loop, a body held in a name.
        let src = "import torch\nimport triton.language as tl\n\ndef sync():\n    tl.inline_asm_elementwise(\"bar.sync 0;\", \"=r\", [], dtype=tl.int32, is_pure=False, pack=1)\n\ndef signal(a, sem):\n    tl.inline_asm_elementwise(f\"\"\"\n    atom.global.{sem}.sys.cas.b32 %t, [$1], 0, 1;\n    \"\"\", \"=r, l\", [a], dtype=a.dtype, is_pure=False, pack=1)\n\nBODY = \"prmt.b32 $0, $2, $3, $4;\"\ndef perm(x):\n    return tl.inline_asm_elementwise(asm=BODY, constraints=\"=r,r,r,r\", args=[x], dtype=tl.uint32, is_pure=True, pack=1)\n";
        let f = triton(src);
        let lines: Vec<u32> = f.iter().map(|x| x.0).collect();
        assert_eq!(lines, [5, 8, 14]);
        assert!(f.iter().all(|x| x.1 == Status::Remediation));
        assert!(f[0].2.contains("`bar.sync`"), "{}", f[0].2);
        assert!(f[1].2.contains("`atom.global`"), "{}", f[1].2);
        assert!(f[2].2.contains("`prmt.b32`"), "{}", f[2].2);
        // Negative twins: an AMDGCN body, a PTX body on the arm ROCm never takes, a body
        // whose text is not known here.
        let src = "import torch\nimport triton.language as tl\n\ndef add(x):\n    if torch.version.hip:\n        return tl.inline_asm_elementwise(\"v_add_f32 $0, $1, $2\", \"=v,v,v\", [x, x], dtype=tl.float32, is_pure=True, pack=1)\n    else:\n        return tl.inline_asm_elementwise(\"add.f32 $0, $1, $2;\", \"=r,r,r\", [x, x], dtype=tl.float32, is_pure=True, pack=1)\n\ndef other(x, body):\n    return tl.inline_asm_elementwise(body, \"=r,r\", [x], dtype=tl.float32, is_pure=True, pack=1)\n";
        let f = triton(src);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].0, f[0].1), (8, Status::Pass));
    }

    /// gemlite's `next_power_of_2_logapprox_triton`: a `@triton.jit` function with PTX that
    /// nothing in the project names is never compiled: PASS. Twins: a kernel in this file calls
    /// it; another file imports it.
    #[test]
    fn ptx_in_a_jit_function_nothing_calls_is_settled() {
        let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef log2_approx(x):\n    return tl.inline_asm_elementwise(\"lg2.approx.f32 $0, $1;\", \"=r,r\", [x], dtype=tl.float32, is_pure=True, pack=1)\n\n@triton.jit\ndef log2_exact(x):\n    return tl.log2(x)\n\nnext_pow2 = log2_exact\n";
        let settle = |files: &[(&str, &str)]| -> Vec<crate::gate::Status> {
            let mut f: Vec<crate::finding::Finding> =
                scan_bytes("q.py", FileKind::Python, files[0].1.as_bytes())
                    .into_iter()
                    .filter(|f| f.rule == "HP912")
                    .collect();
            let texts: Vec<(&str, &[u8])> = files.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
            super::settle_uncalled(&mut f, &texts);
            f.iter().map(|f| f.status).collect()
        };
        assert_eq!(settle(&[("q.py", src)]), [Status::Pass]);
        let called = src.replace("next_pow2 = log2_exact", "next_pow2 = log2_approx");
        assert_eq!(settle(&[("q.py", &called)]), [Status::Remediation]);
        let imported = [("q.py", src), ("k.py", "from q import log2_approx\n")];
        assert_eq!(settle(&imported), [Status::Remediation]);
    }

    #[test]
    fn ptx_is_told_from_amdgcn_by_its_dotted_names() {
        assert_eq!(ptx_instructions("bar.sync 0;"), ["bar.sync"]);
        assert_eq!(
            ptx_instructions(
                "{\n .reg .pred %p0;\n setp.ne.s32 %p0, $5, 1;\n @%p0 bra end;\n multimem.ld_reduce.relaxed.sys.global.add.v4.f32 {$0}, [$4];\n end:\n}"
            ),
            [".reg", "setp.ne", "multimem.ld_reduce"]
        );
        assert_eq!(
            ptx_instructions("send_signal:\n atom.global.relaxed.sys.cas.b32 %t, [$1], 0, 1;"),
            ["atom.global"]
        );
        // AMDGCN: no dotted mnemonics.
        assert!(ptx_instructions("v_add_f32 $0, $1, $2").is_empty());
        assert!(ptx_instructions("s_waitcnt vmcnt(0); global_load_dword $0, $1, off").is_empty());
        assert!(ptx_instructions("v_cvt_pk_fp8_f32 $0, $1, $2").is_empty());
    }
}
