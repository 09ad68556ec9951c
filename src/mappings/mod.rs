//! CUDA→HIP mapping tables, embedded at build time and loaded once per run.
//!
//! `generated/` comes from AMD HIPIFY's API tables (`cargo xtask mappings`); `hand/` holds
//! facts those tables lack, each with its source. [`Mappings::resolve`] answers, for one CUDA
//! name and one exact target, what the port does with it.

pub mod half_atomics;
pub mod hand;
pub mod hip_removed;
pub mod lds;
pub mod libraries;
pub mod link_names;
pub mod table;

use crate::version::Version;
use hand::{HandError, HandTable, RocmRange};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;
use table::{Family, Kind, Row, Versions};

/// The generated tables, one per family, embedded in the binary.
pub const GENERATED: [(Family, &str); 15] = [
    (
        Family::Runtime,
        include_str!("../../mappings/generated/runtime.tsv"),
    ),
    (
        Family::Driver,
        include_str!("../../mappings/generated/driver.tsv"),
    ),
    (
        Family::Device,
        include_str!("../../mappings/generated/device.tsv"),
    ),
    (
        Family::Complex,
        include_str!("../../mappings/generated/complex.tsv"),
    ),
    (
        Family::Rtc,
        include_str!("../../mappings/generated/rtc.tsv"),
    ),
    (
        Family::Blas,
        include_str!("../../mappings/generated/blas.tsv"),
    ),
    (
        Family::Sparse,
        include_str!("../../mappings/generated/sparse.tsv"),
    ),
    (
        Family::Solver,
        include_str!("../../mappings/generated/solver.tsv"),
    ),
    (
        Family::Rand,
        include_str!("../../mappings/generated/rand.tsv"),
    ),
    (
        Family::Fft,
        include_str!("../../mappings/generated/fft.tsv"),
    ),
    (
        Family::Dnn,
        include_str!("../../mappings/generated/dnn.tsv"),
    ),
    (
        Family::Cub,
        include_str!("../../mappings/generated/cub.tsv"),
    ),
    (
        Family::Tensor,
        include_str!("../../mappings/generated/tensor.tsv"),
    ),
    (
        Family::SparseLt,
        include_str!("../../mappings/generated/sparselt.tsv"),
    ),
    (
        Family::File,
        include_str!("../../mappings/generated/file.tsv"),
    ),
];

pub const HAND_INCLUDES: &str = include_str!("../../mappings/hand/includes.tsv");
pub const HAND_IDENTIFIERS: &str = include_str!("../../mappings/hand/identifiers.tsv");
pub const HAND_NAMESPACES: &str = include_str!("../../mappings/hand/namespaces.tsv");
pub const HAND_HISTORY: &str = include_str!("../../mappings/hand/hip_history.tsv");

/// One row of `mappings/hand/hip_history.tsv`: the spelling a HIP name has in a range of
/// releases (the HIPIFY tables give only the newest name and a `C` version).
#[derive(Clone, Debug)]
pub struct HistoryRow {
    /// The name the generated tables give.
    pub hip: String,
    pub range: RocmRange,
    /// The name in `range` (equal to `hip` when only the signature changed).
    pub name: String,
    pub requires_define: Option<String>,
    /// Applies only in files that call a hipBLAS function taking `hipblasDatatype_t`.
    pub hipblas_datatype_context: bool,
    /// In `range` the function takes `hipblasDatatype_t` arguments.
    pub takes_hipblas_datatype: bool,
    pub note: String,
    pub source: String,
}

/// Where an entry came from: a HIPIFY family, or a hand-kept family name (`nvtx`, `nccl`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    Table(Family),
    Hand(&'static str),
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Table(f) => f.as_str(),
            Origin::Hand(s) => s,
        }
    }
}

/// One CUDA name and what HIP offers for it.
#[derive(Clone, Debug)]
pub struct Entry {
    pub cuda: String,
    pub kind: Kind,
    pub origin: Origin,
    pub section: String,
    pub hip: Option<String>,
    pub hip_versions: Versions,
    pub hip_experimental: bool,
    pub roc: Option<String>,
    pub roc_versions: Versions,
    pub roc_experimental: bool,
    /// For hand rows: the ROCm range in which `hip` is right.
    pub range: RocmRange,
    pub note: String,
    /// A macro that must be defined for the HIP name to be declared in this range.
    pub requires_define: Option<String>,
}

