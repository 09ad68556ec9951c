//! The hand-kept tables in `mappings/hand/`: facts the HIPIFY tables do not cover (include
//! paths per ROCm version, NVTX→roctx, NCCL→RCCL, warp `_sync` intrinsics, namespaces).
//! Every row carries its source URL in the data file.
//!
//! Format: tab-separated, `#` comments, the first other line names the columns. Columns are
//! looked up by name, so a table may grow columns without breaking the loader.

use crate::version::Version;

#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct HandError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// A parsed hand table: rows of named cells.
pub struct HandTable {
    pub file: String,
    pub columns: Vec<String>,
    pub rows: Vec<(usize, Vec<String>)>,
}

impl HandTable {
    pub fn parse(file: &str, text: &str, required: &[&str]) -> Result<HandTable, HandError> {
        let mut columns: Option<Vec<String>> = None;
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let cells: Vec<String> = line.split('\t').map(|c| c.trim().to_string()).collect();
            match &columns {
                None => {
                    for r in required {
                        if !cells.iter().any(|c| c == r) {
                            return Err(HandError {
                                file: file.into(),
                                line: i + 1,
                                message: format!("missing column `{r}`"),
                            });
                        }
                    }
                    columns = Some(cells);
                }
                Some(cols) => {
                    if cells.len() > cols.len() {
                        return Err(HandError {
                            file: file.into(),
                            line: i + 1,
                            message: format!(
                                "{} cells, but the header has {} columns",
                                cells.len(),
                                cols.len()
                            ),
                        });
                    }
                    rows.push((i + 1, cells));
                }
            }
        }
        Ok(HandTable {
            file: file.into(),
            columns: columns.unwrap_or_default(),
            rows,
        })
    }

    fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// Iterates rows as accessors.
    pub fn iter(&self) -> impl Iterator<Item = HandRow<'_>> {
        self.rows.iter().map(move |(line, cells)| HandRow {
            table: self,
            line: *line,
            cells,
        })
    }
}

pub struct HandRow<'a> {
    table: &'a HandTable,
    pub line: usize,
    cells: &'a [String],
}

impl<'a> HandRow<'a> {
    pub fn get(&self, name: &str) -> &'a str {
        self.table
            .col(name)
            .and_then(|i| self.cells.get(i))
            .map(|s| s.as_str())
            .unwrap_or("")
    }
    pub fn opt(&self, name: &str) -> Option<&'a str> {
        Some(self.get(name)).filter(|s| !s.is_empty())
    }
    pub fn version(&self, name: &str) -> Result<Option<Version>, HandError> {
        match self.opt(name) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|e| HandError {
                file: self.table.file.clone(),
                line: self.line,
                message: format!("column `{name}`: {e}"),
            }),
        }
    }
}

/// An inclusive ROCm version range; `None` ends are open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RocmRange {
    pub min: Option<Version>,
    pub max: Option<Version>,
}

impl RocmRange {
    pub fn contains(&self, v: Version) -> bool {
        self.min.is_none_or(|m| v >= m) && self.max.is_none_or(|m| v <= m)
    }
}
