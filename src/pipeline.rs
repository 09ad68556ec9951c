//! The per-file pipeline shared by `port`, `scan` and `check`: read → lex/translate → parse
//! (when the file holds CUDA) → hazard rules → result. Files are processed in parallel, largest
//! first, one tree alive per worker; results come back sorted by path. A failure inside one file
//! becomes that file's error, never an abort of the run.

use crate::finding::Finding;
use crate::gate::Status;
use crate::mappings::Mappings;
use crate::model::project::{Project, Visible};
use crate::parse::{self, Health};
use crate::safety::guarded;
use crate::source::{self, SourceFile};
use crate::translate::{self, Options, Stats};
use crate::walk::Input;
use rayon::prelude::*;

/// What the pipeline should produce for each file.
#[derive(Clone, Copy, Debug)]
pub struct Work {
    pub translate: Options,
    /// Run the hazard rules (scan); otherwise only translation findings.
    pub hazards: bool,
    /// Put review comments into the translated output.
    pub annotate: bool,
    /// Keep the translated bytes (diff, --out, --write); scans drop them.
    pub keep_output: bool,
    pub max_file_size: u64,
    /// Report tree-sitter parse health (scan, `port --format json`, goldens). Translation reads
    /// tokens only, so `port` without it never builds a tree: the parse is most of its time.
    pub parse_health: bool,
}

pub struct FileResult {
    pub input: Vec<u8>,
    /// The translation; empty when `keep_output` is off.
    pub output: Vec<u8>,
    pub changed: bool,
    pub stats: Stats,
    pub findings: Vec<Finding>,
    pub health: Health,
    /// Overlapping edits (an engine defect if ever non-zero).
    pub conflicts: usize,
    /// Findings silenced by `// hipport: allow(HPxxx)` comments.
    pub suppressed: usize,
    /// Notes a scan reports once per project, not per file (a project's own ROCm switch).
    pub project_notes: Vec<Finding>,
    /// Ids of the `hipport_compat.h` shims the output uses.
    pub compat: Vec<String>,
    /// The file's quoted `#include "…"` paths as written (scan only: which headers a source
    /// pulls in, for sources a build compiles only for CUDA).
    pub includes: Vec<String>,
    /// The includes written only in branches the ROCm build never compiles (scan only: a
    /// header pulled in only there is not the ROCm build's).
    pub dead_includes: Vec<String>,
    /// The file's `#define`s, with whether HIP compiles each (scan only: project macros only
    /// the CUDA side defines).
    pub defines: Vec<crate::model::cuda_side::Define>,
    /// The file's launches and kernels for the cross-file launch-shape pass (scan only: a
    /// C/C++/CUDA source's facts from this one lex).
    pub rows: Option<crate::rules::warp_size::launch_rows::FileRows>,
    /// Namespaces the file declares inside another namespace (scan only: a project's own
    /// `ctranslate2::cuda` is not libcu++'s `cuda::`).
    pub namespaces: Vec<String>,
    /// Renames PyTorch's build-time hipify does not make, in the code the ROCm build compiles
    /// (scan only: an HP022 finding each at the name's first use; the scan keeps them for the
    /// files a PyTorch extension builds, `rules::project_build::names_hipify_leaves`).
    pub torch_left: Vec<(crate::translate::TorchLeft, Finding)>,
}

pub struct FileOutcome {
    pub input: Input,
    pub result: Result<FileResult, String>,
}

/// The stack of each worker. The rules read expressions recursively, and a hostile file nests
/// them hundreds of thousands deep (a 1 MB `a + a + …` is 200 000 levels): the default stack
/// overflowed, which aborts the whole run. The size is reserved, not used: only the pages a
/// deep file touches are ever allocated.
const WORKER_STACK: usize = 1 << 30;

/// Runs the pipeline over `inputs` in parallel; the outcomes are in the inputs' (sorted) order.
/// A token-only pre-pass over the headers among `inputs` first builds the project model
/// ([`Project::of_inputs`]): what each file sees defined in the project files it includes.
pub fn run(inputs: &[Input], work: &Work, m: &Mappings) -> Vec<FileOutcome> {
    run_with(
        inputs,
        work,
        m,
        &Default::default(),
        &Default::default(),
        &Default::default(),
    )
}

