//! TOML packaging files through the `toml` crate with spans: `pyproject.toml` (PEP 621, Poetry,
//! uv and PDM sections), `Pipfile`, and the `poetry.lock` / `uv.lock` lockfiles.

use super::packages::{self, Req};
use super::words::Site;
use super::Out;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    PyProject,
    Pipfile,
    Lock,
}

type Table<'i> = DeTable<'i>;

fn get<'a, 'i>(t: &'a Table<'i>, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
    t.iter().find(|(k, _)| k.get_ref() == key).map(|(_, v)| v)
}

fn table<'a, 'i>(v: &'a Spanned<DeValue<'i>>) -> Option<&'a Table<'i>> {
    match v.get_ref() {
        DeValue::Table(t) => Some(t),
        _ => None,
    }
}

fn path<'a, 'i>(t: &'a Table<'i>, keys: &[&str]) -> Option<&'a Spanned<DeValue<'i>>> {
    let (first, rest) = keys.split_first()?;
    let v = get(t, first)?;
    if rest.is_empty() {
        Some(v)
    } else {
        path(table(v)?, rest)
    }
}

/// The text span of a string value without its quotes.
fn inner(src: &[u8], span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let q = src.get(span.start).copied();
    if matches!(q, Some(b'"' | b'\'')) {
        let triple =
            src[span.start..].starts_with(b"\"\"\"") || src[span.start..].starts_with(b"'''");
        let n = if triple { 3 } else { 1 };
        span.start + n..span.end.saturating_sub(n)
    } else {
        span
    }
}

/// A package name as PyPI compares them: lowercase, `_` and `.` as `-`.
fn normalised(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace(['_', '.'], "-")
}

/// An array of PEP 508 strings. A requirement on the project itself (`bitsandbytes[test]` in
/// bitsandbytes' own extras, pulling in another extra) is no dependency: its package is this
/// tree, scanned here.
fn req_array(out: &mut Out, v: &Spanned<DeValue>, own: Option<&str>) {
    if let DeValue::Array(a) = v.get_ref() {
        for item in a.iter() {
            if let DeValue::String(s) = item.get_ref() {
                let r = inner(out.src(), item.span());
                if let Some(req) = packages::parse_req(s, r.start) {
                    if own.is_some_and(|o| normalised(&req.name) == o) {
                        continue;
                    }
                    packages::check_req(out, &req);
                }
            }
        }
    }
}

/// A table of name = version-or-table (Poetry, Pipfile).
fn name_table(out: &mut Out, v: &Spanned<DeValue>) {
    let Some(t) = table(v) else { return };
    for (k, val) in t.iter() {
        let mut marker = None;
        if let DeValue::String(s) = val.get_ref() {
            if let Some(i) = s.find("+cu") {
                marker = Some(s[i + 1..].to_string());
            }
        }
        let span = inner(out.src(), k.span());
        let req = Req {
            name: k.get_ref().to_string(),
            name_range: span,
            cuda_marker: marker,
            other_build: false,
        };
        packages::check_req(out, &req);
    }
}

/// Any `url`/`registry` string under a table (index definitions, lock sources).
fn urls(out: &mut Out, v: &Spanned<DeValue>) {
    match v.get_ref() {
        DeValue::String(s) if s.contains("download.pytorch.org/whl/") => {
            let r = inner(out.src(), v.span());
            packages::check_index(out, s, r, Site::Build);
        }
        DeValue::Array(a) => a.iter().for_each(|x| urls(out, x)),
        DeValue::Table(t) => t.iter().for_each(|(_, x)| urls(out, x)),
        _ => {}
    }
}

