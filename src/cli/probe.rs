//! `hipport probe`: print the runtime probe as JSON (and write it with `--out` as evidence for
//! `record gate`). Exit 0 whatever it finds: the JSON says what is missing.

use crate::gate::exit;
use crate::probe;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The Python interpreter to ask about PyTorch.
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// Also write the JSON to FILE (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(a: ProbeArgs) -> anyhow::Result<i32> {
    let p = probe::probe(&a.python);
    let json = serde_json::to_string_pretty(&p)?;
    crate::outln!("{json}");
    if let Some(path) = &a.out {
        crate::record::write_atomic(path, format!("{json}\n").as_bytes())?;
    }
    Ok(exit::OK)
}
