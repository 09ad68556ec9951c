//! `__CUDA_ARCH__` chains that only pick a kernel's `__launch_bounds__`: one tuning choice
//! per file.

use crate::finding::Finding;
use crate::gate::Phase;
use crate::kinds::cuda::NodeExt;
use crate::lex::Tok;
use crate::model::syntax::Src;
/// `__CUDA_ARCH__` chains whose every arm only picks a kernel's `__launch_bounds__` (ggml's
/// `#if __CUDA_ARCH__ < CC_TURING` / `__launch_bounds__(WARP_SIZE*NWARPS, 2)` / `#endif` before
/// each kernel's name): whichever arm HIP compiles, the kernel builds and computes the same;
/// which bounds AMD gets is one tuning choice for the file (the first argument means what it
/// means in CUDA; a second is [`crate::rules::device_feature::LAUNCH_BOUNDS_MIN_BLOCKS`]'s).
/// The first open test carries it (REMEDIATION/PERFORMANCE, naming the kernels); the others
/// fold into it.
pub fn launch_bounds_arms(s: &Src, out: &mut [Finding]) {
    let mut picks: Vec<(usize, String)> = Vec::new();
    for (k, f) in out.iter().enumerate() {
        let Some(di) = super::open_arch_test(s, f) else {
            continue;
        };
        if let Some(kernel) = bounds_only_chain(s, di) {
            picks.push((k, kernel));
        }
    }
    let Some(&(head, _)) = picks.first() else {
        return;
    };
    let at = format!("{}:{}", out[head].path, out[head].line);
    let mut kernels: Vec<&str> = picks.iter().map(|(_, n)| n.as_str()).collect();
    kernels.dedup();
    let shown: Vec<String> = kernels.iter().take(4).map(|n| format!("`{n}`")).collect();
    let more = match kernels.len().saturating_sub(4) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let lines: Vec<String> = picks
        .iter()
        .map(|(k, _)| out[*k].line.to_string())
        .collect();
    for (n, (k, _)) in picks.iter().enumerate() {
        let f = &mut out[*k];
        if n > 0 {
            crate::finding::Folded::fold(f, at.clone());
            f.message = format!(
                "`{}` only picks a kernel's `__launch_bounds__` (folded into `{at}`: one tuning choice for the file)",
                f.excerpt
            );
            continue;
        }
        f.phase = Phase::Performance;
        f.message = format!(
            "`__CUDA_ARCH__` tests that only pick `__launch_bounds__` for {}{more}: HIP-Clang does not define `__CUDA_ARCH__`, so every AMD GPU gets the bounds of the arm for the oldest GPUs (or none); the kernels build and compute the same, which bounds AMD gets is a tuning choice — one decision for the file: {} test{} (line{} {})",
            shown.join(", "),
            picks.len(),
            if picks.len() == 1 { "" } else { "s" },
            if picks.len() == 1 { "" } else { "s" },
            lines.join(", ")
        );
        f.suggestion = Some("choose the bounds for AMD once (`__launch_bounds__(threads)` matching the launch, under `__HIP_PLATFORM_AMD__`), or leave HIP's default".into());
    }
}

