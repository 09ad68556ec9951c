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
        let mut headers = Vec::new();
        let mut only = true;
        for t in s.lexed.tokens.iter() {
            let start = t.start as usize;
            if start < r.range.start || start >= r.range.end || r.decider.contains(&start) {
                continue;
            }
            if t.kind == Tok::Comment {
                continue;
            }
            let directive =
                (t.directive != NO_DIRECTIVE).then(|| &s.lexed.directives[t.directive as usize]);
            match directive {
                Some(d) if d.name == "include" => {}
                Some(d) if matches!(d.name.as_str(), "endif" | "else" | "elif") => {}
                _ => {
                    only = false;
                    break;
                }
            }
        }
        for d in &s.lexed.directives {
            if d.name == "include" && r.range.contains(&d.start) && !r.decider.contains(&d.start) {
                let line = String::from_utf8_lossy(&s.bytes()[d.start..d.end]).into_owned();
                let name = line
                    .split_once("include")
                    .map(|(_, r)| r.split("//").next().unwrap_or(r).trim())
                    .unwrap_or("")
                    .trim_matches(|c| matches!(c, '<' | '>' | '"'))
                    .to_string();
                headers.push(name);
            }
        }
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
