//! Which arms of a shell script the project's ROCm build runs. A build script that already
//! builds for ROCm picks its platform from a variable (`if [ "$BACKEND" = cuda ]; then … elif
//! [ "$BACKEND" = rocm ]; then …`, `case "$GPU" in cuda) … ;; rocm|hip) … ;; esac`): under the
//! ROCm build that variable holds the ROCm value, so the CUDA arms never run there and what they
//! do (nvcc, `-gencode`, `CUDA_HOME`) is the CUDA build's business. The same reading as CMake's
//! `if()` arms ([`super::cmake`]): nothing is decided in a script that never compares a variable
//! with a ROCm value (a CUDA-only script's `if [ "$X" = cuda ]` is porting work), and a
//! condition this reader cannot decide leaves its arm live.
//!
//! The operating system decides arms in any script: the ROCm builds this tool targets run on
//! Linux, so `if [ "$RUNNER_OS" = "Windows" ]`, `[[ "$OSTYPE" == darwin* ]]`, `[ "$(uname)" =
//! Darwin ]` arms (and the `else` of a Linux test) are not the ROCm build's (`os_value`).

use super::gha::{platform_of, Platform};
use super::ts;
use crate::kinds::bash::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// Whether a shell word reads the operating system (`$RUNNER_OS`, `$OSTYPE`, `$(uname)`).
fn os_variable(w: &str) -> bool {
    let v = w
        .trim_start_matches('$')
        .trim_start_matches('{')
        .trim_end_matches('}');
    matches!(v, "RUNNER_OS" | "OSTYPE" | "OS" | "(uname)" | "(uname -s)")
}

/// The value on Linux, the ROCm build's OS, of comparing an OS variable with `lit` (`Windows`,
/// `macOS`, `Darwin`, `msys`, `cygwin`, `darwin*`, `Linux`, `linux-gnu*`).
pub(crate) fn os_value(lit: &str) -> Option<bool> {
    let l = lit.trim_end_matches('*').to_ascii_lowercase();
    if l.starts_with("linux") {
        Some(true)
    } else if [
        "windows",
        "windows_nt",
        "win32",
        "msys",
        "cygwin",
        "mingw",
        "darwin",
        "macos",
    ]
    .iter()
    .any(|w| l.starts_with(w))
    {
        Some(false)
    } else {
        None
    }
}

/// The value of one test (`[ "$X" = rocm ]`, `[[ $X != cuda ]]`, `test "$X" == hip`) in the
/// ROCm build, whether it compares with a ROCm value, and whether the OS decides it.
fn atom(t: &str) -> (Option<bool>, bool, bool) {
    let (neg, t) = unwrapped(t);
    // `command -v nvidia-smi`, `which nvidia-smi`, `[ -x "$(command -v nvidia-smi)" ]`,
    // `nvidia-smi > /dev/null`: whether NVIDIA's tool is installed, false on an AMD node.
    if probes_nvidia_smi(t) {
        return (Some(neg), false, true);
    }
    if let Some(v) = greps_for_a_vendor(t) {
        return (Some(v != neg), false, true);
    }
    let t = gha_expressions_as_variables(&t.replace("$(uname -s)", "$(uname)"));
    let w: Vec<&str> = t
        .split_whitespace()
        .map(|x| x.trim_matches(['"', '\'']))
        .collect();
    // `[ -n "$JETSON_HOST" ]`, `[ ! -z $JETSON_HOST ]`: a variable for one of NVIDIA's embedded
    // boards, set only where the script targets one; an AMD machine's run leaves it unset. Like
    // the OS, decided in any script.
    if let [test @ ("-n" | "-z"), var] = w.as_slice() {
        let name = var.trim_start_matches(['$', '{']).trim_end_matches('}');
        if var.starts_with('$') && crate::decisions::nvidia_boards::names_board(name) {
            return (Some((*test == "-z") != neg), false, true);
        }
        return (None, false, false);
    }
    let [a, op, b] = w.as_slice() else {
        return (None, false, false);
    };
    let eq = match *op {
        "=" | "==" | "-eq" => true,
        "!=" | "-ne" => false,
        _ => return (None, false, false),
    };
    let (var, lit) = match (a.starts_with('$'), b.starts_with('$')) {
        (true, false) => (a, b),
        (false, true) => (b, a),
        _ => return (None, false, false),
    };
    // `[ $L4T_VERSION = "35.4.1" ]`: a variable for one of NVIDIA's embedded boards holds a
    // value only on that board (jetson-inference's `docker/tag.sh` reads it from the board's
    // release file); on an AMD machine it is empty, so it equals no release.
    let name = var.trim_start_matches(['$', '{']).trim_end_matches('}');
    if !lit.is_empty() && crate::decisions::nvidia_boards::names_board(name) {
        return (Some(eq == neg), false, true);
    }
    if *op == "-eq" || *op == "-ne" {
        return (None, false, false);
    }
    if os_variable(var) {
        if let Some(on_linux) = os_value(lit) {
            return (Some(on_linux == (eq != neg)), false, true);
        }
    }
    // `[ "$PLATFORM" = jetson ]`: an NVIDIA board, never the ROCm build's machine.
    if crate::decisions::nvidia_boards::names_board(lit) {
        return (Some(eq == neg), false, true);
    }
    // A ROCm build switch compared with an on/off word (`[ "$USE_ROCM" = 1 ]`, `[ "${{
    // inputs.rocm }}" = "ON" ]`): on in the ROCm build.
    if super::gha_expr::rocm_switch(var.trim_start_matches(['$', '{']).trim_end_matches('}')) {
        if let Some(on) = super::gha_expr::on_off(lit) {
            return (Some(on == (eq != neg)), true, false);
        }
    }
    // `hip_cuda`, `hip-nvidia`: HIP on NVIDIA's platform (HIP_PLATFORM=nvidia), which builds
    // with nvcc; the ROCm build's value is another (FlexFlow's `FF_GPU_BACKEND`: `cuda`,
    // `hip_cuda`, `hip_rocm`).
    if hip_on_nvidia(lit) {
        return (Some(eq == neg), false, false);
    }
    match platform_of(lit) {
        Platform::Rocm => (Some(eq != neg), true, false),
        Platform::Cuda => (Some(eq == neg), false, false),
        Platform::Neutral => (None, false, false),
    }
}

