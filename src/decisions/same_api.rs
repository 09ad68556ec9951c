//! One un-ported API, one decision. The translator reports an API it cannot port (HP001: no HIP
//! equivalent; HP002: deprecated; HP003: not yet in the target) at every use, with the same
//! message each time: NVIDIAGameWorks/kaolin calls `CubDebugExit` in 16 places of 9 files, one
//! fact. What a porter does is once: define the name for HIP in one header (a macro or a
//! function over the HIP counterpart), or replace it everywhere.
//!
//! So the project's own open findings of these rules with the same message (the same name and
//! the same fact) fold into the first in report order, which says how many uses in how many
//! files and where the first ones are; the rest stay in JSON as PASS naming it (SARIF lists
//! them as the head's related locations). Uses in one file only stay as they are: every report
//! already gives them as one entry with their lines. A PyTorch C++ API the ROCm builds of
//! PyTorch no longer have (HP609, one finding per file: facebookresearch/votenet's `AT_CHECK` in
//! five files) is the same decision, keyed by the name it flags; so is one inline PTX statement
//! (HP201) copied into several files (mit-han-lab/omniserve's attention utilities, one copy per
//! extension folder: 60 findings, 18 statements), keyed by the statement. It runs after the library and libcu++ decisions: a name a library's
//! decision already holds is that decision's.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// The translator's un-ported API rules.
const MEMBERS: &[&str] = &["HP001", "HP002", "HP003", "HP025"];

/// Rules whose findings are keyed by the code they flag (their messages differ per file):
/// the rule, what besides the code the key holds ([`Also`]), how the head names the decision
/// (`{name}` is the first quoted name of its message) and what it tells the porter.
/// - HP609, a removed PyTorch C++ API (`AT_CHECK`, THC), once per file with that file's count;
/// - HP004, a CUDA header with no HIP counterpart, once per including file
///   (diff-surfel-rasterization: `cooperative_groups/reduce.h` in three files);
/// - HP201, one inline PTX statement copied into several files (omniserve's attention
///   utilities, one copy per extension folder): one HIP form, written once;
/// - HP805, Taichi's CUDA backend chosen in many scripts (Taichi's own examples: 47 files):
///   one choice of backend;
/// - HP812, one toolkit-version probe copied into several scripts of one folder (brian2cuda's
///   paper benchmarks: the same `nvcc --version` snippet in nine `run_benchmarks_*.py`): one
///   way to read the version on ROCm, written once. Keyed by the folder too: probes of a build
///   backend, a container recipe and a release script are different code.
const BY_CODE: &[(&str, Also, &str, &str)] = &[
    (
        "HP609",
        Also::Nothing,
        "`{name}`:",
        "replace it in every file (or define it once in a header they all include)",
    ),
    (
        "HP004",
        Also::Nothing,
        "`{name}`: included by",
        "give it one HIP replacement (a shim header the files include) or drop the include where nothing in the file uses it",
    ),
    (
        "HP201",
        Also::Phase,
        "this inline PTX (`{name}`): the same statement in",
        "write its HIP form once (a helper, builtin or plain code) and use it in every copy",
    ),
    (
        "HP812",
        Also::Folder,
        "the toolkit-version probe that runs `{name}` in the scripts of one folder,",
        "read the version the ROCm way once (`hipconfig --version`, `torch.version.hip`) in a helper the scripts share, or drop it where only the CUDA build needs it",
    ),
    (
        "HP805",
        Also::Nothing,
        "Taichi's CUDA backend (`{name}`) chosen in",
        "choose `ti.gpu` (or `ti.amdgpu`) in each, or once in a helper they share",
    ),
];

/// What a [`BY_CODE`] key holds besides the rule and the code.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Also {
    Nothing,
    /// The phase (inline PTX in the device pass and in host code are two facts).
    Phase,
    /// The file's folder (the same probe in another folder's script is other code).
    Folder,
}

