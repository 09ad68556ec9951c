//! One finding for a line repeated across sibling files. pytorch_scatter keeps one CI
//! environment script per CUDA release and OS in `.github/workflows/cuda/` (`cu118-Linux-env.sh`,
//! `cu121-Windows-env.sh`, ... 26 of them), each with `CUDA_HOME=/usr/local/cuda-12.1` and
//! `TORCH_CUDA_ARCH_LIST=...`: 52 findings for one decision (give the CI a ROCm environment).
//! So an inventory finding (HP8xx) of a script or configuration file whose rule and message,
//! digits aside, recur in at least `MIN_FILES` files of one folder with the same extension is
//! kept once, in the first file,
//! naming the count; the others stay as PASS naming it. Code findings (C++, CUDA, Python) are never folded
//! (each file's edit is its own), and neither are repeats within one file (the report groups
//! those already).

use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, BTreeSet};

/// How many sibling files must say the same thing before it is one finding.
const MIN_FILES: usize = 3;

/// Scripts and configuration, not code: a capability test in each of three Python test modules
/// is three edits, a `CUDA_HOME=` in each of three CI scripts one decision.
const SCRIPT_OR_CONFIG: &[&str] = &[
    "sh", "bash", "bat", "cmd", "ps1", "yml", "yaml", "txt", "cfg", "ini", "toml", "env", "cmake",
];

/// The folder and extension of a path (`.github/workflows/cuda/`, `sh`).
fn dir_and_ext(path: &str) -> (&str, &str) {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    (dir, name.rsplit_once('.').map_or("", |(_, e)| e))
}

/// A message with its digits dropped: `cuda-12.1` and `cuda-11.8` say the same thing.
fn shape(message: &str) -> String {
    message.chars().filter(|c| !c.is_ascii_digit()).collect()
}

/// Folds repeated inventory findings of sibling files. Input and output sorted (statuses and
/// messages change, nothing is added or removed).
pub fn fold(findings: &mut [Finding]) {
    let mut groups: BTreeMap<(&str, &str, &str, String), Vec<usize>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        let (dir, ext) = dir_and_ext(&f.path);
        if f.status == Status::Pass
            || !f.rule.starts_with("HP8")
            || !SCRIPT_OR_CONFIG.contains(&ext)
        {
            continue;
        }
        groups
            .entry((dir, ext, f.rule.as_str(), shape(&f.message)))
            .or_default()
            .push(i);
    }
    // (finding, note, whether it is folded away).
    let mut notes: Vec<(usize, String, bool)> = Vec::new();
    for ((dir, _, _, _), idx) in groups {
        let files: BTreeSet<&str> = idx.iter().map(|&i| findings[i].path.as_str()).collect();
        if files.len() < MIN_FILES {
            continue;
        }
        let head = idx[0];
        let first = &findings[head];
        let others: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| findings[i].path != first.path)
            .collect();
        notes.push((
            head,
            format!(
                " (the same in {} more files of `{dir}/`, folded here: one decision for them all)",
                files.len() - 1
            ),
            false,
        ));
        let note = format!(
            " (folded into `{}:{}`: the same line in {} sibling files of `{dir}/`)",
            first.path,
            first.line,
            files.len()
        );
        notes.extend(others.into_iter().map(|i| (i, note.clone(), true)));
    }
    for (i, m, folded) in notes {
        if folded {
            findings[i].status = Status::Pass;
        }
        findings[i].message.push_str(&m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Category;

    fn f(path: &str, line: u32, rule: &str, message: &str) -> Finding {
        Finding {
            category: Category::Deployment,
            message: message.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    #[test]
    fn the_same_line_in_sibling_scripts_is_one_finding() {
        let d = ".github/workflows/cuda";
        let mut fs = vec![
            f(
                &format!("{d}/cu118-Linux-env.sh"),
                3,
                "HP852",
                "CUDA_HOME points at cuda-11.8",
            ),
            f(
                &format!("{d}/cu121-Linux-env.sh"),
                3,
                "HP852",
                "CUDA_HOME points at cuda-12.1",
            ),
            f(
                &format!("{d}/cu124-Windows-env.sh"),
                3,
                "HP852",
                "CUDA_HOME points at cuda-12.4",
            ),
            // Another rule in only two files: below the threshold.
            f(&format!("{d}/cu118-Linux-env.sh"), 8, "HP843", "arch list"),
            f(&format!("{d}/cu121-Linux-env.sh"), 8, "HP843", "arch list"),
            // Code is never folded: each file is its own edit.
            f("csrc/a.cu", 1, "HP102", "m"),
            f("csrc/b.cu", 1, "HP102", "m"),
            f("csrc/c.cu", 1, "HP102", "m"),
            f("tests/a.py", 1, "HP811", "m"),
            f("tests/b.py", 1, "HP811", "m"),
            f("tests/c.py", 1, "HP811", "m"),
        ];
        fold(&mut fs);
        let open: Vec<(&str, u32)> = fs
            .iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.rsplit('/').next().unwrap(), x.line))
            .collect();
        assert_eq!(
            open,
            [
                ("cu118-Linux-env.sh", 3),
                ("cu118-Linux-env.sh", 8),
                ("cu121-Linux-env.sh", 8),
                ("a.cu", 1),
                ("b.cu", 1),
                ("c.cu", 1),
                ("a.py", 1),
                ("b.py", 1),
                ("c.py", 1)
            ]
        );
        assert!(fs[0].message.contains("the same in 2 more files"));
        assert!(fs[1]
            .message
            .contains("folded into `.github/workflows/cuda/cu118-Linux-env.sh:3`"));
    }
}
