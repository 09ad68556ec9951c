//! Which arms of a shell script the project's ROCm build runs. A build script that already
//! builds for ROCm picks its platform from a variable (`if [ "$BACKEND" = cuda ]; then … elif
//! [ "$BACKEND" = rocm ]; then …`, `case "$GPU" in cuda) … ;; rocm|hip) … ;; esac`): under the
//! ROCm build that variable holds the ROCm value, so the CUDA arms never run there and what they
//! do (nvcc, `-gencode`, `CUDA_HOME`) is the CUDA build's business. The same reading as CMake's
//! `if()` arms ([`super::cmake`]): nothing is decided in a script that never compares a variable
//! with a ROCm value (a CUDA-only script's `if [ "$X" = cuda ]` is porting work), and a
//! condition this reader cannot decide leaves its arm live.

use super::gha::{platform_of, Platform};
use super::ts;
use crate::kinds::bash::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// The value of one test (`[ "$X" = rocm ]`, `[[ $X != cuda ]]`, `test "$X" == hip`) in the
/// ROCm build, and whether it compares with a ROCm value.
fn atom(t: &str) -> (Option<bool>, bool) {
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
    let (neg, t) = match t.trim().strip_prefix("! ") {
        Some(r) => (!neg, r),
        None => (neg, t),
    };
    let w: Vec<&str> = t
        .split_whitespace()
        .map(|x| x.trim_matches(['"', '\'']))
        .collect();
    let [a, op, b] = w.as_slice() else {
        return (None, false);
    };
    let eq = match *op {
        "=" | "==" => true,
        "!=" => false,
        _ => return (None, false),
    };
    let lit = match (a.starts_with('$'), b.starts_with('$')) {
        (true, false) => b,
        (false, true) => a,
        _ => return (None, false),
    };
    match platform_of(lit) {
        Platform::Rocm => (Some(eq != neg), true),
        Platform::Cuda => (Some(eq == neg), false),
        Platform::Neutral => (None, false),
    }
}

/// A condition's value in the ROCm build: tests joined by `&&` / `||` (left to right, as the
/// shell reads them), and whether any compares with a ROCm value.
fn condition(t: &str) -> (Option<bool>, bool) {
    let mut value: Option<Option<bool>> = None;
    let mut rocm = false;
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
        let (v, r) = atom(part);
        rocm |= r;
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
    (value.flatten(), rocm)
}

/// The source between a clause's keyword and its `then` (its condition), and where its body
/// starts.
fn cond_and_body(n: Node, src: &[u8]) -> Option<(String, usize)> {
    let kids = ts::children(n);
    let kw = kids.first()?;
    let then = kids.iter().find(|c| c.kind() == "then")?;
    let text = std::str::from_utf8(&src[kw.end_byte()..then.start_byte()]).ok()?;
    Some((text.to_string(), then.end_byte()))
}

/// The arms of `src` the ROCm build never runs, with why; empty when the script never
/// compares a variable with a ROCm value.
/// `first_line` is the file line `src` starts on (a `run:` block's fragment starts mid-file).
pub fn dead_arms(root: Node, src: &[u8], first_line: usize) -> Vec<(Range<usize>, String)> {
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + first_line;
    let mut out = Vec::new();
    let mut tests_rocm = false;
    ts::each(root, &mut |n| match n.node_kind() {
        K::IfStatement => {
            // (arm range, condition value, condition text)
            let mut arms: Vec<(Range<usize>, Option<bool>, String)> = Vec::new();
            let kids = ts::children(n);
            let clause_start = kids
                .iter()
                .find(|c| matches!(c.node_kind(), K::ElifClause | K::ElseClause))
                .map(|c| c.start_byte());
            let fi = kids.last().map_or(n.end_byte(), |c| c.start_byte());
            if let Some((cond, body)) = cond_and_body(n, src) {
                let (v, r) = condition(&cond);
                tests_rocm |= r;
                arms.push((
                    body..clause_start.unwrap_or(fi),
                    v,
                    format!("if {}", cond.trim()),
                ));
            }
            for c in kids.iter().filter(|c| c.node_kind() == K::ElifClause) {
                if let Some((cond, body)) = cond_and_body(*c, src) {
                    let (v, r) = condition(&cond);
                    tests_rocm |= r;
                    arms.push((body..c.end_byte(), v, format!("elif {}", cond.trim())));
                }
            }
            for c in kids.iter().filter(|c| c.node_kind() == K::ElseClause) {
                arms.push((c.byte_range(), None, "else".into()));
            }
            let mut taken = false;
            for (range, v, head) in arms {
                if taken || v == Some(false) {
                    out.push((
                        range.clone(),
                        format!(
                            "in the `{}` arm (line {}), which the project's ROCm build never runs",
                            head.trim_end_matches(';').trim(),
                            line(range.start)
                        ),
                    ));
                }
                taken |= v == Some(true);
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
        out.clear();
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
