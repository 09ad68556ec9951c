//! `hipport_compat.h`: shims that close small gaps of the target ROCm release with a known
//! equivalent (`__syncwarp` before 7.0, `hipsparseGetErrorString` before 6.0, the math
//! constants before 5.3/5.7, bf16 conversions before 5.6, SIMD video intrinsics, …).
//!
//! Each shim is one file in `mappings/compat/`: real C++ after a `// key: value` block that says
//! which CUDA names or headers it covers, for which ROCm range, where it comes from (the later
//! HIP release's own implementation or AMD's documentation), what it does differently, and a
//! snippet that `cargo xtask hipcc-check` compiles with the shim. `port --compat-header` renames
//! covered uses, includes the header where they occur and writes it once into the output tree.

pub mod on_disk;

use crate::mappings::hand::RocmRange;
use crate::mappings::{Mappings, Target};
use crate::version::Version;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The header's file name, written at the root of the output tree.
pub const HEADER_NAME: &str = "hipport_compat.h";

/// The shim files, embedded at build time (a test checks the list against the directory).
pub const SHIM_FILES: &[(&str, &str)] = &[
    (
        "activemask.h",
        include_str!("../../mappings/compat/activemask.h"),
    ),
    (
        "bf16_conversions.h",
        include_str!("../../mappings/compat/bf16_conversions.h"),
    ),
    (
        "cg_reduce.h",
        include_str!("../../mappings/compat/cg_reduce.h"),
    ),
    (
        "half2_atomic_add.h",
        include_str!("../../mappings/compat/half2_atomic_add.h"),
    ),
    (
        "int_minmax.h",
        include_str!("../../mappings/compat/int_minmax.h"),
    ),
    (
        "math_constants.h",
        include_str!("../../mappings/compat/math_constants.h"),
    ),
    (
        "simd_video.h",
        include_str!("../../mappings/compat/simd_video.h"),
    ),
    (
        "sparse_error_string.h",
        include_str!("../../mappings/compat/sparse_error_string.h"),
    ),
    (
        "syncwarp.h",
        include_str!("../../mappings/compat/syncwarp.h"),
    ),
    (
        "warp_reduce_sync.h",
        include_str!("../../mappings/compat/warp_reduce_sync.h"),
    ),
];

/// One shim, read from its file.
#[derive(Clone, Debug)]
pub struct Shim {
    pub id: String,
    pub file: &'static str,
    /// CUDA name → the name the translated code uses (the later release's HIP name). A CUDA name
    /// ending in `*` is a prefix: it covers every name whose HIP name the shim `#define`s.
    pub names: Vec<(String, String)>,
    /// CUDA headers the shim stands in for (the include is replaced by the compat header).
    pub headers: Vec<String>,
    /// A file that uses every `uses` name and one of the `with` names needs the shim (overloads
    /// the target lacks: `atomicAdd` on `__half2`).
    pub uses: Vec<String>,
    pub with: Vec<String>,
    /// The ROCm releases that have the gap.
    pub range: RocmRange,
    /// A preprocessor condition true where the gap exists (`HIP_VERSION < 70000000`).
    pub guard: Option<String>,
    /// The shim is the later release's own implementation: its uses are PASS.
    pub exact: bool,
    /// Skip under `--roc` (the shim fills a hip* wrapper library gap).
    pub hip_only: bool,
    /// Headers the shim needs: HIP paths, or `cuda:<header>` mapped for the target.
    pub requires: Vec<String>,
    pub sources: Vec<String>,
    pub semantics: String,
    /// A use of every function, compiled with the shim by `cargo xtask hipcc-check`.
    pub test: String,
    pub code: String,
}

#[derive(Debug, thiserror::Error)]
#[error("mappings/compat/{file}: {message}")]
pub struct ShimError {
    pub file: String,
    pub message: String,
}

