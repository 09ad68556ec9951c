//! Loading an array to compare by its extension: `.npy`, `.csv` (also `.tsv`/`.txt`: numbers
//! separated by commas, tabs, semicolons or spaces; a non-numeric first row is a header) and
//! `.json` (nested arrays of numbers; `null` and "NaN"/"Infinity" strings allowed).

use super::{npy, Array};
use std::path::Path;

/// The largest input `compare` reads (a runaway file is an error, never an unbounded read).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads a regular file of at most [`MAX_INPUT_BYTES`]: a device such as `/dev/zero` or a FIFO
/// is refused by kind, without blocking (write the output to a file first).
pub fn load(path: &Path) -> Result<Array, String> {
    let bytes = crate::safety::read_regular_bounded(path, MAX_INPUT_BYTES)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let r = match ext.as_str() {
        "npy" => npy::parse(&bytes),
        "json" => json(&String::from_utf8_lossy(&bytes)),
        "csv" | "tsv" | "txt" => csv(&String::from_utf8_lossy(&bytes)),
        _ if bytes.starts_with(b"\x93NUMPY") => npy::parse(&bytes),
        _ => Err("unknown format: expected .npy, .csv/.tsv/.txt or .json".into()),
    };
    r.map_err(|e| format!("{}: {e}", path.display()))
}

/// A short, escaped excerpt of the file's text for an error message: control characters
/// escaped, at most 40 characters.
pub(super) fn excerpt(s: &str) -> String {
    let escaped: String = s.escape_debug().collect();
    match escaped.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped,
    }
}

fn number(s: &str) -> Option<f64> {
    let t = s.trim().trim_matches('"');
    match t.to_ascii_lowercase().as_str() {
        "nan" | "-nan" => Some(f64::NAN),
        "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        _ => t.parse().ok(),
    }
}

pub fn csv(text: &str) -> Result<Array, String> {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line
            .split([',', '\t', ';', ' '])
            .filter(|c| !c.trim().is_empty())
            .collect();
        let parsed: Option<Vec<f64>> = cells.iter().map(|c| number(c)).collect();
        match parsed {
            Some(r) => rows.push(r),
            None if rows.is_empty() => continue, // header
            None => {
                return Err(format!(
                    "line {}: not a number in `{}`",
                    i + 1,
                    excerpt(line)
                ))
            }
        }
    }
    let cols = rows.first().map_or(0, Vec::len);
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != cols) {
        return Err(format!(
            "row {} has {} values, the first row {cols}",
            i + 1,
            r.len()
        ));
    }
    let shape = if cols == 1 {
        vec![rows.len()]
    } else {
        vec![rows.len(), cols]
    };
    Ok(Array {
        shape,
        data: rows.into_iter().flatten().collect(),
    })
}

pub fn json(text: &str) -> Result<Array, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut shape = Vec::new();
    let mut cur = &v;
    while let serde_json::Value::Array(a) = cur {
        shape.push(a.len());
        match a.first() {
            Some(x) => cur = x,
            None => break,
        }
    }
    let mut data = Vec::new();
    flatten(&v, 0, &shape, &mut data)?;
    Ok(Array { shape, data })
}

fn flatten(
    v: &serde_json::Value,
    depth: usize,
    shape: &[usize],
    out: &mut Vec<f64>,
) -> Result<(), String> {
    use serde_json::Value;
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
    fn reads_csv_with_header_and_specials() {
        let a = csv("x,y\n1,2\n3,nan\n-inf,4e-3\n").unwrap();
        assert_eq!(a.shape, [3, 2]);
        assert!(a.data[3].is_nan() && a.data[4] == f64::NEG_INFINITY);
        assert_eq!(csv("1\n2\n").unwrap().shape, [2]);
        assert!(csv("1,2\n3\n").is_err());
    }

    #[test]
    fn reads_nested_json() {
        let a = json("[[1, 2.5], [null, \"Infinity\"]]").unwrap();
        assert_eq!(a.shape, [2, 2]);
        assert_eq!(a.data[1], 2.5);
        assert!(a.data[2].is_nan());
        assert!(json("[[1, 2], [3]]").is_err());
        assert_eq!(json("[]").unwrap().shape, [0]);
    }
}
