//! Makefiles through tree-sitter-make: variable assignments go to the settings check and recipe
//! lines to the Bash reader, so `nvcc`, `-arch`/`-gencode`, `-lcudart`/`-lcublas` and CUDA paths
//! are found where they are used, and comments are skipped. A variable whose value holds
//! nvcc-only options (`NVCC_FLAGS = --use_fast_math -t=0`) is one HP844 item naming them. A
//! list of bare library names later linked as `-l` flags (`LIBRARIES += nccl` with
//! `$(LIBRARIES:%=-l%)`) is read as the links it makes.

use super::shell;
use super::ts::{self, Lang};
use super::words::{self, Cx, Site};
use super::{build, Out};
use crate::kinds::make::{Field as F, Kind as K, NodeExt};

pub fn scan(out: &mut Out) {
    let src = out.src();
    let masked = mask_hashes_in_references(src);
    let Some(tree) = ts::parse(Lang::Make, masked.as_deref().unwrap_or(src)) else {
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
    let linked = link_lists(std::str::from_utf8(src).unwrap_or(""));
    for a in assigns {
        let Some(name) = a.field(F::Name) else {
            continue;
        };
        if let (Some((_, how)), Some(v)) = (
            linked.iter().find(|(n, _)| n == ts::text(name, src)),
            a.field(F::Value),
        ) {
            for w in words::split(ts::text(v, src), v.start_byte()) {
                if let Some(r) = build::rocm_library(&w.text) {
                    out.push(
                        &build::CUDA_LIBRARY_LINK,
                        w.range.clone(),
                        format!(
                            "links CUDA library {} (`{}` is linked as `-l` flags through `{how}`)",
                            w.text,
                            ts::text(name, src)
                        ),
                        Some(format!("{r} (linked as -l{r})")),
                    );
                }
            }
        }
        let value = a.field(F::Value);
        let (vt, vr) = value.map_or((String::new(), a.end_byte()..a.end_byte()), |v| {
            // A `#` that starts a word comments out the rest of the line (YUVToRGB's
            // `cuda_arch := #-gencode=arch=compute_80,code=sm_80`): the variable holds none of it.
            let t = ts::text(v, src);
            let cut = comment_start(t).unwrap_or(t.len());
            (t[..cut].to_string(), v.start_byte()..v.start_byte() + cut)
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
    super::make_targets::pass_cuda_only_targets(out, tree.root_node());
    super::make_arms::pass_cuda_arms(out, tree.root_node());
    super::make_arms::pass_automake_cuda_lines(out);
}

/// Where a Make comment starts in a variable's value: a `#` at the start of a word (an
/// escaped `\#` is none).
/// GNU make reads a `#` inside a variable reference or function call as itself, not as a
/// comment, and matches the call's parentheses counting plain ones (magma's `$(error …
/// (https://llvm.org/docs/AMDGPUUsage.html#target-triples) …)`); tree-sitter-make starts a
/// comment at that `#` and stops at the plain parentheses, and loses the conditional around
/// them. The text to parse, with each such `#` and plain parenthesis inside a reference
/// replaced by `_` (same length, so every node's range reads the original), or `None` when
/// there is none.
fn mask_hashes_in_references(src: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mask = |i: usize, out: &mut Option<Vec<u8>>| {
        out.get_or_insert_with(|| src.to_vec())[i] = b'_';
    };
    // Open parentheses and braces inside references: `true` for a reference's own.
    let mut open: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        let escaped = i > 0 && src[i - 1] == b'\\';
        match b {
            b'#' if open.is_empty() && !escaped => {
                // A comment: to the end of its line.
                i = memchr::memchr(b'\n', &src[i..]).map_or(src.len(), |n| i + n);
                continue;
            }
            b'#' if !open.is_empty() => mask(i, &mut out),
            // `$$` is a literal `$` (a shell's `$$(cmd)` in a recipe).
            b'$' if src.get(i + 1) == Some(&b'$') => {
                i += 2;
                continue;
            }
            b'$' if matches!(src.get(i + 1), Some(b'(' | b'{')) => {
                open.push(true);
                i += 2;
                continue;
            }
            b'(' | b'{' if !open.is_empty() => {
                open.push(false);
                mask(i, &mut out);
            }
            b')' | b'}' if open.last() == Some(&false) => {
                open.pop();
                mask(i, &mut out);
            }
            b')' | b'}' if !open.is_empty() => {
                open.pop();
            }
            // A reference never spans an unescaped line end.
            b'\n' if !escaped => open.clear(),
            _ => {}
        }
        i += 1;
    }
    out
}

fn comment_start(value: &str) -> Option<usize> {
    let b = value.as_bytes();
    (0..b.len()).find(|&i| b[i] == b'#' && (i == 0 || b[i - 1].is_ascii_whitespace()))
}

/// Variables whose words are linked as libraries: `$(LIBRARIES:%=-l%)`,
/// `$(addprefix -l,$(LIBRARIES))`, `$(patsubst %,-l%,$(LIBRARIES))`, with the expansion as
/// written.
fn link_lists(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let mut from = 0;
    while let Some(p) = text[from..].find('$') {
        let at = from + p;
        from = at + 1;
        let (open, close) = match text.as_bytes().get(at + 1) {
            Some(b'(') => ('(', ')'),
            Some(b'{') => ('{', '}'),
            _ => continue,
        };
        // The balanced reference `$( … )`.
        let mut depth = 0;
        let Some(len) = text[at + 1..].char_indices().find_map(|(i, c)| {
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            None
        }) else {
            continue;
        };
        let whole = &text[at..at + 2 + len];
        let inner = &text[at + 2..at + 1 + len];
        let var_of = |r: &str| {
            let r = r.trim();
            r.strip_prefix("$(")
                .and_then(|x| x.strip_suffix(')'))
                .or_else(|| r.strip_prefix("${").and_then(|x| x.strip_suffix('}')))
                .filter(|x| ident(x))
                .map(str::to_string)
        };
        let name = if let Some((v, pat)) = inner.split_once(':') {
            (ident(v) && pat.trim() == "%=-l%").then(|| v.to_string())
        } else if let Some(args) = inner.strip_prefix("addprefix ") {
            args.split_once(',')
                .filter(|(pre, _)| pre.trim() == "-l")
                .and_then(|(_, v)| var_of(v))
        } else if let Some(args) = inner.strip_prefix("patsubst ") {
            let parts: Vec<&str> = args.splitn(3, ',').collect();
            (parts.len() == 3 && parts[0].trim() == "%" && parts[1].trim() == "-l%")
                .then(|| var_of(parts[2]))
                .flatten()
        } else {
            None
        };
        if let Some(n) = name {
            if !out.iter().any(|(x, _)| *x == n) {
                out.push((n, whole.to_string()));
            }
        }
    }
    out
}

/// nvcc-only options in a variable's value (architecture flags have their own rule, HP843).
fn nvcc_options(out: &mut Out, name: &str, value: &str, range: std::ops::Range<usize>) {
    // The patterns of `$(filter-out -ccbin=x --expt-extended-lambda,$(FLAGS))` are the flags
    // the value removes, not ones it holds.
    let mut kept = value.to_string();
    let mut from = 0;
    while let Some(i) = kept[from..].find("$(filter-out ").map(|i| i + from) {
        let Some(comma) = kept[i..].find(',').map(|c| c + i) else {
            break;
        };
        kept.replace_range(i..=comma, &" ".repeat(comma + 1 - i));
        from = comma + 1;
    }
    let flags: Vec<&str> = kept
        .split_whitespace()
        .filter(|w| words::is_nvcc_only_flag(w) && !words::is_arch_flag(w) && *w != "-arch")
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

    /// `(rule, line)` of every finding of a Makefile's text.
    fn rules(src: &str) -> Vec<(String, u32)> {
        scan_bytes("Makefile", FileKind::Make, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

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

    /// gpu-benches' Makefiles: `NVCC := nvcc` names the compiler and `$(shell which nvcc)`
    /// finds it: one decision. A message or a `$(warning …)` naming nvcc is no command.
    #[test]
    fn nvcc_probes_and_messages() {
        let hp850 = |src: &str| -> Vec<(u32, bool, String)> {
            scan_bytes("Makefile", FileKind::Make, src.as_bytes())
                .into_iter()
                .filter(|f| f.rule == "HP850")
                .map(|f| (f.line, f.status == crate::gate::Status::Pass, f.message))
                .collect()
        };
        let src = "NVCC := nvcc\nTEMP_NVCC := $(shell which nvcc)\nX := $(if $(TEMP_NVCC),,$(warning nvcc not found))\napp: main.cu\n\t@echo building with nvcc\n";
        let r = hp850(src);
        assert_eq!(r.len(), 2, "{r:?}");
        assert_eq!((r[0].0, r[0].1), (1, false));
        assert_eq!((r[1].0, r[1].1), (2, true));
        assert!(
            r[1].2.starts_with("probes for nvcc (`which nvcc`)"),
            "{r:?}"
        );
        assert!(r[1].2.contains("the nvcc use at line 1"), "{r:?}");
        // Twin: the probe alone is the open finding; a recipe compile is a run.
        let r = hp850("TEMP_NVCC := $(shell which nvcc)\n");
        assert_eq!(r.len(), 1);
        assert!(!r[0].1 && r[0].2.starts_with("probes for nvcc"), "{r:?}");
        let r = hp850("app: main.cu\n\t@echo building; nvcc -o app main.cu\n");
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(!r[0].1 && r[0].2.starts_with("runs nvcc"), "{r:?}");
    }

    /// cuda-samples' Makefiles name libraries bare and add `-l` when linking.
    #[test]
    fn library_lists_linked_through_an_expansion() {
        let src = "LIBRARIES :=\nLIBRARIES += nccl\nLIBRARIES += m pthread\nOTHER += cublas\nall:\n\t$(CXX) -o a a.o $(LIBRARIES:%=-l%)\n";
        assert_eq!(rules(src), vec![("HP851".to_string(), 2)]);
        let src = "LIBS = cudart m\nLDLIBS = $(addprefix -l,$(LIBS))\n";
        let f = scan_bytes("Makefile", FileKind::Make, src.as_bytes());
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains("`$(addprefix -l,$(LIBS))`"),
            "{}",
            f[0].message
        );
        // The twin: a list of system libraries, and a CUDA name never linked as `-l`.
        assert!(rules("LIBRARIES += m pthread\nX = $(LIBRARIES:%=-l%)\n").is_empty());
        assert!(rules("COMPONENTS += nccl\n").is_empty());
    }

    /// A flag after a `#` in a variable's value is commented out; twin: the same flag before it.
    #[test]
    fn flags_after_a_comment_in_a_value_are_not_held() {
        let commented = "cuda_arch := #-gencode=arch=compute_80,code=sm_80\n";
        assert!(
            rules(commented).iter().all(|(r, _)| r != "HP843"),
            "{:?}",
            rules(commented)
        );
        let held = "cuda_arch := -gencode=arch=compute_80,code=sm_80 # for A100\n";
        assert!(
            rules(held).iter().any(|(r, _)| r == "HP843"),
            "{:?}",
            rules(held)
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
        // The patterns `$(filter-out …)` removes are not held; the twin holds one beside it.
        let removes = "TIDY := $(filter-out -ccbin=mpicxx --expt-extended-lambda,$(GPUFLAGS))\n";
        assert!(scan_bytes("Makefile", FileKind::Make, removes.as_bytes()).is_empty());
        let holds = "TIDY := --expt-extended-lambda $(filter-out -g,$(GPUFLAGS))\n";
        let f = scan_bytes("Makefile", FileKind::Make, holds.as_bytes());
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains("(`--expt-extended-lambda`)"),
            "{}",
            f[0].message
        );
    }
}
