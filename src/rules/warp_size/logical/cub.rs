//! CUB's warp primitives in the logical-warp model. `cub::WarpReduce<T>` and `cub::WarpScan<T>`
//! default to the hardware warp (32 lanes on NVIDIA); hipCUB's default is the wavefront (64 on
//! CDNA). Where every function that uses the primitive (directly, or through its `typedef` /
//! `using` alias) works on 32-lane logical warps, giving the width 32 explicitly keeps CUDA's
//! meaning: each half of the wavefront reduces as one CUDA warp, with one `TempStorage` per
//! 32-lane group as the code already sizes it. That is a safe rewrite; anywhere else the width
//! is a person's choice (HP110 stays).

use super::*;

/// One use of `cub::WarpReduce<…>` / `cub::WarpScan<…>` (or `hipcub::`).
#[derive(Debug)]
pub(super) struct Cub {
    /// The token of `WarpReduce` / `WarpScan`.
    pub name: usize,
    /// The `>` closing its template arguments.
    pub close: usize,
    /// The alias a `typedef` or `using` gives it.
    pub alias: Option<Vec<u8>>,
    /// The explicit width (second template argument) where one is written: its value when
    /// it is a literal or a constant of the file.
    pub width: Option<Option<u64>>,
    /// For the default width: the 32-lane evidence of the functions using it, when every one
    /// of them (at least one) works on 32-lane logical warps.
    pub safe: Option<String>,
}

/// The file's CUB warp primitives, judged against its functions.
pub(super) fn cubs(v: &View, fns: &[Function]) -> Vec<Cub> {
    let mut out = Vec::new();
    for i in 0..v.lexed.tokens.len() {
        if !v.code(i) || !matches!(v.t(i), b"WarpReduce" | b"WarpScan") {
            continue;
        }
        let colons = v.prev(i).filter(|&c| v.t(c) == b"::");
        let ns = colons.and_then(|c| v.prev(c));
        if !ns.is_some_and(|n| matches!(v.t(n), b"cub" | b"hipcub")) {
            continue;
        }
        let Some(open) = v.next(i).filter(|&o| v.t(o) == b"<") else {
            continue;
        };
        // The closing `>` and the top-level commas before it.
        let (mut depth, mut j, mut close, mut commas) = (0i32, open, None, Vec::new());
        for _ in 0..128 {
            match v.t(j) {
                b"<" | b"(" | b"[" => depth += 1,
                b">" | b")" | b"]" => depth -= 1,
                b"," if depth == 1 => commas.push(j),
                b";" | b"{" => break,
                _ => {}
            }
            if depth == 0 {
                close = Some(j);
                break;
            }
            let Some(n) = v.next(j) else { break };
            j = n;
        }
        let Some(close) = close else { continue };
        let width = commas.first().map(|&c| {
            let a = v.next(c);
            let single = a
                .and_then(|a| v.next(a))
                .is_some_and(|b| b == close || v.t(b) == b",");
            if single {
                v.val(a)
            } else {
                None
            }
        });
        // `typedef cub::WarpReduce<float> WR;` or `using WR = cub::WarpReduce<float>;`.
        let before = ns.and_then(|n| v.prev(n));
        let before = before
            .filter(|&b| v.t(b) != b"typename")
            .or_else(|| before.and_then(|b| v.prev(b)));
        let alias = match before.map(|b| v.t(b)) {
            Some(b"typedef") => v
                .next(close)
                .filter(|&a| v.lexed.tokens[a].kind == Tok::Ident)
                .map(|a| v.t(a).to_vec()),
            Some(b"=") => before
                .and_then(|b| v.prev(b))
                .filter(|&a| v.lexed.tokens[a].kind == Tok::Ident)
                .filter(|&a| v.is(v.prev(a), "using"))
                .map(|a| v.t(a).to_vec()),
            _ => None,
        };
        let users: Vec<&Function> = match &alias {
            Some(a) => fns
                .iter()
                .filter(|f| (f.open..f.close).any(|k| v.code(k) && v.t(k) == a.as_slice()))
                .collect(),
            None => fns.iter().filter(|f| f.open < i && i < f.close).collect(),
        };
        let safe = (width.is_none()
            && !users.is_empty()
            && users.iter().all(|f| f.warp == Warp::Logical32))
        .then(|| users[0].why32.clone().unwrap_or_default());
        out.push(Cub {
            name: i,
            close,
            alias,
            width,
            safe,
        });
    }
    out
}

/// CUB warp-primitive methods (`WR(ts).Sum(v)`).
const METHODS: &[&str] = &[
    "Sum",
    "Reduce",
    "HeadSegmentedSum",
    "TailSegmentedSum",
    "HeadSegmentedReduce",
    "TailSegmentedReduce",
    "InclusiveSum",
    "ExclusiveSum",
    "InclusiveScan",
    "ExclusiveScan",
    "Scan",
    "Broadcast",
];

impl LogicalWarps {
    /// The width-32 rewrite of the CUB warp primitive named at token `i`: the `>` to insert
    /// `, 32` before, and the users' 32-lane evidence.
    pub(crate) fn cub_rewrite(&self, i: usize) -> Option<(usize, &str)> {
        self.cubs
            .iter()
            .find(|c| c.name == i)
            .and_then(|c| c.safe.as_deref().map(|why| (c.close, why)))
    }

    /// Whether token `j` names a CUB warp primitive that keeps CUDA's meaning (its alias, or
    /// its own name where it is written out): one warp-level use for [`Self::handled`].
    pub(super) fn cub_counts(&self, v: &View, j: usize) -> bool {
        let t = v.t(j);
        self.cubs.iter().any(|c| {
            (c.safe.is_some() || c.width == Some(Some(32)))
                && (c.name == j || c.alias.as_deref() == Some(t))
        })
    }

    /// Whether token `j` (in a function body) is CUB warp-level work that keeps CUDA's meaning
    /// on 64-lane wavefronts: an alias of a primitive the translator gives width 32 (or that
    /// has width 32 already), or a method called on one in a function that uses such an alias.
    pub(super) fn cub_handled(&self, v: &View, j: usize, f: &Function) -> bool {
        let ok = |c: &Cub| c.safe.is_some() || c.width == Some(Some(32));
        let t = v.t(j);
        if self
            .cubs
            .iter()
            .any(|c| ok(c) && c.alias.as_deref() == Some(t))
        {
            return true;
        }
        let method = v.prev(j).is_some_and(|p| matches!(v.t(p), b"." | b"->"))
            && METHODS.iter().any(|m| m.as_bytes() == t);
        method
            && self.cubs.iter().any(|c| {
                ok(c)
                    && ((f.open < c.name && c.name < f.close)
                        || c.alias
                            .as_deref()
                            .is_some_and(|a| (f.open..f.close).any(|k| v.code(k) && v.t(k) == a)))
            })
    }
}
