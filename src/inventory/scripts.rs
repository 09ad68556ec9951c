//! Scripts nothing runs. A project keeps old packaging scripts (`tools/build_wheel.sh` with
//! eight `-gencode` flags on a line, conda recipes, `package_*.sh`) that neither its build, nor
//! its CI, nor its documentation mentions: 183 of one project's 205 open findings were such
//! flags, while the packaging script its CI runs had none. What a porter must do about them is
//! one decision, keep or drop them, not one edit per flag. So the open inventory findings
//! (HP8xx) of scripts that no build file, CI file, document, Python file or other running script
//! names become one UNKNOWN finding per folder of such scripts ("legacy packaging scripts: N
//! scripts, M CUDA settings, first at …"), held by the first of them; every other one stays in
//! the report as PASS naming that finding. Nothing is added or removed, rules and flagged code
//! stay, so `hipport check` fingerprints do not change; JSON keeps every occurrence.
//!
//! Make files other than `Makefile` and automake's inputs (`Makefile.bkp`,
//! `Makefile.config.example`, `Makefile.cuda`) are such scripts too: `make` never reads them
//! unless something names them.
//!
//! A script is run when its file name (or, for a composite action, its folder) appears in a file
//! that runs or documents things, written out or as a template (`cuda/${{ matrix.cu }}-env.sh`,
//! `scripts/*.sh`), or in a script that is itself run.

use super::kind::{self, FileKind};
use crate::finding::Finding;
use crate::gate::Status;
use crate::walk::Input;
use std::collections::{BTreeMap, BTreeSet};

/// A file that is run by hand or by something else: shell scripts, Make fragments, conda
/// recipes and composite actions. `Makefile`, workflows and `setup.py` run by themselves.
fn candidate(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let lower = rel.to_ascii_lowercase();
    // Scripts kept beside the workflows are CI's own, even when a workflow names them through a
    // template this reader cannot resolve (`cuda/${{ matrix.cuda }}-${{ runner.os }}-env.sh`).
    if lower.starts_with(".github/workflows/") || lower.contains("/.github/workflows/") {
        return false;
    }
    match kind::by_name(rel) {
        Some(FileKind::Shell) => true,
        // `make` reads `Makefile` and automake its `.am`/`.in`; another `Makefile.*` (a backup,
        // an example configuration, a platform's variant) runs only where something names it
        // (`make -f Makefile.cuda`, `include Makefile.config`, `cp Makefile.example …`).
        Some(FileKind::Make) => {
            let lower = name.to_ascii_lowercase();
            name.ends_with(".mk")
                || name.ends_with(".make")
                || (lower.starts_with("makefile.")
                    && !matches!(lower.as_str(), "makefile.am" | "makefile.in"))
        }
        Some(FileKind::Yaml) => {
            (name == "meta.yaml" && (lower.contains("conda") || lower.contains("recipe")))
                || super::gha::is_action(rel)
        }
        _ => false,
    }
}

/// What names a candidate: its folder for a composite action (`.github/actions/build`), its
/// file name otherwise.
fn key(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if super::gha::is_action(rel) || name == "meta.yaml" {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        return dir.rsplit('/').next().unwrap_or(dir);
    }
    name
}