impl Shim {
    pub fn parse(file: &'static str, text: &str) -> Result<Shim, ShimError> {
        let err = |message: String| ShimError {
            file: file.to_string(),
            message,
        };
        let (head, code) = text
            .split_once("\n// ---\n")
            .ok_or_else(|| err("no `// ---` line between the metadata and the code".into()))?;
        let mut s = Shim {
            id: String::new(),
            file,
            names: Vec::new(),
            headers: Vec::new(),
            uses: Vec::new(),
            with: Vec::new(),
            range: RocmRange::default(),
            guard: None,
            exact: false,
            hip_only: false,
            requires: Vec::new(),
            sources: Vec::new(),
            semantics: String::new(),
            test: String::new(),
            code: code.trim_end().to_string() + "\n",
        };
        for line in head.lines() {
            let Some((key, value)) = line.strip_prefix("// ").and_then(|l| {
                l.split_once(": ")
                    .or_else(|| l.strip_suffix(':').map(|k| (k, "")))
            }) else {
                return Err(err(format!("not a `// key: value` line: {line}")));
            };
            let words = || value.split_whitespace().map(str::to_string);
            match key {
                "id" => s.id = value.trim().to_string(),
                "names" => s.names.extend(words().map(|w| match w.split_once('=') {
                    Some((c, h)) => (c.to_string(), h.to_string()),
                    None => (w.clone(), w),
                })),
                "headers" => s.headers.extend(words()),
                "uses" => s.uses.extend(words()),
                "with" => s.with.extend(words()),
                "rocm" => {
                    let v: Vec<&str> = value.split_whitespace().collect();
                    let parse =
                        |x: &str| x.parse::<Version>().map_err(|e| err(format!("rocm: {e}")));
                    s.range.min = v.first().map(|x| parse(x)).transpose()?;
                    s.range.max = v.get(1).map(|x| parse(x)).transpose()?;
                }
                "guard" => s.guard = Some(value.trim().to_string()),
                "exact" => s.exact = value.trim() == "yes",
                "hip-only" => s.hip_only = value.trim() == "yes",
                "requires" => s.requires.extend(words()),
                "source" => s.sources.push(value.trim().to_string()),
                "semantics" => {
                    if !s.semantics.is_empty() {
                        s.semantics.push(' ');
                    }
                    s.semantics.push_str(value.trim());
                }
                "test" => {
                    s.test.push_str(value);
                    s.test.push('\n');
                }
                other => return Err(err(format!("unknown key `{other}`"))),
            }
        }
        if s.id.is_empty() || s.sources.is_empty() || s.semantics.is_empty() || s.test.is_empty() {
            return Err(err("id, source, semantics and test are required".into()));
        }
        if s.names.is_empty() && s.headers.is_empty() && s.uses.is_empty() {
            return Err(err("covers nothing (no names, headers or uses)".into()));
        }
        Ok(s)
    }

    /// Whether the target release has the gap this shim closes.
    pub fn applies(&self, target: &Target) -> bool {
        self.range.contains(target.rocm) && !(self.hip_only && target.roc)
    }

    /// The name the translation writes for `cuda`, when this shim covers it. `hip` is the
    /// mapping table's HIP name (for prefix rows).
    pub fn covers(&self, cuda: &str, hip: Option<&str>) -> Option<String> {
        for (c, h) in &self.names {
            if let Some(prefix) = c.strip_suffix('*') {
                let Some(hip) = hip else { continue };
                let hprefix = h.trim_end_matches('*');
                if cuda.starts_with(prefix)
                    && hip.starts_with(hprefix)
                    && self.code.contains(&format!("#define {hip} "))
                {
                    return Some(hip.to_string());
                }
            } else if c == cuda {
                return Some(h.clone());
            }
        }
        None
    }

    /// What a finding on a shimmed use says about the shim.
    pub fn status_note(&self) -> &'static str {
        if self.exact {
            "the later HIP release's own implementation"
        } else {
            "verify at runtime"
        }
    }
}

/// All shims, parsed once.
pub fn shims() -> &'static [Shim] {
    static SHIMS: OnceLock<Vec<Shim>> = OnceLock::new();
    SHIMS.get_or_init(|| {
        SHIM_FILES
            .iter()
            .map(|(f, t)| Shim::parse(f, t).expect("embedded compat shims are valid"))
            .collect()
    })
}

