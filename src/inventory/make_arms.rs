//! Which arms of a Makefile's conditionals the project's ROCm build takes: the reading of
//! CMake's `if()` arms (`cmake::hip_dead_arms`) for `ifdef`/`ifndef`/`ifeq`/`ifneq`.
//! A Makefile that already builds for ROCm picks it with a switch (`ifdef HIPCONFIG`,
//! `ifeq ($(USE_HIP),1)`, `ifneq ($(ROCM_PATH),)`, `ifeq ($(BACKEND),cuda)`) and holds the CUDA
//! build in the other arm: what that arm does (nvcc, `-arch`, `-lcudart`) is the CUDA build's.
//!
//! The model: a condition names a platform through its switch's words (the CMake model's
//! `name_platform`: `HIPCONFIG`, `USE_HIP`, `ROCM_PATH`) or a compared literal (`cuda`,
//! `hip`), which gives its value in the HIP build. A switch is the HIP build's only when an arm
//! the HIP build takes under it uses the ROCm toolchain (hipcc, `-lamdhip64`, hipfft/rocBLAS,
//! `-D…HIP…`, `--offload-arch`) somewhere in the file: a name alone decides nothing (`ifdef
//! USE_HIP` around `-O2` in a CUDA-only Makefile is porting work). Under a confirmed switch the
//! arms the HIP build never takes are PASS, naming the conditional; so are the arms of a
//! separate switch named for CUDA (`ifeq ($(cuda),yes)` beside `ifeq ($(amdhip),yes)`), which
//! a ROCm system, without nvcc, leaves off.

use super::cmake::{name_platform, platform_word};
use super::ts;
use super::Out;
use crate::kinds::make::{Field as F, Kind as K, NodeExt};
use std::collections::BTreeSet;
use std::ops::Range;
use tree_sitter::Node;

/// The value in the HIP build of a conditional's test and the switch that decides it.
fn test_value(dir: Node, src: &[u8]) -> Option<(bool, String)> {
    let var_of = |t: &str| -> Option<String> {
        let t = t.trim();
        let inner = t
            .strip_prefix("$(")
            .and_then(|x| x.strip_suffix(')'))
            .or_else(|| t.strip_prefix("${").and_then(|x| x.strip_suffix('}')))
            .unwrap_or(t);
        (!inner.is_empty()
            && inner
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then(|| inner.to_string())
    };
    match dir.node_kind() {
        K::IfdefDirective | K::IfndefDirective => {
            let name = var_of(ts::text(dir.field(F::Variable)?, src))?;
            let p = name_platform(&name)?;
            Some((p == (dir.node_kind() == K::IfdefDirective), name))
        }
        K::IfeqDirective | K::IfneqDirective => {
            let arg = |f| {
                dir.field(f)
                    .map_or("", |n| ts::text(n, src))
                    .trim()
                    .trim_matches(['"', '\''])
                    .to_string()
            };
            let (a, b) = (arg(F::Arg0), arg(F::Arg1));
            let refd = |t: &str| t.starts_with('$').then(|| var_of(t)).flatten();
            let (var, lit) = match (refd(&a), refd(&b)) {
                (Some(v), None) => (v, b),
                (None, Some(v)) => (v, a),
                _ => return None,
            };
            let lit = lit.to_ascii_lowercase();
            // `$(BACKEND)` compared with a platform's name; a platform's switch with on or off.
            let eq = if let Some(p) = platform_word(std::slice::from_ref(&lit)) {
                p
            } else {
                let p = name_platform(&var)?;
                match lit.as_str() {
                    "1" | "on" | "yes" | "y" | "true" => p,
                    "" | "0" | "off" | "no" | "n" | "false" => !p,
                    _ => return None,
                }
            };
            Some((eq == (dir.node_kind() == K::IfeqDirective), var))
        }
        _ => None,
    }
}

/// Whether a Makefile text uses the ROCm toolchain: hipcc/amdclang++, a ROCm library
/// (`-lamdhip64`, hipfft, rocblas), a HIP define (`-DO_HIP`, `-D__HIP_PLATFORM_AMD__`),
/// `--offload-arch`.
pub(crate) fn uses_rocm_toolchain(text: &str) -> bool {
    const LIBS: &[&str] = &[
        "amdhip64",
        "hipblas",
        "hipblaslt",
        "hipfft",
        "hiprand",
        "hipsparse",
        "hipsolver",
        "hipcub",
        "hiprtc",
        "rocblas",
        "rocfft",
        "rocrand",
        "rocsparse",
        "rocsolver",
        "rocprim",
        "rocthrust",
        "roctx64",
        "rccl",
        "miopen",
    ];
    text.split_whitespace().any(|t| {
        let t = t.trim_matches(['"', '\'']);
        if t.starts_with("--offload-arch")
            || t.strip_prefix("-l")
                .is_some_and(|l| LIBS.contains(&l.to_ascii_lowercase().as_str()))
        {
            return true;
        }
        if let Some(name) = t.strip_prefix("-D") {
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && crate::model::cond::is_hip_macro(&name) {
                return true;
            }
        }
        t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '_'))
            .map(str::to_ascii_lowercase)
            .any(|w| matches!(w.as_str(), "hipcc" | "amdclang++") || LIBS.contains(&w.as_str()))
    })
}

