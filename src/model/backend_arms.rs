//! Code a file runs only on its CUDA backend, beside the HIP backend the same file keeps. A
//! program that drives several GPU back-ends from one source (hashcat's `backend.c`) picks one at
//! run time: `if (device_param->is_cuda == true) { … CUDA driver calls … }` beside
//! `if (device_param->is_hip == true) { … HIP calls … }`, and `run_cuda_kernel_memset` beside
//! `run_hip_kernel_memset`. On ROCm the HIP arm runs; the CUDA arm is the NVIDIA build's and
//! not a port item.
//!
//! A CUDA arm is
//! - the block of an `if` whose condition tests a CUDA-named flag positively (an identifier
//!   with a `cuda`/`cu` name part: `is_cuda`, `useCuda`, `BACKEND_CUDA`; no `!`, `!=`, `||`),
//!   when the file also names the flag's ROCm twin (`is_hip`, `useHip`, `BACKEND_HIP`);
//! - the body of a function with a CUDA name part whose ROCm twin the file also defines or
//!   declares (`run_cuda_kernel_memset` / `run_hip_kernel_memset`, `hc_cuModuleLoadDataEx` /
//!   `hc_hipModuleLoadDataEx`).
//!
//! Without the twin nothing is decided: a CUDA-only branch of a CUDA-only program is the port's
//! work.

use crate::lex::{Lexed, Tok};
use std::collections::HashSet;
use std::ops::Range;

/// One CUDA arm: its byte range, what makes it one, and where the ROCm twin is named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    pub range: Range<usize>,
    /// The CUDA-named flag or function.
    pub name: String,
    /// Its ROCm twin as the file spells it.
    pub twin: String,
    /// 1-based line of the twin's first mention.
    pub twin_line: u32,
}

/// The ROCm spellings of an identifier with a CUDA name part: each `cuda` / `cu` part (split at
/// `_` and at lower-to-upper case changes) replaced by `hip`, `rocm` and `amd`, in its case.
fn twins_of(name: &str) -> Vec<String> {
    let b = name.as_bytes();
    let mut parts: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for i in 1..=b.len() {
        let cut = i == b.len()
            || b[i] == b'_'
            || (b[i].is_ascii_uppercase() && b[i - 1].is_ascii_lowercase());
        if cut {
            if i > start {
                parts.push(start..i);
            }
            start = if i < b.len() && b[i] == b'_' {
                i + 1
            } else {
                i
            };
        }
    }
    let mut out = Vec::new();
    for p in parts {
        let part = &name[p.clone()];
        if !matches!(part.to_ascii_lowercase().as_str(), "cuda" | "cu") {
            continue;
        }
        for r in ["hip", "rocm", "amd"] {
            let r = if part.chars().all(|c| c.is_ascii_uppercase()) {
                r.to_ascii_uppercase()
            } else if part.starts_with(|c: char| c.is_ascii_uppercase()) {
                let mut c = r.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            } else {
                r.to_string()
            };
            out.push(format!("{}{}{}", &name[..p.start], r, &name[p.end..]));
        }
    }
    out
}

