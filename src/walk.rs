//! Finding the files to process: an `ignore`-based parallel walk that respects `.gitignore`,
//! `--include`/`--exclude` globs and the source extensions. Paths named explicitly are always
//! processed or reported. The result is sorted, so output never depends on thread timing.
//!
//! Hidden files and directories are skipped, except the CI and container folders where CUDA
//! hides in plain sight ([`VISIBLE_HIDDEN`]: `.github/`, `.gitlab-ci.yml`, `.circleci/`,
//! `.buildkite/`, `.devcontainer/`); `.gitignore` is honoured there too.

use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// C, C++ and CUDA sources, by extension. `.inc` fragments hold kernels too (lc0's
/// `winograd_helper.inc`, included by its `.cu` files); one without CUDA in it yields nothing.
/// `.hu` and `.hcu` are CUDA headers by another name (openpose's `gpu/cuda.hu` includes
/// `<cuda.h>` and holds device code). The conventional extensions of included implementation
/// files are sources too ([`HEADER_EXTENSIONS`]): C++ template bodies (`.tcc`, `.tpp`, `.ipp`,
/// `.txx`) and their CUDA twins (`.tcu`, `.cuinc`): InfiniTAM's `CUDAInstantiations.cu`
/// includes its kernels from `.tcu` files.
pub const DEFAULT_EXTENSIONS: &[&str] = &[
    "cu", "cuh", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "h++", "inl", "cuinl", "inc",
    "hu", "hcu", "ipp", "tpp", "tcc", "txx", "tcu", "cuinc",
];

/// The source extensions of files a unit includes rather than compiles on its own: headers and
/// included implementation fragments.
pub const HEADER_EXTENSIONS: &[&str] = &[
    "h", "hh", "hpp", "hxx", "h++", "cuh", "hu", "hcu", "inl", "cuinl", "inc", "ipp", "tpp", "tcc",
    "txx", "tcu", "cuinc",
];

/// Whether a path names a header or an included fragment ([`HEADER_EXTENSIONS`], by
/// [`source_ext`]).
pub fn is_header(rel: &str) -> bool {
    HEADER_EXTENSIONS.contains(&source_ext(rel).as_str())
}

/// A file's source extension, lowercased: its last one or, for a build variant named by its
/// backend, the one before (AutoDock-GPU keeps `performdocking.cpp.Cuda` beside
/// `performdocking.cpp.OpenCL`, and its CUDA Makefile links the first into place as
/// `performdocking.cpp`). Only the CUDA variant is a source here: another backend's is not
/// this tool's. A configure template (`x.hpp.cmake`, `x.h.in`) is a source by the extension
/// before too.
pub fn source_ext(rel: &str) -> String {
    let name = rel.rsplit(['/', '\\']).next().unwrap_or(rel);
    let mut parts = name.rsplitn(3, '.');
    let last = parts.next().unwrap_or("");
    let (Some(inner), Some(stem)) = (parts.next(), parts.next()) else {
        return if name.contains('.') {
            last.to_ascii_lowercase()
        } else {
            String::new()
        };
    };
    let inner = inner.to_ascii_lowercase();
    // A configure template (`cufft_config.hpp.cmake`, `config.h.in`) is the source CMake's
    // `configure_file` or autoconf writes: gpuNUFFT's includes `cufft.h` and declares cuFFT
    // types, and its port is the template's.
    let variant = ["cuda", "in", "cmake"]
        .iter()
        .any(|v| last.eq_ignore_ascii_case(v));
    if variant && !stem.is_empty() && DEFAULT_EXTENSIONS.contains(&inner.as_str()) {
        return inner;
    }
    last.to_ascii_lowercase()
}

/// Whether a path names a C, C++ or CUDA source or header ([`DEFAULT_EXTENSIONS`], any case;
/// a CUDA build variant by [`source_ext`]).
pub fn is_source(rel: &str) -> bool {
    DEFAULT_EXTENSIONS.contains(&source_ext(rel).as_str())
}

/// Hidden names that are walked like any other (CI workflows, container definitions, the
/// submodule list).
pub const VISIBLE_HIDDEN: &[&str] = &[
    ".github",
    ".gitlab-ci.yml",
    ".gitlab",
    ".circleci",
    ".buildkite",
    ".devcontainer",
    ".gitmodules",
];