/// One arm of a conditional: its range, its directive as written, its test's value.
struct Arm {
    range: Range<usize>,
    head: String,
    line: usize,
    test: Option<(bool, String)>,
}

/// The arms of each conditional, in order.
fn chains(root: Node, src: &[u8]) -> Vec<Vec<Arm>> {
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + 1;
    let first_line = |n: Node| {
        ts::text(n, src)
            .lines()
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::Conditional {
            return;
        }
        let kids = ts::named_children(n);
        let tails: Vec<Node> = kids
            .iter()
            .copied()
            .filter(|k| matches!(k.node_kind(), K::ElseDirective | K::ElsifDirective))
            .collect();
        let Some(cond) = n.field(F::Condition) else {
            return;
        };
        let mut arms = vec![Arm {
            range: n.start_byte()..tails.first().map_or(n.end_byte(), |t| t.start_byte()),
            head: first_line(cond),
            line: line(n.start_byte()),
            test: test_value(cond, src),
        }];
        for t in tails {
            arms.push(Arm {
                range: t.byte_range(),
                head: first_line(t),
                line: line(t.start_byte()),
                test: t.field(F::Condition).and_then(|c| test_value(c, src)),
            });
        }
        out.push(arms);
    });
    out
}

/// The arm the HIP build certainly takes (every earlier test false there, its own true or an
/// `else`), given which switches count.
fn taken(arms: &[Arm], counts: &dyn Fn(&str) -> bool) -> Option<usize> {
    let value = |a: &Arm| a.test.as_ref().filter(|(_, k)| counts(k)).map(|(v, _)| *v);
    for (i, a) in arms.iter().enumerate() {
        match value(a) {
            Some(true) => return Some(i),
            Some(false) => continue,
            None if i > 0 && a.head == "else" => return Some(i),
            None => return None,
        }
    }
    None
}

