//! Reading HIPIFY's Markdown tables: header columns mapped by label, names and versions parsed
//! per cell, each bad cell an error naming file and line.

use hipport::mappings::table::{TableError, Versions};
use hipport::version::Version;

/// One column group of a row (`HIP`, `ROC`, `MIOPEN`): a name and its versions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Column {
    pub name: Option<String>,
    pub versions: Versions,
    pub experimental: bool,
    /// The version an `E` cell gives, when it gives one.
    pub experimental_in: Option<Version>,
    /// The `U` cell ("unsupported for CUDA versions", newer HIPIFY files only): the CUDA
    /// versions for which this equivalent does not hold, as written (`12.0, 12.1`).
    pub unsupported_cuda: Vec<Version>,
}

/// One data row of a HIPIFY table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MdRow {
    pub line: usize,
    pub section: String,
    pub cuda: String,
    pub cuda_versions: Versions,
    /// The non-CUDA groups by header label (`HIP`, `ROC`, `MIOPEN`), in header order.
    pub groups: Vec<(String, Column)>,
}

impl MdRow {
    pub fn group(&self, label: &str) -> Option<&Column> {
        self.groups.iter().find(|(l, _)| l == label).map(|(_, c)| c)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Name,
    Added,
    Deprecated,
    Changed,
    Removed,
    Unsupported,
    Experimental,
}

/// A table header: for each cell, its group index and field.
pub(crate) struct Header {
    line: usize,
    labels: Vec<String>,
    slots: Vec<(usize, Field)>,
}

pub(crate) fn split_cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').collect())
}

pub(crate) fn parse_header(line: usize, text: &str) -> Result<Header, String> {
    let cells = split_cells(text).ok_or("table row must start and end with `|`")?;
    let mut labels: Vec<String> = Vec::new();
    let mut slots = Vec::new();
    for cell in cells {
        let label = cell.trim().trim_matches('*').trim();
        let field = match label {
            "A" => Field::Added,
            "D" => Field::Deprecated,
            "C" => Field::Changed,
            "R" => Field::Removed,
            "U" => Field::Unsupported,
            "E" => Field::Experimental,
            "" => return Err("empty header cell".into()),
            group => {
                if labels.iter().any(|l| l == group) {
                    return Err(format!(
                        "column group `{group}` appears twice in the header"
                    ));
                }
                labels.push(group.to_string());
                Field::Name
            }
        };
        let Some(group) = labels.len().checked_sub(1) else {
            return Err(format!(
                "header column `{label}` comes before any name column"
            ));
        };
        if field != Field::Name && slots.contains(&(group, field)) {
            return Err(format!(
                "column `{label}` appears twice in group `{}`",
                labels[group]
            ));
        }
        slots.push((group, field));
    }
    if labels.first().map(String::as_str) != Some("CUDA") {
        return Err("the first header column must be `CUDA`".into());
    }
    Ok(Header {
        line,
        labels,
        slots,
    })
}

pub(crate) fn parse_name(cell: &str) -> Result<Option<String>, String> {
    let cell = cell.trim();
    if cell.is_empty() {
        return Ok(None);
    }
    let ticks = cell.matches('`').count();
    if ticks > 2 {
        return Err(format!("cell `{cell}` holds several names"));
    }
    let name = cell
        .strip_prefix('`')
        .and_then(|c| c.strip_suffix('`'))
        .ok_or_else(|| format!("name cell `{cell}` is not one backticked name"))?
        .trim();
    if name.is_empty() || name.contains(['\t', '`']) {
        return Err(format!("name cell `{cell}` is not one backticked name"));
    }
    Ok(Some(name.to_string()))
}

pub(crate) fn parse_version(cell: &str) -> Result<Option<Version>, String> {
    let cell = cell.trim();
    if cell.is_empty() {
        return Ok(None);
    }
    // cuTENSOR writes its versions with a fourth part (`2.0.0.0`); it is 0 in every row, so
    // `X.Y.Z.0` reads as `X.Y.Z`. A non-zero fourth part would lose information: an error.
    let cell = match cell.strip_suffix(".0") {
        Some(three) if three.matches('.').count() == 2 => three,
        _ => cell,
    };
    cell.parse().map(Some).map_err(|e| format!("{e}"))
}

