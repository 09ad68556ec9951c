//! `__CUDA_ARCH__` chains whose arms are alternative definitions of the same function-like
//! macros, and chains whose arms hold no code at all.
//!
//! ccminer's `#if __CUDA_ARCH__ < 350` / `#define ROTL32(x, n) ((x << n) | (x >> (32 - n)))` /
//! `#else` / `#define ROTL32(x, n) __funnelshift_l(x, x, n)` / `#endif`: each arm defines the
//! same operation, once for GPUs without the newer instruction and once with it. HIP-Clang
//! leaves `__CUDA_ARCH__` undefined (0), so it takes the arm for the older GPUs: a portable
//! fallback of the same operation, whose own names are reported where they are used. Nothing
//! to port (PASS, naming the macros; a fast path may be lost). Per-GPU tuning is not such a
//! chain: object-like macros (`#define TPB 128` / `#define TPB 256`) pick numbers, and arms
//! that define different names or also hold code decide more than an implementation.
//!
//! A chain whose every arm is empty or comments only (`#if __CUDA_ARCH__ >= 500` /
//! `//__launch_bounds__(128, 12)` / `#endif`) compiles the same code whichever arm is taken.

use crate::finding::Finding;
use crate::lex::Tok;
use crate::model::cond;
use crate::model::syntax::Src;

/// What one arm of a chain holds.
#[derive(Default)]
struct Arm {
    /// Function-like macros it defines: name and parameter count.
    macros: Vec<(String, usize)>,
    /// Anything else: code, an object-like macro, another directive, a nested chain.
    other: bool,
}

/// The arms of the chain opened by directive `di`; `None` when it does not close.
fn arms(s: &Src, di: usize) -> Option<Vec<Arm>> {
    let dirs = &s.lexed.directives;
    let toks = &s.lexed.tokens;
    let mut out = vec![Arm::default()];
    let mut start = dirs[di].end;
    let mut depth = 0usize;
    let code = |from: usize, to: usize| {
        toks.iter().any(|t| {
            (from..to).contains(&(t.start as usize)) && t.kind != Tok::Comment && !t.in_directive()
        })
    };
    for d in &dirs[di + 1..] {
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                depth += 1;
                out.last_mut()?.other = true;
            }
            "endif" if depth > 0 => depth -= 1,
            "elif" | "else" | "elifdef" | "elifndef" | "endif" if depth == 0 => {
                let arm = out.last_mut()?;
                arm.other |= code(start, d.start);
                if d.name == "endif" {
                    return Some(out);
                }
                out.push(Arm::default());
                start = d.end;
            }
            _ if depth > 0 => {}
            "define" => {
                let params = function_like(s, d);
                let name = cond::condition_tokens(s, d).first().map(|n| n.to_string());
                let arm = out.last_mut()?;
                match (name, params) {
                    (Some(n), Some(p)) => arm.macros.push((n, p)),
                    _ => arm.other = true,
                }
            }
            _ => out.last_mut()?.other = true,
        }
    }
    None
}

/// A `#define NAME(a, b) …`'s parameter count (`(` right after the name), `None` for an
/// object-like macro.
fn function_like(s: &Src, d: &crate::lex::Directive) -> Option<usize> {
    let toks = &s.lexed.tokens;
    let mut it = d.tokens.clone().filter(|&j| toks[j].kind != Tok::Comment);
    it.next()?; // #
    it.next()?; // define
    let name = it.next()?;
    let open = it.next()?;
    // No space between the name and `(`.
    if s.tok(open) != "(" || toks[open].start != toks[name].start + s.tok(name).len() as u32 {
        return None;
    }
    let mut params = 0usize;
    let mut any = false;
    for j in it {
        match s.tok(j) {
            ")" => return Some(params + usize::from(any)),
            "," => params += 1,
            _ => any = true,
        }
    }
    None
}