/// [`run`] with what the project's HIP build files define for every unit
/// ([`crate::model::project::hip_build_defines`]) and the macros only its CUDA build's CMake
/// arms define ([`crate::inventory::cmake::cuda_build_only_macros`]).
pub fn run_with(
    inputs: &[Input],
    work: &Work,
    m: &Mappings,
    hip_build: &std::collections::BTreeMap<String, (crate::model::macro_env::Known, String)>,
    cuda_build_only: &std::collections::BTreeMap<String, String>,
    cuda_selectors: &std::collections::BTreeMap<String, String>,
) -> Vec<FileOutcome> {
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    // Largest first balances the workers.
    order.sort_by_key(|&i| std::cmp::Reverse(inputs[i].size));
    let all = || -> Vec<(usize, FileOutcome)> {
        let mut project = Project::of_inputs(inputs, work.max_file_size);
        project.hip_build = hip_build.clone();
        project.set_cuda_build_macros(cuda_build_only, cuda_selectors);
        order
            .par_iter()
            .map(|&i| (i, process_in(&inputs[i], work, m, &project)))
            .collect()
    };
    let mut results = match rayon::ThreadPoolBuilder::new()
        .stack_size(WORKER_STACK)
        .build()
    {
        Ok(pool) => pool.install(all),
        Err(_) => all(),
    };
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, o)| o).collect()
}

pub fn process(input: &Input, work: &Work, m: &Mappings) -> FileOutcome {
    process_in(input, work, m, &Project::default())
}

/// [`process`] for a file of `project`.
pub fn process_in(input: &Input, work: &Work, m: &Mappings, project: &Project) -> FileOutcome {
    let result = match source::read(&input.path, work.max_file_size) {
        Err(e) => Err(e.to_string()),
        Ok(text) => guarded(|| process_bytes_in(&input.rel, text.bytes, work, m, project)),
    };
    FileOutcome {
        input: input.clone(),
        result,
    }
}

/// Reruns `port --annotate` on its own output of a file whose parse has errors until the
/// output stops changing (at most [`SETTLE_ROUNDS`] more rounds), so that rerunning the tool on
/// what it wrote changes nothing. The findings reported are the first pass's.
fn settle_annotated(
    rel: &str,
    mut output: Vec<u8>,
    work: &Work,
    m: &Mappings,
    project: &Project,
) -> Vec<u8> {
    let mut again = *work;
    again.keep_output = true;
    for _ in 0..SETTLE_ROUNDS {
        let next = process_file(rel, output.clone(), &again, m, project, false).output;
        if next == output {
            break;
        }
        output = next;
    }
    output
}

/// Reruns of an annotated file with parse errors before its output is taken as it is.
const SETTLE_ROUNDS: usize = 3;

/// The pipeline on bytes in memory (tests, benchmarks, stdin).
pub fn process_bytes(rel: &str, bytes: Vec<u8>, work: &Work, m: &Mappings) -> FileResult {
    process_bytes_in(rel, bytes, work, m, &Project::default())
}

/// [`process_bytes`] for a file of `project`: the translation and the rules see what the
/// project files it includes define.
pub fn process_bytes_in(
    rel: &str,
    bytes: Vec<u8>,
    work: &Work,
    m: &Mappings,
    project: &Project,
) -> FileResult {
    process_file(rel, bytes, work, m, project, true)
}

