//! Benchmark JSON read strictly, because a result file is evidence: a key that appears twice in
//! one object is an error naming it (serde_json alone keeps the last value, so a file could
//! carry two answers and hipport would silently pick one), and Python's `NaN`, `Infinity` and
//! `-Infinity` tokens are kept as the strings `"NaN"`, `"Infinity"` and `"-Infinity"` so the
//! format readers can refuse a non-finite measurement by name instead of reading it as missing.
//! Errors name keys (escaped, shortened) and positions, never values.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Parses `text` as one JSON value, refusing duplicated keys.
pub fn parse(text: &str) -> Result<Value, String> {
    let text = python_tokens(text);
    let mut de = serde_json::Deserializer::from_str(&text);
    let v = Strict {
        path: String::new(),
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v))
    .map_err(|e| e.to_string())?;
    Ok(v)
}

/// What a JSON value is as a measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Finite(f64),
    /// `NaN`, `Infinity`, `-Infinity` (Python's tokens, or the same words as strings), or a
    /// number too large for `f64`.
    NonFinite,
    /// Not a number at all (a string, an object, null, …).
    Other,
}

/// Reads `v` as a measurement.
pub fn num(v: &Value) -> Num {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() => Num::Finite(x),
            _ => Num::NonFinite,
        },
        Value::String(s) if non_finite_word(s) => Num::NonFinite,
        _ => Num::Other,
    }
}

/// `nan`, `inf`, `-Infinity`, … in any case: the spellings of a non-finite number.
pub fn non_finite_word(s: &str) -> bool {
    let l = s.trim().to_ascii_lowercase();
    let l = l.strip_prefix(['+', '-']).unwrap_or(&l);
    matches!(l, "nan" | "inf" | "infinity")
}

/// A key or name from a file as an error message shows it: control characters escaped, at most
/// 60 characters.
pub fn shown(name: &str) -> String {
    let escaped: String = name.escape_debug().collect();
    match escaped.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped,
    }
}

/// Python's `json.dump` writes `NaN`, `Infinity` and `-Infinity`: outside strings they become
/// the strings of the same spelling.
fn python_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_str = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        let word = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w));
        match word {
            Some(w) => {
                out.push('"');
                out.push_str(w);
                out.push('"');
                rest = &rest[w.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// A JSON value whose objects may not repeat a key; `path` names where it is (`metrics.x`).
struct Strict {
    path: String,
}

impl Strict {
    fn child(&self, key: &str) -> Strict {
        Strict {
            path: if self.path.is_empty() {
                key.to_string()
            } else {
                format!("{}.{key}", self.path)
            },
        }
    }
    fn element(&self, i: usize) -> Strict {
        Strict {
            path: format!("{}[{i}]", self.path),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        // serde_json refuses out-of-range numbers itself; a non-finite one cannot be stored.
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self.element(out.len()))? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let child = self.child(&key);
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "key `{}` appears twice: remove one (hipport will not pick one)",
                    shown(&child.path)
                )));
            }
            let v = map.next_value_seed(child)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_tokens_become_strings_outside_strings_only() {
        assert_eq!(
            python_tokens(r#"{"a": NaN, "b": "NaN \"x\"", "c": -Infinity, "d": [Infinity]}"#),
            r#"{"a": "NaN", "b": "NaN \"x\"", "c": "-Infinity", "d": ["Infinity"]}"#
        );
        let v = parse(r#"{"a": NaN, "b": 1.5, "c": "x", "d": 1e400}"#);
        assert!(v.is_err(), "1e400 is out of range for serde_json");
        let v = parse(r#"{"a": NaN, "b": 1.5, "c": "x"}"#).unwrap();
        assert_eq!(num(&v["a"]), Num::NonFinite);
        assert_eq!(num(&v["b"]), Num::Finite(1.5));
        assert_eq!(num(&v["c"]), Num::Other);
        assert_eq!(num(&Value::String("-inf".into())), Num::NonFinite);
    }

    #[test]
    fn a_repeated_key_is_an_error_naming_its_path() {
        let e =
            parse(r#"{"metrics": {"p99_ms": 900, "x": [{"a": 1}], "p99_ms": 100}}"#).unwrap_err();
        assert!(e.contains("key `metrics.p99_ms` appears twice"), "{e}");
        let e = parse(r#"{"rows": [{"a": 1}, {"a": 1, "a": 2}]}"#).unwrap_err();
        assert!(e.contains("`rows[1].a`"), "{e}");
        // The same key in two objects is fine; trailing text is not.
        assert!(parse(r#"[{"a": 1}, {"a": 2}]"#).is_ok());
        assert!(parse(r#"{"a": 1} {"#).is_err());
        assert_eq!(shown("a\nb"), "a\\nb");
        assert_eq!(shown(&"x".repeat(100)).chars().count(), 61);
    }
}
