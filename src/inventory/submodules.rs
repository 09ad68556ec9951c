//! HP823: a package the project installs from a git submodule that is not checked out. Research
//! code keeps its CUDA extensions in submodules and installs them as Python packages (2D Gaussian
//! splatting: `submodules/diff-surfel-rasterization` and `submodules/simple-knn` under `pip:` in
//! `environment.yml`); a clone without `--recursive` has empty folders there, so the scan read
//! none of their code, and whatever they need to build on ROCm is not in the report. What is not
//! read is not verified: UNKNOWN, one finding per submodule, at the line that installs it, until
//! the submodule is checked out and scanned.
//!
//! Only submodules a dependency list, an install script, a Dockerfile, CI or a README's
//! `pip install` line installs count: a header-only submodule (`third_party/glm`) that the build
//! only includes is not a package the ROCm stack builds, and says nothing here.

use super::FileCtx;
use crate::finding::Finding;
use crate::registry::RuleInfo;

rule!(SUBMODULE_PACKAGE_NOT_READ, "HP823", PythonPackage, Unknown, Install,
    summary: "A Python package the project installs from a git submodule that is not checked out: its code was not scanned.",
    why: "Projects keep their CUDA extensions in submodules and install them with pip (`pip install submodules/simple-knn`). Without the submodule's files the scan cannot say what that package needs on ROCm; it builds with nvcc unless it has a ROCm path of its own.",
    bad: "# .gitmodules names submodules/simple-knn, which is empty in this checkout\n  - pip:\n    - submodules/simple-knn",
    good: "git submodule update --init --recursive   # then scan again",
    fix: "Check the submodule out (`git submodule update --init --recursive`) and scan again, so its sources are ported and reviewed with the project's.",
    refs: ["https://git-scm.com/book/en/v2/Git-Tools-Submodules"],
);

pub const RULES: &[&RuleInfo] = &[&SUBMODULE_PACKAGE_NOT_READ];

/// The submodule paths `.gitmodules` names (plain relative paths inside the project only;
/// `verify` reads the same list).
pub(crate) fn paths(gitmodules: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in gitmodules.lines() {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() != "path" {
            continue;
        }
        let p = v.trim().trim_matches('"').trim_end_matches('/');
        let p = p.strip_prefix("./").unwrap_or(p);
        if p.is_empty() || p.starts_with('/') || p.split('/').any(|c| c == ".." || c.is_empty()) {
            continue;
        }
        out.push(p.to_string());
    }
    out
}

/// Whether a file can install packages: a dependency list (every line counts), or a script,
/// Dockerfile, CI file or README (only lines that run pip or a `setup.py`).
fn installer(rel: &str) -> Option<bool> {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let list = (name.starts_with("requirements") && name.ends_with(".txt"))
        || (name.starts_with("environment") && (name.ends_with(".yml") || name.ends_with(".yaml")));
    if list {
        return Some(true);
    }
    let runs = name.ends_with(".sh")
        || name.starts_with("dockerfile")
        || name.starts_with("readme")
        || (rel.starts_with(".github/workflows/")
            && (name.ends_with(".yml") || name.ends_with(".yaml")));
    runs.then_some(false)
}

