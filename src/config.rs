//! `hipport.toml`: the project's configuration, read into serde structs that reject unknown keys,
//! then checked once into a [`Config`] with a precise error per bad key (`target.rocm`,
//! `accept[2].reason`, …). Found by walking up from the scanned path to the repository root;
//! command-line flags override it.
//!
//! ```toml
//! [target]
//! rocm = "6.2.0"
//! offload_arch = ["gfx90a"]
//! [paths]
//! include = ["src/**"]
//! exclude = ["third_party/**"]
//! [rules]
//! HP004 = "off"
//! [[suppress]]
//! rule = "HP001"
//! path = "tools/**"
//! reason = "CUDA-only tooling, not shipped on ROCm"
//! [[accept]]
//! rule = "HP001"
//! path = "src/rdma.cu"
//! status = "BLOCKER"
//! reason = "GPUDirect RDMA flush has no ROCm equivalent; needs a design change"
//! by = "migration lead"
//! [verify]
//! include_dirs = ["third_party/include"]   # relative to this file, inside the project
//! defines = ["TCNN_HALF_PRECISION=1"]
//! std = "c++17"
//! extra_args = ["-fopenmp"]
//! rocm_switch = true                       # define the detected USE_ROCM-like switch
//! ```

use crate::catalog;
use crate::finding::{Decision, DecisionKind, Finding};
use crate::gate::Status;
use crate::report::Report;
use crate::version::Version;
use globset::{Glob, GlobMatcher};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "hipport.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    target: RawTarget,
    #[serde(default)]
    paths: RawPaths,
    #[serde(default)]
    rules: BTreeMap<String, Level>,
    #[serde(default)]
    suppress: Vec<RawSuppress>,
    #[serde(default)]
    accept: Vec<RawAccept>,
    #[serde(default)]
    verify: VerifyConfig,
}

