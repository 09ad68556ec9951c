//! The project's NCCL settings, one decision. nnabla-ext-cuda sets `NCCL_SHM_DISABLE` and
//! `NCCL_P2P_LEVEL` in each of its five MPI images: ten findings (HP890 tuning RCCL reads,
//! HP892 values naming NVIDIA links, HP891 switches RCCL ignores) that ask one thing of a
//! porter: re-tune the collectives for RCCL on the AMD topology (rccl-tests), then set what
//! helps. So the project's open findings of those rules fold into the first, which names the
//! variables and the places; the rest stay in JSON as PASS naming it. A single setting stays as
//! it is.

use super::kind::{Kind, Min};
use crate::finding::Finding;

const RULES: [&str; 3] = ["HP890", "HP891", "HP892"];

/// The variable a finding is about: the first `NCCL_*` word of its message.
fn variable(f: &Finding) -> Option<&str> {
    f.message
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|w| w.starts_with("NCCL_"))
}

fn key(f: &Finding) -> Option<String> {
    (RULES.contains(&f.rule.as_str()) && super::kind::own(&f.path)).then(|| "nccl".to_string())
}

pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(key),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let mut vars: Vec<&str> = g.members.iter().filter_map(|f| variable(f)).collect();
            vars.sort_unstable();
            vars.dedup();
            let names: Vec<String> = vars.iter().map(|v| format!("`{v}`")).collect();
            format!(
                " — one decision for the project's NCCL settings: {} settings of {} in {} file{} ({}), {} more folded here; re-tune them together for RCCL on the AMD topology (rccl-tests), then keep what helps",
                g.members.len(),
                names.join(", "),
                g.files(),
                if g.files() == 1 { "" } else { "s" },
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "the project's NCCL settings are one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open;
    use crate::gate::Status;

    fn f(rule: &str, path: &str, line: u32, var: &str) -> Finding {
        Finding {
            status: Status::Remediation,
            message: format!("{var} is NCCL tuning: re-tune for RCCL"),
            ..Finding::bare(rule, path, line)
        }
    }

    /// nnabla-ext-cuda's images: two variables in three Dockerfiles, one decision. Twin: a
    /// logging variable (HP893, PASS) is no setting to re-tune, and another rule stays open.
    #[test]
    fn the_projects_nccl_settings_are_one_decision() {
        let mut fs = vec![
            f("HP890", "docker/a/Dockerfile", 287, "NCCL_SHM_DISABLE"),
            f("HP892", "docker/a/Dockerfile", 288, "NCCL_P2P_LEVEL"),
            f("HP890", "docker/b/Dockerfile", 217, "NCCL_SHM_DISABLE"),
            f("HP892", "docker/b/Dockerfile", 218, "NCCL_P2P_LEVEL"),
            f("HP891", "run.sh", 3, "NCCL_NVLS_ENABLE"),
            f("HP860", "docker/b/Dockerfile", 1, "NCCL_X"),
        ];
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            open(&fs),
            [("docker/a/Dockerfile", 287), ("docker/b/Dockerfile", 1)]
        );
        let m = &fs[0].message;
        assert!(
            m.contains(
                "5 settings of `NCCL_NVLS_ENABLE`, `NCCL_P2P_LEVEL`, `NCCL_SHM_DISABLE` in 3 files"
            ),
            "{m}"
        );
        assert!(fs[3]
            .message
            .contains("folded into `docker/a/Dockerfile:287`"));
    }
}
