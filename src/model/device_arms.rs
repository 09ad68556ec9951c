//! Arms only a device pass compiles. nvcc defines `__CUDA_ARCH__` exactly while it compiles
//! device code, and HIP-Clang `__HIP_DEVICE_COMPILE__`: code in `#ifdef __CUDA_ARCH__` (or `#if
//! defined(__CUDA_ARCH__) && …`, or the `#else` of `#ifndef __CUDA_ARCH__`) is device code,
//! whatever the function around it says. Projects name the test once
//! (pbrt-v4's `pbrt.h`: `#if defined(__CUDA_ARCH__)` / `#define PBRT_IS_GPU_CODE`) and test the
//! name everywhere (`log.cpp`'s `LogFatal`: `#ifdef PBRT_IS_GPU_CODE` … `asm("trap;")`): such
//! a name, defined only inside device arms, is a device-pass macro, and its arms are device
//! arms too. The model gives the names a file defines so ([`macros`]; the project model passes
//! them to the files that include it) and the byte ranges of a file's device arms ([`arms`]).

use crate::lex::Lexed;
use std::ops::Range;

/// The compilers' own device-pass macros.
pub const BUILTIN: [&str; 2] = ["__CUDA_ARCH__", "__HIP_DEVICE_COMPILE__"];

/// What a conditional's arm is, for the device pass: (this arm, the `#else` after it).
fn polarity(kind: &str, toks: &[&str], is_dev: &dyn Fn(&str) -> bool) -> (bool, bool) {
    let named = toks.iter().any(|t| is_dev(t));
    if !named {
        return (false, false);
    }
    match kind {
        "ifdef" | "elifdef" => (true, false),
        "ifndef" | "elifndef" => (false, true),
        _ => {
            // `!defined(X)` / `!X` alone: the host arm, its `#else` the device arm.
            let negated_alone = toks.first() == Some(&"!")
                && !toks.iter().any(|t| matches!(*t, "&&" | "||"))
                && toks.iter().filter(|t| is_dev(t)).count() == 1;
            if negated_alone {
                return (false, true);
            }
            // A conjunction that requires the device pass: no negation, no alternative.
            let device = !toks.iter().any(|t| matches!(*t, "!" | "||" | "not" | "or"));
            (device, false)
        }
    }
}

/// The byte ranges of the arms of `lexed` only a device pass compiles (nested arms included in
/// their enclosing one), with the directive that decides each. `is_dev` says whether a name
/// is a device-pass macro.
pub fn arms(
    src: &[u8],
    lexed: &Lexed,
    is_dev: &dyn Fn(&str) -> bool,
) -> Vec<(Range<usize>, Range<usize>)> {
    struct Frame {
        now: Option<usize>,
        on_else: bool,
        head: usize,
    }
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let close =
        |stack: &mut Vec<Frame>, end: usize, out: &mut Vec<(Range<usize>, Range<usize>)>| {
            if let Some(f) = stack.last_mut() {
                if let Some(start) = f.now.take() {
                    let d = &lexed.directives[f.head];
                    out.push((start..end, d.start..d.end));
                }
            }
        };
    for (i, d) in lexed.directives.iter().enumerate() {
        let toks = || super::cond::condition_tokens_of(src, lexed, d);
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let (now, on_else) = polarity(&d.name, &toks(), is_dev);
                stack.push(Frame {
                    now: now.then_some(d.end),
                    on_else,
                    head: i,
                });
            }
            "elif" | "elifdef" | "elifndef" => {
                close(&mut stack, d.start, &mut out);
                let (now, _) = polarity(&d.name, &toks(), is_dev);
                if let Some(f) = stack.last_mut() {
                    f.now = now.then_some(d.end);
                    f.on_else = false;
                    if now {
                        f.head = i;
                    }
                }
            }
            "else" => {
                close(&mut stack, d.start, &mut out);
                if let Some(f) = stack.last_mut() {
                    f.now = f.on_else.then_some(d.end);
                }
            }
            "endif" => {
                close(&mut stack, d.start, &mut out);
                stack.pop();
            }
            _ => {}
        }
    }
    out
}

/// Whether byte `at` lies in one of `arms`.
pub fn within(arms: &[(Range<usize>, Range<usize>)], at: usize) -> Option<&Range<usize>> {
    arms.iter().find(|(r, _)| r.contains(&at)).map(|(_, d)| d)
}

/// The object-like macros the file defines only inside arms the device pass alone compiles
/// (by the compilers' own device-pass macros).
pub fn macros(src: &[u8], lexed: &Lexed) -> Vec<String> {
    let arms = arms(src, lexed, &|t| BUILTIN.contains(&t));
    let mut inside: Vec<String> = Vec::new();
    let mut outside: Vec<String> = Vec::new();
    for d in lexed.directives.iter().filter(|d| d.name == "define") {
        let words = lexed.directive_words(d);
        let Some(&n) = words.get(2) else { continue };
        let t = lexed.tokens[n];
        let name = String::from_utf8_lossy(&src[t.range()]).into_owned();
        // Function-like macros are helpers, not tests of the pass.
        if src.get(t.end as usize) == Some(&b'(') {
            continue;
        }
        if within(&arms, d.start).is_some() {
            inside.push(name);
        } else {
            outside.push(name);
        }
    }
    inside.retain(|n| !outside.contains(n));
    inside.sort();
    inside.dedup();
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pbrt-v4's shape: `PBRT_IS_GPU_CODE` is set in the device pass only, and its `#ifdef` is
    /// a device arm. Twins: a qualifier macro defined on both sides (`#else #define HD`), a
    /// host arm (`#ifndef __CUDA_ARCH__`) whose `#else` is the device arm, and an architecture
    /// alternative (`|| !defined(...)`), which is not.
    #[test]
    fn device_pass_macros_and_their_arms() {
        let header = "#if defined(__CUDA_ARCH__)\n#define PBRT_IS_GPU_CODE\n#define HD __device__\n#else\n#define HD\n#endif\n";
        let lx = crate::lex::lex(header.as_bytes());
        assert_eq!(macros(header.as_bytes(), &lx), ["PBRT_IS_GPU_CODE"]);
        let src = "void f() {\n#ifdef PBRT_IS_GPU_CODE\n  asm(\"trap;\");\n#else\n  abort();\n#endif\n}\n\
                   #ifndef __CUDA_ARCH__\nint host;\n#else\nint dev;\n#endif\n\
                   #if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700\nint both;\n#endif\n";
        let lx = crate::lex::lex(src.as_bytes());
        let a = arms(src.as_bytes(), &lx, &|t| {
            t == "PBRT_IS_GPU_CODE" || BUILTIN.contains(&t)
        });
        let at = |w: &str| src.find(w).unwrap();
        assert!(within(&a, at("asm")).is_some());
        assert!(within(&a, at("abort")).is_none());
        assert!(within(&a, at("int host")).is_none());
        assert!(within(&a, at("int dev")).is_some());
        assert!(within(&a, at("int both")).is_none());
    }
}
