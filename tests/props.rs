//! Property tests (proptest) of the edit engine, the lexer and the translation of small
//! CUDA-like inputs built from hostile pieces (unterminated comments and strings, raw strings,
//! line continuations before LF and CRLF, NUL, invalid UTF-8, launches, guards).

use hipport::edit::{apply, Edit};
use hipport::lex::{lex, Tok};
use proptest::prelude::*;

/// A reference for non-overlapping edits: splice from the end.
fn splice(src: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut sorted: Vec<(usize, &Edit)> = edits.iter().enumerate().collect();
    sorted.sort_by_key(|(i, e)| (e.start, e.end, *i));
    let mut out = src.to_vec();
    for (_, e) in sorted.iter().rev() {
        out.splice(e.start..e.end, e.replacement.bytes());
    }
    out
}

/// Edits over `len` bytes that never overlap (each in its own slot of the buffer).
fn disjoint_edits(len: usize) -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec((0..=len, 0..=4usize, "[a-z\n]{0,6}"), 0..8).prop_map(move |raw| {
        let mut cuts: Vec<(usize, usize, String)> = raw
            .into_iter()
            .map(|(s, w, r)| (s, (s + w).min(len), r))
            .collect();
        cuts.sort();
        let mut out = Vec::new();
        let mut pos = 0;
        for (s, e, r) in cuts {
            if s < pos {
                continue;
            }
            out.push(Edit::replace(s, e, r));
            pos = e;
        }
        out
    })
}

const PIECES: &[&str] = &[
    "cudaMalloc(&p, n);",
    "cudaFree",
    " ",
    "\n",
    "\r\n",
    "\r",
    "/*",
    "*/",
    "//",
    "\"",
    "'",
    "R\"(",
    ")\"",
    "\\\n",
    "\\\r\n",
    "#if 1\n",
    "#ifdef __CUDACC__\n",
    "#endif\n",
    "#include <cuda_runtime.h>\n",
    "k<<<g, b>>>(x);",
    "<<<",
    ">>>",
    "(",
    ")",
    "{",
    "}",
    ";",
    ",",
    "\0",
    "\u{0}",
    "__global__ void k(float *x) {}\n",
    "inline __device__ float2 operator+(float2 a, float2 b) { return a; }\n",
    "__device__ double atomicAdd(double *a, double v) { return v; }\n",
    "dim3(",
    "threadIdx.x",
    "__shfl_xor_sync(0xffffffff, v, 1)",
];

fn cuda_like() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            8 => prop::sample::select(PIECES).prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::collection::vec(any::<u8>(), 0..4),
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

fn port(src: &[u8], hip_launch: bool) -> Vec<u8> {
    let opts = hipport::translate::Options {
        target: hipport::mappings::Target {
            rocm: "6.2.0".parse().unwrap(),
            roc: false,
            experimental: false,
            lds: None,
        },
        launch: if hip_launch {
            hipport::translate::LaunchSyntax::Hip
        } else {
            hipport::translate::LaunchSyntax::Keep
        },
        implicit_include: true,
        compat_header: false,
        unsafe_fixes: false,
    };
    let t = hipport::translate::translate_bytes("p.cu", src, hipport::mappings::get(), &opts);
    assert_eq!(
        t.conflicts,
        0,
        "edit conflicts on {:?}",
        String::from_utf8_lossy(src)
    );
    t.output
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn disjoint_edits_apply_like_a_splice(
        (src, edits) in prop::collection::vec(any::<u8>(), 0..64)
            .prop_flat_map(|s| { let n = s.len(); (Just(s), disjoint_edits(n)) })
    ) {
        let a = apply(&src, &edits);
        prop_assert!(a.conflicts.is_empty());
        prop_assert_eq!(a.output, splice(&src, &edits));
    }

    #[test]
    fn any_edits_never_panic_and_account_for_every_byte(
        src in prop::collection::vec(any::<u8>(), 0..64),
        raw in prop::collection::vec((0..80usize, 0..80usize, "[a-z]{0,4}"), 0..10),
    ) {
        let edits: Vec<Edit> = raw.into_iter().map(|(s, e, r)| Edit::replace(s, e, r)).collect();
        let a = apply(&src, &edits);
        // Each conflict accounts for one edit (two equal edits: one applied, one conflict).
        let mut conflicts = a.conflicts.clone();
        let applied: Vec<Edit> = edits
            .iter()
            .filter(|e| match conflicts.iter().position(|c| c == *e) {
                Some(i) => {
                    conflicts.swap_remove(i);
                    false
                }
                None => true,
            })
            .cloned()
            .collect();
        // What was applied is a valid, non-overlapping set, and the output is its splice.
        prop_assert!(applied.iter().all(|e| e.start <= e.end && e.end <= src.len()));
        prop_assert_eq!(applied.len() + a.conflicts.len(), edits.len());
        prop_assert_eq!(a.output, splice(&src, &applied));
    }

    #[test]
    fn insertions_at_one_offset_keep_their_order(
        src in "[a-z]{0,10}", at in 0..10usize, texts in prop::collection::vec("[A-Z]{1,3}", 1..5)
    ) {
        let at = at.min(src.len());
        let edits: Vec<Edit> = texts.iter().map(|t| Edit::insert(at, t.clone())).collect();
        let out = apply(src.as_bytes(), &edits).output;
        let expect = format!("{}{}{}", &src[..at], texts.concat(), &src[at..]);
        prop_assert_eq!(out, expect.into_bytes());
    }

    #[test]
    fn lexer_tokens_are_ordered_disjoint_and_in_bounds(src in cuda_like()) {
        let l = lex(&src);
        let mut pos = 0u32;
        for t in &l.tokens {
            prop_assert!(t.start >= pos && t.end > t.start && t.end as usize <= src.len());
            pos = t.end;
        }
        for d in &l.directives {
            prop_assert!(d.start <= d.end && d.end <= src.len());
        }
        // Comments never contain a token.
        prop_assert!(l.tokens.windows(2).all(|w| w[0].kind != Tok::Comment || w[1].start >= w[0].end));
    }

    #[test]
    fn translation_is_idempotent_and_keeps_comments(src in cuda_like(), hip in any::<bool>()) {
        let out = port(&src, hip);
        prop_assert_eq!(port(&out, hip), out.clone(), "input {:?}", String::from_utf8_lossy(&src));
        let l = lex(&src);
        let mut from = 0;
        for t in l.tokens.iter().filter(|t| t.kind == Tok::Comment) {
            let c = t.text(&src);
            match memchr::memmem::find(&out[from..], c) {
                Some(i) => from += i + c.len(),
                None => prop_assert!(false, "comment {:?} lost from {:?}", String::from_utf8_lossy(c), String::from_utf8_lossy(&src)),
            }
        }
    }
}

/// A line continuation before the first comment must not hide the file's start from the
/// include the port adds: a second pass then sees the same file (found by the property above).
#[test]
fn idempotent_after_a_leading_line_continuation() {
    let src = b"\\\n/**/inline __device__ float2 operator+(float2 a, float2 b) { return a; }\n";
    let out = port(src, false);
    assert_eq!(
        String::from_utf8_lossy(&port(&out, false)),
        String::from_utf8_lossy(&out)
    );
}
