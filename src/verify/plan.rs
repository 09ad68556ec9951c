//! One hipcc command per translation unit: from the project's `compile_commands.json` when it
//! has one (rewritten for hipcc, paths moved into the translated tree), otherwise built from the
//! unit's directory and the include directories the project's build files name. Objects are
//! named from a hash of the unit's path, never from the name itself.

use super::compdb::{self, CompileEntry, Remapped};
use super::hipcc::UnitCommand;
use super::includes;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub struct Plan {
    /// `compile_commands.json` (with its path) or `per-file`.
    pub source: String,
    pub commands: Vec<UnitCommand>,
}

/// What every unit gets beyond its own flags: `-D`/`-I`/extra arguments (after the unit's, so
/// they win) and the standard.
#[derive(Clone, Debug, Default)]
pub struct Extra {
    pub flags: Vec<String>,
    pub std: Option<String>,
}

/// The directory of objects under the output tree (`--full`).
pub const OBJECTS: &str = ".hipport-objects";

/// Where a project keeps its compilation database.
const COMPDB_PLACES: &[&str] = &["compile_commands.json", "build/compile_commands.json"];

pub fn plan(
    root: &Path,
    out: &Path,
    files: &[String],
    units: &[&String],
    archs: &[String],
    full: bool,
    extra: &Extra,
) -> Result<Plan, String> {
    let root_abs = std::fs::canonicalize(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let out_abs = std::fs::canonicalize(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let compdb = COMPDB_PLACES
        .iter()
        .map(|p| root.join(p))
        .find(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file()));
    let mut by_rel: HashMap<String, CompileEntry> = HashMap::new();
    let mut source = "per-file".to_string();
    if let Some(db) = &compdb {
        for e in compdb::load(db)? {
            let file = std::fs::canonicalize(&e.file).unwrap_or(e.file.clone());
            if let Ok(rel) = file.strip_prefix(&root_abs) {
                by_rel.insert(crate::walk::rel_string(rel), e);
            }
        }
        source = format!("{}", db.strip_prefix(root).unwrap_or(db).display());
    }
    let inc_dirs = includes::project_include_dirs(root, files);
    let mut commands = Vec::new();
    for rel in units {
        let src = out_abs.join(rel.as_str());
        let (mut flags, notes) = match by_rel.get(rel.as_str()) {
            Some(e) => {
                let remap = |p: &str| remap_path(&e.directory, p, &root_abs, &out_abs);
                let r = compdb::rewrite(&e.args, &e.file, &remap);
                (r.flags, r.notes)
            }
            None => (per_file_flags(&out_abs, rel, &inc_dirs), Vec::new()),
        };
        let mut args: Vec<String> = archs
            .iter()
            .map(|a| format!("--offload-arch={a}"))
            .collect();
        args.push("-Wno-unused-command-line-argument".into());
        // A compiler crash writes no preprocessed copy of the unit to a temporary directory.
        args.push("-fno-crash-diagnostics".into());
        // nvcc compiles as C++17 by default (CUDA 11+); some hipcc builds (Debian's 5.2) default
        // to C++11, which would fail code that was valid CUDA. Keep the project's own -std,
        // unless --std names one.
        let is_std = |f: &String| f.starts_with("-std=") || f.starts_with("--std");
        if let Some(std) = &extra.std {
            flags.retain(|f| !is_std(f));
            args.push(format!("-std={std}"));
        } else if !flags.iter().any(is_std) {
            args.push("-std=c++17".into());
        }
        args.append(&mut flags);
        for f in &extra.flags {
            if !args.contains(f) {
                args.push(f.clone());
            }
        }
        // The mode is hipport's: an object it then checks, or -fsyntax-only; the project's
        // flags (filtered) come before and cannot change it.
        let mut output = None;
        if full {
            let dir = out_abs.join(OBJECTS);
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let hash = crate::record::sha256_hex(rel.as_bytes());
            let obj = dir.join(format!("{}.o", &hash[..16]));
            args.push("-c".into());
            args.push("-o".into());
            args.push(obj.display().to_string());
            output = Some(obj);
        } else {
            args.push("-fsyntax-only".into());
        }
        args.push("-x".into());
        args.push("hip".into());
        args.push(src.display().to_string());
        commands.push(UnitCommand {
            rel: rel.to_string(),
            cwd: out_abs.clone(),
            args,
            notes,
            output,
        });
    }
    Ok(Plan { source, commands })
}

/// `-I` flags for a unit without a database entry: its own directory, then the project's.
fn per_file_flags(out: &Path, rel: &str, inc_dirs: &[String]) -> Vec<String> {
    let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
    let mut flags = vec![format!("-I{}", out.join(dir).display())];
    for d in inc_dirs {
        let f = format!("-I{}", out.join(d).display());
        if !flags.contains(&f) {
            flags.push(f);
        }
    }
    flags
}

/// An include path from the database, made absolute against the entry's directory and moved
/// into the translated tree when it points into the project; outside the project it is not
/// used. A path that does not exist is judged as written (`.` and `..` applied).
pub fn remap_path(dir: &Path, written: &str, root: &Path, out: &Path) -> Remapped {
    let p = dir.join(written);
    let p: PathBuf = match std::fs::canonicalize(&p) {
        Ok(c) => c,
        Err(_) => match crate::safety::resolve(&p) {
            Ok(r) => r,
            Err(_) => return Remapped::Outside,
        },
    };
    match p.strip_prefix(root) {
        Ok(rel) => Remapped::Inside(out.join(rel).display().to_string()),
        Err(_) => Remapped::Outside,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_file_commands_carry_include_dirs() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("p");
        let out = d.path().join("o");
        std::fs::create_dir_all(root.join("include")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        let files = vec!["include/a.h".to_string(), "src/a.cu".to_string()];
        let unit = &files[1];
        let p = plan(
            &root,
            &out,
            &files,
            &[unit],
            &["gfx90a".into()],
            false,
            &Extra::default(),
        )
        .unwrap();
        assert_eq!(p.source, "per-file");
        let args = &p.commands[0].args;
        let out = std::fs::canonicalize(&out).unwrap();
        assert_eq!(args[0], "--offload-arch=gfx90a");
        assert!(args.contains(&format!("-I{}", out.join("src").display())));
        assert!(args.contains(&format!("-I{}", out.join("include").display())));
        assert!(args.contains(&"-fsyntax-only".to_string()));
        assert!(
            args.contains(&"-std=c++17".to_string()),
            "nvcc's default standard"
        );
        assert_eq!(
            args.last().unwrap(),
            &out.join("src/a.cu").display().to_string()
        );
    }

    #[test]
    fn database_commands_are_rewritten_into_the_out_tree() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap().join("p");
        let out = root.parent().unwrap().join("o");
        std::fs::create_dir_all(root.join("inc")).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(root.join("k.cu"), "").unwrap();
        let db = serde_json::json!([{
            "directory": root.display().to_string(),
            "file": "k.cu",
            "command": "nvcc -Iinc -arch=sm_80 --expt-relaxed-constexpr -c k.cu -o k.o"
        }]);
        std::fs::write(root.join("compile_commands.json"), db.to_string()).unwrap();
        let files = vec!["k.cu".to_string()];
        let p = plan(
            &root,
            &out,
            &files,
            &[&files[0]],
            &["gfx942".into()],
            true,
            &Extra::default(),
        )
        .unwrap();
        assert_eq!(p.source, "compile_commands.json");
        let c = &p.commands[0];
        assert!(
            c.args.contains(&format!("-I{}", out.join("inc").display())),
            "{:?}",
            c.args
        );
        assert!(c.args.contains(&"-c".to_string()));
        assert!(!c.args.iter().any(|a| a.contains("sm_80")));
        assert_eq!(c.notes.len(), 2, "{:?}", c.notes);
        let o = &c.args[c.args.iter().position(|a| a == "-o").unwrap() + 1];
        assert!(o.contains(OBJECTS) && !o.contains("k.cu"), "{o}");
    }

    #[test]
    fn hostile_names_and_database_flags_never_become_object_names_or_outside_paths() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap().join("p");
        let out = root.parent().unwrap().join("o");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        let name = "x$(touch pwned).cu".to_string();
        std::fs::write(root.join(&name), "").unwrap();
        let db = serde_json::json!([{
            "directory": root.display().to_string(),
            "file": name,
            "arguments": ["nvcc", "-I/etc", "-I../../", "-include", "/etc/passwd", "-fplugin=./p.so", "-c", name]
        }]);
        std::fs::write(root.join("compile_commands.json"), db.to_string()).unwrap();
        let files = vec![name.clone()];
        let extra = Extra {
            flags: vec!["-DUSE_ROCM".into()],
            std: Some("c++20".into()),
        };
        let p = plan(
            &root,
            &out,
            &files,
            &[&files[0]],
            &["gfx90a".into()],
            true,
            &extra,
        )
        .unwrap();
        let c = &p.commands[0];
        let o = &c.args[c.args.iter().position(|a| a == "-o").unwrap() + 1];
        assert!(!o.contains('$'), "{o}");
        assert!(
            !c.args
                .iter()
                .any(|a| a.contains("/etc") || a.contains("plugin")),
            "{:?}",
            c.args
        );
        assert!(c.args.contains(&"-DUSE_ROCM".to_string()));
        assert!(c.args.contains(&"-std=c++20".to_string()));
        assert!(!c.args.contains(&"-std=c++17".to_string()));
        assert_eq!(c.notes.len(), 4, "{:?}", c.notes);
    }
}
