//! `hipport record …`: write the migration record `hipport-migration.toml` — create it, fill
//! the baseline from this machine, set the exact target tuple, production requirements, a gate
//! row or a functional test row. Every write is atomic; BLOCKER is set only here, with a note.

use crate::gate::{exit, Phase, Status};
use crate::record::{self, detect, target, Evidence, GateRow, InputClass, Record, TestRow};
use crate::settings::{Request, Settings, Source};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct RecordArgs {
    #[command(subcommand)]
    pub command: RecordCommand,
}

#[derive(Args, Debug, Clone)]
pub struct FileArg {
    /// The migration record to write.
    #[arg(long = "file", short = 'f', value_name = "FILE", default_value = record::FILE_NAME, global = true)]
    pub file: PathBuf,
}

#[derive(Subcommand, Debug)]
pub enum RecordCommand {
    /// Create the record with every gate UNKNOWN (an existing record is left as it is).
    Init {
        #[command(flatten)]
        file: FileArg,
    },
    /// Fill the CUDA baseline from this machine (git, nvidia-smi, nvcc, torch) and the flags;
    /// detection never overwrites entries, a flag does.
    Baseline(BaselineArgs),
    /// Set the exact ROCm target tuple (validated: no `latest`, full versions, real gfx names).
    Target(TargetArgs),
    /// Declare what production needs (the functional, precision, distributed and performance gates use it).
    Production(ProductionArgs),
    /// Record one gate's status with its evidence.
    Gate(GateArgs),
    /// Add one row to the functional test matrix.
    Test(TestArgs),
    /// Record a benchmark result as performance evidence: `baseline` (CUDA) or `candidate` (ROCm).
    Perf(PerfArgs),
}

#[derive(Args, Debug)]
pub struct BaselineArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// Model revision (e.g. a Hugging Face commit).
    #[arg(long)]
    pub model_revision: Option<String>,
    /// Baseline container image, `image:tag[@sha256:…]`.
    #[arg(long)]
    pub container: Option<String>,
    /// The baseline's NVIDIA GPU, e.g. "NVIDIA A100-SXM4-80GB" (for a machine without nvidia-smi).
    #[arg(long)]
    pub gpu: Option<String>,
    /// The baseline's CUDA toolkit version, e.g. 12.4 (for a machine without nvcc).
    #[arg(long)]
    pub toolkit: Option<String>,
    /// The baseline's NVIDIA driver version, e.g. 550.54.15 (for a machine without nvidia-smi).
    #[arg(long)]
    pub driver: Option<String>,
    /// The baseline's repository commit (default: `git rev-parse HEAD`).
    #[arg(long)]
    pub commit: Option<String>,
}

#[derive(Args, Debug)]
pub struct ProductionArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// FP32, BF16, FP16, FP8, INT8, AWQ, GPTQ, … (kept when not given)
    #[arg(long)]
    pub precision: Option<String>,
    /// GPUs per node (kept when not given).
    #[arg(long)]
    pub gpus: Option<u32>,
    /// Nodes (kept when not given; 1 once a GPU count is set).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// Serving or training engine, e.g. vllm.
    #[arg(long)]
    pub engine: Option<String>,
    /// A performance requirement (repeatable): `tokens_per_s>=1500`, `p99_latency_ms<=250`,
    /// `step_time_s<=1.1*baseline`. Replaces an earlier requirement on the same metric.
    #[arg(
        long = "require",
        value_name = "METRIC<=N|METRIC>=N|METRIC<=K*baseline"
    )]
    pub require: Vec<String>,
    /// Drop every earlier requirement first.
    #[arg(long)]
    pub clear_requirements: bool,
    /// Who sets the requirements (default: $HIPPORT_USER, git user.email, $USER).
    #[arg(long)]
    pub by: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfWhich {
    /// The CUDA run the requirement may be relative to.
    Baseline,
    /// The ROCm run on the target, judged against the requirements.
    Candidate,
}

