//! A small CSV reader for benchmark tables: comma-separated (or tab-separated when the header
//! has tabs and no commas), `"quoted, fields"` with `""` escapes, blank lines and `#` comment
//! lines skipped. Rows must have the header's width; a ragged row is an error naming its line.

/// The header and the rows, each a vector of trimmed fields.
#[derive(Debug)]
pub struct Table {
    pub header: Vec<String>,
    /// (1-based line number, fields).
    pub rows: Vec<(usize, Vec<String>)>,
}

fn split(line: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == sep && !quoted => out.push(std::mem::take(&mut field).trim().to_string()),
            c => field.push(c),
        }
    }
    out.push(field.trim().to_string());
    out
}

pub fn parse(text: &str) -> Result<Table, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, head)) = lines.next() else {
        return Err("empty table: no header line".into());
    };
    let sep = if head.contains('\t') && !head.contains(',') {
        '\t'
    } else {
        ','
    };
    let header = split(head.trim_start_matches('\u{feff}'), sep);
    if header.len() < 2 || header.iter().any(String::is_empty) {
        return Err(format!(
            "the header `{}` needs at least two named columns",
            super::json::shown(head)
        ));
    }
    let mut rows = Vec::new();
    for (n, l) in lines {
        let f = split(l, sep);
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
