//! The migration record `hipport-migration.toml`: the committed file that holds the evidence
//! for each gate — the CUDA baseline, the exact ROCm target, the production requirements, gate
//! rows and the functional test matrix. Read strictly (an unknown key is an error naming it),
//! written atomically. Only a person sets BLOCKER, through `record gate … --note`.

pub mod correctness;
pub mod date;
pub mod detect;
pub mod gates;
pub mod perf;
pub mod target;

use crate::gate::{Phase, Status};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use gates::Gate;

/// The file name, at the repository root.
pub const FILE_NAME: &str = "hipport-migration.toml";
pub const SCHEMA_VERSION: u32 = 1;

const HEADER: &str = "# hipport migration record: the evidence behind each migration gate. Commit this file.\n# Written by `hipport record …` and `hipport verify`; edit by hand with care (comments are not kept).\n# UNKNOWN is never PASS; only a person sets BLOCKER, with a note.\n\n";

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub schema_version: u32,
    #[serde(default)]
    pub baseline: Baseline,
    #[serde(default)]
    pub target: TargetTuple,
    #[serde(default)]
    pub production: Production,
    #[serde(default, rename = "gate")]
    pub gates: Vec<GateRow>,
    #[serde(default, rename = "test", skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<TestRow>,
    /// Benchmark runs for the performance gate (`record perf`).
    #[serde(default, skip_serializing_if = "perf::Perf::is_empty")]
    pub perf: perf::Perf,
}

/// The reproducible CUDA baseline.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Baseline {
    pub repo_commit: String,
    pub model_revision: String,
    pub cuda_toolkit: String,
    pub cuda_driver: String,
    pub gpu: String,
    pub container_tag: String,
    pub container_digest: String,
    /// Framework name → exact version (`torch = "2.4.1+cu121"`).
    pub frameworks: BTreeMap<String, String>,
}

impl Baseline {
    /// Fields a reproducible baseline needs that are still empty.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut m = Vec::new();
        for (name, v) in [
            ("repo_commit", &self.repo_commit),
            ("cuda_toolkit", &self.cuda_toolkit),
            ("cuda_driver", &self.cuda_driver),
            ("gpu", &self.gpu),
        ] {
            if v.trim().is_empty() {
                m.push(name);
            }
        }
        m
    }
}

/// The exact ROCm target tuple.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TargetTuple {
    /// Product name, e.g. `Instinct MI300X`.
    pub gpu: String,
    /// LLVM processor name, e.g. `gfx942`.
    pub gfx: String,
    pub firmware: String,
    pub driver: String,
    /// Full ROCm release, X.Y.Z.
    pub rocm: String,
    pub os: String,
    pub kernel: String,
    pub python: String,
    pub frameworks: BTreeMap<String, String>,
    pub dependencies: BTreeMap<String, String>,
    pub container_tag: String,
    pub container_digest: String,
}

/// What production needs: the functional, precision and distributed gates are judged against it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Production {
    /// FP32, BF16, FP16, FP8, INT8, AWQ, GPTQ, …
    pub precision: String,
    /// GPUs per node × nodes is what the distributed gate must see tested.
    pub gpus: u32,
    pub nodes: u32,
    /// Serving or training engine (vLLM, SGLang, TensorRT-LLM → its ROCm counterpart, …).
    pub engine: String,
    /// Performance requirements (`tokens_per_s>=1500`, `step_time_s<=1.1*baseline`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<perf::RequirementRow>,
}

/// Where a gate's or test's evidence lives. A file's sha256 makes later edits visible.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Evidence {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub command: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub url: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub sha256: String,
}