#[derive(Args, Debug)]
pub struct PerfArgs {
    #[command(flatten)]
    pub file: FileArg,
    #[arg(value_enum)]
    pub which: PerfWhich,
    /// The benchmark result: Google Benchmark JSON, pytest-benchmark JSON, vLLM
    /// benchmark_serving/benchmark_throughput/benchmark_latency JSON, torch.utils.benchmark-style CSV, or plain
    /// JSON/CSV of metric,value.
    pub input: PathBuf,
    /// Conditions the file does not state (or states differently): model=… batch=8 precision=bf16
    /// input_len=1024 output_len=128 concurrency=64 …
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub conditions: Vec<String>,
    /// The file's format, when detection from its content is not wanted.
    #[arg(long, value_enum)]
    pub format: Option<crate::perf::formats::Format>,
    /// GPU the run used (product, optionally `PRODUCT:gfxNNN`).
    #[arg(long)]
    pub gpu: Option<String>,
    /// gfx architecture the run used.
    #[arg(long)]
    pub gfx: Option<String>,
    /// Number of GPUs the run used.
    #[arg(long)]
    pub gpus: Option<u32>,
    /// ROCm release the run used (X.Y.Z).
    #[arg(long)]
    pub rocm: Option<String>,
    /// CUDA version the run used.
    #[arg(long)]
    pub cuda: Option<String>,
    /// Do not probe this host for the machine (the run was measured elsewhere).
    #[arg(long)]
    pub no_probe: bool,
    /// Who records (default: $HIPPORT_USER, git user.email, $USER).
    #[arg(long)]
    pub by: Option<String>,
    /// The candidate's name (default: the file name without extension). A candidate with
    /// another name is kept, not replaced; the gate judges the one recorded last.
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Args, Debug)]
pub struct TargetArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// GPU product, optionally with its gfx: `MI300X`, `Instinct MI300X:gfx942`, `gfx90a`
    /// (required the first time; kept from the record after).
    #[arg(long)]
    pub gpu: Option<String>,
    /// gfx architecture when --gpu does not name or imply one.
    #[arg(long)]
    pub gfx: Option<String>,
    /// Full ROCm release, X.Y.Z (default: hipport.toml's; kept from the record after).
    #[arg(long)]
    pub rocm: Option<String>,
    /// Distribution and release, e.g. "Ubuntu 22.04.4" (required the first time; kept after).
    #[arg(long)]
    pub os: Option<String>,
    /// Kernel release as `uname -r` prints it; optional: UNKNOWN until known (no AMD machine yet).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Python X.Y.Z (required the first time; kept after).
    #[arg(long)]
    pub python: Option<String>,
    /// Framework or engine `name=version` or pip's `name==version` (repeatable), e.g.
    /// torch==2.6.0+rocm6.4 (the local label after `+` is kept).
    #[arg(long = "framework", value_name = "NAME==VERSION")]
    pub frameworks: Vec<String>,
    /// Key dependency `name=version` (repeatable), e.g. rccl=2.21.5.
    #[arg(long = "dependency", value_name = "NAME=VERSION")]
    pub dependencies: Vec<String>,
    /// Container image `image:tag[@sha256:…]`.
    #[arg(long)]
    pub container: Option<String>,
    /// GPU firmware version; optional: UNKNOWN until known.
    #[arg(long)]
    pub firmware: Option<String>,
    /// amdgpu driver version; optional: UNKNOWN until known (no AMD machine yet).
    #[arg(long)]
    pub driver: Option<String>,
}

