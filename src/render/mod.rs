//! Renderers: pure functions of analysis results and a writer. Analysis never prints.
pub mod diff;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod stats;
pub mod text;

#[cfg(test)]
mod tests {
    use crate::finding::{Category, Finding};
    use crate::gate::{Phase, Status};
    use crate::report::{Report, TargetInfo};

    /// One REMEDIATION finding per category, each in its own file.
    fn every_category() -> Report {
        let findings = Category::ALL
            .iter()
            .enumerate()
            .map(|(i, c)| Finding {
                rule: "HP001".into(),
                rule_name: "unported-api".into(),
                category: *c,
                status: Status::Remediation,
                phase: Phase::Build,
                path: format!("f{i:02}.cu"),
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 2,
                message: format!("item of {c}"),
                suggestion: None,
                fix: None,
                fingerprint: format!("{i:016x}"),
                byte_range: (0, 1),
            })
            .collect();
        let t = TargetInfo {
            rocm: "6.2.0".into(),
            roc: false,
            experimental: false,
            rocm_explicit: true,
            offload_arch: vec![],
        };
        Report::new(t, findings, vec![])
    }

    #[test]
    fn every_category_reaches_every_renderer() {
        let r = every_category();
        let mut outputs: Vec<(&str, String)> = Vec::new();
        let mut run = |name, f: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
            let mut buf = Vec::new();
            f(&mut buf).unwrap();
            outputs.push((name, String::from_utf8(buf).unwrap()));
        };
        run("json", &|w| {
            serde_json::to_writer(w, &r).map_err(Into::into)
        });
        run("markdown", &|w| super::markdown::write(&r, None, w));
        run("sarif", &|w| super::sarif::write(&r, None, w));
        run("github", &|w| super::github::write(&r, None, w));
        run("junit", &|w| super::junit::write(&r, w));
        run("text", &|w| {
            let mut nc = codespan_reporting::term::termcolor::NoColor::new(w);
            super::text::render(&r, &Default::default(), &mut nc)
        });
        for (name, out) in &outputs {
            for c in Category::ALL {
                assert!(
                    out.contains(&format!("item of {c}")) && out.contains(c.as_str()),
                    "{name} lost category {c}:\n{out}"
                );
            }
        }
        // GitLab Code Quality has no category field: one issue per finding.
        let mut buf = Vec::new();
        super::gitlab::write(&r, &mut buf).unwrap();
        let issues: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(issues.as_array().unwrap().len(), Category::ALL.len());
    }
}
