//! GitHub Actions expressions (`if:` conditions, `${{ … }}` in values) evaluated in one lane:
//! `==`, `!=`, `&&`, `||`, `!`, parentheses, `contains`, `startsWith`, `endsWith`, with the
//! lane's `matrix.*` values and the literal `env.*` in scope. Whatever else an expression reads
//! (`github.*`, `inputs.*`, `success()`, comparisons of numbers) is unknown, and an unknown
//! condition leaves a step live: the model never drops a step it cannot decide.

use std::collections::BTreeMap;

/// A value in a GitHub expression: a string (numbers and booleans as GitHub prints them), or
/// unknown.
#[derive(Clone, Debug, PartialEq)]
enum V {
    S(String),
    /// A switch of the project's ROCm build (`inputs.rocm`, `env.USE_ROCM`) not set here: on,
    /// since the question is what the ROCm build runs.
    Rocm,
    Unknown,
}

/// Whether a name reads a ROCm build switch: the last word of its last segment is `rocm` or
/// `hip` (`inputs.rocm`, `env.USE_ROCM`, `FAISS_ENABLE_ROCM`, `inputs.enable_hip`); not a
/// value named for ROCm (`ROCM_INDEX`, `ROCM_VERSION`).
pub(crate) fn rocm_switch(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
    last.split(|c: char| !c.is_ascii_alphanumeric())
        .rfind(|w| !w.is_empty())
        .is_some_and(|w| w == "rocm" || w == "hip")
}

/// An on/off word a switch is compared with: `ON`, `true`, `1`, `yes`; `OFF`, `false`, `0`,
/// `no` or empty.
pub(crate) fn on_off(lit: &str) -> Option<bool> {
    match lit.to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Some(true),
        "off" | "false" | "0" | "no" | "" => Some(false),
        _ => None,
    }
}

impl V {
    fn truthy(&self) -> Option<bool> {
        match self {
            V::S(s) => Some(!(s.is_empty() || s == "false" || s == "0")),
            V::Rocm => Some(true),
            V::Unknown => None,
        }
    }
    fn bool(b: Option<bool>) -> V {
        b.map_or(V::Unknown, |b| V::S(b.to_string()))
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Lit(String),
    Op(&'static str),
}

fn lex(e: &str) -> Option<Vec<Tok>> {
    let b = e.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' {
            let mut s = String::new();
            i += 1;
            loop {
                match b.get(i) {
                    None => return None,
                    Some(b'\'') if b.get(i + 1) == Some(&b'\'') => {
                        s.push('\'');
                        i += 2;
                    }
                    Some(b'\'') => {
                        i += 1;
                        break;
                    }
                    Some(_) => {
                        let ch = e[i..].chars().next()?;
                        s.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            out.push(Tok::Lit(s));
        } else if let Some(op) = [
            "==", "!=", "&&", "||", "<=", ">=", "!", "(", ")", ",", "<", ">",
        ]
        .into_iter()
        .find(|op| e[i..].starts_with(op))
        {
            out.push(Tok::Op(op));
            i += op.len();
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' || c == '*' {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'-' | b'.' | b'*'))
            {
                i += 1;
            }
            let w = &e[start..i];
            if w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '-')
            {
                out.push(Tok::Lit(w.to_string()));
            } else {
                out.push(Tok::Id(w.to_string()));
            }
        } else {
            return None;
        }
    }
    Some(out)
}

/// What an expression can see: the lane's matrix values, the literal `env:` in scope, and the
/// lane's `runner.os` when its runner labels say it (`windows-2022` → `Windows`).
pub(crate) struct Scope<'a> {
    pub matrix: &'a BTreeMap<String, String>,
    pub env: &'a BTreeMap<String, String>,
    pub runner_os: Option<&'static str>,
    /// Whether unset ROCm switches (`inputs.rocm`, `env.USE_ROCM`) read as on: a composite
    /// action judged for the ROCm build; workflow lanes read only what they set.
    pub rocm_build: bool,
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    scope: &'a Scope<'a>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }
    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn or(&mut self) -> Option<V> {
        let mut v = self.and()?;
        while self.eat("||") {
            let r = self.and()?;
            v = match (v.truthy(), r.truthy()) {
                (Some(true), _) | (_, Some(true)) => V::S("true".into()),
                (Some(false), Some(false)) => V::S("false".into()),
                _ => V::Unknown,
            };
        }
        Some(v)
    }
    fn and(&mut self) -> Option<V> {
        let mut v = self.cmp()?;
        while self.eat("&&") {
            let r = self.cmp()?;
            v = match (v.truthy(), r.truthy()) {
                (Some(false), _) | (_, Some(false)) => V::S("false".into()),
                (Some(true), Some(true)) => V::S("true".into()),
                _ => V::Unknown,
            };
        }
        Some(v)
    }
    fn cmp(&mut self) -> Option<V> {
        let l = self.unary()?;
        for (op, eq) in [("==", true), ("!=", false)] {
            if self.eat(op) {
                let r = self.unary()?;
                return Some(match (&l, &r) {
                    (V::S(a), V::S(b)) => V::bool(Some(a.eq_ignore_ascii_case(b) == eq)),
                    (V::Rocm, V::S(b)) | (V::S(b), V::Rocm) => {
                        V::bool(on_off(b).map(|on| on == eq))
                    }
                    _ => V::Unknown,
                });
            }
        }
        for op in ["<=", ">=", "<", ">"] {
            if self.eat(op) {
                self.unary()?;
                return Some(V::Unknown);
            }
        }
        Some(l)
    }
    fn unary(&mut self) -> Option<V> {
        if self.eat("!") {
            let v = self.unary()?;
            return Some(V::bool(v.truthy().map(|b| !b)));
        }
        self.primary()
    }
    fn primary(&mut self) -> Option<V> {
        let t = self.peek()?.clone();
        self.at += 1;
        match t {
            Tok::Op("(") => {
                let v = self.or()?;
                self.eat(")").then_some(v)
            }
            Tok::Lit(s) => Some(V::S(s)),
            Tok::Id(id) if self.eat("(") => {
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.or()?);
                        if self.eat(")") {
                            break;
                        }
                        if !self.eat(",") {
                            return None;
                        }
                    }
                }
                let f = id.to_ascii_lowercase();
                Some(match (f.as_str(), args.as_slice()) {
                    ("contains", [V::S(a), V::S(b)]) => V::bool(Some(
                        a.to_ascii_lowercase().contains(&b.to_ascii_lowercase()),
                    )),
                    ("startswith", [V::S(a), V::S(b)]) => V::bool(Some(
                        a.to_ascii_lowercase().starts_with(&b.to_ascii_lowercase()),
                    )),
                    ("endswith", [V::S(a), V::S(b)]) => V::bool(Some(
                        a.to_ascii_lowercase().ends_with(&b.to_ascii_lowercase()),
                    )),
                    _ => V::Unknown,
                })
            }
            Tok::Id(id) => Some(match id.as_str() {
                "true" | "false" => V::S(id),
                "null" => V::S(String::new()),
                _ => {
                    if let Some(k) = id.strip_prefix("matrix.") {
                        // The lanes are known: a key a lane lacks is null there.
                        V::S(self.scope.matrix.get(k).cloned().unwrap_or_default())
                    } else if let Some(k) = id.strip_prefix("env.") {
                        match self.scope.env.get(k) {
                            Some(v) => V::S(v.clone()),
                            None if self.scope.rocm_build && rocm_switch(k) => V::Rocm,
                            None => V::Unknown,
                        }
                    } else if self.scope.rocm_build && id.starts_with("inputs.") && rocm_switch(&id)
                    {
                        V::Rocm
                    } else if id == "runner.os" {
                        self.scope
                            .runner_os
                            .map_or(V::Unknown, |o| V::S(o.to_string()))
                    } else {
                        V::Unknown
                    }
                }
            }),
            _ => None,
        }
    }
}