#[derive(Clone, Debug)]
pub struct IncludeMap {
    pub cuda: String,
    pub hip: Option<String>,
    pub roc: Option<String>,
    pub range: RocmRange,
    pub family: String,
    pub note: String,
}

#[derive(Clone, Debug)]
pub struct NamespaceMap {
    /// `cub` or `thrust::cuda` (the `::`-separated path as written, without spaces).
    pub cuda: String,
    pub hip: Option<String>,
    pub note: String,
}

/// Translation switches that change which name a CUDA name maps to.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub rocm: Version,
    /// Map cuBLAS/cuSPARSE/cuRAND/cuSOLVER straight to the roc* libraries (HIPIFY `--roc`).
    pub roc: bool,
    /// Translate names HIP marks experimental.
    pub experimental: bool,
    /// The LDS a workgroup of the target GPU can allocate ([`lds::for_archs`]); `None`: not
    /// checked.
    pub lds: Option<lds::Lds>,
}

/// Why a CUDA name is left as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unported {
    /// HIP has no equivalent.
    NoEquivalent,
    /// The equivalent appears only in a later ROCm.
    AddedAfter(Version),
    /// The equivalent was removed at or before the target.
    Removed(Version),
    /// HIP marks the equivalent experimental and `--experimental` is off.
    Experimental(String),
    /// `--roc` is on and the roc* library has no equivalent (the hip* one does).
    NoRocEquivalent(String),
}

#[derive(Clone, Debug)]
pub enum Resolution<'m> {
    /// Rename to `to`. `deprecated` is set when HIP deprecated the name at or before the target.
    Rename {
        to: &'m str,
        entry: &'m Entry,
        deprecated: Option<Version>,
    },
    /// The HIP name is the CUDA name: nothing to edit, handled (counts as PASS).
    Same {
        entry: &'m Entry,
    },
    Unported {
        entry: &'m Entry,
        why: Unported,
    },
}

pub struct Mappings {
    pub entries: Vec<Entry>,
    by_cuda: FxHashMap<String, usize>,
    hand_by_cuda: FxHashMap<String, Vec<usize>>,
    pub includes: Vec<IncludeMap>,
    includes_by_cuda: FxHashMap<String, Vec<usize>>,
    pub namespaces: Vec<NamespaceMap>,
    /// The last segment of every CUDA namespace path (`cub`, `cuda`): a fast pre-check.
    namespace_last: rustc_hash::FxHashSet<String>,
    /// The newest HIP version any table mentions: the default target.
    pub newest: Version,
    /// `hip_history.tsv` by the HIP name of the generated tables.
    pub history: FxHashMap<String, Vec<HistoryRow>>,
    /// Per CUDA name, entries that apply only in a hipBLAS-datatype file (see [`HistoryRow`]).
    context_by_cuda: FxHashMap<String, Vec<usize>>,
    /// CUDA names whose HIP function takes `hipblasDatatype_t` in the given ranges.
    datatype_users: FxHashMap<String, Vec<RocmRange>>,
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Table(#[from] table::TableError),
    #[error(transparent)]
    Hand(#[from] HandError),
}

static MAPPINGS: OnceLock<Mappings> = OnceLock::new();

/// The names PyTorch's build-time hipify renames (`mappings/torch/torch_hipify.tsv`, made
/// by `cargo xtask torch-hipify` from ROCm/hipify_torch's v1 and v2 maps).
pub const TORCH_HIPIFY: &str = include_str!("../../mappings/torch/torch_hipify.tsv");

/// Whether PyTorch's build-time hipify (either map) renames `name`: a `CUDAExtension`'s sources
/// reach hipcc with every other CUDA name as written.
pub fn torch_hipify_renames(name: &str) -> bool {
    static NAMES: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            TORCH_HIPIFY
                .lines()
                .filter(|l| !l.starts_with('#'))
                .skip(1)
                .filter_map(|l| l.split('\t').next())
                .collect()
        })
        .contains(name)
}

/// The embedded tables, parsed on first use. Embedded data is checked by the test suite, so a
/// failure here is a build defect.
pub fn get() -> &'static Mappings {
    MAPPINGS.get_or_init(|| Mappings::load_embedded().expect("embedded mapping tables are valid"))
}

