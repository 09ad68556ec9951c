//! A `__CUDA_ARCH__` test whose branch only includes headers (less_slow's `#if (__CUDA_ARCH__
//! >= 700)` / `#include <cuda_fp16.h>` / `#endif`): HIP-Clang skips the include, and what that
//! changes is decided by the code that uses the header, which has its own tests and findings.
//! The finding says so, and a file's decision on its arms without code holds it
//! ([`crate::decisions::arch_gaps`]).

use super::CUDA_ARCH_MACRO;
use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Tok, NO_DIRECTIVE};
use crate::model::hipside::{self, Dead, Side};
use crate::model::syntax::Src;

/// What the finding of such a test adds to its message; the decision finds it by these words.
pub const INCLUDES_ONLY: &str = "the branch only includes";

/// Marks the open HP401 findings on tests whose skipped branch holds only `#include` lines (and
/// comments), with no other branch in the chain.
pub fn includes_only_arms(s: &Src, regions: &[hipside::Region], out: &mut [Finding]) {
    for f in out.iter_mut() {
        if f.rule != CUDA_ARCH_MACRO.code() || f.status == Status::Pass {
            continue;
        }
        let at = f.byte_range.0;
        let Some(r) = regions
            .iter()
            .find(|r| r.decider.start == at && matches!(r.side, Side::Never(Dead::Arch { .. })))
        else {
            continue;
        };
        if regions.iter().filter(|o| o.head == r.head).count() != 1 {
            continue;
        }
        // The branch's tokens (they are in offset order): comments, `#include` lines and the
        // chain's own directives only.
        let toks = &s.lexed.tokens;
        let first = toks.partition_point(|t| (t.start as usize) < r.range.start);
        let only = toks[first..]
            .iter()
            .take_while(|t| (t.start as usize) < r.range.end)
            .filter(|t| !r.decider.contains(&(t.start as usize)) && t.kind != Tok::Comment)
            .all(|t| {
                t.directive != NO_DIRECTIVE
                    && matches!(
                        s.lexed.directives[t.directive as usize].name.as_str(),
                        "include" | "endif" | "else" | "elif"
                    )
            });
        let headers: Vec<String> = crate::model::includes::written_at(s.bytes(), s.lexed)
            .into_iter()
            .filter(|(at, _)| r.range.contains(at) && !r.decider.contains(at))
            .map(|(_, h)| h.trim_start_matches('<').to_string())
            .collect();
        if !only || headers.is_empty() {
            continue;
        }
        let names: Vec<String> = headers.iter().map(|h| format!("`{h}`")).collect();
        f.message.push_str(&format!(
            "; {INCLUDES_ONLY} {} (HIP-Clang skips {}): what that changes is decided where the code uses {}, under its own tests",
            names.join(", "),
            if headers.len() == 1 { "it" } else { "them" },
            if headers.len() == 1 { "that header" } else { "those headers" },
        ));
    }
}
