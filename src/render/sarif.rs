//! SARIF 2.1.0 output, as GitHub code scanning and other review tools read it, from a small
//! serde model of the parts we emit. Every result points at the rule's index in the driver's rule
//! list, carries the line-independent fingerprint as `partialFingerprints["hipport/v1"]`, and a
//! fix where the finding has a mechanical replacement. Paths are relative to `%SRCROOT%` (the
//! directory that was scanned), so the output is the same on every machine.

use crate::catalog;
use crate::finding::Finding;
use crate::gate::Status;
use crate::registry::RuleInfo;
use crate::report::Report;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Write};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The tool's home page (`tool.driver.informationUri`): none is published yet, so the field is
/// omitted (it is optional in SARIF 2.1.0) rather than filled with a made-up address.
pub const INFORMATION_URI: Option<&str> = None;
pub const FINGERPRINT_KEY: &str = "hipport/v1";
const SRCROOT: &str = "%SRCROOT%";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    pub schema: String,
    pub version: String,
    pub runs: Vec<Run>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub tool: Tool,
    pub original_uri_base_ids: BTreeMap<String, ArtifactLocation>,
    pub column_kind: String,
    pub results: Vec<SarifResult>,
    /// The target and the configuration in effect (`config`: a path, or `none`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub driver: Driver,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Driver {
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub information_uri: Option<String>,
    pub rules: Vec<Rule>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: String,
    pub name: String,
    pub short_description: Message,
    pub full_description: Message,
    pub help: Help,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub help_uri: Option<String>,
    pub default_configuration: Configuration,
    pub properties: RuleProperties,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Help {
    pub text: String,
    pub markdown: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Configuration {
    pub level: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleProperties {
    pub tags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    pub rule_id: String,
    pub rule_index: usize,
    pub level: String,
    pub message: Message,
    pub locations: Vec<Location>,
    pub partial_fingerprints: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub baseline_state: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub fixes: Vec<Fix>,
    /// An item a person accepted in `hipport.toml` (`[[accept]] status = "ACCEPTED"`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub suppressions: Vec<Suppression>,
    /// The places a decision folded into this result (each a PASS finding in JSON naming it):
    /// the same decision's other uses, so SARIF keeps every place without one result each.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub related_locations: Vec<Location>,
    pub properties: ResultProperties,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Suppression {
    /// `external`: recorded outside the source, in the project configuration.
    pub kind: String,
    pub status: String,
    pub justification: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultProperties {
    pub status: String,
    pub phase: String,
    pub category: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub decision_reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub physical_location: PhysicalLocation,
    /// Said of a related location: why it belongs to the result.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub message: Option<Message>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    pub region: Region,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub uri_base_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub description: Option<Message>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    pub description: Message,
    pub artifact_changes: Vec<ArtifactChange>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactChange {
    pub artifact_location: ArtifactLocation,
    pub replacements: Vec<Replacement>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Replacement {
    pub deleted_region: Region,
    pub inserted_content: Message,
}

/// SARIF level of a status: BLOCKER → error; REMEDIATION and UNKNOWN → warning (not verified
/// is not harmless: never a `note`); PASS → none.
pub fn level(s: Status) -> &'static str {
    match s {
        Status::Blocker => "error",
        Status::Remediation => "warning",
        Status::Unknown => "warning",
        Status::Pass => "none",
    }
}

fn rule_of(info: &RuleInfo) -> Rule {
    let mut md = format!("{}\n\n**Why:** {}\n\n", info.summary, info.why);
    md.push_str(&format!("Flagged:\n\n```cuda\n{}\n```\n\n", info.bad));
    md.push_str(&format!("After the fix:\n\n```cpp\n{}\n```\n\n", info.good));
    md.push_str(&format!("**Fix:** {}\n", info.fix));
    for r in info.references {
        md.push_str(&format!("\n- <{r}>"));
    }
    Rule {
        id: info.id.code.into(),
        name: info.id.name.into(),
        short_description: Message {
            text: info.summary.into(),
        },
        full_description: Message {
            text: format!("{} {}", info.summary, info.why),
        },
        help: Help {
            text: format!("{} Fix: {}", info.why, info.fix),
            markdown: md,
        },
        help_uri: info.references.first().map(|s| s.to_string()),
        default_configuration: Configuration {
            level: level(info.status).into(),
        },
        properties: RuleProperties {
            tags: vec![info.category.as_str().into(), "rocm-migration".into()],
        },
    }
}

/// A rule seen in a finding but not in the registry (kept so `ruleIndex` stays valid).
fn rule_unregistered(f: &Finding) -> Rule {
    Rule {
        id: f.rule.clone(),
        name: f.rule_name.clone(),
        short_description: Message {
            text: f.rule_name.clone(),
        },
        full_description: Message {
            text: f.rule_name.clone(),
        },
        help: Help {
            text: format!("See `hipport explain {}`.", f.rule),
            markdown: format!("See `hipport explain {}`.", f.rule),
        },
        help_uri: None,
        default_configuration: Configuration {
            level: level(f.status).into(),
        },
        properties: RuleProperties {
            tags: vec![f.category.as_str().into()],
        },
    }
}

/// Percent-encodes a relative path for a URI reference (keeps `/` and RFC 3986 unreserved bytes).
pub fn uri_path(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

fn artifact(path: &str) -> ArtifactLocation {
    ArtifactLocation {
        uri: Some(uri_path(path)),
        uri_base_id: Some(SRCROOT.into()),
        description: None,
    }
}

/// Builds the SARIF log; a baseline comparison sets each result's `baselineState`.
pub fn build(r: &Report) -> Log {
    let mut rules: Vec<Rule> = catalog::all().iter().copied().map(rule_of).collect();
    let mut results = Vec::new();
    let region_of = |f: &crate::finding::Finding| Region {
        start_line: f.line.max(1),
        start_column: f.column.max(1),
        end_line: f.end_line.max(f.line).max(1),
        end_column: f.end_column.max(1),
    };
    // The folded uses of each decision, by the `path:line` of the finding that holds it.
    let mut folded: BTreeMap<String, Vec<Location>> = BTreeMap::new();
    for f in r.findings.iter().filter(|f| f.status == Status::Pass) {
        if let Some(at) = &f.folded_into {
            folded.entry(at.at.clone()).or_default().push(Location {
                physical_location: PhysicalLocation {
                    artifact_location: artifact(&f.path),
                    region: region_of(f),
                },
                message: Some(Message {
                    text: format!(
                        "{} ({}, folded into this result)",
                        f.rule,
                        at.status.as_str()
                    ),
                }),
            });
        }
    }
    for f in &r.findings {
        if f.status == Status::Pass && r.decision(f).is_none() {
            continue;
        }
        let rule_index = match rules.iter().position(|x| x.id == f.rule) {
            Some(i) => i,
            None => {
                rules.push(rule_unregistered(f));
                rules.len() - 1
            }
        };
        let region = region_of(f);
        let fixes = f
            .fix
            .iter()
            .map(|text| Fix {
                description: Message {
                    text: format!("Replace with `{text}`"),
                },
                artifact_changes: vec![ArtifactChange {
                    artifact_location: artifact(&f.path),
                    replacements: vec![Replacement {
                        deleted_region: region,
                        inserted_content: Message { text: text.clone() },
                    }],
                }],
            })
            .collect();
        let decision = r.decision(f);
        let mut text = f.message.clone();
        if let Some(s) = &f.suggestion {
            text.push_str(&format!(". Suggested: {s}"));
        }
        if let Some(d) = decision {
            text.push_str(&format!(" [{}: {}]", d.decision, d.reason));
        }
        results.push(SarifResult {
            rule_id: f.rule.clone(),
            rule_index,
            level: level(f.status).into(),
            message: Message { text },
            locations: vec![Location {
                physical_location: PhysicalLocation {
                    artifact_location: artifact(&f.path),
                    region,
                },
                message: None,
            }],
            related_locations: if f.status == Status::Pass {
                Vec::new()
            } else {
                folded
                    .remove(&format!("{}:{}", f.path, f.line))
                    .unwrap_or_default()
            },
            partial_fingerprints: BTreeMap::from([(
                FINGERPRINT_KEY.to_string(),
                f.fingerprint.clone(),
            )]),
            baseline_state: f.baseline.map(|s| s.as_str().into()),
            fixes,
            suppressions: decision
                .filter(|d| d.decision == crate::finding::DecisionKind::Accepted)
                .map(|d| Suppression {
                    kind: "external".into(),
                    status: "accepted".into(),
                    justification: d.reason.clone(),
                })
                .into_iter()
                .collect(),
            properties: ResultProperties {
                status: f.status.as_str().into(),
                phase: f.phase.as_str().into(),
                category: f.category.as_str().into(),
                decision_reason: decision.map(|d| d.reason.clone()),
            },
        });
    }
    Log {
        schema: SCHEMA.into(),
        version: "2.1.0".into(),
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: r.tool.name.into(),
                    version: r.tool.version.into(),
                    information_uri: INFORMATION_URI.map(str::to_string),
                    rules,
                },
            },
            original_uri_base_ids: BTreeMap::from([(
                SRCROOT.to_string(),
                ArtifactLocation {
                    uri: None,
                    uri_base_id: None,
                    description: Some(Message {
                        text: "The directory given to hipport".into(),
                    }),
                },
            )]),
            column_kind: "unicodeCodePoints".into(),
            results,
            properties: BTreeMap::from([
                ("target".to_string(), r.target.describe()),
                ("config".to_string(), r.target.config.clone()),
            ]),
        }],
    }
}

pub fn write(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, &build(r))?;
    writeln!(w)
}