/// The value of an `if:` condition in a lane: `None` when it is not decided there.
pub(crate) fn eval(cond: &str, scope: &Scope) -> Option<bool> {
    let e = cond.trim();
    let e = e
        .strip_prefix("${{")
        .and_then(|x| x.strip_suffix("}}"))
        .unwrap_or(e);
    let toks = lex(e)?;
    let mut p = Parser { toks, at: 0, scope };
    let v = p.or()?;
    if p.at != p.toks.len() {
        return None;
    }
    v.truthy()
}

/// `${{ matrix.x }}` and `${{ env.X }}` in `text` replaced from the scope; `None` when an
/// expression stays unknown.
pub(crate) fn substitute(text: &str, scope: &Scope) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${{") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("}}")? + at;
        let expr = rest[at + 3..end].trim();
        let v = expr
            .strip_prefix("matrix.")
            .and_then(|k| scope.matrix.get(k))
            .or_else(|| expr.strip_prefix("env.").and_then(|k| scope.env.get(k)))?;
        out.push_str(v);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions() {
        let vars: BTreeMap<String, String> = [("os".to_string(), "ROCm".to_string())]
            .into_iter()
            .collect();
        let env = BTreeMap::new();
        let s = Scope {
            matrix: &vars,
            env: &env,
            runner_os: Some("Windows"),
            rocm_build: false,
        };
        assert_eq!(eval("runner.os == 'Windows'", &s), Some(true));
        assert_eq!(eval("matrix.os == 'rocm'", &s), Some(true));
        assert_eq!(eval("!(matrix.os == 'rocm')", &s), Some(false));
        assert_eq!(eval("contains(matrix.os, 'roc') && true", &s), Some(true));
        assert_eq!(eval("github.event_name == 'push'", &s), None);
        assert_eq!(
            eval("github.event_name == 'push' && matrix.os == 'cuda'", &s),
            Some(false)
        );
        assert_eq!(eval("success() || matrix.os == 'rocm'", &s), Some(true));
        assert_eq!(eval("matrix.os == ", &s), None);
    }
}