fn leak_family(s: &str) -> &'static str {
    // Hand families are a small closed set; intern them.
    const KNOWN: &[&str] = &[
        "runtime",
        "driver",
        "device",
        "rounding",
        "fp16",
        "bf16",
        "fp8",
        "complex",
        "rtc",
        "blas",
        "blaslt",
        "sparse",
        "sparselt",
        "tensor",
        "file",
        "solver",
        "rand",
        "fft",
        "dnn",
        "cub",
        "thrust",
        "nccl",
        "nvtx",
        "nvml",
        "coop-groups",
        "profiler",
        "wmma",
        "libcu++",
        "cutlass",
        "warp-sync",
        "other",
    ];
    KNOWN.iter().find(|k| **k == s).copied().unwrap_or("other")
}

impl Mappings {
    pub fn load_embedded() -> Result<Mappings, LoadError> {
        let mut tables = Vec::new();
        for (family, text) in GENERATED {
            let name = format!("mappings/generated/{}.tsv", family.as_str());
            tables.push((family, table::parse_tsv(&name, text)?));
        }
        let mut m = Mappings::build(tables, HAND_IDENTIFIERS, HAND_INCLUDES, HAND_NAMESPACES)?;
        m.apply_history(HAND_HISTORY)?;
        Ok(m)
    }

    /// Reads `hip_history.tsv` and splits every name whose HIP spelling changed into one row per
    /// release range (the history rows first, the generated row last as the catch-all), so that
    /// resolution picks the spelling valid in the target release.
    pub fn apply_history(&mut self, text: &str) -> Result<(), LoadError> {
        let file = "mappings/hand/hip_history.tsv";
        let t = HandTable::parse(file, text, &["hip", "name", "source"])?;
        let mut history: FxHashMap<String, Vec<HistoryRow>> = FxHashMap::default();
        for row in t.iter() {
            let context = match row.get("context") {
                "" => false,
                "hipblas-datatype" => true,
                other => {
                    return Err(HandError {
                        file: file.into(),
                        line: row.line,
                        message: format!("unknown context `{other}`"),
                    }
                    .into())
                }
            };
            if !row.get("source").starts_with("https://") {
                return Err(HandError {
                    file: file.into(),
                    line: row.line,
                    message: "source must be a URL".into(),
                }
                .into());
            }
            history
                .entry(row.get("hip").to_string())
                .or_default()
                .push(HistoryRow {
                    hip: row.get("hip").to_string(),
                    range: RocmRange {
                        min: row.version("rocm_min")?,
                        max: row.version("rocm_max")?,
                    },
                    name: row.get("name").to_string(),
                    requires_define: row.opt("requires_define").map(str::to_string),
                    hipblas_datatype_context: context,
                    takes_hipblas_datatype: row.get("takes") == "hipblasDatatype_t",
                    note: row.get("note").to_string(),
                    source: row.get("source").to_string(),
                });
        }
        // Every CUDA name with its entries: the hand lists, then the generated rows.
        let mut groups: Vec<(String, Vec<usize>, bool)> = self
            .hand_by_cuda
            .iter()
            .map(|(k, v)| (k.clone(), v.clone(), true))
            .collect();
        groups.extend(
            self.by_cuda
                .iter()
                .map(|(k, &i)| (k.clone(), vec![i], false)),
        );
        groups.sort_by(|a, b| a.0.cmp(&b.0));
        for (cuda, rows, hand) in groups {
            let mut list = Vec::new();
            let mut changed = false;
            for &i in &rows {
                let Some(h) = self.entries[i].hip.clone() else {
                    list.push(i);
                    continue;
                };
                for hr in history.get(&h).into_iter().flatten() {
                    let e = &self.entries[i];
                    let range = RocmRange {
                        min: later(e.range.min, hr.range.min),
                        max: earlier(e.range.max, hr.range.max),
                    };
                    if matches!((range.min, range.max), (Some(a), Some(b)) if a > b) {
                        continue;
                    }
                    if hr.takes_hipblas_datatype {
                        self.datatype_users
                            .entry(cuda.clone())
                            .or_default()
                            .push(range);
                    }
                    let mut clone = e.clone();
                    clone.hip = Some(hr.name.clone());
                    clone.range = range;
                    if hr.range.min.is_some() {
                        clone.hip_versions.added = hr.range.min;
                    }
                    if hr.requires_define.is_some() {
                        clone.requires_define = hr.requires_define.clone();
                    }
                    clone.note = hr.note.clone();
                    let at = self.entries.len();
                    self.entries.push(clone);
                    if hr.hipblas_datatype_context {
                        self.context_by_cuda
                            .entry(cuda.clone())
                            .or_default()
                            .push(at);
                    } else {
                        list.push(at);
                        changed = true;
                    }
                }
                list.push(i);
            }
            if changed {
                if !hand {
                    self.by_cuda.remove(&cuda);
                }
                self.hand_by_cuda.insert(cuda, list);
            }
        }
        self.history = history;
        Ok(())
    }

