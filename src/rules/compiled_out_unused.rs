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

/// The declarations an HP304 message says HIP compiles out, when HIP's side compiles nothing in
/// their place (`Compiled out under HIP: `Kernel`, `GPUParallelFor` (using …); runs instead:
/// nothing`), with the macros its condition tests.
fn lost_without_replacement(f: &Finding) -> Option<(Vec<String>, Vec<String>)> {
    let m = &f.message;
    let cond = m.strip_prefix('`')?.split('`').next()?;
    let lost = m.split("Compiled out under HIP: ").nth(1)?;
    let (lost, instead) = lost.split_once("; runs instead: ")?;
    if !(instead.starts_with("nothing") || instead.split(" — ").next()?.ends_with("(empty)")) {
        return None;
    }
    let lost = lost.split(" (using ").next()?;
    if lost.starts_with("code using") || lost.starts_with("its code") {
        return None;
    }
    let names: Vec<String> = lost
        .split(", ")
        .filter_map(|n| n.strip_prefix('`')?.strip_suffix('`'))
        .filter(|n| !n.starts_with('#') && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(str::to_string)
        .collect();
    let macros: Vec<String> = cond
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.len() > 1 && w.starts_with(|c: char| c.is_ascii_uppercase() || c == '_'))
        .filter(|w| !matches!(*w, "if" | "ifdef" | "ifndef" | "elif" | "defined"))
        .map(str::to_string)
        .collect();
    (!names.is_empty()).then_some((names, macros))
}

/// Whether the code at `at` sits in an arm of a conditional whose test names one of `macros`
/// (a use guarded by the same `#ifdef __NVCC__` is compiled out with the declaration).
fn guarded_alike(text: &[u8], lexed: &crate::lex::Lexed, at: usize, macros: &[String]) -> bool {
    let mut open: Vec<bool> = Vec::new();
    for d in lexed.directives.iter().take_while(|d| d.start < at) {
        let names = || {
            lexed.tokens[d.tokens.clone()]
                .iter()
                .filter(|t| t.kind == Tok::Ident)
                .any(|t| macros.iter().any(|m| m.as_bytes() == &text[t.range()]))
        };
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => open.push(names()),
            "elif" | "elifdef" | "elifndef" => {
                let n = names();
                if let Some(top) = open.last_mut() {
                    *top |= n;
                }
            }
            "endif" => {
                open.pop();
            }
            _ => {}
        }
    }
    open.into_iter().any(|x| x)
}

