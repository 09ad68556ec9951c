//! HP103's phase where HIP has the `*_sync` forms (ROCm 6.2+): their `static_assert` rejects a
//! 32-bit mask, so a full mask of 32 bits passed to one stops the build (BUILD) rather than
//! leaving the upper half out (CORRECTNESS, before 6.2 and for a full mask only compared).

use super::shuffles::is_sync_intrinsic;
use super::WARP_MASK_32BIT;
use crate::finding::Finding;
use crate::gate::Status;
use crate::model::syntax::Src;
use std::collections::HashSet;

/// Names passed as the mask of a `*_sync` intrinsic anywhere in the file.
pub(super) fn mask_args<'a>(s: &Src<'a>) -> HashSet<&'a str> {
    let mut out: HashSet<&str> = HashSet::new();
    for (i, name) in s.idents() {
        if is_sync_intrinsic(name) && s.next_text(i) == "(" {
            if let Some(j) = s.lexed.next_code(i).and_then(|o| s.lexed.next_code(o)) {
                if s.lexed.tokens[j].kind == crate::lex::Tok::Ident && s.next_text(j) == "," {
                    out.insert(s.tok(j));
                }
            }
        }
    }
    out
}

/// Re-phases the file's open HP103 findings at `target`: BUILD at a `*_sync` call, and on a
/// definition some `*_sync` call of the file takes.
pub(super) fn phase(s: &Src, target: &crate::mappings::Target, out: &mut [Finding]) {
    let sync_forms = matches!(
        crate::mappings::get().resolve("__shfl_sync", target),
        Some(crate::mappings::Resolution::Same { .. } | crate::mappings::Resolution::Rename { .. })
    );
    if sync_forms {
        let passed = mask_args(s);
        for f in out
            .iter_mut()
            .filter(|f| f.rule == WARP_MASK_32BIT.id.code && f.status != Status::Pass)
        {
            let at_call = f.message.starts_with("32-bit full mask `");
            let defined_for_one = f
                .message
                .split_once("` is a 32-bit full warp mask")
                .and_then(|(n, _)| n.strip_prefix('`'))
                .is_some_and(|n| passed.contains(n));
            if at_call || defined_for_one {
                f.phase = crate::gate::Phase::Build;
                f.message.push_str(&format!(
                    "; at ROCm {} {} does not compile: HIP's `*_sync` intrinsics `static_assert` a 64-bit mask",
                    target.rocm,
                    if at_call { "the call" } else { "each `*_sync` call passing it" }
                ));
            }
        }
    }
}
