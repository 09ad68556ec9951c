//! The identifier sweep: every CUDA name in code (not in comments or strings, not the project's
//! own function of that name, see [`crate::model::own`]) is resolved for the target and renamed,
//! counted as unchanged, or reported un-ported.
//! Namespaces (`cub::` → `hipcub::`, `thrust::cuda::` → `thrust::hip::`) are rewritten here.

use super::rules;
use super::Pass;
use crate::edit::Edit;
use crate::lex::Tok;
use crate::mappings::{Resolution, Unported};

/// `_sync` warp intrinsics and the mask-less HIP form an older target compiles.
pub const WARP_SYNC_FALLBACK: &[(&str, &str)] = &[
    ("__all_sync", "__all"),
    ("__any_sync", "__any"),
    ("__ballot_sync", "__ballot"),
    ("__shfl_down_sync", "__shfl_down"),
    ("__shfl_sync", "__shfl"),
    ("__shfl_up_sync", "__shfl_up"),
    ("__shfl_xor_sync", "__shfl_xor"),
];

/// HIP names that are typedefs of a differently named struct, with that struct's tag: after
/// `struct` only the tag is valid ("typedef 'hipGraphicsResource' cannot be referenced with a
/// struct specifier"), and `struct cudaGraphicsResource *r;` is CUDA's interop idiom.
/// Source: `typedef struct _hipGraphicsResource hipGraphicsResource;` in
/// https://github.com/ROCm/HIP/blob/rocm-5.2.0/include/hip/hip_runtime_api.h (unchanged in
/// later releases).
const STRUCT_TAGS: &[(&str, &str)] = &[("hipGraphicsResource", "_hipGraphicsResource")];

/// The name to write for a renamed identifier: the struct tag after `struct`.
fn tagged<'a>(p: &Pass, i: usize, to: &'a str) -> &'a str {
    let after_struct = p.lexed.prev_code(i).is_some_and(|k| p.text(k) == b"struct");
    match STRUCT_TAGS.iter().find(|(name, _)| *name == to) {
        Some((_, tag)) if after_struct => tag,
        _ => to,
    }
}

/// Whether the file calls a function that, in the target, is a hipBLAS function taking
/// `hipblasDatatype_t` (hipBLAS before 6.0): its data-type names then take their hipBLAS forms.
fn hipblas_datatype_file(p: &Pass) -> bool {
    p.lexed.tokens.iter().enumerate().any(|(i, t)| {
        t.kind == Tok::Ident
            && std::str::from_utf8(p.text(i))
                .is_ok_and(|n| p.m.takes_hipblas_datatype(n, &p.opts.target))
    })
}