fn walked(e: &ignore::DirEntry) -> bool {
    if e.depth() == 0 {
        return true;
    }
    let name = e.file_name().to_string_lossy();
    !name.starts_with('.') || VISIBLE_HIDDEN.contains(&name.as_ref())
}

#[derive(Clone, Debug)]
pub struct WalkOptions {
    pub extensions: Vec<String>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// Respect .gitignore and other ignore files.
    pub use_ignore_files: bool,
    pub follow_links: bool,
    /// Accept every file the walk finds, whatever its extension (inventory scans).
    pub all_files: bool,
    /// Also list symbolic links that are not followed, as [`Input::link`] entries (`port --out`
    /// keeps them as links).
    pub links: bool,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            extensions: DEFAULT_EXTENSIONS.iter().map(|s| s.to_string()).collect(),
            include: Vec::new(),
            exclude: Vec::new(),
            use_ignore_files: true,
            follow_links: false,
            all_files: false,
            links: false,
        }
    }
}

/// One file to process.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Input {
    /// Path relative to its root, `/`-separated: the name used in diffs and reports.
    pub rel: String,
    pub path: PathBuf,
    /// The root it is relative to (the directory given, or a given file's directory).
    pub root: PathBuf,
    pub size: u64,
    /// A symbolic link not followed (only with [`WalkOptions::links`]).
    pub link: bool,
}

impl Input {
    /// The path relative to its root, byte-exact (a non-UTF-8 name is kept as it is, where
    /// [`Input::rel`] shows it lossily): the name to write under an output directory.
    pub fn rel_os(&self) -> &Path {
        match self.path.strip_prefix(&self.root) {
            Ok(r) if !r.as_os_str().is_empty() => r,
            _ => Path::new(self.path.file_name().unwrap_or(self.path.as_os_str())),
        }
    }
}

impl Input {
    /// The name a diff shows: [`Input::rel_os`] byte-exact, or with several roots the path as
    /// given (`two/a/main.cu`), which `rel` then holds. Only for display: files are written
    /// under an output directory by [`Input::rel_os`], which never climbs out of it.
    pub fn diff_name(&self) -> &Path {
        let r = self.rel_os();
        if rel_string(r) == self.rel {
            r
        } else {
            Path::new(self.rel.as_str())
        }
    }
}

/// A path that could not be walked (unreadable directory, symlink loop, missing path).
#[derive(Clone, Debug)]
pub struct WalkError {
    pub path: String,
    pub message: String,
}

pub fn rel_string(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn has_ext(path: &Path, exts: &[String]) -> bool {
    // Lossy: a name that is not UTF-8 (`caf\xe9.cu`) still has its extension.
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
        return false;
    };
    let ext = source_ext(&name);
    exts.iter().any(|x| x.eq_ignore_ascii_case(&ext))
}

/// A file named on the command line: its name relative to its directory.
fn named_file(root: &Path, size: u64) -> Input {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string());
    let parent = root
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    Input {
        rel: name,
        path: root.to_path_buf(),
        root: parent,
        size,
        link: false,
    }
}

/// What one walk for two passes found.
pub struct Walked {
    /// Every file (the inventory picks the kinds it knows).
    pub all: Vec<Input>,
    /// The inputs [`walk`] with the given options returns (a source extension, or named on the
    /// command line), in the same order.
    pub sources: Vec<Input>,
    pub errors: Vec<WalkError>,
}

/// One walk for the sources and the inventory ([`Walked`]); walk errors once.
pub fn walk_all_and_sources(paths: &[PathBuf], opts: &WalkOptions) -> Result<Walked, String> {
    let every = WalkOptions {
        all_files: true,
        ..opts.clone()
    };
    let (all, errors) = walk(paths, &every)?;
    let mut named_other = false;
    let mut sources: Vec<Input> = all
        .iter()
        .filter(|i| opts.all_files || has_ext(&i.path, &opts.extensions) || paths.contains(&i.path))
        .map(|i| {
            if opts.all_files || has_ext(&i.path, &opts.extensions) {
                return i.clone();
            }
            // A file named in `paths` that a directory walk also reached: the walk by
            // extension only knows it under its own name.
            named_other = true;
            let mut named = named_file(&i.path, i.size);
            if paths.len() > 1 {
                named.rel = i.rel.clone();
            }
            named
        })
        .collect();
    if named_other {
        sources.sort();
        sources.dedup_by(|a, b| a.path == b.path);
    }
    Ok(Walked {
        all,
        sources,
        errors,
    })
}