/// The kernel a chain headed by directive `di` picks `__launch_bounds__` for, when every arm
/// of the chain holds only a `__launch_bounds__(…)` attribute or nothing, at least one holds
/// one, and a function name with its `(` follows the `#endif`.
fn bounds_only_chain(s: &Src, di: usize) -> Option<String> {
    let dirs = &s.lexed.directives;
    if !matches!(dirs[di].name.as_str(), "if" | "ifdef" | "ifndef") {
        return None;
    }
    let toks = &s.lexed.tokens;
    // The code tokens between two offsets.
    let code = |a: usize, b: usize| -> Vec<usize> {
        let lo = toks.partition_point(|t| (t.start as usize) < a);
        let hi = toks.partition_point(|t| (t.start as usize) < b);
        (lo..hi)
            .filter(|&j| toks[j].kind != Tok::Comment && !toks[j].in_directive())
            .collect()
    };
    let mut depth = 0usize;
    let mut body = dirs[di].end;
    let mut any = false;
    for d in &dirs[di + 1..] {
        let at_chain = depth == 0;
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                depth += 1;
                continue;
            }
            "endif" if depth > 0 => {
                depth -= 1;
                continue;
            }
            "elif" | "elifdef" | "elifndef" | "else" | "endif" if at_chain => {}
            _ if at_chain => return None,
            _ => continue,
        }
        let c = code(body, d.start);
        if !c.is_empty() {
            let attr = s.tok(c[0]) == "__launch_bounds__"
                && c.len() >= 3
                && s.tok(c[1]) == "("
                && s.tok(c[c.len() - 1]) == ")"
                && c[1..c.len() - 1]
                    .iter()
                    .map(|&j| match s.tok(j) {
                        "(" => 1i32,
                        ")" => -1,
                        _ => 0,
                    })
                    .scan(0i32, |acc, x| {
                        *acc += x;
                        Some(*acc)
                    })
                    .all(|v| v >= 1);
            if !attr {
                return None;
            }
            any = true;
        }
        if d.name == "endif" {
            if !any {
                return None;
            }
            // The kernel's name: the first name with a `(` after it, a few tokens on.
            let from = toks.partition_point(|t| (t.start as usize) < d.end);
            let next: Vec<usize> = (from..toks.len())
                .filter(|&j| toks[j].kind != Tok::Comment && !toks[j].in_directive())
                .take(8)
                .collect();
            return next.windows(2).find_map(|w| {
                (toks[w[0]].kind == Tok::Ident && s.tok(w[1]) == "(")
                    .then(|| s.tok(w[0]).to_string())
            });
        }
        body = d.end;
    }
    None
}

/// `#if __CUDA_ARCH__ < 900` inside a function body, with no `#define` in its branch: HIP-Clang
/// leaves `__CUDA_ARCH__` undefined (0), so it compiles the arm written for NVIDIA GPUs before
/// that generation, which a current NVIDIA GPU skips (torch-harmonics' pre-Hopper path: scalar
/// float atomics instead of `float4` ones, a `__syncwarp`). Such an arm is a fallback for GPUs
/// without the newer feature, which is what AMD GPUs are to this code: portable statements whose
/// own calls are reported where they are. PASS naming it. Not such a test: one at file scope
/// (an old-GPU arm there may define what HIP already has, such as `atomicAdd(double*, double)`),
/// a branch that sets macros (per-GPU tuning), one whose value HIP or a current nvcc leaves
/// open, and one that tests only whether `__CUDA_ARCH__` is defined (the host pass's arm).
pub fn old_gpu_arms(s: &Src, out: &mut [Finding]) {
    use crate::model::cond;
    let Some(tree) = s.tree else { return };
    let dirs = &s.lexed.directives;
    for f in out.iter_mut() {
        let Some(di) = super::open_arch_test(s, f) else {
            continue;
        };
        let d = &dirs[di];
        if !matches!(d.name.as_str(), "if" | "elif") {
            continue;
        }
        let toks = cond::condition_tokens(s, d);
        if cond::eval_under_hip(&toks) != Some(1) || cond::eval_current_nvcc(&toks) != Some(0) {
            continue;
        }
        // A generation test (`__CUDA_ARCH__ < 900`); `!defined(__CUDA_ARCH__)` alone picks the
        // host pass, and its arm is host code HIP's device pass would compile (warp's non-atomic
        // `buf[0] += value` beside the GPU's `atomicAdd`): no fallback for older GPUs.
        if !toks
            .iter()
            .any(|t| matches!(*t, "<" | "<=" | ">" | ">=" | "==" | "!="))
        {
            continue;
        }
        // Inside a function body.
        let inside = tree
            .root_node()
            .descendant_for_byte_range(d.start, d.start)
            .and_then(|n| s.enclosing_function(n))
            .and_then(|g| g.field(crate::kinds::cuda::Field::Body))
            .is_some_and(|b| b.start_byte() < d.start && d.start < b.end_byte());
        if !inside {
            continue;
        }
        // The branch up to the chain's next directive at its depth sets no macro.
        let mut depth = 0usize;
        let mut defines = false;
        for e in &dirs[di + 1..] {
            match e.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" if depth == 0 => break,
                "endif" => depth -= 1,
                "elif" | "else" | "elifdef" | "elifndef" if depth == 0 => break,
                "define" | "undef" => defines = true,
                _ => {}
            }
        }
        if defines {
            continue;
        }
        f.settle(", but the test sits in a function body: HIP compiles the arm written for NVIDIA GPUs without the newer feature, a fallback whose own calls are reported where they are (nothing to port here; check performance where the skipped arm was a fast path)");
    }
}
