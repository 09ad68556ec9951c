//! `cargo xtask <command>`: developer tasks for hipport.
//!
//! Keep this a small dispatcher; each command lives in its own module.

mod audit;
mod bench;
mod bless;
mod fuzz;
mod fuzz_config;
mod hipcc_check;
mod mappings;
mod readme_figures;
mod scaling;
mod torch_hipify;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command> [args]

commands:
  mappings [--check] [--tables DIR]   regenerate (or check) mappings/generated/ from the HIPIFY tables
  bless [CASE...]                     rewrite the expected files of the golden cases in testdata/port/
  hipcc-check [--hipcc PATH]          compile every compilable golden output with hipcc -fsyntax-only
  build-audit [--project OWNER/NAME]... [--jobs N] [--json] [--write-docs] [--fetch]
              [--mirrors DIR] [--config FILE] [--hipcc PATH] [--bin PATH] [--timeout SECS]
                                      port the pinned trees of xtask/audit.toml and compile every
                                      unit with hipcc -c, before and after `port`
  bench [--size MB] [--tree PATH]... [--hipify-perl PATH] [--runs N]
                                      port a generated corpus (+ real trees) and compare with hipify-perl
  scaling [--base-kb N] [--max-ratio R] [--big-mb M] [--runs N] [--bin PATH]
                                      doubling one file must grow scan/port time <= R× (default 2.5)
  fuzz [--cases N] [--seed S] [--timeout SECS] [--cli-every K] [--config-every K] [--jobs J]
       [--max-secs S] [--corpus DIR]... [--replay FILE]... [--bin PATH]
                                      mutate the goldens and samples (or real trees): no panic, no
                                      hang, idempotent, literals kept, `port -o -` = `port --out` =
                                      the library; mutated hipport.toml/record/baseline: clear errors
  torch-hipify --from DIR [--commit SHA] [--check]
                                      regenerate mappings/torch/torch_hipify.tsv (the names
                                      PyTorch's build-time hipify renames) from a ROCm/hipify_torch
                                      checkout
  readme-figures [--check] [--tree DIR[=LABEL]]... [--rocm X.Y.Z] [--runs N] [--bin PATH]
                                      measure samples/ (and trees) and rewrite the figures block of
                                      docs/measurements.md; --check fails when it is stale";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd.as_str() {
        "mappings" => mappings::run(rest),
        "bless" => bless::run(rest),
        "bench" => bench::run(rest),
        "fuzz" => fuzz::run(rest),
        "scaling" => scaling::run(rest),
        "hipcc-check" => hipcc_check::run(rest),
        "build-audit" => audit::run(rest),
        "readme-figures" => readme_figures::run(rest),
        "torch-hipify" => torch_hipify::run(rest),
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