/// Files that run or document scripts: CI, build files, Python, docs (not the candidates).
pub(crate) fn reader(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    kind::by_name(rel).is_some_and(|k| k.is_text())
        || matches!(
            ext,
            "md" | "rst" | "txt" | "json" | "ini" | "cfg" | "toml" | "bat" | "ps1" | "in"
        )
        || matches!(name.as_str(), "jenkinsfile" | "justfile" | "meson.build")
        || name.starts_with("readme")
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Whether `text` names `key` as a whole word (`tools/build_wheel.sh`, `./build_wheel.sh`).
fn names(text: &str, key: &str) -> bool {
    let t = text.as_bytes();
    let mut from = 0;
    while let Some(p) = text[from..].find(key) {
        let at = from + p;
        let end = at + key.len();
        let before = at == 0 || !is_word(t[at - 1]);
        let after = end >= t.len()
            || !(is_word(t[end])
                || (t[end] == b'.' && t.get(end + 1).is_some_and(|b| b.is_ascii_alphanumeric())));
        if before && after {
            return true;
        }
        from = at + key.len().max(1);
    }
    false
}

/// File-name templates in `text`: words holding a `$`/`*` and a script extension
/// (`cuda/${{ matrix.cu }}-env.sh` → `["", "-env.sh"]`), as literal pieces in order.
fn templates(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for w in text
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | ')' | ';' | ','))
    {
        if !(w.contains('$') || w.contains('*') || w.contains("}}")) {
            continue;
        }
        let base = w.rsplit('/').next().unwrap_or(w);
        if ![".sh", ".bash", ".mk"].iter().any(|e| base.ends_with(e)) {
            continue;
        }
        // `${{ … }}` spans whitespace: the split left its tail (`}}-env.sh`).
        let base = base.rsplit("}}").next().unwrap_or(base);
        let mut pieces = vec![String::new()];
        let mut rest = base;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix("${") {
                rest = r.split_once('}').map_or("", |(_, t)| t);
                pieces.push(String::new());
            } else if let Some(r) = rest.strip_prefix('$') {
                rest = r.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
                pieces.push(String::new());
            } else if let Some(r) = rest.strip_prefix('*') {
                rest = r;
                pieces.push(String::new());
            } else {
                let c = rest.chars().next().unwrap_or(' ');
                pieces.last_mut().unwrap().push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        // A word cut by the split inside `${{ … }}` starts with a hole.
        if w.contains("}}") && !pieces[0].is_empty() {
            pieces.insert(0, String::new());
        }
        out.push(pieces);
    }
    out
}

fn fits(name: &str, pieces: &[String]) -> bool {
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
        return false;
    };
    if pieces.len() < 2 || !name.starts_with(first.as_str()) || !name.ends_with(last.as_str()) {
        return false;
    }
    let mut at = first.len();
    for p in &pieces[1..pieces.len() - 1] {
        match name[at..].find(p.as_str()) {
            Some(i) => at += i + p.len(),
            None => return false,
        }
    }
    at <= name.len() - last.len()
}

/// What a family of unrun scripts is called in its finding.
fn family_name(dir: &str, members: &[&str]) -> &'static str {
    let packaging = |p: &str| {
        let l = p.to_ascii_lowercase();
        [
            "wheel",
            "package",
            "packaging",
            "conda",
            "recipe",
            "release",
            "dist",
            "pypi",
            "manylinux",
        ]
        .iter()
        .any(|w| l.contains(w))
    };
    if dir.starts_with(".github/actions") {
        "CI actions no workflow calls"
    } else if packaging(dir) || members.iter().any(|m| packaging(m)) {
        "legacy packaging scripts"
    } else {
        "scripts"
    }
}

/// NVIDIA-only platforms a file's path may name: Jetson boards and their Linux for Tegra
/// (L4T) and JetPack stack. ROCm runs on none of them.
const NVIDIA_PLATFORMS: [&str; 4] = ["jetson", "tegra", "l4t", "jetpack"];

/// The NVIDIA-only platform a path names in a folder or file name (`build_jetson_orin.sh`,
/// `docker/jetson/Dockerfile`, `Dockerfile.l4t`), if any.
pub fn nvidia_platform_of(path: &str) -> Option<&'static str> {
    path.split('/').find_map(|part| {
        let words: Vec<String> = part
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(|w| w.to_ascii_lowercase())
            .collect();
        NVIDIA_PLATFORMS
            .iter()
            .find(|p| words.iter().any(|w| w == *p))
            .copied()
    })
}

/// [`nvidia_platform_of`] less the project's own Python packages: a folder holding
/// `__init__.py` whose name joins a platform word with others (`jetson_utils/`) is the name the
/// project imports, not a variant for the board (`packages` holds such folders' paths).
pub fn nvidia_platform_in(
    path: &str,
    packages: &std::collections::BTreeSet<String>,
) -> Option<&'static str> {
    let parts: Vec<&str> = path.split('/').collect();
    let mut dir = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            dir.push('/');
        }
        dir.push_str(part);
        let Some(p) = nvidia_platform_of(part) else {
            continue;
        };
        let package =
            i + 1 < parts.len() && packages.contains(&dir) && !part.eq_ignore_ascii_case(p);
        if !package {
            return Some(p);
        }
    }
    None
}

