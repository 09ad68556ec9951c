//! The finding vocabulary shared by every analysis and every renderer.
//!
//! A finding is one reviewable item: where it is, what rule raised it, its gate status and the
//! phase where it would surface, the reason and a suggested fix. Category names are a contract
//! with users' scripts and CI: add new ones, never rename.

use crate::gate::{Phase, Status};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

crate::vocabulary! {
    /// What kind of porting problem a finding is: the words of `category` in every report.
    pub enum Category {
        WarpSize = "warp-size",
        InlineAsm = "inline-asm",
        VersionCheck = "version-check",
        ArchCheck = "arch-check",
        DriverApi = "driver-api",
        UnsupportedApi = "unsupported-api",
        DeprecatedApi = "deprecated-api",
        Library = "library",
        DeviceFeature = "device-feature",
        // Non-source inventory (issue 5).
        FrameworkNamespace = "framework-namespace",
        PythonPackage = "python-package",
        NativeExtension = "native-extension",
        BuildSystem = "build-system",
        Container = "container",
        Deployment = "deployment",
        Monitoring = "monitoring",
        Distributed = "distributed",
        BinaryDependency = "binary-dependency",
        PtxArtifact = "ptx-artifact",
        /// What the tool could not check (a file whose parse was abandoned).
        Coverage = "coverage",
    }
}

crate::vocabulary! {
    /// A finding compared with a baseline (`check`): SARIF `baselineState` words.
    pub enum BaselineState {
        New = "new",
        Unchanged = "unchanged",
    }
}

crate::vocabulary! {
    /// What a person decided about an item in `hipport.toml` (`[[accept]] status = …`).
    pub enum DecisionKind {
        Blocker = "BLOCKER",
        Accepted = "ACCEPTED",
    }
}

/// A rule's stable identity: a code that is never reused and a short kebab-case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RuleId {
    pub code: &'static str,
    pub name: &'static str,
}

/// A 1-based position. Columns count Unicode scalar values (SARIF `unicodeCodePoints`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Rule code, e.g. `HP101`.
    pub rule: String,
    /// Rule short name, e.g. `warp-size-literal`.
    pub rule_name: String,
    pub category: Category,
    pub status: Status,
    pub phase: Phase,
    /// Path relative to the root given on the command line, `/`-separated.
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub suggestion: Option<String>,
    /// A replacement that fixes the flagged range mechanically, where one is known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fix: Option<String>,
    /// Stable across runs and independent of line numbers: rule, path and normalised code.
    pub fingerprint: String,
    /// Byte range in the file (not serialised: renderers that need the text read it).
    #[serde(skip)]
    pub byte_range: (usize, usize),
    /// The flagged code, whitespace collapsed and cut short, for baselines (not serialised).
    #[serde(skip)]
    pub excerpt: String,
    /// New or unchanged against the baseline, when `check` compared one: `baseline_state` in
    /// JSON (SARIF's `baselineState` words), absent without a baseline.
    #[serde(
        rename = "baseline_state",
        skip_serializing_if = "Option::is_none",
        skip_deserializing
    )]
    pub baseline: Option<BaselineState>,
    /// The finding that holds this one's decision, when a project-wide or per-folder decision
    /// folded it (its status is then PASS naming that finding). A baseline still counts it: a
    /// new use of an accepted decision is new for `check`, which reopens it with its own status.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub folded_into: Option<Folded>,
    /// How many findings a decision folded into this one (0 for a finding that holds none):
    /// views for people list decisions before single lines of the same weight.
    #[serde(skip_serializing_if = "is_zero", default)]
    pub holds: u32,
    /// Whether this finding heads a decision about code the project's build sets aside (a folder
    /// no build file compiles, one the project marks as not maintained, headers nothing
    /// includes, a generator's output): views for people list it after the product's own code.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub set_aside: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Where a folded finding's decision is held, and the status it had before folding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Folded {
    /// `path:line` of the finding that holds the decision.
    pub at: String,
    /// The finding's own status before it was folded.
    pub status: Status,
}

