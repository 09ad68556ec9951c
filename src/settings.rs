//! The settings of one run, resolved once before any command runs and then only read: the
//! target (ROCm release, library flavour, offload architectures), the file selection, and the
//! project's rule levels, suppressions and accepted items.
//!
//! Every command that looks at a tree (`port`, `scan`, `check`, `gate`, `verify`, `record`)
//! takes a [`Settings`], so two commands on the same tree agree on the target and the rules by
//! construction. Each value comes from the first of these that names it:
//!
//! 1. a command-line flag,
//! 2. `hipport.toml` (the nearest one above the first path, or `--config FILE`),
//! 3. the migration record's exact target (`hipport-migration.toml` `[target]` at the root),
//! 4. the default: the newest ROCm release in `mappings/hand/rocm_versions.tsv`.
//!
//! A ROCm release line hipport does not know is warned about once, the same way in every
//! command, whichever source named it.
//!
//! `Settings` holds resolved data and pure functions of it ([`Settings::apply`] filters a
//! report); it runs no command. Scanning with them is [`crate::scan::scan_and_apply`].

use crate::config::{self, Config};
use crate::finding::Finding;
use crate::mappings::Target;
use crate::record::Record;
use crate::report::{Report, TargetInfo};
use crate::version::Version;
use crate::walk::WalkOptions;
use std::fmt;
use std::path::{Path, PathBuf};

/// What a command contributes to its settings: its paths and the flags it has.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The paths the command works on; the first one locates `hipport.toml` and the record.
    pub paths: Vec<PathBuf>,
    /// `--rocm`, as written.
    pub rocm: Option<String>,
    pub roc: bool,
    pub experimental: bool,
    /// `--offload-arch` (only `verify` has it).
    pub offload_arch: Vec<String>,
    /// The file selection from the flags (globs empty when no flag named one).
    pub walk: WalkOptions,
    pub max_file_size: u64,
    /// `--config FILE`.
    pub config_file: Option<PathBuf>,
    /// `--no-config`.
    pub no_config: bool,
    /// Whether the migration record's `[target]` may supply the target (not for `record`
    /// itself, which writes it).
    pub use_record: bool,
    /// `--select RULE,...`: only these rules (codes or names); empty for all.
    pub select: Vec<String>,
    /// `--ignore RULE,...`: never these rules, as if `hipport.toml` turned them off.
    pub ignore: Vec<String>,
}

/// The rules `--select`/`--ignore` keep, as rule codes; applied with `hipport.toml`'s levels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleFilter {
    /// Only these codes (empty: every rule).
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl RuleFilter {
    /// Reads the flags' terms (codes in any case, or public names); an unknown rule is an error.
    pub fn parse(select: &[String], ignore: &[String]) -> Result<RuleFilter, String> {
        let codes = |flag: &str, terms: &[String]| -> Result<Vec<String>, String> {
            terms
                .iter()
                .map(|t| t.trim())
                .filter(|t| !t.is_empty())
                .map(|t| {
                    crate::catalog::by_code(t)
                        .map(|r| r.id.code.to_string())
                        .ok_or_else(|| {
                            format!(
                                "{flag} {t}: not a rule code or name (see `hipport explain all`)"
                            )
                        })
                })
                .collect()
        };
        Ok(RuleFilter {
            select: codes("--select", select)?,
            ignore: codes("--ignore", ignore)?,
        })
    }

    /// Whether a finding of `rule` is reported.
    pub fn keeps(&self, rule: &str) -> bool {
        (self.select.is_empty() || self.select.iter().any(|c| c == rule))
            && !self.ignore.iter().any(|c| c == rule)
    }

    fn is_empty(&self) -> bool {
        self.select.is_empty() && self.ignore.is_empty()
    }
}

/// Where the ROCm release came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Flag,
    Config,
    Record,
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Flag => "--rocm",
            Source::Config => config::FILE_NAME,
            Source::Record => crate::record::FILE_NAME,
            Source::Default => "default: newest known release",
        })
    }
}

