//! A guard and what it guards, one fact. An `#if` flagged for its condition (an architecture or
//! toolkit-version test that HIP-Clang evaluates differently) whose arm holds only findings of a
//! family that already states the lost branch (inline assembly: "behind a `__CUDA_ARCH__` test:
//! HIP compiles the other branch") says nothing the porter does not read there: the guard's
//! finding is dropped and the guarded finding names it. A guard over portable code, or over
//! code with findings of other families, stays: the branch switch is then the fact.

use crate::finding::{Category, Finding};
use crate::gate::Status;
use std::collections::BTreeMap;

/// Families that flag a conditional-compilation test.
fn is_guard(f: &Finding) -> bool {
    matches!(f.category, Category::ArchCheck | Category::VersionCheck)
        && f.status != Status::Pass
        && (f.excerpt.starts_with("#if") || f.excerpt.starts_with("#elif"))
}

/// Families whose findings say themselves that they sit behind the guard.
fn states_its_guard(f: &Finding) -> bool {
    f.category == Category::InlineAsm
}

/// Byte offsets where each line of `src` starts.
fn line_starts(src: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', src).map(|i| i + 1))
        .collect()
}

/// The last line (1-based, exclusive) of the arm that the directive on `line` opens: the
/// matching `#elif`, `#else` or `#endif` at the same depth. Reads from the directive's line on,
/// so sequential guards cost the length of their arms, not of the file.
fn arm_end(src: &[u8], starts: &[usize], line: u32) -> Option<u32> {
    let mut depth = 0usize;
    for i in line as usize..starts.len() {
        let end = starts
            .get(i + 1)
            .map_or(src.len(), |&e| e.saturating_sub(1));
        let l = &src[starts[i].min(src.len())..end.max(starts[i]).min(src.len())];
        let t = String::from_utf8_lossy(l);
        let t = t.trim_start();
        let Some(d) = t.strip_prefix('#') else {
            continue;
        };
        let d = d.trim_start();
        if d.starts_with("if") {
            depth += 1;
        } else if d.starts_with("endif") {
            if depth == 0 {
                return Some(i as u32 + 1);
            }
            depth -= 1;
        } else if (d.starts_with("else") || d.starts_with("elif")) && depth == 0 {
            return Some(i as u32 + 1);
        }
    }
    None
}

/// Drops each guard finding whose arm holds findings, all of a family that states its guard;
/// the first guarded finding names the guard. `sources` holds the text of files with findings.
pub fn fold_guards(findings: &mut Vec<Finding>, sources: &BTreeMap<String, Vec<u8>>) {
    let mut drop = vec![false; findings.len()];
    let mut notes: Vec<(usize, String)> = Vec::new();
    // Each file's open findings by line, and its line starts, computed once.
    let mut by_path: BTreeMap<&str, Vec<(u32, usize)>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if f.status != Status::Pass {
            by_path
                .entry(f.path.as_str())
                .or_default()
                .push((f.line, i));
        }
    }
    for v in by_path.values_mut() {
        v.sort_unstable();
    }
    let mut starts: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (g, guard) in findings.iter().enumerate() {
        if !is_guard(guard) {
            continue;
        }
        let Some(src) = sources.get(&guard.path) else {
            continue;
        };
        let st = starts
            .entry(guard.path.as_str())
            .or_insert_with(|| line_starts(src));
        let Some(end) = arm_end(src, st, guard.line) else {
            continue;
        };
        let lines = by_path.get(guard.path.as_str()).map_or(&[][..], |v| v);
        let from = lines.partition_point(|&(l, _)| l <= guard.line);
        let to = lines.partition_point(|&(l, _)| l < end);
        let inside: Vec<usize> = lines[from..to.max(from)].iter().map(|&(_, i)| i).collect();
        if inside.is_empty() || !inside.iter().all(|&i| states_its_guard(&findings[i])) {
            continue;
        }
        drop[g] = true;
        notes.push((
            inside[0],
            format!(
                " (guarded by `{}` on line {}: {} {} also flagged)",
                guard.excerpt, guard.line, guard.rule, guard.rule_name
            ),
        ));
    }
    for (i, note) in notes {
        findings[i].message.push_str(&note);
    }
    let mut i = 0;
    findings.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rule: &str, line: u32, excerpt: &str) -> Finding {
        let info = crate::catalog::by_code(rule).unwrap();
        Finding {
            rule: rule.into(),
            rule_name: info.id.name.into(),
            category: info.category,
            status: info.status,
            phase: info.phase,
            path: "p.cu".into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            message: format!("{rule} here"),
            suggestion: None,
            fix: None,
            fingerprint: format!("{rule}{line}"),
            byte_range: (0, 1),
            excerpt: excerpt.into(),
            baseline: None,
            folded_into: None,
            holds: 0,
            set_aside: false,
        }
    }

    const SRC: &str = "__device__ int lane() {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n  unsigned r;\n  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n  return r;\n#else\n  return 0;\n#endif\n}\n__device__ int g(int x) {\n#if __CUDA_ARCH__ >= 800\n#ifdef FAST\n  return x * 2;\n#endif\n#else\n  asm(\"trap;\");\n#endif\n}\n";

    #[test]
    fn a_guard_over_inline_ptx_is_the_ptx_finding() {
        let sources = BTreeMap::from([("p.cu".to_string(), SRC.as_bytes().to_vec())]);
        let mut v = vec![
            at(
                "HP401",
                2,
                "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700",
            ),
            at("HP201", 4, "asm volatile(...)"),
            // Twin: a guard over portable code (a nested `#ifdef` inside); the PTX in its
            // `#else` arm is not what it guards.
            at("HP401", 11, "#if __CUDA_ARCH__ >= 800"),
            at("HP201", 16, "asm(\"trap;\")"),
        ];
        fold_guards(&mut v, &sources);
        let got: Vec<(&str, u32)> = v.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        assert_eq!(got, [("HP201", 4), ("HP401", 11), ("HP201", 16)]);
        assert!(
            v[0].message.ends_with(&format!(
                "(guarded by `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700` on line 2: HP401 {} also flagged)",
                crate::catalog::by_code("HP401").unwrap().id.name
            )),
            "{}",
            v[0].message
        );
        assert_eq!(
            arm_end(SRC.as_bytes(), &line_starts(SRC.as_bytes()), 11),
            Some(15)
        );
    }

    #[test]
    fn a_guard_over_other_findings_stays() {
        let sources = BTreeMap::from([("p.cu".to_string(), SRC.as_bytes().to_vec())]);
        let mut v = vec![
            at(
                "HP401",
                2,
                "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700",
            ),
            at("HP201", 4, "asm volatile(...)"),
            at("HP102", 5, "% 32"),
        ];
        fold_guards(&mut v, &sources);
        assert_eq!(v.len(), 3);
    }
}