pub fn by_id(id: &str) -> Option<&'static Shim> {
    shims().iter().find(|s| s.id == id)
}

/// How a finding's suggestion names the shim that covers an un-ported name when `port` ran
/// without `--compat-header` (the text up to the shim's id): `decisions::per_file` folds a
/// file's names one shim covers into one decision by it.
pub const SHIM_HINT: &str =
    "rerun `hipport port` with `--compat-header`: its hipport_compat.h defines it (shim `";

/// The shim covering a CUDA name for the target, with the name to write.
pub fn for_name(cuda: &str, hip: Option<&str>, target: &Target) -> Option<(&'static Shim, String)> {
    shims()
        .iter()
        .filter(|s| s.applies(target))
        .find_map(|s| s.covers(cuda, hip).map(|h| (s, h)))
}

/// The shim standing in for a CUDA header in the target.
pub fn for_header(cuda_header: &str, target: &Target) -> Option<&'static Shim> {
    shims()
        .iter()
        .find(|s| s.applies(target) && s.headers.iter().any(|h| h == cuda_header))
}

/// The `#include` path from a file at `rel` (relative to the output root, `/`-separated) to the
/// header at the root.
pub fn include_path(rel: &str) -> String {
    let depth = rel
        .split('/')
        .filter(|s| !s.is_empty())
        .count()
        .saturating_sub(1);
    format!("{}{HEADER_NAME}", "../".repeat(depth))
}

