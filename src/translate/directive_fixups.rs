//! Findings on directive lines the port cannot rewrite: `#pragma weak` aliases (HP011) and
//! macros that paste a CUDA prefix onto their argument (HP018). Each reads the line's code
//! tokens once ([`crate::lex::Lexed::directive_words`]).

use super::rules;
use super::Pass;

/// `#pragma weak b = a`: an alias hipcc cannot emit where `a` is not defined in the module
/// (HP011). No rewrite: the alias's signature is not in the pragma.
pub(super) fn weak_aliases(p: &mut Pass) {
    for d in &p.lexed.directives {
        if d.name != "pragma" {
            continue;
        }
        let words = p.lexed.directive_words(d);
        // `#` `pragma` `weak` `b` `=` `a`
        if words.len() < 6 || p.text(words[2]) != b"weak" || p.text(words[4]) != b"=" {
            continue;
        }
        let alias = String::from_utf8_lossy(p.text(words[3])).into_owned();
        let target = String::from_utf8_lossy(p.text(words[5])).into_owned();
        let f = p.ctx.finding(
            &rules::WEAK_ALIAS_PRAGMA,
            d.start..d.end,
            format!("`#pragma weak {alias}={target}`: hipcc -c stops with \"alias must point to a defined variable or function\" where `{target}` is not defined in the unit"),
            Some(format!("define `{alias}` as a function that calls `{target}`, or guard the pragma with `#if !defined(__HIP_PLATFORM_AMD__)`")),
        );
        p.findings.push(f);
    }
}

/// The CUDA library prefixes a macro may paste onto a name, with the HIP prefix that keeps the
/// library's names after it.
const PASTED_PREFIXES: [(&[u8], &str); 6] = [
    (b"cuda", "hip"),
    (b"cublas", "hipblas"),
    (b"cufft", "hipfft"),
    (b"curand", "hiprand"),
    (b"cusparse", "hipsparse"),
    (b"cusolver", "hipsolver"),
];

/// `#define CUDA_CALL(call) check(cuda##call)`: HP018 at each pasted CUDA prefix (cudaKDTree's
/// `CUKD_CUDA_CALL`), once per macro.
pub(super) fn pasted_prefixes(p: &mut Pass) {
    for d in &p.lexed.directives {
        if d.name != "define" {
            continue;
        }
        let words = p.lexed.directive_words(d);
        let Some(&name) = words.get(2) else { continue };
        let pasted = words.windows(3).skip(3).find_map(|w| {
            let (a, h1, h2) = (w[0], w[1], w[2]);
            let prefix = PASTED_PREFIXES.iter().find(|(c, _)| p.text(a) == *c)?;
            (p.text(h1) == b"#"
                && p.text(h2) == b"#"
                && p.lexed.tokens[h2].start == p.lexed.tokens[h1].end)
                .then_some((a, prefix.1))
        });
        let Some((at, hip)) = pasted else { continue };
        let macro_name = String::from_utf8_lossy(p.text(name)).into_owned();
        let cuda = String::from_utf8_lossy(p.text(at)).into_owned();
        let t = p.lexed.tokens[at];
        let f = p.ctx.finding(
            &rules::PASTED_CUDA_PREFIX,
            t.start as usize..t.end as usize,
            format!("macro `{macro_name}` pastes `{cuda}` onto its argument: the CUDA names it forms at each use exist only after preprocessing, so the port leaves every use calling the CUDA function"),
            Some(format!("paste `{hip}` instead (`{hip} ## …`) and check that each use names a function HIP has under that name")),
        );
        p.findings.push(f);
    }
}
