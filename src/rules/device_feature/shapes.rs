//! Token shapes the device-feature rules ask about: a `this_grid()` used only for indices,
//! a libcu++ `cuda::` scope, and how many constraining arguments `__launch_bounds__` has.

use super::Src;

/// Whether `this_grid()` at token `i` only computes indices: `this_grid().thread_rank()` (or
/// `.size()`, `.num_threads()`, `.block_rank()`…), or a variable that holds it and is never
/// `.sync()`ed in the file. Only grid-wide synchronisation needs the co-resident grid that
/// differs on AMD; a global thread index does not.
pub(super) fn index_only_grid(s: &Src, i: usize) -> bool {
    const INDEX: [&str; 8] = [
        "thread_rank",
        "size",
        "num_threads",
        "block_rank",
        "num_blocks",
        "dim_blocks",
        "block_index",
        "group_dim",
    ];
    let name = s.tok(i);
    if name != "this_grid" {
        return false;
    }
    let lx = &s.lexed;
    let code = |j: Option<usize>| j.map_or("", |j| s.tok(j));
    // `this_grid ( )` then what follows the call.
    let Some(open) = lx.next_code(i) else {
        return false;
    };
    let Some(close) = lx.next_code(open) else {
        return false;
    };
    if s.tok(close) != ")" {
        return false;
    }
    let after = lx.next_code(close);
    if code(after) == "." {
        return INDEX.contains(&code(after.and_then(|a| lx.next_code(a))));
    }
    // `auto g = cg::this_grid();`: the variable before `=`, skipping the qualifiers.
    let mut k = lx.prev_code(i);
    while code(k) == "::" {
        // `ns ::`: skip the namespace (any alias) and its `::`.
        k = k
            .and_then(|k| lx.prev_code(k))
            .and_then(|k| lx.prev_code(k));
    }
    if code(k) != "=" {
        return false;
    }
    let var = code(k.and_then(|k| lx.prev_code(k)));
    if var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    // Never `var.sync()` (nor passed on: `f(var)` could sync it) in the file.
    !s.idents().any(|(j, t)| {
        t == var && j != k.and_then(|k| lx.prev_code(k)).unwrap_or(usize::MAX) && {
            let next = s.next_text(j);
            let prev = s.prev_text(j);
            (next == "." && code(lx.next_code(j).and_then(|d| lx.next_code(d))) == "sync")
                || prev == "("
                || prev == ","
        }
    })
}

/// `cuda::atomic_ref` / `cuda::std::atomic` at token `i`.
pub(super) fn libcu_scope(s: &Src, i: usize) -> bool {
    let Some(c) = s.lexed.prev_code(i) else {
        return false;
    };
    let Some(ns) = s.lexed.prev_code(c) else {
        return false;
    };
    matches!(s.tok(ns), "cuda" | "std")
        && s.tok(c) == "::"
        && (s.tok(ns) == "cuda"
            || s.lexed
                .prev_code(ns)
                .and_then(|k| s.lexed.prev_code(k))
                .is_some_and(|k| s.tok(k) == "cuda"))
}

/// How many arguments `__launch_bounds__(…)` at token `i` has that constrain anything: a
/// second argument of `1` (at least one block per SM in CUDA, one wave per EU in HIP) asks
/// nothing of either compiler and is not counted when it is the last.
pub(super) fn launch_bounds_args(s: &Src, i: usize) -> usize {
    let Some(open) = s.lexed.next_code(i) else {
        return 0;
    };
    let mut depth = 0;
    let mut n = 1;
    let mut k = open;
    // The tokens of the current argument (at depth 1), to recognise a literal `1`.
    let mut arg: Vec<&str> = Vec::new();
    loop {
        match s.tok(k) {
            "(" => {
                depth += 1;
                if depth > 1 {
                    arg.push("(");
                }
            }
            ")" => {
                depth -= 1;
                if depth == 0 {
                    let trivial = n == 2 && matches!(arg.as_slice(), ["1"] | ["1u"] | ["1U"]);
                    return if trivial { 1 } else { n };
                }
                arg.push(")");
            }
            "," if depth == 1 => {
                n += 1;
                arg.clear();
            }
            t => arg.push(t),
        }
        let Some(j) = s.lexed.next_code(k) else {
            return n;
        };
        k = j;
    }
}