fn by_code(rule: &str) -> Option<&'static (&'static str, Also, &'static str, &'static str)> {
    BY_CODE.iter().find(|r| r.0 == rule)
}

/// How many first places the head lists.
const SHOWN: usize = 4;

/// The decision per un-ported API: every open use with the same message, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            if !super::kind::own(&f.path) {
                return None;
            }
            if let Some((_, also, _, _)) = by_code(&f.rule).filter(|_| !f.excerpt.is_empty()) {
                let also = match also {
                    Also::Nothing => String::new(),
                    Also::Phase => format!("{:?}", f.phase),
                    Also::Folder => f.path.rsplit_once('/').map_or("", |(d, _)| d).to_string(),
                };
                return Some(format!("{}\u{0}{also}\u{0}{}", f.rule, f.excerpt));
            }
            MEMBERS
                .contains(&f.rule.as_str())
                .then(|| format!("{}\u{0}{}", f.rule, f.message))
        }),
        head: super::kind::first,
        folds: super::kind::all,
        // Repeats within one file are already one entry per file in every report (their lines
        // listed); the decision is the uses across files.
        min: Min::Files(2),
        summary: Box::new(|g| {
            let name = quoted(&g.head.message).unwrap_or("this API");
            if let Some((_, _, lead, advice)) = by_code(&g.head.rule) {
                return format!(
                    " — one decision for {} {} files (first at {}), {} more folded here; {advice}",
                    lead.replace("{name}", name),
                    g.files(),
                    g.first_places(SHOWN),
                    g.folded.len()
                );
            }
            format!(
                " — one decision for `{name}`: {} uses in {} files (first at {}), {} more folded \
                 here; define it once for HIP (a macro or function in one header) or replace it \
                 everywhere",
                g.members.len(),
                g.files(),
                g.first_places(SHOWN),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            let name = quoted(&g.head.message).unwrap_or("this API");
            if g.head.rule == "HP201" {
                return super::kind::folded_into(
                    g,
                    "the same inline PTX in several files is one rewrite",
                );
            }
            super::kind::folded_into(g, &format!("porting `{name}` is one decision"))
        }),
    }
}

/// The name a message is about: its first quoted word.
fn quoted(message: &str) -> Option<&str> {
    message.split('`').nth(1)
}