/// The inventory findings (scripts, Dockerfiles, requirements) of files made for an
/// NVIDIA-only platform (a Jetson setup script): a ROCm port runs none of them, so there is
/// nothing to change in them (PASS, naming the platform). Source files are left alone: a
/// kernel under `jetson/` is still code. `packages` are the project's Python package folders
/// ([`nvidia_platform_in`]): jetson-utils' `python/jetson_utils/cuda/driver.py` loads
/// `libcuda.so` in the pip package every user installs.
pub fn pass_nvidia_platform_files(
    findings: &mut [crate::finding::Finding],
    packages: &std::collections::BTreeSet<String>,
) {
    for f in findings.iter_mut() {
        if f.status == crate::gate::Status::Pass || crate::walk::is_source(&f.path) {
            continue;
        }
        if let Some(p) = nvidia_platform_in(&f.path, packages) {
            f.settle(&format!(
                " (in a file made for NVIDIA's `{p}` platform, which ROCm does not run on: nothing to port)"
            ));
        }
    }
}

/// Other vendors' accelerator platforms a file's path may name (Intel's XPU, Gaudi and IPEX
/// builds, AWS Neuron, Google TPU, Apple's Metal): a ROCm port uses none of those files.
const OTHER_PLATFORMS: [(&str, &str); 12] = [
    ("intel", "Intel's GPU"),
    ("xpu", "Intel's XPU"),
    ("ipex", "Intel's IPEX"),
    ("gaudi", "Intel's Gaudi"),
    ("habana", "Intel's Gaudi"),
    ("hpu", "Intel's Gaudi"),
    ("neuron", "AWS Neuron"),
    ("inferentia", "AWS Neuron"),
    ("trainium", "AWS Neuron"),
    ("tpu", "Google's TPU"),
    ("mps", "Apple's Metal"),
    ("metal", "Apple's Metal"),
];

/// NVIDIA-only runtimes a backend of a multi-backend project may be built on: with the project's
/// own ROCm path elsewhere, the ROCm build uses another backend.
const NVIDIA_RUNTIMES: [(&str, &str); 4] = [
    ("trtllm", "TensorRT-LLM"),
    ("tensorrtllm", "TensorRT-LLM"),
    ("tensorrt", "TensorRT"),
    ("trt", "TensorRT"),
];

