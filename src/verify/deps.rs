//! Third-party dependencies a unit may need that are not the project's own sources: PyTorch's
//! include directories (found when `python3 -c 'import torch'` works, through
//! `torch.utils.cpp_extension.include_paths()`), and git submodules that are not checked out.
//! A failed unit whose first missing header belongs to one of these is reclassified as a
//! missing third-party header, with which dependency and how to get it.

use super::classify::{self, Outcome};
use super::hipcc::UnitCommand;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A submodule named in `.gitmodules`, and whether its directory has anything in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submodule {
    pub path: String,
    pub checked_out: bool,
}

/// What verify knows about the project's third-party dependencies.
#[derive(Clone, Debug, Default)]
pub struct Deps {
    pub submodules: Vec<Submodule>,
    /// PyTorch's include directories (and Python's), when torch imports here.
    pub torch_include: Vec<PathBuf>,
    /// Why torch's include directories are not known (e.g. `import torch` failed), when looked for.
    pub torch_missing: Option<String>,
}

/// Reads `.gitmodules` at `root`; a submodule whose directory is missing or empty is not
/// checked out.
pub fn submodules(root: &Path) -> Vec<Submodule> {
    let Ok(text) = read_regular(&root.join(".gitmodules")) else {
        return Vec::new();
    };
    crate::inventory::submodules::paths(&text)
        .into_iter()
        .map(|path| {
            let dir = root.join(&path);
            let checked_out = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir())
                && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some());
            Submodule { path, checked_out }
        })
        .collect()
}

fn read_regular(p: &Path) -> std::io::Result<String> {
    let m = std::fs::symlink_metadata(p)?;
    if !m.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    std::fs::read_to_string(p)
}

/// Whether any source mentions PyTorch (so its include directories are worth looking for).
pub fn uses_torch(root: &Path, files: &[String]) -> bool {
    files.iter().any(|rel| {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let interesting = name == "setup.py"
            || [".cu", ".cpp", ".cc", ".h", ".cuh", ".hpp"]
                .iter()
                .any(|e| name.ends_with(e));
        interesting
            && std::fs::metadata(root.join(rel)).is_ok_and(|m| m.is_file() && m.len() < 4 << 20)
            && std::fs::read(root.join(rel)).is_ok_and(|b| {
                let t = String::from_utf8_lossy(&b);
                t.contains("<torch/")
                    || t.contains("<ATen/")
                    || t.contains("torch.utils.cpp_extension")
            })
    })
}

/// The script run to find torch's include directories (fixed text: nothing from the project).
const TORCH_PATHS: &str = "import sysconfig, torch.utils.cpp_extension as c\nfor p in c.include_paths(): print(p)\nprint(sysconfig.get_paths()['include'])\n";

/// PyTorch's include directories from `python` (`python3` by default), or why not.
///
/// Python puts the current directory first on `sys.path` for `-c`, so it runs in an empty
/// directory of its own: a `torch/` package in the project (PyTorch's own checkout, or a
/// hostile one) is never imported.
pub fn torch_include_dirs(python: &str) -> Result<Vec<PathBuf>, String> {
    let empty = tempfile::tempdir()
        .map_err(|e| format!("cannot make a directory to run {python} in: {e}"))?;
    let o = Command::new(python)
        .args(["-c", TORCH_PATHS])
        .current_dir(empty.path())
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let last = err.lines().last().unwrap_or("").trim().to_string();
        return Err(format!("`{python} -c 'import torch'` failed: {last}"));
    }
    Ok(parse_paths(&String::from_utf8_lossy(&o.stdout)))
}

fn parse_paths(text: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let p = PathBuf::from(l);
        if p.is_absolute() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// How one failed unit's first missing header is explained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub outcome: Outcome,
    /// Which dependency and how to get it.
    pub hint: String,
}

