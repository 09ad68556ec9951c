//! A folder the project itself marks as not maintained is one decision. Projects keep old code
//! in folders named for it (`unmaintained/`, `deprecated/`, `obsolete/`, `legacy/`,
//! `archive/`, `archived/`, `attic/`, `deadcode/`): the scan reads it like any other code and reports it
//! line by line, while a porter takes one decision for the folder — port it, or leave it out
//! of the ROCm build as the project's own maintainers already set it aside.
//!
//! So the open findings under such a folder (a directory component named exactly one of those,
//! or with `deprecated`, `obsolete` or `unmaintained` as a `_`/`-`-joined word, case-insensitive;
//! the outermost one when they nest) are folded into the folder's first open
//! finding, which keeps its status and phase and says how many it holds, by rule and file; every
//! folded finding stays in JSON/SARIF as PASS naming it. A folder with a single open finding is
//! left as it is. Only a folder counts: `legacy_utils/` or a file `legacy.cu` is not the
//! project's statement about a folder. A marker below a vendored folder (`third_party/foo/
//! legacy/`) is the vendored library's own matter, which the vendored decision holds whole.

use super::kind::{Kind, Min};
use crate::finding::Finding;
pub use crate::model::folders::unmaintained_of as folder_of;

/// The not-maintained-folder decision: the open findings of such a folder, held by its first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| folder_of(&f.path)),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision: the project marks `{}/` as no longer maintained: port it or \
                 leave it out of the ROCm build ({} more findings in {} files are folded here: \
                 {})",
                g.key,
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                &format!(
                    "the project marks `{}/` as no longer maintained, one \
                 decision",
                    g.key
                ),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{f, open};
    use crate::gate::{Phase, Status};

    /// This decision alone, as the scan applies it.
    fn fold(findings: &mut [Finding]) {
        let k = kind(findings);
        super::super::fold(findings, &k);
    }

    #[test]
    fn marked_folders() {
        assert_eq!(
            folder_of("src/legacy/gemm/a.cu").as_deref(),
            Some("src/legacy")
        );
        assert_eq!(folder_of("Attic/x.cu").as_deref(), Some("Attic"));
        // pg-strom's `deadcode/`; twin: a word that only begins with `dead`.
        assert_eq!(
            folder_of("deadcode/cuda_control.c").as_deref(),
            Some("deadcode")
        );
        assert_eq!(folder_of("src/deadline/a.cu"), None);
        // The outermost marker holds nested ones.
        assert_eq!(
            folder_of("deprecated/v1/archive/k.cu").as_deref(),
            Some("deprecated")
        );
        // Twins: a folder merely named like one, a file so named, a marker in a vendored
        // library, no marker.
        assert_eq!(folder_of("src/legacy_utils/a.cu"), None);
        // An unambiguous word joined to another marks the folder too (openpose's
        // `scripts/ubuntu_deprecated/`); `legacy_` and `archive_` name what code handles.
        assert_eq!(
            folder_of("scripts/ubuntu_deprecated/Makefile.config").as_deref(),
            Some("scripts/ubuntu_deprecated")
        );
        assert_eq!(
            folder_of("obsolete-tools/a.sh").as_deref(),
            Some("obsolete-tools")
        );
        assert_eq!(folder_of("src/archive_reader/a.cu"), None);
        assert_eq!(folder_of("src/deprecation_check.cu"), None);
        assert_eq!(folder_of("src/legacy.cu"), None);
        assert_eq!(folder_of("src/archive"), None);
        assert_eq!(folder_of("third_party/cub/legacy/a.cuh"), None);
        assert_eq!(folder_of("src/kernels/a.cu"), None);
    }

    #[test]
    fn a_marked_folder_is_one_decision() {
        let mut fs = vec![
            Finding {
                status: Status::Unknown,
                phase: Phase::Runtime,
                ..f("HP102", "src/Legacy/a.cu", 3)
            },
            f("HP201", "src/Legacy/a.cu", 9),
            f("HP001", "src/Legacy/old/b.cu", 1),
            // Already PASS: not a member, not touched.
            Finding {
                status: Status::Pass,
                ..f("HP001", "src/Legacy/old/b.cu", 2)
            },
            // Not marked: untouched.
            f("HP102", "src/legacy_utils/c.cu", 1),
            f("HP102", "src/legacy_utils/c.cu", 2),
            f("HP102", "src/legacy.cu", 1),
            f("HP102", "src/legacy.cu", 4),
        ];
        fold(&mut fs);
        assert_eq!(
            open(&fs),
            [
                ("src/Legacy/a.cu", 3),
                ("src/legacy_utils/c.cu", 1),
                ("src/legacy_utils/c.cu", 2),
                ("src/legacy.cu", 1),
                ("src/legacy.cu", 4)
            ]
        );
        // The head keeps its status and phase.
        assert_eq!(
            (fs[0].status, fs[0].phase),
            (Status::Unknown, Phase::Runtime)
        );
        assert!(
            fs[0].message.ends_with(
                " — one decision: the project marks `src/Legacy/` as no longer maintained: port \
                 it or leave it out of the ROCm build (2 more findings in 2 files are folded \
                 here: HP001 ×1, HP201 ×1)"
            ),
            "{}",
            fs[0].message
        );
        assert!(fs[2].message.ends_with(
            "(folded into `src/Legacy/a.cu:3`: the project marks `src/Legacy/` as no longer \
             maintained, one decision)"
        ));
        assert_eq!(fs[3].message, "m");
        assert!(fs[4..].iter().all(|x| x.message == "m"));
    }

    #[test]
    fn a_single_finding_in_a_marked_folder_stays_as_it_is() {
        let mut fs = vec![f("HP102", "archive/a.cu", 3), f("HP102", "src/b.cu", 3)];
        let before = fs.clone();
        fold(&mut fs);
        assert_eq!(fs, before);
    }
}
