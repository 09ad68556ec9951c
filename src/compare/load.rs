//! Loading an array to compare by its extension: `.npy`, `.csv` (also `.tsv`/`.txt`: numbers
//! separated by commas, tabs, semicolons or spaces; a non-numeric first row is a header naming
//! the columns) and `.json` (nested arrays of numbers, or objects read leaf by leaf by key path:
//! see [`super::json`]).

use super::{npy, Array, Labels};
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
        "json" => super::json::parse(&String::from_utf8_lossy(&bytes)),
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

pub(super) fn number(s: &str) -> Option<f64> {
    let t = s.trim().trim_matches('"');
    match t.to_ascii_lowercase().as_str() {
        "nan" | "-nan" => Some(f64::NAN),
        "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        _ => t.parse().ok(),
    }
}

/// A numeric table (the `csv` crate, through [`crate::perf::csv::records`]): separated by the
/// first of comma, tab, semicolon found in its first line, else by spaces; empty cells (runs of
/// spaces, a trailing separator) skipped. A non-numeric first row is a header whose names label
/// the columns (so `compare` matches columns by name).
pub fn csv(text: &str) -> Result<Array, String> {
    let first = crate::perf::csv::first_line(text);
    let sep = [b',', b'\t', b';']
        .into_iter()
        .find(|&c| first.as_bytes().contains(&c))
        .unwrap_or(b' ');
    let mut header: Option<Vec<String>> = None;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (line, mut cells) in crate::perf::csv::records(text, sep)? {
        cells.retain(|c| !c.is_empty());
        if cells.is_empty() {
            continue;
        }
        let parsed: Option<Vec<f64>> = cells.iter().map(|c| number(c)).collect();
        match parsed {
            Some(r) => rows.push(r),
            None if rows.is_empty() && header.is_none() => header = Some(cells),
            None => {
                return Err(format!(
                    "line {line}: not a number in `{}`",
                    excerpt(&cells.join(&char::from(sep).to_string()))
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
    let labels = match header {
        Some(h) if h.len() == cols => Labels::Columns(h),
        _ => Labels::None,
    };
    Ok(Array {
        shape,
        data: rows.into_iter().flatten().collect(),
        dtype: "csv text".into(),
        labels,
    })
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
    fn header_names_the_columns() {
        let a = csv("# run 1\nx; y\n1; 2\n").unwrap();
        assert_eq!(a.labels, Labels::Columns(vec!["x".into(), "y".into()]));
        let a = csv("1  2   3\n4 5 6\n").unwrap();
        assert_eq!((a.shape, a.labels), (vec![2, 3], Labels::None));
        assert!(csv("a,b\n1,2\nx,y\n").unwrap_err().contains("line 3"));
        assert!(csv("# c\n\na,b\n1,2\nx,y\n")
            .unwrap_err()
            .contains("line 5"));
    }
}
