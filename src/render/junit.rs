//! JUnit XML for CI systems that show test results: one testsuite per category, one testcase
//! per non-PASS finding: failing, or skipped when `check` found it in the baseline (only what
//! is new fails a pull request). A clean scan is one suite with one passing case, so the CI
//! shows that the scan ran.

use crate::finding::{BaselineState, Category};
use crate::gate::Status;
use crate::report::Report;
use std::io::{self, Write};

/// Escapes text for XML attributes and content.
pub fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {}
            c => o.push(c),
        }
    }
    o
}

pub fn write(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    let failing: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .collect();
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    let baselined = |f: &crate::finding::Finding| f.baseline == Some(BaselineState::Unchanged);
    let skipped_total = failing.iter().filter(|f| baselined(f)).count();
    writeln!(
        w,
        r#"<testsuites name="hipport" tests="{}" failures="{}" skipped="{}">"#,
        failing.len().max(1),
        failing.len() - skipped_total,
        skipped_total
    )?;
    if failing.is_empty() {
        writeln!(w, r#"  <testsuite name="hipport" tests="1" failures="0">"#)?;
        writeln!(
            w,
            r#"    <testcase classname="hipport" name="no findings to remediate"/>"#
        )?;
        writeln!(w, "  </testsuite>")?;
    }
    for c in Category::ALL {
        let group: Vec<_> = failing.iter().filter(|f| f.category == c).collect();
        if group.is_empty() {
            continue;
        }
        let skipped = group.iter().filter(|f| baselined(f)).count();
        writeln!(
            w,
            r#"  <testsuite name="{c}" tests="{}" failures="{}" skipped="{skipped}">"#,
            group.len(),
            group.len() - skipped
        )?;
        for f in group {
            writeln!(
                w,
                r#"    <testcase classname="{}" name="{}:{}:{} {}" file="{}" line="{}">"#,
                xml(c.as_str()),
                xml(&f.path),
                f.line,
                f.column,
                xml(&f.rule),
                xml(&f.path),
                f.line
            )?;
            if baselined(f) {
                writeln!(
                    w,
                    r#"      <skipped message="{} {}: in the baseline, not new"/>"#,
                    xml(&f.rule),
                    f.status
                )?;
                writeln!(w, "    </testcase>")?;
                continue;
            }
            writeln!(
                w,
                r#"      <failure type="{}" message="{}">{} {} {}: {}</failure>"#,
                f.status,
                xml(&f.message),
                xml(&f.rule),
                f.status,
                f.phase,
                xml(f.suggestion.as_deref().unwrap_or(&f.message))
            )?;
            writeln!(w, "    </testcase>")?;
        }
        writeln!(w, "  </testsuite>")?;
    }
    writeln!(w, "</testsuites>")
}
