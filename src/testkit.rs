//! Golden cases for `port` (`testdata/port/<case>/`), shared by the test suite and
//! `cargo xtask bless`.
//!
//! A case directory holds `input.<ext>` (the CUDA source), optional `args` (the `port` flags,
//! default `--rocm 5.2`), optional `NO_COMPILE` (why hipcc cannot compile the output here, e.g.
//! a library Debian does not package), `expected.<ext>` (the HIP output) and `expected.json`
//! (stats, findings and parse health). Tests fail on any difference and show it.

use crate::cli::{Cli, Command};
use crate::mappings;
use crate::pipeline::{process_bytes, Work};
use crate::translate::Options;
use clap::Parser;
use std::path::{Path, PathBuf};

pub const DEFAULT_ARGS: &str = "--rocm 5.2";

pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    /// `input.cu`, `input.cuh`, …
    pub input: PathBuf,
    pub args: Vec<String>,
    /// Why the expected output is not compiled by hipcc in CI; `None` = it is.
    pub no_compile: Option<String>,
    /// Flags of the build the case models, given to hipcc after its own (`hipcc_flags`: PyTorch's
    /// ROCm extension build passes `-D__HIP_NO_HALF_OPERATORS__=1`); empty when there is none.
    pub hipcc_flags: Vec<String>,
}

impl Case {
    pub fn ext(&self) -> String {
        self.input
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
    pub fn expected_output(&self) -> PathBuf {
        self.dir.join(format!("expected.{}", self.ext()))
    }
    pub fn expected_json(&self) -> PathBuf {
        self.dir.join("expected.json")
    }
    /// The expected `hipport_compat.h` (cases run with `--compat-header` whose output uses a
    /// shim); the expected output includes it from the same directory.
    pub fn expected_compat_header(&self) -> PathBuf {
        self.dir.join(crate::compat::HEADER_NAME)
    }
}

pub fn load_cases(root: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    let entries = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    for e in entries {
        let dir = e.map_err(|e| e.to_string())?.path();
        if !dir.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let input = std::fs::read_dir(&dir)
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.file_stem().is_some_and(|s| s == "input") && p.extension().is_some())
            .ok_or_else(|| format!("{}: no input.<ext>", dir.display()))?;
        let args_text =
            std::fs::read_to_string(dir.join("args")).unwrap_or_else(|_| DEFAULT_ARGS.into());
        let args = args_text.split_whitespace().map(str::to_string).collect();
        let no_compile = std::fs::read_to_string(dir.join("NO_COMPILE"))
            .ok()
            .map(|s| s.trim().to_string());
        let hipcc_flags = std::fs::read_to_string(dir.join("hipcc_flags"))
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        cases.push(Case {
            name,
            dir,
            input,
            args,
            no_compile,
            hipcc_flags,
        });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// Builds the pipeline work from a case's flags, through the real command-line parser.
pub fn work_for(args: &[String]) -> Result<Work, String> {
    let mut argv = vec!["hipport".to_string(), "port".into(), "input".into()];
    argv.extend(args.iter().cloned());
    let cli = Cli::try_parse_from(&argv).map_err(|e| e.to_string())?;
    let Command::Port(a) = cli.command else {
        return Err("not a port command".into());
    };
    let mut request = a.request();
    request.no_config = true;
    request.use_record = false;
    let target = crate::settings::Settings::resolve_quiet(&request)
        .map_err(|e| format!("{e:#}"))?
        .target;
    Ok(Work {
        translate: Options {
            target,
            launch: a.launch_syntax,
            implicit_include: !a.no_implicit_include,
            compat_header: a.compat_header,
            unsafe_fixes: a.unsafe_fixes,
        },
        hazards: a.annotate,
        annotate: a.annotate,
        keep_output: true,
        max_file_size: a.walk.max_file_size,
        parse_health: true,
    })
}

pub struct CaseResult {
    pub output: Vec<u8>,
    /// The `expected.json` text.
    pub json: String,
    /// The output translated once more (must equal `output`).
    pub second: Vec<u8>,
    /// The `hipport_compat.h` the port writes next to the output, if any shim is used.
    pub compat_header: Option<String>,
}

pub fn run_case(case: &Case) -> Result<CaseResult, String> {
    let work = work_for(&case.args)?;
    let bytes = std::fs::read(&case.input).map_err(|e| e.to_string())?;
    let rel = case
        .input
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let m = mappings::get();
    let r = process_bytes(&rel, bytes, &work, m);
    let findings: Vec<serde_json::Value> = r
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "rule": f.rule,
                "category": f.category,
                "status": f.status,
                "phase": f.phase,
                "line": f.line,
                "column": f.column,
                "message": f.message,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "args": case.args.join(" "),
        "target": work.translate.target.rocm.to_string(),
        "stats": r.stats,
        "parse_input": r.health,
        "findings": findings,
    });
    let json = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
    let second = process_bytes(&rel, r.output.clone(), &work, m).output;
    let compat_header = (!r.compat.is_empty()).then(|| {
        let ids = r.compat.iter().cloned().collect();
        crate::compat::render(&work.translate.target, &ids, m)
    });
    Ok(CaseResult {
        output: r.output,
        json,
        second,
        compat_header,
    })
}
