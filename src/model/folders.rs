//! What a path says about the code under it: a copy of another project in a vendor folder
//! (`third_party/<component>/`), or a folder the project marks as not maintained
//! (`legacy/`, `attic/`…). Pure functions of the path, asked by the decisions that fold such
//! folders and by the project-wide kinds that must leave them alone.

/// Folder names that hold copies of other projects.
const VENDOR_DIRS: [&str; 10] = [
    "third_party",
    "3rdparty",
    "3rd_party",
    "3rd-party",
    "thirdparty",
    "third-party",
    "vendor",
    "vendored",
    "external",
    "extern",
];

/// Whether a folder name is one that holds copies of other projects (any case).
pub fn is_vendor_dir(name: &str) -> bool {
    VENDOR_DIRS.contains(&name.to_ascii_lowercase().as_str())
}

/// The vendored component a path belongs to (`x/third_party/flashinfer`), if any: the first
/// vendor folder on the path and the folder below it, when the file sits deeper still.
pub fn component_of(path: &str) -> Option<String> {
    let segs: Vec<&str> = path.split('/').collect();
    let dirs = &segs[..segs.len().saturating_sub(1)];
    let vendor = dirs.iter().position(|s| is_vendor_dir(s));
    let release = dirs.iter().position(|s| is_release_copy(s));
    match (vendor, release) {
        // A release copy above the vendor folder holds it: the copy is the component.
        (Some(v), Some(r)) if r < v => Some(segs[..=r].join("/")),
        // `third_party/<component>/<file>`: the component is a folder, not the file itself.
        (Some(v), _) => (segs.len() > v + 2).then(|| segs[..v + 2].join("/")),
        (None, Some(r)) => Some(segs[..=r].join("/")),
        (None, None) => None,
    }
}

/// Names of toolkits, platforms and frameworks a folder is named after with a version
/// (`docker/cuda-12.1/`, `envs/python-3.10/`): the project's own variants, not a copy.
const PLATFORM_NAMES: [&str; 16] = [
    "cuda", "rocm", "hip", "python", "py", "ubuntu", "debian", "centos", "rhel", "gcc", "clang",
    "llvm", "torch", "pytorch", "cudnn", "nccl",
];

/// Whether a folder name is an unpacked release of another project: a name, a dash and a dotted
/// version (`cub-1.8.0`, `eigen-3.4.0`, `json-v3.11.2`), not named after a toolkit or platform
/// the project targets (`cuda-12.1`). kilonerf ships `cuda/cub-1.8.0/` beside its own kernels.
pub fn is_release_copy(name: &str) -> bool {
    let Some((stem, version)) = name.rsplit_once('-') else {
        return false;
    };
    let version = version.strip_prefix('v').unwrap_or(version);
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && stem.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+'))
        && !PLATFORM_NAMES.contains(&stem.to_ascii_lowercase().as_str())
}

/// Folder names by which a project sets code aside.
const MARKERS: [&str; 10] = [
    "unmaintained",
    "deprecated",
    "obsolete",
    "legacy",
    "archive",
    "archived",
    "attic",
    // pg-strom's `deadcode/`: code taken out of the build and kept.
    "deadcode",
    "dead_code",
    "dead-code",
];

/// The outermost folder of a path the project marks as not maintained (`src/legacy`), if any
/// and not inside a vendored library.
pub fn unmaintained_of(path: &str) -> Option<String> {
    let (segs, at) = outermost_named(path, &MARKERS)
        .into_iter()
        .chain(outermost_marked(path))
        .min_by_key(|(_, at)| *at)?;
    let vendored = segs[..at].iter().any(|s| is_vendor_dir(s));
    (!vendored).then(|| segs[..=at].join("/"))
}

/// Words that say "not maintained" whatever they are joined to (`ubuntu_deprecated/`,
/// `obsolete-tools/`); `legacy` and `archive` are not among them, as `legacy_utils/` or
/// `archive_reader/` name what the code handles.
const MARKER_WORDS: [&str; 3] = ["deprecated", "obsolete", "unmaintained"];

/// The outermost folder of `path` with a `_`/`-`-separated word of [`MARKER_WORDS`].
fn outermost_marked(path: &str) -> Option<(Vec<&str>, usize)> {
    let segs: Vec<&str> = path.split('/').collect();
    let dirs = &segs[..segs.len().saturating_sub(1)];
    let at = dirs.iter().position(|s| {
        s.to_ascii_lowercase()
            .split(['_', '-'])
            .any(|w| MARKER_WORDS.contains(&w))
    })?;
    Some((segs, at))
}

/// The path's segments and the index of its outermost folder (not the file) whose name, in any
/// case, is one of `names`.
fn outermost_named<'a>(path: &'a str, names: &[&str]) -> Option<(Vec<&'a str>, usize)> {
    let segs: Vec<&str> = path.split('/').collect();
    let dirs = &segs[..segs.len().saturating_sub(1)];
    let at = dirs
        .iter()
        .position(|s| names.contains(&s.to_ascii_lowercase().as_str()))?;
    Some((segs, at))
}

/// Folder names of a project's other compute backends (`src/backend/opencl/`,
/// `backends/oneapi/`, `kernels/cpu/`): code there is written for another programming model.
const OTHER_BACKENDS: [&str; 22] = [
    "opencl",
    "oneapi",
    "sycl",
    "dpcpp",
    "cpu",
    "metal",
    "mps",
    "vulkan",
    "opengl",
    "webgpu",
    "wgpu",
    "openmp",
    "omp",
    "tbb",
    "hpx",
    "serial",
    "x86",
    "arm",
    "neon",
    "xpu",
    "level_zero",
    "directml",
];

/// The outermost folder of a path that names another compute backend (`src/backend/opencl`),
/// if any. Whether the file in it holds CUDA code anyway is the caller's question.
pub fn other_backend_of(path: &str) -> Option<String> {
    let (segs, at) = outermost_named(path, &OTHER_BACKENDS)?;
    Some(segs[..=at].join("/"))
}

/// The folder of `roots` a path is in, if any.
pub fn root_of<'a>(roots: &'a [String], path: &str) -> Option<&'a String> {
    roots.iter().find(|r| {
        path.len() > r.len() + 1 && path.starts_with(r.as_str()) && path.as_bytes()[r.len()] == b'/'
    })
}
