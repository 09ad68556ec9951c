//! `cargo xtask <command>`: developer tasks for hipport.
//!
//! Keep this a small dispatcher; each command lives in its own module.

mod bless;
mod hipcc_check;
mod mappings;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command> [args]

commands:
  mappings [--check] [--tables DIR]   regenerate (or check) mappings/generated/ from the HIPIFY tables
  bless [CASE...]                     rewrite the expected files of the golden cases in testdata/port/
  hipcc-check [--hipcc PATH]          compile every compilable golden output with hipcc -fsyntax-only";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd.as_str() {
        "mappings" => mappings::run(rest),
        "bless" => bless::run(rest),
        "hipcc-check" => hipcc_check::run(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => {
            eprintln!("xtask: unknown command `{other}`\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask {cmd}: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
