//! The macro environment of the two builds a port compares, as data: a HIP-Clang compile for
//! AMD of the ported file, and a current CUDA build (CUDA 12.8 with its libraries). Every `#if`
//! the tool evaluates asks this one model, so a fact about a macro is written once, in
//! `mappings/hand/hip_macros.tsv` (each row with its source), and not in the rules.
//!
//! Promises: a macro the table does not list, that is not HIP's own platform macro or a
//! project's ROCm switch, and that the caller's project facts do not know, is unknown: its
//! branches stay live on both sides. `defined(X)` is decided whenever the table says whether X
//! is defined, even when its value is not pinned (RCCL's `NCCL_VERSION_CODE`). Rows may carry a
//! ROCm range (`rocm_min`/`rocm_max`); such a row holds only for a target inside it.
//!
//! For callers with project facts (macros defined in included headers or by the ROCm arm's
//! build flags), [`MacroEnv::with_extra`] takes a lookup that wins over the table:
//!
//! ```text
//! use hipport::model::macro_env::{Known, MacroEnv};
//! let project = |n: &str| (n == "USE_FAST_PATH").then_some(Known::Value(1));
//! let env = MacroEnv::hip().with_extra(&project);
//! assert_eq!(env.eval(&["USE_FAST_PATH", "&&", "CUBLAS_VERSION", ">=", "11600"]), Some(0));
//! assert_eq!(env.eval(&["defined", "(", "OTHER", ")"]), None);
//! ```

use super::cond::{self, Use};
use super::syntax::Src;
use crate::lex::Directive;
use crate::mappings::hand::{HandError, HandTable, RocmRange};
use crate::version::Version;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The hand table, embedded.
pub const TABLE: &str = include_str!("../../mappings/hand/hip_macros.tsv");

/// What a build knows about one macro.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Not defined: `defined(X)` is 0 and so is `X`.
    Undefined,
    /// Defined with this value.
    Value(i64),
    /// Defined, value not pinned: `defined(X)` is 1, `X` is unknown.
    Defined,
    /// `X` is 0 whether or not it is defined (a project switch every definition of which is a
    /// test HIP finds false, seen from a file that may or may not include one): `defined(X)`
    /// is unknown.
    Zero,
}

impl Known {
    fn read(cell: &str) -> Result<Option<Known>, String> {
        Ok(Some(match cell {
            "undefined" => Known::Undefined,
            "defined" => Known::Defined,
            "unknown" => return Ok(None),
            n => Known::Value(n.parse().map_err(|_| format!("bad macro state `{n}`"))?),
        }))
    }

    /// The value `#if` sees for `use_` (`None`: unknown).
    pub(crate) fn value(self, use_: Use) -> Option<i64> {
        match (self, use_) {
            (Known::Undefined, _) => Some(0),
            (Known::Zero, Use::Value) => Some(0),
            (Known::Zero, Use::Defined) => None,
            (_, Use::Defined) => Some(1),
            (Known::Value(v), Use::Value) => Some(v),
            (Known::Defined, Use::Value) => None,
        }
    }
}

/// Whether a macro name is a project's switch for a CUDA library with no ROCm counterpart: a
/// `_`-separated word is such a library of `mappings/hand/libraries.tsv` (`CUPTI`, `NVML`,
/// `TensorRT`, `nvCOMP`, …) and another says it is a switch (`HAS`, `HAVE`, `WITH`, `USE`,
/// `ENABLE`, `FOUND`).
pub fn cuda_only_library_switch(name: &str) -> bool {
    static LIBS: OnceLock<Vec<String>> = OnceLock::new();
    let libs = LIBS.get_or_init(|| {
        crate::mappings::libraries::table()
            .iter()
            .filter(|l| l.rocm.is_none() && !l.name.contains(' '))
            .map(|l| l.name.to_ascii_lowercase())
            .collect()
    });
    // Most names are no switch: a switch has a `_` and one of the libraries' names in it.
    if !name.contains('_')
        || !libs.iter().any(|l| {
            name.as_bytes()
                .windows(l.len())
                .any(|w| w.eq_ignore_ascii_case(l.as_bytes()))
        })
    {
        return false;
    }
    let words: Vec<String> = name
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "has" | "have" | "with" | "use" | "uses" | "enable" | "enabled" | "found"
        )
    }) && words.iter().any(|w| libs.contains(w))
}

/// The first word of a condition's text that is a CUDA-only library's switch
/// ([`cuda_only_library_switch`]).
pub fn library_switch_in(cond: &str) -> Option<&str> {
    cond.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|w| cuda_only_library_switch(w))
}