/// Turns the findings in the arms the HIP build never takes into PASS.
pub fn pass_cuda_arms(out: &mut Out, root: Node) {
    let src = out.src();
    let chains = chains(root, src);
    // The switches some arm the HIP build takes under them confirms with the ROCm toolchain.
    let mut confirmed: BTreeSet<String> = BTreeSet::new();
    for arms in &chains {
        if let Some(i) = taken(arms, &|_| true) {
            let text = std::str::from_utf8(&src[arms[i].range.clone()]).unwrap_or("");
            if uses_rocm_toolchain(text) {
                confirmed.extend(
                    arms[..=i]
                        .iter()
                        .filter_map(|a| a.test.clone().map(|t| t.1)),
                );
            }
        }
    }
    if confirmed.is_empty() {
        return;
    }
    // Beside a confirmed HIP switch, a switch named for CUDA (`ifeq ($(cuda),yes)` beside
    // `ifeq ($(amdhip),yes)`) is off in the ROCm build: a ROCm system has no nvcc to take it.
    for arms in &chains {
        for a in arms {
            if let Some((_, k)) = &a.test {
                if name_platform(k) == Some(false) {
                    confirmed.insert(k.clone());
                }
            }
        }
    }
    let counts = |k: &str| confirmed.contains(k);
    let mut dead: Vec<(Range<usize>, String)> = Vec::new();
    for arms in &chains {
        let hip = taken(arms, &counts);
        let (head, at) = (&arms[0].head, arms[0].line);
        for (i, a) in arms.iter().enumerate() {
            let false_here = a.test.as_ref().is_some_and(|(v, k)| !v && counts(k));
            if !(false_here || hip.is_some_and(|h| i > h)) {
                continue;
            }
            let arm = if i == 0 {
                format!("the `{head}` arm (line {at})")
            } else {
                format!("the `{}` arm of `{head}` (line {at})", a.head)
            };
            let takes = match hip {
                Some(h) if h > 0 => {
                    format!("the HIP arm (`{}`, line {})", arms[h].head, arms[h].line)
                }
                _ => "the HIP arm".to_string(),
            };
            dead.push((
                a.range.clone(),
                format!("{arm}: the ROCm build takes {takes}"),
            ));
        }
    }
    // Variables the file sets outside those arms but reads only inside them (magma's
    // `NVCC ?= nvcc`, read by `DEVCC = $(NVCC)` in the `ifeq ($(BACKEND),cuda)` arm).
    let text = std::str::from_utf8(src).unwrap_or("");
    let is_dead = |at: usize| dead.iter().position(|(r, _)| r.contains(&at));
    let lines: Vec<(Range<usize>, &str)> = line_spans(text).collect();
    let dead_lines: Vec<Option<usize>> = lines.iter().map(|(r, _)| is_dead(r.start)).collect();
    let mut more = Vec::new();
    for (at, name, reader) in read_only_on(&lines, &|i| dead_lines[i].is_some(), &|_| true) {
        let why = &dead[dead_lines[reader].unwrap_or(0)].1;
        more.push((lines[at].0.clone(), format!("`{name}`, read only in {why}")));
    }
    dead.extend(more);
    out.pass_within(&dead, &[], |why| format!(" (in {why})"));
}

/// The lines of a text with their byte ranges (each with its newline).
fn line_spans(text: &str) -> impl Iterator<Item = (Range<usize>, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |raw| {
        let r = at..at + raw.len();
        at += raw.len();
        (r, raw)
    })
}

/// Assignments `NAME = …` (`?=`, `:=`, `+=`; not exported, not a recipe line) on lines that
/// are not `dead`, whose variable the file reads (`$(NAME)`, `${NAME}`) and only on `dead`
/// lines: `(assignment line, name, first reader line)`. What such a variable holds reaches only
/// code the ROCm build leaves out. `lines` are bodies (prefixes such as automake's
/// `@COND_TRUE@` stripped); only lines `candidate` keeps are read as assignments.
fn read_only_on<'a>(
    lines: &[(Range<usize>, &'a str)],
    dead: &dyn Fn(usize) -> bool,
    candidate: &dyn Fn(usize) -> bool,
) -> Vec<(usize, &'a str, usize)> {
    let mut out = Vec::new();
    for (i, (_, body)) in lines.iter().enumerate() {
        if dead(i) || !candidate(i) || body.starts_with('\t') {
            continue;
        }
        let Some((name, _)) = body.split_once('=') else {
            continue;
        };
        let name = name.trim_end_matches([':', '+', '?', '!']).trim();
        let name = name.strip_prefix("override ").unwrap_or(name).trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let refs = [format!("$({name})"), format!("${{{name}}}")];
        let readers: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, (_, b))| refs.iter().any(|x| b.contains(x.as_str())))
            .map(|(j, _)| j)
            .collect();
        // An exported variable is read by the commands make runs, too.
        let exported = lines.iter().any(|(_, b)| {
            b.trim_start()
                .strip_prefix("export ")
                .is_some_and(|rest| rest.split_whitespace().any(|w| w == name))
        });
        if !exported && !readers.is_empty() && readers.iter().all(|j| dead(*j)) {
            out.push((i, name, readers[0]));
        }
    }
    out
}