pub(super) fn run(p: &mut Pass) {
    let lexed = p.lexed;
    let m = p.m;
    let hipblas_datatype = hipblas_datatype_file(p);
    // Un-ported names written as `case` labels: (finding index, token index).
    let mut case_labels: Vec<(usize, usize)> = Vec::new();
    for (i, t) in lexed.tokens.iter().enumerate() {
        if t.kind != Tok::Ident {
            continue;
        }
        let text = p.text(i);
        // Fast reject: CUDA names start with cu/CU/nv/__/_ or a few known lowercase prefixes;
        // the table lookup below is the real test.
        let Ok(name) = std::str::from_utf8(text) else {
            continue;
        };
        if super::own_layer::defined_name(p, i) || super::own_layer::alias_name(p, i, name) {
            if p.m.knows(name) && !p.stats.declared.iter().any(|d| d == name) {
                p.stats.declared.push(name.to_string());
            }
            continue;
        }
        // Only a name the tables would rename is asked (the chain is read forward from here).
        if p.m.knows(name) && tests_beside_own_hip_arm(p, i) {
            continue;
        }
        if namespace(p, i, name) {
            continue;
        }
        if name == "register" {
            register_keyword(p, i);
            continue;
        }
        if p.m.knows(name) {
            let renamed = matches!(
                m.resolve_in_context(name, &p.opts.target, hipblas_datatype),
                Some(Resolution::Rename { .. })
            ) || p.rocblas_context;
            if project_own(p, i, renamed) {
                continue;
            }
        }
        if p.rocblas_context && super::roc_context::rename(p, i, name) {
            continue;
        }
        let Some(res) = m.resolve_in_context(name, &p.opts.target, hipblas_datatype) else {
            continue;
        };
        match res {
            Resolution::Rename {
                to,
                entry,
                deprecated,
            } => {
                if to.is_empty() {
                    // A token with no counterpart that is simply removed (e.g. `CUDART_CB`).
                    let src = p.src();
                    let mut end = t.end as usize;
                    while end < src.len() && (src[end] == b' ' || src[end] == b'\t') {
                        end += 1;
                    }
                    p.edits.push(Edit::delete(t.start as usize, end));
                } else {
                    let to = tagged(p, i, to);
                    p.edits
                        .push(Edit::replace(t.start as usize, t.end as usize, to));
                }
                *p.stats
                    .renamed
                    .entry(entry.origin.as_str().to_string())
                    .or_default() += 1;
                if !to.is_empty()
                    && !crate::mappings::torch_hipify_renames(name)
                    && !in_condition(p, i)
                {
                    left_by_torch(p, t.range(), name, to);
                }
                requires_define(p, i, name, entry.requires_define.as_deref());
                if let Some(d) = deprecated {
                    let mut f = p.ctx.finding(
                        &rules::DEPRECATED_API,
                        t.range(),
                        format!("`{name}` → `{to}`, which is deprecated since HIP {d}"),
                        Some(format!(
                            "translated; plan a move away from `{to}` before it is removed"
                        )),
                    );
                    // The rename over the flagged name is the mechanical port.
                    f.fix = (!to.is_empty()).then(|| to.to_string());
                    p.findings.push(f);
                }
            }
            Resolution::Same { entry } => {
                p.stats.unchanged_api += 1;
                super::fixups::widen_full_mask(p, i, name);
                requires_define(p, i, name, entry.requires_define.as_deref());
            }
            Resolution::Unported { entry, why } => {
                if !device_function_called(p, i, entry) {
                    continue;
                }
                if super::fixups::warp_sync_fallback(p, i, name) {
                    continue;
                }
                if super::compat::name(p, i, name, entry, &why) {
                    continue;
                }
                p.stats.unported += 1;
                let target = p.opts.target.rocm;
                let (rule, msg, help) = match &why {
                    Unported::NoEquivalent => (
                        &rules::UNPORTED_API,
                        format!("`{name}` has no HIP equivalent ({} API)", api_of(entry.origin)),
                        None,
                    ),
                    Unported::AddedAfter(v) => (
                        &rules::UNPORTED_API,
                        match entry.hip.as_deref().or(entry.roc.as_deref()) {
                            Some(h) => format!(
                                "`{name}` → `{h}` exists only from ROCm {v}; the target is ROCm {target}"
                            ),
                            // A hand row's gap (`__activemask` before 6.2): the name HIP
                            // gains later is on a later row.
                            None => format!(
                                "`{name}` exists in HIP only from ROCm {v} ({} API); the target is ROCm {target}",
                                api_of(entry.origin)
                            ),
                        },
                        Some(format!("target ROCm {v} or later, or replace the call")),
                    ),
                    Unported::Removed(v) => (
                        &rules::UNPORTED_API,
                        format!(
                            "`{name}`: the HIP equivalent was removed in ROCm {v} (target {target})"
                        ),
                        None,
                    ),
                    Unported::Experimental(h) => (
                        &rules::EXPERIMENTAL_API,
                        format!("`{name}` → `{h}` is experimental in HIP; left as is"),
                        Some(format!("rerun with --experimental to translate it to `{h}`")),
                    ),
                    Unported::NoRocEquivalent(h) => (
                        &rules::UNPORTED_API,
                        format!(
                            "`{name}` has no equivalent in the roc* library (the hip* wrapper has `{h}`)"
                        ),
                        Some("drop --roc to use the hip* wrappers".to_string()),
                    ),
                };
                // A shim of `--compat-header` covers it: the port's own way out.
                let shim = (!p.opts.compat_header
                    && matches!(why, Unported::NoEquivalent | Unported::AddedAfter(_)))
                .then(|| crate::compat::for_name(name, entry.hip.as_deref(), &p.opts.target))
                .flatten()
                .map(|(s, _)| format!("{}{}`)", crate::compat::SHIM_HINT, s.id));
                let help = shim
                    .or(help)
                    .or_else(|| (!entry.note.is_empty()).then(|| entry.note.clone()));
                let f = p.ctx.finding(rule, t.range(), msg, help);
                if matches!(why, Unported::NoEquivalent) && is_case_label(p, i) {
                    case_labels.push((p.findings.len(), i));
                }
                p.findings.push(f);
            }
        }
    }
    fold_switch_cases(p, &case_labels);
}

/// The API a name belongs to, as the messages say it: the hand family `rounding` is CUDA's
/// directed-rounding device arithmetic (`__fdiv_ru`, `__fsqrt_rd`), which the fold of one
/// project's uses into one decision recognises (`decisions::per_file`).
fn api_of(origin: crate::mappings::Origin) -> &'static str {
    match origin.as_str() {
        "rounding" => ROUNDING_API,
        s => s,
    }
}

