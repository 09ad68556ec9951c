//! Which NVIDIA library a CUDA name or header belongs to, for the libraries whose use is one
//! porting decision: those with no ROCm counterpart (cuSOLVERMg, cuTENSORMg, cuDSS, nvCOMP, the
//! MathDx device libraries…) and those whose counterpart is a port rather than a rename (cuDNN →
//! MIOpen, WMMA → rocWMMA, cuTENSOR → hipTensor). The facts live in the hand table
//! `mappings/hand/libraries.tsv`, one row per library with its sources.

use super::hand::HandTable;
use std::sync::OnceLock;

const LIBRARIES_TSV: &str = include_str!("../../mappings/hand/libraries.tsv");

/// How far one decision about a library reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// One decision per library in the project (host API code: moving cuDNN to MIOpen, or
    /// dropping cuTENSOR, is decided once, wherever the calls are).
    Project,
    /// One decision per library and file (device code rewritten file by file).
    File,
}

/// One row of `libraries.tsv`.
#[derive(Clone, Debug)]
pub struct Library {
    pub name: String,
    /// Globs over CUDA names.
    pub names: Vec<String>,
    /// Globs over include paths.
    pub headers: Vec<String>,
    /// The ROCm counterpart; `None`: there is none.
    pub rocm: Option<String>,
    pub scope: Scope,
    pub note: String,
}

/// Every row of the table.
pub fn table() -> &'static [Library] {
    static T: OnceLock<Vec<Library>> = OnceLock::new();
    T.get_or_init(|| parse(LIBRARIES_TSV).expect("embedded libraries.tsv is valid"))
}

fn parse(text: &str) -> Result<Vec<Library>, String> {
    let t = HandTable::parse(
        "libraries.tsv",
        text,
        &[
            "library", "names", "headers", "rocm", "scope", "note", "source",
        ],
    )
    .map_err(|e| e.to_string())?;
    t.iter()
        .map(|r| {
            if !r.get("source").starts_with("https://") {
                return Err(format!("libraries.tsv:{}: source must be a URL", r.line));
            }
            let scope = match r.get("scope") {
                "project" => Scope::Project,
                "file" => Scope::File,
                s => return Err(format!("libraries.tsv:{}: unknown scope `{s}`", r.line)),
            };
            let list = |c: &str| r.get(c).split_whitespace().map(str::to_string).collect();
            Ok(Library {
                name: r.get("library").to_string(),
                names: list("names"),
                headers: list("headers"),
                rocm: r.opt("rocm").map(str::to_string),
                scope,
                note: r.get("note").to_string(),
            })
        })
        .collect()
}

/// Whether `text` matches `pattern` (`*` any run of characters, `?` one character).
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == b'?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

/// The library whose pattern in `field` matches `text`, the longest pattern winning.
fn best(text: &str, field: fn(&Library) -> &[String]) -> Option<&'static Library> {
    table()
        .iter()
        .flat_map(|l| field(l).iter().map(move |p| (l, p)))
        .filter(|(_, p)| glob(p, text))
        .max_by_key(|(_, p)| p.len())
        .map(|(l, _)| l)
}

/// The library a CUDA name (`cusolverMgCreate`, `nvcuda::wmma`) belongs to.
pub fn of_name(name: &str) -> Option<&'static Library> {
    best(name, |l| &l.names)
}

/// The library an include path (`nvcomp/lz4.h`) belongs to.
pub fn of_header(path: &str) -> Option<&'static Library> {
    best(path, |l| &l.headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_row_has_a_source() {
        assert!(table().len() >= 10);
        assert!(parse(
            "library\tnames\theaders\trocm\tscope\tnote\tsource\nx\t\t\t\tfolder\t\thttp://a\n"
        )
        .is_err());
        assert!(parse(
            "library\tnames\theaders\trocm\tscope\tnote\tsource\nx\t\t\t\twide\t\thttps://a\n"
        )
        .is_err());
    }

    #[test]
    fn globs() {
        assert!(glob(
            "cusolverSp?csrqr*Batched",
            "cusolverSpXcsrqrAnalysisBatched"
        ));
        assert!(glob("nvcomp/*", "nvcomp/lz4.h"));
        assert!(!glob("cusolverSp?csrqr*Batched", "cusolverSpScsrqrFactor"));
        assert!(!glob("nvcomp/*", "mynvcomp/lz4.h"));
    }

    #[test]
    fn the_longest_pattern_names_the_library() {
        assert_eq!(of_name("cutensorMgContraction").unwrap().name, "cuTENSORMg");
        assert_eq!(of_name("cutensorContract").unwrap().name, "cuTENSOR");
        assert_eq!(
            of_name("cudnnSetRNNDescriptor").unwrap().rocm.as_deref(),
            Some("MIOpen")
        );
        assert_eq!(of_header("nvcomp/lz4.h").unwrap().name, "nvCOMP");
        assert_eq!(of_header("cufftdx.hpp").unwrap().scope, Scope::File);
        // Twins: a library with a rename-level counterpart is not listed.
        assert!(of_name("cublasSgemm").is_none());
        assert!(of_header("cublas_v2.h").is_none());
    }
}
