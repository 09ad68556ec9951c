//! Warp-level calls written inside a function-like macro (nheqminer's `#define CHECK_DUP(a)
//! __any(atomicExch(…) == …)`) and used in functions whose lanes are 32-lane logical warps
//! (`lane = threadIdx.x & 0x1f`). The logical-warp rewrites ([`super::logical_warp`]) apply to
//! calls written in a function's body; a macro body is shared by every use, so `port` leaves
//! it, and under HIP the vote spans the 64-lane wavefront: two CUDA warps decide together. One
//! HP109 (REMEDIATION) per such call, on the call in the macro, naming the lines that use it in
//! such functions and the form that keeps CUDA's meaning. A macro used only in functions of the
//! hardware wavefront (no 32-lane lane ids) is no such fact.

use super::Pass;
use crate::gate::Status;
use crate::lex::{Tok, NO_DIRECTIVE};
use crate::rules::warp_size::logical::{macro_calls, vote_text, Warp, LOGICAL_WARP_REWRITE};

pub(super) fn run(p: &mut Pass) {
    if p.warps.is_empty() {
        return;
    }
    let lexed = p.lexed;
    for c in macro_calls(p.src(), lexed) {
        // The uses in code that sit in functions of 32-lane logical warps.
        let mut lines: Vec<u32> = Vec::new();
        let mut why32 = None;
        for (i, t) in lexed.tokens.iter().enumerate() {
            if t.kind != Tok::Ident
                || t.directive != NO_DIRECTIVE
                || t.text(p.src()) != c.macro_name.as_bytes()
                || !matches!(p.warps.warp_at(i), Warp::Logical32 | Warp::Mixed)
            {
                continue;
            }
            why32 = why32.or_else(|| p.warps.evidence(i).0.map(str::to_string));
            let line = p.ctx.lines.position(p.src(), t.start as usize).line;
            if lines.last() != Some(&line) {
                lines.push(line);
            }
        }
        if lines.is_empty() {
            continue;
        }
        let (effect, fix) = if c.is_vote() {
            let (before, after) = vote_text(c.name.starts_with("__all"));
            (
                "HIP's vote spans the 64-lane wavefront, so the two 32-lane warps of a wavefront decide together".to_string(),
                format!("write the vote of the lane's own 32-lane half in the macro: `{before}p{after}`"),
            )
        } else if c.is_ballot() {
            (
                "HIP's ballot is the 64-lane wavefront's mask, whose 32-bit cut is the lower half's for every lane".to_string(),
                "write the lane's own half in the macro: `((unsigned int)(__ballot(p) >> (__lane_id() & 32)))`".to_string(),
            )
        } else {
            (
                "HIP's default width is the 64-lane wavefront, so lanes read the other half"
                    .to_string(),
                "pass width 32 to the shuffle in the macro".to_string(),
            )
        };
        let shown: Vec<String> = lines.iter().take(4).map(u32::to_string).collect();
        let message = format!(
            "`{}` in the body of macro `{}`, used in a function of 32-lane logical warps{} (line{} {}{}): {effect}; `hipport port` does not rewrite inside a macro body, which every use shares",
            c.name,
            c.macro_name,
            why32.map(|w| format!(" ({w})")).unwrap_or_default(),
            if lines.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if lines.len() > 4 { ", …" } else { "" }
        );
        let mut f = p.ctx.finding(
            &LOGICAL_WARP_REWRITE,
            lexed.tokens[c.tok].range(),
            message,
            Some(fix),
        );
        f.status = Status::Remediation;
        p.findings.push(f);
    }
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;

    fn hp109(src: &str) -> Vec<(u32, Status, String)> {
        crate::translate::translate_for_tests(src, "6.2")
            .findings
            .into_iter()
            .filter(|f| f.rule == "HP109")
            .map(|f| (f.line, f.status, f.message))
            .collect()
    }

    /// nheqminer's `CHECK_DUP`: a vote in a macro body used where the lanes are 32-lane
    /// logical warps (`& 0x1f`, `>> 5`): REMEDIATION on the vote in the macro, naming the use,
    /// and the macro stays as written. Twins: the same macro used only in a function of the
    /// wavefront (no 32-lane ids) is no fact; a shuffle given width 32 in a macro needs nothing.
    #[test]
    fn a_vote_in_a_macro_used_by_32_lane_logical_warps_is_reported() {
        let src = "#define CHECK(a) __any(atomicExch(&susp[ind[a] & 63], ind[a] >> 6) == (ind[a] >> 6))\n__global__ void k(unsigned* susp, const unsigned* ind, int* out) {\n  unsigned lane = threadIdx.x & 0x1f;\n  unsigned par = threadIdx.x >> 5;\n  if (CHECK(lane)) return;\n  out[par * 32 + lane] = 1;\n}\n";
        let f = hp109(src);
        assert!(
            f.len() == 1
                && f[0].0 == 1
                && f[0].1 == Status::Remediation
                && f[0].2.contains("macro `CHECK`")
                && f[0].2.contains("(line 5)"),
            "{f:?}"
        );
        let out = crate::translate::translate_for_tests(src, "6.2").output;
        assert!(String::from_utf8(out)
            .unwrap()
            .contains("#define CHECK(a) __any("));
        let wave = "#define ANY(p) __any(p)\n__global__ void k(int* out) {\n  if (ANY(out[threadIdx.x] > 0)) return;\n  out[threadIdx.x] = 1;\n}\n";
        assert!(hp109(wave).is_empty());
        let width = "#define DOWN(v, o) __shfl_down(v, o, 32)\n__global__ void k(float* x) {\n  int lane = threadIdx.x & 31;\n  float v = x[threadIdx.x];\n  for (int o = 16; o > 0; o >>= 1) v += DOWN(v, o);\n  if (lane == 0) x[0] = v;\n}\n";
        assert!(hp109(width).is_empty(), "{:?}", hp109(width));
        // The project's compat spelling of the intrinsic itself is the intrinsic: its calls
        // are rewritten where they are written.
        let compat = "#define __shfl_xor_sync(m, v, l) __shfl_xor(v, l)\n__global__ void k(float* x) {\n  int lane = threadIdx.x & 31;\n  float v = x[threadIdx.x];\n  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  if (lane == 0) x[0] = v;\n}\n";
        assert!(
            hp109(compat).iter().all(|f| !f.2.contains("body of macro")),
            "{:?}",
            hp109(compat)
        );
    }
}