#[derive(Args, Debug)]
pub struct GateArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// One of: baseline, inventory, target, build, functional, correctness, precision, distributed, operations, performance.
    pub name: String,
    /// PASS, REMEDIATION, BLOCKER (needs --note) or UNKNOWN. Gates derived from other evidence
    /// (inventory, build, functional, precision, distributed, performance) take only BLOCKER
    /// or UNKNOWN here.
    #[arg(long)]
    pub status: String,
    /// A file inside the project (hashed) or an http(s) URL; required unless the status is
    /// UNKNOWN. A command is refused: record its output file, or use `hipport compare … --record`.
    #[arg(long)]
    pub evidence: Option<String>,
    /// Why (required for BLOCKER).
    #[arg(long, default_value = "")]
    pub note: String,
    /// Where it failed: INSTALL, BUILD, IMPORT, INIT, RUNTIME, CORRECTNESS, PERFORMANCE.
    #[arg(long)]
    pub phase: Option<String>,
    /// Who records (default: $HIPPORT_USER, git user.email, $USER).
    #[arg(long)]
    pub by: Option<String>,
}

#[derive(Args, Debug)]
pub struct TestArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// What ran, e.g. "chat completion llama-3-70b".
    #[arg(long)]
    pub workload: String,
    #[arg(long, value_enum)]
    pub input_class: InputClass,
    /// The dimension exercised, e.g. context=32768, batch=64, concurrency=128.
    #[arg(long, default_value = "")]
    pub dimension: String,
    /// Precision the test ran at: FP32, BF16, FP16, FP8, INT8, AWQ, GPTQ, …
    #[arg(long)]
    pub precision: String,
    /// GPUs per node the test used.
    #[arg(long, default_value_t = 1)]
    pub gpus: u32,
    /// Nodes the test used.
    #[arg(long, default_value_t = 1)]
    pub nodes: u32,
    /// Serving or training engine the test ran on, e.g. vllm.
    #[arg(long, default_value = "")]
    pub engine: String,
    /// Attention backend, e.g. flash-attn, triton, ck.
    #[arg(long, default_value = "")]
    pub attention_backend: String,
    /// PASS, REMEDIATION (failed, to fix), BLOCKER (needs --note) or UNKNOWN.
    #[arg(long)]
    pub status: String,
    /// The test's output: a file inside the project (hashed) or an http(s) URL; required unless UNKNOWN.
    #[arg(long)]
    pub evidence: Option<String>,
    /// What a reader should know (required for BLOCKER).
    #[arg(long, default_value = "")]
    pub note: String,
    /// Who records (default: $HIPPORT_USER, git user.email, $USER).
    #[arg(long)]
    pub by: Option<String>,
}

impl RecordArgs {
    /// The record's directory holds the `hipport.toml` it shares with the other commands; the
    /// record itself is what this command writes, so it is not a source here.
    pub fn request(&self) -> Request {
        let file = match &self.command {
            RecordCommand::Init { file } => file,
            RecordCommand::Baseline(b) => &b.file,
            RecordCommand::Production(p) => &p.file,
            RecordCommand::Perf(p) => &p.file,
            RecordCommand::Target(t) => &t.file,
            RecordCommand::Gate(g) => &g.file,
            RecordCommand::Test(t) => &t.file,
        };
        let dir = file
            .file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Request {
            paths: vec![dir.to_path_buf()],
            walk: crate::walk::WalkOptions::default(),
            use_record: false,
            ..Default::default()
        }
    }
}

pub fn run(a: RecordArgs, settings: &Settings) -> anyhow::Result<i32> {
    match a.command {
        RecordCommand::Init { file } => init(&file.file),
        RecordCommand::Baseline(b) => baseline(b),
        RecordCommand::Target(t) => set_target(t, settings),
        RecordCommand::Production(p) => production(p),
        RecordCommand::Gate(g) => set_gate(g),
        RecordCommand::Test(t) => add_test(t),
        RecordCommand::Perf(p) => perf(p),
    }
}

fn init(path: &Path) -> anyhow::Result<i32> {
    if std::fs::symlink_metadata(path).is_ok() {
        // Read it, so a broken or special file is still an error, but never rewrite it.
        Record::load(path)?;
        crate::outln!(
            "{}: a migration record already exists; left as it is (record init never overwrites)",
            path.display()
        );
        return Ok(exit::OK);
    }
    Record::new(&record::whoami()).save(path)?;
    crate::outln!("created {} with every gate UNKNOWN", path.display());
    Ok(exit::OK)
}