/// Open HP304 findings whose compiled-out declarations other files use: HIP's build stops at
/// those uses, so the phase is BUILD, not CORRECTNESS (pbrt-v4's `gpu/util.h`: `#ifdef
/// __NVCC__` around `GPUParallelFor`, which the wavefront integrator calls in five files).
/// A use inside an arm tested on the same macros goes out with the declaration and is not
/// counted; only identifiers count (comments and strings do not).
pub fn mark_build_breaks<'s>(
    findings: &mut [Finding],
    all: impl FnOnce() -> Vec<(&'s str, &'s [u8])>,
) {
    let candidates: Vec<(usize, Vec<String>, Vec<String>)> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.rule == super::compiled_out::COMPILED_OUT_UNDER_HIP.id.code
                && f.status != Status::Pass
                && f.phase == crate::gate::Phase::Correctness
        })
        .filter_map(|(i, f)| lost_without_replacement(f).map(|(n, m)| (i, n, m)))
        .collect();
    if candidates.is_empty() {
        return;
    }
    let sources = all();
    let mut lexed: std::collections::HashMap<&str, crate::lex::Lexed> = Default::default();
    for (i, names, macros) in candidates {
        let mut users: Vec<&str> = Vec::new();
        let mut used: Vec<&str> = Vec::new();
        let header = findings[i]
            .path
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string();
        for (p, t) in &sources {
            if *p == findings[i].path || !occurs(&header, t, None) {
                continue;
            }
            let lx = lexed.entry(p).or_insert_with(|| crate::lex::lex(t));
            // A user sees the declarations through an `#include` of the header (matched by
            // file name, as include paths may reach it).
            let includes = lx.directives.iter().any(|d| {
                d.name == "include" && {
                    let line = String::from_utf8_lossy(&t[d.start..d.end]);
                    let target = line.trim_end().trim_end_matches(['"', '>']);
                    target.rsplit(['/', '"', '<']).next() == Some(header.as_str())
                }
            });
            if !includes {
                continue;
            }
            // Its own names (a template parameter `T`, a member `solve`) are not the arm's.
            let declares = |n: &str| {
                lx.tokens.windows(2).any(|w| {
                    matches!(
                        &t[w[0].range()],
                        b"typename" | b"class" | b"struct" | b"using"
                    ) && &t[w[1].range()] == n.as_bytes()
                })
            };
            let hit = names.iter().find(|n| {
                n.len() > 2
                    && occurs(n, t, None)
                    && !declares(n)
                    && lx.tokens.iter().any(|tok| {
                        tok.kind == Tok::Ident
                            && !tok.in_directive()
                            && &t[tok.range()] == n.as_bytes()
                            && !guarded_alike(t, lx, tok.start as usize, &macros)
                    })
            });
            if let Some(n) = hit {
                users.push(p);
                if !used.contains(&n.as_str()) {
                    used.push(n);
                }
            }
        }
        if users.is_empty() {
            continue;
        }
        let f = &mut findings[i];
        f.phase = crate::gate::Phase::Build;
        let list: Vec<String> = used.iter().map(|n| format!("`{n}`")).collect();
        let more = match users.len() {
            1 => String::new(),
            n => format!(" and {} more file{}", n - 1, if n == 2 { "" } else { "s" }),
        };
        f.message.push_str(&format!(
            " — {} {} used outside the arm (`{}`{more}): HIP's build stops at those uses, before any feature is lost",
            list.join(", "),
            if used.len() == 1 { "is" } else { "are" },
            users[0],
        ));
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

    /// pbrt-v4's shape: `#ifdef __NVCC__` around a launch helper other files call. Twins: a
    /// caller that guards the call with the same test, a caller that only names it in a
    /// comment, and an arm whose HIP side declares a replacement stay CORRECTNESS.
    #[test]
    fn compiled_out_declarations_used_elsewhere_break_the_build() {
        let msg = "`#ifdef __NVCC__`: a current CUDA build compiles the `#ifdef` arm (line 75), \
                   HIP-Clang no arm (HIP-Clang is not nvcc and does not define nvcc's own macros). \
                   Compiled out under HIP: `Kernel`, `GPUParallelFor` (using `func`); runs instead: nothing";
        let run = |users: &[(&str, &str)], msg: &str| {
            let mut f = vec![Finding {
                status: Status::Remediation,
                phase: crate::gate::Phase::Correctness,
                message: msg.to_string(),
                ..Finding::bare("HP304", "src/gpu/util.h", 75)
            }];
            let sources: Vec<(&str, &[u8])> =
                users.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
            mark_build_breaks(&mut f, || sources);
            f.remove(0)
        };
        let call =
            "#include <pbrt/gpu/util.h>\nvoid Render() { GPUParallelFor(\"Shade\", n, F); }\n";
        let f = run(
            &[
                (
                    "src/gpu/util.h",
                    "#ifdef __NVCC__\nvoid GPUParallelFor();\n#endif\n",
                ),
                ("src/wavefront/integrator.cpp", call),
                ("src/cmd/pspec_gpu.cpp", call),
            ],
            msg,
        );
        assert_eq!(f.phase, crate::gate::Phase::Build);
        assert!(
            f.message.contains("`GPUParallelFor` is used outside the arm (`src/wavefront/integrator.cpp` and 1 more file)"),
            "{}",
            f.message
        );
        let guarded = "#include \"util.h\"\n#ifdef __NVCC__\nvoid Render() { GPUParallelFor(\"Shade\", n, F); }\n#endif\n";
        let comment = "// GPUParallelFor launches the kernels\nvoid Render();\n";
        let f = run(&[("a.cpp", guarded), ("b.cpp", comment)], msg);
        assert_eq!(f.phase, crate::gate::Phase::Correctness, "{}", f.message);
        // A file that does not include the header calls a function of its own so named.
        let unrelated = "void Render() { GPUParallelFor(\"Shade\", n, F); }\n";
        let f = run(&[("c.cpp", unrelated)], msg);
        assert_eq!(f.phase, crate::gate::Phase::Correctness, "{}", f.message);
        let replaced = msg.replace(
            "runs instead: nothing",
            "runs instead: `GPUParallelFor` from the `#else` arm (line 90)",
        );
        let f = run(&[("src/wavefront/integrator.cpp", call)], &replaced);
        assert_eq!(f.phase, crate::gate::Phase::Correctness);
    }
}
