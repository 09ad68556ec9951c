//! HP304 chains that only declare constants nothing reads. SpFFT's `gpu_runtime_api.hpp`
//! (shared with spla and COSMA) keeps `#if (CUDART_VERSION >= 10000)` around
//! `constexpr auto MemoryTypeUnregistered = GPU_PREFIX(MemoryTypeUnregistered);`: HIP compiles
//! the arm out, but no source of the project uses the constants, so nothing is lost and no
//! behaviour changes. A chain whose every arm holds only constant declarations (`constexpr`,
//! `const`, `static`, `inline` … `NAME = …;`) and `#define NAME …` lines, none of whose names
//! occurs anywhere else in the project's sources, is settled PASS naming them.

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::Tok;
use std::ops::Range;

/// The names a chain opened at byte `at` declares, when it holds nothing else, and the byte
/// range of the whole chain.
fn declared_only(
    text: &[u8],
    lexed: &crate::lex::Lexed,
    at: usize,
) -> Option<(Vec<String>, Range<usize>)> {
    let dirs = &lexed.directives;
    let open = dirs.iter().position(|d| d.start == at)?;
    if !matches!(dirs[open].name.as_str(), "if" | "ifdef" | "ifndef") {
        return None;
    }
    let mut bodies: Vec<Range<usize>> = Vec::new();
    let mut from = dirs[open].end;
    let mut end = None;
    let mut defines: Vec<String> = Vec::new();
    for d in &dirs[open + 1..] {
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => return None,
            "elif" | "else" | "elifdef" | "elifndef" => {
                bodies.push(from..d.start);
                from = d.end;
            }
            "endif" => {
                bodies.push(from..d.start);
                end = Some(d.end);
                break;
            }
            "define" => {
                let name = lexed.tokens[d.tokens.clone()]
                    .iter()
                    .filter(|t| t.kind == Tok::Ident)
                    .nth(1)?;
                defines.push(String::from_utf8_lossy(&text[name.range()]).into_owned());
            }
            "" => {}
            _ => return None,
        }
    }
    let end = end?;
    let mut names = defines;
    for body in &bodies {
        let toks: Vec<&crate::lex::Token> = lexed
            .tokens
            .iter()
            .filter(|t| {
                body.contains(&(t.start as usize)) && t.kind != Tok::Comment && !t.in_directive()
            })
            .collect();
        let word = |t: &crate::lex::Token| &text[t.range()];
        for stmt in toks.split(|t| word(t) == b";") {
            if stmt.is_empty() {
                continue;
            }
            if stmt.iter().any(|t| matches!(word(t), b"{" | b"}")) {
                return None;
            }
            let lead = stmt
                .iter()
                .take_while(|t| matches!(word(t), b"constexpr" | b"const" | b"static" | b"inline"))
                .count();
            let eq = stmt.iter().position(|t| word(t) == b"=")?;
            if lead == 0 || eq == 0 || stmt[eq - 1].kind != Tok::Ident {
                return None;
            }
            names.push(String::from_utf8_lossy(word(stmt[eq - 1])).into_owned());
        }
    }
    (!names.is_empty()).then_some((names, dirs[open].start..end))
}

/// Whether `name` occurs as a whole word in `text` outside `skip`.
fn occurs(name: &str, text: &[u8], skip: Option<&Range<usize>>) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    memchr::memmem::find_iter(text, name.as_bytes()).any(|p| {
        let after = p + name.len();
        (p == 0 || !word(text[p - 1]))
            && text.get(after).is_none_or(|&b| !word(b))
            && skip.is_none_or(|r| !r.contains(&p))
    })
}

/// Settles open HP304 findings whose chain only declares constants no other place of the
/// project's sources names. `own` holds the files with findings (the chains are read there);
/// `all` gives every source, asked only when some chain declares nothing else.
pub fn settle_unused_declarations<'s>(
    findings: &mut [Finding],
    own: &std::collections::BTreeMap<String, Vec<u8>>,
    all: impl FnOnce() -> Vec<(&'s str, &'s [u8])>,
) {
    // Each file with findings is lexed once, however many chains it holds.
    let mut lexed: std::collections::HashMap<&str, crate::lex::Lexed> = Default::default();
    let mut candidates: Vec<(usize, Vec<String>, Range<usize>)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if f.rule != super::compiled_out::COMPILED_OUT_UNDER_HIP.id.code || f.status == Status::Pass
        {
            continue;
        }
        let Some(text) = own.get(&f.path) else {
            continue;
        };
        let lx = lexed
            .entry(f.path.as_str())
            .or_insert_with(|| crate::lex::lex(text));
        if let Some((names, chain)) = declared_only(text, lx, f.byte_range.0) {
            candidates.push((i, names, chain));
        }
    }
    if candidates.is_empty() {
        return;
    }
    let sources = all();
    for (i, names, chain) in candidates {
        let f = &mut findings[i];
        let used = names.iter().any(|n| {
            sources.iter().any(|(p, t)| {
                let skip = (*p == f.path).then_some(&chain);
                occurs(n, t, skip)
            })
        });
        if !used {
            let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            f.settle(&format!(
                " — the arms only declare {}, which no other place of the project's sources names: nothing is lost",
                list.join(", ")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const API: &str = "namespace flag {\nconstexpr auto MemoryTypeHost = GPU_PREFIX(MemoryTypeHost);\n#if (CUDART_VERSION >= 10000)\nconstexpr auto MemoryTypeUnregistered = GPU_PREFIX(MemoryTypeUnregistered);\nconstexpr auto MemoryTypeManaged = GPU_PREFIX(MemoryTypeManaged);\n#endif\n}\n";

    fn run(files: &[(&str, &str)]) -> Finding {
        let at = API.find("#if").expect("the chain");
        let mut f = vec![Finding {
            rule: "HP304".into(),
            byte_range: (at, at + 3),
            ..Finding::bare("HP304", "gpu_runtime_api.hpp", 3)
        }];
        let sources: Vec<(&str, &[u8])> = files.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
        let own: std::collections::BTreeMap<String, Vec<u8>> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect();
        settle_unused_declarations(&mut f, &own, || sources.clone());
        f.remove(0)
    }

    /// SpFFT's shape (BSD-3-Clause): constants nothing reads. Twins: a source that reads one,
    /// and an arm that also holds code.
    #[test]
    fn constants_nothing_reads_are_nothing_lost() {
        let f = run(&[
            ("gpu_runtime_api.hpp", API),
            ("a.cpp", "int main() { return 0; }\n"),
        ]);
        assert_eq!(f.status, Status::Pass);
        assert!(f.message.contains("`MemoryTypeManaged`"), "{}", f.message);
        let f = run(&[
            ("gpu_runtime_api.hpp", API),
            (
                "a.cpp",
                "bool m(int t) { return t == gpu::flag::MemoryTypeManaged; }\n",
            ),
        ]);
        assert_ne!(f.status, Status::Pass);
        let code = API.replace("#endif", "inline int f() { return 1; }\n#endif");
        let lexed = crate::lex::lex(code.as_bytes());
        assert!(declared_only(code.as_bytes(), &lexed, code.find("#if").expect("#if")).is_none());
    }
}