    /// Whether `cuda` becomes, in `target`, a hipBLAS function that takes `hipblasDatatype_t`
    /// (hipBLAS before 6.0: `hipblasGemmEx`, `hipblasDotEx`, …). A file that calls one needs
    /// the `HIPBLAS_R_*` forms of the data-type names: see [`Mappings::resolve_in_context`].
    pub fn takes_hipblas_datatype(&self, cuda: &str, target: &Target) -> bool {
        !target.roc
            && self
                .datatype_users
                .get(cuda)
                .is_some_and(|rs| rs.iter().any(|r| r.contains(target.rocm)))
    }

    /// Like [`Mappings::resolve`], inside a file that calls a hipBLAS function taking
    /// `hipblasDatatype_t`: `CUDA_R_16F` → `HIPBLAS_R_16F` instead of `HIP_R_16F` there.
    pub fn resolve_in_context(
        &self,
        cuda: &str,
        target: &Target,
        hipblas_datatype: bool,
    ) -> Option<Resolution<'_>> {
        if hipblas_datatype && !target.roc {
            if let Some(rows) = self.context_by_cuda.get(cuda) {
                if let Some(e) = rows
                    .iter()
                    .map(|&i| &self.entries[i])
                    .find(|e| e.range.contains(target.rocm))
                {
                    return Some(resolve_entry(e, target));
                }
            }
        }
        self.resolve(cuda, target)
    }

    pub fn build(
        tables: Vec<(Family, Vec<Row>)>,
        identifiers: &str,
        includes: &str,
        namespaces: &str,
    ) -> Result<Mappings, LoadError> {
        let mut entries = Vec::new();
        let mut by_cuda: FxHashMap<String, usize> = FxHashMap::default();
        let mut newest = Version::new(0, 0, 0);
        let mut see = |v: &Versions| {
            for x in [v.added, v.deprecated, v.changed, v.removed]
                .into_iter()
                .flatten()
            {
                if x > newest {
                    newest = x;
                }
            }
        };
        for (family, rows) in tables {
            for r in rows {
                see(&r.hip_versions);
                see(&r.roc_versions);
                let e = Entry {
                    cuda: r.cuda,
                    kind: r.kind,
                    origin: Origin::Table(family),
                    section: r.section,
                    hip: r.hip,
                    hip_versions: r.hip_versions,
                    hip_experimental: r.hip_experimental,
                    roc: r.roc,
                    roc_versions: r.roc_versions,
                    roc_experimental: r.roc_experimental,
                    range: RocmRange::default(),
                    note: String::new(),
                    requires_define: None,
                };
                match by_cuda.get(&e.cuda) {
                    // The first family that maps a name wins over one that does not.
                    Some(&i) if entries_has_mapping(&entries[i]) || e.hip.is_none() => {}
                    _ => {
                        by_cuda.insert(e.cuda.clone(), entries.len());
                    }
                }
                entries.push(e);
            }
        }
        // Hand identifier rows override the generated ones for the same name; one name may have
        // several rows for different ROCm ranges.
        let ids = HandTable::parse(
            "mappings/hand/identifiers.tsv",
            identifiers,
            &["cuda", "hip", "family"],
        )?;
        let mut hand_by_cuda: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for row in ids.iter() {
            let kind = Kind::parse(row.get("kind")).unwrap_or(Kind::Unknown);
            let range = RocmRange {
                min: row.version("rocm_min")?,
                max: row.version("rocm_max")?,
            };
            let e = Entry {
                cuda: row.get("cuda").to_string(),
                kind,
                origin: Origin::Hand(leak_family(row.get("family"))),
                section: String::new(),
                // `(delete)`: the CUDA token has no counterpart and is simply removed.
                hip: row.opt("hip").map(|h| {
                    if h == "(delete)" {
                        String::new()
                    } else {
                        h.to_string()
                    }
                }),
                hip_versions: Versions::default(),
                hip_experimental: false,
                roc: row.opt("roc").map(str::to_string),
                roc_versions: Versions::default(),
                roc_experimental: false,
                range,
                note: row.get("note").to_string(),
                requires_define: row.opt("requires_define").map(str::to_string),
            };
            hand_by_cuda
                .entry(e.cuda.clone())
                .or_default()
                .push(entries.len());
            entries.push(e);
        }
        for (name, rows) in &hand_by_cuda {
            by_cuda.remove(name);
            let _ = rows;
        }
        let inc = HandTable::parse(
            "mappings/hand/includes.tsv",
            includes,
            &["cuda_header", "hip_header"],
        )?;
        let mut include_rows = Vec::new();
        let mut includes_by_cuda: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for row in inc.iter() {
            let m = IncludeMap {
                cuda: row.get("cuda_header").to_string(),
                hip: row.opt("hip_header").map(str::to_string),
                roc: row.opt("roc_header").map(str::to_string),
                range: RocmRange {
                    min: row.version("rocm_min")?,
                    max: row.version("rocm_max")?,
                },
                family: row.get("family").to_string(),
                note: row.get("note").to_string(),
            };
            includes_by_cuda
                .entry(m.cuda.clone())
                .or_default()
                .push(include_rows.len());
            include_rows.push(m);
        }
        let ns = HandTable::parse("mappings/hand/namespaces.tsv", namespaces, &["cuda", "hip"])?;
        let namespaces: Vec<NamespaceMap> = ns
            .iter()
            .map(|row| NamespaceMap {
                cuda: row.get("cuda").replace(' ', ""),
                hip: row.opt("hip").map(str::to_string),
                note: row.get("note").to_string(),
            })
            .collect();
        Ok(Mappings {
            entries,
            by_cuda,
            hand_by_cuda,
            includes: include_rows,
            includes_by_cuda,
            namespace_last: namespaces
                .iter()
                .filter_map(|n: &NamespaceMap| n.cuda.rsplit("::").next().map(str::to_string))
                .collect(),
            namespaces,
            newest,
            history: FxHashMap::default(),
            context_by_cuda: FxHashMap::default(),
            datatype_users: FxHashMap::default(),
        })
    }

    /// The generated-table entry of a name (hand-kept names: the row for the newest range).
    pub fn entry(&self, cuda: &str) -> Option<&Entry> {
        if let Some(rows) = self.hand_by_cuda.get(cuda) {
            return rows.last().map(|&i| &self.entries[i]);
        }
        self.by_cuda.get(cuda).map(|&i| &self.entries[i])
    }

    /// Whether `name` ends some CUDA namespace path (`cub` in `cub::`, `cuda` in `thrust::cuda`).
    pub fn is_namespace_segment(&self, name: &str) -> bool {
        self.namespace_last.contains(name)
    }

    /// Whether `name` is a known CUDA name (mapped or not).
    pub fn knows(&self, cuda: &str) -> bool {
        self.by_cuda.contains_key(cuda) || self.hand_by_cuda.contains_key(cuda)
    }

    pub fn len(&self) -> usize {
        self.by_cuda.len() + self.hand_by_cuda.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the port does with `cuda` for `target`; `None` when the name is not a CUDA API.
    pub fn resolve(&self, cuda: &str, target: &Target) -> Option<Resolution<'_>> {
        if let Some(rows) = self.hand_by_cuda.get(cuda) {
            return Some(self.resolve_hand(rows, target));
        }
        let entry = self.by_cuda.get(cuda).map(|&i| &self.entries[i])?;
        Some(resolve_entry(entry, target))
    }

    /// Hand rows: the row whose ROCm range holds the target decides; outside every range, the
    /// name is un-ported (not yet, or no longer, available).
    fn resolve_hand<'m>(&'m self, rows: &[usize], target: &Target) -> Resolution<'m> {
        let rows: Vec<&Entry> = rows.iter().map(|&i| &self.entries[i]).collect();
        let later_with_name = |after: Version| {
            rows.iter()
                .filter(|e| e.hip.is_some() && e.range.min.is_some_and(|m| m > after))
                .filter_map(|e| e.range.min)
                .min()
        };
        if let Some(e) = rows.iter().find(|e| e.range.contains(target.rocm)) {
            if e.hip.is_none() {
                if let Some(v) = later_with_name(target.rocm) {
                    return Resolution::Unported {
                        entry: e,
                        why: Unported::AddedAfter(v),
                    };
                }
            }
            return resolve_entry(e, target);
        }
        let first = rows[0];
        if let Some(v) = later_with_name(target.rocm) {
            return Resolution::Unported {
                entry: first,
                why: Unported::AddedAfter(v),
            };
        }
        let max = rows.iter().filter_map(|e| e.range.max).max();
        Resolution::Unported {
            entry: first,
            why: max.map_or(Unported::NoEquivalent, Unported::Removed),
        }
    }

    /// The HIP header for a CUDA header in the target; `Err(row)` for a known CUDA header with
    /// no counterpart there; `None` when the header is not a CUDA header.
    pub fn include(&self, cuda: &str, target: &Target) -> Option<Result<&str, &IncludeMap>> {
        let rows = self.includes_by_cuda.get(cuda)?;
        let row = rows
            .iter()
            .map(|&i| &self.includes[i])
            .find(|r| r.range.contains(target.rocm));
        let Some(row) = row else {
            // Known header, but no row covers the target: no counterpart in that ROCm.
            return Some(Err(&self.includes[rows[0]]));
        };
        let name = if target.roc {
            row.roc.as_ref().or(row.hip.as_ref())
        } else {
            row.hip.as_ref()
        };
        Some(name.map(|s| s.as_str()).ok_or(row))
    }

    /// Whether a header path is a CUDA header the tables know (`cuda_fp16.h`, `cublas_v2.h`).
    pub fn is_cuda_header(&self, path: &str) -> bool {
        self.includes_by_cuda.contains_key(path)
    }

    /// Whether a header path is one of the CUDA toolkit's own (a CUDA header that is not one of
    /// cuda-samples' `Common/` helpers: `helper_cuda.h` holds code a program calls, which a
    /// vendored copy ports like the program's own).
    pub fn is_toolkit_header(&self, path: &str) -> bool {
        self.includes_by_cuda
            .get(path)
            .is_some_and(|rows| rows.iter().any(|&i| self.includes[i].family != "samples"))
    }

    /// Whether a header path is one the port may produce (a HIP header of some row).
    pub fn is_hip_header(&self, path: &str) -> bool {
        self.includes
            .iter()
            .any(|r| r.hip.as_deref() == Some(path) || r.roc.as_deref() == Some(path))
    }
}

