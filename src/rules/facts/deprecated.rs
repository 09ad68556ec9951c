//! A deprecated HIP API (HP002) is a port item only where a deprecation warning stops the
//! build. The target ROCm still has the API (a removed one is HP001), so `hipcc` compiles the
//! call with a `-Wdeprecated-declarations` warning, and the port builds and runs unless the
//! project turns warnings into errors. Read from the build files the inventory kept: a
//! `-Werror` (or `-Werror=deprecated-declarations`, CMake's `COMPILE_WARNING_AS_ERROR`) in any
//! of them, not cancelled by `-Wno-error=deprecated-declarations` or
//! `-Wno-deprecated-declarations`, keeps every HP002 open; without one, each is PASS, saying
//! that the move to the replacement is for before ROCm removes the API.

use crate::finding::Finding;
use crate::gate::Status;

/// The warning kinds nvcc's `-Werror <kind>` takes.
const NVCC_KINDS: &[&str] = &[
    "all-warnings",
    "cross-execution-space-call",
    "reorder",
    "default-stream-launch",
    "missing-launch-bounds",
    "ext-lambda-captures-this",
];

/// Where a build file makes deprecation warnings errors: the file and the option.
pub fn werror_in<'a>(texts: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Option<String> {
    let mut found = None;
    for (rel, bytes) in texts {
        let text = String::from_utf8_lossy(bytes);
        if text.contains("-Wno-error=deprecated-declarations")
            || text.contains("-Wno-deprecated-declarations")
        {
            return None;
        }
        if found.is_some() {
            continue;
        }
        for (at, _) in text.match_indices("-Werror") {
            let rest = &text[at + "-Werror".len()..];
            // nvcc's own `--Werror <kind>` / `-Werror all-warnings` never reach hipcc.
            let nvcc = text[..at].ends_with('-')
                || NVCC_KINDS
                    .iter()
                    .any(|k| rest.trim_start_matches([' ', '\t', '=']).starts_with(k));
            if nvcc {
                continue;
            }
            let all = !rest.starts_with('=') && !rest.starts_with(|c: char| c.is_alphanumeric());
            if all || rest.starts_with("=deprecated") {
                found = Some(format!("`-Werror` in {rel}"));
                break;
            }
        }
        if found.is_none() && text.contains("COMPILE_WARNING_AS_ERROR") {
            found = Some(format!("`COMPILE_WARNING_AS_ERROR` in {rel}"));
        }
    }
    found
}

/// Settles the open HP002 findings when no build file makes deprecation warnings errors.
pub fn settle_deprecated<'a>(
    findings: &mut [Finding],
    texts: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) {
    const HP002: &str = crate::translate::rules::DEPRECATED_API.id.code;
    if !findings
        .iter()
        .any(|f| f.rule == HP002 && f.status != Status::Pass)
    {
        return;
    }
    if werror_in(texts).is_some() {
        return;
    }
    for f in findings
        .iter_mut()
        .filter(|f| f.rule == HP002 && f.status != Status::Pass)
    {
        f.settle(" — deprecated, not removed: the target ROCm compiles it with a warning and no build file of the project turns warnings into errors (`-Werror`), so the port builds and runs; move to the replacement before a ROCm upgrade removes it");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hp002() -> Finding {
        let lines = crate::lines::LineIndex::new(b"cudaThreadSynchronize();\n");
        let ctx = crate::registry::FileCtx {
            path: "a.cu",
            src: b"cudaThreadSynchronize();\n",
            lines: &lines,
        };
        ctx.finding(
            &crate::translate::rules::DEPRECATED_API,
            0..21,
            "`x` → `y`, which is deprecated since HIP 5.2".into(),
            None,
        )
    }

    #[test]
    fn deprecated_apis_build_unless_warnings_are_errors() {
        let mut fs = vec![hp002()];
        settle_deprecated(
            &mut fs,
            [(
                "CMakeLists.txt",
                &b"add_compile_options(-Wall -Werror=return-type)\n"[..],
            )],
        );
        assert_eq!(fs[0].status, Status::Pass);
        assert!(fs[0].message.contains("no build file"), "{}", fs[0].message);
        // Twins: `-Werror` (and the deprecation one) keep it open; cancelling it settles it.
        for text in [
            &b"CFLAGS += -Wall -Werror\n"[..],
            b"set(CMAKE_CXX_FLAGS \"-Werror=deprecated-declarations\")\n",
            b"set_target_properties(t PROPERTIES COMPILE_WARNING_AS_ERROR ON)\n",
        ] {
            let mut fs = vec![hp002()];
            settle_deprecated(&mut fs, [("Makefile", text)]);
            assert_eq!(
                fs[0].status,
                Status::Remediation,
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        let mut fs = vec![hp002()];
        settle_deprecated(
            &mut fs,
            [(
                "Makefile",
                &b"CFLAGS += -Werror -Wno-error=deprecated-declarations\n"[..],
            )],
        );
        assert_eq!(fs[0].status, Status::Pass);
        // nvcc's own option (AMGX) never reaches hipcc.
        let mut fs = vec![hp002()];
        let nvcc = &b"set(CUDA_NVCC_FLAGS --Werror cross-execution-space-call)\n"[..];
        settle_deprecated(&mut fs, [("CMakeLists.txt", nvcc)]);
        assert_eq!(fs[0].status, Status::Pass);
    }
}
