//! `hipport probe`: print the runtime probe as JSON (and write it with `--out` as evidence for
//! `record gate`). Exit 0 whatever it finds (the JSON says what is missing), 2 when an interpreter
//! named with `--python` cannot be run.

use crate::gate::exit;
use crate::probe;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The Python interpreter to ask about PyTorch (default: python3 on PATH). An interpreter
    /// named here that cannot be run is an error (exit 2); a missing default is reported in
    /// the JSON.
    #[arg(long)]
    pub python: Option<String>,
    /// Also write the JSON to FILE (atomically).
    #[arg(short = 'o', long = "output", alias = "out", value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(a: ProbeArgs) -> anyhow::Result<i32> {
    let python = a.python.as_deref().unwrap_or("python3");
    let p = probe::probe(python);
    if a.python.is_some() && p.python.is_none() {
        anyhow::bail!("--python {python}: not found or failed to run");
    }
    let json = serde_json::to_string_pretty(&p)?;
    crate::outln!("{json}");
    if let Some(path) = &a.out {
        crate::record::write_atomic(path, format!("{json}\n").as_bytes())?;
    }
    Ok(exit::OK)
}