pub fn walk(paths: &[PathBuf], opts: &WalkOptions) -> Result<(Vec<Input>, Vec<WalkError>), String> {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for root in paths {
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                errors.push(WalkError {
                    path: root.display().to_string(),
                    message: format!("cannot read: {e}"),
                });
                continue;
            }
        };
        if !meta.is_file() && !meta.is_dir() {
            // A FIFO or a device named on the command line: reported, never opened.
            errors.push(WalkError {
                path: root.display().to_string(),
                message: format!(
                    "{}, not a regular file or directory: skipped",
                    crate::safety::kind_of(&meta)
                ),
            });
            continue;
        }
        if meta.is_file() {
            inputs.push(named_file(root, meta.len()));
            continue;
        }
        let mut ob = OverrideBuilder::new(root);
        for g in &opts.include {
            ob.add(g).map_err(|e| format!("--include {g}: {e}"))?;
        }
        for g in &opts.exclude {
            ob.add(&format!("!{g}"))
                .map_err(|e| format!("--exclude {g}: {e}"))?;
        }
        let overrides = ob.build().map_err(|e| {
            format!(
                "the --include/--exclude globs (from the flags or hipport.toml) for {}: {e}",
                root.display()
            )
        })?;
        let found = Mutex::new(Vec::new());
        let errs = Mutex::new(Vec::new());
        WalkBuilder::new(root)
            .standard_filters(opts.use_ignore_files)
            .hidden(false)
            .filter_entry(walked)
            .require_git(false)
            .follow_links(opts.follow_links)
            .overrides(overrides.clone())
            .build_parallel()
            .run(|| {
                let found = &found;
                let errs = &errs;
                Box::new(move |entry| {
                    match entry {
                        Ok(e) => {
                            let is_file = e.file_type().is_some_and(|t| t.is_file());
                            let link = opts.links
                                && e.depth() > 0
                                && e.file_type().is_some_and(|t| t.is_symlink());
                            if (is_file || link)
                                && (opts.all_files || has_ext(e.path(), &opts.extensions))
                            {
                                let rel = e.path().strip_prefix(root).unwrap_or(e.path());
                                let size = if link {
                                    0
                                } else {
                                    e.metadata().map(|m| m.len()).unwrap_or(0)
                                };
                                found.lock().unwrap().push(Input {
                                    rel: rel_string(rel),
                                    path: e.path().to_path_buf(),
                                    root: root.clone(),
                                    size,
                                    link,
                                });
                            }
                        }
                        Err(err) => errs.lock().unwrap().push(WalkError {
                            path: root.display().to_string(),
                            message: walk_error_message(&err),
                        }),
                    }
                    WalkState::Continue
                })
            });
        let mut found = found.into_inner().unwrap();
        if opts.use_ignore_files {
            let extra = match crate::git_index::tracked(root) {
                Some(index) => tracked_but_ignored(root, opts, &overrides, &found, index),
                None => ungenerated_manifests(root, opts, &overrides, &found),
            };
            found.extend(extra);
        }
        inputs.extend(found);
        errors.extend(errs.into_inner().unwrap());
    }
    if paths.len() > 1 {
        // Several roots: a name relative to its root (`main.cu` under `two/a` and `two/b`)
        // would collide in reports and diffs, so each file is named by its path as given.
        for i in &mut inputs {
            i.rel = given_name(&i.path);
        }
    }
    inputs.sort();
    inputs.dedup_by(|a, b| a.path == b.path);
    errors.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    Ok((inputs, errors))
}

/// A path as given on the command line, `/`-separated, without a leading `./`.
fn given_name(p: &Path) -> String {
    if p.is_absolute() {
        return p.to_string_lossy().into_owned();
    }
    let s = rel_string(p);
    let mut t = s.as_str();
    while let Some(rest) = t.strip_prefix("./") {
        t = rest;
    }
    t.to_string()
}

