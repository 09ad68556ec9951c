//! One decision per Dockerfile's NVIDIA container setup. `ENV NVIDIA_VISIBLE_DEVICES`,
//! `ENV NVIDIA_DRIVER_CAPABILITIES` (HP861) and CUDA paths set in the image (`ENV
//! NVENCODE_CFLAGS "-I/usr/local/cuda/include"`, HP863) are one finding per line, yet on ROCm
//! they are inert or gone with the image: what a porter decides is the container's base image
//! and runtime (HP860, one per `FROM`), and the NVIDIA packages the image installs (HP904) go
//! with it. So they are folded into the Dockerfile's first base-image finding, later stages'
//! NVIDIA images too; a Dockerfile with no such finding (its image comes from a build argument
//! the table does not know) has its first such line hold the others.
//!
//! Per-version copies of one Dockerfile (`docker/torch2.1.0-cuda12.1.dockerfile`,
//! `docker/torch2.2.0-cuda11.8.dockerfile`…, or `docker/cuda11.8/Dockerfile` beside
//! `docker/cuda12.1/Dockerfile`: paths that differ only in their numbers) are one image built
//! for several CUDA and framework releases. A ROCm port writes one ROCm variant of that family,
//! not one per CUDA release, so the family is one decision held by its first file.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::inventory::kind::{by_name, FileKind};

/// The base-image rule and the rules for settings that go with the image.
const IMAGE: &str = "HP860";
const WITH_IMAGE: [&str; 3] = ["HP861", "HP863", "HP904"];

fn in_dockerfile(f: &Finding) -> bool {
    by_name(&f.path) == Some(FileKind::Dockerfile)
}

/// The family of a Dockerfile's path: every run of digits read as one number, so the
/// per-version copies of one image share it (`docker/torch#.#.#-cuda#.#.dockerfile`).
fn family(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_digits = false;
    for c in path.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// The Dockerfile container decision.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| {
            (in_dockerfile(f) && (f.rule == IMAGE || WITH_IMAGE.contains(&f.rule.as_str())))
                .then(|| family(&f.path))
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
            let mut others: Vec<&str> = Vec::new();
            for m in &g.members {
                if m.path != g.head.path && !others.contains(&m.path.as_str()) {
                    others.push(&m.path);
                }
            }
            let copies = others.len();
            if copies > 0 {
                let shown: Vec<String> = others.iter().take(3).map(|p| format!("`{p}`")).collect();
                let more = if copies > 3 { ", …" } else { "" };
                let copies = match copies {
                    1 => "per-version copy".to_string(),
                    n => format!("{n} per-version copies"),
                };
                return format!(
                    " — one decision for this image's NVIDIA container setup and its {copies} \
                     ({}{more}): a ROCm port writes one ROCm variant of the \
                     family rather than one per CUDA release; {} more lines are folded here ({})",
                    shown.join(", "),
                    g.folded.len(),
                    g.by_rule()
                );
            }
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
    fn per_version_copies_are_one_image() {
        let mut fs = vec![
            f("HP860", "docker/torch1.12.1-cuda11.3.dockerfile", 1),
            f("HP861", "docker/torch1.12.1-cuda11.3.dockerfile", 4),
            f("HP860", "docker/torch2.4.0-cuda12.4.dockerfile", 1),
            f("HP860", "docker/cu118/Dockerfile", 1),
            f("HP860", "docker/cu121/Dockerfile", 1),
            // Twins: another image's family, and a lone Dockerfile.
            f("HP860", "docker/torch-rocm.dockerfile", 1),
            f("HP860", "serve/Dockerfile", 1),
        ];
        decisions::fold(&mut fs, &kind(&[]));
        assert_eq!(
            open(&fs),
            [
                ("HP860", "docker/torch1.12.1-cuda11.3.dockerfile", 1),
                ("HP860", "docker/cu118/Dockerfile", 1),
                ("HP860", "docker/torch-rocm.dockerfile", 1),
                ("HP860", "serve/Dockerfile", 1),
            ]
        );
        assert!(
            fs[0].message.contains("and its per-version copy ("),
            "{}",
            fs[0].message
        );
        assert!(fs[2]
            .message
            .contains("folded into `docker/torch1.12.1-cuda11.3.dockerfile:1`"));
        assert_eq!(
            family("a/torch2.1.0-cuda12.1.dockerfile"),
            "a/torch#.#.#-cuda#.#.dockerfile"
        );
    }

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