impl Deps {
    /// Explains a missing header of a failed unit, if it belongs to a known dependency.
    pub fn explain(&self, header: &str, unit: &UnitCommand) -> Option<Explained> {
        if let Some(pkg) = classify::third_party_package(header) {
            let hint = match (pkg, &self.torch_missing) {
                ("PyTorch", Some(why)) => format!(
                    "PyTorch's headers: {why}; install PyTorch (a ROCm build: pip install torch --index-url https://download.pytorch.org/whl/rocm6.2) so verify finds its include directories, or pass -I DIR"
                ),
                ("PyTorch", None) if self.torch_include.is_empty() => "PyTorch's headers: install PyTorch so `python3 -c 'import torch'` works, or pass -I DIR".to_string(),
                ("PyTorch", None) => "PyTorch's headers: not in torch's include directories (a different torch version?)".to_string(),
                ("pybind11", _) => "pybind11's headers: pip install pybind11 (PyTorch ships them too), or pass -I DIR".to_string(),
                _ => "Python's headers: install the Python development package (Debian: python3-dev)".to_string(),
            };
            return Some(Explained {
                outcome: Outcome::MissingThirdParty,
                hint,
            });
        }
        let first = header.split('/').next().unwrap_or(header);
        let sub = self
            .submodules
            .iter()
            .filter(|s| !s.checked_out)
            .find(|s| {
                let base = s.path.rsplit('/').next().unwrap_or(&s.path);
                base.eq_ignore_ascii_case(first)
                    || (first.len() > 2
                        && base
                            .to_ascii_lowercase()
                            .contains(&first.to_ascii_lowercase()))
                    || unit.args.iter().any(|a| {
                        a.contains(&format!("/{}/", s.path)) || a.ends_with(&format!("/{}", s.path))
                    })
            })?;
        Some(Explained {
            outcome: Outcome::MissingThirdParty,
            hint: format!(
                "git submodule `{}` is not checked out: run `git submodule update --init --recursive {}`",
                sub.path, sub.path
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(args: &[&str]) -> UnitCommand {
        UnitCommand {
            rel: "a.cu".into(),
            cwd: PathBuf::from("/"),
            args: args.iter().map(|s| s.to_string()).collect(),
            notes: vec![],
            output: None,
        }
    }

    #[test]
    fn submodules_not_checked_out_are_named_with_the_command() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::write(
            r.join(".gitmodules"),
            "[submodule \"cutlass\"]\n\tpath = third_party/cutlass\n\turl = https://github.com/NVIDIA/cutlass\n[submodule \"json\"]\n\tpath = deps/json\n\turl = x\n[submodule \"evil\"]\n\tpath = ../outside\n",
        )
        .unwrap();
        std::fs::create_dir_all(r.join("third_party/cutlass")).unwrap();
        std::fs::create_dir_all(r.join("deps/json")).unwrap();
        std::fs::write(r.join("deps/json/json.hpp"), "").unwrap();
        let subs = submodules(r);
        assert_eq!(
            subs,
            [
                Submodule {
                    path: "third_party/cutlass".into(),
                    checked_out: false
                },
                Submodule {
                    path: "deps/json".into(),
                    checked_out: true
                }
            ]
        );
        let deps = Deps {
            submodules: subs,
            ..Default::default()
        };
        let e = deps.explain("cutlass/cutlass.h", &unit(&[])).unwrap();
        assert_eq!(e.outcome, Outcome::MissingThirdParty);
        assert!(e
            .hint
            .contains("git submodule update --init --recursive third_party/cutlass"));
        let e = deps
            .explain(
                "cute/tensor.hpp",
                &unit(&["-I/o/third_party/cutlass/include"]),
            )
            .unwrap();
        assert!(e.hint.contains("third_party/cutlass"), "{e:?}");
        assert!(deps.explain("nlohmann/json.hpp", &unit(&[])).is_none());
        assert!(deps.explain("project/config.h", &unit(&[])).is_none());
    }

    #[test]
    fn torch_headers_say_how_to_get_torch() {
        let deps = Deps {
            torch_missing: Some("`python3 -c 'import torch'` failed: ModuleNotFoundError".into()),
            ..Default::default()
        };
        let e = deps.explain("torch/extension.h", &unit(&[])).unwrap();
        assert!(e.hint.contains("install PyTorch") && e.hint.contains("ModuleNotFoundError"));
        assert_eq!(
            parse_paths("/t/include\n\n/t/include\nrelative\n/py/include\n"),
            [PathBuf::from("/t/include"), PathBuf::from("/py/include")]
        );
    }

    #[test]
    fn a_python_without_torch_is_an_error_with_the_reason() {
        let e = torch_include_dirs("/nonexistent/python3").unwrap_err();
        assert!(e.contains("cannot run"), "{e}");
    }
}