/// Loads the record (creating it, every gate UNKNOWN, when missing), applies `f`, saves
/// atomically.
fn update(path: &Path, f: impl FnOnce(&mut Record) -> anyhow::Result<()>) -> anyhow::Result<i32> {
    let mut r = match Record::load(path) {
        Ok(r) => r,
        Err(record::RecordError::Missing { .. }) => {
            crate::errln!(
                "hipport: {}: no record yet; creating one with every gate UNKNOWN",
                path.display()
            );
            Record::new(&record::whoami())
        }
        Err(e) => return Err(e.into()),
    };
    f(&mut r)?;
    r.save(path)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(exit::OK)
}

fn baseline(a: BaselineArgs) -> anyhow::Result<i32> {
    let path = a.file.file.as_path();
    let root = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let found = detect::detect(root);
    for (flag, v) in [
        ("--gpu", &a.gpu),
        ("--toolkit", &a.toolkit),
        ("--driver", &a.driver),
        ("--commit", &a.commit),
    ] {
        if v.as_deref().is_some_and(|v| v.trim().is_empty()) {
            bail!("{flag}: empty: name the exact value");
        }
    }
    update(path, |r| {
        // What a person states wins over detection.
        for (dst, v) in [
            (&mut r.baseline.gpu, a.gpu),
            (&mut r.baseline.cuda_toolkit, a.toolkit),
            (&mut r.baseline.cuda_driver, a.driver),
            (&mut r.baseline.repo_commit, a.commit),
        ] {
            if let Some(v) = v {
                *dst = v.trim().to_string();
            }
        }
        detect::merge(&mut r.baseline, found.baseline);
        if let Some(m) = a.model_revision {
            r.baseline.model_revision = m;
        }
        if let Some(c) = a.container {
            let (tag, digest) = c.split_once('@').unwrap_or((&c, ""));
            r.baseline.container_tag = tag.to_string();
            r.baseline.container_digest = digest.to_string();
        }
        for n in &found.notes {
            crate::outln!("{n}");
        }
        let missing = r.baseline.missing();
        if missing.is_empty() {
            crate::outln!("baseline: every required field is filled");
        } else {
            crate::outln!(
                "baseline: still empty, for a person to fill in {}: {}",
                path.display(),
                missing.join(", ")
            );
        }
        Ok(())
    })
}

