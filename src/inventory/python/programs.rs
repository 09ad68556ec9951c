//! The program a Python process call runs (`subprocess.check_output([nvcc, "--version"])`):
//! a string, a path joined or concatenated onto it, or a name assigned one of those; and the
//! probes for nvcc that decide what a build compiles.

use super::{dotted, string};
use crate::inventory::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// The text of a command-list element that names a program by path: a string, `cuda_dir +
/// "/bin/nvcc"`, `f"{home}/bin/nvcc"`, `os.path.join(CUDA_HOME, "bin", "nvcc")` (its last
/// string part), with its range.
pub(super) fn program_part(e: Node, src: &[u8]) -> Option<(String, Range<usize>)> {
    program_part_within(e, src, 2)
}

/// [`program_part`], following a name to what its function (or the module) assigned it before
/// the use (`nvcc = os.path.join(CUDA_HOME, "bin/nvcc")` in either arm of an `if`), at most
/// `depth` names deep. The range is the use's: the finding points at the call.
fn program_part_within(e: Node, src: &[u8], depth: u8) -> Option<(String, Range<usize>)> {
    match e.node_kind() {
        K::String => string(e, src),
        // `"nvcc %s -arch=sm_52" % src`: the format string; `cuda_dir + "/bin/nvcc"`: the
        // path's last part.
        K::BinaryOperator => {
            let op = e.field(F::Operator).map(|o| ts::text(o, src));
            let side = if op == Some("%") { F::Left } else { F::Right };
            program_part_within(e.field(side)?, src, depth)
        }
        K::ParenthesizedExpression => {
            program_part_within(ts::named_children(e).into_iter().next()?, src, depth)
        }
        K::Call => {
            // `'nvcc {} -c -arch=sm_52'.format(src)` (clean-pvnet's cffi builds): the template.
            let callee = e.field(F::Function)?;
            if callee.node_kind() == K::Attribute
                && callee
                    .field(F::Attribute)
                    .is_some_and(|a| ts::text(a, src) == "format")
            {
                let object = callee.field(F::Object)?;
                if object.node_kind() == K::String {
                    return string(object, src);
                }
            }
            let f = dotted(callee, src)?;
            if f != "os.path.join" {
                return None;
            }
            let last = ts::named_children(e.field(F::Arguments)?).pop()?;
            program_part_within(last, src, depth)
        }
        K::Identifier if depth > 0 => {
            let name = ts::text(e, src);
            let mut scope = e;
            while let Some(p) = scope.parent() {
                scope = p;
                if p.node_kind() == K::FunctionDefinition {
                    break;
                }
            }
            let mut found = None;
            ts::each(scope, &mut |a| {
                if found.is_some()
                    || a.node_kind() != K::Assignment
                    || a.start_byte() >= e.start_byte()
                    || a.field(F::Left).is_none_or(|l| ts::text(l, src) != name)
                {
                    return;
                }
                found = a
                    .field(F::Right)
                    .and_then(|r| program_part_within(r, src, depth - 1))
                    .filter(|(t, _)| {
                        matches!(t.split('/').next_back(), Some("nvcc" | "nvidia-smi"))
                    });
            });
            found.map(|(t, _)| (t, e.byte_range()))
        }
        _ => None,
    }
}

/// Whether `n` sits in the body of a `try` one of whose `except` clauses catches a missing
/// program (`FileNotFoundError`, `OSError`, `Exception`, or everything).
fn caught_when_missing(n: Node, src: &[u8]) -> bool {
    let mut child = n;
    while let Some(p) = child.parent() {
        if p.node_kind() == K::FunctionDefinition {
            return false;
        }
        if p.node_kind() == K::TryStatement
            && p.field(F::Body).is_some_and(|b| b.id() == child.id())
        {
            return ts::named_children(p).into_iter().any(|c| {
                c.kind() == "except_clause" && {
                    let head = ts::text(c, src).split(':').next().unwrap_or("").to_string();
                    head.trim() == "except"
                        || [
                            "FileNotFoundError",
                            "OSError",
                            "Exception",
                            "CalledProcessError",
                        ]
                        .iter()
                        .any(|e| head.contains(e))
                }
            });
        }
        child = p;
    }
    false
}