/// The resolved settings of one run.
#[derive(Debug)]
pub struct Settings {
    pub paths: Vec<PathBuf>,
    pub target: Target,
    /// Where `target.rocm` came from.
    pub rocm_source: Source,
    /// The release was written as a full `X.Y.Z` (a flag, `hipport.toml` or the record).
    pub rocm_explicit: bool,
    /// GPU architectures: `--offload-arch`, else `hipport.toml`, else the record's `gfx`.
    pub offload_arch: Vec<String>,
    pub walk: WalkOptions,
    pub max_file_size: u64,
    /// The project configuration, when one was read.
    pub config: Option<Config>,
    /// The first path's root relative to the configuration's directory (globs in
    /// `hipport.toml` are written from there).
    config_prefix: Option<String>,
    /// `--select`/`--ignore`.
    pub rules: RuleFilter,
}

pub use crate::record::target::default_rocm;

/// Parses a `--rocm` / `target.rocm` value: `X.Y` or `X.Y.Z`, never a floating name.
pub fn parse_rocm(what: &str, v: &str) -> Result<Version, String> {
    if v.trim().eq_ignore_ascii_case("latest") {
        return Err(format!(
            "{what} latest: name an exact ROCm release (e.g. 6.4.1); \"latest\" is not a specification"
        ));
    }
    let rocm = v
        .trim()
        .parse::<Version>()
        .map_err(|e| format!("{what}: {e}"))?;
    if rocm.major < 1 {
        return Err(format!("{what} {rocm}: not a ROCm release"));
    }
    Ok(rocm)
}

/// The warning for a release line the release table does not list, or `None` when it is known.
pub fn unknown_release_warning(rocm: &Version, source: Source) -> Option<String> {
    let known = crate::record::target::rocm_releases();
    if known.iter().any(|k| k.same_minor(rocm)) {
        return None;
    }
    Some(format!(
        "hipport: warning: ROCm {rocm} ({source}) is not a release line hipport knows ({} … {}); API availability is judged from the tables as if it existed",
        known.first().map(|v| v.to_string()).unwrap_or_default(),
        known.last().map(|v| v.to_string()).unwrap_or_default()
    ))
}

impl Settings {
    /// Resolves the settings of a run; prints the unknown-release warning (once) on stderr.
    pub fn resolve(req: &Request) -> anyhow::Result<Settings> {
        let s = Settings::resolve_quiet(req)?;
        if let Some(w) = unknown_release_warning(&s.target.rocm, s.rocm_source) {
            if s.rocm_source != Source::Default {
                crate::errln!("{w}");
            }
        }
        Ok(s)
    }

    /// [`Settings::resolve`] without the warning (tests).
    pub fn resolve_quiet(req: &Request) -> anyhow::Result<Settings> {
        let file = match (&req.config_file, req.no_config) {
            (_, true) => None,
            (Some(f), false) => Some(f.clone()),
            (None, false) => req.paths.first().and_then(|p| config::find(p)),
        };
        let config = file.map(|f| config::load(&f)).transpose()?;
        let record = if req.use_record {
            req.paths
                .first()
                .and_then(|p| Record::load(&Record::path_in(&root_of(p))).ok())
        } else {
            None
        };
        let record_rocm = record
            .as_ref()
            .map(|r| r.target.rocm.trim())
            .filter(|v| !v.is_empty());
        let cfg_rocm = config.as_ref().and_then(|c| c.rocm.as_deref());
        let (written, rocm_source) = match (&req.rocm, cfg_rocm, record_rocm) {
            (Some(v), _, _) => (Some(v.as_str()), Source::Flag),
            (None, Some(v), _) => (Some(v), Source::Config),
            (None, None, Some(v)) => (Some(v), Source::Record),
            (None, None, None) => (None, Source::Default),
        };
        let what = match rocm_source {
            Source::Flag => "--rocm".to_string(),
            s => format!("{s}: target.rocm"),
        };
        let rocm = match written {
            Some(v) => parse_rocm(&what, v).map_err(anyhow::Error::msg)?,
            None => default_rocm(),
        };
        let rocm_explicit = written.is_some_and(|v| v.trim().split('.').count() == 3);
        let offload_arch = if !req.offload_arch.is_empty() {
            req.offload_arch.clone()
        } else if let Some(c) = config.as_ref().filter(|c| !c.offload_arch.is_empty()) {
            c.offload_arch.clone()
        } else {
            record
                .as_ref()
                .map(|r| r.target.gfx.trim().to_string())
                .filter(|g| !g.is_empty())
                .into_iter()
                .collect()
        };
        let target = Target {
            rocm,
            roc: req.roc || config.as_ref().and_then(|c| c.roc).unwrap_or(false),
            experimental: req.experimental
                || config
                    .as_ref()
                    .and_then(|c| c.experimental)
                    .unwrap_or(false),
            lds: crate::mappings::lds::for_archs(&offload_arch),
        };
        let mut walk = req.walk.clone();
        if let Some(c) = &config {
            if walk.include.is_empty() {
                walk.include = c.include.clone();
            }
            if walk.exclude.is_empty() {
                walk.exclude = c.exclude.clone();
            }
        }
        let config_prefix = match (&config, req.paths.first()) {
            (Some(c), Some(p)) => prefix(c, p),
            _ => None,
        };
        let rules = RuleFilter::parse(&req.select, &req.ignore).map_err(anyhow::Error::msg)?;
        Ok(Settings {
            rules,
            paths: req.paths.clone(),
            target,
            rocm_source,
            rocm_explicit,
            offload_arch,
            walk,
            max_file_size: req.max_file_size,
            config,
            config_prefix,
        })
    }