fn set_target(a: TargetArgs, settings: &Settings) -> anyhow::Result<i32> {
    // A field not given keeps the record's value, so kernel and driver can be added once an
    // AMD machine exists without restating the rest.
    let old = match Record::load(&a.file.file) {
        Ok(r) => r.target,
        Err(record::RecordError::Missing { .. }) => record::TargetTuple::default(),
        Err(e) => return Err(e.into()),
    };
    let kept = |given: Option<String>, old: &str| given.unwrap_or_else(|| old.to_string());
    let known = |v: &str| (!v.trim().is_empty()).then(|| v.to_string());
    // hipport.toml's exact release is the default, and a different one is said: the other
    // commands keep following hipport.toml.
    let from_config = (settings.rocm_source == Source::Config && settings.rocm_explicit)
        .then(|| settings.target.rocm.to_string());
    let rocm = match (a.rocm.as_deref().map(str::trim), &from_config) {
        (None, Some(c)) => c.clone(),
        (Some(r), Some(c)) if r.trim_start_matches("rocm-") != c => {
            crate::errln!(
                "hipport: warning: the record's ROCm {r} differs from hipport.toml's {c}, which port, scan, check and gate follow"
            );
            r.to_string()
        }
        (r, _) => kept(r.map(str::to_string), &old.rocm),
    };
    let pairs = |given: Vec<String>, old: &std::collections::BTreeMap<String, String>| {
        if given.is_empty() {
            old.iter().map(|(k, v)| format!("{k}={v}")).collect()
        } else {
            given
        }
    };
    let gpu_given = a.gpu.is_some();
    let input = target::TargetInput {
        gfx: a
            .gfx
            .or_else(|| (!gpu_given).then(|| known(&old.gfx)).flatten()),
        gpu: kept(a.gpu, &old.gpu),
        rocm,
        os: kept(a.os, &old.os),
        kernel: kept(a.kernel, &old.kernel),
        python: kept(a.python, &old.python),
        frameworks: pairs(a.frameworks, &old.frameworks),
        dependencies: pairs(a.dependencies, &old.dependencies),
        container: a.container.or_else(|| {
            known(&old.container_tag).map(|t| match known(&old.container_digest) {
                Some(d) => format!("{t}@{d}"),
                None => t,
            })
        }),
        firmware: a.firmware.or_else(|| known(&old.firmware)),
        driver: a.driver.or_else(|| known(&old.driver)),
    };
    let tuple = match target::validate(&input) {
        Ok(t) => t,
        Err(errs) => {
            crate::errln!("hipport: record target: the target tuple is not exact:");
            for e in &errs {
                crate::errln!("  {e}");
            }
            return Ok(exit::ERROR);
        }
    };
    let command = format!(
        "hipport {}",
        std::env::args().skip(1).collect::<Vec<_>>().join(" ")
    );
    update(&a.file.file, |r| {
        r.target = tuple;
        if r.gate("target").is_none_or(|g| g.status != Status::Blocker) {
            r.set_gate(GateRow {
                name: "target".into(),
                status: Status::Pass,
                phase: None,
                evidence: Evidence {
                    command,
                    ..Default::default()
                },
                date: record::date::now(),
                recorded_by: record::whoami(),
                note: format!(
                    "ROCm {} on {} ({}){}",
                    r.target.rocm,
                    r.target.gfx,
                    r.target.os,
                    target::unknown_fields_note(&r.target)
                ),
                details: BTreeMap::new(),
            });
        }
        let or_unknown = |v: &str| {
            if v.trim().is_empty() {
                "UNKNOWN".to_string()
            } else {
                v.to_string()
            }
        };
        crate::outln!(
            "target: {} {} ROCm {}, {}, kernel {}, driver {}, Python {}",
            r.target.gpu,
            r.target.gfx,
            r.target.rocm,
            r.target.os,
            or_unknown(&r.target.kernel),
            or_unknown(&r.target.driver),
            r.target.python
        );
        Ok(())
    })
}

fn parse_status(s: &str) -> anyhow::Result<Status> {
    Status::parse(s).ok_or_else(|| {
        anyhow::anyhow!("--status {s}: expected PASS, REMEDIATION, BLOCKER or UNKNOWN")
    })
}

fn evidence(arg: Option<&str>, status: Status, path: &Path) -> anyhow::Result<Evidence> {
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match arg {
        Some(e) => Evidence::from_arg(e, base).map_err(anyhow::Error::msg),
        None if status == Status::Unknown => Ok(Evidence::default()),
        None => bail!("--evidence is required for {status}: evidence beats \"should work\""),
    }
}

fn set_gate(a: GateArgs) -> anyhow::Result<i32> {
    if !record::gates::is_gate(&a.name) {
        bail!(record::gates::unknown_gate(&a.name));
    }
    let status = parse_status(&a.status)?;
    if status == Status::Blocker && a.note.trim().is_empty() {
        bail!("--status BLOCKER needs --note saying why: BLOCKER is a person's decision, with its reason");
    }
    // A status the board would not show is refused, never accepted and then ignored.
    if let Some(from) = record::gates::gate(&a.name).and_then(crate::verdict::derived_from) {
        if !matches!(status, Status::Blocker | Status::Unknown) {
            bail!(
                "record gate {}: the {} gate comes from {from}, not from a recorded status: only BLOCKER (with --note) or UNKNOWN can be set here",
                a.name,
                a.name
            );
        }
    }
    let phase = match &a.phase {
        Some(p) => Some(Phase::parse(p).ok_or_else(|| {
            anyhow::anyhow!("--phase {p}: expected INSTALL, BUILD, IMPORT, INIT, RUNTIME, CORRECTNESS or PERFORMANCE")
        })?),
        None => None,
    };
    let ev = evidence(a.evidence.as_deref(), status, &a.file.file)?;
    update(&a.file.file, |r| {
        r.set_gate(GateRow {
            name: a.name.clone(),
            status,
            phase,
            evidence: ev,
            date: record::date::now(),
            recorded_by: a.by.clone().unwrap_or_else(record::whoami),
            note: a.note.clone(),
            details: BTreeMap::new(),
        });
        crate::outln!("gate {}: {status}", a.name);
        Ok(())
    })
}

