//! NVIDIA's CUDA libraries installed with a system or environment package manager (`apt-get
//! install libcudnn8 cuda-cublas-12-2 libnccl2`, `conda install cudatoolkit`): packages that do
//! not exist on a ROCm system and whose ROCm counterparts have other names. One finding per
//! install command, naming each package and its ROCm counterpart; the facts are the hand table
//! `mappings/hand/system_packages.tsv`.

use super::words::Word;
use super::Out;
use crate::mappings::hand::HandTable;
use crate::registry::RuleInfo;
use std::sync::OnceLock;

rule!(CUDA_SYSTEM_PACKAGE, "HP904", BinaryDependency, Remediation, Install,
    summary: "NVIDIA CUDA packages installed with a system or conda package manager (`apt-get install libcudnn8 cuda-cublas-12-2`, `conda install cudatoolkit`).",
    why: "These packages exist only in NVIDIA's repositories and channels; a ROCm image or host has the counterparts under other names (`miopen-hip`, `hipblas`, `rccl`, `rocm-hip-sdk`), and some (NPP, TensorRT) have none. The install fails, or installs libraries nothing on an AMD GPU uses.",
    bad: "RUN apt-get install -y libcudnn8 cuda-cublas-12-2 libnccl2",
    good: "RUN apt-get install -y miopen-hip hipblas rccl",
    fix: "Install the ROCm packages from AMD's repository (or start from a ROCm image that has them); replace or drop the code that uses a library ROCm lacks.",
    refs: ["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/package-manager-integration.html"],
);

pub const RULES: &[&RuleInfo] = &[&CUDA_SYSTEM_PACKAGE];

const TSV: &str = include_str!("../../mappings/hand/system_packages.tsv");

/// Which package managers a row is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Manager {
    System,
    Conda,
}

struct Row {
    package: String,
    managers: Vec<Manager>,
    library: String,
    rocm: Option<String>,
}

fn table() -> &'static [Row] {
    static T: OnceLock<Vec<Row>> = OnceLock::new();
    T.get_or_init(|| {
        let t = HandTable::parse(
            "system_packages.tsv",
            TSV,
            &["package", "managers", "library", "rocm", "source"],
        )
        .expect("embedded system_packages.tsv is valid");
        t.iter()
            .map(|r| {
                assert!(
                    r.get("source").starts_with("https://"),
                    "system_packages.tsv:{}: source must be a URL",
                    r.line
                );
                Row {
                    package: r.get("package").to_string(),
                    managers: r
                        .get("managers")
                        .split(',')
                        .map(|m| match m.trim() {
                            "system" => Manager::System,
                            "conda" => Manager::Conda,
                            other => panic!("system_packages.tsv:{}: manager `{other}`", r.line),
                        })
                        .collect(),
                    library: r.get("library").to_string(),
                    rocm: Some(r.get("rocm").to_string()).filter(|s| !s.is_empty()),
                }
            })
            .collect()
    })
}

/// The row a package name matches for `manager` (the name before any `=version`).
fn row_of(manager: Manager, word: &str) -> Option<&'static Row> {
    let name = word.split(['=', '<', '>']).next().unwrap_or(word);
    table().iter().find(|r| {
        r.managers.contains(&manager)
            && match r.package.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix) && name.len() > prefix.len(),
                None => name == r.package,
            }
    })
}

fn manager_of(program: &str) -> Option<Manager> {
    match program.rsplit('/').next().unwrap_or(program) {
        "apt" | "apt-get" | "yum" | "dnf" | "microdnf" | "zypper" => Some(Manager::System),
        "conda" | "mamba" | "micromamba" => Some(Manager::Conda),
        _ => None,
    }
}

/// Options of the managers that take a value (`-c conda-forge`, `-t bookworm-backports`).
const TAKES_VALUE: &[&str] = &[
    "-c",
    "--channel",
    "-n",
    "--name",
    "-p",
    "--prefix",
    "-t",
    "--target-release",
    "-o",
    "--option",
];

