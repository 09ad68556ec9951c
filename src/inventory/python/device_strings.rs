//! PTX in CUDA device code that a Python string holds. Libraries that compile kernels at run
//! time keep their device code in Python strings: TVM and BitBLAS inject intrinsics
//! (`decode_i4_to_f16 = """ … asm volatile("lop3.b32 …") … """`) into the kernels they generate,
//! CuPy's `RawKernel`/`RawModule` and PyTorch's `load_inline` compile a string with NVRTC or
//! nvcc. On ROCm the same string goes to hiprtc or hipcc, which assemble AMDGCN: an `asm`
//! statement in PTX fails when the kernel is compiled, at run time. The C++ rules never see
//! these strings; this reads the `asm` statements in them.
//!
//! One finding per string (HP913) naming its PTX instructions; a file's strings are one
//! decision (`decisions::per_file`). A string in an arm the ROCm build does not run is settled
//! by the file's platform model, like every Python finding.

use crate::inventory::Out;
use std::ops::Range;

rule!(PTX_IN_PYTHON_DEVICE_CODE, "HP913", PtxArtifact, Remediation, Runtime,
    summary: "Inline PTX in CUDA device code held in a Python string (TVM intrinsics, CuPy `RawKernel`, `load_inline`).",
    why: "The string is compiled at run time for the GPU; on ROCm hiprtc or hipcc compile it and reject PTX `asm` statements, so the kernel fails when it is first built.",
    bad: "DECODE = \"\"\"__device__ void d(uint *h, uint v) { asm volatile(\"lop3.b32 %0, %1, %2, %3, 0xea;\" : \"=r\"(h[0]) : \"r\"(v), \"n\"(15), \"n\"(0)); }\"\"\"",
    good: "DECODE = \"\"\"__device__ void d(uint *h, uint v) { h[0] = (v & 15) | 0; }\"\"\"  # or an AMDGCN builtin, chosen for ROCm",
    fix: "Write the instructions in plain C++ or HIP/AMDGCN builtins (`__builtin_amdgcn_perm`, `__builtin_amdgcn_ubfe`), and pick that string when the target is ROCm.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html"],
);

