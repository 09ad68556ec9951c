//! A compute-capability comparison that only picks part of an NVIDIA architecture name the
//! file builds (QuickRunCUDA: `snprintf(buf, n, "%s%d%d%s", opts.c_str(), major, minor,
//! (major == 9 && minor == 0) ? "a" : "")`, with `opts = "--gpu-architecture=sm_"`) is part of
//! that name: the HP403 on the name is the one fact (on AMD the whole option becomes
//! `--offload-arch=` with the device's gfx name), and the HP402 in the same statement settles
//! into it, naming its line.

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::Tok;
use crate::model::syntax::Src;

/// Whether token `i` belongs to a preprocessor directive.
fn in_directive(s: &Src, i: usize) -> bool {
    s.lexed
        .directives
        .get(s.lexed.tokens[i].directive as usize)
        .is_some()
}

/// The token range of the statement holding token `i`: back to the `;`, `{` or `}` outside
/// any parentheses (or a directive), forward to the `;` outside them.
fn statement(s: &Src, i: usize) -> std::ops::Range<usize> {
    let mut depth = 0i32;
    let mut start = i;
    for j in (0..i).rev() {
        let t = s.lexed.tokens[j];
        if t.kind == Tok::Comment {
            continue;
        }
        if in_directive(s, j) {
            break;
        }
        match s.tok(j) {
            ")" | "]" => depth += 1,
            "(" | "[" => depth -= 1,
            ";" | "{" | "}" if depth <= 0 => break,
            _ => {}
        }
        start = j;
    }
    let mut depth = 0i32;
    let mut end = i + 1;
    for j in i..s.lexed.tokens.len() {
        if s.lexed.tokens[j].kind == Tok::Comment || in_directive(s, j) {
            continue;
        }
        end = j + 1;
        match s.tok(j) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            ";" if depth <= 0 => break,
            _ => {}
        }
    }
    start..end
}

/// The token index starting at byte `at`.
fn token_at(s: &Src, at: usize) -> Option<usize> {
    s.lexed
        .tokens
        .binary_search_by_key(&(at as u32), |t| t.start)
        .ok()
}

/// Settles each open HP402 whose statement also holds an open HP403 string, or a variable a
/// statement with one assigns (`opts = "--gpu-architecture=sm_";`).
pub(super) fn fold(s: &Src, out: &mut [Finding]) {
    let names: Vec<(usize, std::ops::Range<usize>, Option<&str>)> = out
        .iter()
        .filter(|f| f.rule == super::SM_ARCH_STRING.code() && f.status != Status::Pass)
        .filter_map(|f| {
            let i = token_at(s, f.byte_range.0)?;
            // `x = "…";`, `std::string x = "…";`, `x("…")`: the variable holding the name.
            let var = s
                .lexed
                .prev_code(i)
                .filter(|&p| matches!(s.tok(p), "=" | "("))
                .and_then(|p| s.lexed.prev_code(p))
                .filter(|&v| s.lexed.tokens[v].kind == Tok::Ident)
                .map(|v| s.tok(v));
            Some((f.line as usize, f.byte_range.0..f.byte_range.1, var))
        })
        .collect();
    if names.is_empty() {
        return;
    }
    for f in out
        .iter_mut()
        .filter(|f| f.rule == super::COMPUTE_CAPABILITY_CHECK.code() && f.status != Status::Pass)
    {
        let Some(i) = token_at(s, f.byte_range.0) else {
            continue;
        };
        let st = statement(s, i);
        let hit = names.iter().find(|(_, range, var)| {
            st.clone().any(|j| {
                let t = s.lexed.tokens[j];
                (t.start as usize) == range.start
                    || (t.kind == Tok::Ident && var.is_some_and(|v| v == s.tok(j)))
            })
        });
        if let Some((line, _, _)) = hit {
            f.settle(&format!(
                " — it only picks part of the NVIDIA architecture name the same statement builds (line {line}, HP403): on AMD that whole option becomes `--offload-arch=` with the device's gfx name, one change"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::fires_open;

    /// QuickRunCUDA's NVRTC option: the `sm_90a` suffix chosen by `major == 9` in the
    /// `snprintf` that completes `"--gpu-architecture=sm_"`: one open fact, the HP403. Twin: a
    /// comparison that decides a code path stays HP402.
    #[test]
    fn a_capability_test_that_picks_an_arch_suffix_is_part_of_the_name() {
        let src = "#include <cuda.h>\n#include <cstdio>\n#include <string>\nvoid opts(char* buf, CUdevice dev) {\n  int major = 0, minor = 0;\n  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);\n  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);\n  std::string o;\n  o = \"--gpu-architecture=sm_\";\n  snprintf(buf, o.size() + 10, \"%s%d%d%s\", o.c_str(), major, minor, (major == 9 && minor == 0) ? \"a\" : \"\");\n  if (major >= 8) puts(\"bf16\");\n}\n";
        assert_eq!(fires_open(src, "HP403"), [9]);
        assert_eq!(fires_open(src, "HP402"), [11]);
        // The whole name in one format, its suffix a `%s`: the same one fact.
        let one = "void opts(char* buf, int major, int minor) {\n  snprintf(buf, 64, \"-arch=sm_%d%d%s\", major, minor, major == 9 ? \"a\" : \"\");\n}\n";
        assert_eq!(fires_open(one, "HP403"), [2]);
        assert!(fires_open(one, "HP402").is_empty());
    }
}
