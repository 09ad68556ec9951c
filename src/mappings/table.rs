//! One generated mapping table: the row type shared by the loader and `cargo xtask mappings`,
//! and its tab-separated text form.
//!
//! The text form is diffable and stable: one row per CUDA name, sorted, fixed columns, empty
//! cells for unknown values. `#` lines are comments.

use crate::version::Version;
use std::fmt::Write as _;

/// The library families of the HIPIFY tables, one generated file each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Runtime,
    Driver,
    Device,
    Complex,
    Rtc,
    Blas,
    Sparse,
    Solver,
    Rand,
    Fft,
    Dnn,
    Cub,
    /// cuTENSOR → hipTENSOR.
    Tensor,
    /// cuSPARSELt → hipSPARSELt.
    SparseLt,
    /// cuFile (GPUDirect Storage) → hipFile.
    File,
}

impl Family {
    pub const ALL: [Family; 15] = [
        Family::Runtime,
        Family::Driver,
        Family::Device,
        Family::Complex,
        Family::Rtc,
        Family::Blas,
        Family::Sparse,
        Family::Solver,
        Family::Rand,
        Family::Fft,
        Family::Dnn,
        Family::Cub,
        Family::Tensor,
        Family::SparseLt,
        Family::File,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Runtime => "runtime",
            Family::Driver => "driver",
            Family::Device => "device",
            Family::Complex => "complex",
            Family::Rtc => "rtc",
            Family::Blas => "blas",
            Family::Sparse => "sparse",
            Family::Solver => "solver",
            Family::Rand => "rand",
            Family::Fft => "fft",
            Family::Dnn => "dnn",
            Family::Cub => "cub",
            Family::Tensor => "tensor",
            Family::SparseLt => "sparselt",
            Family::File => "file",
        }
    }
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == s)
    }
    /// Families whose tables carry a ROC column (rocBLAS, rocSPARSE, rocSOLVER, rocRAND, MIOpen).
    pub fn has_roc(self) -> bool {
        matches!(
            self,
            Family::Blas | Family::Sparse | Family::Solver | Family::Rand | Family::Dnn
        )
    }
}

