//! One decision per Dockerfile's NVIDIA container setup. `ENV NVIDIA_VISIBLE_DEVICES`,
//! `ENV NVIDIA_DRIVER_CAPABILITIES` (HP861) and CUDA paths set in the image (`ENV
//! NVENCODE_CFLAGS "-I/usr/local/cuda/include"`, HP863) are one finding per line, yet on ROCm
//! they are inert or gone with the image: what a porter decides is the container's base image
//! and runtime (HP860, one per `FROM`), and the NVIDIA packages the image installs (HP904) go
//! with it. So they are folded into the Dockerfile's first base-image finding, later stages'
//! NVIDIA images too; a Dockerfile with no such finding (its image comes from a build argument
//! the table does not know) has its first such line hold the others.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::inventory::kind::{by_name, FileKind};

/// The base-image rule and the rules for settings that go with the image.
const IMAGE: &str = "HP860";
const WITH_IMAGE: [&str; 3] = ["HP861", "HP863", "HP904"];

fn in_dockerfile(f: &Finding) -> bool {
    by_name(&f.path) == Some(FileKind::Dockerfile)
}

/// The Dockerfile container decision.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (in_dockerfile(f) && (f.rule == IMAGE || WITH_IMAGE.contains(&f.rule.as_str())))
                .then(|| f.path.clone())
        }),
        head: |m| Some(m.iter().position(|f| f.rule == IMAGE).unwrap_or(0)),
        // A multi-stage Dockerfile's later `FROM nvidia/cuda:…-runtime` goes with its first:
        // one move of the file's stages to ROCm images.
        folds: |_, m| m.rule == IMAGE || WITH_IMAGE.contains(&m.rule.as_str()),
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let lines: Vec<u32> = g.folded.iter().map(|f| f.line).collect();
            let what = if g.head.rule == IMAGE {
                "on ROCm they are inert, they go with the move to a ROCm base image"
            } else {
                "on ROCm they are inert, the decision is the container's base image and runtime"
            };
            let stages = g.folded.iter().filter(|f| f.rule == IMAGE).count();
            let packages = g.folded.iter().filter(|f| f.rule == "HP904").count();
            let what = match (stages > 0, packages > 0) {
                (true, _) => "its other build stages' images move with the first, NVIDIA packages it installs give way to the ROCm ones each names, and the settings are inert on ROCm",
                (false, true) => "NVIDIA packages it installs give way to the ROCm ones each names, with the move to a ROCm base image; the settings are inert on ROCm",
                (false, false) => what,
            };
            format!(
                " — one decision for this Dockerfile's NVIDIA container setup: {} more lines \
                 ({}; {}) are folded here; {what}",
                g.folded.len(),
                crate::rules::facts::lines_note(&lines, 6),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the Dockerfile's NVIDIA container setup is one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions;
    use crate::decisions::test_support::f;

    use crate::decisions::test_support::open_rules as open;

    #[test]
    fn container_settings_fold_into_the_base_image() {
        let mut fs = vec![
            f("HP860", "docker/Dockerfile.cu", 1),
            f("HP861", "docker/Dockerfile.cu", 2),
            f("HP861", "docker/Dockerfile.cu", 3),
            f("HP863", "docker/Dockerfile.cu", 4),
            // No base-image finding: the first setting holds the others.
            f("HP861", "Dockerfile", 5),
            f("HP863", "Dockerfile", 6),
            // A second FROM (a runtime stage) moves with the first.
            f("HP860", "docker/Dockerfile.cu", 9),
            // Twins: a setting outside a Dockerfile (a compose file), another rule in the
            // Dockerfile, a lone setting.
            f("HP861", "docker-compose.yml", 2),
            f("HP861", "docker-compose.yml", 3),
            f("HP864", "docker/Dockerfile.cu", 7),
            f("HP861", "other/Dockerfile", 2),
        ];
        decisions::fold(&mut fs, &kind(&[]));
        assert_eq!(
            open(&fs),
            [
                ("HP860", "docker/Dockerfile.cu", 1),
                ("HP861", "Dockerfile", 5),
                ("HP861", "docker-compose.yml", 2),
                ("HP861", "docker-compose.yml", 3),
                ("HP864", "docker/Dockerfile.cu", 7),
                ("HP861", "other/Dockerfile", 2),
            ]
        );
        assert!(
            fs[0].message.contains("4 more lines (lines 2, 3, 4, 9;"),
            "{}",
            fs[0].message
        );
        assert!(fs[0]
            .message
            .contains("other build stages' images move with the first"));
        assert_eq!(fs[6].status, crate::gate::Status::Pass);
        assert!(fs[4]
            .message
            .contains("the container's base image and runtime"));
        assert!(fs[3]
            .message
            .contains("folded into `docker/Dockerfile.cu:1`"));
    }
}
