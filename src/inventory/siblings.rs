//! One finding for a line repeated across sibling files. pytorch_scatter keeps one CI
//! environment script per CUDA release and OS in `.github/workflows/cuda/` (`cu118-Linux-env.sh`,
//! `cu121-Windows-env.sh`, ... 26 of them), each with `CUDA_HOME=/usr/local/cuda-12.1` and
//! `TORCH_CUDA_ARCH_LIST=...`: 52 findings for one decision (give the CI a ROCm environment).
//! So an inventory finding (HP8xx) of a script or configuration file whose rule and message,
//! digits aside, recur in at least `MIN_FILES` files of one folder with the same extension is
//! kept once, in the first file,
//! naming the count; the others, the head file's own repeats of the line included (CUDASW4's
//! benchmark scripts each run `nsys profile` in four branches), stay as PASS naming it. Code
//! findings (C++, CUDA, Python) are never folded (each file's edit is its own).

use crate::decisions::kind::{self, Kind, Min};
use crate::finding::Finding;

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

/// The sibling-files decision: an inventory finding of a script or configuration file whose
/// rule and message, digits aside, recur in `MIN_FILES` files of one folder with the same
/// extension, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            let (dir, ext) = dir_and_ext(&f.path);
            // A CI workflow's CUDA-lane findings are the project's CI decision
            // (`decisions::cuda_build`), which holds every workflow at once.
            let ci = crate::rules::facts::decision(f).is_some_and(|d| d.starts_with("a CI"))
                && crate::decisions::kind::own(&f.path);
            (!ci && f.rule.starts_with("HP8") && SCRIPT_OR_CONFIG.contains(&ext)).then(|| {
                format!(
                    "{dir}\u{1f}{ext}\u{1f}{}\u{1f}{}",
                    f.rule,
                    shape(&f.message)
                )
            })
        }),
        head: kind::first,
        folds: kind::all,
        min: Min::Files(MIN_FILES),
        summary: Box::new(|g| {
            let here = g.members.iter().filter(|f| f.path == g.head.path).count() - 1;
            format!(
                " (the same in {} more files of `{}/`{}, folded here: one decision for them all)",
                g.files() - 1,
                dir_and_ext(&g.head.path).0,
                match here {
                    0 => String::new(),
                    1 => " and on 1 more line here".to_string(),
                    n => format!(" and on {n} more lines here"),
                }
            )
        }),
        note: Box::new(|g| {
            kind::folded_into(
                g,
                &format!(
                    "the same line in {} sibling files of `{}/`",
                    g.files(),
                    dir_and_ext(&g.head.path).0
                ),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Category;
    use crate::gate::Status;

    /// This decision alone, as the scan applies it.
    fn fold(findings: &mut [Finding]) {
        let k = kind(findings);
        crate::decisions::fold(findings, &k);
    }

    fn f(path: &str, line: u32, rule: &str, message: &str) -> Finding {
        Finding {
            category: Category::Deployment,
            message: message.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    #[test]
    fn the_same_line_in_sibling_scripts_is_one_finding() {
        let d = "packaging/cuda";
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
            // The head file's own repeat of the line is the same decision.
            f(
                &format!("{d}/cu118-Linux-env.sh"),
                5,
                "HP852",
                "CUDA_HOME points at cuda-11.8",
            ),
            // Another rule in only two files: below the threshold, repeats stay.
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
        assert!(fs[0]
            .message
            .contains("the same in 2 more files of `packaging/cuda/` and on 1 more line here"));
        assert_eq!(fs[3].status, Status::Pass);
        assert!(fs[1]
            .message
            .contains("folded into `packaging/cuda/cu118-Linux-env.sh:3`"));
    }
}
