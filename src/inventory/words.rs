//! Command words, wherever they come from (a Bash AST, a Make recipe, a Dockerfile RUN, a YAML
//! probe, a Python `subprocess` list): nvcc and its architecture flags, CUDA libraries and
//! paths, NVIDIA monitoring tools and profilers, `--gpus`, `pip install` of CUDA wheels and
//! CUDA indexes, and `NAME=value` settings (NCCL tuning, CUDA paths, NVIDIA runtime variables).
//! Callers hand in words already split by their own parser; this module never scans raw files.

use super::{build, container, distributed, monitoring, packages, version_check, Out};
use crate::finding::Finding;
use crate::gate::Status;
use std::ops::Range;

/// Where the words are: decides the category of path and index findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Build scripts, Makefiles, CMake, shell scripts.
    Build,
    /// Dockerfiles and compose files.
    Container,
    /// Kubernetes manifests.
    Deployment,
    /// Python code.
    Python,
}

/// Extra context for messages: the probe or health check the command runs in.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cx<'p> {
    pub probe: Option<&'p str>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The word with quotes removed.
    pub text: String,
    pub range: Range<usize>,
}

impl Word {
    pub fn new(text: impl Into<String>, range: Range<usize>) -> Self {
        Word {
            text: text.into(),
            range,
        }
    }
}

