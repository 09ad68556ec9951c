//! The command line: clap definitions, one module per subcommand. [`main`] resolves the run's
//! [`Settings`] once from the flags, `hipport.toml` and defaults before any subcommand runs, and
//! hands them to every subcommand that looks at a tree; each returns an exit code.

pub mod check;
pub mod common;
pub mod compare;
pub mod explain;
pub mod gate;
pub mod output;
pub mod port;
pub mod probe;
pub mod project;
pub mod record;
pub mod report;
pub mod scan;
pub mod shape;
pub mod stdio;
pub mod verify;
pub mod view;

use crate::gate::exit;
use crate::settings::{Request, Settings};
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "hipport",
    version,
    about = "Port CUDA application stacks to AMD ROCm/HIP: translate, flag what needs a human, gate the migration.",
    after_help = "Exit codes: 0 success, 1 findings where the mode reports them (scan: a finding at or above --fail-on, default BLOCKER; check: new findings; gate: NOT READY), 2 usage, configuration or I/O error, or a PATH that does not exist."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: shape::GlobalArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Translate CUDA sources to HIP: print a diff (default), or write the result.
    Port(port::PortArgs),
    /// Report findings (un-ported APIs and hazards) with statuses, phases and fixes; change nothing.
    Scan(scan::ScanArgs),
    /// Compare a scan with a committed baseline for CI: exit 1 only when new findings appear.
    Check(check::CheckArgs),
    /// Explain a rule: why it matters, a bad and a good example, references.
    Explain(explain::ExplainArgs),
    /// Translate into a separate tree and compile every unit with hipcc (BUILD gate evidence).
    Verify(verify::VerifyArgs),
    /// Write the migration record hipport-migration.toml (init, baseline, target, production, gate, test, perf).
    Record(record::RecordArgs),
    /// Write the self-contained HTML review page: verdict, gate board, and the port with every finding at its line.
    Report(report::ReportArgs),
    /// Print the migration gate board and the verdict (exit 0 only when MIGRATION READY).
    Gate(gate::GateArgs),
    /// Runtime gate evidence as JSON: Python, PyTorch (cuda/hip), visible device, a tensor op, ROCm tools.
    Probe(probe::ProbeArgs),
    /// Compare a baseline output with a candidate (.npy, .csv, .json) within rtol/atol.
    Compare(compare::CompareArgs),
}

/// Parses the process arguments and runs the subcommand; returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::ERROR
            } else {
                exit::OK
            };
            let _ = e.print();
            return code;
        }
    };
    shape::set(&cli.global);
    let result = cli
        .command
        .request()
        .map(|r| {
            // Flags first (`--rocm latest` says why it is refused), then the paths.
            let settings = Settings::resolve(&r)?;
            missing_paths(&cli.command, &r.paths)?;
            Ok(settings)
        })
        .transpose()
        .and_then(|settings| {
            if let Some(s) = settings.as_ref().filter(|_| shape::verbose()) {
                crate::errln!(
                    "hipport: target ROCm {} ({}), config {}, paths {}",
                    s.target.rocm,
                    s.rocm_source,
                    s.target_info().config,
                    s.paths
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
            cli.command.run(settings)
        });
    match result {
        Ok(code) => code,
        // The reader of our output went away (`| head`): end quietly, as cargo and ruff do.
        Err(e) if stdio::is_broken_pipe(&e) => exit::OK,
        Err(e) => {
            crate::errln!("hipport: error: {e:#}");
            exit::ERROR
        }
    }
}

/// A PATH that does not exist is a usage error (exit 2) naming it, for every command that
/// looks at a tree, before any work; `record` names files it may create and is left out.
fn missing_paths(c: &Command, paths: &[std::path::PathBuf]) -> anyhow::Result<()> {
    if matches!(c, Command::Record(_)) {
        return Ok(());
    }
    let missing: Vec<String> = paths
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .map(|p| p.display().to_string())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        anyhow::bail!("{}: no such file or directory", missing.join(", "))
    }
}

impl Command {
    /// What the subcommand contributes to the run's settings; `None` for the commands that
    /// look at no tree (`explain`, `probe`, `compare`).
    pub fn request(&self) -> Option<Request> {
        match self {
            Command::Port(a) => Some(a.request()),
            Command::Scan(a) => Some(a.request()),
            Command::Check(a) => Some(a.request()),
            Command::Verify(a) => Some(a.request()),
            Command::Record(a) => Some(a.request()),
            Command::Gate(a) => Some(a.request()),
            Command::Report(a) => Some(a.request()),
            Command::Explain(_) | Command::Probe(_) | Command::Compare(_) => None,
        }
    }

    /// Runs the subcommand with the settings [`Command::request`] asked for.
    fn run(self, settings: Option<Settings>) -> anyhow::Result<i32> {
        let settings = || settings.ok_or_else(|| anyhow::anyhow!("settings were not resolved"));
        match self {
            Command::Port(a) => port::run(a, &settings()?),
            Command::Scan(a) => scan::run(a, &settings()?),
            Command::Check(a) => check::run(a, &settings()?),
            Command::Verify(a) => verify::run(a, &settings()?),
            Command::Record(a) => record::run(a, &settings()?),
            Command::Gate(a) => gate::run(a, &settings()?),
            Command::Report(a) => report::run(a, &settings()?),
            Command::Explain(a) => explain::run(a),
            Command::Probe(a) => probe::run(a),
            Command::Compare(a) => compare::run(a),
        }
    }
}