fn add_test(a: TestArgs) -> anyhow::Result<i32> {
    let status = parse_status(&a.status)?;
    if status == Status::Blocker && a.note.trim().is_empty() {
        bail!("--status BLOCKER needs --note saying why");
    }
    if a.workload.trim().is_empty() {
        bail!("--workload: required, and empty");
    }
    if a.gpus == 0 || a.nodes == 0 {
        bail!("--gpus and --nodes must be at least 1");
    }
    let precision = record::normalize_precision(&a.precision).map_err(anyhow::Error::msg)?;
    let ev = evidence(a.evidence.as_deref(), status, &a.file.file)?;
    update(&a.file.file, |r| {
        r.tests.push(TestRow {
            workload: a.workload.clone(),
            input_class: a.input_class,
            dimension: a.dimension.clone(),
            precision,
            gpus: a.gpus,
            nodes: a.nodes,
            engine: a.engine.clone(),
            attention_backend: a.attention_backend.clone(),
            status,
            evidence: ev,
            date: record::date::now(),
            recorded_by: a.by.clone().unwrap_or_else(record::whoami),
            note: a.note.clone(),
        });
        crate::outln!(
            "test {} added: {status} ({} rows)",
            a.workload,
            r.tests.len()
        );
        Ok(())
    })
}

