//! JSON outputs: a nested array of numbers is one array (its shape from the nesting); an
//! object, or an array holding objects, is a set of numeric leaves named by key path
//! (`{"loss": 1.2, "metrics": {"acc": [..]}}` gives `loss` and `metrics.acc`; array positions
//! read `runs[0].loss`), so two runs that write their keys in another order compare leaf by
//! leaf. `null` and "NaN"/"Infinity" strings are numbers; other strings are metadata and left
//! out; `true`/`false` are 1/0.

use super::load::{excerpt, number};
use super::{Array, Labels, Leaf};
use serde_json::Value;

/// The most bytes all key paths together may take: a file of many leaves under a long key
/// is refused instead of repeating that key for every leaf.
const MAX_PATH_BYTES: usize = 64 << 20;

pub fn parse(text: &str) -> Result<Array, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if !holds_object(&v) {
        let (shape, data) = tensor(&v)?;
        return Ok(Array {
            shape,
            data,
            dtype: "json number".into(),
            labels: Labels::None,
        });
    }
    let mut walk = Walk::default();
    walk.visit(&v, String::new())?;
    Ok(Array {
        shape: vec![walk.data.len()],
        data: walk.data,
        dtype: "json number".into(),
        labels: Labels::Leaves(walk.leaves),
    })
}

fn holds_object(v: &Value) -> bool {
    match v {
        Value::Object(_) => true,
        Value::Array(a) => a.iter().any(holds_object),
        _ => false,
    }
}

/// A string that is not a number anywhere inside: text such as a model name or tags.
fn holds_text(v: &Value) -> bool {
    match v {
        Value::String(s) => number(s).is_none(),
        Value::Array(a) => a.iter().any(holds_text),
        _ => false,
    }
}

#[derive(Default)]
struct Walk {
    leaves: Vec<Leaf>,
    data: Vec<f64>,
    path_bytes: usize,
}

impl Walk {
    fn visit(&mut self, v: &Value, path: String) -> Result<(), String> {
        match v {
            Value::Object(m) => m.iter().try_for_each(|(k, x)| {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                self.visit(x, p)
            }),
            Value::Array(a) if holds_object(v) => a
                .iter()
                .enumerate()
                .try_for_each(|(i, x)| self.visit(x, format!("{path}[{i}]"))),
            _ if holds_text(v) => Ok(()),
            _ => {
                let (shape, data) = tensor(v).map_err(|e| format!("`{}`: {e}", excerpt(&path)))?;
                self.path_bytes += path.len();
                if self.path_bytes > MAX_PATH_BYTES {
                    return Err(format!(
                        "the key paths of this JSON take more than {MAX_PATH_BYTES} bytes"
                    ));
                }
                self.leaves.push(Leaf { path, shape });
                self.data.extend(data);
                Ok(())
            }
        }
    }
}

/// A number or a nested array of numbers: its shape and values in C order.
fn tensor(v: &Value) -> Result<(Vec<usize>, Vec<f64>), String> {
    let mut shape = Vec::new();
    let mut cur = v;
    while let Value::Array(a) = cur {
        shape.push(a.len());
        match a.first() {
            Some(x) => cur = x,
            None => break,
        }
    }
    let mut data = Vec::new();
    flatten(v, 0, &shape, &mut data)?;
    Ok((shape, data))
}

fn flatten(v: &Value, depth: usize, shape: &[usize], out: &mut Vec<f64>) -> Result<(), String> {
    match v {
        Value::Array(a) => {
            if depth >= shape.len() || a.len() != shape[depth] {
                return Err("ragged JSON array: every row must have the same length".into());
            }
            a.iter().try_for_each(|x| flatten(x, depth + 1, shape, out))
        }
        _ if depth != shape.len() => {
            Err("ragged JSON array: numbers and arrays mixed at one level".into())
        }
        Value::Number(n) => {
            out.push(n.as_f64().unwrap_or(f64::NAN));
            Ok(())
        }
        Value::Null => {
            out.push(f64::NAN);
            Ok(())
        }
        Value::String(s) => number(s)
            .map(|x| out.push(x))
            .ok_or_else(|| format!("`{}` is not a number", excerpt(s))),
        Value::Bool(b) => {
            out.push(f64::from(u8::from(*b)));
            Ok(())
        }
        Value::Object(_) => {
            Err("JSON objects are not arrays: give nested arrays of numbers".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_arrays() {
        let a = parse("[[1, 2.5], [null, \"Infinity\"]]").unwrap();
        assert_eq!(a.shape, [2, 2]);
        assert_eq!(a.data[1], 2.5);
        assert!(a.data[2].is_nan());
        assert!(parse("[[1, 2], [3]]").is_err());
        assert_eq!(parse("[]").unwrap().shape, [0]);
        assert_eq!(a.labels, Labels::None);
    }

    #[test]
    fn reads_objects_as_leaves_by_key_path() {
        let a = parse(
            r#"{"model": "llama", "loss": 1.5, "metrics": {"acc": [0.5, 0.75]},
                "runs": [{"t": 2}, {"t": 3}], "tags": ["a", "b"]}"#,
        )
        .unwrap();
        let Labels::Leaves(l) = &a.labels else {
            panic!("{a:?}")
        };
        let paths: Vec<_> = l
            .iter()
            .map(|l| (l.path.as_str(), l.shape.clone()))
            .collect();
        assert_eq!(
            paths,
            [
                ("loss", vec![]),
                ("metrics.acc", vec![2]),
                ("runs[0].t", vec![]),
                ("runs[1].t", vec![])
            ]
        );
        assert_eq!(a.data, [1.5, 0.5, 0.75, 2.0, 3.0]);
        assert!(parse(r#"{"x": [[1, 2], [3]]}"#)
            .unwrap_err()
            .contains("`x`"));
    }
}
