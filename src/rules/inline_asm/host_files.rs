//! Inline assembly in files no CUDA compilation ever reads. PTX compiles only in device code,
//! and device code lives only in what nvcc compiles as CUDA: `.cu`/`.cuh` files and the headers
//! they include. A C/C++ file that declares no device code (no `__device__`, `__global__`,
//! `__CUDA_ARCH__` or `__CUDACC__` in its text) and that no CUDA file includes, directly or
//! through other headers, holds the host's assembly (`ret`, `trap` and `int $3` in a Linux kernel
//! module's headers, beside the NVIDIA driver a project vendors), whatever its mnemonics look
//! like: its HP201 findings are PASS, naming why.
//!
//! Includes are matched by file name (`#include <a/b/mma.h>` and `#include "mma.h"` both reach
//! every `mma.h` of the project), so a header some CUDA file may read through an include path
//! keeps its finding: the match errs towards keeping them.

use super::INLINE_PTX;
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeSet;

/// The file name of a path.
fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_cuda(rel: &str) -> bool {
    rel.ends_with(".cu") || rel.ends_with(".cuh")
}

/// Whether the text names device code or tests for a CUDA compilation.
fn names_device_code(bytes: &[u8]) -> bool {
    [
        &b"__device__"[..],
        b"__global__",
        b"__CUDA_ARCH__",
        b"__CUDACC__",
    ]
    .iter()
    .any(|w| memchr::memmem::find(bytes, w).is_some())
}

/// The file names each `#include` line of `bytes` names (quoted or angled).
fn included_names(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        let close = match rest.chars().next() {
            Some('"') => '"',
            Some('<') => '>',
            _ => continue,
        };
        if let Some(end) = rest[1..].find(close) {
            out.push(base(&rest[1..1 + end]).to_string());
        }
    }
    out
}

/// Settles the open HP201 findings of C/C++ files no CUDA file includes (see the module
/// documentation). `files`: every C/C++/CUDA source of the project with its text.
pub fn settle_host_files(findings: &mut [Finding], files: &[(&str, &[u8])]) {
    let flagged: BTreeSet<&str> = findings
        .iter()
        .filter(|f| {
            f.rule == INLINE_PTX.id.code
                && f.status != Status::Pass
                && !is_cuda(&f.path)
                && !f.message.contains(super::DEVICE_PASS)
        })
        .map(|f| f.path.as_str())
        .collect();
    let candidates: BTreeSet<String> = flagged
        .iter()
        .filter(|p| {
            files
                .iter()
                .find(|(r, _)| r == *p)
                .is_some_and(|(_, b)| !names_device_code(b))
        })
        .map(|p| p.to_string())
        .collect();
    if candidates.is_empty() {
        return;
    }
    // The file names CUDA compilation reaches: from every `.cu`/`.cuh`, through every file of a
    // reached name.
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut queue: Vec<&[u8]> = files
        .iter()
        .filter(|(r, _)| is_cuda(r))
        .map(|(_, b)| *b)
        .collect();
    while let Some(bytes) = queue.pop() {
        for name in included_names(bytes) {
            if name.is_empty() || reached.contains(&name) {
                continue;
            }
            queue.extend(
                files
                    .iter()
                    .filter(|(r, _)| base(r) == name)
                    .map(|(_, b)| *b),
            );
            reached.insert(name);
        }
    }
    for f in findings.iter_mut() {
        if f.rule != INLINE_PTX.id.code
            || f.status == Status::Pass
            || !candidates.contains(&f.path)
            || reached.contains(base(&f.path))
        {
            continue;
        }
        f.settle(&format!(
            " (host assembly: no CUDA source includes `{}`, directly or through other headers, and it declares no device code: nothing here is PTX)",
            base(&f.path)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ptx(path: &str) -> Finding {
        Finding {
            rule: INLINE_PTX.id.code.into(),
            message: "inline PTX does not compile for AMDGPU: `trap`".into(),
            ..Finding::bare("HP201", path, 5)
        }
    }

    /// A driver header's `trap` that only C files include is host assembly; the twins: the same
    /// header once a `.cu` file includes it (through another header, by an angled path), a
    /// header that declares device code, and a `.cuh` keep the finding.
    #[test]
    fn asm_in_files_no_cuda_source_reads_is_host_assembly() {
        let brk: &[u8] = b"static inline void dbg_breakpoint(void) {\n#if defined(NVCPU_PPC64LE)\n  __asm__ __volatile__ (\"trap\");\n#endif\n}\n";
        let dev: &[u8] = b"__device__ inline void stop() { asm(\"trap;\"); }\n";
        let driver_c: &[u8] = b"#include \"nvlink_linux.h\"\nint main(void) { return 0; }\n";
        let mut fs = vec![
            ptx("driver/nvlink_linux.h"),
            ptx("kern/dev.h"),
            ptx("kern/stop.cuh"),
        ];
        let files: Vec<(&str, &[u8])> = vec![
            ("driver/nvlink_linux.h", brk),
            ("driver/nvlink.c", driver_c),
            ("kern/dev.h", dev),
            ("kern/stop.cuh", dev),
        ];
        settle_host_files(&mut fs, &files);
        assert_eq!(fs[0].status, Status::Pass);
        assert!(fs[0]
            .message
            .contains("host assembly: no CUDA source includes `nvlink_linux.h`"));
        assert_eq!(fs[1].status, Status::Remediation);
        assert_eq!(fs[2].status, Status::Remediation);
        // Twin: a CUDA file reaches the header through another one, by an angled path.
        let mut twin = vec![ptx("driver/nvlink_linux.h")];
        let files2: Vec<(&str, &[u8])> = vec![
            ("driver/nvlink_linux.h", brk),
            ("driver/wrap.h", b"#include <driver/nvlink_linux.h>\n"),
            (
                "k.cu",
                b"#include \"driver/wrap.h\"\n__global__ void k() {}\n",
            ),
        ];
        settle_host_files(&mut twin, &files2);
        assert_eq!(twin[0].status, Status::Remediation);
    }
}