pub fn scan(out: &mut Out, flavor: Flavor) {
    let Ok(text) = std::str::from_utf8(out.src()) else {
        return;
    };
    let (doc, _errors) = DeTable::parse_recoverable(text);
    let doc = doc.get_ref();
    match flavor {
        Flavor::PyProject => {
            let own = path(doc, &["project", "name"]).and_then(|n| match n.get_ref() {
                DeValue::String(s) => Some(normalised(s)),
                _ => None,
            });
            let own = own.as_deref();
            for keys in [
                &["project", "dependencies"][..],
                &["build-system", "requires"],
            ] {
                if let Some(v) = path(doc, keys) {
                    req_array(out, v, own);
                }
            }
            for keys in [
                &["project", "optional-dependencies"][..],
                &["dependency-groups"],
                &["tool", "pdm", "dev-dependencies"],
            ] {
                if let Some(t) = path(doc, keys).and_then(table) {
                    for (k, v) in t.iter() {
                        // An extra for ROCm (mscclpp's `rocm6 = ["cupy", "hip-python"]`) is the
                        // project's own choice of packages for it.
                        let name = k.get_ref().to_ascii_lowercase();
                        if name.contains("rocm") || name.contains("hip") {
                            continue;
                        }
                        req_array(out, v, own);
                    }
                }
            }
            if let Some(v) = path(doc, &["tool", "poetry", "dependencies"]) {
                name_table(out, v);
            }
            if let Some(groups) = path(doc, &["tool", "poetry", "group"]).and_then(table) {
                for (_, g) in groups.iter() {
                    if let Some(d) = table(g).and_then(|t| get(t, "dependencies")) {
                        name_table(out, d);
                    }
                }
            }
            for keys in [
                &["tool", "uv"][..],
                &["tool", "poetry", "source"],
                &["tool", "pdm", "source"],
            ] {
                if let Some(v) = path(doc, keys) {
                    urls(out, v);
                }
            }
        }
        Flavor::Pipfile => {
            for key in ["packages", "dev-packages"] {
                if let Some(v) = get(doc, key) {
                    name_table(out, v);
                }
            }
            if let Some(v) = get(doc, "source") {
                urls(out, v);
            }
        }
        Flavor::Lock => {
            let Some(DeValue::Array(pkgs)) = get(doc, "package").map(|v| v.get_ref()) else {
                return;
            };
            for p in pkgs.iter() {
                let Some(t) = table(p) else { continue };
                let version = get(t, "version").and_then(|v| match v.get_ref() {
                    DeValue::String(s) => Some(s.to_string()),
                    _ => None,
                });
                if let Some(name) = get(t, "name") {
                    if let DeValue::String(s) = name.get_ref() {
                        let marker = version.as_deref().and_then(packages::cuda_local_label);
                        let req = Req {
                            name: s.to_string(),
                            name_range: inner(out.src(), name.span()),
                            cuda_marker: marker,
                            other_build: false,
                        };
                        packages::check_req(out, &req);
                    }
                }
                if let Some(src) = get(t, "source") {
                    urls(out, src);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    fn rules(kind: FileKind, src: &str) -> Vec<(String, u32)> {
        scan_bytes("pyproject.toml", kind, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

    /// mscclpp: an extra named for ROCm lists the project's packages for it; twin: the CUDA
    /// extra beside it is read.
    #[test]
    fn an_extra_for_rocm_is_the_projects_choice() {
        let src = "[project]\nname = \"m\"\n[project.optional-dependencies]\ncuda12 = [\"cupy-cuda12x\"]\nrocm6 = [\"cupy\", \"hip-python>=6\"]\n";
        let got: Vec<u32> = super::super::scan_bytes(
            "pyproject.toml",
            super::super::kind::FileKind::PyProject,
            src.as_bytes(),
        )
        .into_iter()
        .filter(|f| f.rule == "HP820")
        .map(|f| f.line)
        .collect();
        assert_eq!(got, [4]);
    }

    /// bitsandbytes' extras name the project itself (`bitsandbytes[test]`): no dependency.
    /// Twin: another project listing `bitsandbytes` is flagged.
    #[test]
    fn the_project_itself_is_no_dependency() {
        let src = "[project]\nname = \"Bitsandbytes\"\ndependencies = [\"torch>=2.2\"]\n[project.optional-dependencies]\ndev = [\"bitsandbytes[test]\"]\n";
        assert!(!rules(FileKind::PyProject, src).contains(&("HP820".into(), 5)));
        let other = src.replace("name = \"Bitsandbytes\"", "name = \"svc\"");
        assert!(rules(FileKind::PyProject, &other).contains(&("HP820".into(), 5)));
    }

    #[test]
    fn pyproject_sections() {
        let src = "[project]\nname = \"svc\"\ndependencies = [\n  \"requests\",\n  \"flash-attn>=2.5\",\n]\n[project.optional-dependencies]\ngpu = [\"cupy-cuda12x\"]\n[[tool.uv.index]]\nname = \"pytorch-cu121\"\nurl = \"https://download.pytorch.org/whl/cu121\"\n[tool.poetry.dependencies]\npynvml = \"^11.5\"\n";
        let r = rules(FileKind::PyProject, src);
        assert_eq!(
            r,
            vec![
                ("HP820".into(), 5),
                ("HP820".into(), 8),
                ("HP822".into(), 11),
                ("HP820".into(), 13)
            ]
        );
    }

    #[test]
    fn lockfiles() {
        let src = "[[package]]\nname = \"torch\"\nversion = \"2.3.1+cu121\"\nsource = { registry = \"https://download.pytorch.org/whl/cu121\" }\n\n[[package]]\nname = \"idna\"\nversion = \"3.7\"\n";
        let r = rules(FileKind::UvLock, src);
        assert_eq!(r, vec![("HP820".into(), 2), ("HP822".into(), 4)]);
    }
}
