//! A small evaluator for `#if` conditions under HIP-Clang, so that a finding can say which
//! branch HIP compiles. Three-valued: a macro the tool knows is undefined under HIP counts as
//! undefined (value 0), HIP's own platform macros as 1, anything else makes the result unknown.

use super::syntax::Src;
use crate::lex::{Directive, Tok};

/// Macros HIP-Clang never defines (CUDA toolkit and nvcc macros).
pub const UNDEFINED_UNDER_HIP: &[&str] = &[
    "CUDA_VERSION",
    "CUDART_VERSION",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
    "__CUDACC_VER_BUILD__",
    "__NVCC__",
    "__CUDACC__",
    "__CUDACC_RTC__",
    "__CUDA_ARCH__",
    "__CUDA_ARCH_LIST__",
    "__CUDA_API_VERSION",
    "__NVCOMPILER",
    "NVCC",
];

const DEFINED_UNDER_HIP: &[&str] = &["__HIP_PLATFORM_AMD__", "__HIPCC__", "__HIP__"];

/// The condition tokens of a directive (after `#if`/`#elif`), with multi-byte operators merged.
pub fn condition_tokens<'a>(s: &Src<'a>, d: &Directive) -> Vec<&'a str> {
    let src = s.bytes();
    let toks: Vec<usize> = d
        .tokens
        .clone()
        .filter(|&j| s.lexed.tokens[j].kind != Tok::Comment)
        .skip(2)
        .collect();
    let mut out: Vec<&'a str> = Vec::new();
    let mut last_end = usize::MAX;
    let mut last_start = 0usize;
    for j in toks {
        let t = s.lexed.tokens[j];
        let (st, en) = (t.start as usize, t.end as usize);
        let joinable = t.kind == Tok::Punct
            && last_end == st
            && out.last().is_some_and(|p| {
                matches!(
                    (p.as_bytes()[p.len() - 1], src[st]),
                    (b'>' | b'<' | b'=' | b'!', b'=')
                        | (b'&', b'&')
                        | (b'|', b'|')
                        | (b'<', b'<')
                        | (b'>', b'>')
                ) && p.len() == 1
            });
        if joinable {
            out.pop();
            out.push(std::str::from_utf8(&src[last_start..en]).unwrap_or(""));
        } else {
            out.push(std::str::from_utf8(&src[st..en]).unwrap_or(""));
            last_start = st;
        }
        last_end = en;
    }
    out
}

/// The value of a condition under HIP-Clang, `None` when it depends on something unknown.
pub fn eval_under_hip(toks: &[&str]) -> Option<i64> {
    let mut p = P { t: toks, i: 0 };
    let v = p.expr(0);
    if p.i != toks.len() {
        return None;
    }
    v
}

struct P<'t, 'a> {
    t: &'t [&'a str],
    i: usize,
}