fn words_of(part: &str) -> Vec<String> {
    part.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

/// The first of `table`'s names a path part spells as a word, unless that part also names CUDA
/// or ROCm (`Dockerfile_cuda_xpu` is not another vendor's file alone).
fn named_in(path: &str, table: &[(&str, &'static str)]) -> Option<&'static str> {
    path.split('/').find_map(|part| {
        let words = words_of(part);
        if words
            .iter()
            .any(|w| matches!(w.as_str(), "cuda" | "nvidia" | "rocm" | "hip" | "amd"))
        {
            return None;
        }
        table
            .iter()
            .find(|(p, _)| words.iter().any(|w| w == p))
            .map(|(_, name)| *name)
    })
}

/// Findings in files made for another vendor's platform (`Dockerfile_intel`,
/// `requirements_intel.txt`: scripts and manifests, not code) and, when the project keeps its
/// own ROCm path (`rocm_path`: a ROCm Dockerfile, requirements or folder), in a backend built on
/// an NVIDIA-only runtime (`backends/trtllm/`): a ROCm port uses neither. PASS naming why.
pub fn pass_other_platform_files(findings: &mut [crate::finding::Finding], rels: &[&str]) {
    let rocm_path = rels.iter().find(|r| {
        !crate::walk::is_source(r)
            && r.split('/').any(|part| {
                words_of(part)
                    .iter()
                    .any(|w| matches!(w.as_str(), "rocm" | "amd" | "hip"))
            })
    });
    // A file that runs nvcc or NVIDIA's tools, or points at a CUDA toolkit, is CUDA's whatever
    // its path says: `09_mps/Makefile` of a CUDA book is NVIDIA's Multi-Process Service
    // (`nvidia-cuda-mps-control`), not Apple's Metal.
    let cuda_files: std::collections::BTreeSet<String> = findings
        .iter()
        .filter(|f| {
            f.status != crate::gate::Status::Pass
                && matches!(f.rule.as_str(), "HP850" | "HP852" | "HP883")
        })
        .map(|f| f.path.clone())
        .collect();
    for f in findings.iter_mut() {
        if f.status == crate::gate::Status::Pass {
            continue;
        }
        if !crate::walk::is_source(&f.path) && !cuda_files.contains(&f.path) {
            if let Some(p) = named_in(&f.path, &OTHER_PLATFORMS) {
                f.settle(&format!(
                    " (in a file made for {p}, which a ROCm port does not use: nothing to port)"
                ));
                continue;
            }
        }
        if let (Some(rocm), Some(rt)) = (rocm_path, named_in(&f.path, &NVIDIA_RUNTIMES)) {
            f.settle(&format!(
                " (in the project's backend on NVIDIA's {rt}, which has no ROCm build; the \
                 project's ROCm build goes another way (`{rocm}`): nothing to port here)"
            ));
        }
    }
}

/// Folds the open inventory findings of scripts nothing runs into one finding per folder (see
/// the module doc). `read` gives a file's bytes; `inputs` are every walked file.
pub fn fold_unrun(
    findings: &mut [Finding],
    inputs: &[Input],
    read: &dyn Fn(&Input) -> Option<Vec<u8>>,
) {
    let open: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass && f.rule.starts_with("HP8") && candidate(&f.path))
        .map(|f| f.path.as_str())
        .collect();
    if open.is_empty() {
        return;
    }
    let cands: Vec<&Input> = inputs.iter().filter(|i| candidate(&i.rel)).collect();
    let texts: Vec<(&str, String)> = inputs
        .iter()
        .filter(|i| !i.link && (reader(&i.rel) || candidate(&i.rel)))
        .filter_map(|i| read(i).map(|b| (i.rel.as_str(), String::from_utf8_lossy(&b).into_owned())))
        .collect();
    let is_cand: BTreeSet<&str> = cands.iter().map(|i| i.rel.as_str()).collect();
    let tpl: BTreeMap<&str, Vec<Vec<String>>> =
        texts.iter().map(|(p, t)| (*p, templates(t))).collect();
    let mentions = |p: &str, text: &str, rel: &str| {
        names(text, key(rel))
            || tpl[p]
                .iter()
                .any(|t| fits(rel.rsplit('/').next().unwrap_or(rel), t))
    };
    // Candidates named from a running file, then from running candidates, to a fixed point.
    let mut run: BTreeSet<&str> = BTreeSet::new();
    let mut frontier: Vec<&str> = texts
        .iter()
        .filter(|(p, _)| !is_cand.contains(p))
        .map(|(p, _)| *p)
        .collect();
    let by_path: BTreeMap<&str, &str> = texts.iter().map(|(p, t)| (*p, t.as_str())).collect();
    while let Some(p) = frontier.pop() {
        let text = by_path[p];
        for c in &cands {
            let c = c.rel.as_str();
            if c != p && !run.contains(c) && mentions(p, text, c) {
                run.insert(c);
                frontier.push(c);
            }
        }
    }
    let unrun: BTreeSet<&str> = open.iter().copied().filter(|p| !run.contains(p)).collect();
    if unrun.is_empty() {
        return;
    }
    let dir = |p: &str| {
        p.rsplit_once('/')
            .map_or(String::new(), |(d, _)| d.to_string())
    };
    let mut families: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if f.status != Status::Pass && f.rule.starts_with("HP8") && unrun.contains(f.path.as_str())
        {
            families.entry(dir(&f.path)).or_default().push(i);
        }
    }
    for (d, idx) in families {
        let files: BTreeSet<&str> = idx.iter().map(|&i| findings[i].path.as_str()).collect();
        let members: Vec<&str> = files
            .iter()
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .collect();
        let what = family_name(&d, &members);
        let head = idx[0];
        let (hp, hl) = (findings[head].path.clone(), findings[head].line);
        let shown: Vec<String> = members.iter().take(3).map(|m| format!("`{m}`")).collect();
        let more = if members.len() > 3 {
            format!(" and {} more", members.len() - 3)
        } else {
            String::new()
        };
        let folder = if d.is_empty() {
            "the project root".to_string()
        } else {
            format!("`{d}/`")
        };
        let note = format!(
            "{what} nothing in the build, CI or docs runs: {} script{} in {folder} ({}{more}), {} CUDA setting{}, first here: ",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            shown.join(", "),
            idx.len(),
            if idx.len() == 1 { "" } else { "s" },
        );
        let h = &mut findings[head];
        h.status = Status::Unknown;
        h.message = format!(
            "{note}{}. Decide whether to keep these scripts: delete them, or port them and run them from CI",
            h.message
        );
        for &i in &idx[1..] {
            findings[i].status = Status::Pass;
            findings[i].message.push_str(&format!(
                " (grouped into `{hp}:{hl}`: {what} nothing in the build, CI or docs runs, one decision)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Category;

    fn f(path: &str, line: u32, rule: &str) -> Finding {
        Finding {
            category: Category::BuildSystem,
            message: "NVIDIA architecture flag `-gencode`".into(),
            ..Finding::bare(rule, path, line)
        }
    }

    fn input(rel: &str) -> Input {
        Input {
            rel: rel.into(),
            path: rel.into(),
            root: ".".into(),
            size: 1,
            link: false,
        }
    }

    fn run(files: &[(&str, &str)], fs: &mut [Finding]) {
        let inputs: Vec<Input> = files.iter().map(|(p, _)| input(p)).collect();
        let map: BTreeMap<String, String> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        fold_unrun(fs, &inputs, &|i: &Input| {
            map.get(&i.rel).map(|t| t.as_bytes().to_vec())
        });
    }

    #[test]
    fn unrun_packaging_scripts_are_one_decision() {
        let mut fs: Vec<Finding> = (0..8)
            .map(|_| f("tools/build_wheel.sh", 2, "HP843"))
            .collect();
        fs.push(f("tools/package_conda.sh", 4, "HP852"));
        run(
            &[
                ("tools/build_wheel.sh", "nvcc -gencode ..."),
                ("tools/package_conda.sh", "export CUDA_HOME=/usr/local/cuda"),
                ("README.md", "Build with `make`."),
                ("tools/build_wheel_docs.txt", "not this: build_wheel.sh.bak"),
            ],
            &mut fs,
        );
        let open: Vec<&Finding> = fs.iter().filter(|x| x.status != Status::Pass).collect();
        assert_eq!(open.len(), 1, "{fs:#?}");
        assert_eq!(open[0].status, Status::Unknown);
        assert!(
            open[0].message.starts_with(
                "legacy packaging scripts nothing in the build, CI or docs runs: 2 scripts in `tools/`"
            ) && open[0].message.contains("9 CUDA settings"),
            "{}",
            open[0].message
        );
        assert!(fs[1]
            .message
            .contains("grouped into `tools/build_wheel.sh:2`"));
    }

    #[test]
    fn scripts_run_from_ci_docs_or_templates_keep_their_findings() {
        for (runner, text) in [
            (
                ".github/workflows/wheels.yml",
                "run: bash tools/build_wheel.sh",
            ),
            ("docs/install.md", "Run `./build_wheel.sh`"),
            (
                ".github/workflows/t.yml",
                "run: source tools/${{ matrix.kind }}_wheel.sh",
            ),
            ("Makefile", "wheel:\n\tsh tools/build_*.sh"),
        ] {
            let mut fs = vec![f("tools/build_wheel.sh", 2, "HP843")];
            run(&[("tools/build_wheel.sh", "nvcc"), (runner, text)], &mut fs);
            assert_eq!(fs[0].status, Status::Remediation, "{runner}");
        }
        // Beside the workflows: CI's own.
        let mut fs = vec![f(".github/workflows/cuda/cu118-env.sh", 2, "HP852")];
        run(
            &[(".github/workflows/cuda/cu118-env.sh", "CUDA_HOME=/x")],
            &mut fs,
        );
        assert_eq!(fs[0].status, Status::Remediation);
        // Named only by a script nothing runs: still unrun.
        let mut fs = vec![f("tools/build_wheel.sh", 2, "HP843")];
        run(
            &[
                ("tools/build_wheel.sh", "nvcc"),
                ("tools/all.sh", "./build_wheel.sh"),
            ],
            &mut fs,
        );
        assert_eq!(fs[0].status, Status::Unknown);
        // ... and run when that script is run.
        let mut fs = vec![f("tools/build_wheel.sh", 2, "HP843")];
        run(
            &[
                ("tools/build_wheel.sh", "nvcc"),
                ("tools/all.sh", "./build_wheel.sh"),
                ("README.md", "bash tools/all.sh"),
            ],
            &mut fs,
        );
        assert_eq!(fs[0].status, Status::Remediation);
    }
}

#[cfg(test)]
mod platform_tests {
    use super::*;
    use crate::finding::Finding;
    use crate::gate::Status;

    /// mmdeploy's `tools/scripts/build_jetson_orin_python38.sh`: its CUDA paths and PyCUDA
    /// install set up a Jetson board. Twins: a name that only contains the letters
    /// (`integral4th.sh`, `strategra.sh`), and a kernel source under `jetson/`, stay open.
    #[test]
    fn files_made_for_nvidia_only_platforms_are_pass() {
        assert_eq!(
            nvidia_platform_of("tools/scripts/build_jetson_orin_python38.sh"),
            Some("jetson")
        );
        assert_eq!(nvidia_platform_of("docker/l4t/Dockerfile"), Some("l4t"));
        assert_eq!(nvidia_platform_of("Dockerfile.jetpack"), Some("jetpack"));
        assert_eq!(nvidia_platform_of("tools/integral4th.sh"), None);
        assert_eq!(nvidia_platform_of("scripts/strategra.sh"), None);
        let mut fs = vec![
            Finding::bare("HP852", "tools/scripts/build_jetson_orin_python38.sh", 65),
            Finding::bare("HP201", "jetson/kernels/k.cu", 3),
            Finding::bare("HP852", "tools/scripts/build_x86.sh", 7),
        ];
        for f in &mut fs {
            f.status = Status::Remediation;
        }
        pass_nvidia_platform_files(&mut fs, &Default::default());
        let st: Vec<Status> = fs.iter().map(|f| f.status).collect();
        assert_eq!(st, [Status::Pass, Status::Remediation, Status::Remediation]);
        assert!(fs[0].message.contains("NVIDIA's `jetson` platform"));
        // jetson-utils' pip package `python/jetson_utils/` is the project's import name; a
        // package folder named for the board alone (`jetson/`) is still the board's.
        let packages: std::collections::BTreeSet<String> = ["python/jetson_utils", "pkg/jetson"]
            .map(String::from)
            .into();
        assert_eq!(
            nvidia_platform_in("python/jetson_utils/cuda/driver.py", &packages),
            None
        );
        assert_eq!(
            nvidia_platform_in("python/jetson_utils/jetson_setup.sh", &packages),
            Some("jetson")
        );
        assert_eq!(
            nvidia_platform_in("pkg/jetson/driver.py", &packages),
            Some("jetson")
        );
        assert_eq!(
            nvidia_platform_in("python/jetson_utils/cuda/driver.py", &Default::default()),
            Some("jetson")
        );
    }

    /// text-generation-inference: the Intel image and manifest, and the TensorRT-LLM backend
    /// beside the project's ROCm image. Twins: the TensorRT-LLM backend of a project with no
    /// ROCm path stays open; a CUDA image stays open; a kernel under `intel/` is still code.
    #[test]
    fn files_made_for_other_platforms_are_pass() {
        let op = |p: &str, l: u32, r: &str| {
            let mut f = Finding::bare(r, p, l);
            f.status = Status::Remediation;
            f
        };
        let mut fs = vec![
            op("Dockerfile_intel", 184, "HP820"),
            op("server/requirements_intel.txt", 158, "HP820"),
            op("backends/trtllm/scripts/install_tensorrt.sh", 54, "HP904"),
            op("backends/trtllm/csrc/ffi.hpp", 7, "HP607"),
            op("Dockerfile", 10, "HP860"),
            op("kernels/intel/k.cu", 3, "HP001"),
        ];
        let rels = ["Dockerfile_amd", "Dockerfile", "Dockerfile_intel"];
        pass_other_platform_files(&mut fs, &rels);
        let open: Vec<&str> = fs
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(open, ["Dockerfile", "kernels/intel/k.cu"]);
        let mut fs = vec![op(
            "backends/trtllm/scripts/install_tensorrt.sh",
            54,
            "HP904",
        )];
        pass_other_platform_files(&mut fs, &["Dockerfile"]);
        assert_ne!(fs[0].status, Status::Pass);
        // A CUDA book's `09_mps/Makefile` runs nvcc and NVIDIA's Multi-Process Service: CUDA's
        // file, not Apple's Metal. Twin: a manifest under `mps/` with no NVIDIA tool is Metal's.
        let mut fs = vec![
            op("ch04/09_mps/Makefile", 1, "HP852"),
            op("ch04/09_mps/Makefile", 24, "HP850"),
            op("backends/mps/requirements.txt", 3, "HP820"),
        ];
        pass_other_platform_files(&mut fs, &["Makefile"]);
        let open: Vec<u32> = fs
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| f.line)
            .collect();
        assert_eq!(open, [1, 24]);
    }
}