/// One file's work; `settle`: an annotated file with parse errors is settled (see
/// [`settle_annotated`], whose reruns pass `false`).
fn process_file(
    rel: &str,
    bytes: Vec<u8>,
    work: &Work,
    m: &Mappings,
    project: &Project,
    settle: bool,
) -> FileResult {
    // One lex per file: translation, the hazard rules, suppressions and the annotated
    // translation all read these tokens.
    let mut file = SourceFile::new(rel, bytes);
    let own_includes = crate::model::includes::written(&file.bytes, &file.lexed);
    let seen = project.visible_from(rel, &own_includes);
    // The file's logical-warp model, once: the translator and the rules ask the same one.
    let warps = crate::rules::warp_size::logical::LogicalWarps::seeing(
        rel,
        &file.bytes,
        &file.lexed,
        &seen,
    );
    // One parse per file at most: before translation when a byte search says the file is worth
    // it, otherwise after, only if the translation found CUDA anyway.
    // The tree feeds only the hazard rules and the parse-health report.
    let want_tree = work.hazards || work.parse_health;
    let early = want_tree
        && (work.hazards
            || crate::prefilter::mentions_cuda(&file.bytes)
            || translate::overloads::may_apply(&file.bytes));
    if early {
        file.parse();
    }
    let plain = translate::translate_seeing(
        &file.ctx(),
        &file.lexed,
        m,
        &work.translate,
        None,
        &seen,
        Some(&warps),
    );
    let relevant = early
        || plain.changed(&file.bytes)
        || !plain.findings.is_empty()
        || plain.stats.unchanged_api > 0;
    if want_tree && !early && relevant {
        file.parse();
    }
    let health = if want_tree && relevant {
        parse::health(file.tree.as_ref(), &file.bytes, &file.lines)
    } else {
        Health::default()
    };
    let mut findings = plain.findings;
    let mut project_notes = Vec::new();
    // Each name PyTorch's hipify leaves, as a finding at its first use: the hazard model drops
    // or settles those in code the ROCm build does not compile, like every other finding.
    let left = if work.hazards {
        torch_left_findings(&file, &plain.stats.torch_left, &mut findings)
    } else {
        Vec::new()
    };
    let hip_never = std::cell::RefCell::new(Vec::new());
    if work.hazards {
        // A name in a branch HIP never compiles (or one written for HIP) is not a porting
        // problem: scan leaves it out, as it does the hazards there.
        let hazards = crate::rules::hazards::check_file(
            &file,
            &work.translate.target,
            &seen,
            &warps,
            &mut findings,
            &mut project_notes,
            &hip_never,
        );
        findings.extend(hazards);
    }
    if work.hazards && health.abandoned {
        findings.push(crate::rules::coverage::abandoned(&file.ctx()));
    }
    pass_project_definitions(&file.bytes, &seen, &mut findings);
    if work.hazards {
        pass_amd_native(&file.bytes, &file.lexed, &mut findings);
    }
    // The tree and the rules' index are the largest things a file holds: gone before the
    // annotated translation allocates its output.
    file.drop_tree();
    let suppressed =
        crate::rules::suppress::apply_lexed(&file.bytes, &file.lexed, &file.lines, &mut findings);
    // Out of the file's findings before it is annotated: they are the scan's, for PyTorch
    // extensions only.
    let torch_left = take_torch_left(left, &mut findings);
    let compat = plain.compat;
    let (output, conflicts, stats) = if work.annotate {
        let t = translate::translate_seeing(
            &file.ctx(),
            &file.lexed,
            m,
            &work.translate,
            Some(&findings),
            &seen,
            Some(&warps),
        );
        // A tree with errors is recovered by tree-sitter at a cost that counts the bytes it
        // skips, so the notes themselves can move that recovery and, on a rerun, the findings:
        // such a file's annotated output is settled by rerunning on it until nothing changes.
        // A clean parse is not moved by comments, so it is annotated in one pass.
        let output = if settle && want_tree && relevant && !health.clean() {
            settle_annotated(rel, t.output, work, m, project)
        } else {
            t.output
        };
        (output, t.conflicts, t.stats)
    } else {
        (plain.output, plain.conflicts, plain.stats)
    };
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings.dedup_by(|a, b| a.rule == b.rule && a.byte_range == b.byte_range);
    let changed = output != file.bytes;
    let rows = (work.hazards && crate::walk::is_source(rel))
        .then(|| crate::rules::warp_size::launch_rows::file_rows(rel, &file.bytes, &file.lexed))
        .flatten();
    let (includes, dead_includes, defines, namespaces) = if work.hazards {
        // Resolved from the includer's folder by scan: the quoted ones the ROCm build compiles
        // (`#if GMX_GPU_CUDA` / `#include "cuda_arch_utils.cuh"` is the CUDA build's edge).
        let never = hip_never.borrow();
        // Angled ones too (`#include <inline_ptx.h>` through the `include/` root): scan
        // resolves them under the include roots only.
        let (includes, dead_includes) = if never.is_empty() {
            (own_includes, Vec::new())
        } else {
            let (dead, live): (Vec<_>, Vec<_>) =
                crate::model::includes::written_at(&file.bytes, &file.lexed)
                    .into_iter()
                    .partition(|(at, _)| never.iter().any(|r| r.contains(at)));
            (
                live.into_iter().map(|(_, i)| i).collect(),
                dead.into_iter().map(|(_, i)| i).collect(),
            )
        };
        (
            includes,
            dead_includes,
            crate::model::cuda_side::file_defines(file.path, &file.bytes, &file.lexed),
            crate::rules::project_build::nested_namespaces(&file.bytes, &file.lexed),
        )
    } else {
        (Vec::new(), Vec::new(), Vec::new(), Vec::new())
    };
    FileResult {
        output: if work.keep_output { output } else { Vec::new() },
        input: file.bytes,
        changed,
        stats,
        findings,
        health,
        conflicts,
        suppressed,
        project_notes,
        compat,
        includes,
        dead_includes,
        defines,
        rows,
        namespaces,
        torch_left,
    }
}

