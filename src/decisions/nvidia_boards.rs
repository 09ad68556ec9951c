//! Files written for NVIDIA's embedded boards are one decision. Projects keep build
//! configurations and install scripts for Jetson modules (`Makefile.config.Ubuntu16_cuda8_JetsonTX2`,
//! `install_JetPack.sh`, `docker/l4t/`): a Jetson is an NVIDIA system-on-chip with its own CUDA
//! (JetPack, Linux for Tegra) and no AMD counterpart, so a ROCm port keeps those files for the
//! boards they serve and does not port them. Reported line by line they are noise (openpose:
//! 16 findings over two such configurations).
//!
//! The open findings of files whose path names such a board (a `_`/`-`/`.`-separated word of
//! the path, any case: `jetson`, `jetsontx2`, `jetpack`, `tegra`, `l4t`, `xavier`, `orin`) fold
//! into the first of them: keep these files for the NVIDIA boards, or drop them. A word inside
//! another (`orientation`, `integral`) is not one.

use super::kind::{Kind, Min};
use crate::finding::Finding;

/// The words that name NVIDIA's embedded boards and their software stack.
const BOARDS: [&str; 7] = [
    "jetson",
    "jetpack",
    "tegra",
    "l4t",
    "xavier",
    "orin",
    "jetsontx2",
];

/// Whether a path names one of NVIDIA's embedded boards (see the module documentation).
pub fn names_board(path: &str) -> bool {
    path.to_ascii_lowercase()
        .split(['/', '_', '-', '.'])
        .any(|w| {
            BOARDS.contains(&w)
                || BOARDS.iter().any(|b| {
                    w.strip_prefix(b).is_some_and(|r| {
                        r.bytes().all(|c| c.is_ascii_alphanumeric())
                            && r.len() <= 4
                            && r.bytes().any(|c| c.is_ascii_digit())
                    })
                })
        })
}

/// The decision: open findings of files for NVIDIA's embedded boards, held by the first.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| names_board(&f.path).then(|| "nvidia-boards".to_string())),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision: files written for NVIDIA's embedded boards (Jetson, JetPack, Linux for Tegra), which have no AMD counterpart: keep them for those boards, or drop them; they are not ported ({} more findings in {} files are folded here: {})",
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "files for NVIDIA's embedded boards, one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::{f, open};

    #[test]
    fn board_names_are_words_of_the_path() {
        assert!(names_board(
            "scripts/ubuntu/Makefile.config.Ubuntu16_cuda8_JetsonTX2"
        ));
        assert!(names_board("docker/l4t/Dockerfile"));
        assert!(names_board("scripts/install_jetpack5.sh"));
        assert!(names_board("build/Xavier-NX.cmake"));
        assert!(!names_board("src/orientation.cu"));
        assert!(!names_board("src/integral_image.cu"));
        assert!(!names_board("src/oriented_box.cu"));
    }

    /// openpose: the two Jetson TX2 configurations are one decision; the main build stays.
    #[test]
    fn files_for_nvidia_boards_are_one_decision() {
        let mut fs = vec![
            f("HP841", "CMakeLists.txt", 214),
            f(
                "HP852",
                "scripts/ubuntu/Makefile.config.Ubuntu16_cuda8_JetsonTX2",
                25,
            ),
            f(
                "HP843",
                "scripts/ubuntu/Makefile.config.Ubuntu16_cuda8_JetsonTX2",
                33,
            ),
            f(
                "HP852",
                "scripts/ubuntu/Makefile.config.Ubuntu16_cuda9_JetsonTX2_JetPack33",
                25,
            ),
        ];
        let k = kind(&fs);
        super::super::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [
                ("CMakeLists.txt", 214),
                (
                    "scripts/ubuntu/Makefile.config.Ubuntu16_cuda8_JetsonTX2",
                    25
                )
            ]
        );
        assert!(
            fs[1].message.contains("NVIDIA's embedded boards"),
            "{}",
            fs[1].message
        );
    }
}