/// One table row: a macro's state in each build, for the ROCm releases in `rocm`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub hip: Option<Known>,
    pub cuda: Option<Known>,
    pub rocm: RocmRange,
}

/// Parses the table text (the loader and `xtask`-style checks share it).
pub fn parse(text: &str) -> Result<BTreeMap<String, Vec<Row>>, HandError> {
    let t = HandTable::parse("hip_macros.tsv", text, &["macro", "hip", "cuda", "source"])?;
    let mut out: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for r in t.iter() {
        let bad = |message: String| HandError {
            file: t.file.clone(),
            line: r.line,
            message,
        };
        if r.opt("source").is_none() {
            return Err(bad("a row needs a `source`".into()));
        }
        let row = Row {
            hip: Known::read(r.get("hip")).map_err(bad)?,
            cuda: Known::read(r.get("cuda")).map_err(bad)?,
            rocm: RocmRange {
                min: r.version("rocm_min")?,
                max: r.version("rocm_max")?,
            },
        };
        out.entry(r.get("macro").to_string()).or_default().push(row);
    }
    Ok(out)
}

/// The embedded table, parsed once. A parse error leaves it empty (every macro unknown, which
/// keeps branches live); `the_table_parses` fails the build's tests on such an error.
fn table() -> &'static BTreeMap<String, Vec<Row>> {
    static T: OnceLock<BTreeMap<String, Vec<Row>>> = OnceLock::new();
    T.get_or_init(|| parse(TABLE).unwrap_or_default())
}

/// Whether the table lists `name` as a CUDA toolkit or compiler identification macro (families
/// `compiler`, `runtime`, `driver`: `__NVCC__`, `CUDA_VERSION`, `CUDART_VERSION`), the macros a
/// file tests to ask "is this a CUDA build?".
pub fn is_toolkit_identification(name: &str) -> bool {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            let Ok(t) = HandTable::parse("hip_macros.tsv", TABLE, &["macro", "family"]) else {
                return Vec::new();
            };
            t.iter()
                .filter(|r| matches!(r.get("family"), "compiler" | "runtime" | "driver"))
                .map(|r| r.get("macro").to_string())
                .collect()
        })
        .iter()
        .any(|n| n == name)
}

/// The table's note on a framework's CUDA build switch (family `framework`: TensorFlow's
/// `GOOGLE_CUDA`), the switch a framework's build defines for CUDA and never for ROCm, where its
/// ROCm build defines another (`TENSORFLOW_USE_ROCM`).
pub fn framework_switch(name: &str) -> Option<&'static str> {
    static NOTES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    NOTES
        .get_or_init(|| {
            let Ok(t) = HandTable::parse("hip_macros.tsv", TABLE, &["macro", "family", "note"])
            else {
                return Vec::new();
            };
            t.iter()
                .filter(|r| r.get("family") == "framework")
                .map(|r| (r.get("macro").to_string(), r.get("note").to_string()))
                .collect()
        })
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, note)| note.as_str())
}

/// Which build a [`MacroEnv`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// HIP-Clang compiling the ported file for AMD.
    Hip,
    /// A current CUDA build (nvcc 12.8; `__CUDA_ARCH__` unknown: host and device passes).
    Cuda,
}

/// Project facts a caller knows beyond the table (they win over it).
pub type Extra<'a> = &'a dyn Fn(&str) -> Option<Known>;

/// The macros one build sees.
#[derive(Clone, Copy)]
pub struct MacroEnv<'a> {
    build: Build,
    rocm: Option<Version>,
    extra: Option<Extra<'a>>,
}

