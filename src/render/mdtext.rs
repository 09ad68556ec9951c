//! Text that goes into Markdown (the remediation report, the GitHub step summary, the gate
//! board). Names and texts come from the repository under review (file names, macro names,
//! record reasons), so none of them may open a line of its own, close a code span early, or
//! start raw HTML: a file named ``a`\n<img src=x>\n## Done`` stays one inert code span.

/// A code span holding `s` literally: the fence is one backtick longer than the longest run of
/// backticks in `s` (CommonMark), padded with a space where `s` starts or ends with one, and
/// control characters (line breaks, tabs, escapes) are shown as `\n`, `\t`, `\u{..}`.
pub fn code(s: &str) -> String {
    let s = visible_controls(s);
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') || s.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// Inline prose: line breaks and other control characters become spaces; outside the text's own
/// code spans `<`, `>` and `&` are HTML-escaped so nothing becomes a tag; a stray (unpaired)
/// backtick is escaped so it cannot open a span that swallows what follows.
pub fn inline(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let ticks = flat.matches('`').count();
    let mut out = String::with_capacity(flat.len() + 8);
    if ticks % 2 == 1 {
        for c in flat.chars() {
            match c {
                '`' => out.push_str("\\`"),
                _ => push_escaped(&mut out, c),
            }
        }
        return out;
    }
    let mut inside = false;
    for c in flat.chars() {
        if c == '`' {
            inside = !inside;
            out.push(c);
        } else if inside {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
    }
    out
}

/// A table cell: inline prose with `|` escaped (also inside code spans, where GitHub's tables
/// still split on it).
pub fn cell(s: &str) -> String {
    inline(s).replace('|', "\\|")
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '&' => out.push_str("&amp;"),
        _ => out.push(c),
    }
}

fn visible_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_file_name_stays_one_code_span_on_one_line() {
        let name = "a`b\n<img src=x onerror=alert(1)>\n## Done\n::error ::x";
        let c = code(name);
        assert!(!c.contains('\n'));
        assert!(c.starts_with("``") && c.ends_with("``") && !c.starts_with("```"));
        assert_eq!(code("x"), "`x`");
        assert_eq!(code("`x"), "`` `x ``");
    }

    #[test]
    fn prose_cannot_open_tags_lines_or_spans() {
        assert_eq!(
            inline("use `a<b>` not <b>x</b>"),
            "use `a<b>` not &lt;b&gt;x&lt;/b&gt;"
        );
        assert_eq!(inline("one ` tick <i>"), "one \\` tick &lt;i&gt;");
        assert_eq!(inline("two\nlines\r\n# h"), "two lines  # h");
        assert_eq!(cell("a|b `c|d`"), "a\\|b `c\\|d`");
    }
}
