//! The names a file shows to be templates, for reading `<` in a kernel argument
//! ([`super::fixups`]): a `<` after one of them opens template arguments.

use super::Pass;
use crate::lex::Tok;

/// The token that closes the `open` at token `from` (nesting counted), or the first of `stops`
/// before it, or the end of the file.
fn balanced_end(p: &Pass, from: usize, open: &[u8], close: &[u8], stops: &[&[u8]]) -> usize {
    let toks = &p.lexed.tokens;
    let mut level = 0i32;
    let mut j = from;
    while j < toks.len() {
        let t = p.text(j);
        if t == open {
            level += 1;
        } else if t == close {
            level -= 1;
            if level == 0 {
                break;
            }
        } else if stops.contains(&t) {
            break;
        }
        j += 1;
    }
    j
}

/// Attribute words with arguments that may stand between a template head and the declared
/// name.
const ATTRIBUTES: [&[u8]; 5] = [
    b"__launch_bounds__",
    b"__attribute__",
    b"__declspec",
    b"alignas",
    b"__align__",
];

/// The names the file declares as templates: after a `template <…>` head, the last identifier
/// before the next `;`, `{`, `(`, `<` or `:` (a function's name, or the name after
/// `struct`/`class`); and the kernels it launches with template arguments
/// (`k< 4, 32 ><<<grid, block>>>`: a `>` right before `<<<` closes a template argument list,
/// never a comparison), whose template a header the file includes declares (cudamat's
/// `filterActs_YxX_color`). One sweep of the tokens.
pub(super) fn template_names<'a>(p: &Pass<'a>) -> std::collections::HashSet<&'a [u8]> {
    let mut names = std::collections::HashSet::new();
    let toks = &p.lexed.tokens;
    let mut i = 0;
    while i < toks.len() {
        if toks[i].kind != Tok::Ident || p.text(i) != b"template" {
            i += 1;
            continue;
        }
        // Skip the balanced `<…>` head.
        let j = match p.lexed.next_code(i) {
            Some(k) if p.text(k) == b"<" => k,
            _ => {
                i += 1;
                continue;
            }
        };
        let j = balanced_end(p, j, b"<", b">", &[b";", b"{"]);
        let mut last_ident: Option<usize> = None;
        let mut k = j + 1;
        while k < toks.len() {
            let t = p.text(k);
            // `__global__ void __launch_bounds__(128, 4) name(…)`: an attribute's arguments
            // are no parameter list.
            if t == b"(" && last_ident.is_some_and(|l| ATTRIBUTES.contains(&p.text(l))) {
                k = balanced_end(p, k, b"(", b")", &[]) + 1;
                last_ident = None;
                continue;
            }
            if matches!(t, b";" | b"{" | b"(" | b"<" | b":") {
                break;
            }
            if toks[k].kind == Tok::Ident {
                last_ident = Some(k);
            }
            k += 1;
        }
        if let Some(l) = last_ident {
            names.insert(p.text(l));
        }
        i = k.max(i + 1);
    }
    for i in 0..toks.len() {
        if !crate::model::launch::is_triple(p.src(), p.lexed, i, b'<') {
            continue;
        }
        let Some(close) = p.lexed.prev_code(i).filter(|&c| p.text(c) == b">") else {
            continue;
        };
        // Back to the `<` the `>` closes.
        let mut level = 0i32;
        let mut j = close;
        let open = loop {
            match p.text(j) {
                b">" => level += 1,
                b"<" => {
                    level -= 1;
                    if level == 0 {
                        break Some(j);
                    }
                }
                b";" | b"{" | b"}" => break None,
                _ => {}
            }
            match p.lexed.prev_code(j) {
                Some(k) => j = k,
                None => break None,
            }
        };
        if let Some(n) = open
            .and_then(|o| p.lexed.prev_code(o))
            .filter(|&n| toks[n].kind == Tok::Ident)
        {
            names.insert(p.text(n));
        }
    }
    names
}

#[cfg(test)]
mod tests {
    /// The kernel's template is declared in a header (cudamat's `filterActs_YxX_color` in
    /// `cudamat_conv_kernels.cuh`); the file launches it with template arguments, so the
    /// cache call's argument is one template-id and gets the cast. Twin: a name launched
    /// nowhere with template arguments stays uncast, with HP010.
    #[test]
    fn a_kernel_launched_with_template_arguments_is_a_template() {
        let src = "#include \"k.cuh\"\nvoid go(float* x, int n) {\n  cudaFuncSetCacheConfig(filt< 4, 32, false >, cudaFuncCachePreferShared);\n  filt < 4, 32, false > <<<n, 32>>>(x);\n  cudaFuncSetCacheConfig(other< 4, 32 >, cudaFuncCachePreferShared);\n}\n";
        let t = crate::translate::translate_for_tests(src, "6.2");
        let out = String::from_utf8(t.output).unwrap();
        assert!(
            out.contains("hipFuncSetCacheConfig(reinterpret_cast<const void*>(filt< 4, 32, false >), hipFuncCachePreferShared)"),
            "{out}"
        );
        assert!(
            out.contains("hipFuncSetCacheConfig(other< 4, 32 >, hipFuncCachePreferShared)"),
            "{out}"
        );
        let hp010: Vec<u32> = t
            .findings
            .iter()
            .filter(|f| f.rule == "HP010")
            .map(|f| f.line)
            .collect();
        assert_eq!(hp010, [5]);
    }
}