fn production(a: ProductionArgs) -> anyhow::Result<i32> {
    if a.precision.is_none()
        && a.gpus.is_none()
        && a.nodes.is_none()
        && a.engine.is_none()
        && a.require.is_empty()
        && !a.clear_requirements
    {
        bail!("record production: nothing to set: give --precision, --gpus, --nodes, --engine or --require");
    }
    let precision = match &a.precision {
        Some(p) => Some(record::normalize_precision(p).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let mut reqs = Vec::new();
    let mut errs = Vec::new();
    for q in &a.require {
        match record::perf::parse_requirement(q) {
            Ok(p) => reqs.push(p),
            Err(e) => errs.push(format!("--require {e}")),
        }
    }
    if !errs.is_empty() {
        bail!(errs.join("\n"));
    }
    for q in &reqs {
        if let Some(w) = odd_direction(q) {
            crate::errln!("hipport: warning: --require {q}: {w}");
        }
    }
    let by = a.by.clone().unwrap_or_else(record::whoami);
    update(&a.file.file, |r| {
        let p = &mut r.production;
        if let Some(v) = precision {
            p.precision = v;
        }
        if let Some(v) = a.gpus {
            p.gpus = v;
        }
        if let Some(v) = a.nodes {
            p.nodes = v;
        }
        if p.gpus > 0 && p.nodes == 0 {
            p.nodes = 1;
        }
        if let Some(v) = a.engine {
            p.engine = v;
        }
        if a.clear_requirements {
            p.requirements.clear();
        }
        for q in reqs {
            p.requirements.retain(|old| {
                record::perf::parse_requirement(&old.require).map_or(true, |o| o.metric != q.metric)
            });
            p.requirements.push(record::perf::RequirementRow {
                require: q.to_string(),
                set_by: by.clone(),
                date: record::date::now(),
            });
        }
        crate::outln!(
            "production: {} GPU(s) x {} node(s), {}",
            p.gpus,
            p.nodes.max(1),
            if p.precision.is_empty() {
                "precision not declared"
            } else {
                &p.precision
            }
        );
        for q in &p.requirements {
            crate::outln!("  requires {} (set by {})", q.require, q.set_by);
        }
        Ok(())
    })
}

/// A rate capped from above or a time bounded from below is allowed, but usually a slip.
fn odd_direction(q: &record::perf::Requirement) -> Option<String> {
    use record::perf::Op;
    let unit = record::perf::unit_of(&q.metric);
    let up = matches!(q.op, Op::Ge | Op::Gt);
    match unit {
        "/s" if !up => Some(format!(
            "{} is a rate (higher is better): `{}` caps it; did you mean >=?",
            q.metric,
            q.op.as_str()
        )),
        "ms" | "s" | "us" | "ns" if up => Some(format!(
            "{} is a time (lower is better): `{}` sets a floor; did you mean <=?",
            q.metric,
            q.op.as_str()
        )),
        _ => None,
    }
}

/// How the record names `input`: relative to the record's directory when inside it.
fn shown_path(input: &Path, record: &Path) -> String {
    let dir = record
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (input.canonicalize(), dir.canonicalize()) {
        (Ok(f), Ok(d)) => match f.strip_prefix(&d) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => f.display().to_string(),
        },
        _ => input.display().to_string(),
    }
}

fn perf(a: PerfArgs) -> anyhow::Result<i32> {
    let mut machine = record::perf::Machine::default();
    if let Some(g) = &a.gpu {
        let mut f = crate::perf::conditions::Found::default();
        f.add("gpu", g, true);
        machine = f.machine;
    }
    if let Some(g) = a.gfx {
        if !target::is_gfx(g.trim()) {
            bail!("--gfx {g}: not a known gfx target (mappings/hand/gfx_targets.tsv)");
        }
        machine.gfx = g.trim().to_string();
    }
    if let Some(n) = a.gpus {
        if n == 0 {
            bail!("--gpus must be at least 1");
        }
        machine.gpus = n;
    }
    if let Some(v) = a.rocm {
        machine.rocm = v.trim().trim_start_matches("rocm-").to_string();
    }
    if let Some(v) = a.cuda {
        machine.cuda = v.trim().to_string();
    }
    let input = crate::perf::RunInput {
        format: a.format,
        conditions: a.conditions.clone(),
        machine,
        probe: !a.no_probe,
    };
    let shown = shown_path(&a.input, &a.file.file);
    let record_dir = a
        .file
        .file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut run = crate::perf::ingest_run(&a.input, &shown, &input).map_err(anyhow::Error::msg)?;
    run.recorded_by = a.by.clone().unwrap_or_else(record::whoami);
    let name = match a.name.as_deref().map(str::trim) {
        Some("") => bail!("--name: empty"),
        Some(n) if a.which == PerfWhich::Baseline => {
            bail!("--name {n}: only candidates are named (there is one baseline)")
        }
        Some(n) => n.to_string(),
        None => a
            .input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "candidate".into()),
    };
    let which = match a.which {
        PerfWhich::Baseline => "baseline",
        PerfWhich::Candidate => "candidate",
    };
    update(&a.file.file, |r| {
        crate::outln!(
            "perf {which}: {} ({}), {} metric(s), {}",
            run.path,
            run.format,
            run.metrics.len(),
            run.machine.describe()
        );
        let conds: Vec<String> = run
            .conditions
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        crate::outln!(
            "  conditions: {}",
            if conds.is_empty() {
                "none stated (add --conditions KEY=VALUE…)".to_string()
            } else {
                conds.join(" ")
            }
        );
        for n in &run.notes {
            crate::outln!("  note: {n}");
        }
        match a.which {
            PerfWhich::Baseline => r.perf.baseline = Some(run),
            PerfWhich::Candidate => {
                let said = r.perf.add_candidate(&name, run);
                crate::outln!("  candidate `{name}`: {said}");
                if let Some(n) = r.perf.candidates_note() {
                    crate::outln!("  {n}");
                }
            }
        }
        let g = crate::perf::judge::performance(r, record_dir);
        crate::outln!("performance gate now: {} — {}", g.status, g.reason);
        Ok(())
    })
}