/// `[verify]`: flags `hipport verify` adds to every unit. The file is the project's, so verify
/// passes these through the same allow-list as compile_commands.json.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyConfig {
    #[serde(default)]
    pub include_dirs: Vec<String>,
    #[serde(default)]
    pub defines: Vec<String>,
    pub std: Option<String>,
    #[serde(default)]
    pub extra_args: Vec<String>,
    pub rocm_switch: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTarget {
    rocm: Option<String>,
    #[serde(default)]
    offload_arch: Vec<String>,
    roc: Option<bool>,
    experimental: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPaths {
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

/// A rule's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Off,
    On,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuppress {
    rule: String,
    path: Option<String>,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAccept {
    fingerprint: Option<String>,
    rule: Option<String>,
    path: Option<String>,
    status: String,
    reason: String,
    by: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: cannot read: {error}")]
    Io { file: String, error: std::io::Error },
    #[error("{file}: {error}")]
    Syntax { file: String, error: String },
    #[error("{file}: `{key}`: {message}")]
    Value {
        file: String,
        key: String,
        message: String,
    },
}

#[derive(Debug)]
struct Suppress {
    rule: String,
    path: Option<GlobMatcher>,
}

#[derive(Debug)]
struct Accept {
    fingerprint: Option<String>,
    rule: Option<String>,
    path: Option<GlobMatcher>,
    status: Status,
    decision: Decision,
}

/// The checked configuration.
#[derive(Debug, Default)]
pub struct Config {
    /// The file it was read from.
    pub file: PathBuf,
    pub rocm: Option<String>,
    pub offload_arch: Vec<String>,
    pub roc: Option<bool>,
    pub experimental: Option<bool>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    off: BTreeSet<String>,
    suppress: Vec<Suppress>,
    accept: Vec<Accept>,
    pub verify: VerifyConfig,
}

/// The nearest `hipport.toml` from `start` upwards, stopping at the repository root (the first
/// directory holding `.git`).
pub fn find(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).ok()?;
    let mut dir = if start.is_file() {
        start.parent()?.to_path_buf()
    } else {
        start
    };
    loop {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if dir.join(".git").exists() || !dir.pop() {
            return None;
        }
    }
}

pub fn load(file: &Path) -> Result<Config, ConfigError> {
    let name = file.display().to_string();
    let project = crate::project_files::project_of(file);
    let limit = crate::project_files::MAX_SETTINGS_BYTES;
    let text = crate::project_files::read_text(file, project, limit)
        .map_err(|error| ConfigError::Io { file: name, error })?;
    parse(&text, file)
}

/// Parses and checks configuration text; `file` names it in errors.
pub fn parse(text: &str, file: &Path) -> Result<Config, ConfigError> {
    let name = file.display().to_string();
    let syntax = |key: String, e: toml::de::Error| ConfigError::Syntax {
        file: name.clone(),
        error: format!("{key}{}", crate::project_files::toml_error(text, &e)),
    };
    let de = toml::Deserializer::parse(text).map_err(|e| syntax(String::new(), e))?;
    let raw: Raw = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let key = if path == "." || path.is_empty() {
            String::new()
        } else {
            format!("`{path}`: ")
        };
        syntax(key, e.into_inner())
    })?;
    let bad = |key: String, message: String| ConfigError::Value {
        file: name.clone(),
        key,
        message,
    };
    if let Some(v) = &raw.target.rocm {
        check_rocm(v).map_err(|m| bad("target.rocm".into(), m))?;
    }
    for (i, a) in raw.target.offload_arch.iter().enumerate() {
        if !is_gfx(a) {
            return Err(bad(
                format!("target.offload_arch[{i}]"),
                format!("`{a}` is not an AMD GPU architecture (e.g. gfx90a, gfx942)"),
            ));
        }
    }
    for (key, list) in [
        ("paths.include", &raw.paths.include),
        ("paths.exclude", &raw.paths.exclude),
    ] {
        for (i, g) in list.iter().enumerate() {
            glob(g).map_err(|m| bad(format!("{key}[{i}]"), m))?;
        }
    }
    let mut off = BTreeSet::new();
    for (code, level) in &raw.rules {
        let r = known_rule(code).map_err(|m| bad(format!("rules.{code}"), m))?;
        if *level == Level::Off {
            off.insert(r);
        }
    }
    let mut suppress = Vec::new();
    for (i, s) in raw.suppress.iter().enumerate() {
        let key = |k: &str| format!("suppress[{i}].{k}");
        let rule = known_rule(&s.rule).map_err(|m| bad(key("rule"), m))?;
        let path = s.path.as_deref().map(glob).transpose();
        let path = path.map_err(|m| bad(key("path"), m))?;
        if s.reason.trim().is_empty() {
            return Err(bad(
                key("reason"),
                "write why the rule does not apply".into(),
            ));
        }
        suppress.push(Suppress { rule, path });
    }
    let mut accept = Vec::new();
    for (i, a) in raw.accept.iter().enumerate() {
        let key = |k: &str| format!("accept[{i}].{k}");
        let word = DecisionKind::parse(&a.status.to_ascii_uppercase()).ok_or_else(|| {
            bad(
                key("status"),
                format!("`{}`: expected \"BLOCKER\" or \"ACCEPTED\"", a.status),
            )
        })?;
        let status = match word {
            DecisionKind::Blocker => Status::Blocker,
            DecisionKind::Accepted => Status::Pass,
        };
        if a.reason.trim().is_empty() {
            return Err(bad(
                key("reason"),
                "a decision needs a written reason".into(),
            ));
        }
        let rule = a.rule.as_deref().map(known_rule).transpose();
        let rule = rule.map_err(|m| bad(key("rule"), m))?;
        let path = a.path.as_deref().map(glob).transpose();
        let path = path.map_err(|m| bad(key("path"), m))?;
        if let Some(fp) = &a.fingerprint {
            if fp.len() != 16 || !fp.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(
                    key("fingerprint"),
                    format!("`{fp}`: expected 16 hex digits as in a report"),
                ));
            }
        } else if rule.is_none() || path.is_none() {
            return Err(bad(
                format!("accept[{i}]"),
                "name the item by `fingerprint`, or by `rule` and `path`".into(),
            ));
        }
        accept.push(Accept {
            fingerprint: a.fingerprint.as_ref().map(|f| f.to_ascii_lowercase()),
            rule,
            path,
            status,
            decision: Decision {
                decision: word,
                reason: a.reason.trim().to_string(),
                by: a.by.clone(),
            },
        });
    }
    Ok(Config {
        file: file.to_path_buf(),
        rocm: raw.target.rocm,
        offload_arch: raw.target.offload_arch,
        roc: raw.target.roc,
        experimental: raw.target.experimental,
        include: raw.paths.include,
        exclude: raw.paths.exclude,
        off,
        suppress,
        accept,
        verify: raw.verify,
    })
}

fn check_rocm(v: &str) -> Result<(), String> {
    if v.trim().eq_ignore_ascii_case("latest") {
        return Err("name an exact ROCm release (e.g. \"6.2.0\"), not \"latest\"".into());
    }
    v.parse::<Version>().map(|_| ()).map_err(|e| e.to_string())
}