/// What a CUDA name is, as far as the table's section tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Function,
    Type,
    Enum,
    Macro,
    Unknown,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Type => "type",
            Kind::Enum => "enum",
            Kind::Macro => "macro",
            Kind::Unknown => "unknown",
        }
    }
    pub fn parse(s: &str) -> Option<Kind> {
        [
            Kind::Function,
            Kind::Type,
            Kind::Enum,
            Kind::Macro,
            Kind::Unknown,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// Added / deprecated / changed / removed versions and the experimental flag of one column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Versions {
    pub added: Option<Version>,
    pub deprecated: Option<Version>,
    pub changed: Option<Version>,
    pub removed: Option<Version>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub cuda: String,
    pub kind: Kind,
    /// The HIPIFY section title, e.g. `Device Management`.
    pub section: String,
    pub cuda_versions: Versions,
    /// The HIP name; `None` when HIP has no equivalent (the API is un-ported).
    pub hip: Option<String>,
    pub hip_versions: Versions,
    pub hip_experimental: bool,
    /// CUDA versions for which the HIP equivalent does not hold (HIPIFY's `U` column; empty in
    /// every row of the 2025 tables, kept so a future value is not lost).
    pub hip_unsupported_cuda: Vec<Version>,
    /// The rocBLAS / rocSPARSE / rocSOLVER / rocRAND / MIOpen name, where the table gives one.
    pub roc: Option<String>,
    pub roc_versions: Versions,
    pub roc_experimental: bool,
}

pub const COLUMNS: [&str; 20] = [
    "cuda",
    "kind",
    "section",
    "cuda_added",
    "cuda_deprecated",
    "cuda_changed",
    "cuda_removed",
    "hip",
    "hip_added",
    "hip_deprecated",
    "hip_changed",
    "hip_removed",
    "hip_experimental",
    "roc",
    "roc_added",
    "roc_deprecated",
    "roc_changed",
    "roc_removed",
    "roc_experimental",
    "hip_unsupported_cuda",
];

#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct TableError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

fn opt_version(cell: &str) -> Result<Option<Version>, String> {
    if cell.is_empty() {
        Ok(None)
    } else {
        cell.parse().map(Some).map_err(|e| format!("{e}"))
    }
}

fn flag(cell: &str) -> Result<bool, String> {
    match cell {
        "" => Ok(false),
        "E" => Ok(true),
        other => Err(format!(
            "experimental flag must be empty or E, got `{other}`"
        )),
    }
}

/// Parses a generated table. `file` names it in errors.
pub fn parse_tsv(file: &str, text: &str) -> Result<Vec<Row>, TableError> {
    let mut rows = Vec::new();
    let mut header_seen = false;
    for (i, line) in text.lines().enumerate() {
        let err = |message: String| TableError {
            file: file.to_string(),
            line: i + 1,
            message,
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.split('\t').collect();
        if !header_seen {
            if cells != COLUMNS {
                return Err(err(format!("expected header `{}`", COLUMNS.join("\\t"))));
            }
            header_seen = true;
            continue;
        }
        if cells.len() != COLUMNS.len() {
            return Err(err(format!(
                "expected {} cells, found {}",
                COLUMNS.len(),
                cells.len()
            )));
        }
        let vers = |at: usize| -> Result<Versions, TableError> {
            Ok(Versions {
                added: opt_version(cells[at]).map_err(err)?,
                deprecated: opt_version(cells[at + 1]).map_err(err)?,
                changed: opt_version(cells[at + 2]).map_err(err)?,
                removed: opt_version(cells[at + 3]).map_err(err)?,
            })
        };
        let name = |c: &str| (!c.is_empty()).then(|| c.to_string());
        rows.push(Row {
            cuda: cells[0].to_string(),
            kind: Kind::parse(cells[1])
                .ok_or_else(|| err(format!("unknown kind `{}`", cells[1])))?,
            section: cells[2].to_string(),
            cuda_versions: vers(3)?,
            hip: name(cells[7]),
            hip_versions: vers(8)?,
            hip_experimental: flag(cells[12]).map_err(err)?,
            roc: name(cells[13]),
            roc_versions: vers(14)?,
            roc_experimental: flag(cells[18]).map_err(err)?,
            hip_unsupported_cuda: cells[19]
                .split(',')
                .filter(|c| !c.is_empty())
                .map(|c| c.parse().map_err(|e| err(format!("{e}"))))
                .collect::<Result<_, _>>()?,
        });
    }
    if !header_seen {
        return Err(TableError {
            file: file.to_string(),
            line: 0,
            message: "no header row".into(),
        });
    }
    Ok(rows)
}

/// Writes rows in the text form. `sources` are named in the header comment.
pub fn write_tsv(family: Family, sources: &[&str], rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# hipport mapping table `{}`: generated by `cargo xtask mappings`. Do not edit.",
        family.as_str()
    );
    let _ = writeln!(
        out,
        "# From AMD HIPIFY's API tables (MIT licence): {}",
        sources.join(", ")
    );
    out.push_str(&COLUMNS.join("\t"));
    out.push('\n');
    let v = |v: &Option<Version>| v.map(|v| v.to_string()).unwrap_or_default();
    for r in rows {
        let cells = [
            r.cuda.clone(),
            r.kind.as_str().to_string(),
            r.section.clone(),
            v(&r.cuda_versions.added),
            v(&r.cuda_versions.deprecated),
            v(&r.cuda_versions.changed),
            v(&r.cuda_versions.removed),
            r.hip.clone().unwrap_or_default(),
            v(&r.hip_versions.added),
            v(&r.hip_versions.deprecated),
            v(&r.hip_versions.changed),
            v(&r.hip_versions.removed),
            if r.hip_experimental { "E" } else { "" }.to_string(),
            r.roc.clone().unwrap_or_default(),
            v(&r.roc_versions.added),
            v(&r.roc_versions.deprecated),
            v(&r.roc_versions.changed),
            v(&r.roc_versions.removed),
            if r.roc_experimental { "E" } else { "" }.to_string(),
            r.hip_unsupported_cuda
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(","),
        ];
        out.push_str(&cells.join("\t"));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let row = Row {
            cuda: "cudaMalloc".into(),
            kind: Kind::Function,
            section: "Memory Management".into(),
            cuda_versions: Versions::default(),
            hip: Some("hipMalloc".into()),
            hip_versions: Versions {
                added: Some("1.5.0".parse().unwrap()),
                ..Default::default()
            },
            hip_experimental: false,
            roc: None,
            roc_versions: Versions::default(),
            roc_experimental: false,
            hip_unsupported_cuda: vec!["12.0".parse().unwrap(), "12.1".parse().unwrap()],
        };
        let text = write_tsv(Family::Runtime, &["x.md"], std::slice::from_ref(&row));
        let back = parse_tsv("runtime.tsv", &text).unwrap();
        assert_eq!(back, vec![row]);
    }

    #[test]
    fn bad_cell_names_file_and_line() {
        let text = format!("{}\nx\tfunction\n", COLUMNS.join("\t"));
        let e = parse_tsv("t.tsv", &text).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("t.tsv:2:"));
    }
}
