//! `--launch-syntax hip`: `k<<<g, b, s, st>>>(args)` → `hipLaunchKernelGGL(k, dim3(g), dim3(b),
//! s, st, args)`, with `HIP_KERNEL_NAME(…)` around template kernels and 0 for omitted shared
//! memory and stream. Runs on the already-renamed text, so the pieces it moves are translated.
//!
//! A launch is left as `<<<…>>>` (which HIP-Clang compiles) whenever moving its pieces could
//! change what the preprocessor or the compiler sees: a preprocessor line anywhere inside it.
//! Comments move with the piece they belong to; a `//` comment always keeps a line break after
//! it, so it never swallows the text that follows. Every scan is bounded by the next `<<<`,
//! `>>>` or `;` and the argument list's closing parenthesis comes from a table built once, so
//! the pass stays linear even on files full of unterminated `<<<`.

use crate::edit::{apply, Edit};
use crate::lex::{lex, Lexed, Tok};
use crate::model::launch::is_triple;

fn text<'a>(src: &'a [u8], l: &Lexed, i: usize) -> &'a [u8] {
    l.tokens[i].text(src)
}

/// For each opening bracket token, the index of its matching closer (`usize::MAX` if none).
/// Brackets in directives are skipped; a mismatched closer discards the openers above its mate.
fn bracket_matches(src: &[u8], l: &Lexed) -> Vec<usize> {
    let mut m = vec![usize::MAX; l.tokens.len()];
    let mut stack: Vec<(usize, u8)> = Vec::new();
    for (i, t) in l.tokens.iter().enumerate() {
        if t.kind != Tok::Punct || t.in_directive() {
            continue;
        }
        let c = match t.text(src) {
            [c] => *c,
            _ => continue,
        };
        let open = match c {
            b'(' | b'[' | b'{' => {
                stack.push((i, c));
                continue;
            }
            b')' => b'(',
            b']' => b'[',
            b'}' => b'{',
            _ => continue,
        };
        if let Some(k) = stack.iter().rposition(|&(_, o)| o == open) {
            m[stack[k].0] = i;
            stack.truncate(k);
        }
    }
    m
}

/// Returns the rewritten buffer, the number of launches rewritten, and conflicts.
pub(super) fn rewrite(src: &[u8]) -> (Vec<u8>, u32, usize) {
    if memchr::memmem::find(src, b"<<<").is_none() {
        return (src.to_vec(), 0, 0);
    }
    let l = lex(src);
    let matches = bracket_matches(src, &l);
    // Directive tokens before each token: "a preprocessor line inside this launch" in O(1).
    let mut directives = Vec::with_capacity(l.tokens.len() + 1);
    let mut n_dir = 0u32;
    directives.push(0);
    for t in &l.tokens {
        n_dir += u32::from(t.in_directive());
        directives.push(n_dir);
    }
    let mut edits = Vec::new();
    let mut n = 0u32;
    let mut i = 0;
    while i < l.tokens.len() {
        if is_triple(src, &l, i, b'<') {
            if let Some((head, tail, next)) = launch_at(src, &l, &matches, &directives, i) {
                edits.push(head);
                edits.extend(tail);
                n += 1;
                i = next;
                continue;
            }
        }
        i += 1;
    }
    if n == 0 {
        return (src.to_vec(), 0, 0);
    }
    let applied = apply(src, &edits);
    (applied.output, n, applied.conflicts.len())
}

/// The source text of tokens `a..b` (comments included), trimmed; a trailing `//` comment keeps
/// a newline after it so that nothing appended later ends up inside the comment.
fn piece(src: &[u8], l: &Lexed, a: usize, b: usize) -> String {
    if a >= b {
        return String::new();
    }
    let s = l.tokens[a].start as usize;
    let e = l.tokens[b - 1].end as usize;
    let mut out = String::from_utf8_lossy(&src[s..e]).trim().to_string();
    if ends_in_line_comment(src, l, b - 1) {
        out.push('\n');
    }
    out
}

fn ends_in_line_comment(src: &[u8], l: &Lexed, i: usize) -> bool {
    l.tokens[i].kind == Tok::Comment && text(src, l, i).starts_with(b"//")
}