/// A `U` cell: empty, or CUDA versions separated by `,` (spaces allowed).
pub(crate) fn parse_unsupported(cell: &str) -> Result<Vec<Version>, String> {
    cell.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|c| {
            c.parse()
                .map_err(|e| format!("unsupported-CUDA cell `{}`: {e}", cell.trim()))
        })
        .collect()
}

/// `(experimental, version it names)`.
pub(crate) fn parse_experimental(cell: &str) -> Result<(bool, Option<Version>), String> {
    match cell.trim() {
        "" => Ok((false, None)),
        "E" | "e" | "+" | "x" | "X" | "yes" | "Yes" => Ok((true, None)),
        other => other.parse().map(|v| (true, Some(v))).map_err(|_| {
            format!("experimental cell must be empty, `E`, `+` or a version, got `{other}`")
        }),
    }
}

pub(crate) fn section_title(text: &str) -> String {
    let t = text.trim_start_matches('#').trim().trim_matches('*').trim();
    // `N. Title` → `Title`
    match t.split_once(". ") {
        Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            rest.trim().to_string()
        }
        _ => t.to_string(),
    }
}

/// Parses every table row of one HIPIFY Markdown file. `file` names it in errors.
pub fn parse_markdown(file: &str, text: &str) -> Result<Vec<MdRow>, TableError> {
    let mut rows = Vec::new();
    let mut section: Option<String> = None;
    let mut header: Option<Header> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |message: String| TableError {
            file: file.to_string(),
            line,
            message,
        };
        let t = raw.trim();
        if t.starts_with("## ") {
            section = Some(section_title(t));
            header = None;
            continue;
        }
        if !t.starts_with('|') {
            // Titles, blank lines, the `*A - Added; ...` footnote: a table ends here.
            header = None;
            continue;
        }
        let Some(h) = &header else {
            if section.is_none() {
                return Err(err("table before any `## ` section title".into()));
            }
            header = Some(parse_header(line, t).map_err(err)?);
            continue;
        };
        let cells =
            split_cells(t).ok_or_else(|| err("table row must start and end with `|`".into()))?;
        if cells.len() != h.slots.len() {
            return Err(err(format!(
                "expected {} cells as in the header on line {}, found {}",
                h.slots.len(),
                h.line,
                cells.len()
            )));
        }
        if cells
            .iter()
            .all(|c| !c.trim().is_empty() && c.trim().chars().all(|ch| matches!(ch, ':' | '-')))
        {
            continue; // alignment row
        }
        let mut names: Vec<Option<String>> = vec![None; h.labels.len()];
        let mut cols: Vec<Column> = vec![Column::default(); h.labels.len()];
        for (cell, &(g, field)) in cells.iter().zip(&h.slots) {
            let at = |m: String| err(format!("{} {:?}: {m}", h.labels[g], field));
            let c = &mut cols[g];
            match field {
                Field::Name => names[g] = parse_name(cell).map_err(at)?,
                Field::Added => c.versions.added = parse_version(cell).map_err(at)?,
                Field::Deprecated => c.versions.deprecated = parse_version(cell).map_err(at)?,
                Field::Changed => c.versions.changed = parse_version(cell).map_err(at)?,
                Field::Removed => c.versions.removed = parse_version(cell).map_err(at)?,
                Field::Unsupported => c.unsupported_cuda = parse_unsupported(cell).map_err(at)?,
                Field::Experimental => {
                    (c.experimental, c.experimental_in) = parse_experimental(cell).map_err(at)?
                }
            }
        }
        for (c, n) in cols.iter_mut().zip(names) {
            c.name = n;
        }
        let mut groups: Vec<(String, Column)> = h.labels.iter().cloned().zip(cols).collect();
        let (_, cuda) = groups.remove(0);
        let cuda_name = cuda
            .name
            .ok_or_else(|| err("row has no CUDA name".into()))?;
        rows.push(MdRow {
            line,
            section: section.clone().unwrap_or_default(),
            cuda: cuda_name,
            cuda_versions: cuda.versions,
            groups,
        });
    }
    Ok(rows)
}
