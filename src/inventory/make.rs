//! Makefiles through tree-sitter-make: variable assignments go to the settings check and recipe
//! lines to the Bash reader, so `nvcc`, `-arch`/`-gencode`, `-lcudart`/`-lcublas` and CUDA paths
//! are found where they are used, and comments are skipped.

use super::shell;
use super::ts::{self, Lang};
use super::words::{self, Cx, Site};
use super::Out;
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
            vr,
            Site::Build,
        );
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
}
