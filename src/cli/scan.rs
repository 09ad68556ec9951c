//! `hipport scan`: report findings, change nothing.

use super::common::{TargetArgs, WalkArgs};
use crate::gate::exit;
use crate::scan::{scan_with_sources, ScanSettings};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScanFormat {
    #[default]
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Files or directories to scan.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[arg(long, value_enum, default_value_t = ScanFormat::Text)]
    pub format: ScanFormat,
}

pub fn run(a: ScanArgs) -> anyhow::Result<i32> {
    let target = a.target.target().map_err(anyhow::Error::msg)?;
    let settings = ScanSettings {
        paths: a.paths.clone(),
        target,
        walk: a.walk.options(),
        max_file_size: a.walk.max_file_size,
    };
    let (report, sources) = scan_with_sources(&settings).map_err(anyhow::Error::msg)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        ScanFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        ScanFormat::Text => {
            use codespan_reporting::term::termcolor::{Ansi, NoColor};
            use std::io::IsTerminal;
            let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            if colour {
                crate::render::text::render(&report, &sources, &mut Ansi::new(&mut out))?;
            } else {
                crate::render::text::render(&report, &sources, &mut NoColor::new(&mut out))?;
            }
        }
    }
    for e in &report.errors {
        eprintln!("hipport: {}: {}", e.path, e.error);
    }
    out.flush()?;
    Ok(if report.errors.is_empty() {
        exit::OK
    } else {
        exit::ERROR
    })
}
