//! The CUDA→HIP translation engine for one file.
//!
//! The lexer finds every identifier in code, preprocessor branches and macro bodies; each is
//! resolved against the mapping tables for the exact target; includes are remapped; a few
//! mechanical fix-ups follow (warp `_sync` forms the target lacks, the `register` keyword,
//! `void**` casts, the implicit HIP runtime include). Optional passes rewrite `<<<…>>>`
//! launches and annotate flagged lines. Everything outside the edits is kept byte for byte, and
//! translating the output again changes nothing.

mod annotate;
mod builtin_vectors;
mod collisions;
pub(crate) mod compat;
pub mod device_pass;
mod directive_fixups;
mod fixups;
mod idents;
mod includes;
mod launch;
mod logical_warp;
mod macro_warps;
mod members;
pub mod overloads;
mod own_layer;
mod removed;
mod roc_context;
pub mod rules;
mod surfaces;
mod template_names;

pub use annotate::{annotate, set_filter};

use crate::edit::{apply, Edit};
use crate::finding::Finding;
use crate::lex::{self, Lexed};
use crate::mappings::{Mappings, Target};
use crate::rules::FileCtx;
use crate::source::LineIndex;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LaunchSyntax {
    /// Keep `<<<…>>>` launches (HIP-Clang compiles them).
    #[default]
    Keep,
    /// Rewrite launches to `hipLaunchKernelGGL(…)`.
    Hip,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub target: Target,
    pub launch: LaunchSyntax,
    /// Insert `#include <hip/hip_runtime.h>` into `.cu`/`.cuh` files that need it.
    pub implicit_include: bool,
    /// Close target gaps with `hipport_compat.h` shims (`--compat-header`).
    pub compat_header: bool,
    /// Also apply the rewrites that need a person to check them (`port --unsafe-fixes`).
    pub unsafe_fixes: bool,
}

#[cfg(test)]
impl Options {
    /// Options for tests: the ROCm release `rocm`, hip* libraries, launches kept, no compat header.
    pub fn for_tests(rocm: &str, implicit_include: bool) -> Options {
        Options {
            target: Target {
                rocm: rocm.parse().expect("a ROCm version"),
                roc: false,
                experimental: false,
                lds: None,
            },
            launch: LaunchSyntax::Keep,
            implicit_include,
            compat_header: false,
            unsafe_fixes: false,
        }
    }
}

/// The kind of source, from its extension: decides the implicit include and C-only leniency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// `.cu`, `.cuh`: compiled by nvcc, which includes `cuda_runtime.h` implicitly.
    Cuda,
    /// `.c`: C, where `register` is still valid.
    C,
    /// Everything else: C++ (headers included).
    Cpp,
}

impl Lang {
    pub fn of(path: &str) -> Lang {
        match crate::walk::source_ext(path).as_str() {
            "cu" | "cuh" | "cuinl" | "hu" | "hcu" | "tcu" | "cuinc" => Lang::Cuda,
            "c" => Lang::C,
            _ => Lang::Cpp,
        }
    }
}

/// Counts for `--stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Identifiers rewritten, by library family.
    pub renamed: BTreeMap<String, u32>,
    /// CUDA names that need no change (the HIP name is the same).
    pub unchanged_api: u32,
    pub includes_rewritten: u32,
    pub includes_inserted: u32,
    pub launches_rewritten: u32,
    pub fixups: u32,
    /// CUDA names left as they are because the target has no equivalent.
    pub unported: u32,
    pub lines_changed: u32,
    /// Renamed names PyTorch's build-time hipify leaves as written (not in
    /// `mappings/torch/torch_hipify.tsv`): a scan reports them where PyTorch builds the file.
    #[serde(skip)]
    pub torch_left: Vec<TorchLeft>,
    /// CUDA names the file itself declares (`typedef __hip_bfloat16 nv_bfloat16;`, `#define`,
    /// `using … =`): a project that defines a name for its ROCm build needs no rename of it.
    #[serde(skip)]
    pub declared: Vec<String>,
}

/// A rename `hipport port` makes that PyTorch's hipify does not: the CUDA name, its HIP name,
/// the byte range of its first use in the file, and the file's count of uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TorchLeft {
    pub cuda: String,
    pub hip: String,
    pub at: std::ops::Range<usize>,
    pub uses: u32,
}

impl Stats {
    pub fn renamed_total(&self) -> u32 {
        self.renamed.values().sum()
    }
    pub fn add(&mut self, o: &Stats) {
        for (k, v) in &o.renamed {
            *self.renamed.entry(k.clone()).or_default() += v;
        }
        self.unchanged_api += o.unchanged_api;
        self.includes_rewritten += o.includes_rewritten;
        self.includes_inserted += o.includes_inserted;
        self.launches_rewritten += o.launches_rewritten;
        self.fixups += o.fixups;
        self.unported += o.unported;
        self.lines_changed += o.lines_changed;
        self.torch_left.extend(o.torch_left.iter().cloned());
        self.declared.extend(o.declared.iter().cloned());
    }
}

