//! Benchmark tables read with the `csv` crate: comma-separated (or tab-separated when the
//! header has tabs and no commas), `"quoted, fields"` with `""` escapes, blank lines and `#`
//! comment lines skipped. Rows must have the header's width; a ragged row is an error naming its
//! line.

/// The header and the rows, each a vector of trimmed fields.
#[derive(Debug)]
pub struct Table {
    pub header: Vec<String>,
    /// (1-based line number, fields).
    pub rows: Vec<(usize, Vec<String>)>,
}

/// Comment lines (`#` after optional blanks) blanked in place, so line numbers stay those of
/// the file; the `csv` reader skips empty lines.
fn without_comments(text: &str) -> String {
    text.trim_start_matches('\u{feff}')
        .split_inclusive('\n')
        .map(|l| {
            if l.trim_start().starts_with('#') {
                if l.ends_with('\n') {
                    "\n"
                } else {
                    ""
                }
            } else {
                l
            }
        })
        .collect()
}

pub fn parse(text: &str) -> Result<Table, String> {
    let text = without_comments(text);
    let Some(head) = text.lines().find(|l| !l.trim().is_empty()) else {
        return Err("empty table: no header line".into());
    };
    let sep = if head.contains('\t') && !head.contains(',') {
        b'\t'
    } else {
        b','
    };
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(sep)
        .trim(::csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    // The reader's own line count skips blank lines: count newlines up to each record instead.
    let (mut n, mut counted) = (1, 0);
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        // The position is where the reader began, before the blank lines it skipped.
        let mut at = record.position().map_or(counted, |p| p.byte() as usize);
        while matches!(text.as_bytes().get(at), Some(b'\n' | b'\r')) {
            at += 1;
        }
        n += text.as_bytes()[counted..at.max(counted)]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = at.max(counted);
        let f: Vec<String> = record.iter().map(str::to_string).collect();
        if f.iter().all(String::is_empty) && f.len() == 1 {
            continue; // a line of blanks
        }
        let Some(h) = &header else {
            if f.len() < 2 || f.iter().any(String::is_empty) {
                return Err(format!(
                    "the header `{}` needs at least two named columns",
                    super::json::shown(head)
                ));
            }
            header = Some(f);
            continue;
        };
        if f.len() != h.len() {
            return Err(format!(
                "line {n}: {} field(s), the header has {}",
                f.len(),
                h.len()
            ));
        }
        rows.push((n, f));
    }
    let header = header.ok_or("empty table: no header line")?;
    Ok(Table { header, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quotes_tabs_and_reports_ragged_rows() {
        let t =
            parse("\u{feff}metric,value\n# comment\n\"p99, ms\",\"2\"\"5\"\n\nx,1\r\n").unwrap();
        assert_eq!(t.header, ["metric", "value"]);
        assert_eq!(
            t.rows[0],
            (3, vec!["p99, ms".to_string(), "2\"5".to_string()])
        );
        assert_eq!(t.rows[1].0, 5);
        let t = parse("a\tb\n1\t2\n").unwrap();
        assert_eq!(t.rows[0].1, ["1", "2"]);
        assert!(parse("a,b\n1,2,3\n").unwrap_err().contains("line 2"));
        assert!(parse("").is_err());
        assert!(parse("only\n1\n").is_err());
    }
}