fn is_gfx(a: &str) -> bool {
    let base = a.split(':').next().unwrap_or("");
    base.len() > 3 && base.starts_with("gfx") && base[3..].bytes().all(|b| b.is_ascii_hexdigit())
}

fn glob(g: &str) -> Result<GlobMatcher, String> {
    Glob::new(g)
        .map(|g| g.compile_matcher())
        .map_err(|e| e.to_string())
}

fn known_rule(code: &str) -> Result<String, String> {
    catalog::by_code(code)
        .map(|r| r.id.code.to_string())
        .ok_or_else(|| format!("no rule `{code}` (see `hipport explain all`)"))
}

impl Config {
    /// Whether a glob written from the configuration's directory matches a finding path
    /// (relative to the scanned root, which is `prefix` below that directory).
    fn matches(g: &GlobMatcher, path: &str, prefix: Option<&str>) -> bool {
        g.is_match(path)
            || prefix
                .filter(|p| !p.is_empty())
                .is_some_and(|p| g.is_match(format!("{p}/{path}")))
    }

    /// Whether rule levels and suppressions keep a finding.
    pub fn keeps(&self, f: &Finding, prefix: Option<&str>) -> bool {
        if self.off.contains(&f.rule) {
            return false;
        }
        !self.suppress.iter().any(|s| {
            s.rule == f.rule
                && s.path
                    .as_ref()
                    .is_none_or(|g| Config::matches(g, &f.path, prefix))
        })
    }

    /// Applies rule levels, suppressions and recorded decisions to a report. `prefix` is the
    /// scanned root relative to the configuration's directory, so that globs written from the
    /// repository root also match when a subdirectory is scanned.
    pub fn apply(&self, report: Report, prefix: Option<&str>) -> Report {
        let before = report.findings.len();
        let mut decisions = report.decisions.clone();
        let mut findings = Vec::with_capacity(before);
        for mut f in report.findings {
            if !self.keeps(&f, prefix) {
                continue;
            }
            let accepted = self.accept.iter().find(|a| match &a.fingerprint {
                Some(fp) => *fp == f.fingerprint,
                None => {
                    a.rule.as_deref() == Some(f.rule.as_str())
                        && a.path
                            .as_ref()
                            .is_some_and(|g| Config::matches(g, &f.path, prefix))
                }
            });
            if let Some(a) = accepted {
                f.status = a.status;
                decisions.insert(f.fingerprint.clone(), a.decision.clone());
            }
            findings.push(f);
        }
        let dropped = before - findings.len();
        let mut out = Report::new(report.target, findings, report.errors);
        out.summary.files_scanned = report.summary.files_scanned;
        out.summary.translated_names = report.summary.translated_names;
        out.summary.parse_errors_files = report.summary.parse_errors_files;
        out.summary.suppressed = report.summary.suppressed + dropped;
        out.decisions = decisions;
        out.sources = report.sources;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text, Path::new("hipport.toml"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn errors_name_the_key() {
        assert!(err("[target]\nrocm = \"six\"").contains("`target.rocm`"));
        assert!(err("[target]\nrcom = \"6.2.0\"").contains("rcom"));
        assert!(err("[rules]\nHP001 = \"maybe\"").contains("maybe"));
        assert!(err("[rules]\nHP999 = \"off\"").contains("`rules.HP999`"));
        let e = err("[[accept]]\nrule = \"HP001\"\npath = \"a.cu\"\nstatus = \"BLOCKER\"");
        assert!(e.contains("reason"), "{e}");
        let e =
            err("[[accept]]\nrule = \"HP001\"\npath = \"a.cu\"\nstatus = \"NOPE\"\nreason = \"x\"");
        assert!(e.contains("`accept[0].status`"), "{e}");
        assert!(err("[target]\noffload_arch = [\"sm_80\"]").contains("offload_arch[0]"));
    }

    #[test]
    fn full_example_parses() {
        let c = parse(
            "[target]\nrocm = \"6.2.0\"\noffload_arch = [\"gfx90a\", \"gfx942:xnack+\"]\n\
             [paths]\nexclude = [\"third_party/**\"]\n[rules]\nHP004 = \"off\"\n\
             [[suppress]]\nrule = \"HP001\"\npath = \"tools/**\"\nreason = \"tooling\"\n\
             [[accept]]\nfingerprint = \"0123456789abcdef\"\nstatus = \"ACCEPTED\"\nreason = \"ok\"\n",
            Path::new("hipport.toml"),
        )
        .unwrap();
        assert_eq!(c.rocm.as_deref(), Some("6.2.0"));
        assert!(c.off.contains("HP004"));
        assert_eq!(c.accept[0].status, Status::Pass);
    }
}