/// Whether a value names HIP on NVIDIA's platform: the word `hip` with `cuda`, `nvidia` or
/// `nvcc`, and nothing of AMD's (`hip_cuda`; not `hip`, `hip_rocm`, `rocm_hip_cuda`).
fn hip_on_nvidia(lit: &str) -> bool {
    let lower = lit.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.contains(&"hip")
        && words
            .iter()
            .any(|w| matches!(*w, "cuda" | "nvidia" | "nvcc"))
        && platform_of(
            &words
                .iter()
                .filter(|w| **w != "hip")
                .copied()
                .collect::<Vec<_>>()
                .join(" "),
        ) == Platform::Cuda
}

/// `${{ inputs.rocm }}` (a GitHub expression in a `run:` block) written as the variable
/// `$inputs.rocm`, so a test reads it as one word.
fn gha_expressions_as_variables(t: &str) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(at) = rest.find("${{") {
        let Some(end) = rest[at..].find("}}").map(|e| e + at) else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push('$');
        out.push_str(rest[at + 3..end].trim());
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// One test without its `!`, `[ … ]`, `[[ … ]]` or `test`, and whether it was negated.
fn unwrapped(t: &str) -> (bool, &str) {
    let t = t.trim().trim_end_matches(';').trim();
    let (neg, t) = match t.strip_prefix('!') {
        Some(r) => (true, r.trim()),
        None => (false, t),
    };
    let t = t
        .trim_start_matches("[[")
        .trim_start_matches('[')
        .trim_start_matches("test ")
        .trim_end_matches("]]")
        .trim_end_matches(']');
    match t.trim().strip_prefix("! ") {
        Some(r) => (!neg, r),
        None => (neg, t),
    }
}

/// Whether a test only asks if `nvidia-smi` is installed (or runs): `command -v nvidia-smi`,
/// `which`/`type`/`hash nvidia-smi`, `-x "$(command -v nvidia-smi)"`, `nvidia-smi >/dev/null`.
fn probes_nvidia_smi(t: &str) -> bool {
    let t = t.trim().trim_start_matches("-x").trim();
    let t = t
        .trim_matches(['"', '\''])
        .trim_start_matches("$(")
        .trim_end_matches(')');
    let w: Vec<&str> = t.split_whitespace().collect();
    let tool = |x: &str| x == "nvidia-smi" || x.ends_with("/nvidia-smi");
    match w.as_slice() {
        [first, rest @ ..] if tool(first) => rest.iter().all(|r| {
            r.starts_with('>')
                || r.starts_with("2>")
                || r.starts_with("&>")
                || *r == "/dev/null"
                || *r == "-L"
        }),
        ["command", "-v", x, ..] | ["which", x, ..] | ["type", x, ..] | ["hash", x, ..] => {
            tool(x.trim_end_matches(')'))
        }
        _ => false,
    }
}

/// A `grep -q` for a GPU vendor's name in what a command or variable says about the machine
/// (`grep -qF 'NVIDIA' <<< "$GPU_VENDOR"`, `lspci | grep -q NVIDIA`): on the ROCm build's AMD
/// machine a pattern that names only NVIDIA/CUDA does not match, one that names only AMD/ROCm
/// does. `None` for any other test.
fn greps_for_a_vendor(t: &str) -> Option<bool> {
    let cmd = t.rsplit('|').next()?.trim();
    let cmd = cmd.split("<<<").next()?.trim();
    let mut w = cmd.split_whitespace();
    if !matches!(w.next()?, "grep" | "egrep" | "fgrep") {
        return None;
    }
    let mut quiet = false;
    let mut pattern = None;
    for x in w {
        if let Some(flags) = x.strip_prefix('-') {
            quiet |= flags.contains('q') || flags == "-quiet" || flags == "-silent";
            continue;
        }
        if pattern.is_some() {
            return None;
        }
        pattern = Some(x.trim_matches(['"', '\'']));
    }
    if !quiet {
        return None;
    }
    match platform_of(pattern?) {
        Platform::Cuda => Some(false),
        Platform::Rocm => Some(true),
        Platform::Neutral => None,
    }
}

/// A condition's value in the ROCm build: tests joined by `&&` / `||` (left to right, as the
/// shell reads them), whether any compares with a ROCm value, and whether any tests the OS.
fn condition(t: &str) -> (Option<bool>, bool, bool) {
    let mut value: Option<Option<bool>> = None;
    let mut rocm = false;
    let mut os = false;
    let mut op = "";
    let mut rest = t;
    loop {
        let next = ["&&", "||"]
            .iter()
            .filter_map(|o| rest.find(o).map(|i| (i, *o)))
            .min();
        let (part, after) = match next {
            Some((i, o)) => (&rest[..i], Some((o, &rest[i + 2..]))),
            None => (rest, None),
        };
        let (v, r, o) = atom(part);
        rocm |= r;
        os |= o;
        value = Some(match (value, op) {
            (None, _) => v,
            (Some(l), "&&") => match (l, v) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            (Some(l), _) => match (l, v) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        });
        match after {
            Some((o, r)) => {
                op = o;
                rest = r;
            }
            None => break,
        }
    }
    (value.flatten(), rocm, os)
}

/// The source between a clause's keyword and its `then` (its condition), its range, and where
/// its body starts.
fn cond_and_body(n: Node, src: &[u8]) -> Option<(String, Range<usize>, usize)> {
    let kids = ts::children(n);
    let kw = kids.first()?;
    let then = kids.iter().find(|c| c.kind() == "then")?;
    let text = std::str::from_utf8(&src[kw.end_byte()..then.start_byte()]).ok()?;
    Some((
        text.to_string(),
        kw.end_byte()..then.start_byte(),
        then.end_byte(),
    ))
}

/// The PASS note for a condition that probes for `nvidia-smi` (see [`probes_nvidia_smi`]):
/// the probe itself answers no on an AMD node and the script goes on.
fn probe_note(cond: &str) -> Option<String> {
    cond.split(['&', '|'])
        .any(|part| probes_nvidia_smi(unwrapped(part).1))
        .then(|| {
            format!(
                "in `{}`, which only asks whether NVIDIA's `nvidia-smi` is installed: on an AMD node it answers no and the script goes on",
                cond.trim().trim_end_matches(';').trim()
            )
        })
}

/// The arms of `src` the ROCm build never runs, with why; empty when the script never
/// compares a variable with a ROCm value.
/// `first_line` is the file line `src` starts on (a `run:` block's fragment starts mid-file).
pub fn dead_arms(root: Node, src: &[u8], first_line: usize) -> Vec<(Range<usize>, String)> {
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + first_line;
    let mut out = Vec::new();
    let mut tests_rocm = false;
    // Arms the OS decides: kept in a script that never tests for ROCm.
    let mut os_arms: Vec<Range<usize>> = Vec::new();
    ts::each(root, &mut |n| match n.node_kind() {
        K::IfStatement => {
            // (arm range, condition value, condition text, decided by the OS alone)
            let mut arms: Vec<(Range<usize>, Option<bool>, String, bool)> = Vec::new();
            let kids = ts::children(n);
            let clause_start = kids
                .iter()
                .find(|c| matches!(c.node_kind(), K::ElifClause | K::ElseClause))
                .map(|c| c.start_byte());
            let fi = kids.last().map_or(n.end_byte(), |c| c.start_byte());
            let mut probe = |cond: &str, range: Range<usize>| {
                if let Some(why) = probe_note(cond) {
                    os_arms.push(range.clone());
                    out.push((range, why));
                }
            };
            if let Some((cond, range, body)) = cond_and_body(n, src) {
                probe(&cond, range);
                let (v, r, o) = condition(&cond);
                tests_rocm |= r;
                arms.push((
                    body..clause_start.unwrap_or(fi),
                    v,
                    format!("if {}", cond.trim()),
                    o && !r,
                ));
            }
            for c in kids.iter().filter(|c| c.node_kind() == K::ElifClause) {
                if let Some((cond, range, body)) = cond_and_body(*c, src) {
                    probe(&cond, range);
                    let (v, r, o) = condition(&cond);
                    tests_rocm |= r;
                    arms.push((
                        body..c.end_byte(),
                        v,
                        format!("elif {}", cond.trim()),
                        o && !r,
                    ));
                }
            }
            for c in kids.iter().filter(|c| c.node_kind() == K::ElseClause) {
                arms.push((c.byte_range(), None, "else".into(), false));
            }
            // Taken for certain, and whether by an OS test (its text).
            let mut taken: Option<Option<String>> = None;
            for (range, v, head, os) in arms {
                let head = head.trim_end_matches(';').trim().to_string();
                let at = line(range.start);
                let by_os = match &taken {
                    Some(t) => t.clone(),
                    None => (os && v == Some(false)).then(|| head.clone()),
                };
                if taken.is_some() || v == Some(false) {
                    let why = match by_os {
                        Some(test) => {
                            os_arms.push(range.clone());
                            let by = if test == head {
                                String::new()
                            } else {
                                format!(" (`{test}`)")
                            };
                            if test.contains("nvidia-smi") {
                                format!(
                                    "in the `{head}` arm (line {at}), which runs only where \
                                     NVIDIA's `nvidia-smi` is installed{by}: an AMD node skips it"
                                )
                            } else {
                                format!(
                                    "in the `{head}` arm (line {at}), which only another \
                                     operating system takes{by}: the ROCm build's target OS is \
                                     Linux"
                                )
                            }
                        }
                        None => format!(
                            "in the `{head}` arm (line {at}), which the project's ROCm build never runs"
                        ),
                    };
                    out.push((range.clone(), why));
                }
                if taken.is_none() && v == Some(true) {
                    taken = Some(os.then(|| head.clone()));
                }
            }
        }
        K::CaseStatement => {
            let subject = n
                .field(F::Value)
                .map(|v| ts::text(v, src).trim_matches('"'));
            if !subject.is_some_and(|s| s.starts_with('$')) {
                return;
            }
            let mut taken = false;
            for item in ts::named_children(n)
                .into_iter()
                .filter(|c| c.node_kind() == K::CaseItem)
            {
                let mut cur = item.walk();
                let pats: Vec<String> = item
                    .fields(F::Value, &mut cur)
                    .map(|p| ts::text(p, src).trim_matches(['"', '\'']).to_string())
                    .collect();
                let plats: Vec<Platform> = pats.iter().map(|p| platform_of(p)).collect();
                let rocm = plats.contains(&Platform::Rocm);
                tests_rocm |= rocm;
                let cuda_only = !plats.is_empty() && plats.iter().all(|p| *p == Platform::Cuda);
                if cuda_only || (taken && pats.iter().any(|p| p == "*")) {
                    out.push((
                        item.byte_range(),
                        format!(
                            "in the `{})` case (line {}), which the project's ROCm build never runs",
                            pats.join("|"),
                            line(item.start_byte())
                        ),
                    ));
                }
                taken |= rocm;
            }
        }
        _ => {}
    });
    if !tests_rocm {
        out.retain(|(r, _)| os_arms.contains(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};
    use crate::gate::Status;

    fn open(src: &str) -> Vec<(String, u32)> {
        scan_bytes("build.sh", FileKind::Shell, src.as_bytes())
            .into_iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| (f.rule, f.line))
            .collect()
    }

    #[test]
    fn cuda_arms_of_a_rocm_aware_script_are_pass() {
        let src = "#!/bin/bash\nif [ \"$BACKEND\" = cuda ]; then\n  nvcc -arch=sm_80 k.cu\nelif [[ $BACKEND == rocm ]]; then\n  hipcc k.cu\nelse\n  export CUDA_HOME=/usr/local/cuda\nfi\ncase \"$GPU\" in\n  cuda|nvidia) nvcc k.cu ;;\n  rocm|hip) hipcc k.cu ;;\n  *) nvidia-smi ;;\nesac\nif [ \"$X\" != cuda ]; then nvidia-smi; fi\nnvcc k.cu\n";
        // Open: `!= cuda` is true under ROCm (line 14), and the unconditional nvcc (line 15).
        assert_eq!(open(src), vec![("HP880".into(), 14), ("HP850".into(), 15)],);
        let all = scan_bytes("build.sh", FileKind::Shell, src.as_bytes());
        let nvcc = all.iter().find(|f| f.line == 3).unwrap();
        assert!(
            nvcc.message
                .contains("`if [ \"$BACKEND\" = cuda ]` arm (line 2)"),
            "{}",
            nvcc.message
        );
    }

    /// FlexFlow's `docker/build.sh`: `FF_GPU_BACKEND` is `cuda`, `hip_cuda` (HIP on NVIDIA, built
    /// with nvcc) or `hip_rocm`. Twins: the arm of `hip_rocm || hip_cuda` is the ROCm build's,
    /// and `hip` alone is AMD's.
    #[test]
    fn hip_on_nvidia_is_a_cuda_value() {
        let src = "if [[ \"${FF_GPU_BACKEND}\" == \"cuda\" || \"${FF_GPU_BACKEND}\" == \"hip_cuda\" ]]; then\n  v=$(nvcc --version)\nfi\nif [[ \"${FF_GPU_BACKEND}\" == \"hip_rocm\" || \"${FF_GPU_BACKEND}\" == \"hip_cuda\" ]]; then\n  export CUDA_HOME=/usr/local/cuda\nfi\n";
        let o = open(src);
        assert!(!o.iter().any(|(_, l)| *l == 2), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 5), "{o:?}");
        assert!(super::hip_on_nvidia("hip_cuda") && super::hip_on_nvidia("HIP-NVIDIA"));
        assert!(!super::hip_on_nvidia("hip") && !super::hip_on_nvidia("hip_rocm"));
        assert!(!super::hip_on_nvidia("rocm_hip_cuda"));
    }

    /// nvblox's `if [ ! -z $JETSON_HOST ]` builds on a Jetson over ssh: its CUDA path is the
    /// board's. Twins: `-z` of the same variable (the non-Jetson arm) and `-n` of a variable that
    /// names no board stay open.
    #[test]
    fn arms_for_nvidia_boards_pass_in_any_script() {
        let src = "if [ ! -z $JETSON_HOST ]\nthen\n  export PATH=/usr/local/cuda-11.4/bin:$PATH\nfi\nif [ -z \"$JETSON_HOST\" ]; then\n  export CUDA_HOME=/usr/local/cuda\nfi\nif [ -n \"$REMOTE\" ]; then\n  export CUDA_HOME=/usr/local/cuda\nfi\nif [ \"$PLATFORM\" = jetson ]; then\n  export CUDA_HOME=/usr/local/cuda\nfi\n";
        let o = open(src);
        assert!(!o.iter().any(|(_, l)| *l == 3 || *l == 12), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 6), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 9), "{o:?}");
        // jetson-inference's `docker/build.sh`: a board's release variable compared with a
        // release holds only on that board; `!=` holds elsewhere, and a variable that names no
        // board decides nothing.
        let src = "if [ $L4T_VERSION = \"35.4.1\" ]; then\n  export CUDA_HOME=/usr/local/cuda\nelif [ $L4T_RELEASE -eq 32 ]; then\n  export CUDA_HOME=/usr/local/cuda\nfi\nif [ \"$L4T_VERSION\" != \"35.4.1\" ]; then\n  export CUDA_HOME=/usr/local/cuda\nfi\nif [ $DISTRO_VERSION = \"22.04\" ]; then\n  export CUDA_HOME=/usr/local/cuda\nfi\n";
        let o = open(src);
        assert!(!o.iter().any(|(_, l)| *l == 2 || *l == 4), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 7), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 10), "{o:?}");
    }

    /// gromacs' CI scripts: `if grep -qF 'NVIDIA' <<< "$GPU_VENDOR"; then nvidia-smi …`. Twins:
    /// the `else` arm, a grep for AMD (taken there), and a grep with no vendor stay as they are.
    #[test]
    fn a_grep_for_the_gpu_vendor_decides_its_arms() {
        let src = "if grep -qF 'NVIDIA' <<< \"$GPU_VENDOR\"; then\n  nvidia-smi -L\nelse\n  export CUDA_HOME=/usr/local/cuda\nfi\nif lspci | grep -q AMD; then\n  echo amd\nelse\n  nvidia-smi\nfi\nif grep -q foo <<< \"$X\"; then\n  nvidia-smi\nfi\n";
        let o = open(src);
        assert!(!o.iter().any(|(_, l)| *l == 2 || *l == 9), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 4), "{o:?}");
        assert!(o.iter().any(|(_, l)| *l == 12), "{o:?}");
    }

    #[test]
    fn other_operating_systems_arms_pass_in_any_script() {
        let src = "if [ \"$RUNNER_OS\" = \"Windows\" ]; then\n  export CUDAARCHS=\"75;80\"\nelse\n  export CUDA_HOME=/usr/local/cuda\nfi\nif [[ \"$OSTYPE\" == darwin* ]]; then\n  nvcc k.cu\nfi\nif [ \"$(uname -s)\" = Linux ]; then\n  nvidia-smi\nelse\n  nvcc k.cu\nfi\n";
        // Open: the Linux arms (lines 4 and 10); the Windows, macOS and non-Linux arms pass.
        assert_eq!(open(src), vec![("HP852".into(), 4), ("HP880".into(), 10)]);
        let all = scan_bytes("build.sh", FileKind::Shell, src.as_bytes());
        let win = all.iter().find(|f| f.line == 2).unwrap();
        assert!(
            win.message.contains("target OS is Linux"),
            "{}",
            win.message
        );
        assert!(win.message.contains("$RUNNER_OS"), "{}", win.message);
        // Twin: a test the OS does not decide keeps its arm.
        let src = "if [ \"$RUNNER_OS\" = \"$TARGET\" ]; then\n  nvcc k.cu\nfi\n";
        assert_eq!(open(src), vec![("HP850".into(), 2)]);
    }

    /// A probe for NVIDIA's tool decides its arm on an AMD node in any script: the arm runs only
    /// where `nvidia-smi` is installed. Twins: its `else` and a negated probe run there.
    #[test]
    fn arms_behind_an_nvidia_smi_probe_pass() {
        let src = "if command -v nvidia-smi >/dev/null 2>&1; then\n  nvidia-smi -L\nfi\nif [ -x \"$(command -v nvidia-smi)\" ]; then\n  nvidia-smi\nelse\n  nvcc k.cu\nfi\nif ! which nvidia-smi; then\n  nvcc k.cu\nfi\nif nvidia-smi > /dev/null; then nvidia-smi -q; fi\n";
        assert_eq!(open(src), vec![("HP850".into(), 7), ("HP850".into(), 10)]);
        let all = scan_bytes("run.sh", FileKind::Shell, src.as_bytes());
        let probe = all.iter().find(|f| f.line == 2).unwrap();
        assert!(
            probe
                .message
                .contains("runs only where NVIDIA's `nvidia-smi` is installed"),
            "{}",
            probe.message
        );
    }

    #[test]
    fn a_cuda_only_script_keeps_its_arms() {
        let src = "if [ \"$BACKEND\" = cuda ]; then\n  nvcc k.cu\nfi\ncase $GPU in\n  cuda) nvcc k.cu ;;\nesac\n";
        assert_eq!(open(src), vec![("HP850".into(), 2), ("HP850".into(), 5)]);
        assert_eq!(super::condition("[ $A = rocm ] && [ $B = x ]").0, None);
        assert_eq!(
            super::condition("[ $A = cuda ] && [ $B = x ]").0,
            Some(false)
        );
        assert_eq!(
            super::condition("[ $A = cuda ] || [ $A = hip ]").0,
            Some(true)
        );
        assert_eq!(super::condition("[ ! \"$A\" = rocm ]").0, Some(false));
    }
}
