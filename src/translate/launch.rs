//! `--launch-syntax hip`: `k<<<g, b, s, st>>>(args)` → `hipLaunchKernelGGL(k, dim3(g), dim3(b),
//! s, st, args)`, with `HIP_KERNEL_NAME(…)` around template kernels and 0 for omitted shared
//! memory and stream. Runs on the already-renamed text, so the pieces it moves are translated.

use crate::edit::{apply, Edit};
use crate::lex::{lex, Lexed, Tok};

fn text<'a>(src: &'a [u8], l: &Lexed, i: usize) -> &'a [u8] {
    l.tokens[i].text(src)
}

fn is_triple(src: &[u8], l: &Lexed, i: usize, c: u8) -> bool {
    let t = &l.tokens;
    i + 2 < t.len()
        && (0..3).all(|k| t[i + k].kind == Tok::Punct && text(src, l, i + k) == [c])
        && t[i + 1].start == t[i].end
        && t[i + 2].start == t[i + 1].end
}

/// Returns the rewritten buffer, the number of launches rewritten, and conflicts.
pub(super) fn rewrite(src: &[u8]) -> (Vec<u8>, u32, usize) {
    let l = lex(src);
    let mut edits = Vec::new();
    let mut i = 0;
    while i < l.tokens.len() {
        if is_triple(src, &l, i, b'<') {
            if let Some((edit, next)) = launch_at(src, &l, i) {
                edits.push(edit);
                i = next;
                continue;
            }
        }
        i += 1;
    }
    let n = edits.len() as u32;
    if n == 0 {
        return (src.to_vec(), 0, 0);
    }
    let applied = apply(src, &edits);
    (applied.output, n, applied.conflicts.len())
}

fn launch_at(src: &[u8], l: &Lexed, open: usize) -> Option<(Edit, usize)> {
    // The kernel expression before `<<<`: `ns::name<T, N>`.
    let mut j = l.prev_code(open)?;
    let mut templated = false;
    if text(src, l, j) == b">" {
        let mut depth = 0;
        loop {
            match text(src, l, j) {
                b">" => depth += 1,
                b"<" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b";" | b"{" | b"}" => return None,
                _ => {}
            }
            j = l.prev_code(j)?;
        }
        templated = true;
        j = l.prev_code(j)?;
    }
    if l.tokens[j].kind != Tok::Ident {
        return None;
    }
    let mut name_start = j;
    while let Some(c) = l.prev_code(name_start) {
        if text(src, l, c) != b"::" {
            break;
        }
        match l.prev_code(c) {
            Some(q) if l.tokens[q].kind == Tok::Ident => name_start = q,
            _ => {
                name_start = c;
                break;
            }
        }
    }
    // Configuration between <<< and >>>, split at top-level commas.
    let mut k = open + 3;
    let mut depth = 0;
    let mut config: Vec<(usize, usize)> = Vec::new();
    let mut arg_start = k;
    loop {
        if k >= l.tokens.len() {
            return None;
        }
        if depth == 0 && is_triple(src, l, k, b'>') {
            config.push((arg_start, k));
            break;
        }
        match text(src, l, k) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => depth -= 1,
            b"," if depth == 0 => {
                config.push((arg_start, k));
                arg_start = k + 1;
            }
            b";" => return None,
            _ => {}
        }
        k += 1;
    }
    let close = k;
    let paren = l.next_code(close + 2)?;
    if text(src, l, paren) != b"(" {
        return None;
    }
    let mut depth = 0;
    let mut m = paren;
    loop {
        match text(src, l, m) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        m += 1;
        if m >= l.tokens.len() {
            return None;
        }
    }
    let span = |a: usize, b: usize| -> String {
        if a >= b {
            return String::new();
        }
        let s = l.tokens[a].start as usize;
        let e = l.tokens[b - 1].end as usize;
        String::from_utf8_lossy(&src[s..e]).trim().to_string()
    };
    let name = span(name_start, open);
    let kernel = if templated {
        format!("HIP_KERNEL_NAME({name})")
    } else {
        name
    };
    let cfg: Vec<String> = config.iter().map(|&(a, b)| span(a, b)).collect();
    if cfg.len() < 2 || cfg.len() > 4 || cfg.iter().any(|c| c.is_empty()) {
        return None;
    }
    let grid = format!("dim3({})", cfg[0]);
    let block = format!("dim3({})", cfg[1]);
    let shmem = cfg.get(2).cloned().unwrap_or_else(|| "0".into());
    let stream = cfg.get(3).cloned().unwrap_or_else(|| "0".into());
    let args_start = l.tokens[paren].end as usize;
    let args_end = l.tokens[m].start as usize;
    let args = &src[args_start..args_end];
    let mut out = format!("hipLaunchKernelGGL({kernel}, {grid}, {block}, {shmem}, {stream}");
    if !args.iter().all(|c| c.is_ascii_whitespace()) {
        out.push_str(", ");
        // Keep the argument text exactly (it may span lines).
        let trimmed = String::from_utf8_lossy(args);
        out.push_str(trimmed.trim_start());
        let trailing = out.len() - out.trim_end().len();
        out.truncate(out.len() - trailing);
    }
    out.push(')');
    let start = l.tokens[name_start].start as usize;
    let end = l.tokens[m].end as usize;
    Some((Edit::replace(start, end, out), m + 1))
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
            "hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::k<float, 4>), dim3(dim3(2,2)), dim3(64), smem, s, p);"
        );
        assert_eq!(
            r("k<<<1,1>>>();"),
            "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0);"
        );
        // Shifts are not launches.
        assert_eq!(r("x = a << 3;"), "x = a << 3;");
    }
}
