//! `atomicAdd` on a 16-bit floating-point pointer (`__half*`, `__half2*`, `__nv_bfloat16*`,
//! `__nv_bfloat162*`): CUDA declares the overloads, HIP only from the release the hand table
//! `mappings/hand/half_atomics.tsv` names. Where the target lacks the overload the call does
//! not compile (HP713). The pointee is read from a cast in the argument, else from the
//! declaration of the argument's variable in scope (function, else file). No finding where the
//! file or a project header it includes declares its own `atomicAdd` for that type.

use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::lex::Tok;
use crate::mappings::half_atomics;
use crate::mappings::Target;
use crate::model::project::Visible;
use crate::model::syntax::{self, Src};

rule!(HALF_ATOMIC_ADD_MISSING, "HP713", DeviceFeature, Remediation, Build,
    summary: "`atomicAdd` on a `__half*`, `__half2*`, `__nv_bfloat16*` or `__nv_bfloat162*` where the target ROCm declares no such overload (HIP adds them in ROCm 7.14; `unsafeAtomicAdd` for the pairs from 6.3), or on a `float2*`/`float4*` (no HIP release declares those).",
    why: "CUDA declares these overloads (sm_60+/sm_70+/sm_80+; the `float2`/`float4` vector adds for sm_90+); HIP's headers before ROCm 7.14 declare none of the 16-bit ones and no release declares the vector ones, so hipcc reports no matching function (or silently picks a user overload of another type).",
    bad: "atomicAdd(&grad[i], __float2half(g));   // __half* grad, target ROCm 6.2",
    good: "// a compare-and-swap loop on the aligned 32-bit word, or unsafeAtomicAdd((__half2*)p, v) from ROCm 6.3\natomicAdd(&grad[i], __float2half(g));       // target ROCm 7.14 or later",
    fix: "Define the overload for HIP as a CAS loop on the 32-bit word that holds the value (`atomicCAS` on `unsigned int*`), use `unsafeAtomicAdd` for `__half2`/`__hip_bfloat162` from ROCm 6.3 (hardware packed add, not on fine-grained memory), or target ROCm 7.14 or later.",
    refs: ["https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_hip_fp16.h", "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#atomicadd"],
);

/// CUDA spellings of the 16-bit types → the HIP type the table names.
const SPELLINGS: &[(&str, &str)] = &[
    ("__half", "__half"),
    ("half", "__half"),
    ("__half2", "__half2"),
    ("half2", "__half2"),
    ("__nv_bfloat16", "__hip_bfloat16"),
    ("nv_bfloat16", "__hip_bfloat16"),
    ("__hip_bfloat16", "__hip_bfloat16"),
    ("__nv_bfloat162", "__hip_bfloat162"),
    ("nv_bfloat162", "__hip_bfloat162"),
    ("__hip_bfloat162", "__hip_bfloat162"),
    // CUDA 12 declares vector adds for sm_90+; HIP declares none (clr `amd_hip_atomic.h`: only
    // `float`/`double` floating-point `atomicAdd`), so these pairs have no table row.
    ("float2", "float2"),
    ("float4", "float4"),
];

/// A floating-point vector pointee: CUDA adds its components in one atomic (sm_90+).
fn vector(pointee: &str) -> bool {
    matches!(pointee, "float2" | "float4")
}

fn hip_type(spelled: &str) -> Option<&'static str> {
    SPELLINGS
        .iter()
        .find(|(c, _)| *c == spelled)
        .map(|(_, h)| *h)
}