/// An enumerator-style name (capitals, digits, `_`) with its digit runs written `#`:
/// `CUBLAS_GEMM_ALGO17` → `CUBLAS_GEMM_ALGO#`; `None` for a name without digits or in another
/// style (`cudaMemcpy2D` and `cudaMemcpy3D` are different functions, not members of a table).
fn numbered_family(name: &str) -> Option<String> {
    if !name.bytes().any(|b| b.is_ascii_digit())
        || !name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// One numbered family of enumerators in one file, one decision. InfiniTensor's `matmul.cc`
/// lists `CUBLAS_GEMM_ALGO0` … `CUBLAS_GEMM_ALGO23` in one table: 24 un-ported names, one fact
/// (cuBLAS's numbered algorithms have no hipBLAS counterpart) and one edit of the table. The
/// file's open findings of the same rule and fact whose names differ only in their numbers fold
/// into the first, which names the range and the lines; at least three names make a family.
pub fn numbered(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            if !MEMBERS.contains(&f.rule.as_str()) || !super::kind::own(&f.path) {
                return None;
            }
            let name = quoted(&f.message)?;
            let family = numbered_family(name)?;
            let fact = f.message.replacen(name, "", 1);
            Some(format!("{}\u{0}{}\u{0}{family}\u{0}{fact}", f.rule, f.path))
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(3),
        summary: Box::new(|g| {
            let names: Vec<&str> = g
                .members
                .iter()
                .filter_map(|f| quoted(&f.message))
                .collect();
            let family = names
                .first()
                .and_then(|n| numbered_family(n))
                .unwrap_or_default();
            let distinct: std::collections::BTreeSet<&str> = names.iter().copied().collect();
            let lo = g.members.iter().map(|f| f.line).min().unwrap_or(0);
            let hi = g.members.iter().map(|f| f.line).max().unwrap_or(0);
            let lines = if lo == hi {
                format!("line {lo}")
            } else {
                format!("lines {lo}–{hi}")
            };
            format!(
                " — one decision for the numbered family `{family}`: {} names (`{}` … `{}`) on {lines}, {} more folded here; replace the list with what HIP offers (or drop it) in one edit",
                distinct.len(),
                names.first().copied().unwrap_or_default(),
                names.last().copied().unwrap_or_default(),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            let family = quoted(&g.head.message)
                .and_then(numbered_family)
                .unwrap_or_default();
            super::kind::folded_into(
                g,
                &format!("the numbered family `{family}` is one decision"),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open_rules as open;

    fn unported(name: &str, path: &str, line: u32) -> Finding {
        Finding {
            message: format!("`{name}` has no HIP equivalent (cub API)"),
            ..Finding::bare("HP001", path, line)
        }
    }

    #[test]
    fn one_unported_name_used_in_many_places_is_one_decision() {
        let mut fs = vec![
            unported("CubDebugExit", "csrc/a.cu", 50),
            unported("CubDebugExit", "csrc/a.cu", 628),
            unported("CubDebugExit", "csrc/b.cu", 41),
            // Twins: another name, and the same name in a vendored library, stay apart.
            unported("cudaStreamGetId", "csrc/a.cu", 70),
            unported("CubDebugExit", "third_party/cub/util.cuh", 5),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [
                ("HP001", "csrc/a.cu", 50),
                ("HP001", "csrc/a.cu", 70),
                ("HP001", "third_party/cub/util.cuh", 5)
            ]
        );
        assert!(
            fs[0].message.contains("3 uses in 2 files"),
            "{}",
            fs[0].message
        );
        assert!(fs[2].message.contains("folded into `csrc/a.cu:50`"));
        // Uses in one file only are that file's entry, not a project decision.
        let mut one = vec![
            unported("CubDebugExit", "csrc/a.cu", 50),
            unported("CubDebugExit", "csrc/a.cu", 60),
        ];
        let k = kind(&one);
        super::super::fold(&mut one, &k);
        assert_eq!(open(&one).len(), 2);
        assert!(!one[0].message.contains("one decision"));
    }

    /// InfiniTensor: `CUBLAS_GEMM_ALGO0` … `ALGO23` in one table is one decision. Twins: two
    /// names of a family stay apart, another file's family is its own, and camel-case names
    /// with numbers (`cudaMemcpy2D`, `cudaMemcpy3D`, `cudaMemcpy4D`) are different functions.
    #[test]
    fn a_numbered_family_of_enumerators_in_one_file_is_one_decision() {
        let blas = |name: &str, path: &str, line: u32| Finding {
            message: format!("`{name}` has no HIP equivalent (blas API)"),
            ..Finding::bare("HP001", path, line)
        };
        let mut fs: Vec<Finding> = (0..24)
            .map(|i| blas(&format!("CUBLAS_GEMM_ALGO{i}"), "k/matmul.cc", 27 + i / 3))
            .collect();
        fs.push(blas("CUBLAS_GEMM_ALGO0", "k/other.cc", 5));
        fs.push(blas("CUBLAS_GEMM_ALGO1", "k/other.cc", 5));
        for n in ["cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpy4D"] {
            fs.push(unported(n, "k/copy.cu", 9));
        }
        assert_eq!(
            numbered_family("CUBLAS_GEMM_ALGO12_TENSOR_OP").as_deref(),
            Some("CUBLAS_GEMM_ALGO#_TENSOR_OP")
        );
        let k = numbered(&fs);
        super::super::fold(&mut fs, &k);
        let open_now = open(&fs);
        assert_eq!(open_now.iter().filter(|o| o.1 == "k/matmul.cc").count(), 1);
        assert_eq!(open_now.iter().filter(|o| o.1 == "k/other.cc").count(), 2);
        assert_eq!(open_now.iter().filter(|o| o.1 == "k/copy.cu").count(), 3);
        assert!(
            fs[0].message.contains("`CUBLAS_GEMM_ALGO#`: 24 names (`CUBLAS_GEMM_ALGO0` … `CUBLAS_GEMM_ALGO23`) on lines 27–34, 23 more folded here"),
            "{}",
            fs[0].message
        );
        assert!(fs[5].message.contains("folded into `k/matmul.cc:27`"));
    }

    /// votenet: `AT_CHECK` once per file in five files is one decision, keyed by the flagged
    /// name although each file's message counts its own uses. Twin: another removed name.
    #[test]
    fn a_removed_torch_api_in_many_files_is_one_decision() {
        let removed = |name: &str, path: &str, n: usize| Finding {
            message: format!("`{name}`: PyTorch removed it ({n} uses in this file)"),
            excerpt: name.to_string(),
            ..Finding::bare("HP609", path, 3)
        };
        let mut fs = vec![
            removed("AT_CHECK", "src/a.cpp", 4),
            removed("AT_CHECK", "src/b.cpp", 1),
            removed("AT_CHECK", "src/c.cpp", 2),
            removed("THCState", "src/c.cpp", 1),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP609", "src/a.cpp", 3), ("HP609", "src/c.cpp", 3)]
        );
        assert!(
            fs[0]
                .message
                .contains("one decision for `AT_CHECK`: 3 files"),
            "{}",
            fs[0].message
        );
    }

    /// brian2cuda's paper benchmarks: the same `nvcc --version` probe in several scripts is one
    /// decision. Twins: a probe written another way, and the same probe in another folder's
    /// build script, stay their own.
    #[test]
    fn one_version_probe_copied_into_many_scripts_is_one_decision() {
        let probe = |code: &str, path: &str| Finding {
            message: "runs `nvcc --version`: there is no nvcc on ROCm".to_string(),
            excerpt: code.to_string(),
            ..Finding::bare("HP812", path, 9)
        };
        let same = r#"subprocess.check_output(["nvcc", "--version"])"#;
        let mut fs = vec![
            probe(same, "bench/run_fig5.py"),
            probe(same, "bench/run_fig6.py"),
            probe(same, "bench/run_fig7.py"),
            probe("os.popen('nvcc --version')", "tools/env.py"),
            probe(same, "setup.py"),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [
                ("HP812", "bench/run_fig5.py", 9),
                ("HP812", "tools/env.py", 9),
                ("HP812", "setup.py", 9)
            ]
        );
        assert!(
            fs[0]
                .message
                .contains("in the scripts of one folder, 3 files"),
            "{}",
            fs[0].message
        );
    }

    /// diff-surfel-rasterization: one missing header included by three files is one decision.
    /// Twin: another header stays its own.
    #[test]
    fn a_missing_header_included_by_many_files_is_one_decision() {
        let inc = |header: &str, path: &str| Finding {
            message: format!("`{header}` has no HIP counterpart in ROCm 7.0.0"),
            excerpt: format!("#include <{header}>"),
            ..Finding::bare("HP004", path, 15)
        };
        let mut fs = vec![
            inc("cooperative_groups/reduce.h", "r/backward.cu"),
            inc("cooperative_groups/reduce.h", "r/forward.cu"),
            inc("cooperative_groups/reduce.h", "r/impl.cu"),
            inc("mma.h", "r/impl.cu"),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("HP004", "r/backward.cu", 15), ("HP004", "r/impl.cu", 15)]
        );
        assert!(
            fs[0].message.contains("included by 3 files"),
            "{}",
            fs[0].message
        );
    }
}
