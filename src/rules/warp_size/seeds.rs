//! Lane tests that only seed a block scan's prefix callback. mamba's selective scan writes
//! `running_prefix = chunk > 0 && threadIdx.x % 32 == 0 ? smem[…] : identity;`, wraps it in a
//! callback (`SSMScanPrefixCallbackOp prefix_op(running_prefix);`) and hands that to
//! `BlockScanT(…).InclusiveScan(…, prefix_op)`. CUB and hipCUB block scans (and block scans
//! written like them, which broadcast the callback's lane-0 result) use the value of the first
//! lane only, so on a 64-lane wavefront lanes 32–63 that read the stored prefix too change
//! nothing: the `% 32` lane test is PASS with that reason. Found from tokens: every later use of
//! the seed must be another such assignment or the one argument of a callback object's
//! declaration, and every use of that object must be the last argument of a `.…Scan(`/`.…Sum(`
//! call or a member read under a `threadIdx.x == 0` test.

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Lexed, Tok};
use crate::model::syntax::Src;

/// How far (in tokens) after the seed its uses are followed.
const WINDOW: usize = 3000;

fn text<'a>(src: &'a [u8], l: &Lexed, i: usize) -> &'a [u8] {
    l.tokens[i].text(src)
}

/// Code token indices (no comments, no directive lines).
fn code(l: &Lexed) -> Vec<usize> {
    (0..l.tokens.len())
        .filter(|&i| l.tokens[i].kind != Tok::Comment && !l.tokens[i].in_directive())
        .collect()
}

/// The seed variable of the statement holding code position `k` when the statement is
/// `[type] V = … % 32 == 0 … ? … : …;`, and the code position after its `;`.
fn seed_of(src: &[u8], l: &Lexed, c: &[usize], k: usize) -> Option<(String, usize)> {
    let t = |j: usize| text(src, l, c[j]);
    let mut start = k;
    while start > 0 && !matches!(t(start - 1), b";" | b"{" | b"}") {
        start -= 1;
    }
    let mut end = k;
    while end < c.len() && t(end) != b";" {
        if matches!(t(end), b"{" | b"}") {
            return None;
        }
        end += 1;
    }
    if end >= c.len() {
        return None;
    }
    // The single `=` of the statement, before the lane test.
    let eq = (start + 1..k).find(|&j| {
        t(j) == b"="
            && !matches!(t(j - 1), b"=" | b"!" | b"<" | b">")
            && j + 1 < c.len()
            && t(j + 1) != b"="
    })?;
    if l.tokens[c[eq - 1]].kind != Tok::Ident {
        return None;
    }
    // `% 32 == 0 ?` after the lane test: the lane-0-of-each-warp test chooses the value.
    let after: Vec<&[u8]> = (k..end).map(t).collect();
    let q = after.iter().position(|w| *w == b"?")?;
    let tested_zero = after[..q].windows(3).any(|w| w == [b"=", b"=", b"0"]);
    if !tested_zero || !after[q..].contains(&&b":"[..]) {
        return None;
    }
    Some((String::from_utf8_lossy(t(eq - 1)).into_owned(), end + 1))
}

/// Whether every use of `v` from code position `from` on is a re-assignment or the single
/// argument of a declaration `Type name(v)`; returns the declared names.
fn callbacks_of(src: &[u8], l: &Lexed, c: &[usize], v: &[u8], from: usize) -> Option<Vec<Vec<u8>>> {
    let t = |j: usize| text(src, l, c[j]);
    let mut names = Vec::new();
    for j in from..c.len().min(from + WINDOW) {
        if t(j) != v || l.tokens[c[j]].kind != Tok::Ident {
            continue;
        }
        let prev = if j > 0 { t(j - 1) } else { b"" };
        if matches!(prev, b"." | b"->" | b"::") {
            continue; // a member of something else
        }
        let next = t(j + 1);
        if next == b"="
            && t(j + 2) != b"="
            && (matches!(prev, b";" | b"{" | b"}")
                || l.tokens[c[j - 1]].kind == Tok::Ident
                || prev == b">")
        {
            continue; // another seed assignment, or a new seed of that name in a later scope
        }
        // `Type name(v)` / `Type name{v}`
        let decl = j >= 3
            && matches!(prev, b"(" | b"{")
            && matches!(next, b")" | b"}")
            && l.tokens[c[j - 2]].kind == Tok::Ident
            && (l.tokens[c[j - 3]].kind == Tok::Ident || t(j - 3) == b">");
        if !decl {
            return None;
        }
        names.push(t(j - 2).to_vec());
    }
    (!names.is_empty()).then_some(names)
}