/// The automake conditionals a line of a `Makefile.in` starts with (`@COND_CUDA_TRUE@`,
/// `@COND_HIP_TRUE@@COND_HIP_MI250_TRUE@`): `(name, polarity)` of each, and where the line's
/// text starts after them.
fn automake_prefixes(line: &str) -> (Vec<(&str, bool)>, usize) {
    let mut out = Vec::new();
    let mut rest = line;
    let mut at = 0;
    while let Some(r) = rest.strip_prefix('@') {
        let Some(end) = r.find('@') else { break };
        let word = &r[..end];
        let (name, pol) = match (word.strip_suffix("_TRUE"), word.strip_suffix("_FALSE")) {
            (Some(n), _) => (n, true),
            (_, Some(n)) => (n, false),
            _ => break,
        };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            break;
        }
        out.push((name, pol));
        at += end + 2;
        rest = &r[end + 1..];
    }
    (out, at)
}

/// The lines of a `Makefile.in` that automake's conditionals keep out of the ROCm build:
/// `@COND_CUDA_TRUE@NVCC = nvcc` under a conditional named for CUDA (or `@…_FALSE@` under one
/// named for HIP), when the file's HIP-named conditional holds the ROCm toolchain
/// (`@COND_HIP_TRUE@HIPCC = hipcc`). Variables the file defines outside any conditional but
/// reads only on such lines (`GENCODE_80 = -gencode=…` read by `@COND_CUDA_TRUE@GENCODE =
/// $(GENCODE_80)`) are the CUDA build's too. Their findings become PASS naming the conditional.
pub fn pass_automake_cuda_lines(out: &mut Out) {
    let src = out.src();
    let Ok(text) = std::str::from_utf8(src) else {
        return;
    };
    if !text.contains("_TRUE@") {
        return;
    }
    // (the line's bytes, its conditionals, its text after them)
    type Line<'a> = (Range<usize>, Vec<(&'a str, bool)>, &'a str);
    let mut lines: Vec<Line> = Vec::new();
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        let (pre, body_at) = automake_prefixes(raw);
        lines.push((at..at + raw.len(), pre, &raw[body_at..]));
        at += raw.len();
    }
    // A HIP-named conditional whose lines use the ROCm toolchain confirms the reading.
    let confirmed = lines.iter().any(|(_, pre, body)| {
        pre.iter()
            .any(|(n, pol)| *pol && name_platform(n) == Some(true))
            && uses_rocm_toolchain(body)
    });
    if !confirmed {
        return;
    }
    // HIP's own platform names for NVIDIA (`HIP_PLATFORM_NVIDIA`, `HIP_PLATFORM_NVCC`) name the
    // CUDA side: HIP on an NVIDIA GPU is not the ROCm build.
    let platform = |n: &str| {
        let u = n.to_ascii_uppercase();
        if u.contains("PLATFORM_NVIDIA") || u.contains("PLATFORM_NVCC") {
            return Some(false);
        }
        name_platform(n)
    };
    // Under a HIP conditional, one that also names CUDA (`@COND_HIP_TRUE@@COND_HIP_CUDA5_TRUE@`,
    // `--with-hip=cuda5`) picks HIP's NVIDIA variant.
    let mixed = |n: &str| {
        let words: Vec<String> = n.split('_').map(str::to_ascii_lowercase).collect();
        let has = |ws: &[&str]| words.iter().any(|w| ws.iter().any(|x| w.starts_with(x)));
        has(&["hip", "rocm"]) && has(&["cuda", "nvcc", "nvidia"])
    };
    let dead_by = |pre: &[(&str, bool)]| {
        let under_hip = pre.iter().any(|(n, pol)| *pol && platform(n) == Some(true));
        pre.iter()
            .find(|(n, pol)| {
                platform(n).is_some_and(|hip| hip != *pol) || (under_hip && *pol && mixed(n))
            })
            .map(|(n, pol)| format!("`@{n}_{}@`", if *pol { "TRUE" } else { "FALSE" }))
    };
    let mut dead: Vec<(Range<usize>, String)> = Vec::new();
    let mut dead_lines: Vec<usize> = Vec::new();
    for (i, (r, pre, _)) in lines.iter().enumerate() {
        if let Some(c) = dead_by(pre) {
            dead.push((
                r.clone(),
                format!(
                    "a line under the automake conditional {c}, which the ROCm build leaves out"
                ),
            ));
            dead_lines.push(i);
        }
    }
    // Plain `NAME = …` lines whose every reader is a dead line.
    let bodies: Vec<(Range<usize>, &str)> = lines.iter().map(|(r, _, b)| (r.clone(), *b)).collect();
    let plain = |j: usize| lines[j].1.is_empty();
    for (i, name, reader) in read_only_on(&bodies, &|j| dead_lines.contains(&j), &plain) {
        let c = dead_by(&lines[reader].1).unwrap_or_default();
        dead.push((
            lines[i].0.clone(),
            format!("`{name}`, read only on lines under the automake conditional {c}, which the ROCm build leaves out"),
        ));
    }
    out.pass_within(&dead, &[], |why| format!(" (in {why})"));
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    fn scan_in(name: &str, src: &str) -> Vec<(String, u32, bool, String)> {
        scan_bytes(name, FileKind::Make, src.as_bytes())
            .into_iter()
            .map(|f| {
                (
                    f.rule,
                    f.line,
                    f.status == crate::gate::Status::Pass,
                    f.message,
                )
            })
            .collect()
    }

    /// (rule, line, PASS, message) of a Makefile's findings.
    fn scan(src: &str) -> Vec<(String, u32, bool, String)> {
        scan_in("Makefile", src)
    }

    fn open(src: &str) -> Vec<(String, u32)> {
        scan(src)
            .into_iter()
            .filter(|f| !f.2)
            .map(|f| (f.0, f.1))
            .collect()
    }

    /// specfem3d's `Makefile.in`: automake conditionals pick the CUDA or the HIP compiler and
    /// flags. Twin: without a HIP conditional that uses the ROCm toolchain, nothing is decided.
    #[test]
    fn automake_conditionals_named_for_cuda_are_not_the_rocm_build() {
        let src = "GENCODE_80 = -gencode=arch=compute_80,code=sm_80\n@COND_CUDA_TRUE@NVCC = nvcc\n@COND_CUDA_TRUE@GENCODE = $(GENCODE_80)\n@COND_HIP_TRUE@@COND_HIP_PLATFORM_NVIDIA_TRUE@GENCODE_HIP = $(GENCODE_80)\n@COND_HIP_TRUE@@COND_HIP_CUDA5_TRUE@GENCODE_HIP = $(GENCODE_80)\n@COND_HIP_TRUE@HIPCC = hipcc\n@COND_HIP_TRUE@GENCODE_HIP = --offload-arch=gfx90a\n";
        let got = scan_in("Makefile.in", src);
        assert!(!got.is_empty());
        assert!(got.iter().all(|(_, _, pass, _)| *pass), "{got:?}");
        assert!(
            got.iter()
                .any(|(_, l, _, m)| *l == 1 && m.contains("read only on lines")),
            "{got:?}"
        );
        let twin = src.replace(
            "@COND_HIP_TRUE@HIPCC = hipcc\n@COND_HIP_TRUE@GENCODE_HIP = --offload-arch=gfx90a\n",
            "",
        );
        let got = scan_in("Makefile.in", &twin);
        assert!(got.iter().any(|(_, _, pass, _)| !*pass), "{got:?}");
    }

    #[test]
    fn toolchain_words() {
        use super::uses_rocm_toolchain as u;
        assert!(u("GPUCXX ?= hipcc"));
        assert!(u("LIBS += -L$(ROCM_PATH)/lib -lamdhip64"));
        assert!(u("CXXFLAGS += -I$(ROCM_PATH)/include/hipfft"));
        assert!(u("DFLAGS += -DO_HIP"));
        assert!(u("FLAGS += --offload-arch=gfx90a"));
        assert!(!u("CXXFLAGS += -g -O0 -std=c++17 -I$(ROCM_PATH)/include"));
        assert!(!u("DFLAGS += -DDEBUG -DCHIP_SIZE=4"));
    }

    /// `ifdef HIPCONFIG … else …`: the `else` arm is the CUDA build's, also in a conditional
    /// whose HIP arm holds no toolchain of its own (the switch is confirmed elsewhere in the
    /// file), and in a nested one.
    #[test]
    fn the_else_arm_of_a_hip_switch_is_the_cuda_build() {
        let src = "ifdef HIPCONFIG\n  FLAGS ?= -g -O0\nelse\n  FLAGS ?= -g -O0 -arch=sm_80 --expt-relaxed-constexpr\nendif\n\nifeq ($(findstring -DPARIS,$(DFLAGS)),-DPARIS)\n  ifdef HIPCONFIG\n    LIBS += -lhipfft\n  else\n    LIBS += -lcufft\n  endif\nendif\n\nifdef HIPCONFIG\n  GPUCXX ?= hipcc\n  LIBS += -lamdhip64\nelse\n  GPUCXX ?= nvcc\n  GPUFLAGS += --expt-extended-lambda -arch $(CUDA_ARCH)\n  LIBS += -L$(CUDA_ROOT)/lib64 -lcudart\nendif\n";
        let f = scan(src);
        assert!(f.len() >= 6, "{f:?}");
        assert!(f.iter().all(|f| f.2), "{f:?}");
        assert!(
            f.iter().any(|f| f.1 == 11
                && f.3.contains("(in the `else` arm of `ifdef HIPCONFIG` (line 8): the ROCm build takes the HIP arm)")),
            "{f:?}"
        );
        // Twin: the same Makefile without any HIP toolchain use: the switch is only a name.
        let cuda_only = src
            .replace("-lhipfft", "-lm")
            .replace("hipcc", "g++")
            .replace("-lamdhip64", "-lpthread");
        let o = open(&cuda_only);
        assert!(o.iter().any(|(r, l)| r == "HP851" && *l == 11), "{o:?}");
        assert!(o.iter().any(|(r, l)| r == "HP850" && *l == 19), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 4), "{o:?}");
    }

    /// magma: `NVCC ?= nvcc` outside every arm, read only by `DEVCC = $(NVCC)` in the
    /// `ifeq ($(BACKEND),cuda)` arm, is the CUDA build's. Twins: the same variable also read by
    /// a rule every build runs, or exported to the commands make runs, stays open.
    #[test]
    fn variables_read_only_in_cuda_arms_are_the_cuda_builds() {
        let src = "BACKEND ?= cuda\nNVCC ?= nvcc\nHIPCC ?= hipcc\nifeq ($(BACKEND),cuda)\n    DEVCC = $(NVCC)\nelse ifeq ($(BACKEND),hip)\n    DEVCC = $(HIPCC)\n    FLAGS += --offload-arch=gfx90a\nendif\n";
        let f = scan(src);
        assert!(
            f.iter().any(|f| f.0 == "HP850"
                && f.1 == 2
                && f.2
                && f.3
                    .contains("`NVCC`, read only in the `ifeq ($(BACKEND),cuda)` arm (line 4)")),
            "{f:?}"
        );
        let live = format!("{src}version:\n\t$(NVCC) --version\n");
        assert!(
            open(&live).iter().any(|(r, l)| r == "HP850" && *l == 2),
            "{:?}",
            open(&live)
        );
        let exported = format!("{src}export NVCC\n");
        assert!(
            open(&exported).iter().any(|(r, l)| r == "HP850" && *l == 2),
            "{:?}",
            open(&exported)
        );
    }

    /// magma's HIP arm holds `$(error … (https://…#target-triples) …)`: the `#` and the
    /// parentheses inside a function call are text, and the conditional around them still
    /// holds.
    #[test]
    fn hashes_and_parentheses_inside_a_function_call_are_text() {
        let src = "ifeq ($(BACKEND),cuda)\n    LIBS += -lcublas -lcudart\nelse ifeq ($(BACKEND),hip)\n    FLAGS += --offload-arch=gfx90a\n    ifeq ($(GFX),)\n        $(error see (https://llvm.org/docs/AMDGPUUsage.html#target-triples) first)\n    endif\nendif\n";
        let f = scan(src);
        assert!(f.iter().any(|f| f.0 == "HP851" && f.1 == 2), "{f:?}");
        assert!(f.iter().filter(|f| f.0 == "HP851").all(|f| f.2), "{f:?}");
        // Twin: a `#` outside any reference starts a comment, whose `$(` opens nothing.
        let commented = format!("# was: $(error see (old\n{src}");
        let f = scan(&commented);
        assert!(f.iter().any(|f| f.0 == "HP851" && f.1 == 3), "{f:?}");
        assert!(f.iter().filter(|f| f.0 == "HP851").all(|f| f.2), "{f:?}");
    }

    /// `ifeq ($(USE_HIP),1)`, `ifneq ($(ROCM_PATH),)`, and the reverse polarity: `ifndef
    /// X_HIP`, `ifeq ($(BACKEND),cuda)`, whose first arm is the CUDA build's.
    #[test]
    fn comparisons_and_reverse_polarity() {
        for src in [
            "ifeq ($(USE_HIP),1)\n  CXX = hipcc\nelse\n  CXX = nvcc\nendif\n",
            "ifneq ($(ROCM_PATH),)\n  CXX = $(ROCM_PATH)/bin/hipcc\nelse\n  CXX = nvcc\nendif\n",
            "ifndef USE_HIP\n  CXX = nvcc\nelse\n  CXX = hipcc\nendif\n",
            "ifeq ($(BACKEND),cuda)\n  CXX = nvcc\n  LIBS = -lcudart\nelse\n  CXX = hipcc --offload-arch=gfx90a\nendif\n",
            "ifeq ($(BACKEND),cuda)\n  CXX = nvcc\nelse ifeq ($(BACKEND),hip)\n  CXX = hipcc\nendif\n",
            // Two separate conditionals, the HIP one named for AMD's runtime (astra-toolbox's
            // `Makefile.in`).
            "ifeq ($(cuda),yes)\nLIBS += -lcudart -lcufft\nNVCC = @NVCC@\nendif\n\nifeq ($(amdhip),yes)\nLIBS += -lhipfft\nHIPCC = @HIPCC@\nendif\n",
        ] {
            let f = scan(src);
            assert!(!f.is_empty() && f.iter().all(|f| f.2), "{src}\n{f:?}");
        }
        // Twin: `amd64` is an architecture, not AMD's GPU platform.
        let arch = "ifeq ($(amd64),yes)\nLIBS += -lhipfft\nendif\nifeq ($(cuda),yes)\nLIBS += -lcudart\nendif\n";
        assert!(
            open(arch).iter().any(|(r, l)| r == "HP851" && *l == 5),
            "{:?}",
            open(arch)
        );
        let f = scan("ifeq ($(BACKEND),cuda)\n  CXX = nvcc\nelse\n  CXX = hipcc\nendif\n");
        assert!(
            f[0].3.contains("(in the `ifeq ($(BACKEND),cuda)` arm (line 1): the ROCm build takes the HIP arm (`else`, line 3))"),
            "{f:?}"
        );
        // Twins: a switch that is no HIP switch (`ifdef DEBUG`), and a HIP switch whose arm
        // holds no ROCm toolchain: the CUDA arm stays the port's work.
        assert_eq!(
            open("ifdef DEBUG\n  CXX = hipcc\nelse\n  CXX = nvcc\nendif\n"),
            [("HP850".to_string(), 4)]
        );
        assert_eq!(
            open("ifeq ($(USE_HIP),1)\n  CXXFLAGS += -O2\nelse\n  CXX = nvcc\nendif\n"),
            [("HP850".to_string(), 4)]
        );
        // An undecided comparison leaves both arms live.
        assert_eq!(
            open("ifeq ($(USE_HIP),maybe)\n  CXX = hipcc\nelse\n  CXX = nvcc\nendif\n"),
            [("HP850".to_string(), 4)]
        );
    }
}