/// One HP823 per submodule that `.gitmodules` names, that has no file in the tree (`rels`), and
/// that an installer line names; at its first such line (dependency lists first).
pub fn findings(
    gitmodules: &[u8],
    rels: &[&str],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Vec<Finding> {
    let text = String::from_utf8_lossy(gitmodules);
    let missing: Vec<String> = paths(&text)
        .into_iter()
        .filter(|p| {
            let prefix = format!("{p}/");
            !rels.iter().any(|r| r.starts_with(&prefix))
        })
        .collect();
    if missing.is_empty() {
        return Vec::new();
    }
    // (file, whether every line installs): dependency lists first (they are the build), then
    // scripts and documents, each in path order.
    let mut files: Vec<(&str, bool)> = rels
        .iter()
        .filter_map(|r| installer(r).map(|every| (*r, every)))
        .collect();
    files.sort_unstable_by_key(|(r, every)| (!every, *r));
    let mut out = Vec::new();
    let mut found: Vec<&str> = Vec::new();
    for (rel, every_line) in files {
        if found.len() == missing.len() {
            break;
        }
        let Some(bytes) = read(rel) else { continue };
        let Ok(src) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let lines = crate::lines::LineIndex::new(&bytes);
        let ctx = FileCtx {
            path: rel,
            src: &bytes,
            lines: &lines,
        };
        let mut at = 0;
        for line in src.split_inclusive('\n') {
            let start = at;
            at += line.len();
            let code = line.split('#').next().unwrap_or("");
            let installs = every_line
                || code.contains("pip install")
                || code.contains("pip3 install")
                || code.contains("setup.py");
            if !installs {
                continue;
            }
            for p in &missing {
                if found.contains(&p.as_str()) {
                    continue;
                }
                // Spelled as a path (`./submodules/simple-knn/`), not inside a longer name.
                let Some(col) = crate::decisions::unbuilt::path_at(code.as_bytes(), p) else {
                    continue;
                };
                found.push(p);
                let r = start + col..start + col + p.len();
                out.push(ctx.finding(
                    &SUBMODULE_PACKAGE_NOT_READ,
                    r,
                    format!(
                        "installs `{p}`, a git submodule that is not checked out here: hipport read none of its code, so what it needs on ROCm (a CUDA extension to port, nvcc in its build) is not in this report"
                    ),
                    Some("git submodule update --init --recursive, then scan again".into()),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)]) -> Vec<(String, u32, String)> {
        let rels: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let read = |p: &str| {
            files
                .iter()
                .find(|(q, _)| *q == p)
                .map(|(_, t)| t.as_bytes().to_vec())
        };
        let gm = read(".gitmodules").unwrap_or_default();
        findings(&gm, &rels, &read)
            .into_iter()
            .map(|f| (f.path, f.line, f.message))
            .collect()
    }

    const GITMODULES: &str = "[submodule \"submodules/simple-knn\"]\n\tpath = submodules/simple-knn\n\turl = https://example.org/simple-knn.git\n[submodule \"third_party/glm\"]\n\tpath = third_party/glm\n\turl = https://github.com/g-truc/glm.git\n";

    /// 2DGS: `environment.yml` pip-installs an empty submodule: one UNKNOWN at that line. The
    /// header-only `third_party/glm`, which nothing installs, says nothing.
    #[test]
    fn an_installed_submodule_that_is_not_checked_out() {
        let f = run(&[
            (".gitmodules", GITMODULES),
            (
                "environment.yml",
                "dependencies:\n  - pip:\n    - submodules/simple-knn\n",
            ),
            ("README.md", "git clone --recursive\n"),
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].0.as_str(), f[0].1), ("environment.yml", 3));
        assert!(f[0].2.contains("`submodules/simple-knn`"), "{}", f[0].2);
    }

    /// Twins: the submodule checked out (its files in the tree); a README line that only
    /// mentions the folder; a longer name; a commented-out install; and a README `pip install`.
    #[test]
    fn checked_out_mentioned_or_other_names_say_nothing() {
        let env = ("environment.yml", "  - pip:\n    - submodules/simple-knn\n");
        assert!(run(&[
            (".gitmodules", GITMODULES),
            env,
            ("submodules/simple-knn/setup.py", "")
        ])
        .is_empty());
        assert!(run(&[
            (".gitmodules", GITMODULES),
            ("README.md", "The kernels live in submodules/simple-knn.\n")
        ])
        .is_empty());
        assert!(run(&[
            (".gitmodules", GITMODULES),
            ("install.sh", "pip install submodules/simple-knn-v2\n")
        ])
        .is_empty());
        assert!(run(&[
            (".gitmodules", GITMODULES),
            ("install.sh", "# pip install submodules/simple-knn\n")
        ])
        .is_empty());
        let f = run(&[
            (".gitmodules", GITMODULES),
            (
                "README.md",
                "```\npip install ./submodules/simple-knn/\n```\n",
            ),
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].1, 2);
    }
}