/// Whether every use of the callback object `p` from `from` on is the last argument of a
/// `.…Scan(`/`.…Sum(` call or a member read under a `threadIdx.x == 0` test.
fn feeds_only_block_scans(src: &[u8], l: &Lexed, c: &[usize], p: &[u8], from: usize) -> bool {
    let t = |j: usize| text(src, l, c[j]);
    let mut scans = 0;
    for j in from..c.len().min(from + WINDOW) {
        if t(j) != p || l.tokens[c[j]].kind != Tok::Ident {
            continue;
        }
        if j > 0 && matches!(t(j - 1), b"." | b"->" | b"::") {
            continue;
        }
        let next = t(j + 1);
        if matches!(next, b"(" | b"{")
            && j > 0
            && (l.tokens[c[j - 1]].kind == Tok::Ident || t(j - 1) == b">")
        {
            continue; // its declaration (`Type<T> name(seed)`), not a call
        }
        if next == b")" && t(j - 1) == b"," {
            // Walk back to the call's `(`.
            let mut depth = 0i32;
            let mut k = j;
            let open = loop {
                if k == 0 {
                    break None;
                }
                k -= 1;
                match t(k) {
                    b")" | b"]" | b"}" => depth += 1,
                    b"(" | b"[" | b"{" if depth > 0 => depth -= 1,
                    b"(" => break Some(k),
                    b"[" | b"{" | b";" => break None,
                    _ => {}
                }
            };
            let Some(open) = open else { return false };
            let callee = if open >= 2 { t(open - 1) } else { b"" };
            if open >= 2
                && t(open - 2) == b"."
                && (callee.ends_with(b"Scan") || callee.ends_with(b"Sum"))
            {
                scans += 1;
                continue;
            }
            return false;
        }
        if next == b"." {
            // `prefix_op.running_prefix` read back: only under a thread-0 test nearby.
            let lo = j.saturating_sub(40);
            let zero_test = (lo..j).any(|k| {
                t(k) == b"threadIdx"
                    && t(k + 1) == b"."
                    && t(k + 2) == b"x"
                    && t(k + 3) == b"="
                    && t(k + 4) == b"="
                    && t(k + 5) == b"0"
            });
            if zero_test {
                continue;
            }
        }
        return false;
    }
    scans > 0
}

pub(super) fn block_scan_seeds(s: &Src, out: &mut [Finding]) {
    if !out
        .iter()
        .any(|f| f.rule == "HP102" && f.status != Status::Pass)
    {
        return;
    }
    let (src, l) = (s.ctx.src, s.lexed);
    let c = code(l);
    for f in out
        .iter_mut()
        .filter(|f| f.rule == "HP102" && f.status != Status::Pass)
    {
        // The `%` of the lane test, inside the finding's range.
        let first = c.partition_point(|&i| (l.tokens[i].start as usize) < f.byte_range.0);
        let Some(k) = (first..c.len())
            .take_while(|&j| {
                (l.tokens[c[j]].start as usize) < f.byte_range.1.max(f.byte_range.0 + 1)
            })
            .find(|&j| text(src, l, c[j]) == b"%")
        else {
            continue;
        };
        let Some((v, after)) = seed_of(src, l, &c, k) else {
            continue;
        };
        let Some(names) = callbacks_of(src, l, &c, v.as_bytes(), after) else {
            continue;
        };
        if names
            .iter()
            .all(|p| feeds_only_block_scans(src, l, &c, p, after))
        {
            let p = String::from_utf8_lossy(&names[0]);
            f.settle(&format!(
                " — but it only chooses the seed `{v}` of the block-scan prefix callback `{p}`: CUB/hipCUB block scans (and ones written like them) use the first lane's callback value only, so lanes 32–63 reading it too change nothing on 64-lane wavefronts (nothing to change)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;

    fn open_hp102(src: &str) -> Vec<u32> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP102" && f.status != Status::Pass)
            .map(|f| f.line)
            .collect()
    }

    /// mamba's selective scan (forward and backward): the `% 32 == 0` test only seeds the prefix
    /// callback of a block scan. The same test used for anything else stays open.
    #[test]
    fn lane_tests_that_only_seed_a_block_scan_are_pass() {
        let seed = "template <typename Ktraits>\n__global__ void k(float2 *x, int chunk) {\n  __shared__ typename Ktraits::BlockScanT::TempStorage smem_scan;\n  float2 thread_data[4];\n  float2 running_prefix;\n  running_prefix = chunk > 0 && threadIdx.x % 32 == 0 ? x[chunk - 1] : make_float2(1.f, 0.f);\n  SSMScanPrefixCallbackOp<float> prefix_op(running_prefix);\n  typename Ktraits::BlockScanT(smem_scan).InclusiveScan(thread_data, thread_data, SSMScanOp<float>(), prefix_op);\n  if (threadIdx.x == 0) { x[chunk] = prefix_op.running_prefix; }\n  float2 running_postfix = chunk > 0 && threadIdx.x % 32 == 0 ? x[chunk + 1] : make_float2(1.f, 0.f);\n  SSMScanPrefixCallbackOp<float> postfix_op(running_postfix);\n  typename Ktraits::BlockReverseScanT(smem_scan).InclusiveReverseScan(thread_data, thread_data, SSMScanOp<float>(), postfix_op);\n  for (int i = 0; i < 32; i += 1) { x[i] = __shfl_down_sync(0xffffffff, x[i], 1); }\n}\n";
        assert!(open_hp102(seed).is_empty(), "{:?}", open_hp102(seed));
        // The lane-0 value used directly, or the callback's state read by every thread, or a
        // seed passed to something that is not a scan: open.
        let direct = seed.replace(
            "SSMScanPrefixCallbackOp<float> prefix_op(running_prefix);",
            "x[threadIdx.x] = running_prefix;\n  SSMScanPrefixCallbackOp<float> prefix_op(running_prefix);",
        );
        assert_eq!(open_hp102(&direct), [6]);
        let state = seed.replace(
            "if (threadIdx.x == 0) { x[chunk] = prefix_op.running_prefix; }",
            "x[threadIdx.x] = prefix_op.running_prefix;",
        );
        assert_eq!(open_hp102(&state), [6]);
        let other = seed.replace(".InclusiveReverseScan(", ".Reduce(");
        assert_eq!(open_hp102(&other), [10]);
        let called = seed.replace(
            "if (threadIdx.x == 0) { x[chunk] = prefix_op.running_prefix; }",
            "x[threadIdx.x] = prefix_op(x[0]);",
        );
        assert_eq!(open_hp102(&called), [6]);
    }
}