fn prec(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl P<'_, '_> {
    fn peek(&self) -> &str {
        self.t.get(self.i).copied().unwrap_or("")
    }
    fn expr(&mut self, min: u8) -> Option<i64> {
        let mut lhs = self.unary();
        while let Some(pr) = prec(self.peek()) {
            if pr < min {
                break;
            }
            let op = self.peek().to_string();
            self.i += 1;
            let rhs = self.expr(pr + 1);
            lhs = match (op.as_str(), lhs, rhs) {
                ("&&", Some(0), _) | ("&&", _, Some(0)) => Some(0),
                ("||", Some(a), _) if a != 0 => Some(1),
                ("||", _, Some(b)) if b != 0 => Some(1),
                (_, Some(a), Some(b)) => binop(&op, a, b),
                _ => None,
            };
        }
        if self.peek() == "?" {
            self.i += 1;
            let a = self.expr(0);
            if self.peek() == ":" {
                self.i += 1;
            }
            let b = self.expr(0);
            return match lhs? {
                0 => b,
                _ => a,
            };
        }
        lhs
    }
    fn unary(&mut self) -> Option<i64> {
        let t = self.peek().to_string();
        self.i += 1;
        match t.as_str() {
            "!" => self.unary().map(|v| (v == 0) as i64),
            "-" => self.unary().map(|v| -v),
            "+" => self.unary(),
            "~" => self.unary().map(|v| !v),
            "(" => {
                let v = self.expr(0);
                if self.peek() == ")" {
                    self.i += 1;
                }
                v
            }
            "defined" => {
                let paren = self.peek() == "(";
                if paren {
                    self.i += 1;
                }
                let name = self.peek().to_string();
                self.i += 1;
                if paren && self.peek() == ")" {
                    self.i += 1;
                }
                if UNDEFINED_UNDER_HIP.contains(&name.as_str()) {
                    Some(0)
                } else if DEFINED_UNDER_HIP.contains(&name.as_str()) {
                    Some(1)
                } else {
                    None
                }
            }
            _ => {
                if let Some(v) = super::syntax::int_value(&t) {
                    return Some(v as i64);
                }
                if UNDEFINED_UNDER_HIP.contains(&t.as_str()) {
                    Some(0)
                } else if DEFINED_UNDER_HIP.contains(&t.as_str()) {
                    Some(1)
                } else {
                    // A function-like macro call: skip its arguments, value unknown.
                    if self.peek() == "(" {
                        let mut depth = 0;
                        while self.i < self.t.len() {
                            match self.peek() {
                                "(" => depth += 1,
                                ")" => {
                                    depth -= 1;
                                    if depth == 0 {
                                        self.i += 1;
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            self.i += 1;
                        }
                    }
                    None
                }
            }
        }
    }
}

fn binop(op: &str, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        "||" => ((a != 0) || (b != 0)) as i64,
        "&&" => ((a != 0) && (b != 0)) as i64,
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => (a == b) as i64,
        "!=" => (a != b) as i64,
        "<" => (a < b) as i64,
        ">" => (a > b) as i64,
        "<=" => (a <= b) as i64,
        ">=" => (a >= b) as i64,
        "<<" => a.checked_shl(b as u32)?,
        ">>" => a.checked_shr(b as u32)?,
        "+" => a.checked_add(b)?,
        "-" => a.checked_sub(b)?,
        "*" => a.checked_mul(b)?,
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        _ => return None,
    })
}

/// Words for a finding: which branch HIP-Clang compiles for `kind` (`if`, `elif`, `ifdef`, `ifndef`).
pub fn branch_taken(kind: &str, value: Option<i64>) -> String {
    match (kind, value) {
        ("ifdef", _) => "HIP-Clang leaves it undefined, so the `#ifdef` branch is dropped and the `#else` branch (if any) is compiled".into(),
        ("ifndef", _) => "HIP-Clang leaves it undefined, so the `#ifndef` branch is compiled".into(),
        (_, Some(0)) => format!("under HIP-Clang the condition is false (undefined macros count as 0): the `#{kind}` branch is dropped and the next `#elif`/`#else` is compiled"),
        (_, Some(_)) => format!("under HIP-Clang the condition is true (undefined macros count as 0): the `#{kind}` branch is compiled"),
        (_, None) => "undefined macros count as 0 under HIP-Clang, so this condition may select a different branch than under nvcc".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> Option<i64> {
        let src = format!("#if {s}\n");
        let lexed = crate::lex::lex(src.as_bytes());
        let lines = crate::source::LineIndex::new(src.as_bytes());
        let ctx = crate::rules::FileCtx {
            path: "a.cu",
            src: src.as_bytes(),
            lines: &lines,
        };
        let index = crate::rules::syntax::Index::new(&ctx, None);
        let s = Src::new(&ctx, &lexed, None, &index);
        let t = condition_tokens(&s, &lexed.directives[0]);
        eval_under_hip(&t)
    }

    #[test]
    fn evaluates_with_cuda_macros_undefined() {
        assert_eq!(ev("CUDA_VERSION >= 11000"), Some(0));
        assert_eq!(ev("CUDART_VERSION < 11000"), Some(1));
        assert_eq!(
            ev("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700"),
            Some(0)
        );
        assert_eq!(
            ev("!defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600"),
            Some(1)
        );
        assert_eq!(
            ev("__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1102"),
            Some(0)
        );
        assert_eq!(ev("defined(USE_FOO) && CUDA_VERSION >= 9000"), Some(0));
        assert_eq!(ev("defined(USE_FOO) || CUDA_VERSION >= 9000"), None);
        assert_eq!(ev("defined(__HIP_PLATFORM_AMD__)"), Some(1));
    }
}
