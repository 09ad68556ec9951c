//! What the tool could not check. A file whose parse is abandoned at the work limit
//! ([`crate::parse::step_limit`]) is still translated token by token, but the rules that read
//! the syntax tree (64-lane hazards, launch shapes, device features, …) did not run on it.
//! Saying nothing would read as "nothing found": an UNKNOWN finding names the file and what
//! was not checked, so no file's silence is mistaken for a PASS.

use crate::finding::Finding;
use crate::registry::{FileCtx, RuleInfo};

rule!(PARSE_ABANDONED, "HP013", Coverage, Unknown, Correctness,
    summary: "The file's parse was abandoned at the work limit: it was translated token by token, but the rules that read the syntax tree (64-lane hazards, launches, device features) did not check it.",
    why: "tree-sitter's work on some inputs (very deep nesting, generated code) grows faster than the file; hipport stops a parse after a number of steps proportional to the file's size, the same on every machine, so that one file cannot stall a scan. What those rules would have reported is unknown, not absent.",
    bad: "// a generated 5 MB kernel file with 200 000 nested template brackets",
    good: "// the same kernels split into files of ordinary depth, or reviewed by hand for 64-lane and device-feature hazards",
    fix: "Review the file by hand for 64-lane assumptions (`& 31`, `/ 32`, 32-bit ballot masks), inline PTX and device features, or split it (generated code: generate smaller units) and scan again.",
    refs: ["https://tree-sitter.github.io/tree-sitter/using-parsers/1-getting-started.html"],
);

pub const RULES: &[&RuleInfo] = &[&PARSE_ABANDONED];

/// The one finding for a file whose parse was abandoned, on its first line.
pub fn abandoned(ctx: &FileCtx) -> Finding {
    let end = ctx
        .src
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(ctx.src.len());
    ctx.finding(
        &PARSE_ABANDONED,
        0..end,
        format!(
            "the parse of this file ({} bytes) was abandoned at the work limit of {} steps: \
             it was translated, but the syntax-tree rules (64-lane hazards, launches, device \
             features) did not check it",
            ctx.src.len(),
            crate::parse::step_limit(ctx.src.len())
        ),
        Some("review it by hand for 64-lane and device-feature hazards, or split it".into()),
    )
}

#[cfg(test)]
mod tests {
    use crate::source::LineIndex;

    /// The same file, the same limit: abandoned every time, whatever the machine does; and the
    /// health of an abandoned parse says so (the pipeline turns that into HP013).
    #[test]
    fn a_parse_over_its_step_limit_is_abandoned_deterministically() {
        let src = format!("int x = {}1{};\n", "(".repeat(5000), ")".repeat(5000));
        for _ in 0..3 {
            assert!(crate::parse::parse_limited(src.as_bytes(), 50).is_none());
        }
        let tree = crate::parse::parse(src.as_bytes());
        assert!(tree.is_some(), "within the default limit");
        let lines = LineIndex::new(src.as_bytes());
        let h = crate::parse::health(None, src.as_bytes(), &lines);
        assert!(h.abandoned && !h.parsed);
        let ok = crate::parse::health(tree.as_ref(), src.as_bytes(), &lines);
        assert!(!ok.abandoned && ok.parsed);
    }

    #[test]
    fn the_finding_names_the_limit_and_what_did_not_run() {
        let src = b"__global__ void k() {}\nint y;\n";
        let lines = LineIndex::new(src);
        let ctx = crate::registry::FileCtx {
            path: "big.cu",
            src,
            lines: &lines,
        };
        let f = super::abandoned(&ctx);
        assert_eq!((f.rule.as_str(), f.line), ("HP013", 1));
        assert_eq!(f.status, crate::gate::Status::Unknown);
        assert!(f.message.contains("20003 steps"), "{}", f.message);
        assert!(f.message.contains("64-lane"), "{}", f.message);
    }
}
