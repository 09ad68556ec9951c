//! `hipport gate [PATH]`: print the gate board and the verdict. Exit 0 only when MIGRATION
//! READY (every gate PASS), 1 when NOT READY, 2 when the record cannot be read.

use super::common::{ConfigArgs, TargetArgs, WalkArgs};
use crate::gate::exit;
use crate::record::Record;
use crate::report::Report;
use crate::settings::{Request, Settings};
use crate::verdict::{self, render};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GateFormat {
    #[default]
    Text,
    Markdown,
    Json,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Exit codes: 0 MIGRATION READY (every gate PASS); 1 NOT READY; 2 the record cannot be read."
)]
pub struct GateArgs {
    /// The project root holding hipport-migration.toml (default: the current directory).
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,
    #[arg(long, value_enum, default_value_t = GateFormat::Text)]
    pub format: GateFormat,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
}

impl GateArgs {
    pub fn request(&self) -> Request {
        let paths = std::slice::from_ref(&self.path);
        super::common::request(paths, &self.target, &self.walk, &self.config)
    }
}

pub fn run(a: GateArgs, settings: &Settings) -> anyhow::Result<i32> {
    if !a.path.exists() {
        anyhow::bail!("{}: no such file or directory", a.path.display());
    }
    // The inventory gate sees what `scan` reports on this tree: the same target, rule levels,
    // suppressions and accepted items.
    let report = crate::scan::scan_and_apply(settings, false).map_err(|e| format!("{e:#}"));
    let board = match &report {
        // The scan carries the project's board (the same computation); a record that cannot
        // be read is still this command's error.
        Ok(r) => {
            crate::board::load_record(&crate::settings::root_of(&a.path))?;
            r.board.clone()
        }
        Err(e) => board_of(&a.path, Err(e.as_str()))?.0,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        GateFormat::Text => render::text(&board, &mut out)?,
        GateFormat::Markdown => render::markdown(&board, &mut out)?,
        GateFormat::Json => render::json(&board, &mut out)?,
    }
    out.flush()?;
    Ok(if board.ready {
        exit::OK
    } else {
        exit::FINDINGS
    })
}

/// The board for the project at `root` from its migration record (if any) and a scan report,
/// with the record: [`crate::board::for_project`], the one computation every view prints.
pub fn board_of(
    root: &Path,
    report: Result<&Report, &str>,
) -> anyhow::Result<(verdict::Board, Option<Record>)> {
    Ok(crate::board::for_project(root, report)?)
}