impl Folded {
    /// Folds `f` into the finding at `at`: PASS, remembering its own status.
    pub fn fold(f: &mut Finding, at: String) {
        f.folded_into = Some(Folded {
            at,
            status: f.status,
        });
        f.status = Status::Pass;
    }
}

/// How many characters of flagged code a finding's excerpt keeps.
pub const EXCERPT_CHARS: usize = 80;

/// The flagged code with runs of whitespace collapsed, cut to a readable length.
pub fn excerpt(code: &[u8]) -> String {
    let text = String::from_utf8_lossy(code);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > EXCERPT_CHARS {
        let cut: String = flat.chars().take(EXCERPT_CHARS).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// A file that could not be analysed, with the reason.
#[derive(Clone, Debug, Serialize)]
pub struct FileError {
    pub path: String,
    pub error: String,
}

#[cfg(test)]
impl Finding {
    /// A bare finding for tests of passes that fold or re-status findings: `rule` at `path`
    /// line `line`, REMEDIATION, category `library`, phase `BUILD`, byte range `0..1`. Tests set
    /// the fields they care about with struct-update syntax.
    pub fn bare(rule: &str, path: &str, line: u32) -> Finding {
        Finding {
            rule: rule.into(),
            rule_name: "x".into(),
            category: Category::Library,
            status: crate::gate::Status::Remediation,
            phase: crate::gate::Phase::Build,
            path: path.into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            message: String::new(),
            suggestion: None,
            fix: None,
            fingerprint: String::new(),
            byte_range: (0, 1),
            excerpt: String::new(),
            baseline: None,
            folded_into: None,
            holds: 0,
            set_aside: false,
        }
    }
}

impl Finding {
    /// Settles the finding as nothing to do: PASS, `why` appended to its message (say what
    /// the model knows that makes it so), no suggestion.
    pub fn settle(&mut self, why: &str) {
        self.status = crate::gate::Status::Pass;
        self.message.push_str(why);
        self.suggestion = None;
    }

    /// The one-line text form: `path:line:col: RULE category [STATUS/PHASE] message`.
    pub fn one_line(&self) -> String {
        format!(
            "{}:{}:{}: {} {} [{}/{}] {}",
            self.path,
            self.line,
            self.column,
            self.rule,
            self.category,
            self.status,
            self.phase,
            self.message
        )
    }

    pub fn sort_key(&self) -> (&str, u32, u32, &str, &str) {
        (
            &self.path,
            self.line,
            self.column,
            &self.rule,
            &self.message,
        )
    }
}

/// The line-independent fingerprint: SHA-256 over the rule code, the relative path and the
/// flagged code with all whitespace removed, truncated to 16 hex digits. Inserting lines above a
/// finding or re-indenting it keeps the fingerprint; two identical constructs in one file share
/// it (baselines match them as a multiset).
pub fn fingerprint(rule: &str, path: &str, code: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(rule.as_bytes());
    h.update([0]);
    h.update(path.as_bytes());
    h.update([0]);
    for &b in code {
        if !b.is_ascii_whitespace() {
            h.update([b]);
        }
    }
    let out = h.finalize();
    out[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// A decision a person recorded about an item (`[[accept]]` in `hipport.toml`): it is a BLOCKER,
/// or it is accepted as it is. Analysis never makes one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub decision: DecisionKind,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub by: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_whitespace_not_path_or_rule() {
        let a = fingerprint("HP101", "a.cu", b"x % 32");
        assert_eq!(a, fingerprint("HP101", "a.cu", b"x  %\t32"));
        assert_ne!(a, fingerprint("HP102", "a.cu", b"x % 32"));
        assert_ne!(a, fingerprint("HP101", "b.cu", b"x % 32"));
        assert_eq!(a.len(), 16);
    }

    #[test]
    fn category_names_round_trip() {
        for c in Category::ALL {
            assert_eq!(Category::parse(c.as_str()), Some(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.as_str()));
        }
    }
}