pub fn check(s: &Src, target: &Target, seen: &Visible, out: &mut Vec<Finding>) {
    if !s.idents().any(|(_, n)| n == "atomicAdd") || s.tree.is_none() {
        return;
    }
    let root = s.tree.unwrap().root_node();
    let mut scopes: std::collections::HashMap<usize, syntax::ScopedTypes> = Default::default();
    let mut file_types: Option<std::collections::HashMap<&str, &str>> = None;
    for call in &s.of_kinds(&[K::CallExpression]) {
        if syntax::call_name(s, *call) != Some("atomicAdd") {
            continue;
        }
        let Some(arg) = syntax::call_args(*call).into_iter().next() else {
            continue;
        };
        let names = syntax::identifiers(s, arg);
        // A cast names the pointee (`(__half2*)p`, `reinterpret_cast<half2*>(p)`).
        let pointee = match names.iter().find_map(|n| hip_type(n)) {
            Some(t) => t,
            None => {
                let Some(base) = names.first().copied() else {
                    continue;
                };
                // `&acc[i].x`: a member of the variable, whose type is not the variable's.
                let mut e = arg;
                while matches!(
                    e.node_kind(),
                    K::PointerExpression | K::ParenthesizedExpression
                ) {
                    match e.named_child(0) {
                        Some(c) => e = c,
                        None => break,
                    }
                }
                if e.node_kind() == K::FieldExpression {
                    continue;
                }
                let scoped = s.enclosing_function(*call).and_then(|f| {
                    scopes
                        .entry(f.id())
                        .or_insert_with(|| syntax::ScopedTypes::of(s, f))
                        .type_at(base, call.start_byte())
                });
                let ty = match scoped {
                    Some(t) => t,
                    None => {
                        let ft = file_types.get_or_insert_with(|| file_scope_types(s, root));
                        match ft.get(base) {
                            Some(t) => t,
                            None => continue,
                        }
                    }
                };
                match hip_type(ty) {
                    Some(t) => t,
                    None => continue,
                }
            }
        };
        if half_atomics::declared("atomicAdd", pointee, target.rocm)
            || own_overload(s, seen, pointee)
        {
            continue;
        }
        let from = half_atomics::first("atomicAdd", pointee).map_or(String::new(), |v| {
            format!(" (HIP declares it from ROCm {v})")
        });
        let pair = pointee.ends_with('2');
        let unsafe_add = pair && half_atomics::declared("unsafeAtomicAdd", pointee, target.rocm);
        let suggestion = if vector(pointee) {
            format!("add the components one by one (`atomicAdd(&p->x, v.x)`, …): each is atomic on its own, not the {pointee} as a whole, which is what CUDA's sm_90 overload gives; readers that need the whole vector consistent need a lock or a different layout")
        } else if unsafe_add {
            format!("use `unsafeAtomicAdd` (ROCm {}: hardware packed add, not on fine-grained memory) or a CAS loop on the 32-bit word, or target a ROCm release that declares the overload", target.rocm)
        } else {
            "define it for HIP as a CAS loop (`atomicCAS`) on the aligned 32-bit word that holds the value, or target a ROCm release that declares the overload".to_string()
        };
        out.push(s.ctx.finding(
            &HALF_ATOMIC_ADD_MISSING,
            call.byte_range(),
            format!(
                "`atomicAdd` on a `{pointee}*`: ROCm {} declares no such overload{from}",
                target.rocm
            ),
            Some(suggestion),
        ));
    }
}

/// Variables declared outside any function (globals, members) with their type text.
fn file_scope_types<'a>(
    s: &Src<'a>,
    root: tree_sitter::Node<'a>,
) -> std::collections::HashMap<&'a str, &'a str> {
    let mut m = std::collections::HashMap::new();
    for kind in [K::Declaration, K::FieldDeclaration] {
        for d in s.descendants(root, kind) {
            if s.enclosing_function(d).is_some() {
                continue;
            }
            let Some(ty) = d.field(F::Type) else { continue };
            let mut c = d.walk();
            for x in d.fields(F::Declarator, &mut c) {
                if let Some(name) = syntax::declarator_name(s, x) {
                    m.entry(name).or_insert(s.text(ty));
                }
            }
        }
    }
    m
}

