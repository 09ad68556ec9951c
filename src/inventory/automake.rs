//! Automake conditionals (`if HAVE_CUDA` … `else` … `endif` in `Makefile.am`): what a project
//! with its own ROCm build (a ROCm-named conditional in some `Makefile.am`, ucx's `if
//! HAVE_ROCM`) builds only under a CUDA-named one. A program or library added only there
//! (`noinst_PROGRAMS += test_mpi_cuda`, `noinst_LTLIBRARIES += libtest_cuda_common.la`) is the
//! CUDA build's, and so are its sources (`test_mpi_cuda_SOURCES = test_mpi_cuda.c`, or Automake's
//! default `test_mpi_cuda.c`), and a folder only such an arm adds to `SUBDIRS`.
//!
//! A project with no ROCm-named conditional keeps everything: its CUDA arms are the port's work.

use super::cmake::name_platform;
use std::collections::BTreeSet;

/// Whether some `Makefile.am` of the project tests a ROCm-named conditional.
pub fn has_rocm_conditional(files: &[(&str, &[u8])]) -> bool {
    files.iter().any(|(rel, text)| {
        is_am(rel)
            && String::from_utf8_lossy(text)
                .lines()
                .any(|l| conditional(l).is_some_and(|(name, _)| name_platform(name) == Some(true)))
    })
}

fn is_am(rel: &str) -> bool {
    rel.rsplit('/').next() == Some("Makefile.am")
}

/// `if NAME` / `if !NAME`: the name and whether it is negated.
fn conditional(line: &str) -> Option<(&str, bool)> {
    let rest = line.strip_prefix("if ")?.trim();
    let (neg, name) = match rest.strip_prefix('!') {
        Some(n) => (true, n.trim()),
        None => (false, rest),
    };
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then_some((name, neg))
}