/// One HP022 finding per name in `left` (REMEDIATION at its first use), appended to `findings`;
/// returns `left` in the same order.
fn torch_left_findings(
    file: &crate::source::SourceFile,
    left: &[crate::translate::TorchLeft],
    findings: &mut Vec<Finding>,
) -> Vec<crate::translate::TorchLeft> {
    let ctx = file.ctx();
    for l in left {
        let uses = match l.uses {
            1 => "1 use".to_string(),
            n => format!("{n} uses"),
        };
        findings.push(ctx.finding(
            &crate::translate::rules::NAMES_PYTORCH_HIPIFY_LEAVES,
            l.at.clone(),
            format!(
                "`{}` → `{}`: PyTorch's build-time hipify does not make this rename, and HIP does not define `{}` ({uses} in this file)",
                l.cuda, l.hip, l.cuda
            ),
            Some(format!("rename it in the sources, or define it for the ROCm build (`{}` for `{}`)", l.hip, l.cuda)),
        ));
    }
    left.to_vec()
}

/// Takes the HP022 findings [`torch_left_findings`] added out of `findings`: those still open
/// (not dropped or settled by the hazard model or a suppression) and at a place no other rule
/// reports are paired with their name.
fn take_torch_left(
    left: Vec<crate::translate::TorchLeft>,
    findings: &mut Vec<Finding>,
) -> Vec<(crate::translate::TorchLeft, Finding)> {
    if left.is_empty() {
        return Vec::new();
    }
    let code = crate::translate::rules::NAMES_PYTORCH_HIPIFY_LEAVES.id.code;
    // A name another rule reports at the same place is that rule's fact (FP8 types: HP709).
    let other: std::collections::HashSet<usize> = findings
        .iter()
        .filter(|f| f.rule != code)
        .map(|f| f.byte_range.0)
        .collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < findings.len() {
        if findings[k].rule != code {
            k += 1;
            continue;
        }
        let f = findings.remove(k);
        if f.status == Status::Pass || other.contains(&f.byte_range.0) {
            continue;
        }
        if let Some(l) = left.iter().find(|l| l.at.start == f.byte_range.0) {
            out.push((l.clone(), f));
        }
    }
    out
}

/// A file that calls AMDGCN builtins (`__builtin_amdgcn_ds_swizzle`, `__builtin_amdgcn_mfma_…`)
/// and includes no CUDA header is written for AMD GPUs already (a project's own CDNA kernels, a
/// vendored copy of ROCm's hipRTC header): its lane arithmetic, wavefront and launch-bound
/// assumptions are AMD's, so the hazard rules' findings there (HP1xx–HP7xx) are PASS saying so.
/// The translator's findings stay: a CUDA name in such a file is still one.
fn pass_amd_native(bytes: &[u8], lexed: &crate::lex::Lexed, findings: &mut [Finding]) {
    if memchr::memmem::find(bytes, b"__builtin_amdgcn_").is_none()
        || crate::model::own::includes_a_cuda_header(bytes, lexed, crate::mappings::get())
    {
        return;
    }
    for f in findings.iter_mut() {
        let hazard = matches!(
            f.rule.get(2..3),
            Some("1" | "2" | "3" | "4" | "5" | "6" | "7")
        ) && !crate::rules::hazards::HIP_CODE_RULES.contains(&f.rule.as_str());
        if hazard && f.status != Status::Pass {
            f.settle(" (this file calls AMDGCN builtins and includes no CUDA header: it is written for AMD GPUs, and its wavefront assumptions are AMD's)");
        }
    }
}