    /// The target as reports print it.
    pub fn target_info(&self) -> TargetInfo {
        let mut t = TargetInfo::of(&self.target);
        t.rocm_explicit = self.rocm_explicit;
        t.offload_arch = self.offload_arch.clone();
        if let Some(c) = &self.config {
            t.config = shown_path(&c.file);
        }
        t
    }

    /// Whether the project's rule levels and suppressions keep a finding (the accepted items
    /// change a finding's status; [`Settings::apply`] does that on a whole report).
    pub fn keeps(&self, f: &Finding) -> bool {
        self.rules.keeps(&f.rule)
            && self
                .config
                .as_ref()
                .is_none_or(|c| c.keeps(f, self.config_prefix.as_deref()))
    }

    /// [`Settings::keeps`] as an owned predicate, for work that outlives a borrow (the
    /// `--annotate` filter).
    pub fn keeper(&self) -> impl Fn(&Finding) -> bool + Send + Sync + 'static {
        // `Config` holds compiled globs and is not `Clone`: read the same file again.
        let config = self
            .config
            .as_ref()
            .and_then(|c| config::load(&c.file).ok());
        let prefix = self.config_prefix.clone();
        let rules = self.rules.clone();
        move |f| {
            rules.keeps(&f.rule)
                && config
                    .as_ref()
                    .is_none_or(|c| c.keeps(f, prefix.as_deref()))
        }
    }

    /// Applies `--select`/`--ignore`, rule levels, suppressions and accepted items to a report.
    pub fn apply(&self, report: Report) -> Report {
        let report = if self.rules.is_empty() {
            report
        } else {
            let before = report.findings.len();
            let findings: Vec<Finding> = report
                .findings
                .iter()
                .filter(|f| self.rules.keeps(&f.rule))
                .cloned()
                .collect();
            let mut out = Report::new(report.target.clone(), findings, report.errors.clone());
            out.summary.files_scanned = report.summary.files_scanned;
            out.summary.translated_names = report.summary.translated_names;
            out.summary.parse_errors_files = report.summary.parse_errors_files;
            out.summary.suppressed = report.summary.suppressed + before - out.findings.len();
            out.decisions = report.decisions;
            out.sources = report.sources;
            out
        };
        let mut report = match &self.config {
            Some(c) => c.apply(report, self.config_prefix.as_deref()),
            None => report,
        };
        report.display_root = self.display_root();
        report
    }

    /// What text and concise output put before a root-relative finding path so that a terminal
    /// here can open it: the one root as it was given (`../proj`), or `None` for `.`, for a
    /// file's own directory given as `.`, and for several roots (their paths already name the
    /// root, see [`crate::walk::walk`]). Fingerprints, baselines, JSON and SARIF keep the
    /// root-relative path, so they do not change with the directory hipport runs in.
    pub fn display_root(&self) -> Option<String> {
        if self.paths.len() != 1 {
            return None;
        }
        let root = root_of(&self.paths[0]);
        let shown = crate::walk::rel_string(&root);
        let shown = shown
            .trim_start_matches("./")
            .trim_end_matches('/')
            .to_string();
        (!shown.is_empty() && shown != "." && !root.as_os_str().is_empty()).then(|| {
            if root.is_absolute() {
                root.display().to_string().trim_end_matches('/').to_string()
            } else {
                shown
            }
        })
    }
}