/// The function-like macros a byte range defines, each with its parameter count and the names
/// its body calls (`cudaStreamWaitEvent` in `#define SWE(s, e) cudaStreamWaitEvent(s, e)`),
/// when the range holds nothing else (no code, no other directive) and every body calls one.
pub fn calling_macros(s: &Src, r: &std::ops::Range<usize>) -> Option<Vec<(String, usize, String)>> {
    let toks = &s.lexed.tokens;
    let in_directive = toks
        .iter()
        .any(|t| r.contains(&(t.start as usize)) && t.kind != Tok::Comment && !t.in_directive());
    if in_directive {
        return None;
    }
    let mut out = Vec::new();
    for d in s.lexed.directives.iter().filter(|d| r.contains(&d.start)) {
        if d.name != "define" {
            return None;
        }
        let params = function_like(s, d)?;
        let mut it = d.tokens.clone().filter(|&j| toks[j].kind != Tok::Comment);
        let (_, _, name) = (it.next()?, it.next()?, it.next()?);
        // Past the parameter list.
        it.by_ref().find(|&j| s.tok(j) == ")")?;
        let body: Vec<usize> = it.collect();
        let mut calls: Vec<&str> = body
            .windows(2)
            .filter_map(|w| {
                let t = s.tok(w[0]);
                (s.tok(w[1]) == "("
                    && t.chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_'))
                .then_some(t)
            })
            .collect();
        if calls.is_empty() {
            return None;
        }
        calls.sort_unstable();
        calls.dedup();
        out.push((s.tok(name).to_string(), params, calls.join(" ")));
    }
    (!out.is_empty()).then(|| {
        out.sort();
        out
    })
}

/// Settles the open `__CUDA_ARCH__` tests whose chain is alternative definitions or empty.
pub fn alternative_arms(s: &Src, out: &mut [Finding]) {
    let dirs = &s.lexed.directives;
    for f in out.iter_mut() {
        let Some(di) = super::open_arch_test(s, f) else {
            continue;
        };
        if !matches!(dirs[di].name.as_str(), "if" | "ifdef" | "ifndef") {
            continue;
        }
        let Some(arms) = arms(s, di) else { continue };
        if arms.iter().any(|a| a.other) {
            continue;
        }
        if arms.iter().all(|a| a.macros.is_empty()) {
            f.settle(" — but no arm of the chain holds code (comments only): whichever arm HIP compiles, the code is the same (nothing to change)");
            continue;
        }
        let mut first: Vec<(String, usize)> = arms[0].macros.clone();
        first.sort();
        let alike = arms.len() >= 2
            && arms.iter().all(|a| {
                let mut m = a.macros.clone();
                m.sort();
                m == first
            });
        if alike {
            let names: Vec<String> = first.iter().map(|(n, _)| format!("`{n}`")).collect();
            f.settle(&format!(
                " — but every arm defines the same function-like macro{} ({}), one implementation per GPU generation: HIP compiles the one for GPUs without the newer instruction, a portable fallback of the same operation (nothing to port; the newer arm may have been faster)",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;

    fn hp401(src: &str) -> Vec<(u32, Status)> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP401")
            .map(|f| (f.line, f.status))
            .collect()
    }

    /// ccminer's rotates: each arm defines `ROTL32(x, n)`, and a chain with comments only.
    /// Twins: tuning numbers (object-like macros), arms defining different names, an arm that
    /// also holds code stay open.
    #[test]
    fn alternative_definitions_and_empty_chains_are_settled() {
        let src = "#if __CUDA_ARCH__ < 350\n#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))\n#else\n#define ROTL32(x, n) __funnelshift_l((x), (x), (n))\n#endif\n#if __CUDA_ARCH__ >= 500\n// __launch_bounds__(128, 12)\n#endif\n__global__ void k(unsigned* p) { p[0] = ROTL32(p[0], 3); }\n";
        assert_eq!(hp401(src), [(1, Status::Pass), (6, Status::Pass)]);
        for twin in [
            "#if __CUDA_ARCH__ < 350\n#define TPB 128\n#else\n#define TPB 256\n#endif\n__global__ void k(int* p) { p[0] = TPB; }\n",
            "#if __CUDA_ARCH__ < 350\n#define ROTL32(x, n) ((x) << (n))\n#else\n#define ROTR32(x, n) ((x) >> (n))\n#endif\n__global__ void k(unsigned* p) { p[0] = 1; }\n",
            "#if __CUDA_ARCH__ < 350\n#define ROTL32(x, n) ((x) << (n))\n__device__ int old_path() { return 1; }\n#else\n#define ROTL32(x, n) __funnelshift_l(x, x, n)\n#endif\n__global__ void k(unsigned* p) { p[0] = 1; }\n",
        ] {
            let got = hp401(twin);
            assert!(
                got.iter().any(|(_, st)| *st != Status::Pass),
                "{twin}: {got:?}"
            );
        }
    }
}