/// The header for `target` with the shims `ids` (sorted, each once).
pub fn render(target: &Target, ids: &BTreeSet<String>, m: &Mappings) -> String {
    let chosen: Vec<&Shim> = shims().iter().filter(|s| ids.contains(&s.id)).collect();
    let mut out = String::new();
    // The marker first: a rerun replaces only a header that starts with it.
    out.push_str(&format!(
        "{} for ROCm {} (`hipport port --compat-header`).\n",
        on_disk::MARKER,
        target.rocm
    ));
    out.push_str(
        "// Shims for CUDA features the target release lacks, each with its source and what it does\n\
         // differently. Each is compiled only where the gap exists (HIP_VERSION guards), so the\n\
         // release's own definition wins after an upgrade. Regenerate rather than edit.\n",
    );
    out.push_str("#ifndef HIPPORT_COMPAT_H\n#define HIPPORT_COMPAT_H\n\n");
    let mut includes: Vec<String> = vec!["hip/hip_runtime.h".into()];
    for s in &chosen {
        for r in &s.requires {
            let path = match r.strip_prefix("cuda:") {
                Some(cuda) => match m.include(cuda, target) {
                    Some(Ok(p)) => p.to_string(),
                    _ => continue,
                },
                None => r.clone(),
            };
            if !includes.contains(&path) {
                includes.push(path);
            }
        }
    }
    for i in &includes {
        out.push_str(&format!("#include <{i}>\n"));
    }
    for s in &chosen {
        out.push_str(&format!("\n// ---- {} ({})\n", s.id, s.status_note()));
        for src in &s.sources {
            out.push_str(&format!("// source: {src}\n"));
        }
        for line in wrap(&s.semantics, 96) {
            out.push_str(&format!("// {line}\n"));
        }
        match &s.guard {
            Some(g) => {
                out.push_str(&format!("#if !defined(HIP_VERSION) || {g}\n"));
                out.push_str(&s.code);
                out.push_str("#endif\n");
            }
            None => out.push_str(&s.code),
        }
    }
    out.push_str("\n#endif // HIPPORT_COMPAT_H\n");
    out
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for w in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + 1 + w.len() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// A translation unit that uses one shim: the header for `target` with that shim, then its
/// test snippet (what `cargo xtask hipcc-check` compiles).
pub fn test_unit(shim: &Shim, target: &Target, m: &Mappings) -> String {
    let ids = BTreeSet::from([shim.id.clone()]);
    format!("{}\n{}", render(target, &ids, m), shim.test)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(v: &str) -> Target {
        Target {
            rocm: v.parse().unwrap(),
            roc: false,
            experimental: false,
            lds: None,
        }
    }

    #[test]
    fn every_file_in_the_directory_is_embedded_and_parses() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mappings/compat");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let embedded: Vec<String> = SHIM_FILES.iter().map(|(f, _)| f.to_string()).collect();
        assert_eq!(on_disk, embedded);
        let ids: BTreeSet<&str> = shims().iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids.len(), shims().len(), "shim ids are unique");
        for s in shims() {
            assert!(
                s.sources.iter().all(|u| u.starts_with("https://")),
                "{}",
                s.id
            );
        }
    }

    #[test]
    fn shims_apply_only_where_the_gap_is() {
        let sw = by_id("syncwarp").unwrap();
        assert!(sw.applies(&target("5.2.0")));
        assert!(sw.applies(&target("6.4.0")));
        assert!(!sw.applies(&target("7.0.0")));
        let sp = by_id("sparse_error_string").unwrap();
        assert!(sp.applies(&target("5.7.1")));
        assert!(!sp.applies(&target("6.0.0")));
        let mut roc = target("5.2.0");
        roc.roc = true;
        assert!(
            !sp.applies(&roc),
            "a hip* wrapper shim is skipped under --roc"
        );
    }

    #[test]
    fn names_and_prefix_rows_resolve() {
        let t = target("5.2.0");
        let (s, to) = for_name("cusparseGetErrorString", None, &t).unwrap();
        assert_eq!(
            (s.id.as_str(), to.as_str()),
            ("sparse_error_string", "hipsparseGetErrorString")
        );
        let (s, to) = for_name("CUDART_PI_F", Some("HIP_PI_F"), &t).unwrap();
        assert_eq!((s.id.as_str(), to.as_str()), ("math_constants", "HIP_PI_F"));
        // A prefix row covers only what the shim defines.
        assert!(for_name("CUDART_NOT_A_CONSTANT", Some("HIP_NOT_A_CONSTANT"), &t).is_none());
        assert!(for_name("__syncwarp", None, &target("7.0.0")).is_none());
        assert!(for_name("cudaMalloc", Some("hipMalloc"), &t).is_none());
        assert_eq!(
            for_header("math_constants.h", &t).unwrap().id,
            "math_constants"
        );
        assert!(for_header("math_constants.h", &target("5.7.0")).is_none());
    }

    #[test]
    fn include_path_climbs_to_the_root() {
        assert_eq!(include_path("a.cu"), "hipport_compat.h");
        assert_eq!(include_path("src/k/a.cu"), "../../hipport_compat.h");
    }

    #[test]
    fn header_lists_source_semantics_and_guard_once_per_shim() {
        let m = crate::mappings::get();
        let t = target("5.2.0");
        let ids = BTreeSet::from(["syncwarp".to_string(), "sparse_error_string".to_string()]);
        let h = render(&t, &ids, m);
        assert!(h.starts_with("// hipport_compat.h: generated by hipport"));
        assert!(h.contains("#include <hipsparse/hipsparse.h>"), "{h}");
        assert_eq!(h.matches("// ---- syncwarp (verify at runtime)").count(), 1);
        assert!(h.contains("#if !defined(HIP_VERSION) || HIP_VERSION < 70000000\n__device__ inline void __syncwarp()"));
        assert!(h.contains("wavefront-scope release fence"));
        assert!(!h.contains("math_constants"));
        assert!(h.trim_end().ends_with("#endif // HIPPORT_COMPAT_H"));
    }

    #[test]
    fn malformed_shims_are_refused_with_the_file() {
        let e = Shim::parse("x.h", "// id: x\nint a;\n").unwrap_err();
        assert!(e.to_string().contains("mappings/compat/x.h"));
        let e = Shim::parse("x.h", "// id: x\n// bogus: 1\n// ---\nint a;\n").unwrap_err();
        assert!(e.to_string().contains("unknown key"));
        let e = Shim::parse("x.h", "// id: x\n// names: a\n// ---\nint a;\n").unwrap_err();
        assert!(e.to_string().contains("required"));
    }
}
