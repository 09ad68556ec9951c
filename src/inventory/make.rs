//! Makefiles through tree-sitter-make: variable assignments go to the settings check and recipe
//! lines to the Bash reader, so `nvcc`, `-arch`/`-gencode`, `-lcudart`/`-lcublas` and CUDA paths
//! are found where they are used, and comments are skipped. A variable whose value holds
//! nvcc-only options (`NVCC_FLAGS = --use_fast_math -t=0`) is one HP844 item naming them.

use super::shell;
use super::ts::{self, Lang};
use super::words::{self, Cx, Site};
use super::{build, Out};
use crate::kinds::make::{Field as F, Kind as K, NodeExt};

pub fn scan(out: &mut Out) {
    let src = out.src();
    let Some(tree) = ts::parse(Lang::Make, src) else {
        return;
    };
    let mut assigns = Vec::new();
    let mut recipes = Vec::new();
    ts::each(tree.root_node(), &mut |n| match n.node_kind() {
        K::VariableAssignment => assigns.push(n),
        K::ShellText if n.parent().is_some_and(|p| p.node_kind() == K::RecipeLine) => {
            recipes.push(n)
        }
        _ => {}
    });
    for a in assigns {
        let Some(name) = a.field(F::Name) else {
            continue;
        };
        let value = a.field(F::Value);
        let (vt, vr) = value.map_or((String::new(), a.end_byte()..a.end_byte()), |v| {
            (ts::text(v, src).to_string(), v.byte_range())
        });
        words::setting(
            out,
            ts::text(name, src),
            name.byte_range(),
            &vt,
            vr.clone(),
            Site::Build,
        );
        nvcc_options(out, ts::text(name, src), &vt, vr);
    }
    for r in recipes {
        shell::scan_fragment(
            out,
            r.start_byte(),
            &src[r.byte_range()],
            Site::Build,
            Cx::default(),
        );
    }
}

/// nvcc-only options in a variable's value (architecture flags have their own rule, HP843).
fn nvcc_options(out: &mut Out, name: &str, value: &str, range: std::ops::Range<usize>) {
    let flags: Vec<&str> = value
        .split_whitespace()
        .filter(|w| {
            (words::is_nvcc_only_flag(w) && !words::is_arch_flag(w) && *w != "-arch")
                || w.starts_with("--threads=")
                || *w == "-t=0"
                || w.starts_with("--extended-lambda")
        })
        .collect();
    if flags.is_empty() {
        return;
    }
    out.push(
        &build::CMAKE_NVCC_FLAGS,
        range,
        format!(
            "`{name}` holds nvcc-only options ({}): hipcc rejects or ignores them",
            flags
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(
            "use hipcc/clang equivalents (-ffast-math, --offload-arch=gfx...) for the HIP build"
                .into(),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    #[test]
    fn makefile_items() {
        let src = "NVCC ?= /usr/local/cuda/bin/nvcc\nLDFLAGS += -lcudart -lcublas\n# nvcc -lcudnn in a comment\napp: main.cu\n\tnvcc -arch=sm_80 -o $@ $< $(LDFLAGS)\n";
        let r: Vec<(String, u32)> = scan_bytes("Makefile", FileKind::Make, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect();
        assert_eq!(
            r,
            vec![
                ("HP850".into(), 1),
                ("HP852".into(), 1),
                ("HP851".into(), 2),
                ("HP851".into(), 2),
                ("HP850".into(), 5),
                ("HP843".into(), 5),
            ]
        );
    }

    #[test]
    fn nvcc_only_options_in_a_variable() {
        // llm.c's Makefile: one item for the variable; plain -O3/-std flags are portable.
        let src = "NVCC_FLAGS = --threads=0 -t=0 --use_fast_math -std=c++17 -O3\nCFLAGS = -O3 -march=native\nNVCC_FLAGS += -lineinfo\n";
        let f = scan_bytes("Makefile", FileKind::Make, src.as_bytes());
        let r: Vec<(String, u32)> = f.iter().map(|f| (f.rule.clone(), f.line)).collect();
        assert_eq!(r, vec![("HP844".into(), 1), ("HP844".into(), 3)]);
        assert!(f[0].message.contains("`--use_fast_math`") && f[0].message.contains("`-t=0`"));
        assert!(!f[0].message.contains("-std"));
    }
}