/// One finding per install command of `words` (one shell line's words, `run` telling which
/// are run rather than printed) that names CUDA packages.
pub(super) fn check(out: &mut Out, words: &[Word], run: &[bool]) {
    let mut i = 0;
    while i < words.len() {
        let Some(manager) = run[i].then(|| manager_of(&words[i].text)).flatten() else {
            i += 1;
            continue;
        };
        // The command's words up to a shell separator.
        let end = (i + 1..words.len())
            .find(|&j| matches!(words[j].text.as_str(), "&&" | "||" | ";" | "|"))
            .unwrap_or(words.len());
        let Some(install) =
            (i + 1..end).find(|&j| matches!(words[j].text.as_str(), "install" | "create"))
        else {
            i = end;
            continue;
        };
        let mut found: Vec<(&Word, &Row)> = Vec::new();
        let mut j = install + 1;
        while j < end {
            let t = words[j].text.as_str();
            if TAKES_VALUE.contains(&t) {
                j += 2;
                continue;
            }
            if !t.starts_with('-') {
                if let Some(r) = row_of(manager, t) {
                    found.push((&words[j], r));
                }
            }
            j += 1;
        }
        if let Some((first, _)) = found.first() {
            let names: Vec<String> = found
                .iter()
                .map(|(w, r)| {
                    let to = r.rocm.as_deref().unwrap_or("no ROCm counterpart");
                    format!("`{}` ({}: {to})", w.text, r.library)
                })
                .collect();
            let none = found.iter().any(|(_, r)| r.rocm.is_none());
            let range =
                first.range.start..found.last().map_or(first.range.end, |(w, _)| w.range.end);
            out.push(
                &CUDA_SYSTEM_PACKAGE,
                range,
                format!(
                    "installs NVIDIA's CUDA packages, which a ROCm system does not have: {}",
                    names.join(", ")
                ),
                Some(if none {
                    "install the ROCm packages named; the code on a library with no ROCm counterpart must be replaced or left out".into()
                } else {
                    "install the ROCm packages named (AMD's repository, or a ROCm base image that has them)".into()
                }),
            );
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};
    use super::*;

    fn hp904(path: &str, kind: FileKind, src: &str) -> Vec<(u32, String)> {
        scan_bytes(path, kind, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP904")
            .map(|f| (f.line, f.message))
            .collect()
    }

    /// gpu-rest-engine's runtime stage and keops's conda toolkit: one finding per install
    /// command, naming each package's ROCm counterpart (or none).
    #[test]
    fn cuda_packages_installed_by_apt_and_conda() {
        let docker = "FROM ubuntu:22.04\nRUN apt-get update && apt-get install -y --no-install-recommends \\\n        libgflags2v5 \\\n        libcudnn7=7.0.5.15-1+cuda9.0 \\\n        cuda-cublas-9-0 \\\n        cuda-npp-9-0 && \\\n    rm -rf /var/lib/apt/lists/\nRUN /opt/conda/bin/conda install cuda=${CUDA_VERSION} -c conda-forge\n";
        let found = hp904("Dockerfile", FileKind::Dockerfile, docker);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].1.contains("`cuda-cublas-9-0` (cuBLAS: hipblas)"),
            "{}",
            found[0].1
        );
        assert!(
            found[0].1.contains("(NPP: no ROCm counterpart)"),
            "{}",
            found[0].1
        );
        assert!(found[1].1.contains("rocm-hip-sdk"), "{}", found[1].1);
        let ci = "sudo apt-get install -y libnccl2 libnccl-dev\n";
        assert_eq!(hp904("ci.sh", FileKind::Shell, ci).len(), 1);
    }

    /// Twins: other packages, a printed command, the ROCm packages, a package named after a
    /// separator that is not an install's.
    #[test]
    fn other_installs_are_not_cuda_packages() {
        let sh = "apt-get install -y libcurl4 hipblas miopen-hip\necho \"apt-get install libcudnn8\"\napt-get update && ls cuda-cublas-9-0\nconda install -c nvidia pytorch\n";
        assert!(hp904("ci.sh", FileKind::Shell, sh).is_empty());
    }

    #[test]
    fn package_names() {
        let lib = |m, t| row_of(m, t).map(|r| r.library.as_str());
        assert_eq!(
            lib(Manager::System, "libcudnn7=7.0.5.15-1+cuda9.0"),
            Some("cuDNN")
        );
        assert_eq!(lib(Manager::System, "cuda-cublas-9-0"), Some("cuBLAS"));
        assert_eq!(lib(Manager::System, "cuda-npp-9-0"), Some("NPP"));
        assert_eq!(
            lib(Manager::System, "cuda-toolkit-12-2"),
            Some("CUDA toolkit")
        );
        assert_eq!(lib(Manager::System, "libnccl2"), Some("NCCL"));
        assert_eq!(lib(Manager::Conda, "cuda=12.1"), Some("CUDA toolkit"));
        assert_eq!(lib(Manager::Conda, "cudatoolkit"), Some("CUDA toolkit"));
        // Twins: not CUDA's, or a name only the other manager knows.
        assert_eq!(lib(Manager::System, "libcurl4"), None);
        assert_eq!(lib(Manager::System, "cudatoolkit"), None);
        assert_eq!(lib(Manager::Conda, "libcudnn8"), None);
        assert_eq!(lib(Manager::System, "cuda-"), None);
        assert_eq!(lib(Manager::System, "hipblas"), None);
    }
}