impl<'a> MacroEnv<'a> {
    /// A HIP-Clang compile for AMD; rows with a ROCm range are left out (unknown).
    pub fn hip() -> MacroEnv<'static> {
        MacroEnv {
            build: Build::Hip,
            rocm: None,
            extra: None,
        }
    }

    /// A HIP-Clang compile for AMD with ROCm `rocm` (the target, resolved once in settings).
    pub fn hip_for(rocm: Version) -> MacroEnv<'static> {
        MacroEnv {
            rocm: Some(rocm),
            ..MacroEnv::hip()
        }
    }

    /// A current CUDA build.
    pub fn cuda() -> MacroEnv<'static> {
        MacroEnv {
            build: Build::Cuda,
            rocm: None,
            extra: None,
        }
    }

    /// The same build with project facts that win over the table.
    pub fn with_extra<'b>(self, extra: Extra<'b>) -> MacroEnv<'b> {
        MacroEnv {
            build: self.build,
            rocm: self.rocm,
            extra: Some(extra),
        }
    }

    /// What this build knows about `name`, `None` when unknown.
    pub fn lookup(&self, name: &str) -> Option<Known> {
        if let Some(k) = self.extra.and_then(|e| e(name)) {
            return Some(k);
        }
        if let Some(rows) = table().get(name) {
            let row = rows
                .iter()
                .find(|r| match self.rocm {
                    Some(v) => r.rocm.contains(v),
                    None => r.rocm == RocmRange::default(),
                })
                .or_else(|| rows.iter().find(|r| r.rocm == RocmRange::default()));
            return row.and_then(|r| match self.build {
                Build::Hip => r.hip,
                Build::Cuda => r.cuda,
            });
        }
        // HIP's version (hip/hip_version.h): the target's, or defined with a value not pinned.
        if let Some(k) = self.hip_version(name) {
            return Some(k);
        }
        // HIP's own platform macros and a project's ROCm switches: defined for the HIP build
        // (the switch is the project's deliberate ROCm path), undefined for CUDA.
        if cond::is_hip_macro(name) {
            return Some(match self.build {
                Build::Hip => Known::Value(1),
                Build::Cuda => Known::Undefined,
            });
        }
        // A project's switch for a CUDA library ROCm has no build of (`NVBENCH_HAS_CUPTI`,
        // `WITH_TENSORRT`, `MXNET_USE_NVML`): the ROCm build has no such library to find, so it
        // does not define the switch; a CUDA build with the library turns it on (`-D…=1`), so
        // `#if MXNET_USE_NVML` compiles there.
        cuda_only_library_switch(name).then_some(match self.build {
            Build::Hip => Known::Undefined,
            Build::Cuda => Known::Value(1),
        })
    }

    /// HIP's version macros (`hip/hip_version.h`, and `rocm-core/rocm_version.h`'s ROCm
    /// release): in a HIP build with a target, the target's numbers (HIP's major and minor
    /// follow the ROCm release; `HIP_VERSION` is `MAJOR * 10000000 + MINOR * 100000 + PATCH`
    /// with HIP's patch, a build number, read as 0, so a test against a release threshold holds
    /// and an exact match does not); without one, defined with a value not pinned. Undefined
    /// in a CUDA build. `None` for any other name.
    fn hip_version(&self, name: &str) -> Option<Known> {
        if !cond::is_hip_version_macro(name) {
            return None;
        }
        if self.build == Build::Cuda {
            return Some(Known::Undefined);
        }
        let Some(v) = self.rocm else {
            return Some(Known::Defined);
        };
        let (major, minor) = (i64::from(v.major), i64::from(v.minor));
        Some(match name {
            "HIP_VERSION_MAJOR" | "ROCM_VERSION_MAJOR" => Known::Value(major),
            "HIP_VERSION_MINOR" | "ROCM_VERSION_MINOR" => Known::Value(minor),
            "ROCM_VERSION_PATCH" => v
                .patch
                .map_or(Known::Defined, |p| Known::Value(i64::from(p))),
            "HIP_VERSION" => Known::Value(major * 10_000_000 + minor * 100_000),
            _ => Known::Defined,
        })
    }

    /// The value of `#if`/`#elif` condition tokens in this build, `None` when unknown.
    pub fn eval(&self, toks: &[&str]) -> Option<i64> {
        cond::eval(toks, &|name, use_| self.lookup(name)?.value(use_))
    }

    /// Whether this build compiles the branch a conditional directive opens (`#if`, `#elif`,
    /// `#ifdef`, `#ifndef`, `#elifdef`, `#elifndef`; `#else` is always true here: the caller
    /// knows whether an earlier branch was taken). `None` when unknown or not a conditional.
    pub fn directive(&self, s: &Src, d: &Directive) -> Option<bool> {
        let toks = cond::condition_tokens(s, d);
        let defined = |neg: bool| {
            let k = self.lookup(toks.first()?)?;
            if k == Known::Zero {
                return None;
            }
            Some((k != Known::Undefined) != neg)
        };
        match d.name.as_str() {
            "if" | "elif" => self.eval(&toks).map(|v| v != 0),
            "ifdef" | "elifdef" => defined(false),
            "ifndef" | "elifndef" => defined(true),
            "else" => Some(true),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HIP's version macros take the target's numbers; without a target they are defined with
    /// a value not pinned (never the platform flag's 1); a CUDA build leaves them undefined.
    #[test]
    fn hip_version_macros_follow_the_target() {
        let v: Version = "6.2.0".parse().expect("a release");
        let hip = MacroEnv::hip_for(v);
        assert_eq!(hip.lookup("HIP_VERSION_MAJOR"), Some(Known::Value(6)));
        assert_eq!(hip.lookup("HIP_VERSION_MINOR"), Some(Known::Value(2)));
        assert_eq!(hip.lookup("HIP_VERSION"), Some(Known::Value(60_200_000)));
        assert_eq!(hip.eval(&["HIP_VERSION", ">=", "60200000"]), Some(1));
        assert_eq!(
            MacroEnv::hip().lookup("HIP_VERSION_MAJOR"),
            Some(Known::Defined)
        );
        assert_eq!(
            MacroEnv::hip().eval(&["HIP_VERSION_MAJOR", ">=", "6"]),
            None
        );
        assert_eq!(
            MacroEnv::cuda().lookup("HIP_VERSION"),
            Some(Known::Undefined)
        );
    }

    /// nvbench's `NVBENCH_HAS_CUPTI`: the ROCm build has no CUPTI, so it does not define the
    /// switch; a CUDA build with CUPTI does. Twins: a switch for a library ROCm ports (`USE_CUDNN`: a
    /// project may define it for its MIOpen path), a name that only mentions the library
    /// (`CUPTI_API_VERSION`), and a switch naming no library stay unknown.
    #[test]
    fn switches_of_cuda_only_libraries_are_undefined_under_hip() {
        assert!(cuda_only_library_switch("NVBENCH_HAS_CUPTI"));
        assert!(cuda_only_library_switch("WITH_TENSORRT"));
        assert!(cuda_only_library_switch("USE_NVML"));
        // kvikio's switch for GPUDirect Storage names its library (cuFile).
        assert!(cuda_only_library_switch("KVIKIO_CUFILE_FOUND"));
        for other in [
            "USE_CUDNN",
            "CUPTI_API_VERSION",
            "WITH_FAST_MATH",
            "HAS_HALF",
        ] {
            assert!(!cuda_only_library_switch(other), "{other}");
        }
        let hip = MacroEnv::hip();
        assert_eq!(hip.lookup("NVBENCH_HAS_CUPTI"), Some(Known::Undefined));
        assert_eq!(
            hip.eval(&["defined", "(", "NVBENCH_HAS_CUPTI", ")"]),
            Some(0)
        );
        assert_eq!(
            MacroEnv::cuda().lookup("NVBENCH_HAS_CUPTI"),
            Some(Known::Value(1))
        );
        assert_eq!(MacroEnv::cuda().eval(&["NVBENCH_HAS_CUPTI"]), Some(1));
    }

    /// Visual Studio's editor-only macro (nheqminer's `#ifdef __INTELLISENSE__` stubs of
    /// `__launch_bounds__` and `__CUDA_ARCH__`): no build defines it, HIP's or nvcc's.
    #[test]
    fn the_intellisense_macro_is_defined_by_no_build() {
        let t = ["defined", "(", "__INTELLISENSE__", ")"];
        assert_eq!(MacroEnv::hip().eval(&t), Some(0));
        assert_eq!(MacroEnv::cuda().eval(&t), Some(0));
    }

    #[test]
    fn the_rocm_build_runs_on_linux() {
        let hip = MacroEnv::hip();
        assert_eq!(hip.eval(&["defined", "(", "__linux__", ")"]), Some(1));
        assert_eq!(hip.eval(&["defined", "(", "_WIN32", ")"]), Some(0));
        assert_eq!(hip.eval(&["_MSC_VER", ">=", "1900"]), Some(0));
        // A CUDA build may run on Windows or Linux: its branch stays open.
        assert_eq!(
            MacroEnv::cuda().eval(&["defined", "(", "_WIN32", ")"]),
            None
        );
        assert_eq!(
            MacroEnv::cuda().eval(&["defined", "(", "__linux__", ")"]),
            None
        );
    }

    #[test]
    fn the_table_parses_and_every_row_has_a_source() {
        let t = parse(TABLE).expect("hip_macros.tsv parses");
        assert!(t.len() >= 40, "{} macros", t.len());
        // Rows are kept sorted by name (byte order), as in every hand table.
        let names: Vec<&str> = TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .skip(1)
            .filter_map(|l| l.split('\t').next())
            .collect();
        assert!(
            names.windows(2).all(|w| w[0] < w[1]),
            "hip_macros.tsv is not sorted"
        );
        assert!(is_toolkit_identification("CUDA_VERSION") && is_toolkit_identification("__NVCC__"));
        assert!(!is_toolkit_identification("CUBLAS_VERSION"));
        assert!(parse("macro\thip\tcuda\tsource\nX\tmaybe\t1\thttps://x\n").is_err());
        assert!(parse("macro\thip\tcuda\tsource\nX\tundefined\t1\t\n").is_err());
    }

    /// The name list `cond` keeps for `cuda_side` agrees with the table.
    #[test]
    fn conds_name_list_is_undefined_here() {
        for n in cond::UNDEFINED_UNDER_HIP {
            let k = MacroEnv::hip().lookup(n);
            // `__CUDACC__` is rewritten to `__HIPCC__` by `port`: defined on the HIP side.
            if *n == "__CUDACC__" {
                assert_eq!(k, Some(Known::Value(1)));
            } else {
                assert_eq!(k, Some(Known::Undefined), "{n}");
            }
        }
    }

    fn ev(env: MacroEnv, s: &str) -> Option<i64> {
        let src = format!("#if {s}\n");
        crate::model::syntax::test_support::with_tokens(&src, |s| {
            env.eval(&cond::condition_tokens(s, &s.lexed.directives[0]))
        })
    }

    #[test]
    fn library_macros_are_undefined_under_hip_and_current_under_cuda() {
        let c = "defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600";
        assert_eq!(ev(MacroEnv::hip(), c), Some(0));
        assert_eq!(ev(MacroEnv::cuda(), c), Some(1));
        assert_eq!(
            ev(MacroEnv::hip(), "defined(__CUDA_BF16_TYPES_EXIST__)"),
            Some(0)
        );
        assert_eq!(
            ev(MacroEnv::cuda(), "defined(__CUDA_BF16_TYPES_EXIST__)"),
            Some(1)
        );
        assert_eq!(ev(MacroEnv::hip(), "CUDNN_VERSION >= 8000"), Some(0));
        assert_eq!(ev(MacroEnv::cuda(), "CUDNN_MAJOR >= 8"), Some(1));
        // RCCL and rocThrust define these: defined, value not pinned.
        assert_eq!(ev(MacroEnv::hip(), "defined(NCCL_VERSION_CODE)"), Some(1));
        assert_eq!(ev(MacroEnv::hip(), "NCCL_VERSION_CODE >= 21000"), None);
        assert_eq!(ev(MacroEnv::hip(), "THRUST_VERSION >= 100900"), None);
        // GooFit's `#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA` CPU stubs: rocThrust
        // picks its HIP backend, so HIP compiles the arm a CUDA build does not.
        let cpu_stubs = "THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA";
        assert_eq!(ev(MacroEnv::hip(), cpu_stubs), Some(1));
        assert_eq!(ev(MacroEnv::cuda(), cpu_stubs), Some(0));
        // `__CUDA_ARCH__`: undefined under HIP, unknown for CUDA (host and device passes).
        assert_eq!(ev(MacroEnv::hip(), "defined(__CUDA_ARCH__)"), Some(0));
        assert_eq!(ev(MacroEnv::cuda(), "defined(__CUDA_ARCH__)"), None);
        // A project macro is unknown on both sides; HIP's platform is decided.
        assert_eq!(ev(MacroEnv::hip(), "defined(ENABLE_BF16)"), None);
        assert_eq!(ev(MacroEnv::cuda(), "defined(USE_ROCM)"), Some(0));
        assert_eq!(ev(MacroEnv::hip(), "defined(USE_ROCM)"), Some(1));
        // HIP's NVIDIA platform macro is not defined by HIP-Clang for AMD.
        assert_eq!(
            ev(MacroEnv::hip(), "defined(__HIP_PLATFORM_NVIDIA__)"),
            Some(0)
        );
    }

    #[test]
    fn project_facts_win_and_ranged_rows_need_a_target() {
        let undef = |n: &str| (n == "CUBLAS_VERSION").then_some(Known::Value(1));
        let env = MacroEnv::cuda().with_extra(&undef);
        assert_eq!(ev(env, "CUBLAS_VERSION >= 11600"), Some(0));
        let t = parse(
            "macro\thip\tcuda\trocm_min\tsource\nX\t7\t1\t7.0.0\thttps://x\nX\t6\t1\t\thttps://x\n",
        )
        .unwrap();
        let rows = &t["X"];
        assert!(rows[0].rocm.contains("7.1.0".parse().unwrap()));
        assert!(!rows[0].rocm.contains("6.4.0".parse().unwrap()));
    }
}
