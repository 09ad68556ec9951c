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
        .map(|l| match l.trim_start().starts_with('#') {
            true if l.ends_with('\n') => "\n",
            true => "",
            false => l,
        })
        .collect()
}

/// The first line that is neither blank nor a comment.
pub fn first_line(text: &str) -> &str {
    text.lines()
        .map(|l| l.trim_start_matches('\u{feff}'))
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap_or("")
}

/// The records of a delimited text, read with the `csv` crate (quotes, `""` escapes, CRLF),
/// each with its 1-based line number and trimmed fields; blank and `#` comment lines skipped.
/// Records may differ in width: callers say what a ragged row means.
pub fn records(text: &str, sep: u8) -> Result<Vec<(usize, Vec<String>)>, String> {
    let text = without_comments(text);
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(sep)
        .trim(::csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    // The reader counts no blank lines, and a record's position is where the reader began,
    // before the blank lines it skipped: count newlines up to the record itself instead.
    let (mut line, mut counted) = (1, 0);
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        let mut at = record.position().map_or(counted, |p| p.byte() as usize);
        while matches!(text.as_bytes().get(at), Some(b'\n' | b'\r')) {
            at += 1;
        }
        let at = at.max(counted);
        line += text.as_bytes()[counted..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = at;
        let fields: Vec<String> = record.iter().map(str::to_string).collect();
        if fields.len() == 1 && fields[0].is_empty() {
            continue; // a line of blanks
        }
        out.push((line, fields));
    }
    Ok(out)
}

pub fn parse(text: &str) -> Result<Table, String> {
    let head = first_line(text);
    let sep = if head.contains('\t') && !head.contains(',') {
        b'\t'
    } else {
        b','
    };
    let mut records = records(text, sep)?.into_iter();
    let Some((_, header)) = records.next() else {
        return Err("empty table: no header line".into());
    };
    if header.len() < 2 || header.iter().any(String::is_empty) {
        return Err(format!(
            "the header `{}` needs at least two named columns",
            super::json::shown(head)
        ));
    }
    let mut rows = Vec::new();
    for (n, f) in records {
        if f.len() != header.len() {
            return Err(format!(
                "line {n}: {} field(s), the header has {}",
                f.len(),
                header.len()
            ));
        }
        rows.push((n, f));
    }
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