/// The PTX instruction names of the `asm` statements in C/C++ source text (distinct, in order)
/// and the offset of the first statement that has any.
pub fn asm_ptx(code: &str) -> (Vec<String>, usize) {
    let b = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut found: Vec<String> = Vec::new();
    let mut first = 0;
    let mut from = 0;
    while let Some(p) = code[from..].find("asm") {
        let at = from + p;
        from = at + 3;
        // The whole word: `asm`, `__asm`, `__asm__`.
        let start = (0..at)
            .rev()
            .take_while(|&k| word(b[k]))
            .last()
            .unwrap_or(at);
        let end = (at..b.len()).find(|&k| !word(b[k])).unwrap_or(b.len());
        if !matches!(&code[start..end], "asm" | "__asm" | "__asm__") {
            continue;
        }
        let mut rest = code[end..].trim_start();
        // `asm volatile (`, `asm __volatile__(`.
        for q in ["volatile", "__volatile__"] {
            if let Some(r) = rest.strip_prefix(q) {
                rest = r.trim_start();
            }
        }
        if !rest.starts_with('(') {
            continue;
        }
        // The template: the C strings before the first `:` or the closing parenthesis.
        let mut text = String::new();
        let mut chars = rest[1..].char_indices();
        let mut in_str = false;
        let mut prev = ' ';
        for (_, c) in chars.by_ref() {
            if in_str {
                if c == '"' && prev != '\\' {
                    in_str = false;
                    text.push('\n');
                } else {
                    text.push(c);
                }
            } else if c == '"' {
                in_str = true;
            } else if c == ':' || c == ')' || c == ';' {
                break;
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
        }
        // `\n` and `\t` written in the C string separate statements.
        let text = text.replace("\\n", "\n").replace("\\t", " ");
        let ins = super::triton_asm::ptx_instructions(&text);
        if found.is_empty() && !ins.is_empty() {
            first = start;
        }
        for i in ins {
            if !found.contains(&i) {
                found.push(i);
            }
        }
    }
    (found, first)
}

/// A Python string `s` at `r` holding CUDA device code with PTX `asm` statements.
pub fn check(out: &mut Out, s: &str, r: Range<usize>) {
    if !s.contains("asm") || !(s.contains("__device__") || s.contains("__global__")) {
        return;
    }
    let (mut ins, first) = asm_ptx(s);
    if ins.is_empty() {
        return;
    }
    super::triton_asm::doing_first(&mut ins);
    // At the first `asm` statement with PTX.
    let at = r.start + first;
    out.push(
        &PTX_IN_PYTHON_DEVICE_CODE,
        at..at + 3,
        format!(
            "CUDA device code in a Python string uses inline PTX ({}): it is compiled at run time (TVM, CuPy, NVRTC, `load_inline`), and on ROCm hiprtc/hipcc reject PTX",
            super::triton_asm::listed(&ins)
        ),
        Some("write the instructions in plain C++ or AMDGCN builtins and use that string when the target is ROCm".into()),
    );
}

#[cfg(test)]
mod tests {
    use super::asm_ptx;
    use crate::gate::Status;
    use crate::inventory::{kind::FileKind, scan_bytes};

    fn found(src: &str) -> Vec<(u32, Status, String)> {
        scan_bytes("intrin.py", FileKind::Python, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP913")
            .map(|f| (f.line, f.status, f.message))
            .collect()
    }

    #[test]
    fn asm_statements_give_their_ptx() {
        let code = r#"__device__ void f(uint *h, uint i4s) {
            asm volatile("lop3.b32 %0, %1, %2, %3, %4;\n" : "=r"(h[0]) : "r"(i4s));
            asm volatile("sub.f16x2 %0, %1, %2;\n" : "=r"(h[0]) : "r"(h[0]), "r"(7));
            __asm__ __volatile__("mov.b32 %0, %1;" : "=r"(x) : "r"(y));
            int asmx = plasma(3);
        }"#;
        assert_eq!(asm_ptx(code).0, ["lop3.b32", "sub.f16x2", "mov.b32"]);
        // An AMDGCN body names no PTX.
        assert!(
            asm_ptx(r#"asm volatile("v_add_f32 %0, %1, %2" : "=v"(a) : "v"(b), "v"(c));"#)
                .0
                .is_empty()
        );
    }

    /// BitBLAS' `bitblas/gpu/intrin/lop3.py` shape: an intrinsic held in a triple-quoted string.
    /// Twins: the same text with no device code (a docstring about PTX), a HIP body, a string
    /// in the file's ROCm arm.
    #[test]
    fn device_code_strings_with_ptx_are_found() {
        let src = "decode = \"\"\"\ntemplate <typename T>\n__device__ void decode(T *h, uint i4s) {\n    asm volatile(\"lop3.b32 %0, %1, %2, %3, %4;\\\\n\" : \"=r\"(h[0]) : \"r\"(i4s), \"n\"(1), \"n\"(2), \"n\"(3));\n}\n\"\"\"\n\nDOC = \"\"\"Uses asm(\"lop3.b32 ...\") on NVIDIA.\"\"\"\n\nhip = \"\"\"__device__ int f(int a) { int r; asm volatile(\"v_mov_b32 %0, %1\" : \"=v\"(r) : \"v\"(a)); return r; }\"\"\"\n";
        let f = found(src);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, 4);
        assert_eq!(f[0].1, Status::Remediation);
        assert!(f[0].2.contains("`lop3.b32`"), "{}", f[0].2);
        let guarded = "import torch\nif torch.version.hip:\n    K = \"\"\"__device__ int f(int a) { int r; return a; }\"\"\"\nelse:\n    K = \"\"\"__device__ int f(int a) { int r; asm(\"mov.b32 %0, %1;\" : \"=r\"(r) : \"r\"(a)); return r; }\"\"\"\n";
        let g = found(guarded);
        assert!(
            !g.is_empty() && g.iter().all(|(_, s, _)| *s == Status::Pass),
            "{g:?}"
        );
    }
}
