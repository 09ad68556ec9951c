//! JUnit XML for CI systems that show test results: one testsuite per category, one testcase
//! per non-PASS finding: failing, or skipped when `check` found it in the baseline (only what
//! is new fails a pull request). A clean scan is one suite with one passing case, so the CI
//! shows that the scan ran. Written with `quick-xml`, which escapes every attribute and text.

use crate::finding::{BaselineState, Category, Finding};
use crate::gate::Status;
use crate::report::Report;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use std::io::{self, Write};

/// Text without the control characters XML 1.0 cannot carry (the escaping is `quick-xml`'s).
pub fn xml(s: &str) -> String {
    s.chars()
        .filter(|&c| (c as u32) >= 0x20 || matches!(c, '\n' | '\t' | '\r'))
        .collect()
}

fn baselined(f: &Finding) -> bool {
    f.baseline == Some(BaselineState::Unchanged)
}

pub fn write(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    let failing: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .collect();
    let skipped_total = failing.iter().filter(|f| baselined(f)).count();
    let mut x = Writer::new_with_indent(w, b' ', 2);
    x.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    x.create_element("testsuites")
        .with_attribute(("name", "hipport"))
        .with_attribute(("tests", failing.len().max(1).to_string().as_str()))
        .with_attribute((
            "failures",
            (failing.len() - skipped_total).to_string().as_str(),
        ))
        .with_attribute(("skipped", skipped_total.to_string().as_str()))
        .write_inner_content(|x| {
            if failing.is_empty() {
                x.create_element("testsuite")
                    .with_attribute(("name", "hipport"))
                    .with_attribute(("tests", "1"))
                    .with_attribute(("failures", "0"))
                    .write_inner_content(|x| {
                        x.create_element("testcase")
                            .with_attribute(("classname", "hipport"))
                            .with_attribute(("name", "no findings to remediate"))
                            .write_empty()
                            .map(drop)
                    })?;
            }
            for c in Category::ALL {
                let group: Vec<&Finding> = failing
                    .iter()
                    .copied()
                    .filter(|f| f.category == c)
                    .collect();
                if !group.is_empty() {
                    suite(x, c, &group)?;
                }
            }
            Ok(())
        })?;
    x.get_mut().write_all(b"\n")
}

fn suite<W: Write>(x: &mut Writer<W>, c: Category, group: &[&Finding]) -> io::Result<()> {
    let skipped = group.iter().filter(|f| baselined(f)).count();
    x.create_element("testsuite")
        .with_attribute(("name", c.as_str()))
        .with_attribute(("tests", group.len().to_string().as_str()))
        .with_attribute(("failures", (group.len() - skipped).to_string().as_str()))
        .with_attribute(("skipped", skipped.to_string().as_str()))
        .write_inner_content(|x| {
            for f in group {
                let path = xml(&f.path);
                let rule = xml(&f.rule);
                x.create_element("testcase")
                    .with_attribute(("classname", c.as_str()))
                    .with_attribute((
                        "name",
                        format!("{path}:{}:{} {rule}", f.line, f.column).as_str(),
                    ))
                    .with_attribute(("file", path.as_str()))
                    .with_attribute(("line", f.line.to_string().as_str()))
                    .write_inner_content(|x| {
                        if baselined(f) {
                            let message = format!("{rule} {}: in the baseline, not new", f.status);
                            x.create_element("skipped")
                                .with_attribute(("message", message.as_str()))
                                .write_empty()?;
                            return Ok(());
                        }
                        let text = format!(
                            "{rule} {} {}: {}",
                            f.status,
                            f.phase,
                            xml(f.suggestion.as_deref().unwrap_or(&f.message))
                        );
                        x.create_element("failure")
                            .with_attribute(("type", f.status.to_string().as_str()))
                            .with_attribute(("message", xml(&f.message).as_str()))
                            .write_text_content(BytesText::new(&text))?;
                        Ok(())
                    })?;
            }
            Ok(())
        })?;
    Ok(())
}