/// Splits `s` (found at `offset` in the file) on whitespace, keeping byte ranges; quotes around
/// a word are dropped from its text. Used for scalars that hold a command line.
pub fn split(s: &str, offset: usize) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')') {
            if let Some(st) = start.take() {
                let w = &s[st..i];
                let t = w.trim_matches(|c| c == '"' || c == '\'');
                if !t.is_empty() {
                    out.push(Word::new(t, offset + st..offset + i));
                }
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    out
}

fn basename(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

fn is_sm_arch(s: &str) -> bool {
    let s = s.trim_matches(|c| c == '"' || c == '\'' || c == ',');
    ["sm_", "compute_", "sm", "lto_"].iter().any(|p| {
        s.strip_prefix(p)
            .is_some_and(|d| d.len() >= 2 && d.chars().all(|c| c.is_ascii_digit() || c == 'a'))
    })
}

/// Whether a single word is an nvcc architecture flag.
pub fn is_arch_flag(w: &str) -> bool {
    w.starts_with("-gencode")
        || w.starts_with("--generate-code")
        || w.starts_with("--gpu-architecture")
        || w.starts_with("--gpu-code")
        || w.contains("arch=compute_")
        || w.contains("code=sm_")
        || w.strip_prefix("-arch=").is_some_and(is_sm_arch)
        || w.strip_prefix("-arch").is_some_and(is_sm_arch)
        || w.strip_prefix("-code=").is_some_and(is_sm_arch)
}

/// Whether a word is a flag only nvcc understands (for Python extension builds).
pub fn is_nvcc_only_flag(w: &str) -> bool {
    is_arch_flag(w)
        || w == "-arch"
        // `--use_fast_math` only: hipcc reads the one-dash `-use_fast_math` itself (it defines
        // `HIP_FAST_MATH`, Debian hipcc.pl 5.2) and clang takes the rest as `-u se_fast_math`,
        // a linker option that changes nothing (Debian hipcc 5.2: a warning, the unit builds),
        // while clang rejects `--use_fast_math` (unsupported option).
        || w.starts_with("--use_fast_math")
        || w.starts_with("-Xptxas")
        || w.starts_with("--ptxas-options")
        || w.starts_with("--expt-relaxed-constexpr")
        || w.starts_with("--expt-extended-lambda")
        || w.starts_with("-Xcompiler")
        || w.starts_with("--compiler-options")
        || w.starts_with("-lineinfo")
        || w.starts_with("--maxrregcount")
        // Fat-binary and device-link options (Pointnet2_PyTorch's `-Xfatbin -compress-all`):
        // clang, under hipcc, rejects them.
        || w.starts_with("-Xfatbin")
        || w.starts_with("--fatbin-options")
        || w.starts_with("-Xnvlink")
        || w.starts_with("--nvlink-options")
        || w == "-compress-all"
        || w == "--resource-usage"
        // nvcc's own spellings that clang (under hipcc) rejects as unknown arguments: parallel
        // compilation, the precision switches (HIP-Clang has `-fgpu-flush-denormals-to-zero`,
        // `-ffp-contract`), line info, lambdas.
        || w.starts_with("--threads=")
        || w == "-t=0"
        || ["--ftz=", "-ftz=", "--fmad=", "-fmad=", "--prec-div=", "-prec-div=", "--prec-sqrt=", "-prec-sqrt="]
            .iter()
            .any(|p| w.starts_with(p))
        || w == "--generate-line-info"
        || w.starts_with("--extended-lambda")
        || w.starts_with("-Xcudafe")
        // Relocatable device code and the device link: clang's spelling is `-fgpu-rdc`, at
        // compile and link time.
        || w.starts_with("-rdc=")
        || w.starts_with("--relocatable-device-code")
        || w == "-dlink"
        || w == "--device-link"
}

/// What a word is to the command it sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A program or its arguments: examined as a command.
    Command,
    /// Text another program prints or matches: a message of `echo`, `printf`, Make's
    /// `$(info …)`/`$(warning …)`/`$(error …)`, a pattern (or file) of `grep`, `sed`, `awk`.
    Text,
    /// A name `which`, `command -v`, `type`, `hash`, `whereis` look up: a probe, not a run.
    Probe,
}

/// Programs whose arguments are text to print.
const TEXT_PROGRAMS: &[&str] = &["echo", "printf", "info", "warning", "error", "warn", "die"];
/// Programs whose arguments are patterns to match (and files to read).
const PATTERN_PROGRAMS: &[&str] = &["grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "mawk"];
/// Programs that look a name up without running it.
const PROBE_PROGRAMS: &[&str] = &["which", "whereis", "type", "hash"];
/// Programs that run the command after them (`sudo nvcc`, Make's `$(shell nvcc …)`).
const WRAPPERS: &[&str] = &[
    "sudo", "env", "time", "nice", "nohup", "exec", "shell", "xargs", "then", "do", "else", "if",
    "while", "until", "!",
];

/// Shells that run a script given after `-c`.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];

/// The start of a new command between two words of one word list: a split scalar
/// (`echo hi; nvcc -c a.cu`, Make's `$(shell which nvcc)`) keeps no separators, but the file
/// between the words does. A newline ends a command unless escaped.
fn new_command_between(src: &[u8], prev: &Range<usize>, next: &Range<usize>) -> bool {
    if prev.end > next.start || next.start > src.len() {
        return false;
    }
    let gap = &src[prev.end..next.start];
    gap.iter().enumerate().any(|(i, &c)| {
        matches!(c, b';' | b'&' | b'|' | b'(' | b')' | b'`')
            || (c == b'\n' && (i == 0 || gap[i - 1] != b'\\'))
    })
}

/// The role of each word: commands start at the first word and after each separator; a
/// command's program (after assignments and wrappers) decides its arguments' role.
fn roles(src: &[u8], words: &[Word]) -> Vec<Role> {
    let mut out = vec![Role::Command; words.len()];
    let mut i = 0;
    while i < words.len() {
        // One command: words[i..end].
        // `sh -c "echo nvcc"`: the script after `-c` is a command of its own.
        let shell_script = |j: usize| {
            j >= 2 && words[j - 1].text == "-c" && SHELLS.contains(&basename(&words[j - 2].text))
        };
        let end = (i + 1..words.len())
            .find(|&j| {
                shell_script(j) || new_command_between(src, &words[j - 1].range, &words[j].range)
            })
            .unwrap_or(words.len());
        let mut p = i;
        while p < end {
            let t = words[p].text.trim_start_matches(['@', '+']);
            let wrapper = WRAPPERS.contains(&basename(t));
            let option_of_wrapper = p > i && t.starts_with('-') && {
                let prev = words[p - 1].text.trim_start_matches(['@', '+']);
                WRAPPERS.contains(&basename(prev)) || prev.starts_with('-')
            };
            if assignment_word(t).is_some() || wrapper || option_of_wrapper {
                p += 1;
            } else {
                break;
            }
        }
        if p < end {
            let prog = basename(words[p].text.trim_start_matches(['@', '+', '-']));
            let args = p + 1..end;
            let role = if TEXT_PROGRAMS.contains(&prog) || PATTERN_PROGRAMS.contains(&prog) {
                Some(Role::Text)
            } else if PROBE_PROGRAMS.contains(&prog)
                || (prog == "command"
                    && words[args.clone()]
                        .iter()
                        .any(|w| w.text == "-v" || w.text == "-V"))
            {
                Some(Role::Probe)
            } else {
                None
            };
            if let Some(role) = role {
                for r in &mut out[args] {
                    *r = role;
                }
            }
        }
        i = end;
    }
    out
}

/// The message of an nvcc probe: [`fold_nvcc_probes`] knows a probe by it.
pub(crate) const NVCC_PROBE: &str = "probes for nvcc";

/// A file's nvcc probes (`which nvcc`, `$(shell which nvcc)`) and its nvcc uses are one
/// decision (the build's compiler): each open probe becomes PASS naming the file's first open
/// nvcc use, or, with none, the first open probe.
pub fn fold_nvcc_probes(findings: &mut [Finding]) {
    let code = build::NVCC_INVOCATION.id.code;
    let open = |f: &Finding| f.rule == code && f.status != Status::Pass;
    let probe = |f: &Finding| f.message.starts_with(NVCC_PROBE);
    let head = findings
        .iter()
        .position(|f| open(f) && !probe(f))
        .or_else(|| findings.iter().position(|f| open(f) && probe(f)));
    let Some(h) = head else {
        return;
    };
    let (line, what) = (
        findings[h].line,
        if probe(&findings[h]) { "probe" } else { "use" },
    );
    for (i, f) in findings.iter_mut().enumerate() {
        if i != h && open(f) && probe(f) {
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (one decision with the nvcc {what} at line {line}: the build's compiler)"
            ));
        }
    }
}

/// A command given as words. `words[0]` is usually the program, but every word is examined, so
/// wrappers (`sudo`, `env`, `$(NVCC)` after expansion is unknown) do not hide anything; only
/// text another program prints or matches (`echo "needs nvcc"`, `grep -q nvcc`) is not a
/// command, and a name a probe looks up (`which nvcc`) is a probe, not a run.
/// Whether the command's program is nvcc (`nvcc x.cu -arch=sm_52`): its architecture flags are
/// the build's, wherever the command is written.
fn runs_nvcc(words: &[Word], roles: &[Role]) -> bool {
    words
        .iter()
        .zip(roles)
        .any(|(w, r)| *r == Role::Command && basename(&w.text) == "nvcc")
}

pub fn command(out: &mut Out, words: &[Word], site: Site, cx: Cx) {
    // A script after `-c` (`sh -c "nvidia-smi -L"`) is one word: split it into its own words.
    // Other quoted words (`echo "nvcc is not run"`) stay whole.
    let flat: Vec<Word> = words
        .iter()
        .enumerate()
        .flat_map(|(i, w)| {
            let script = i > 0 && words[i - 1].text == "-c";
            if script && w.text.contains(char::is_whitespace) {
                let quote = (w.range.len().saturating_sub(w.text.len())) / 2;
                split(&w.text, w.range.start + quote)
            } else {
                vec![w.clone()]
            }
        })
        .collect();
    let words = &flat[..];
    let roles = roles(out.src(), words);
    let run: Vec<bool> = roles.iter().map(|r| *r == Role::Command).collect();
    super::system_packages::check(out, words, &run);
    let has_version = words
        .iter()
        .any(|w| w.text == "--version" || w.text == "-V");
    // `pip install torch --index-url https://download.pytorch.org/whl/rocm6.0` (or `/cpu`,
    // `/xpu`): the packages come from a wheel index that is not CUDA's.
    // Also a vendor's wheel folder of another platform given as the index or find-links
    // (Intel's `-f https://pytorch-extension.intel.com/release-whl/stable/xpu/...`).
    // Also an install the command configures for ROCm through its environment (WarpX's
    // `CUPY_INSTALL_USE_HIP=1 ROCM_HOME=${ROCM_PATH} pip install cupy`): a source build for HIP.
    let rocm_build_env = words.iter().any(|w| {
        assignment_word(&w.text)
            .is_some_and(|(name, _)| name.contains("HIP") || name.contains("ROCM"))
    });
    let non_cuda_index = rocm_build_env
        || words.iter().enumerate().any(|(i, w)| {
            let t = w.text.rsplit('=').next().unwrap_or(&w.text);
            let url_option = i > 0
                && matches!(
                    words[i - 1].text.as_str(),
                    "-f" | "--find-links" | "-i" | "--index-url" | "--extra-index-url"
                );
            w.text
                .find("download.pytorch.org/whl/")
                .is_some_and(|at| packages::is_non_cuda_index(&w.text[at..]))
                || ((url_option || w.text.starts_with("--")) && packages::is_other_platform_url(t))
        });
    let mut i = 0;
    let mut pip_install = false;
    while i < words.len() {
        let w = &words[i];
        let t = w.text.as_str();
        let base = basename(t);
        let role = roles[i];
        if role == Role::Text {
            // Printed or matched, never run: only settings and paths it spells still count.
            if let Some((name, value)) = assignment_word(t) {
                let name_range = w.range.start..w.range.start + name.len();
                let value_range = w.range.end - value.len()..w.range.end;
                setting(out, name, name_range, value, value_range, site);
            }
            i += 1;
            continue;
        }
        if i + 1 < words.len()
            && (base == "pip" || base == "pip3" || base == "uv" || t == "pip")
            && words[i + 1].text == "install"
        {
            pip_install = true;
        }
        if let Some((name, value)) = assignment_word(t) {
            let name_range = w.range.start..w.range.start + name.len();
            let value_range = w.range.end - value.len()..w.range.end;
            setting(out, name, name_range, value, value_range, site);
        } else if base == "nvcc" {
            if role == Role::Probe {
                if site != Site::Python {
                    // The probe as written: from its program (the last command word) to here.
                    let from = (0..i)
                        .rev()
                        .find(|&j| roles[j] == Role::Command)
                        .unwrap_or(i);
                    let how = words[from..=i]
                        .iter()
                        .map(|w| w.text.trim_start_matches(['@', '+']))
                        .collect::<Vec<_>>()
                        .join(" ");
                    out.push(
                        &build::NVCC_INVOCATION,
                        w.range.clone(),
                        format!(
                            "{NVCC_PROBE} (`{how}`), which a ROCm system does not have: the \
                             build looks for the CUDA compiler"
                        ),
                        Some("look for hipcc (`which hipcc`) or read ROCM_PATH".into()),
                    );
                }
            } else if has_version {
                out.push(
                    &version_check::NVCC_VERSION_PROBE,
                    w.range.clone(),
                    "runs `nvcc --version`: there is no nvcc on ROCm".into(),
                    Some("hipcc --version, or torch.version.hip".into()),
                );
            } else if site != Site::Python || (role == Role::Command && i + 1 < words.len()) {
                // In Python, only where a process call compiles with it (`os.system('nvcc x.cu
                // …')`, clean-pvnet's cffi builds): a string that merely names nvcc is no build,
                // and `call(["nvcc"])` alone is a probe (`programs::nvcc_probe`).
                out.push(
                    &build::NVCC_INVOCATION,
                    w.range.clone(),
                    "runs nvcc, which does not exist on ROCm".into(),
                    Some("hipcc (or amdclang++ -x hip) with --offload-arch=gfx...".into()),
                );
            }
        } else if let Some(rule) = monitoring::tool(base) {
            let msg = match (rule.id.code, cx.probe) {
                ("HP880", Some(p)) => format!("{p} runs nvidia-smi, which is absent on AMD nodes: the check fails and the workload is never ready or keeps restarting"),
                ("HP880", None) => "runs nvidia-smi, which is absent on AMD nodes".to_string(),
                (_, _) => format!("runs {base}, an NVIDIA-only tool"),
            };
            let sugg = match rule.id.code {
                "HP880" => "amd-smi (e.g. `amd-smi list`, `amd-smi metric`)",
                "HP882" => "AMD Device Metrics Exporter (rocm/device-metrics-exporter)",
                _ => "rocprofv3 / rocprof-compute",
            };
            // A build file runs it while the build configures (gaussian-splatting-cuda's
            // `nvidia-smi --query-gpu=compute_cap` in CMake, QuickRunCUDA's `$(shell nvidia-smi
            // …)` feeding a Makefile's `-gencode` flags) to pick the architectures: a step of
            // that build, which the ROCm build takes another way.
            let cmake = crate::rules::project_build::probes::is_cmake(out.ctx.path);
            let configure = rule.id.code == "HP880"
                && (cmake || crate::decisions::cuda_build::is_makefile_name(out.ctx.path));
            let (msg, sugg) = if configure {
                (
                    if cmake { "runs nvidia-smi while CMake configures (to pick the GPU architectures), which is absent on AMD nodes" } else { "runs nvidia-smi from the Makefile, which is absent on AMD nodes: its GPU query moves with the build" }.to_string(),
                    "in the ROCm build take the architectures from `CMAKE_HIP_ARCHITECTURES`/`GPU_TARGETS` or `--offload-arch` (or `amd-smi`/`rocm_agent_enumerator`)",
                )
            } else {
                (msg, sugg)
            };
            out.push(rule, w.range.clone(), msg, Some(sugg.into()));
            if configure {
                if let Some(f) = out
                    .last_mut()
                    .filter(|f| f.rule == "HP880" && f.byte_range == (w.range.start, w.range.end))
                {
                    f.phase = crate::gate::Phase::Build;
                }
            }
        } else if (t == "--gpus" || t.starts_with("--gpus=")) && runs_a_container(&words[..i]) {
            out.push(
                &container::DOCKER_GPUS_FLAG,
                w.range.clone(),
                "`--gpus` needs the NVIDIA container toolkit".into(),
                Some("--device=/dev/kfd --device=/dev/dri --group-add video".into()),
            );
            if t == "--gpus" {
                i += 1;
            }
        } else if (t == "--runtime=nvidia"
            || (t == "--runtime" && words.get(i + 1).is_some_and(|n| n.text == "nvidia")))
            && runs_a_container(&words[..i])
        {
            // clean-pvnet's `docker run --runtime=nvidia`: the NVIDIA container runtime.
            out.push(
                &container::DOCKER_GPUS_FLAG,
                w.range.clone(),
                "`--runtime=nvidia` needs the NVIDIA container runtime".into(),
                Some("--device=/dev/kfd --device=/dev/dri --group-add video".into()),
            );
            if t == "--runtime" {
                i += 1;
            }
        } else if ((site != Site::Python || runs_nvcc(words, &roles)) && is_arch_flag(t))
            || (t == "-arch" && words.get(i + 1).is_some_and(|n| is_sm_arch(&n.text)))
        {
            out.push(
                &build::CUDA_ARCH_FLAG,
                w.range.clone(),
                format!("NVIDIA architecture flag `{t}`"),
                Some("--offload-arch=gfx... for the AMD GPUs you target".into()),
            );
            if matches!(
                t,
                "-gencode" | "-arch" | "--generate-code" | "--gpu-architecture"
            ) {
                i += 1;
            }
        } else if let Some(lib) = t
            .strip_prefix("-l")
            .and_then(|l| build::rocm_library(l).map(|r| (l, r)))
        {
            out.push(
                &build::CUDA_LIBRARY_LINK,
                w.range.clone(),
                format!("links CUDA library {}", lib.0),
                Some(format!("-l{}", lib.1)),
            );
        } else if t.starts_with("nvcr.io/nvidia/") || t.starts_with("nvidia/cuda:") {
            super::dockerfile::image_ref(out, t, w.range.clone());
        } else if t.contains("download.pytorch.org/whl/")
            || (pip_install && packages::is_cuda_wheel_page(t.rsplit('=').next().unwrap_or(t)))
        {
            let url = t.rsplit('=').next().unwrap_or(t);
            packages::check_index(out, url, w.range.clone(), site);
        } else if pip_install
            && !non_cuda_index
            && !t.starts_with('-')
            && t != "install"
            && base != "pip"
            && base != "pip3"
            && base != "uv"
            && base != "python"
            && base != "python3"
        {
            let prev = i
                .checked_sub(1)
                .map(|j| words[j].text.as_str())
                .unwrap_or("");
            let takes_value = matches!(
                prev,
                "-r" | "-c"
                    | "-e"
                    | "-f"
                    | "-i"
                    | "--index-url"
                    | "--extra-index-url"
                    | "--find-links"
                    | "--requirement"
                    | "--constraint"
                    | "--target"
                    | "-t"
            );
            if !takes_value {
                if let Some(req) = packages::parse_req(t, w.range.start) {
                    packages::check_req(out, &req);
                }
            }
        }
        if names_cuda_toolkit(t) && assignment_word(t).is_none() {
            path(out, w.range.clone(), t, site);
        }
        i += 1;
    }
}

/// Whether a word names NVIDIA's toolkit folder: `/usr/local/cuda`, `/usr/local/cuda-12.1`,
/// `/usr/local/cuda/bin`; not another program's folder that starts with the same letters
/// (CUDA-Q's install prefix `/usr/local/cudaq`).
fn names_cuda_toolkit(t: &str) -> bool {
    const DIR: &str = "/usr/local/cuda";
    t.match_indices(DIR).any(|(at, _)| {
        t.as_bytes()
            .get(at + DIR.len())
            .is_none_or(|&b| !(b.is_ascii_alphabetic() || b == b'_'))
    })
}

/// `NAME=value` as one word.
fn assignment_word(t: &str) -> Option<(&str, &str)> {
    let (name, value) = t.split_once('=')?;
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && name.as_bytes()[0].is_ascii_uppercase();
    ok.then_some((name, value))
}

fn path(out: &mut Out, range: Range<usize>, t: &str, site: Site) {
    match site {
        Site::Build => out.push(
            &build::CUDA_INSTALL_PATH,
            range,
            format!("CUDA toolkit path `{t}`"),
            Some("/opt/rocm (ROCM_PATH)".into()),
        ),
        Site::Container | Site::Deployment => out.push(
            &container::CUDA_ENV_IN_CONTAINER,
            range,
            format!("CUDA toolkit path `{t}` in the container"),
            Some("/opt/rocm (ROCM_PATH)".into()),
        ),
        Site::Python => {}
    }
}

/// A variable set to a value (`export X=...`, `ENV X=...`, `env: - name: X`, `os.environ[X]`).
pub fn setting(
    out: &mut Out,
    name: &str,
    name_range: Range<usize>,
    value: &str,
    value_range: Range<usize>,
    site: Site,
) {
    if distributed::is_nccl_var(name) {
        // A value is known when the text gives one (`NCCL_NVLS_ENABLE=0`); a Python setting
        // from a name or a call has none.
        let known = !value.is_empty() || value_range.end > value_range.start;
        return distributed::nccl_setting(out, name, name_range, known.then_some(value));
    }
    match name {
        "NVIDIA_VISIBLE_DEVICES"
        | "NVIDIA_DRIVER_CAPABILITIES"
        | "NVIDIA_REQUIRE_CUDA"
        | "NVIDIA_DISABLE_REQUIRE" => {
            out.push(
                &container::NVIDIA_CONTAINER_RUNTIME_ENV,
                name_range,
                format!("{name} is read only by the NVIDIA container toolkit"),
                Some("pass /dev/kfd and /dev/dri; select GPUs with ROCR_VISIBLE_DEVICES".into()),
            );
        }
        "CUDA_HOME"
        | "CUDA_PATH"
        | "CUDA_ROOT"
        | "CUDA_TOOLKIT_ROOT_DIR"
        | "CUDA_BIN_PATH"
        | "CUDACXX" => match site {
            Site::Build => out.push(
                &build::CUDA_INSTALL_PATH,
                name_range,
                format!("{name} points at a CUDA toolkit"),
                Some("ROCM_PATH=/opt/rocm".into()),
            ),
            Site::Container | Site::Deployment => out.push(
                &container::CUDA_ENV_IN_CONTAINER,
                name_range,
                format!("{name} points at a CUDA toolkit that a ROCm image does not have"),
                Some("ROCM_PATH=/opt/rocm".into()),
            ),
            Site::Python => {}
        },
        // PyTorch's extension builder reads TORCH_CUDA_ARCH_LIST only for CUDA: a ROCm build of
        // PyTorch takes its targets from PYTORCH_ROCM_ARCH (default: the gfx targets torch was
        // built for), so the NVIDIA list is ignored there and nothing fails.
        // (torch/utils/cpp_extension.py: `_get_cuda_arch_flags` vs `_get_rocm_arch_flags`.)
        "TORCH_CUDA_ARCH_LIST" => {
            out.push_pass(
                &build::CUDA_ARCH_FLAG,
                name_range,
                format!("{name} lists NVIDIA architectures; PyTorch's ROCm build ignores it and builds for PYTORCH_ROCM_ARCH (default: the gfx targets torch was built for), so nothing fails (set PYTORCH_ROCM_ARCH to build for fewer targets)"),
            );
        }
        "CUDA_ARCH_LIST" | "CUDAARCHS" => {
            out.push(
                &build::CUDA_ARCH_FLAG,
                name_range,
                format!("{name} lists NVIDIA architectures"),
                Some("PYTORCH_ROCM_ARCH=gfx942 (or the gfx targets you build for)".into()),
            );
        }
        _ => {
            if value.contains("download.pytorch.org/whl/") {
                packages::check_index(out, value, value_range, site);
            } else {
                // Tools and flags collected in a variable: NVCC=/usr/local/cuda/bin/nvcc,
                // NVCCFLAGS="-gencode ...", LIBS="-lcublas".
                let words = split(value, value_range.start);
                command(out, &words, site, Cx::default());
            }
        }
    }
}

/// Whether the command a word belongs to (the words since the last `;`, `&&`, `||` or `|`)
/// runs a container: `docker run`, `podman create`, `nvidia-docker`… where `--gpus` is the
/// NVIDIA container toolkit's flag. A program's own `--gpus 0` (RAFT's `train.py`) is not.
/// A string of options alone (a CI job's `container: options: --shm-size 1g --gpus all`) is a
/// container's too: no program is named before the flag.
fn runs_a_container(before: &[Word]) -> bool {
    let command: Vec<&Word> = before
        .iter()
        .rev()
        .take_while(|w| !matches!(w.text.as_str(), ";" | "&&" | "||" | "|"))
        .collect();
    command
        .last()
        .is_none_or(|first| first.text.starts_with('-'))
        || command.iter().any(|w| {
            let base = w.text.rsplit('/').next().unwrap_or(&w.text);
            matches!(
                base,
                "docker" | "podman" | "nerdctl" | "nvidia-docker" | "apptainer" | "singularity"
            )
        })
}

#[cfg(test)]
mod tests {
    /// The toolkit folder and its versioned forms; CUDA-Q's `/usr/local/cudaq` is another
    /// program's.
    #[test]
    fn the_toolkit_folder_is_a_whole_name() {
        for t in [
            "/usr/local/cuda",
            "/usr/local/cuda-12.1/bin",
            "PATH=/usr/local/cuda/bin:$PATH",
            "\"/usr/local/cuda\"",
        ] {
            assert!(super::names_cuda_toolkit(t), "{t}");
        }
        for t in [
            "/usr/local/cudaq",
            "/usr/local/cudaq/lib",
            "/usr/local/cuda_q",
        ] {
            assert!(!super::names_cuda_toolkit(t), "{t}");
        }
    }

    use super::*;

    #[test]
    fn splits_with_ranges() {
        let w = split("sh -c 'nvidia-smi -L'", 10);
        let texts: Vec<&str> = w.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["sh", "-c", "nvidia-smi", "-L"]);
        assert_eq!(w[2].range, 16..27);
    }

    #[test]
    fn arch_flags() {
        assert!(is_arch_flag("-arch=sm_80"));
        assert!(is_arch_flag("-gencode"));
        assert!(is_arch_flag("arch=compute_80,code=sm_80"));
        assert!(!is_arch_flag("-arch=x86-64"));
        assert!(!is_arch_flag("-O3"));
        assert!(is_nvcc_only_flag("--use_fast_math"));
        assert!(!is_nvcc_only_flag("-use_fast_math"));
        assert!(!is_nvcc_only_flag("-O3"));
        assert!(is_nvcc_only_flag("-Xfatbin"));
        assert!(is_nvcc_only_flag("-compress-all"));
        assert!(!is_nvcc_only_flag("-fgpu-rdc"));
        for w in [
            "--threads=8",
            "--ftz=true",
            "-prec-div=false",
            "--fmad=true",
            "--generate-line-info",
            "-rdc=true",
            "--relocatable-device-code=true",
            "-dlink",
        ] {
            assert!(is_nvcc_only_flag(w), "{w}");
        }
        assert!(!is_nvcc_only_flag("-ffast-math"));
        assert!(!is_nvcc_only_flag("-fgpu-flush-denormals-to-zero"));
    }

    /// Each word's role in `line`, split as a scalar command line.
    fn roles_of(line: &str) -> Vec<(String, Role)> {
        let ws = split(line, 0);
        let r = roles(line.as_bytes(), &ws);
        ws.into_iter().map(|w| w.text).zip(r).collect()
    }

    #[test]
    fn printed_and_matched_words_are_text() {
        let role = |line: &str, word: &str| {
            roles_of(line)
                .into_iter()
                .find(|(w, _)| w == word)
                .map(|(_, r)| r)
        };
        assert_eq!(role("echo needs nvcc", "nvcc"), Some(Role::Text));
        assert_eq!(role("@printf '%s\\n' nvcc", "nvcc"), Some(Role::Text));
        assert_eq!(role("$(warning nvcc not found)", "nvcc"), Some(Role::Text));
        assert_eq!(role("grep -q nvcc log.txt", "nvcc"), Some(Role::Text));
        assert_eq!(
            role("sudo sed -i s/nvcc/hipcc/ Makefile", "s/nvcc/hipcc/"),
            Some(Role::Text)
        );
        assert_eq!(role("$(shell which nvcc)", "nvcc"), Some(Role::Probe));
        assert_eq!(role("command -v nvcc", "nvcc"), Some(Role::Probe));
        // Twins: a run after the message, a run in a pipeline, a run under a wrapper.
        assert_eq!(
            role("echo building; nvcc -c a.cu", "nvcc"),
            Some(Role::Command)
        );
        assert_eq!(role("cat log | nvcc -c a.cu", "nvcc"), Some(Role::Command));
        assert_eq!(role("CXX=nvcc make", "CXX=nvcc"), Some(Role::Command));
        assert_eq!(role("sudo -E nvcc -c a.cu", "nvcc"), Some(Role::Command));
        assert_eq!(role("command nvcc -c a.cu", "nvcc"), Some(Role::Command));
        assert_eq!(role("bash -c echo", "echo"), Some(Role::Command));
        assert_eq!(role("nvcc -c grep.cu", "grep.cu"), Some(Role::Command));
    }

    #[test]
    fn assignment_words() {
        assert_eq!(
            assignment_word("NCCL_IB_DISABLE=1"),
            Some(("NCCL_IB_DISABLE", "1"))
        );
        assert_eq!(assignment_word("arch=compute_80"), None);
        assert_eq!(assignment_word("--gpus=all"), None);
    }
}

#[cfg(test)]
mod rocm_env_tests {
    use super::super::{kind::FileKind, scan_bytes};

    /// WarpX's Frontier script: `pip install cupy` under `CUPY_INSTALL_USE_HIP=1` (and
    /// `ROCM_HOME`) is CuPy's ROCm source build: nothing to change. Twin: the same install
    /// without that environment builds against CUDA.
    #[test]
    fn an_install_configured_for_rocm_by_its_environment_is_no_finding() {
        let open = |sh: &str| -> Vec<String> {
            scan_bytes("install.sh", FileKind::Shell, sh.as_bytes())
                .into_iter()
                .filter(|f| f.rule == "HP820" && f.status != crate::gate::Status::Pass)
                .map(|f| f.message)
                .collect()
        };
        let rocm = "#!/bin/bash\nCC=cc CXX=CC \\\nCUPY_INSTALL_USE_HIP=1 \\\nROCM_HOME=${ROCM_PATH} \\\n  python3 -m pip install -v cupy\n";
        assert!(open(rocm).is_empty(), "{:?}", open(rocm));
        let plain = "#!/bin/bash\npython3 -m pip install -v cupy\n";
        assert_eq!(open(plain).len(), 1);
    }
}