/// How HP001 names CUDA's directed-rounding device arithmetic.
const ROUNDING_API: &str = "directed-rounding device";

/// Whether token `i` is a `case` label's constant (`case cudaErrorStartupFailure:`).
fn is_case_label(p: &Pass, i: usize) -> bool {
    p.lexed.prev_code(i).is_some_and(|k| p.text(k) == b"case")
        && p.lexed.next_code(i).is_some_and(|k| p.text(k) == b":")
}

/// A switch whose `case` labels name three or more enumerators HIP does not have is one edit of
/// the switch (CloverLeaf's `errorCodes`: a `case` per legacy `cudaError` value, 20 of them with
/// no `hipError` counterpart): the first holds the finding and lists the others, which are PASS
/// folded into it. The switch is the innermost `{` around the labels, found in one pass.
fn fold_switch_cases(p: &mut Pass, labels: &[(usize, usize)]) {
    if labels.len() < 3 {
        return;
    }
    // The innermost open `{` before each token, for the labels' tokens only.
    let wanted: std::collections::BTreeSet<usize> = labels.iter().map(|&(_, t)| t).collect();
    let last = *wanted.last().expect("non-empty");
    let mut open: Vec<usize> = Vec::new();
    let mut block_of: std::collections::BTreeMap<usize, usize> = Default::default();
    for k in 0..=last {
        let tok = p.lexed.tokens[k];
        if tok.kind == Tok::Punct && !tok.in_directive() {
            match p.text(k) {
                b"{" => open.push(k),
                b"}" => {
                    open.pop();
                }
                _ => {}
            }
        }
        if wanted.contains(&k) {
            block_of.insert(k, open.last().copied().unwrap_or(usize::MAX));
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &(f, t) in labels {
        groups.entry(block_of[&t]).or_default().push(f);
    }
    for members in groups.values().filter(|m| m.len() >= 3) {
        let head = members[0];
        let at = format!("{}:{}", p.findings[head].path, p.findings[head].line);
        let names: Vec<String> = members
            .iter()
            .map(|&f| {
                p.findings[f]
                    .message
                    .split('`')
                    .nth(1)
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        let mut lines: Vec<String> = members[1..]
            .iter()
            .take(12)
            .map(|&f| p.findings[f].line.to_string())
            .collect();
        if members.len() > 13 {
            lines.push("…".to_string());
        }
        for &f in &members[1..] {
            let finding = &mut p.findings[f];
            finding.message.push_str(&format!(
                " (folded into `{at}`: the switch's labels without a HIP counterpart are one edit)"
            ));
            crate::finding::Folded::fold(finding, at.clone());
        }
        let head = &mut p.findings[head];
        head.message.push_str(&format!(
            " — one edit of this switch: {} of its `case` labels name values HIP does not have (`{}` …; also lines {}), folded here; drop those cases or map them to the nearest `hipError_t`/HIP value",
            members.len(),
            names.iter().take(3).cloned().collect::<Vec<_>>().join("`, `"),
            lines.join(", ")
        ));
        head.holds += members.len() as u32 - 1;
    }
}

/// Whether token `i` is in an `#if`/`#ifdef`/`#elif` condition: a name tested there is not
/// compiled, so leaving it as written breaks no build (`#ifdef CURAND_H_`).
fn in_condition(p: &Pass, i: usize) -> bool {
    let t = p.lexed.tokens[i];
    t.in_directive()
        && p.lexed
            .directives
            .get(t.directive as usize)
            .is_some_and(|d| {
                matches!(
                    d.name.as_str(),
                    "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef"
                )
            })
}

/// Whether token `i` is in the condition of an arm whose chain has the project's own HIP arm
/// later (`#elif defined(__CUDACC__)` … `#elif defined(__HIP__)`, glm's compiler detection): the
/// test keeps nvcc on its arm, and renamed (`__CUDACC__` → `__HIPCC__`) it would send HIP-Clang
/// into the CUDA arm, where glm stops at `#error "GLM requires CUDA 7.0 or higher"`.
/// So is `__CUDACC__` anywhere in a file that opens its own arm for the HIP compiler
/// ([`crate::model::cond::own_hip_compiler_arm`]: vendored Eigen 3.4's `Macros.h`).
fn tests_beside_own_hip_arm(p: &Pass, i: usize) -> bool {
    if p.text(i) == b"__CUDACC__"
        && *p
            .own_hip_compiler
            .get_or_init(|| crate::model::cond::own_hip_compiler_arm(p.src(), p.lexed).is_some())
    {
        return true;
    }
    in_condition(p, i)
        && crate::model::cond::own_hip_arm_later(
            p.src(),
            p.lexed,
            p.lexed.tokens[i].directive as usize,
        )
        .is_some()
}

/// Counts a rename PyTorch's build-time hipify does not make (first line and uses per name).
fn left_by_torch(p: &mut Pass, at: std::ops::Range<usize>, name: &str, to: &str) {
    if let Some(x) = p.stats.torch_left.iter_mut().find(|x| x.cuda == name) {
        x.uses += 1;
        return;
    }
    p.stats.torch_left.push(super::TorchLeft {
        cuda: name.to_string(),
        hip: to.to_string(),
        at,
        uses: 1,
    });
}

/// Whether the CUDA-named token `i` is the project's own function (its declaration, a member
/// access, a use qualified by or inside the scope that declares it), as the project model
/// resolves it ([`crate::model::own`]): neither renamed nor reported, so the declaration and
/// every use keep one name and the build stays consistent.
fn project_own(p: &Pass, i: usize, renamed: bool) -> bool {
    let file = p
        .own
        .get_or_init(|| crate::model::own::sweep_with(p.ctx.path, p.src(), p.lexed, p.m));
    let lookup = crate::model::own::Lookup {
        file,
        included: &p.project.own,
        members: &p.project.members,
        included_cuda_headers: p.project.cuda_headers,
        cuda_unit: p.lang == super::Lang::Cuda,
    };
    lookup.project_use(p.src(), p.lexed, i, renamed).is_some()
}

/// Whether a device function with no HIP counterpart is used as one: called (`umax(a, b)`),
/// not a parameter, member or macro argument that shares its name (`double umax`,
/// `INST(umax, Umax)`, `s.umin`). Device functions have short common names; any other entry,
/// a device function taken by address (`&umax`), and a reserved name (`__vmins2`) are uses.
fn device_function_called(p: &Pass, i: usize, entry: &crate::mappings::Entry) -> bool {
    use crate::mappings::table::{Family, Kind};
    use crate::mappings::Origin;
    if entry.kind != Kind::Function || entry.origin != Origin::Table(Family::Device) {
        return true;
    }
    let prev = p.lexed.prev_code(i).map(|k| p.text(k));
    if matches!(prev, Some(b"." | b"->")) {
        return false;
    }
    // A reserved name (`__vmins2`) is the implementation's, never a project's parameter or
    // tag: passed to a macro that calls it (CV-CUDA's `NVCV_CUDA_BINARY_SIMD(short2,
    // __vmins2)`), it is a use.
    let reserved = p.text(i).starts_with(b"__");
    reserved || prev == Some(b"&") || p.lexed.next_code(i).is_some_and(|k| p.text(k) == b"(")
}

/// `cub::X` → `hipcub::X`, `namespace cub`, `thrust::cuda::par` → `thrust::hip::par`.
fn namespace(p: &mut Pass, i: usize, name: &str) -> bool {
    if !p.m.is_namespace_segment(name) {
        return false;
    }
    for ns in &p.m.namespaces {
        let segs: Vec<&str> = ns.cuda.split("::").collect();
        let Some(last) = segs.last() else { continue };
        if *last != name {
            continue;
        }
        // Earlier segments must precede, each followed by `::`.
        let mut j = i;
        let mut ok = true;
        for seg in segs[..segs.len() - 1].iter().rev() {
            let Some(colons) = p.lexed.prev_code(j) else {
                ok = false;
                break;
            };
            let Some(prev) = p.lexed.prev_code(colons) else {
                ok = false;
                break;
            };
            if p.text(colons) != b"::" || p.text(prev) != seg.as_bytes() {
                ok = false;
                break;
            }
            j = prev;
        }
        if !ok {
            continue;
        }
        // Used as a namespace: followed by `::`, or named by `using namespace`. A declaration
        // `namespace cub {` is the user's own namespace (or an extension of CUB's) and stays.
        let next_is_scope = p.lexed.next_code(i).is_some_and(|n| p.text(n) == b"::");
        let before = p.lexed.prev_code(j);
        let after_namespace = before.is_some_and(|k| p.text(k) == b"namespace");
        let using_namespace = after_namespace
            && before
                .and_then(|k| p.lexed.prev_code(k))
                .is_some_and(|k| p.text(k) == b"using");
        if after_namespace && !using_namespace {
            return true;
        }
        if segs.len() == 1 && !(next_is_scope || using_namespace) {
            continue;
        }
        // A single-segment name must not itself be qualified (`foo::cub::` is someone else's).
        if segs.len() == 1 {
            if let Some(k) = p.lexed.prev_code(i) {
                if p.text(k) == b"::" {
                    let owner = p.lexed.prev_code(k).map(|o| p.text(o).to_vec());
                    if owner.is_some_and(|o| {
                        o.first()
                            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    }) {
                        continue;
                    }
                }
            }
        }
        let t = p.lexed.tokens[i];
        match &ns.hip {
            Some(hip) => {
                let new_last = hip.rsplit("::").next().unwrap_or(hip);
                if new_last != name {
                    p.edits
                        .push(Edit::replace(t.start as usize, t.end as usize, new_last));
                    *p.stats.renamed.entry("namespace".into()).or_default() += 1;
                }
            }
            None => {
                p.stats.unported += 1;
                // `using namespace cv;` then `cuda::GpuMat`: OpenCV's CUDA modules, not libcu++.
                let opencv = ns.cuda == "cuda"
                    && *p.using_cv.get_or_init(|| {
                        (2..p.lexed.tokens.len()).any(|k| {
                            p.text(k) == b"cv"
                                && p.text(k - 1) == b"namespace"
                                && p.text(k - 2) == b"using"
                        })
                    });
                let f = if opencv {
                    p.ctx.finding(
                        &rules::UNPORTED_API,
                        t.range(),
                        "namespace `cv::cuda` (OpenCV's CUDA modules, named through `using namespace cv`) has no HIP counterpart: OpenCV builds its `cuda*` modules only against CUDA".to_string(),
                        Some("in the ROCm build use OpenCV's CPU or OpenCL (`cv::UMat`) paths, or write these steps as HIP kernels".into()),
                    )
                } else {
                    p.ctx.finding(
                        &rules::UNPORTED_API,
                        t.range(),
                        format!("namespace `{}` has no HIP counterpart", ns.cuda),
                        (!ns.note.is_empty()).then(|| ns.note.clone()),
                    )
                };
                p.findings.push(f);
            }
        }
        return true;
    }
    false
}

/// `register` is accepted by nvcc but is an error in C++17, which hipcc defaults to: the keyword
/// is dropped (HP014 PASS). Kept in C, and on an explicit register variable
/// (`register int r asm("r0")`), which clang accepts in every C++ mode and which needs it.
fn register_keyword(p: &mut Pass, i: usize) {
    if p.lang == super::Lang::C || asm_label_follows(p, i) {
        return;
    }
    // The storage class starts a declaration: a type or a name follows on the same line of
    // code. Not the word in a diagnostic's text (`#error … to register tag …`), nor a token
    // handed to a macro (Boost.LocalFunction's `…_ADD_FRONT(tokens, IS_REGISTER_FRONT,
    // register)`).
    let t = p.lexed.tokens[i];
    if t.in_directive() && p.lexed.directives[t.directive as usize].name != "define" {
        return;
    }
    let next = p
        .lexed
        .next_code(i)
        .filter(|&k| p.lexed.tokens[k].directive == t.directive);
    if !next.is_some_and(|k| p.lexed.tokens[k].kind == Tok::Ident) {
        return;
    }
    let t = p.lexed.tokens[i];
    let src = p.src();
    let mut end = t.end as usize;
    while end < src.len() && (src[end] == b' ' || src[end] == b'\t') {
        end += 1;
    }
    p.edits.push(Edit::delete(t.start as usize, end));
    p.stats.fixups += 1;
    let mut f = p.ctx.finding(
        &rules::REGISTER_STORAGE_CLASS,
        t.range(),
        "`register` storage class dropped: hipcc compiles C++17, where clang rejects it (`-Wregister`, an error by default; `-std=c++14` would accept it with a deprecation warning)".to_string(),
        None,
    );
    f.fix = Some(String::new());
    p.findings.push(f);
}

/// Whether the declaration the `register` at token `i` starts carries an asm label before its
/// declarator ends (`;`, `=`, `,`, `{` or an unbalanced `)` at its own depth).
fn asm_label_follows(p: &Pass, i: usize) -> bool {
    let mut depth = 0i32;
    let mut j = i;
    while let Some(k) = p.lexed.next_code(j) {
        j = k;
        match p.text(k) {
            b"asm" | b"__asm" | b"__asm__" if depth == 0 => return true,
            b"(" | b"[" => depth += 1,
            b")" | b"]" if depth > 0 => depth -= 1,
            b";" | b"=" | b"," | b"{" | b")" if depth == 0 => return false,
            _ => {}
        }
    }
    false
}

/// Macros hipport defines itself, before the file's first include, when a translated name
/// needs them: the library documents them as the switch to the API the translation targets.
const SELF_DEFINED: &[(&str, &str)] = &[(
    "ROCM_MATHLIBS_API_USE_HIP_COMPLEX",
    "hipBLAS 5.x: hipblasComplex/hipblasDoubleComplex are hipFloatComplex/hipDoubleComplex",
)];

/// Once per file and macro: the HIP name is declared only when `define` is set.
fn requires_define(p: &mut Pass, i: usize, name: &str, define: Option<&str>) {
    let Some(define) = define else { return };
    if p.defines_reported.iter().any(|d| d == define) {
        return;
    }
    // In a rocBLAS context the complex types are rocBLAS's own (roc_context), which the
    // hipComplex switch would turn into hipFloatComplex: the define must stay off there.
    if p.rocblas_context && define == "ROCM_MATHLIBS_API_USE_HIP_COMPLEX" {
        return;
    }
    // Defined in the file itself (before use) is fine.
    let src = p.src();
    if memchr::memmem::find(&src[..p.lexed.tokens[i].start as usize], define.as_bytes()).is_some() {
        return;
    }
    p.defines_reported.push(define.to_string());
    if let Some((_, why)) = SELF_DEFINED.iter().find(|(d, _)| *d == define) {
        let at = super::includes::insertion_point(p);
        let nl = crate::source::newline_of(p.src());
        p.edits.push(Edit::insert(
            at,
            format!(
                "#define {define} // hipport: `{name}` in ROCm {}: {why}{nl}",
                p.opts.target.rocm
            ),
        ));
        p.stats.fixups += 1;
        return;
    }
    let t = p.lexed.tokens[i];
    let f = p.ctx.finding(
        &rules::WARP_SYNC_NEEDS_DEFINE,
        t.range(),
        format!(
            "`{name}` is declared in ROCm {} only when `{define}` is defined",
            p.opts.target.rocm
        ),
        Some(format!("add -D{define} to the HIP compile flags")),
    );
    p.findings.push(f);
}

#[cfg(test)]
mod tests {
    fn port(path: &str, src: &str) -> (String, Vec<(u32, String)>) {
        let opts = crate::translate::Options::for_tests("6.2", false);
        let t =
            crate::translate::translate_bytes(path, src.as_bytes(), crate::mappings::get(), &opts);
        let found = t
            .findings
            .into_iter()
            .filter(|f| f.rule == "HP014")
            .map(|f| (f.line, f.status.to_string()))
            .collect();
        (String::from_utf8(t.output).unwrap(), found)
    }

    /// glm's compiler detection: `#elif defined(__CUDACC__)` with the project's own
    /// `#elif defined(__HIP__)` later in the chain keeps its test (renamed to `__HIPCC__` it
    /// would send HIP-Clang into the CUDA arm and its `#error`); the arm's body is still
    /// translated. Twin: without the HIP arm the test is renamed.
    #[test]
    fn a_cuda_test_beside_the_projects_own_hip_arm_is_kept() {
        let src = "#if defined(__clang__) && !defined(__CUDACC__) && !defined(__HIP__)
#define C 1
#elif defined(__CUDACC__)
#include <cuda.h>
#if CUDA_VERSION < 7000
#error \"needs CUDA 7\"
#endif
#elif defined(__HIP__)
#define C 3
#endif
";
        let (out, _) = port("platform.h", src);
        assert!(out.contains("#elif defined(__CUDACC__)\n"), "{out}");
        assert!(out.contains("#include <hip/hip_runtime.h>"), "{out}");
        let alone = src.replace("#elif defined(__HIP__)\n#define C 3\n", "");
        let (out, _) = port("platform.h", &alone);
        assert!(out.contains("#elif defined(__HIPCC__)\n"), "{out}");
    }

    /// Vendored Eigen 3.4's `Macros.h`: `#if defined(__CUDACC__)` defines `EIGEN_CUDACC`, and a
    /// separate `#if defined(__HIPCC__)` defines `EIGEN_HIPCC`, which Eigen keeps mutually
    /// exclusive. The file splits CUDA and HIP itself: `__CUDACC__` stays as written, so
    /// HIP-Clang takes only the HIP arm. Twin: a file whose `__HIPCC__` arm only includes HIP's
    /// header has not ported itself, and its `__CUDACC__` is renamed.
    #[test]
    fn cudacc_stays_in_a_file_with_its_own_hip_compiler_arm() {
        let src = "#if defined(__CUDACC__) && !defined(EIGEN_NO_CUDA)
  #define EIGEN_CUDACC __CUDACC__
#endif
#if defined(__HIPCC__) && !defined(EIGEN_NO_HIP)
  #define EIGEN_HIPCC __HIPCC__
  #include <hip/hip_runtime.h>
#endif
";
        let (out, _) = port("Macros.h", src);
        assert_eq!(out, src);
        let shim = "#ifdef __CUDACC__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\n#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#endif\n";
        let (out, _) = port("k.h", shim);
        assert!(out.starts_with("#ifdef __HIPCC__\n"), "{out}");
    }

    /// cp2k's `grid_gpu_integrate.cu`, which nvcc or hipcc compiles: `#if
    /// defined(__CUDACC__)` takes the `_sync` shuffle and `#else` HIP's mask-less one, and `#if
    /// !defined(__CUDACC__)` / `__syncthreads()` is HIP's side. The tests stay as written.
    /// Twin: a `#else` that is host code (no HIP call) is no HIP arm, and the test is renamed.
    #[test]
    fn cudacc_stays_where_its_other_arm_calls_what_only_hip_has() {
        let src = "__device__ float sum(float val) {\n  for (int offset = 16; offset > 0; offset >>= 1) {\n#if defined(__CUDACC__)\n    val += __shfl_down_sync(0xffffffff, val, offset);\n#else\n    val += __shfl_down(val, offset);\n#endif\n  }\n#if !defined(__CUDACC__)\n  __syncthreads();\n#endif\n  return val;\n}\n";
        let (out, _) = port("grid_gpu_integrate.cu", src);
        assert!(
            out.contains("#if defined(__CUDACC__)\n") && out.contains("#if !defined(__CUDACC__)\n"),
            "{out}"
        );
        let host = "#if defined(__CUDACC__)\n#define HD __host__ __device__\n#else\n#define HD\ninline float fma_host(float a) { return a; }\n#endif\n";
        let (out, _) = port("k.h", host);
        assert!(out.starts_with("#if defined(__HIPCC__)\n"), "{out}");
    }

    /// `using namespace cv;` then `cuda::GpuMat`: OpenCV's CUDA modules, reported as such
    /// (not libcu++). Twin: `cuda::std` in a file without it is libcu++.
    #[test]
    fn opencvs_cuda_namespace_is_not_libcu() {
        let src = "#include <opencv2/cudaimgproc.hpp>\nusing namespace cv;\nvoid f() { cuda::GpuMat m; }\n";
        let opts = crate::translate::Options::for_tests("6.2", false);
        let hp001 = |path: &str, src: &str| {
            crate::translate::translate_bytes(path, src.as_bytes(), crate::mappings::get(), &opts)
                .findings
                .into_iter()
                .find(|f| f.rule == "HP001")
                .expect("HP001")
                .message
        };
        let m = hp001("blur.cpp", src);
        assert!(m.contains("OpenCV's CUDA modules"), "{m}");
        let libcu = "void f() { cuda::std::atomic<int> a; }\n";
        let f = hp001("k.cu", libcu);
        assert!(f.starts_with("namespace `cuda"), "{f}");
    }

    /// The storage-class keyword in declarations and parameters is dropped, one PASS per edit.
    #[test]
    fn register_storage_class_dropped_and_reported() {
        let src = "__device__ float f(register int n) {\n  register float acc = 0.0f;\n  register int i, j;\n  return acc;\n}\n";
        let (out, found) = port("k.cu", src);
        assert_eq!(
            out,
            "__device__ float f(int n) {\n  float acc = 0.0f;\n  int i, j;\n  return acc;\n}\n"
        );
        let lines: Vec<u32> = found.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [1, 2, 3]);
        assert!(found.iter().all(|(_, s)| s == "PASS"), "{found:?}");
    }

    /// Negative twin: identifiers containing the word, comments, strings, asm operand strings,
    /// an explicit register variable (clang needs the keyword there) and C files stay.
    #[test]
    fn register_in_names_comments_strings_asm_and_c_untouched() {
        let src = "typedef int register_t;\nregister_t registerX = 0; // register int\nconst char* s = \"register\";\n__device__ void g(int v) {\n  asm volatile(\"mov.u32 %0, %%register;\" : \"=r\"(v));\n  register int sp asm(\"sp\");\n}\n";
        let (out, found) = port("k.cu", src);
        assert_eq!(out, src);
        assert!(found.is_empty(), "{found:?}");
        let (out, found) = port("k.c", "void f(void) { register int i = 0; }\n");
        assert_eq!(out, "void f(void) { register int i = 0; }\n");
        assert!(found.is_empty(), "{found:?}");
        // The word in a diagnostic's text and a token handed to a macro (Boost's
        // `keyword/register.hpp`, BSL-1.0) are no storage class; a macro body declaring with
        // it is.
        let words = "#error Include only one header to register tag\n#define ADD(t) FACILITY(t, IS_REGISTER, register)\n#define DECL register int x = 0;\n";
        let (out, found) = port("k.cu", words);
        assert_eq!(
            out,
            words.replace("#define DECL register int", "#define DECL int")
        );
        assert_eq!(found.len(), 1, "{found:?}");
    }

    fn unported(path: &str, src: &str) -> Vec<(u32, String)> {
        let opts = crate::translate::Options::for_tests("6.2", false);
        let t =
            crate::translate::translate_bytes(path, src.as_bytes(), crate::mappings::get(), &opts);
        t.findings
            .into_iter()
            .filter(|f| f.rule == "HP001")
            .map(|f| (f.line, f.message))
            .collect()
    }

    /// `cudaMemoryTypeUnregistered`: HIPIFY lists it as unsupported, HIP has it from 6.0 (the
    /// hand table): renamed at 6.2, HP001 naming 6.0 below it.
    #[test]
    fn a_name_hip_added_after_hipify_listed_it_unsupported() {
        let src = "bool f(cudaPointerAttributes a) { return a.type == cudaMemoryTypeUnregistered; }
";
        let opts = crate::translate::Options::for_tests("6.2", false);
        let t = crate::translate::translate_bytes(
            "p.cu",
            src.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        let out = String::from_utf8(t.output).unwrap();
        assert!(out.contains("a.type == hipMemoryTypeUnregistered"), "{out}");
        assert!(unported("p.cu", src).is_empty());
        let opts = crate::translate::Options::for_tests("5.7", false);
        let t = crate::translate::translate_bytes(
            "p.cu",
            src.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        assert!(t
            .findings
            .iter()
            .any(|f| f.rule == "HP001" && f.message.contains("exists only from ROCm 6.0.0")));
    }

    /// A device function with no HIP counterpart is reported where it is called or taken by
    /// address.
    #[test]
    fn device_function_without_counterpart_reported_where_called() {
        let found = unported(
            "k.cu",
            "__global__ void k(unsigned* o, unsigned a, unsigned b) {\n  o[0] = umax(a, b);\n  auto f = &umin;\n}\n",
        );
        let lines: Vec<u32> = found.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [2, 3], "{found:?}");
        // CV-CUDA: a reserved name passed to a macro that calls it is the intrinsic.
        let found = unported(
            "m.hpp",
            "#define BIN(T, F) unsigned r = F(a, b);\n__device__ unsigned f(unsigned a, unsigned b) {\n  BIN(short2, __vmins2)\n  return r;\n}\n",
        );
        let lines: Vec<u32> = found.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [3], "{found:?}");
    }

    /// Negative twin: a parameter, a member and a macro argument that share a device function's
    /// name are not the function (a constructor's `double umax`, an assembler's `INST(umax, …)`).
    #[test]
    fn names_of_device_functions_that_are_not_calls_stay_quiet() {
        let found = unported(
            "force.h",
            "struct F {\n  F(double lambda, double umax, double umin);\n  double umax;\n};\n#define INST(a, b) void a(int);\nINST(umax, Umax)\ndouble g(F& f) { return f.umax + f.umin; }\n",
        );
        assert!(found.is_empty(), "{found:?}");
    }

    /// CloverLeaf's `errorCodes`: a switch whose `case` labels name enumerators HIP does not
    /// have is one finding on the first label. Twins: two such labels stay two findings, and
    /// the same names outside `case` labels are not folded.
    #[test]
    fn a_switch_of_unported_case_labels_is_one_finding() {
        let hp001 = |src: &str| -> Vec<(u32, crate::gate::Status)> {
            crate::translate::translate_for_tests(src, "6.2")
                .findings
                .into_iter()
                .filter(|f| f.rule == "HP001")
                .map(|f| (f.line, f.status))
                .collect()
        };
        use crate::gate::Status::{Pass, Remediation};
        let three = "const char* n(int e) {\n  switch (e) {\n    case cudaSuccess: return \"ok\";\n    case cudaErrorInvalidHostPointer: return \"a\";\n    case cudaErrorTextureNotBound: return \"b\";\n    case cudaErrorAddressOfConstant: return \"c\";\n  }\n  return \"\";\n}\n";
        assert_eq!(hp001(three), [(4, Remediation), (5, Pass), (6, Pass)]);
        let t = crate::translate::translate_for_tests(three, "6.2");
        assert!(
            t.findings[0]
                .message
                .contains("one edit of this switch: 3 of its `case` labels"),
            "{}",
            t.findings[0].message
        );
        let two = three.replace("    case cudaErrorAddressOfConstant: return \"c\";\n", "");
        assert_eq!(hp001(&two), [(4, Remediation), (5, Remediation)]);
        let uses = "int a = cudaErrorInvalidHostPointer;\nint b = cudaErrorTextureNotBound;\nint c = cudaErrorAddressOfConstant;\n";
        assert_eq!(
            hp001(uses),
            [(1, Remediation), (2, Remediation), (3, Remediation)]
        );
    }
}
