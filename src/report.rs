//! The one sorted report that every renderer takes, and their only input: tool, exact target,
//! findings (with their baseline state when `check` compared one), summary, the gate board the
//! findings support, the baseline comparison and the contents of the files with findings (for
//! text excerpts).
//!
//! JSON schema: `docs/report-schema.md` (versioned by `schema_version`); the baseline
//! comparison and file contents are not part of it.

use crate::baseline::Entry;
use crate::finding::{BaselineState, Category, Decision, Finding};
use crate::gate::Status;
use crate::mappings::Target;
use serde::Serialize;
use std::collections::BTreeMap;

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize)]
pub struct ToolInfo {
    pub name: &'static str,
    pub version: &'static str,
}

impl Default for ToolInfo {
    fn default() -> Self {
        ToolInfo {
            name: "hipport",
            version: env!("CARGO_PKG_VERSION"),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TargetInfo {
    pub rocm: String,
    pub roc: bool,
    pub experimental: bool,
    /// The ROCm release was named in full (`X.Y.Z`) by a flag or `hipport.toml`, not defaulted.
    #[serde(default)]
    pub rocm_explicit: bool,
    /// GPU architectures from configuration, e.g. `gfx90a`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub offload_arch: Vec<String>,
    /// The configuration in effect: the `hipport.toml` read (as named on the command line or
    /// found above the first path), or `none`. Printed in every header so a parent directory's
    /// file cannot silently change what was scanned.
    #[serde(default = "no_config")]
    pub config: String,
}

fn no_config() -> String {
    "none".into()
}

impl TargetInfo {
    pub fn of(t: &Target) -> Self {
        TargetInfo {
            rocm: t.rocm.to_string(),
            roc: t.roc,
            experimental: t.experimental,
            rocm_explicit: false,
            offload_arch: Vec::new(),
            config: no_config(),
        }
    }
    /// One line for report headers: `ROCm 6.2.0 (hip* libraries)`.
    pub fn describe(&self) -> String {
        let mut s = format!("ROCm {}", self.rocm);
        s.push_str(if self.roc {
            " (roc* libraries)"
        } else {
            " (hip* libraries)"
        });
        if !self.offload_arch.is_empty() {
            s.push_str(&format!(", {}", self.offload_arch.join(",")));
        }
        s
    }
    /// The target and the configuration in effect, for report headers.
    pub fn describe_with_config(&self) -> String {
        format!("{}; config {}", self.describe(), self.config)
    }
}

pub use crate::finding::FileError;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub files_scanned: usize,
    pub files_with_findings: usize,
    /// Findings by status (PASS here counts PASS findings).
    pub by_status: BTreeMap<String, usize>,
    pub by_category: BTreeMap<String, usize>,
    /// CUDA names translated one-to-one (not findings, but PASS items of the inventory).
    pub translated_names: usize,
    /// Findings suppressed in code (`// hipport: allow(HPxxx) reason`) or by configuration.
    pub suppressed: usize,
    pub parse_errors_files: usize,
    /// Distinct facts among the non-PASS findings: repeats of one fact in a file, and one
    /// dependency named by several manifests, count once.
    pub open_facts: usize,
}

/// File contents by report path (the findings' `path`).
pub type Sources = BTreeMap<String, Vec<u8>>;

/// The port the scan made of each source file it changed or found something in, by report
/// path: (input, output). Kept only when asked ([`crate::scan::scan_keeping_port`]), for the
/// HTML page's diff view, so the page never translates the tree a second time.
pub type Ported = BTreeMap<String, (Vec<u8>, Vec<u8>)>;

/// What a baseline comparison found besides each finding's state.
#[derive(Clone, Debug, Default)]
pub struct BaselineSummary {
    /// The baseline file, as named to the user.
    pub file: String,
    pub new: usize,
    pub unchanged: usize,
    /// Baseline entries (with the missing count) no longer found.
    pub fixed: Vec<Entry>,
}

impl BaselineSummary {
    pub fn fixed_count(&self) -> usize {
        self.fixed
            .iter()
            .fold(0usize, |t, e| t.saturating_add(e.count))
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub tool: ToolInfo,
    pub target: TargetInfo,
    pub findings: Vec<Finding>,
    pub summary: Summary,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FileError>,
    /// Decisions a person recorded in `hipport.toml`, by finding fingerprint.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub decisions: BTreeMap<String, Decision>,
    /// The project's gate board ([`crate::board`]: the one `hipport gate` prints), attached by
    /// the scan once it is complete; [`Report::new`] gives the board of the report alone.
    pub board: crate::verdict::Board,
    /// The baseline comparison, when `check` made one.
    #[serde(skip)]
    pub baseline: Option<BaselineSummary>,
    /// Contents of the files with findings, for text excerpts.
    #[serde(skip)]
    pub sources: Sources,
    /// The port of the scanned sources, when the scan kept it (the HTML page).
    #[serde(skip)]
    pub ported: Option<Ported>,
    /// Show PASS findings in the views for people (text); `--show-pass`.
    #[serde(skip)]
    pub show_pass: bool,
    /// The root as given on the command line, put before finding paths in the views for
    /// people (text, concise) so a terminal can open them; see
    /// [`crate::settings::Settings::display_root`].
    #[serde(skip)]
    pub display_root: Option<String>,
}

impl Report {
    /// A finding path as the views for people show it: below the root as it was given.
    pub fn shown_path(&self, path: &str) -> String {
        match &self.display_root {
            Some(root) => format!("{root}/{path}"),
            None => path.to_string(),
        }
    }
}

impl Report {
    pub fn new(target: TargetInfo, mut findings: Vec<Finding>, errors: Vec<FileError>) -> Report {
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let mut summary = Summary::default();
        for s in Status::ALL {
            summary.by_status.insert(s.as_str().to_string(), 0);
        }
        for f in &findings {
            *summary
                .by_status
                .entry(f.status.as_str().to_string())
                .or_default() += 1;
            *summary
                .by_category
                .entry(f.category.as_str().to_string())
                .or_default() += 1;
        }
        let mut paths: Vec<&str> = findings.iter().map(|f| f.path.as_str()).collect();
        paths.dedup();
        summary.files_with_findings = paths.len();
        summary.open_facts = crate::rules::facts::open_facts(&findings);
        let mut r = Report {
            schema_version: SCHEMA_VERSION,
            tool: ToolInfo::default(),
            target,
            findings,
            summary,
            errors,
            decisions: BTreeMap::new(),
            board: crate::verdict::Board::default(),
            baseline: None,
            sources: Sources::new(),
            ported: None,
            show_pass: false,
            display_root: None,
        };
        r.board = crate::verdict::board(std::path::Path::new("."), None, Ok(&r));
        r
    }

    /// Keeps the findings `keep` accepts (`--status`, `--category`, `--rule`, `--path`) and
    /// recounts the summary of what is shown; the board stays the project's.
    pub fn retain_findings(&mut self, keep: impl Fn(&Finding) -> bool) {
        self.findings.retain(|f| keep(f));
        let s = &mut self.summary;
        for v in s.by_status.values_mut() {
            *v = 0;
        }
        s.by_category.clear();
        for f in &self.findings {
            *s.by_status
                .entry(f.status.as_str().to_string())
                .or_default() += 1;
            *s.by_category
                .entry(f.category.as_str().to_string())
                .or_default() += 1;
        }
        let mut paths: Vec<&str> = self.findings.iter().map(|f| f.path.as_str()).collect();
        paths.dedup();
        s.files_with_findings = paths.len();
        s.open_facts = crate::rules::facts::open_facts(&self.findings);
    }

    /// The board's verdict.
    pub fn verdict(&self) -> crate::board::Verdict {
        crate::board::Verdict::of(self, &self.board)
    }

    /// Whether a baseline comparison found the finding new.
    pub fn is_new(f: &Finding) -> bool {
        f.baseline == Some(BaselineState::New)
    }

    pub fn count(&self, status: Status) -> usize {
        self.findings.iter().filter(|f| f.status == status).count()
    }

    /// The recorded decision about a finding, if any.
    pub fn decision(&self, f: &Finding) -> Option<&Decision> {
        self.decisions.get(&f.fingerprint)
    }

    pub fn count_category(&self, c: Category) -> usize {
        self.findings.iter().filter(|f| f.category == c).count()
    }
}