/// A path as a person at this terminal can open it: relative to the current directory when it
/// lies below it, else as it is.
fn shown_path(p: &Path) -> String {
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize);
    let p_abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    match cwd.as_ref().map(|c| p_abs.strip_prefix(c)) {
        Ok(Ok(rel)) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => p.display().to_string(),
    }
}

/// The directory that finding paths are relative to: the path itself, or a file's directory.
pub fn root_of(p: &Path) -> PathBuf {
    if p.is_file() {
        p.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    } else {
        p.to_path_buf()
    }
}

/// The scanned root relative to the configuration's directory, `/`-separated.
fn prefix(c: &Config, scanned: &Path) -> Option<String> {
    let dir = c.file.parent()?.canonicalize().ok()?;
    let root = root_of(scanned).canonicalize().ok()?;
    let rel = root.strip_prefix(&dir).ok()?;
    Some(crate::walk::rel_string(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(toml: Option<&str>, record: Option<&str>) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join(".git")).unwrap();
        if let Some(t) = toml {
            std::fs::write(d.path().join(config::FILE_NAME), t).unwrap();
        }
        if let Some(r) = record {
            std::fs::write(d.path().join(crate::record::FILE_NAME), r).unwrap();
        }
        d
    }

    fn req(d: &Path) -> Request {
        Request {
            paths: vec![d.to_path_buf()],
            use_record: true,
            ..Default::default()
        }
    }

    #[test]
    fn default_is_the_newest_release_in_the_table() {
        let d = tree(None, None);
        let s = Settings::resolve_quiet(&req(d.path())).unwrap();
        assert_eq!(s.rocm_source, Source::Default);
        let newest = *crate::record::target::rocm_releases().last().unwrap();
        assert_eq!(s.target.rocm, newest);
        assert!(crate::record::target::rocm_releases()
            .iter()
            .all(|v| *v <= s.target.rocm));
        assert!(!s.rocm_explicit);
    }

    #[test]
    fn flag_over_config_over_record() {
        let rec = "schema_version = 1\n[target]\nrocm = \"6.1.2\"\ngfx = \"gfx942\"\n";
        let d = tree(
            Some("[target]\nrocm = \"5.2.0\"\noffload_arch = [\"gfx90a\"]\n"),
            Some(rec),
        );
        let mut r = req(d.path());
        let s = Settings::resolve_quiet(&r).unwrap();
        assert_eq!(
            (s.target.rocm.to_string(), s.rocm_source),
            ("5.2.0".into(), Source::Config)
        );
        assert_eq!(s.offload_arch, ["gfx90a"]);
        assert!(s.rocm_explicit);
        r.rocm = Some("6.2".into());
        let s = Settings::resolve_quiet(&r).unwrap();
        assert_eq!(
            (s.target.rocm.to_string(), s.rocm_source),
            ("6.2".into(), Source::Flag)
        );
        assert!(!s.rocm_explicit);
        r.rocm = None;
        r.no_config = true;
        let s = Settings::resolve_quiet(&r).unwrap();
        assert_eq!(
            (s.target.rocm.to_string(), s.rocm_source),
            ("6.1.2".into(), Source::Record)
        );
        assert_eq!(s.offload_arch, ["gfx942"]);
        r.use_record = false;
        let s = Settings::resolve_quiet(&r).unwrap();
        assert_eq!(s.rocm_source, Source::Default);
        assert!(s.offload_arch.is_empty());
    }

    #[test]
    fn config_globs_apply_only_without_flags() {
        let d = tree(Some("[paths]\nexclude = [\"third_party/**\"]\n"), None);
        let mut r = req(d.path());
        assert_eq!(
            Settings::resolve_quiet(&r).unwrap().walk.exclude,
            ["third_party/**"]
        );
        r.walk.exclude = vec!["gen/**".into()];
        assert_eq!(
            Settings::resolve_quiet(&r).unwrap().walk.exclude,
            ["gen/**"]
        );
    }

    #[test]
    fn unknown_release_lines_are_named_with_their_source() {
        let v: Version = "9.9".parse().unwrap();
        let w = unknown_release_warning(&v, Source::Config).unwrap();
        assert!(
            w.contains("ROCm 9.9 (hipport.toml) is not a release line"),
            "{w}"
        );
        assert!(unknown_release_warning(&default_rocm(), Source::Default).is_none());
        let d = tree(Some("[target]\nrocm = \"latest\"\n"), None);
        let e = Settings::resolve_quiet(&req(d.path()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("target.rocm"), "{e}");
    }
}