pub struct Translation {
    pub output: Vec<u8>,
    pub stats: Stats,
    /// Findings about the input file (positions in the input).
    pub findings: Vec<Finding>,
    /// Edits that overlapped (an engine defect if ever non-empty; reported, never dropped).
    pub conflicts: usize,
    /// Ids of the `hipport_compat.h` shims the output uses (sorted).
    pub compat: Vec<String>,
}

impl Translation {
    pub fn changed(&self, input: &[u8]) -> bool {
        self.output != input
    }
}

/// Shared state of one file's translation passes.
pub(crate) struct Pass<'a> {
    pub ctx: &'a FileCtx<'a>,
    pub lexed: &'a Lexed,
    pub m: &'a Mappings,
    pub opts: &'a Options,
    pub lang: Lang,
    pub edits: Vec<Edit>,
    pub stats: Stats,
    pub findings: Vec<Finding>,
    /// Macros already reported as required (HP007), once per file.
    pub defines_reported: Vec<String>,
    /// `hipport_compat.h` shims used (ids), and whether an include of the header is in place.
    pub compat: BTreeSet<String>,
    pub compat_included: bool,
    /// `--roc` and the file uses cuBLAS: rocBLAS names for its types and enums.
    pub rocblas_context: bool,
    /// The names the file declares as templates, found once on first use (one sweep of the
    /// tokens, never one per call site).
    pub template_names: std::cell::OnceCell<std::collections::HashSet<&'a [u8]>>,
    /// What the project files this file includes define (`model::project`).
    pub project: &'a crate::model::project::Visible,
    /// Which lanes run each warp-level call and which warp the code assumes.
    pub warps: &'a crate::rules::warp_size::logical::LogicalWarps,
    /// The functions this file declares under CUDA-API names, found on first use.
    pub own: std::cell::OnceCell<crate::model::own::FileOwn>,
    /// Whether the file opens its own arm for the HIP compiler
    /// ([`crate::model::cond::own_hip_compiler_arm`]), found on first use.
    pub own_hip_compiler: std::cell::OnceCell<bool>,
    /// Whether the file says `using namespace cv;` (its `cuda::` is OpenCV's), found on first
    /// use.
    pub using_cv: std::cell::OnceCell<bool>,
}

impl<'a> Pass<'a> {
    pub fn src(&self) -> &'a [u8] {
        self.ctx.src
    }
    pub fn text(&self, i: usize) -> &'a [u8] {
        self.lexed.tokens[i].text(self.ctx.src)
    }
}

/// Translates one file. `ctx.path` decides the language by extension.
pub fn translate(ctx: &FileCtx, m: &Mappings, opts: &Options) -> Translation {
    translate_annotated(ctx, m, opts, None)
}

/// Translates one file and, when `annotate` is given, puts a review comment above each line
/// flagged by the translation or by `annotate`'s extra findings (e.g. hazard rules).
pub fn translate_annotated(
    ctx: &FileCtx,
    m: &Mappings,
    opts: &Options,
    annotate: Option<&[Finding]>,
) -> Translation {
    translate_in(ctx, m, opts, annotate)
}

/// The full entry point. Every pass works on the lexer's tokens, never on a parse tree: what a
/// pass decides must not change when text elsewhere in the file changes (idempotence).
pub fn translate_in(
    ctx: &FileCtx,
    m: &Mappings,
    opts: &Options,
    annotate: Option<&[Finding]>,
) -> Translation {
    translate_lexed(ctx, &lex::lex(ctx.src), m, opts, annotate)
}

/// [`translate_in`] with the file's tokens already lexed (the pipeline lexes each file once).
pub fn translate_lexed(
    ctx: &FileCtx,
    lexed: &lex::Lexed,
    m: &Mappings,
    opts: &Options,
    annotate: Option<&[Finding]>,
) -> Translation {
    translate_seeing(
        ctx,
        lexed,
        m,
        opts,
        annotate,
        &crate::model::project::NOTHING,
        None,
    )
}

