//! Which targets of a Makefile the ROCm build runs. A Makefile that builds one program twice —
//! `cuda-strides` with `$(NVCC) $(NVCCFLAGS) … $(LDFLAGS)` and `hip-strides` with `hipcc` — is
//! already ported: the ROCm build makes the HIP target, and the variables only the CUDA
//! target's recipe reads (`NVCCFLAGS := -arch=sm_80`, `LDFLAGS := -lcuda -lnvidia-ml`) are not
//! the ROCm build's. Without this model every such variable was an open finding (10 of 25 read
//! on one held-out benchmark suite, all noise).
//!
//! The model: a rule is a HIP rule when its targets or recipe name HIP (`hip`/`rocm` as a word
//! of a target, `hipcc`/`hipify-*`/`amdclang++` in the recipe, directly or through the
//! variables it expands); a CUDA rule when they name CUDA or nvcc the same way. When the
//! Makefile has a HIP rule, the findings in a CUDA rule and in the assignments of variables
//! that CUDA rules read (transitively through other variables) and no HIP rule reads are PASS,
//! naming both targets. A Makefile without a HIP rule is unchanged (its CUDA targets are the
//! port's work), and so is a variable a HIP rule also reads.

use super::ts;
use super::Out;
use crate::kinds::make::{Kind as K, NodeExt};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// The variables `$(NAME)`, `${NAME}`, `$(NAME:…)` a text references.
fn refs(text: &str) -> BTreeSet<String> {
    let b = text.as_bytes();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i + 2 < b.len() {
        if b[i] == b'$' && (b[i + 1] == b'(' || b[i + 1] == b'{') {
            let start = i + 2;
            let mut j = start;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            if j > start && j < b.len() && matches!(b[j], b')' | b'}' | b':') {
                out.insert(text[start..j].to_string());
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The words of a text split on anything but letters, digits, `+` and `_`, lower-cased.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Hip,
    Cuda,
}

/// What a target name or the (expanded) text of a recipe says it builds with.
fn side_of(targets: &str, recipe: &str) -> Option<Side> {
    let hip_word = |w: &str| matches!(w, "hip" | "rocm" | "hipcc" | "amdclang++" | "hipify");
    let hip_tool = |w: &str| w == "hipcc" || w.starts_with("hipify") || w == "amdclang++";
    let cuda_word = |w: &str| matches!(w, "cuda" | "nvcc" | "nvidia");
    let t_hip = words(targets).any(|w| hip_word(&w));
    let t_cuda = words(targets).any(|w| cuda_word(&w));
    let r_hip = words(recipe).any(|w| hip_tool(&w));
    let r_cuda = words(recipe).any(|w| w == "nvcc");
    match (t_hip || r_hip, t_cuda || r_cuda) {
        (true, false) => Some(Side::Hip),
        (false, true) => Some(Side::Cuda),
        // A target named for one side whose recipe uses the other's tool: the recipe decides.
        (true, true) if r_hip != r_cuda => Some(if r_hip { Side::Hip } else { Side::Cuda }),
        _ => None,
    }
}

struct MakeRule {
    targets: String,
    range: Range<usize>,
    /// Targets, prerequisites and recipe as written.
    text: String,
}

/// The variables a text reads, transitively through the values of `vars`.
fn closure(text: &str, vars: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = refs(text).into_iter().collect();
    while let Some(v) = todo.pop() {
        if seen.insert(v.clone()) {
            for val in vars.get(&v).into_iter().flatten() {
                todo.extend(refs(val).into_iter().filter(|r| !seen.contains(r)));
            }
        }
    }
    seen
}

/// Expands the variables of `text` once per level (bounded), for telling which tool it runs.
fn expanded(text: &str, vars: &BTreeMap<String, Vec<String>>) -> String {
    let mut s = text.to_string();
    for v in closure(text, vars) {
        for val in vars.get(&v).into_iter().flatten() {
            s.push(' ');
            s.push_str(val);
        }
    }
    s
}

/// Turns the findings of the CUDA side of a Makefile with a HIP target into PASS.
pub fn pass_cuda_only_targets(out: &mut Out, root: tree_sitter::Node) {
    let src = out.src();
    let mut vars: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut assigns: Vec<(String, Range<usize>)> = Vec::new();
    let mut rules: Vec<MakeRule> = Vec::new();
    ts::each(root, &mut |n| match n.node_kind() {
        K::VariableAssignment => {
            let name = n.child_by_field_name("name").map(|x| ts::text(x, src));
            let value = n
                .child_by_field_name("value")
                .map_or("", |x| ts::text(x, src));
            if let Some(name) = name {
                vars.entry(name.to_string())
                    .or_default()
                    .push(value.to_string());
                assigns.push((name.to_string(), n.byte_range()));
            }
        }
        K::Rule => {
            let mut targets = String::new();
            let mut c = n.walk();
            for ch in n.children(&mut c) {
                if ch.node_kind() == K::Targets {
                    targets = ts::text(ch, src).to_string();
                }
            }
            rules.push(MakeRule {
                targets,
                range: n.byte_range(),
                text: ts::text(n, src).to_string(),
            })
        }
        _ => {}
    });
    let sided: Vec<(Side, &MakeRule)> = rules
        .iter()
        .filter_map(|r| {
            let recipe = expanded(&r.text, &vars);
            side_of(&r.targets, &recipe).map(|s| (s, r))
        })
        .collect();
    // The HIP rule that compiles (runs hipcc) names the HIP version; a hipify step otherwise.
    let hip_rules = || {
        sided
            .iter()
            .filter(|(s, _)| *s == Side::Hip)
            .map(|(_, r)| *r)
    };
    let Some(hip) = hip_rules()
        .find(|r| words(&expanded(&r.text, &vars)).any(|w| w == "hipcc" || w == "amdclang++"))
        .or_else(|| hip_rules().next())
    else {
        return;
    };
    let hip_reads: BTreeSet<String> = sided
        .iter()
        .filter(|(s, _)| *s == Side::Hip)
        .flat_map(|(_, r)| closure(&r.text, &vars))
        .collect();
    let mut ranges: Vec<(Range<usize>, String)> = Vec::new();
    for (_, r) in sided.iter().filter(|(s, _)| *s == Side::Cuda) {
        let name = r.targets.trim().to_string();
        ranges.push((r.range.clone(), name.clone()));
        for v in closure(&r.text, &vars) {
            if hip_reads.contains(&v) {
                continue;
            }
            for (_, range) in assigns.iter().filter(|(n, _)| *n == v) {
                ranges.push((range.clone(), name.clone()));
            }
        }
    }
    let hip_name = hip.targets.trim().to_string();
    out.pass_within(&ranges, &[], |cuda| {
        format!(" (read only by the CUDA target `{cuda}`; this Makefile's target `{hip_name}` builds the HIP version, which the ROCm build makes)")
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_sides() {
        assert_eq!(
            refs("$(NVCC) ${FLAGS} $(LIBS:%=-l%) $$HOME $(shell x)")
                .into_iter()
                .collect::<Vec<_>>(),
            ["FLAGS", "LIBS", "NVCC"]
        );
        assert_eq!(
            side_of("$(PREFIX)/hip-$(NAME)", "hipcc -o $@ $<"),
            Some(Side::Hip)
        );
        assert_eq!(
            side_of("$(PREFIX)/cuda-$(NAME)", "nvcc -o $@ $<"),
            Some(Side::Cuda)
        );
        assert_eq!(
            side_of("main.hip", "hipify-perl main.cu > main.hip"),
            Some(Side::Hip)
        );
        assert_eq!(side_of("all", "echo done"), None);
        // A word that only contains the letters is not the word: `chip`, `shipping`.
        assert_eq!(side_of("chip-test", "g++ -o $@ $<"), None);
    }

    fn open(src: &str) -> Vec<(String, u32)> {
        use super::super::{kind::FileKind, scan_bytes};
        scan_bytes("Makefile", FileKind::Make, src.as_bytes())
            .into_iter()
            .filter(|f| f.status != crate::gate::Status::Pass)
            .map(|f| (f.rule, f.line))
            .collect()
    }

    /// One program built twice: the CUDA target's variables and recipe are PASS, naming the
    /// HIP target. Twins: the same Makefile without its HIP target stays open; a variable the
    /// HIP target reads too stays open.
    #[test]
    fn a_makefile_with_a_hip_target_leaves_the_cuda_target_to_cuda() {
        let both = "NVCC := nvcc\nNVCCFLAGS := -O3 -arch=sm_80\nLDFLAGS := -lcuda -lnvidia-ml\nNAME := strides\n\ncuda-$(NAME): main.cu\n\t$(NVCC) $(NVCCFLAGS) -o $@ $< $(LDFLAGS)\n\nmain.hip: main.cu\n\thipify-perl main.cu > main.hip\n\nhip-$(NAME): main.hip\n\thipcc -O3 -o $@ $<\n";
        assert_eq!(open(both), []);
        let f = super::super::scan_bytes(
            "Makefile",
            super::super::kind::FileKind::Make,
            both.as_bytes(),
        );
        assert!(
            f.iter().all(|f| f
                .message
                .contains("target `hip-$(NAME)` builds the HIP version")),
            "{:?}",
            f.iter().map(|f| &f.message).collect::<Vec<_>>()
        );
        let cuda_only = both.split("\nmain.hip").next().unwrap();
        assert_eq!(
            open(cuda_only)
                .iter()
                .map(|(r, _)| r.as_str())
                .collect::<Vec<_>>(),
            // `-lcuda -lnvidia-ml`: one link line, one open finding naming both.
            ["HP850", "HP843", "HP851"]
        );
        let shared = both.replace("hipcc -O3", "hipcc $(LDFLAGS) -O3");
        assert_eq!(
            open(&shared)
                .iter()
                .map(|(r, l)| (r.as_str(), *l))
                .collect::<Vec<_>>(),
            [("HP851", 3)]
        );
    }
}