/// The token after the one that closes the bracket opened at `open` (`(`/`{`), if any.
fn closing(src: &[u8], lexed: &Lexed, open: usize) -> Option<usize> {
    let (o, c) = match lexed.tokens[open].text(src) {
        b"(" => (&b"("[..], &b")"[..]),
        b"{" => (&b"{"[..], &b"}"[..]),
        _ => return None,
    };
    let mut depth = 0usize;
    let mut i = open;
    loop {
        let t = lexed.tokens[i].text(src);
        if t == o {
            depth += 1;
        } else if t == c {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
        i = lexed.next_code(i)?;
    }
}

/// The CUDA arms of a file (see the module documentation), outermost first.
pub fn cuda_arms(src: &[u8], lexed: &Lexed) -> Vec<Arm> {
    let text = |i: usize| lexed.tokens[i].text(src);
    let is_code_ident =
        |i: usize| lexed.tokens[i].kind == Tok::Ident && !lexed.tokens[i].in_directive();
    // First mention of every identifier.
    let mut first: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    for t in lexed.tokens.iter() {
        if t.kind == Tok::Ident {
            first.entry(t.text(src)).or_insert(t.start as usize);
        }
    }
    let twin = |name: &str| -> Option<(String, usize)> {
        twins_of(name)
            .into_iter()
            .find_map(|t| first.get(t.as_bytes()).map(|&at| (t, at)))
    };
    let line = |at: usize| src[..at].iter().filter(|&&c| c == b'\n').count() as u32 + 1;
    // The arm of the block opened at token `body`, for `name` and its twin first named at `at`.
    let arm = |body: usize, name: String, twin: String, at: usize| {
        closing(src, lexed, body).map(|end| Arm {
            range: lexed.tokens[body].start as usize..lexed.tokens[end].end as usize,
            name,
            twin,
            twin_line: line(at),
        })
    };
    let mut out: Vec<Arm> = Vec::new();
    let mut seen_fns: HashSet<usize> = HashSet::new();
    for i in 0..lexed.tokens.len() {
        if !is_code_ident(i) {
            continue;
        }
        let Some(open) = lexed.next_code(i).filter(|&j| text(j) == b"(") else {
            continue;
        };
        let Some(close) = closing(src, lexed, open) else {
            continue;
        };
        let Some(body) = lexed.next_code(close) else {
            continue;
        };
        let word = text(i);
        if word == b"if" {
            // `if (cond) {`: a positive test of a CUDA-named flag.
            if text(body) != b"{" {
                continue;
            }
            let mut flag: Option<(String, String, usize)> = None;
            let mut negative = false;
            let mut j = open;
            while j < close {
                match text(j) {
                    b"!" | b"!=" | b"||" | b"|" | b"false" | b"not" | b"or" => negative = true,
                    _ if is_code_ident(j) && flag.is_none() => {
                        let name = String::from_utf8_lossy(text(j)).into_owned();
                        if let Some((t, at)) = twin(&name) {
                            flag = Some((name, t, at));
                        }
                    }
                    _ => {}
                }
                j = match lexed.next_code(j) {
                    Some(k) => k,
                    None => break,
                };
            }
            let (Some((name, t, at)), false) = (flag, negative) else {
                continue;
            };
            out.extend(arm(body, name, t, at));
            continue;
        }
        // `type name(params) {`: a function definition with a CUDA name part and a twin.
        let typed = lexed.prev_code(i).is_some_and(|p| {
            lexed.tokens[p].kind == Tok::Ident
                && !matches!(text(p), b"return" | b"else" | b"case" | b"new" | b"if")
        });
        if !typed || text(body) != b"{" || seen_fns.contains(&i) {
            continue;
        }
        let name = String::from_utf8_lossy(word).into_owned();
        let Some((t, at)) = twin(&name) else {
            continue;
        };
        seen_fns.insert(i);
        out.extend(arm(body, name, t, at));
    }
    out.sort_by_key(|a| (a.range.start, std::cmp::Reverse(a.range.end)));
    out
}

/// The arm around byte `at`, if any.
pub fn arm_at(arms: &[Arm], at: usize) -> Option<&Arm> {
    arms.iter().find(|a| a.range.contains(&at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arms(src: &str) -> Vec<(String, String, u32, String)> {
        let lexed = crate::lex::lex(src.as_bytes());
        cuda_arms(src.as_bytes(), &lexed)
            .into_iter()
            .map(|a| {
                (
                    a.name,
                    a.twin,
                    a.twin_line,
                    src[a.range]
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            })
            .collect()
    }

    #[test]
    fn twin_names_swap_one_cuda_part() {
        assert!(twins_of("is_cuda").contains(&"is_hip".to_string()));
        assert!(twins_of("hc_cuModuleLoadDataEx").contains(&"hc_hipModuleLoadDataEx".to_string()));
        assert!(twins_of("BACKEND_CUDA").contains(&"BACKEND_HIP".to_string()));
        assert!(twins_of("useCuda").contains(&"useHip".to_string()));
        // Not a part: `cudnn`, `cuckoo`, `accuracy`.
        assert!(twins_of("cudnn_ok").is_empty());
        assert!(twins_of("cuckoo").is_empty());
        assert!(twins_of("accuracy").is_empty());
    }

    /// hashcat's shape: runtime arms on `is_cuda` beside `is_hip`, and function twins.
    #[test]
    fn runtime_arms_and_function_twins_with_their_rocm_twin() {
        let src = "int run_cuda_kernel_memset(void *p) { return cuMemsetD8(p, 0, 1); }\nint run_hip_kernel_memset(void *p) { return hipMemsetD8(p, 0, 1); }\nvoid f(dev_t *d) {\n  if (d->is_cuda == true) {\n    cuCtxSynchronize();\n  }\n  if (d->is_hip == true) {\n    hipDeviceSynchronize();\n  }\n}\n";
        let got = arms(src);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, "run_cuda_kernel_memset");
        assert_eq!(got[0].1, "run_hip_kernel_memset");
        assert_eq!(got[0].2, 2);
        assert_eq!(got[1].0, "is_cuda");
        assert_eq!(got[1].3, "{ cuCtxSynchronize(); }");
    }

    /// Twins: no ROCm twin in the file, a negative test, an `||`, a call (not a definition).
    #[test]
    fn no_twin_or_no_positive_test_no_arm() {
        let src = "void f(dev_t *d) {\n  if (d->is_cuda) { cuCtxSynchronize(); }\n  if (!d->use_cuda) { g(); }\n  if (d->use_cuda || x) { g(); }\n  run_cuda_thing(d);\n}\nbool use_hip;\n";
        let got = arms(src);
        assert!(got.is_empty(), "{got:?}");
    }
}