/// The files under `root` that the repository tracks although an ignore file names them
/// (graphblast's committed `Makefile`, listed in its `.gitignore` for CMake's generated ones):
/// part of the project, so walked like the rest, with the same hidden-name, glob and extension
/// filters. Symbolic links and anything not a regular file are left out.
fn tracked_but_ignored(
    root: &Path,
    opts: &WalkOptions,
    overrides: &ignore::overrides::Override,
    found: &[Input],
    (top, paths): (PathBuf, Vec<String>),
) -> Vec<Input> {
    let Ok(canon) = root.canonicalize() else {
        return Vec::new();
    };
    let seen: std::collections::HashSet<&Path> = found.iter().map(|i| i.path.as_path()).collect();
    let mut out = Vec::new();
    for p in paths {
        let Ok(rel) = top.join(&p).strip_prefix(&canon).map(Path::to_path_buf) else {
            continue;
        };
        let hidden = rel.components().any(|c| {
            let n = c.as_os_str().to_string_lossy();
            n.starts_with('.') && !VISIBLE_HIDDEN.contains(&n.as_ref())
        });
        if hidden {
            continue;
        }
        out.extend(admit(root, &canon, rel, opts, overrides, &seen));
    }
    out
}

/// Build files no tool generates: a `CMakeLists.txt` or `meson.build` is always written by the
/// project (CMake and Meson write their outputs elsewhere under other names).
const NEVER_GENERATED: [&str; 2] = ["CMakeLists.txt", "meson.build"];

/// Without a git index (a release tarball, an sdist, a copy without `.git`) nothing says which
/// ignored files are the project's. A pattern written for generated files may still name a
/// build file no tool generates (astro-accelerate's `.gitignore` lists `*.txt`, which hides
/// its `CMakeLists.txt`): those are walked, in the folders the walk reached (the root and the
/// folders of the files it found), so a folder the ignore files leave out stays out (a
/// `build/_deps/…-src/CMakeLists.txt` fetched by CMake). Same filters as the walk; symbolic
/// links and anything not a regular file are left out.
fn ungenerated_manifests(
    root: &Path,
    opts: &WalkOptions,
    overrides: &ignore::overrides::Override,
    found: &[Input],
) -> Vec<Input> {
    if root.is_file() {
        return Vec::new();
    }
    let seen: std::collections::HashSet<&Path> = found.iter().map(|i| i.path.as_path()).collect();
    let mut dirs: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
    dirs.insert(PathBuf::new());
    for i in found.iter().filter(|i| !i.link) {
        let mut d = Path::new(&i.rel).parent();
        while let Some(p) = d.filter(|p| !p.as_os_str().is_empty()) {
            if !dirs.insert(p.to_path_buf()) {
                break;
            }
            d = p.parent();
        }
    }
    let Ok(canon) = root.canonicalize() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in dirs {
        for name in NEVER_GENERATED {
            out.extend(admit(root, &canon, dir.join(name), opts, overrides, &seen));
        }
    }
    out
}

/// The file `rel` under `root` (whose real path is `canon`) as an input the walk left out,
/// with the walk's filters: not already found, not excluded by a glob, of a walked extension,
/// a regular file, and no symbolic link on the way (an index may list `a/k.cu` where `a` is a
/// link out of the tree): its real path is the root's followed by `rel`.
fn admit(
    root: &Path,
    canon: &Path,
    rel: PathBuf,
    opts: &WalkOptions,
    overrides: &ignore::overrides::Override,
    seen: &std::collections::HashSet<&Path>,
) -> Option<Input> {
    let path = root.join(&rel);
    if seen.contains(path.as_path())
        || overrides.matched(&path, false).is_ignore()
        || !(opts.all_files || has_ext(&path, &opts.extensions))
    {
        return None;
    }
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || path.canonicalize().ok()? != canon.join(&rel) {
        return None;
    }
    Some(Input {
        rel: rel_string(&rel),
        path,
        root: root.to_path_buf(),
        size: meta.len(),
        link: false,
    })
}