/// Whether the file (a declaration `… atomicAdd(` after a type word, with one of the pointee's
/// spellings among its parameters, or a `#define atomicAdd`) or a project header it includes
/// (for the ROCm build) defines its own `atomicAdd` for the pointee.
fn own_overload(s: &Src, seen: &Visible, pointee: &str) -> bool {
    let spelled: Vec<String> = SPELLINGS
        .iter()
        .filter(|(_, h)| *h == pointee)
        .map(|(c, _)| c.to_string())
        .collect();
    // An included project header's `atomicAdd` under a ROCm switch with the type among its
    // parameters, or one the project declares in its own scope (`own` keeps no parameter
    // types, so any such definition counts: a polyfill header usually covers every type).
    if seen.rocm_overload("atomicAdd", &spelled).is_some()
        || seen
            .own
            .get("atomicAdd")
            .is_some_and(|v| v.iter().any(|o| !o.member))
    {
        return true;
    }
    let l = s.lexed;
    let src = s.bytes();
    (0..l.tokens.len()).any(|i| {
        let t = l.tokens[i];
        if t.kind != Tok::Ident || t.text(src) != b"atomicAdd" {
            return false;
        }
        let Some(prev) = l.prev_code(i) else {
            return false;
        };
        let pt = l.tokens[prev].text(src);
        if pt == b"define" && t.in_directive() {
            return true;
        }
        let typed = (l.tokens[prev].kind == Tok::Ident
            && !crate::translate::compat::NOT_A_TYPE.contains(&pt))
            || pt == b"*"
            || pt == b"&";
        if !typed || t.in_directive() {
            return false;
        }
        let Some(open) = l.next_code(i).filter(|&k| l.tokens[k].text(src) == b"(") else {
            return false;
        };
        let mut depth = 0;
        for k in open..l.tokens.len() {
            let x = l.tokens[k].text(src);
            match x {
                b"(" => depth += 1,
                b")" => {
                    depth -= 1;
                    if depth == 0 {
                        return false;
                    }
                }
                _ if l.tokens[k].kind == Tok::Ident
                    && spelled.iter().any(|w| w.as_bytes() == x) =>
                {
                    return true
                }
                _ => {}
            }
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{fires_for, hazard_findings_for};

    fn lines(src: &str, rocm: &str) -> Vec<u32> {
        fires_for(rocm, src, "HP713")
    }

    const SRC: &str = "__global__ void k(__half* g, __nv_bfloat16* b, float* f, void* raw, __half2 v) {\n  atomicAdd(&g[threadIdx.x], __float2half(1.0f));\n  atomicAdd(b + 1, b[0]);\n  atomicAdd(f, 1.0f);\n  atomicAdd((__half2*)raw, v);\n}\n";

    /// Before ROCm 7.14 every 16-bit pointee is flagged, the float one is not.
    #[test]
    fn half_and_bf16_atomic_add_flagged_before_7_14() {
        assert_eq!(lines(SRC, "6.2"), [2, 3, 5]);
        let f = hazard_findings_for("t.cu", SRC, "6.3".parse().unwrap());
        let pair = f.iter().find(|f| f.rule == "HP713" && f.line == 5).unwrap();
        assert!(pair
            .suggestion
            .as_deref()
            .unwrap()
            .contains("unsafeAtomicAdd"));
        let scalar = f.iter().find(|f| f.rule == "HP713" && f.line == 2).unwrap();
        assert!(!scalar
            .suggestion
            .as_deref()
            .unwrap()
            .contains("unsafeAtomicAdd"));
    }

    /// BlinkDL/RWKV-LM (v7 CUDA kernels): `atomicAdd` on a `float2*`, CUDA's sm_90 vector add,
    /// has no HIP overload at any release; twins: the `float` component add, and the file's own
    /// `float2` overload.
    #[test]
    fn float_vector_atomic_add_is_flagged_at_every_release() {
        let src = "__global__ void k(float2* acc, float2 v, float* s) {\n  atomicAdd(acc + threadIdx.x, v);\n  atomicAdd(&acc[0].x, v.x);\n  atomicAdd((float4*)s, make_float4(0, 0, 0, 0));\n}\n";
        assert_eq!(lines(src, "7.14"), [2, 4]);
        let f = hazard_findings_for("t.cu", src, "7.14".parse().unwrap());
        let v = f.iter().find(|f| f.rule == "HP713" && f.line == 2).unwrap();
        assert!(v
            .suggestion
            .as_deref()
            .unwrap()
            .contains("components one by one"));
        let own = "__device__ void atomicAdd(float2* a, float2 v) { atomicAdd(&a->x, v.x); atomicAdd(&a->y, v.y); }\n__global__ void k(float2* g, float2 v) { atomicAdd(g, v); }\n";
        assert!(lines(own, "7.14").is_empty());
    }

    /// Negative twins: a target that declares the overloads, and a file with its own overload.
    #[test]
    fn no_finding_where_hip_or_the_file_declares_the_overload() {
        assert!(lines(SRC, "7.14").is_empty());
        let own = "__device__ __half atomicAdd(__half* a, __half v) { return v; }\n__global__ void k(__half* g) { atomicAdd(g, g[0]); }\n";
        assert!(lines(own, "6.2").is_empty());
        let other =
            "__global__ void k(float* g, int* n) { atomicAdd(g, 1.0f); atomicAdd(n, 1); }\n";
        assert!(lines(other, "6.2").is_empty());
    }

    /// An included project header that defines its own `atomicAdd` (a polyfill such as
    /// `compat.cuh`) serves the call: no finding; without it the same call is flagged.
    #[test]
    fn included_project_overload_serves_the_call() {
        use crate::model::own::OwnRef;
        use crate::model::project::{Visible, NOTHING};
        let src =
            "#include \"compat.cuh\"\n__global__ void k(half2* g, half2 v) { atomicAdd(g, v); }\n";
        let run = |seen: &Visible| {
            let bytes = src.as_bytes();
            let lines = crate::source::LineIndex::new(bytes);
            let ctx = crate::rules::FileCtx {
                path: "k.cu",
                src: bytes,
                lines: &lines,
            };
            let tree = crate::parse::parse(bytes);
            let lexed = crate::lex::lex(bytes);
            let target = crate::mappings::Target {
                rocm: "6.2".parse().unwrap(),
                roc: false,
                experimental: false,
                lds: None,
            };
            crate::rules::hazards::check_lexed(
                &ctx,
                &lexed,
                tree.as_ref(),
                &target,
                seen,
                &mut Vec::new(),
                &mut Vec::new(),
            )
            .into_iter()
            .filter(|f| f.rule == "HP713")
            .count()
        };
        assert_eq!(run(&NOTHING), 1);
        let mut own = std::collections::BTreeMap::new();
        own.insert(
            "atomicAdd".to_string(),
            vec![OwnRef {
                at: "compat.cuh:50".into(),
                scope: String::new(),
                member: false,
                body: true,
                arity: (2, 2),
            }],
        );
        let seen = Visible {
            own,
            ..Visible::default()
        };
        assert_eq!(run(&seen), 0);
    }
}