/// A probe for the CUDA compiler that decides what is built: `call(["nvcc"])` inside `try: …
/// except FileNotFoundError` (torchsort's `cuda_toolkit_available()`, after fast-transformers),
/// or `shutil.which("nvcc")`. A ROCm system has no nvcc, so the probe says no and what it gates
/// (the CUDA extension) is silently left out of the ROCm build. `program` is the call's
/// program as written, `at` its range; `call` the process call.
pub(super) fn nvcc_probe(
    out: &mut crate::inventory::Out,
    call: Node,
    program: &str,
    at: Range<usize>,
    src: &[u8],
) {
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let which = dotted(call.field(F::Function).unwrap_or(call), src)
        .is_some_and(|f| f == "shutil.which" || f == "which");
    if base != "nvcc" || !(which || caught_when_missing(call, src)) {
        return;
    }
    out.push(
        &crate::inventory::build::NVCC_INVOCATION,
        at,
        format!(
            "{} (`{}`), which a ROCm system does not have: the build's CUDA detection says no there, and what it decides (a CUDA extension, the toolkit's path) is left out or fails on ROCm",
            crate::inventory::words::NVCC_PROBE,
            if which { "shutil.which(\"nvcc\")" } else { "runs nvcc and catches its absence" }
        ),
        Some("accept the ROCm toolchain in the probe: `torch.version.hip`, or `shutil.which(\"hipcc\")`".into()),
    );
}

#[cfg(test)]
mod tests {
    use crate::inventory::{kind::FileKind, scan_bytes};

    /// torchsort's `cuda_toolkit_available()` (`call(["nvcc"])` inside `try: … except
    /// FileNotFoundError`) and `shutil.which("nvcc")` are probes that leave the CUDA extension
    /// out on ROCm: HP850 (one decision per file). Twins: the same call outside a `try`, a probe
    /// for hipcc, a `try` that catches something else.
    #[test]
    fn nvcc_probes_that_gate_a_build_are_found() {
        let hp850 = |src: &str| -> Vec<(u32, String)> {
            scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
                .into_iter()
                .filter(|f| f.rule == "HP850")
                .map(|f| (f.line, f.status.as_str().to_string()))
                .collect()
        };
        let probe = "from subprocess import DEVNULL, call\ndef available():\n    try:\n        call([\"nvcc\"], stdout=DEVNULL)\n        return True\n    except FileNotFoundError:\n        return False\n";
        assert_eq!(hp850(probe), [(4, "REMEDIATION".to_string())]);
        let which = "import shutil\nhave = shutil.which(\"nvcc\") is not None\n";
        assert_eq!(hp850(which), [(2, "REMEDIATION".to_string())]);
        assert!(hp850("from subprocess import call\ncall([\"nvcc\"])\n").is_empty());
        assert!(hp850(&which.replace("nvcc", "hipcc")).is_empty());
        assert!(hp850(&probe.replace("FileNotFoundError", "KeyboardInterrupt")).is_empty());
    }

    /// Scaffold-GS's `train.py`: the command is a string the module names first
    /// (`cmd = 'nvidia-smi -q …'`, then `subprocess.run(cmd, shell=True)`); the run is read with
    /// the name's value. Twin: a name holding another program says nothing.
    #[test]
    fn a_command_held_by_a_name_is_the_one_run() {
        use crate::inventory::{kind::FileKind, scan_bytes};
        let src = "import subprocess\ncmd = 'nvidia-smi -q -d Memory |grep Used'\nresult = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE)\n";
        let rules = |src: &str| -> Vec<(String, u32)> {
            scan_bytes("train.py", FileKind::Python, src.as_bytes())
                .into_iter()
                .map(|f| (f.rule, f.line))
                .collect()
        };
        assert_eq!(rules(src), [("HP880".to_string(), 2)]);
        assert!(rules(&src.replace("nvidia-smi -q -d Memory", "ls -l")).is_empty());
    }
}