/// [`translate_lexed`] for a file of a project: `project` is what the project files it includes
/// define (a compat shim the project already defines for ROCm there is not added again);
/// `warps` is the file's logical-warp model when the caller built it (the pipeline builds it
/// once per file for the translator and the rules), else it is built here.
pub(crate) fn translate_seeing(
    ctx: &FileCtx,
    lexed: &lex::Lexed,
    m: &Mappings,
    opts: &Options,
    annotate: Option<&[Finding]>,
    project: &crate::model::project::Visible,
    warps: Option<&crate::rules::warp_size::logical::LogicalWarps>,
) -> Translation {
    let built;
    let warps = match warps {
        Some(w) => w,
        None => {
            built = crate::rules::warp_size::logical::LogicalWarps::seeing(
                ctx.path, ctx.src, lexed, project,
            );
            &built
        }
    };
    let mut pass = Pass {
        project,
        ctx,
        lexed,
        m,
        opts,
        lang: Lang::of(ctx.path),
        edits: Vec::new(),
        stats: Stats::default(),
        findings: Vec::new(),
        defines_reported: Vec::new(),
        compat: BTreeSet::new(),
        compat_included: false,
        rocblas_context: false,
        template_names: std::cell::OnceCell::new(),
        warps,
        own: std::cell::OnceCell::new(),
        own_hip_compiler: std::cell::OnceCell::new(),
        using_cv: std::cell::OnceCell::new(),
    };
    pass.rocblas_context = roc_context::is_rocblas_context(&pass);
    idents::run(&mut pass);
    includes::run(&mut pass);
    fixups::run(&mut pass);
    logical_warp::run(&mut pass);
    macro_warps::run(&mut pass);
    compat::uses(&mut pass);
    compat::rerun(&mut pass);
    // The implicit include is placed before the overload guards so that, at a shared offset,
    // it comes before `#if !defined(__HIP__)` (the guard pass closes before it at its end).
    includes::implicit(&mut pass);
    compat::include(&mut pass);
    overloads::run(&mut pass);
    collisions::run(&mut pass);
    members::run(&mut pass);
    removed::run(&mut pass);
    if pass.lang != Lang::C {
        builtin_vectors::run(&mut pass);
        surfaces::run(&mut pass);
    }
    if let Some(extra) = annotate {
        // `extra` is every finding of the file (this pass's translation findings included)
        // after suppression comments: notes go only where a finding is still reported.
        let mut all: Vec<Finding> = extra.to_vec();
        all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let notes = self::annotate(ctx.src, lexed, &all);
        pass.edits.extend(notes);
    }
    let Pass {
        edits,
        mut stats,
        mut findings,
        compat,
        ..
    } = pass;
    let applied = apply(ctx.src, &edits);
    let mut output = applied.output;
    let mut conflicts = applied.conflicts.len();
    if opts.launch == LaunchSyntax::Hip {
        let (out, n, c) = launch::rewrite(&output);
        if n > 0 {
            output = out;
            stats.launches_rewritten = n;
        }
        conflicts += c;
    }
    stats.lines_changed = lines_changed(ctx.src, &output);
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Translation {
        output,
        stats,
        findings,
        conflicts,
        compat: compat.into_iter().collect(),
    }
}

/// Convenience for tests and tools: translate bytes under a path name.
/// A port of `src` as `k.cu` at `rocm` with the default options (the unit tests' one call).
#[cfg(test)]
pub(crate) fn translate_for_tests(src: &str, rocm: &str) -> Translation {
    translate_bytes(
        "k.cu",
        src.as_bytes(),
        crate::mappings::get(),
        &Options::for_tests(rocm, false),
    )
}

pub fn translate_bytes(path: &str, src: &[u8], m: &Mappings, opts: &Options) -> Translation {
    let lines = LineIndex::new(src);
    let ctx = FileCtx {
        path,
        src,
        lines: &lines,
    };
    translate(&ctx, m, opts)
}

/// Lines that differ between input and output (a line-level diff count, for `--stats`).
fn lines_changed(a: &[u8], b: &[u8]) -> u32 {
    if a == b {
        return 0;
    }
    // Renames keep the line structure: compare line by line when the counts agree.
    let (la, lb) = (
        memchr::memchr_iter(b'\n', a).count(),
        memchr::memchr_iter(b'\n', b).count(),
    );
    if la == lb {
        return a
            .split(|&c| c == b'\n')
            .zip(b.split(|&c| c == b'\n'))
            .filter(|(x, y)| x != y)
            .count() as u32;
    }
    // Patience anchors on lines unique to both sides, so the Myers runs between anchors stay
    // small: plain Myers costs O(N·D), quadratic when a big file changes on many lines.
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_lines(a, b);
    diff.ops()
        .iter()
        .map(|op| match op {
            similar::DiffOp::Equal { .. } => 0,
            similar::DiffOp::Delete { old_len, .. } => *old_len,
            similar::DiffOp::Insert { new_len, .. } => *new_len,
            similar::DiffOp::Replace {
                old_len, new_len, ..
            } => (*old_len).max(*new_len),
        })
        .sum::<usize>() as u32
}