/// Whether tokens `a..b` hold any code (not only comments).
fn has_code(l: &Lexed, a: usize, b: usize) -> bool {
    l.tokens[a..b].iter().any(|t| t.kind != Tok::Comment)
}

/// Whether tokens `a..b` are exactly `dim3(…)` (comments around allowed).
fn is_dim3_call(src: &[u8], l: &Lexed, matches: &[usize], a: usize, b: usize) -> bool {
    let code: Vec<usize> = (a..b)
        .filter(|&i| l.tokens[i].kind != Tok::Comment)
        .take(2)
        .collect();
    let [name, open] = code[..] else {
        return false;
    };
    let last = (a..b).rev().find(|&i| l.tokens[i].kind != Tok::Comment);
    text(src, l, name) == b"dim3"
        && matches!(text(src, l, open), b"(" | b"{")
        && last.is_some_and(|z| matches[open] == z)
}

/// The edits of the launch whose `<<<` is token `open`: the head (`k<<<…>>>(` →
/// `hipLaunchKernelGGL(k, …, `) and, when needed, the blank before its `)`; and the token to
/// go on from. The arguments stay where they are, so a launch inside them is found and
/// rewritten in the same run (the output is then already final: a second run changes nothing).
fn launch_at(
    src: &[u8],
    l: &Lexed,
    matches: &[usize],
    directives: &[u32],
    open: usize,
) -> Option<(Edit, Option<Edit>, usize)> {
    if l.tokens[open].in_directive() {
        return None;
    }
    let crate::model::launch::Launch {
        name_start,
        templated,
        config,
        close,
        ..
    } = crate::model::launch::at(src, l, open)?;
    let paren = l.next_code(close + 2)?;
    if text(src, l, paren) != b"(" {
        return None;
    }
    let m = *matches.get(paren)?;
    if m == usize::MAX {
        return None;
    }
    // A preprocessor line anywhere in the launch: moving pieces into a macro call would change
    // what the preprocessor sees. Leave the launch as it is.
    if directives[m + 1] != directives[name_start] {
        return None;
    }
    let name = piece(src, l, name_start, open);
    let kernel = if templated {
        format!("HIP_KERNEL_NAME({name})")
    } else {
        name
    };
    if config.len() < 2 || config.len() > 4 || config.iter().any(|&(a, b)| !has_code(l, a, b)) {
        return None;
    }
    let dim = |&(a, b): &(usize, usize)| {
        let p = piece(src, l, a, b);
        if is_dim3_call(src, l, matches, a, b) {
            p
        } else {
            format!("dim3({p})")
        }
    };
    let grid = dim(&config[0]);
    let block = dim(&config[1]);
    let cfg = |i: usize| {
        config
            .get(i)
            .map(|&(a, b)| piece(src, l, a, b))
            .unwrap_or_else(|| "0".into())
    };
    let (shmem, stream) = (cfg(2), cfg(3));
    let mut out = format!("hipLaunchKernelGGL({kernel}, {grid}, {block}, {shmem}, {stream}");
    // Comments between `>>>` and `(` follow the configuration.
    for c in close + 3..paren {
        out.push(' ');
        out.push_str(&piece(src, l, c, c + 1));
    }
    let start = l.tokens[name_start].start as usize;
    if paren + 1 == m {
        // No arguments: the head ends at `)`, which stays.
        return Some((
            Edit::replace(start, l.tokens[m].start as usize, out),
            None,
            m,
        ));
    }
    out.push_str(if has_code(l, paren + 1, m) { ", " } else { " " });
    // The arguments keep their text exactly (they may span lines and hold comments); blank
    // space before `)` goes unless it holds a line break (the `)` on a line of its own), and a
    // `//` comment there keeps a line break after it.
    let head = Edit::replace(start, l.tokens[paren + 1].start as usize, out);
    let gap_start = l.tokens[m - 1].end as usize;
    let gap = &src[gap_start..l.tokens[m].start as usize];
    let kept = gap
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    let tail = &gap[kept..];
    let tail_edit = if tail.contains(&b'\n') {
        None
    } else {
        let with = if ends_in_line_comment(src, l, m - 1) {
            "\n"
        } else {
            ""
        };
        (tail != with.as_bytes())
            .then(|| Edit::replace(gap_start + kept, gap_start + gap.len(), with))
    };
    Some((head, tail_edit, paren + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        String::from_utf8(rewrite(s.as_bytes()).0).unwrap()
    }

    #[test]
    fn rewrites_launches() {
        assert_eq!(
            r("k<<<g, b>>>(x, y);"),
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y);"
        );
        assert_eq!(
            r("ns::k<float, 4><<<dim3(2,2), 64, smem, s>>>(p);"),
            "hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::k<float, 4>), dim3(2,2), dim3(64), smem, s, p);"
        );
        assert_eq!(
            r("k<<<1,1>>>();"),
            "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0);"
        );
        // Shifts are not launches.
        assert_eq!(r("x = a << 3;"), "x = a << 3;");
    }

    #[test]
    fn launches_inside_arguments_are_rewritten_in_the_same_run() {
        // Found by `cargo xtask fuzz`: the inner launch was kept whole inside the outer one's
        // arguments and only rewritten by a second run.
        let once = r("k<<<1, 32>>>(a, {\n  q<<<g, b, 0, s>>>(\n    x, y);\n  z   );");
        assert_eq!(
            once,
            "hipLaunchKernelGGL(k, dim3(1), dim3(32), 0, 0, a, {\n  hipLaunchKernelGGL(q, dim3(g), dim3(b), 0, s, x, y);\n  z);"
        );
        assert_eq!(r(&once), once);
        let nested = r("k<<<1,1>>>(k<<<2,2>>>(k<<<3,3>>>( p )) );");
        assert_eq!(
            nested,
            "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, hipLaunchKernelGGL(k, dim3(2), dim3(2), 0, 0, hipLaunchKernelGGL(k, dim3(3), dim3(3), 0, 0, p)));"
        );
        assert_eq!(r(&nested), nested);
    }

    #[test]
    fn dim3_arguments_are_not_wrapped_twice() {
        assert_eq!(
            r("k<<<dim3(1), dim3{2, 2}, 0>>>(x);"),
            "hipLaunchKernelGGL(k, dim3(1), dim3{2, 2}, 0, 0, x);"
        );
        // `dim3(a) + b` is not one dim3 call: wrapped.
        assert_eq!(
            r("k<<<dim3(a).x * 2, b>>>(x);"),
            "hipLaunchKernelGGL(k, dim3(dim3(a).x * 2), dim3(b), 0, 0, x);"
        );
    }

    #[test]
    fn comments_never_swallow_code() {
        assert_eq!(
            r("k<<<g, b>>>(x, y // last\n);"),
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y // last\n);"
        );
        assert_eq!(
            r("k<<<g, b>>>(x, y // last\n   );"),
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y // last\n   );"
        );
        assert_eq!(
            r("k<<<g, b // blocks\n>>>(x);"),
            "hipLaunchKernelGGL(k, dim3(g), dim3(b // blocks\n), 0, 0, x);"
        );
        assert_eq!(
            r("k<<<g, b>>> /* note */ (x);"),
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0 /* note */, x);"
        );
        assert_eq!(
            r("k<<<g, b>>> // note\n  (x);"),
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0 // note\n, x);"
        );
        assert_eq!(
            r("k<<<g, b>>>(/* none */);"),
            "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0 /* none */);"
        );
    }

    #[test]
    fn preprocessor_lines_keep_the_launch() {
        let src = "k<<<g, b>>>(x,\n#ifdef USE_Y\n  y,\n#endif\n  z);\n";
        assert_eq!(r(src), src);
        let src = "k<<<g, b\n#if SMEM\n  , smem\n#endif\n>>>(x);\n";
        assert_eq!(r(src), src);
    }

    #[test]
    fn unterminated_launches_are_left_alone() {
        for src in [
            "k<<<g, b>>>(x;",
            "k<<<g, b(x);",
            "k<<<<<<<<<",
            "k<<<g,b>>>",
            "k<<<g>>>(x);",
        ] {
            assert_eq!(r(src), src);
        }
    }
}