/// A name the translator found no HIP counterpart for (HP001) that a project file the unit
/// includes defines for the ROCm build (`#define __stwb(dst, src) *dst = src` under
/// `#if defined(USE_ROCM)` in `compat.cuh`) resolves to that definition: PASS, naming it. The
/// unit's own definitions are the hazard rules' (`declared_names`).
fn pass_project_definitions(bytes: &[u8], seen: &Visible, findings: &mut [Finding]) {
    if seen.rocm.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        let rule = f.rule.as_str();
        if (rule != crate::translate::rules::UNPORTED_API.id.code
            && rule != crate::translate::rules::NAMES_PYTORCH_HIPIFY_LEAVES.id.code)
            || f.status == Status::Pass
        {
            continue;
        }
        let text = bytes.get(f.byte_range.0..f.byte_range.1).unwrap_or(&[]);
        let text = std::str::from_utf8(text).unwrap_or("");
        let head = text
            .trim_start_matches(':')
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        if let Some(d) = seen.rocm_definition(head) {
            f.settle(&format!(
                " (defined for ROCm by {}: the project's own)",
                d.at
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translate::LaunchSyntax;

    /// A CUDA file with a kernel, a launch, an overload HIP defines, hazards and a suppression:
    /// every pass has something to do.
    const SRC: &[u8] = b"#include <cuda_runtime.h>\n\
        __global__ void k(int *x) {\n\
          int lane = threadIdx.x % 32; // hipport: allow(HP102) tile size\n\
          x[lane] = __shfl_down_sync(0xffffffff, lane, 16);\n\
          asm volatile(\"membar.gl;\");\n\
        }\n\
        void run(int *x, cudaStream_t s) {\n\
          k<<<1, 64, 0, s>>>(x);\n\
          cudaStreamSynchronize(s);\n\
        }\n";

    pub(super) fn work(hazards: bool, annotate: bool) -> Work {
        Work {
            translate: Options {
                target: crate::mappings::Target {
                    rocm: "6.2.0".parse().unwrap(),
                    roc: false,
                    experimental: false,
                    lds: None,
                },
                // `--launch-syntax hip` rewrites launches on the translated output, which is
                // lexed once more (a known second lex, not covered here).
                launch: LaunchSyntax::Keep,
                implicit_include: true,
                compat_header: false,
                unsafe_fixes: false,
            },
            hazards,
            annotate,
            keep_output: true,
            max_file_size: u64::MAX,
            parse_health: true,
        }
    }

    /// Per command (port, scan, port --annotate) a file's bytes are lexed once and parsed once.
    #[test]
    fn each_file_is_lexed_once_and_parsed_once() {
        let m = crate::mappings::get();
        for (name, w) in [
            ("port --format json", work(false, false)),
            ("scan", work(true, false)),
            ("port --annotate", work(true, true)),
        ] {
            let (lex0, parse0) = (crate::lex::lex_count(), parse::parse_count());
            let r = process_bytes("k.cu", SRC.to_vec(), &w, m);
            assert!(r.changed && r.health.parsed, "{name}");
            assert!(r.suppressed >= 1 || !w.hazards, "{name}: {}", r.suppressed);
            let lexes = crate::lex::lex_count() - lex0;
            let parses = parse::parse_count() - parse0;
            assert_eq!(
                (lexes, parses),
                (1, 1),
                "{name}: lexed {lexes}, parsed {parses} times"
            );
        }
    }

    /// `port` (diff, `--out`, `--write`) reads tokens only: the same file is lexed once and never
    /// parsed, and its output is the same as with the parse.
    #[test]
    fn port_without_parse_health_never_parses() {
        let m = crate::mappings::get();
        let mut w = work(false, false);
        let with_tree = process_bytes("k.cu", SRC.to_vec(), &w, m);
        w.parse_health = false;
        let (lex0, parse0) = (crate::lex::lex_count(), parse::parse_count());
        let r = process_bytes("k.cu", SRC.to_vec(), &w, m);
        assert_eq!(
            (
                crate::lex::lex_count() - lex0,
                parse::parse_count() - parse0
            ),
            (1, 0)
        );
        assert!(!r.health.parsed);
        assert_eq!(r.output, with_tree.output);
        assert_eq!(r.findings.len(), with_tree.findings.len());
    }

    /// HP001 on a name an included header defines for ROCm is PASS naming it; the same call in
    /// a unit that includes nothing of the project stays.
    #[test]
    fn a_name_an_included_header_defines_for_rocm_passes() {
        let m = crate::mappings::get();
        let header = "#if defined(USE_ROCM)\n#define __stwb(dst, src) *dst = src\n#endif\n";
        let lexed = crate::lex::lex(header.as_bytes());
        let facts = crate::model::project::facts("compat.cuh", header.as_bytes(), &lexed);
        let project = Project::from_facts(
            vec![("compat.cuh".to_string(), facts)],
            ["compat.cuh", "k.cu"].into_iter(),
        );
        let hp001 = |src: &str| {
            let r = process_bytes_in(
                "k.cu",
                src.as_bytes().to_vec(),
                &work(true, false),
                m,
                &project,
            );
            r.findings
                .into_iter()
                .filter(|f| f.rule == "HP001")
                .map(|f| (f.status, f.message))
                .collect::<Vec<_>>()
        };
        let body = "__global__ void k(float *p) { __stwb(p, 1.0f); }\n";
        let seen = hp001(&format!("#include \"compat.cuh\"\n{body}"));
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].0, Status::Pass);
        assert!(
            seen[0].1.contains("defined for ROCm by compat.cuh:2"),
            "{}",
            seen[0].1
        );
        let unseen = hp001(body);
        assert_eq!(unseen.len(), 1);
        assert_eq!(unseen[0].0, Status::Remediation);
    }

    /// A panic inside a file's work is that file's error, with its message, not the run's end.
    #[test]
    fn a_panic_in_one_file_becomes_its_error() {
        assert_eq!(guarded(|| 7), Ok(7));
        let e = guarded(|| -> usize { panic!("bad node at {}", 3) }).unwrap_err();
        assert!(e.starts_with("internal error while processing"), "{e}");
        assert!(e.ends_with("bad node at 3"), "{e}");
    }
}

#[cfg(test)]
mod one_fact {
    use super::*;

    fn rules_at(src: &str, rocm: &str) -> Vec<(String, Status, u32)> {
        let mut w = tests_work();
        w.translate.target.rocm = rocm.parse().unwrap();
        let r = process_bytes("k.cu", src.as_bytes().to_vec(), &w, crate::mappings::get());
        r.findings
            .into_iter()
            .filter(|f| matches!(f.rule.as_str(), "HP006" | "HP103"))
            .map(|f| (f.rule, f.status, f.line))
            .collect()
    }

    fn tests_work() -> Work {
        Work {
            translate: Options {
                target: crate::mappings::Target {
                    rocm: "7.0.0".parse().unwrap(),
                    roc: false,
                    experimental: false,
                    lds: None,
                },
                launch: crate::translate::LaunchSyntax::Keep,
                implicit_include: true,
                compat_header: false,
                unsafe_fixes: false,
            },
            hazards: true,
            annotate: false,
            keep_output: false,
            max_file_size: u64::MAX,
            parse_health: true,
        }
    }

    /// `__syncwarp(0xffffffff)`, and the same mask spelled `~0u`: the port widens it (HP006
    /// PASS), so the same token is not also an open HP103. Twin: a full mask the port does not
    /// rewrite (a name it cannot see the value of) stays HP103.
    #[test]
    fn a_mask_the_port_widens_is_one_finding() {
        let src =
            "__global__ void k(int* s) {\n  s[threadIdx.x] = 1;\n  __syncwarp(0xffffffff);\n}\n";
        assert_eq!(
            rules_at(src, "7.0.0"),
            [("HP006".to_string(), Status::Pass, 3)]
        );
        let tilde = src.replace("0xffffffff", "~0u");
        assert_eq!(
            rules_at(&tilde, "7.0.0"),
            [("HP006".to_string(), Status::Pass, 3)]
        );
        let twin =
            "__global__ void k(int* s) {\n  s[threadIdx.x] = 1;\n  __syncwarp(FULL_MASK);\n}\n";
        assert!(
            rules_at(twin, "7.0.0")
                .iter()
                .any(|(r, st, l)| r == "HP103" && *st == Status::Remediation && *l == 3),
            "{:?}",
            rules_at(twin, "7.0.0")
        );
    }

    /// A file whose parse has errors: tree-sitter's recovery counts skipped bytes, so the notes
    /// `--annotate` inserts can move it and a rerun would add notes. The annotated output is
    /// settled, so a rerun on it changes nothing (a case `cargo xtask fuzz` found; its twin, a
    /// clean file, is annotated in one pass by the lex/parse count test above).
    #[test]
    fn annotated_output_of_a_broken_file_settles() {
        let src = b"#\"include <cuda_runtime.h>\n\n__global__ void block_sum(const float *x, float *out) {\n  __shared__ float partial[32];\n  int tid = threadIdx.x;\n  int lane = tid & 31;\n  int >>= 1)\n    v += __shfl_down_sync(0xffffffff, v, i);\n  if (lane == 0) partial[warp] = v;\n  __syncthreads();\n  if (threadIdx.x < 32) {\n    v{ = lane < blockDim.x / 32 ? partial[lane] : 0.0f;\n    for (int i = 16; i > 0; i >>= 1)\n      v += __shfl_down_sync(0xffffffff, v, i);\n    if (lane == 0) out[blockIdx.x] = v;\n  }\n}\n\n__global__ void broadcast(const float *x, float *out) {\n  int lane = threadIdx.x % 32;\n  float v = x[threadIdx.x];\n  float first = __shfl_sync(0xffffffff, v, 0);\n  unsigned int votes = __ballot_sync(0xffffffff, v > first);\n  out[threadIdx.x] = first + __popc(votes) + lane;\n}\n";
        let w = super::tests::work(true, true);
        let m = crate::mappings::get();
        let once = process_bytes("k.cu", src.to_vec(), &w, m).output;
        let twice = process_bytes("k.cu", once.clone(), &w, m).output;
        assert_eq!(
            String::from_utf8_lossy(&twice),
            String::from_utf8_lossy(&once)
        );
    }
}

#[cfg(test)]
mod amd_native_tests {
    use super::*;

    /// tinygrad's CDNA kernels (`laneid / 32` picks a half-wave on purpose) and its copy of
    /// ROCm's hipRTC header: hazard findings are PASS. Twins: the same code with a CUDA header,
    /// and without AMDGCN builtins, keep them; a translator finding stays.
    #[test]
    fn files_written_for_amd_keep_their_wavefront_assumptions() {
        let amd = b"__device__ int half_wave() { int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); return lane / 32; }\n";
        let fs = || {
            vec![
                Finding::bare("HP102", "k.cpp", 1),
                Finding::bare("HP001", "k.cpp", 1),
                Finding::bare("HP108", "k.cpp", 1),
            ]
        };
        let mut a = fs();
        pass_amd_native(amd, &crate::lex::lex(amd), &mut a);
        assert_eq!(a[0].status, Status::Pass);
        assert!(a[0].message.contains("written for AMD GPUs"));
        assert_eq!(a[1].status, Status::Remediation);
        // A compile-time `warpSize` fails from ROCm 7.0 in AMD's own code too.
        assert_eq!(a[2].status, Status::Remediation);
        let mut cuda = fs();
        let with_cuda = [&b"#include <cuda_runtime.h>\n"[..], amd].concat();
        pass_amd_native(&with_cuda, &crate::lex::lex(&with_cuda), &mut cuda);
        assert_eq!(cuda[0].status, Status::Remediation);
        let mut plain = fs();
        let plain_src = b"__device__ int w() { return threadIdx.x / 32; }\n";
        pass_amd_native(plain_src, &crate::lex::lex(plain_src), &mut plain);
        assert_eq!(plain[0].status, Status::Remediation);
    }
}
