//! One package, one decision: a CUDA package with a ROCm build of its own (apex, Transformer
//! Engine, FlashAttention) imported in many modules is one install step, not one per import.
//! The project's open import findings of one package (HP820 "imports …") fold into the first,
//! which names how many modules import it and where first; the rest stay in JSON/SARIF as PASS
//! naming it. A single import stays as it is; imports in a vendored copy or a folder the project
//! marks as not maintained are those decisions'.

use super::kind::{self, Kind, Min};
use crate::finding::Finding;

/// The module an HP820 finding names: an import's (`imports NVIDIA apex (\`apex\`; …)` →
/// `apex`), or a dependency list's declaration of a package with such imports (`flash-attn is
/// CUDA-specific; …` → `flash_attn`), so the declaration and the imports are one decision.
fn package(f: &Finding) -> Option<String> {
    if f.rule
        != crate::inventory::packages::CUDA_PACKAGE_WITH_ROCM_PATH
            .id
            .code
    {
        return None;
    }
    if let Some(rest) = f.message.strip_prefix("imports ") {
        return Some(rest.split('`').nth(1)?.split('.').next()?.to_string());
    }
    let name = f.message.split(" is CUDA-specific").next()?;
    let module = name
        .split(['[', '=', '<', '>', ' '])
        .next()?
        .to_ascii_lowercase()
        .replace('-', "_");
    crate::inventory::python::nvidia_imports::imported_with_rocm(&[module.as_str()]).map(|_| module)
}

/// The head: the dependency list's declaration when there is one, else the first import.
fn declaration_first(members: &[&Finding]) -> Option<usize> {
    Some(
        members
            .iter()
            .position(|f| !f.message.starts_with("imports "))
            .unwrap_or(0),
    )
}

/// The decision per package with a ROCm build that the project imports.
pub fn kind(_: &[Finding]) -> Kind {
    Kind {
        key: Box::new(|f| package(f).filter(|_| kind::own(&f.path))),
        head: declaration_first,
        folds: kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one install decision: {} imports in {} files ({}), {} more folded here",
                g.members.len(),
                g.files(),
                g.first_places(3),
                g.folded.len()
            )
        }),
        note: Box::new(|g| {
            kind::folded_into(g, "installing the package's ROCm build is one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Status;

    fn f(path: &str, line: u32, msg: &str) -> Finding {
        Finding {
            message: msg.into(),
            ..Finding::bare("HP820", path, line)
        }
    }

    /// Megatron's apex imports in a dozen modules: one decision. Twins: another package keeps
    /// its own, and a requirement line (not an import) is left alone.
    #[test]
    fn a_package_imported_in_many_modules_is_one_decision() {
        let apex = "imports NVIDIA apex (`apex`): the CUDA build does not run on ROCm";
        let te = "imports NVIDIA Transformer Engine (`transformer_engine`): the CUDA build does not run on ROCm";
        let mut fs = vec![
            f("megatron/model/__init__.py", 10, apex),
            f("megatron/optimizer/__init__.py", 5, apex),
            f("megatron/utils.py", 14, apex),
            f("megatron/model/transformer.py", 1705, te),
            f(
                "requirements.txt",
                3,
                "torch is CUDA-specific; ROCm path: …",
            ),
        ];
        // The declaration of a package the modules import heads the decision.
        let mut declared = fs.clone();
        declared.push(f(
            "requirements.txt",
            7,
            "apex is CUDA-specific; ROCm path: …",
        ));
        let k = kind(&declared);
        crate::decisions::fold(&mut declared, &k);
        let open: Vec<u32> = declared
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| f.line)
            .collect();
        assert_eq!(open, [1705, 3, 7]);
        let k = kind(&fs);
        crate::decisions::fold(&mut fs, &k);
        let open: Vec<u32> = fs
            .iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| f.line)
            .collect();
        assert_eq!(open, [10, 1705, 3]);
        assert!(
            fs[0].message.contains("3 imports in 3 files"),
            "{}",
            fs[0].message
        );
        assert!(
            fs[1]
                .message
                .contains("folded into `megatron/model/__init__.py:10`"),
            "{}",
            fs[1].message
        );
    }
}