fn later(a: Option<Version>, b: Option<Version>) -> Option<Version> {
    a.max(b)
}

fn earlier(a: Option<Version>, b: Option<Version>) -> Option<Version> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn entries_has_mapping(e: &Entry) -> bool {
    e.hip.is_some() || e.roc.is_some()
}

fn resolve_entry<'m>(entry: &'m Entry, target: &Target) -> Resolution<'m> {
    // cuDNN maps to MIOpen (the ROC column), never to the abandoned hipDNN.
    let use_roc = match entry.origin {
        Origin::Table(Family::Dnn) => true,
        Origin::Table(f) => target.roc && f.has_roc(),
        Origin::Hand(_) => target.roc && entry.roc.is_some(),
    };
    let (name, versions, experimental) = if use_roc {
        (&entry.roc, &entry.roc_versions, entry.roc_experimental)
    } else {
        (&entry.hip, &entry.hip_versions, entry.hip_experimental)
    };
    let Some(name) = name else {
        let why = match (&entry.origin, use_roc, &entry.hip) {
            (Origin::Table(Family::Dnn), _, _) => Unported::NoEquivalent,
            (_, true, Some(hip)) => Unported::NoRocEquivalent(hip.clone()),
            _ => Unported::NoEquivalent,
        };
        return Resolution::Unported { entry, why };
    };
    if let Some(max) = entry.range.max {
        if target.rocm > max {
            return Resolution::Unported {
                entry,
                why: Unported::Removed(max),
            };
        }
    }
    if let Some(added) = versions.added {
        if added > target.rocm {
            return Resolution::Unported {
                entry,
                why: Unported::AddedAfter(added),
            };
        }
    }
    if let Some(removed) = versions.removed {
        if removed <= target.rocm {
            return Resolution::Unported {
                entry,
                why: Unported::Removed(removed),
            };
        }
    }
    if experimental && !target.experimental {
        return Resolution::Unported {
            entry,
            why: Unported::Experimental(name.clone()),
        };
    }
    if *name == entry.cuda {
        return Resolution::Same { entry };
    }
    let deprecated = versions.deprecated.filter(|d| *d <= target.rocm);
    Resolution::Rename {
        to: name,
        entry,
        deprecated,
    }
}