/// Automake's canonical name of a program or library (`libtest_cuda_common.la` →
/// `libtest_cuda_common_la`).
fn canonical(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '@' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The sources and folders (`dir/`) of one `Makefile.am` (paths next to it) that only its
/// CUDA-named arms build, each with the conditional, as `(path, why)`.
pub fn cuda_only(rel: &str, text: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(text);
    // Join continuation lines, keeping each logical line's first line number.
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (i, raw) in text.lines().enumerate() {
        let body = raw.split('#').next().unwrap_or("");
        let (part, cont) = match body.trim_end().strip_suffix('\\') {
            Some(p) => (p, true),
            None => (body, false),
        };
        if open {
            if let Some(last) = lines.last_mut() {
                last.1.push(' ');
                last.1.push_str(part);
            }
        } else {
            lines.push((i + 1, part.to_string()));
        }
        open = cont;
    }
    // The arms around each line: (conditional, taken when true, line of the `if`).
    let mut stack: Vec<(String, bool, usize)> = Vec::new();
    let mut inside: Vec<(String, String)> = Vec::new();
    let mut outside: BTreeSet<String> = BTreeSet::new();
    let mut sources: Vec<(String, Vec<String>)> = Vec::new();
    for (n, l) in &lines {
        let t = l.trim();
        if let Some((name, neg)) = conditional(t) {
            stack.push((name.to_string(), !neg, *n));
            continue;
        }
        if t == "else" || t.starts_with("else ") {
            if let Some(top) = stack.last_mut() {
                top.1 = !top.1;
            }
            continue;
        }
        if t == "endif" || t.starts_with("endif ") {
            stack.pop();
            continue;
        }
        let Some((lhs, rhs)) = t.split_once('=') else {
            continue;
        };
        let lhs = lhs.trim_end_matches(['+', ':']).trim();
        let words: Vec<&str> = rhs
            .split_whitespace()
            .filter(|w| !w.contains('$'))
            .collect();
        // The CUDA arm this line is in, if any: a CUDA-named conditional taken when true, or a
        // ROCm-named one taken when false.
        let dead = stack
            .iter()
            .find_map(|(name, taken, at)| match (name_platform(name), taken) {
                (Some(false), true) => Some(format!("`if {name}` ({rel}:{at})")),
                (Some(true), false) => Some(format!("the `else` of `if {name}` ({rel}:{at})")),
                _ => None,
            });
        if let Some(target) = lhs.strip_suffix("_SOURCES") {
            sources.push((
                target.to_string(),
                words.iter().map(|w| w.to_string()).collect(),
            ));
            continue;
        }
        let adds = lhs.ends_with("_PROGRAMS")
            || lhs.ends_with("_LTLIBRARIES")
            || lhs.ends_with("_LIBRARIES");
        let subdirs = lhs == "SUBDIRS";
        if !(adds || subdirs) {
            continue;
        }
        for w in words {
            let key = if subdirs {
                if w == "." {
                    continue;
                }
                format!("{}/", w.trim_end_matches('/'))
            } else {
                canonical(w)
            };
            match &dead {
                Some(why) => inside.push((key, why.clone())),
                None => {
                    outside.insert(key);
                }
            }
        }
    }
    let dir = rel
        .rsplit_once('/')
        .map_or(String::new(), |(d, _)| format!("{d}/"));
    let mut out: Vec<(String, String)> = Vec::new();
    for (key, why) in inside.iter().filter(|(k, _)| !outside.contains(k)) {
        if key.ends_with('/') {
            out.push((format!("{dir}{key}"), why.clone()));
            continue;
        }
        let listed: Vec<&String> = sources
            .iter()
            .filter(|(t, _)| t == key)
            .flat_map(|(_, s)| s)
            .collect();
        if listed.is_empty() && !key.ends_with("_la") && !key.ends_with("_a") {
            // Automake's default source of a program without `_SOURCES`.
            out.push((format!("{dir}{key}.c"), why.clone()));
        }
        for s in listed {
            out.push((format!("{dir}{s}"), why.clone()));
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ucx's `test/mpi/Makefile.am` (BSD-3-Clause): the CUDA tests are added only under `if
    /// HAVE_CUDA`, their `_SOURCES` outside it. Twins: a program also added outside the arm,
    /// and the `else` of a ROCm-named conditional.
    #[test]
    fn programs_only_a_cuda_arm_adds_are_the_cuda_builds() {
        let am = "noinst_PROGRAMS = test_basic\nif HAVE_MPICC\nif HAVE_CUDA\nnoinst_PROGRAMS += test_mpi_cuda \\\n    test_both\nnoinst_LTLIBRARIES += libtest_cuda_common.la\nendif\nendif\nnoinst_PROGRAMS += test_both\nif HAVE_ROCM\nelse\nSUBDIRS = . cudaonly\nendif\ntest_mpi_cuda_SOURCES = test_mpi_cuda.c\nlibtest_cuda_common_la_SOURCES = test_cuda_common.c\ntest_both_SOURCES = both.c\n";
        let got: Vec<String> = cuda_only("test/mpi/Makefile.am", am.as_bytes())
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            got,
            [
                "test/mpi/cudaonly/",
                "test/mpi/test_cuda_common.c",
                "test/mpi/test_mpi_cuda.c"
            ]
        );
        let why = cuda_only("test/mpi/Makefile.am", am.as_bytes())
            .into_iter()
            .find(|(p, _)| p.ends_with("test_mpi_cuda.c"))
            .map(|(_, w)| w)
            .unwrap_or_default();
        assert!(
            why.contains("`if HAVE_CUDA` (test/mpi/Makefile.am:3)"),
            "{why}"
        );
        assert!(has_rocm_conditional(&[(
            "src/uct/rocm/Makefile.am",
            b"if HAVE_ROCM\nendif\n"
        )]));
        assert!(!has_rocm_conditional(&[(
            "Makefile.am",
            am.replace("HAVE_ROCM", "HAVE_X").as_bytes()
        )]));
    }
}