impl Evidence {
    pub fn is_empty(&self) -> bool {
        self.path.is_empty() && self.command.is_empty() && self.url.is_empty()
    }
    /// One line: the path (with a short hash), the command or the URL.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.path.is_empty() {
            if self.sha256.len() >= 12 {
                parts.push(format!("{} (sha256 {}…)", self.path, &self.sha256[..12]));
            } else {
                parts.push(self.path.clone());
            }
        }
        if !self.command.is_empty() {
            parts.push(format!("`{}`", self.command));
        }
        if !self.url.is_empty() {
            parts.push(self.url.clone());
        }
        parts.join("; ")
    }
    /// Evidence from a file inside the project (`base`, the record's directory; hashed) or an
    /// http(s) URL. A command line is refused: nothing runs it, so it proves nothing — a
    /// command's result is recorded by the command itself (`hipport compare … --record`,
    /// `hipport verify`).
    pub fn from_arg(arg: &str, base: &Path) -> Result<Evidence, String> {
        let a = arg.trim();
        if a.is_empty() {
            return Err(
                "--evidence: empty: name a file inside the project or an http(s) URL".into(),
            );
        }
        if a.starts_with("http://") || a.starts_with("https://") {
            return Ok(Evidence {
                url: a.to_string(),
                ..Default::default()
            });
        }
        let p = Path::new(a);
        let candidates = if p.is_absolute() {
            vec![p.to_path_buf()]
        } else {
            vec![base.join(p), PathBuf::from(a)]
        };
        let Some(full) = candidates.into_iter().find(|c| c.is_file()) else {
            if a.contains(char::is_whitespace) {
                return Err(format!(
                    "--evidence `{a}`: a command is not evidence (nothing runs it): run it and give its output file, or let the command record its own result (`hipport compare A B --record` for correctness, `hipport verify` for the build)"
                ));
            }
            return Err(format!(
                "--evidence {a}: no such file (relative paths are read from the record's directory or the current directory); give a file inside the project or an http(s) URL"
            ));
        };
        // Hashed through the path as named: a symbolic link or a special file is refused there.
        let sha256 = sha256_file(&full)?;
        let (Ok(f), Ok(root)) = (full.canonicalize(), base.canonicalize()) else {
            return Err(format!("--evidence {a}: cannot resolve the path"));
        };
        let Ok(rel) = f.strip_prefix(&root) else {
            return Err(format!(
                "--evidence {a}: outside the project ({}): copy it into the repository so the record can name it",
                root.display()
            ));
        };
        Ok(Evidence {
            path: crate::walk::rel_string(rel),
            sha256,
            ..Default::default()
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GateRow {
    pub name: String,
    pub status: Status,
    /// Where it failed (INSTALL … PERFORMANCE), for non-PASS rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    #[serde(default, skip_serializing_if = "Evidence::is_empty")]
    pub evidence: Evidence,
    #[serde(default)]
    pub date: String,
    #[serde(default)]
    pub recorded_by: String,
    #[serde(default)]
    pub note: String,
    /// Facts the recorder adds (verify: compiler, command, counts).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, String>,
}

/// The input class of a functional test.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum InputClass {
    /// Model loads, one request: says the stack starts, not that the workload works.
    Smoke,
    /// Production-like inputs.
    Representative,
    /// Limits: longest context, biggest batch, highest concurrency.
    Boundary,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TestRow {
    pub workload: String,
    pub input_class: InputClass,
    /// The dimension exercised: `context=32768`, `batch=64`, `resolution=1024x1024`, ….
    #[serde(default)]
    pub dimension: String,
    pub precision: String,
    pub gpus: u32,
    #[serde(default = "one")]
    pub nodes: u32,
    #[serde(default)]
    pub engine: String,
    #[serde(default)]
    pub attention_backend: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Evidence::is_empty")]
    pub evidence: Evidence,
    #[serde(default)]
    pub date: String,
    #[serde(default)]
    pub recorded_by: String,
    #[serde(default)]
    pub note: String,
}

fn one() -> u32 {
    1
}

/// Precisions the test matrix and `[production]` accept (case-insensitive).
pub const PRECISIONS: &[&str] = &[
    "FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "FP8-E4M3", "FP8-E5M2", "MXFP8", "FP6", "FP4",
    "MXFP4", "NVFP4", "INT8", "INT4", "W8A8", "W4A16", "AWQ", "GPTQ", "GGUF",
];

/// `bf16` → `BF16`; an error naming the accepted values otherwise.
pub fn normalize_precision(p: &str) -> Result<String, String> {
    let up = p.trim().to_ascii_uppercase().replace('_', "-");
    if PRECISIONS.contains(&up.as_str()) {
        Ok(up)
    } else {
        Err(format!(
            "precision `{p}` is not one hipport knows: expected one of {}",
            PRECISIONS.join(", ")
        ))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{path}: no migration record here; create one with `hipport record init`")]
    Missing { path: String },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
}

impl Record {
    /// A fresh record: every gate UNKNOWN, nothing else known.
    pub fn new(recorded_by: &str) -> Record {
        let date = date::now();
        Record {
            schema_version: SCHEMA_VERSION,
            gates: Gate::ALL
                .iter()
                .map(|g| GateRow {
                    name: g.as_str().to_string(),
                    status: Status::Unknown,
                    phase: None,
                    evidence: Evidence::default(),
                    date: date.clone(),
                    recorded_by: recorded_by.to_string(),
                    note: format!("not tested: {}", g.question()),
                    details: BTreeMap::new(),
                })
                .collect(),
            ..Default::default()
        }
    }

    pub fn path_in(root: &Path) -> PathBuf {
        root.join(FILE_NAME)
    }

    pub fn load(path: &Path) -> Result<Record, RecordError> {
        let p = path.display().to_string();
        // A FIFO or device must be reported, not read (reading could block forever).
        let project = crate::project_files::project_of(path);
        let limit = crate::project_files::MAX_SETTINGS_BYTES;
        let text = match crate::project_files::read_text(path, project, limit) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(RecordError::Missing { path: p })
            }
            Err(e) => return Err(RecordError::Io { path: p, error: e }),
        };
        Record::parse(&text).map_err(|message| RecordError::Invalid { path: p, message })
    }

    pub fn parse(text: &str) -> Result<Record, String> {
        let r: Record =
            toml::from_str(text).map_err(|e| crate::project_files::toml_error(text, &e))?;
        if r.schema_version != SCHEMA_VERSION {
            return Err(format!(
                "schema_version = {}: this hipport reads version {SCHEMA_VERSION}",
                r.schema_version
            ));
        }
        for (i, g) in r.gates.iter().enumerate() {
            if !gates::is_gate(&g.name) {
                return Err(format!(
                    "[[gate]] #{}: {}",
                    i + 1,
                    gates::unknown_gate(&g.name)
                ));
            }
            // Two rows for one gate: neither wins silently (a person's BLOCKER followed by a
            // PASS row must not read as PASS).
            if let Some(j) = r.gates[..i].iter().position(|h| h.name == g.name) {
                return Err(format!(
                    "[[gate]] #{} and #{} both set gate `{}` ({} and {}): keep one row",
                    j + 1,
                    i + 1,
                    g.name,
                    r.gates[j].status,
                    g.status
                ));
            }
            if g.status == Status::Blocker && g.note.trim().is_empty() {
                return Err(format!(
                    "[[gate]] `{}`: BLOCKER needs a note saying why (set by a person)",
                    g.name
                ));
            }
        }
        for (i, t) in r.tests.iter().enumerate() {
            normalize_precision(&t.precision).map_err(|e| format!("[[test]] #{}: {e}", i + 1))?;
        }
        if !r.production.precision.is_empty() {
            normalize_precision(&r.production.precision)
                .map_err(|e| format!("[production] {e}"))?;
        }
        for q in &r.production.requirements {
            perf::parse_requirement(&q.require)
                .map_err(|e| format!("[[production.requirements]] {e}"))?;
        }
        Ok(r)
    }

    /// Writes the record atomically (temporary file in the same directory, then rename).
    pub fn save(&self, path: &Path) -> Result<(), RecordError> {
        let p = path.display().to_string();
        let body = toml::to_string_pretty(self).map_err(|e| RecordError::Invalid {
            path: p.clone(),
            message: e.to_string(),
        })?;
        let text = format!("{HEADER}{body}");
        write_atomic(path, text.as_bytes()).map_err(|e| RecordError::Io { path: p, error: e })
    }

    pub fn gate(&self, name: &str) -> Option<&GateRow> {
        self.gates.iter().rev().find(|g| g.name == name)
    }

    /// Replaces the row of `row.name` (or adds it), keeping board order.
    pub fn set_gate(&mut self, row: GateRow) {
        self.gates.retain(|g| g.name != row.name);
        self.gates.push(row);
        self.gates.sort_by_key(|g| gates::gate(&g.name));
    }
}

/// Writes through a temporary file in the destination's directory and a rename.
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::source::write_atomic(dest, bytes, None)
}

/// The most bytes hashed from one evidence file.
pub const EVIDENCE_LIMIT: u64 = 1 << 30;

pub fn sha256_file(path: &Path) -> Result<String, String> {
    // Evidence is named by a repository's record: a device or FIFO there must not hang `gate`.
    let bytes = crate::safety::read_regular_bounded(path, EVIDENCE_LIMIT)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(sha256_hex(&bytes))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Who records: `$HIPPORT_USER`, `git config user.email`, `$USER`, or `unknown`.
pub fn whoami() -> String {
    if let Ok(u) = std::env::var("HIPPORT_USER") {
        if !u.trim().is_empty() {
            return u;
        }
    }
    if let Ok(o) = std::process::Command::new("git")
        .args(["config", "user.email"])
        .output()
    {
        let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if o.status.success() && !s.is_empty() {
            return s;
        }
    }
    std::env::var("USER").unwrap_or_else(|_| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_record_round_trips_with_every_gate_unknown() {
        let r = Record::new("test");
        assert_eq!(r.gates.len(), 10);
        assert!(r.gates.iter().all(|g| g.status == Status::Unknown));
        let text = toml::to_string_pretty(&r).unwrap();
        assert_eq!(Record::parse(&text).unwrap(), r);
    }

    #[test]
    fn unknown_keys_are_named() {
        let e =
            Record::parse("schema_version = 1\n[target]\nrocm_version = \"6.4.1\"\n").unwrap_err();
        assert!(e.contains("rocm_version"), "{e}");
        let e = Record::parse("schema_version = 1\nflavour = 1\n").unwrap_err();
        assert!(e.contains("flavour"), "{e}");
        let e =
            Record::parse("schema_version = 1\n[[gate]]\nname = \"speed\"\nstatus = \"PASS\"\n")
                .unwrap_err();
        assert!(e.contains("unknown gate `speed`"), "{e}");
        let e =
            Record::parse("schema_version = 1\n[[gate]]\nname = \"build\"\nstatus = \"BLOCKER\"\n")
                .unwrap_err();
        assert!(e.contains("BLOCKER needs a note"), "{e}");
    }

    #[test]
    fn duplicate_gate_rows_are_an_error_naming_both() {
        let e = Record::parse(
            "schema_version = 1\n[[gate]]\nname = \"build\"\nstatus = \"BLOCKER\"\nnote = \"link fails\"\n[[gate]]\nname = \"inventory\"\nstatus = \"PASS\"\n[[gate]]\nname = \"build\"\nstatus = \"PASS\"\n",
        )
        .unwrap_err();
        assert!(e.contains("#1 and #3") && e.contains("`build`"), "{e}");
        assert!(e.contains("BLOCKER") && e.contains("PASS"), "{e}");
    }

    #[test]
    fn set_gate_keeps_board_order() {
        let mut r = Record::new("t");
        let mut row = r.gate("build").unwrap().clone();
        row.status = Status::Pass;
        r.set_gate(row);
        assert_eq!(r.gates[3].name, "build");
        assert_eq!(r.gate("build").unwrap().status, Status::Pass);
    }

    #[test]
    fn precisions_normalize() {
        assert_eq!(normalize_precision("bf16").unwrap(), "BF16");
        assert!(normalize_precision("fp7").is_err());
    }
}
