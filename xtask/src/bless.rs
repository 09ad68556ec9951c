//! `cargo xtask bless [CASE...]`: run each golden case in testdata/port/ and write its expected
//! output and expected.json. Review the resulting diff before committing it.

use anyhow::{bail, Result};
use hipport::testkit;
use std::process::ExitCode;

pub fn run(args: &[String]) -> Result<ExitCode> {
    let root = crate::mappings::repo_root().join("testdata/port");
    let cases = testkit::load_cases(&root).map_err(anyhow::Error::msg)?;
    let mut n = 0;
    for case in &cases {
        if !args.is_empty() && !args.contains(&case.name) {
            continue;
        }
        let r = testkit::run_case(case).map_err(anyhow::Error::msg)?;
        if r.second != r.output {
            bail!(
                "{}: translating the output again changes it (idempotence defect); not blessed",
                case.name
            );
        }
        std::fs::write(case.expected_output(), &r.output)?;
        std::fs::write(case.expected_json(), r.json)?;
        match &r.compat_header {
            Some(h) => std::fs::write(case.expected_compat_header(), h)?,
            None if case.expected_compat_header().exists() => {
                std::fs::remove_file(case.expected_compat_header())?
            }
            None => {}
        }
        n += 1;
    }
    println!("blessed {n} case(s) in {}", root.display());
    Ok(ExitCode::SUCCESS)
}