/// A walk error as a person can act on it: errors from the ignore files' globs (`error
/// building NFA` for a pattern too large) carry no path of their own, so say where they come
/// from.
fn walk_error_message(err: &ignore::Error) -> String {
    let m = err.to_string();
    if err.io_error().is_some() || m.contains('/') {
        m
    } else {
        format!("{m} (in an ignore file: .gitignore, .ignore or .git/info/exclude)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA headers under other names are sources (openpose's `cuda.hu`), compiled as CUDA;
    /// other names are not.
    #[test]
    fn cuda_headers_by_other_names_are_sources() {
        for p in ["gpu/cuda.hu", "k.HCU", "a.cuh", "b.inc"] {
            assert!(is_source(p), "{p}");
        }
        for p in ["notes.hub", "a.hu.txt", "README"] {
            assert!(!is_source(p), "{p}");
        }
        assert_eq!(
            crate::translate::Lang::of("include/gpu/cuda.hu"),
            crate::translate::Lang::Cuda
        );
    }

    /// AutoDock-GPU's backend variants: the `.Cuda` one is the source its CUDA build links into
    /// place, by the extension before; twins: the OpenCL variant, a `.Cuda` suffix on what is
    /// no source, a file named only `.Cuda` after a dot-name.
    #[test]
    fn cuda_build_variants_are_sources_by_their_inner_extension() {
        for p in [
            "host/src/performdocking.cpp.Cuda",
            "inc/performdocking.h.CUDA",
        ] {
            assert!(is_source(p), "{p}");
        }
        for p in [
            "host/src/performdocking.cpp.OpenCL",
            "notes.txt.Cuda",
            "host/.cpp.Cuda",
            "Makefile.Cuda",
        ] {
            assert!(!is_source(p), "{p}");
        }
        assert_eq!(source_ext("dir.v2/Makefile"), "");
        // Configure templates of sources; twins: CMake modules and other templates.
        assert_eq!(source_ext("CUDA/inc/cufft_config.hpp.cmake"), "hpp");
        assert_eq!(source_ext("src/config.h.in"), "h");
        assert!(!is_source("cmake/FindCUDA.cmake"));
        assert!(!is_source("setup.py.in"));
        assert!(!is_source("Doxyfile.in"));
        assert_eq!(source_ext("a/k.CU"), "cu");
        assert_eq!(
            crate::translate::Lang::of("host/src/performdocking.cpp.Cuda"),
            crate::translate::Lang::Cpp
        );
        assert!(crate::model::project::is_header(
            "inc/performdocking.h.Cuda"
        ));
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("host")).unwrap();
        for f in ["host/p.cpp.Cuda", "host/p.cpp.OpenCL", "Makefile.Cuda"] {
            std::fs::write(d.path().join(f), "int x;\n").unwrap();
        }
        let (inputs, _) = walk(&[d.path().to_path_buf()], &WalkOptions::default()).unwrap();
        let rels: Vec<&str> = inputs.iter().map(|i| i.rel.as_str()).collect();
        assert!(rels.contains(&"host/p.cpp.Cuda"), "{rels:?}");
        assert!(!rels.contains(&"host/p.cpp.OpenCL"), "{rels:?}");
    }

    #[test]
    fn walks_sorted_with_ignore_and_globs() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("src/sub")).unwrap();
        std::fs::create_dir_all(r.join("build")).unwrap();
        std::fs::write(r.join("src/b.cu"), "x").unwrap();
        std::fs::write(r.join("src/sub/a.cuh"), "x").unwrap();
        std::fs::write(r.join("src/readme.md"), "x").unwrap();
        std::fs::write(r.join("build/gen.cu"), "x").unwrap();
        std::fs::write(r.join(".gitignore"), "build/\n").unwrap();
        let (inputs, errors) = walk(&[r.to_path_buf()], &WalkOptions::default()).unwrap();
        assert!(errors.is_empty());
        let rels: Vec<&str> = inputs.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(rels, ["src/b.cu", "src/sub/a.cuh"]);
        let opts = WalkOptions {
            exclude: vec!["src/sub/**".into()],
            ..Default::default()
        };
        let (inputs, _) = walk(&[r.to_path_buf()], &opts).unwrap();
        let rels: Vec<&str> = inputs.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(rels, ["src/b.cu"]);
    }

    #[test]
    fn ci_folders_are_walked_and_other_hidden_ones_are_not() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for f in [
            ".github/workflows/ci.yml",
            ".gitlab-ci.yml",
            ".circleci/config.yml",
            ".buildkite/pipeline.yml",
            ".devcontainer/Dockerfile",
            ".git/config",
            ".cache/x.yml",
            ".github/workflows/generated.yml",
        ] {
            std::fs::create_dir_all(r.join(f).parent().unwrap()).unwrap();
            std::fs::write(r.join(f), "x").unwrap();
        }
        std::fs::write(r.join(".gitignore"), ".github/workflows/generated.yml\n").unwrap();
        let opts = WalkOptions {
            all_files: true,
            ..Default::default()
        };
        let (inputs, _) = walk(&[r.to_path_buf()], &opts).unwrap();
        let rels: Vec<&str> = inputs.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(
            rels,
            [
                ".buildkite/pipeline.yml",
                ".circleci/config.yml",
                ".devcontainer/Dockerfile",
                ".github/workflows/ci.yml",
                ".gitlab-ci.yml"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_named_fifo_is_reported_not_opened() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("k.cu");
        assert!(std::process::Command::new("mkfifo")
            .arg(&f)
            .status()
            .unwrap()
            .success());
        let (inputs, errors) = walk(&[f], &WalkOptions::default()).unwrap();
        assert!(inputs.is_empty());
        assert!(errors[0].message.contains("a FIFO"), "{:?}", errors);
    }

    #[test]
    fn missing_path_is_an_error_not_a_skip() {
        let (inputs, errors) = walk(
            &[PathBuf::from("/nonexistent/x.cu")],
            &WalkOptions::default(),
        )
        .unwrap();
        assert!(inputs.is_empty());
        assert_eq!(errors.len(), 1);
    }

    /// `scan` walks once with every file and picks its sources from it: the same
    /// list, in the same order, as the walk by extension (a named file of any extension
    /// included).
    #[test]
    fn one_walk_filtered_equals_the_source_walk() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for f in [
            "src/k.cu",
            "src/k.CUH",
            "src/util.cpp",
            "setup.py",
            "CMakeLists.txt",
            "build/gen.cu",
            "docs/notes.md",
        ] {
            std::fs::create_dir_all(r.join(f).parent().unwrap()).unwrap();
            std::fs::write(r.join(f), "x").unwrap();
        }
        std::fs::write(r.join(".gitignore"), "build/\n").unwrap();
        let named = r.join("docs/notes.md");
        let paths = vec![r.to_path_buf(), named.clone()];
        let opts = WalkOptions {
            exclude: vec!["src/util.cpp".into()],
            ..Default::default()
        };
        let (sources, _) = walk(&paths, &opts).unwrap();
        let every = WalkOptions {
            all_files: true,
            ..opts.clone()
        };
        let (all, _) = walk(&paths, &every).unwrap();
        let w = walk_all_and_sources(&paths, &opts).unwrap();
        assert_eq!(w.all, all);
        assert_eq!(w.sources, sources);
        // Two roots: each file is named by its path as given, so names cannot collide.
        let rels: Vec<&str> = sources.iter().map(|i| i.rel.as_str()).collect();
        let given = |f: &str| format!("{}/{f}", r.display());
        assert_eq!(
            rels,
            [
                given("docs/notes.md"),
                given("src/k.CUH"),
                given("src/k.cu")
            ]
        );
        assert!(all.iter().any(|i| i.rel == given("CMakeLists.txt")));
    }

    /// astro-accelerate's `.gitignore` lists `*.txt` (and `Makefile`): in a copy without `.git`
    /// its `CMakeLists.txt` files are still the project's build, and are walked. Twins: the
    /// ignored `Makefile` (CMake generates those) and a `CMakeLists.txt` inside an ignored
    /// folder (`build/_deps/…`) stay out; with a git index, the index decides.
    #[test]
    fn build_files_no_tool_generates_are_walked_without_an_index() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("src/sub")).unwrap();
        std::fs::create_dir_all(r.join("build/_deps/x-src")).unwrap();
        std::fs::write(r.join(".gitignore"), "*.txt\nMakefile\nbuild/\n").unwrap();
        for f in [
            "CMakeLists.txt",
            "Makefile",
            "src/sub/k.cu",
            "src/sub/CMakeLists.txt",
            "build/_deps/x-src/CMakeLists.txt",
            "notes.txt",
        ] {
            std::fs::write(r.join(f), "project(x)\n").unwrap();
        }
        let opts = WalkOptions {
            all_files: true,
            ..WalkOptions::default()
        };
        let (inputs, _) = walk(&[r.to_path_buf()], &opts).unwrap();
        let rels: Vec<&str> = inputs.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(
            rels,
            ["CMakeLists.txt", "src/sub/CMakeLists.txt", "src/sub/k.cu"],
            "{rels:?}"
        );
        // With an index that does not track it, an ignored CMakeLists.txt stays out.
        std::fs::create_dir_all(r.join(".git")).unwrap();
        let mut idx = b"DIRC".to_vec();
        idx.extend_from_slice(&2u32.to_be_bytes());
        idx.extend_from_slice(&0u32.to_be_bytes());
        std::fs::write(r.join(".git/index"), idx).unwrap();
        let (inputs, _) = walk(&[r.to_path_buf()], &opts).unwrap();
        let rels: Vec<&str> = inputs.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(rels, ["src/sub/k.cu"], "{rels:?}");
    }

    /// graphblast commits a `Makefile` its `.gitignore` lists (for CMake's generated ones): a
    /// tracked file is the project's, so it is walked. Twins: an ignored file the index does
    /// not list stays out, and so does a tracked one under a hidden folder.
    #[test]
    fn tracked_files_an_ignore_file_names_are_walked() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join(".git")).unwrap();
        std::fs::create_dir_all(r.join(".cache")).unwrap();
        std::fs::write(r.join(".gitignore"), "Makefile\ngen.cu\n.cache/\n").unwrap();
        for f in ["Makefile", "gen.cu", "k.cu", ".cache/x.cu"] {
            std::fs::write(r.join(f), "all:\n").unwrap();
        }
        let mut idx = b"DIRC".to_vec();
        idx.extend_from_slice(&2u32.to_be_bytes());
        idx.extend_from_slice(&3u32.to_be_bytes());
        for p in ["Makefile", "k.cu", ".cache/x.cu"] {
            let mut e = vec![0u8; 62];
            e[24..28].copy_from_slice(&0o100644u32.to_be_bytes());
            e[60..62].copy_from_slice(&(p.len() as u16).to_be_bytes());
            e.extend_from_slice(p.as_bytes());
            let len = e.len();
            e.resize((len + 8) / 8 * 8, 0);
            idx.extend(e);
        }
        std::fs::write(r.join(".git/index"), idx).unwrap();
        let opts = WalkOptions {
            all_files: true,
            ..WalkOptions::default()
        };
        let (inputs, _) = walk(&[r.to_path_buf()], &opts).unwrap();
        let rels: Vec<&str> = inputs.iter().map(|i| i.rel.as_str()).collect();
        assert!(rels.contains(&"Makefile"), "{rels:?}");
        assert!(rels.contains(&"k.cu"), "{rels:?}");
        assert!(!rels.contains(&"gen.cu"), "{rels:?}");
        assert!(!rels.iter().any(|p| p.contains(".cache")), "{rels:?}");
        assert_eq!(rels.iter().filter(|p| **p == "k.cu").count(), 1);
        // A tracked path through a link to a folder outside the tree is not walked.
        #[cfg(unix)]
        {
            let out = tempfile::tempdir().unwrap();
            std::fs::write(out.path().join("x.cu"), "int x;\n").unwrap();
            std::os::unix::fs::symlink(out.path(), r.join("ln")).unwrap();
            let mut idx = b"DIRC".to_vec();
            idx.extend_from_slice(&2u32.to_be_bytes());
            idx.extend_from_slice(&1u32.to_be_bytes());
            let mut e = vec![0u8; 62];
            e[24..28].copy_from_slice(&0o100644u32.to_be_bytes());
            e[60..62].copy_from_slice(&8u16.to_be_bytes());
            e.extend_from_slice(b"ln/x.cu\0");
            let len = e.len();
            e.resize((len + 8) / 8 * 8, 0);
            idx.extend(e);
            std::fs::write(r.join(".git/index"), idx).unwrap();
            std::fs::write(r.join(".gitignore"), "ln\n").unwrap();
            let (inputs, _) = walk(&[r.to_path_buf()], &opts).unwrap();
            assert!(
                !inputs.iter().any(|i| i.rel.starts_with("ln")),
                "{inputs:?}"
            );
        }
    }
}
