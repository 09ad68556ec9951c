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
    /// The functions (by opening brace) that use it through its alias.
    pub users: Vec<usize>,
}

/// The file's CUB warp primitives, judged against its functions.
pub(super) fn cubs(v: &View, fns: &[Function]) -> Vec<Cub> {
    let mut out = Vec::new();
    // Each alias's users, found in one pass once the aliases are known.
    let mut users_of: Option<HashMap<Vec<u8>, Vec<usize>>> = None;
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
            Some(a) => {
                let index = users_of.get_or_insert_with(|| alias_users(v, fns));
                index
                    .get(a)
                    .map(|u| u.iter().map(|&k| &fns[k]).collect())
                    .unwrap_or_default()
            }
            None => {
                let k = fns.partition_point(|f| f.close <= i);
                fns.get(k)
                    .filter(|f| f.open < i && i < f.close)
                    .into_iter()
                    .collect()
            }
        };
        let safe = (width.is_none()
            && !users.is_empty()
            && users.iter().all(|f| f.warp == Warp::Logical32))
        .then(|| users[0].why32.clone().unwrap_or_default());
        let users = users.iter().map(|f| f.open).collect();
        out.push(Cub {
            name: i,
            close,
            alias,
            width,
            safe,
            users,
        });
    }
    out
}

/// For every name a `typedef`/`using` of a CUB warp primitive may declare, the functions (by
/// index) whose bodies name it: one pass over the bodies.
fn alias_users(v: &View, fns: &[Function]) -> HashMap<Vec<u8>, Vec<usize>> {
    let mut aliases: HashSet<&[u8]> = HashSet::new();
    for i in 0..v.lexed.tokens.len() {
        if !v.code(i) || !matches!(v.t(i), b"WarpReduce" | b"WarpScan") {
            continue;
        }
        // `typedef … WR;`: the identifier before the `;`.
        let mut j = i;
        for _ in 0..128 {
            match v.next(j) {
                Some(n) if v.t(n) == b";" => {
                    if let Some(a) = v.prev(n).filter(|&a| v.lexed.tokens[a].kind == Tok::Ident) {
                        aliases.insert(v.t(a));
                    }
                    break;
                }
                Some(n) => j = n,
                None => break,
            }
        }
        // `using WR = …`: the identifier after `using`.
        let mut k = i;
        for _ in 0..6 {
            match v.prev(k) {
                Some(p) if v.t(p) == b"using" => {
                    if let Some(a) = v.next(p) {
                        aliases.insert(v.t(a));
                    }
                    break;
                }
                Some(p) => k = p,
                None => break,
            }
        }
    }
    let mut out: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    for (fi, f) in fns.iter().enumerate() {
        for k in f.open..f.close {
            if v.code(k) && v.lexed.tokens[k].kind == Tok::Ident && aliases.contains(v.t(k)) {
                let users = out.entry(v.t(k).to_vec()).or_default();
                if users.last() != Some(&fi) {
                    users.push(fi);
                }
            }
        }
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
        // In token order: found by binary search.
        let k = self.cubs.partition_point(|c| c.name < i);
        self.cubs
            .get(k)
            .filter(|c| c.name == i)
            .and_then(|c| c.safe.as_deref().map(|why| (c.close, why)))
    }

    /// Every width-32 rewrite of the file: (name token, `>` token, the users' evidence).
    pub(crate) fn cub_rewrites(&self) -> Vec<(usize, usize, &str)> {
        self.cubs
            .iter()
            .filter_map(|c| c.safe.as_deref().map(|why| (c.name, c.close, why)))
            .collect()
    }

    /// Whether token `j` names a CUB warp primitive that keeps CUDA's meaning (its alias, or
    /// its own name where it is written out): one warp-level use for [`Self::handled`].
    pub(super) fn cub_counts(&self, v: &View, j: usize) -> bool {
        let ok = self.cub_ok.get_or_init(|| CubOk::of(&self.cubs, &self.fns));
        ok.names.contains(&j) || ok.aliases.contains(v.t(j))
    }

    /// Whether token `j` (in a function body) is CUB warp-level work that keeps CUDA's meaning
    /// on 64-lane wavefronts: an alias of a primitive the translator gives width 32 (or that
    /// has width 32 already), or a method called on one in a function that uses such an alias.
    pub(super) fn cub_handled(&self, v: &View, j: usize, f: &Function) -> bool {
        let ok = self.cub_ok.get_or_init(|| CubOk::of(&self.cubs, &self.fns));
        let t = v.t(j);
        if ok.aliases.contains(t) {
            return true;
        }
        let method = v.prev(j).is_some_and(|p| matches!(v.t(p), b"." | b"->"))
            && METHODS.iter().any(|m| m.as_bytes() == t);
        method && ok.functions.contains(&f.open)
    }
}

/// The CUB warp primitives that keep CUDA's meaning (given width 32, or written with it), as
/// the handled-work questions look them up: their name tokens, their aliases, and the
/// functions (by opening brace) that use them.
#[derive(Debug, Default)]
pub(super) struct CubOk {
    names: HashSet<usize>,
    aliases: HashSet<Vec<u8>>,
    functions: HashSet<usize>,
}

impl CubOk {
    fn of(cubs: &[Cub], fns: &[Function]) -> CubOk {
        let mut out = CubOk::default();
        for c in cubs
            .iter()
            .filter(|c| c.safe.is_some() || c.width == Some(Some(32)))
        {
            out.names.insert(c.name);
            if let Some(a) = &c.alias {
                out.aliases.insert(a.clone());
            }
            out.functions.extend(c.users.iter().copied());
            let k = fns.partition_point(|f| f.close <= c.name);
            if let Some(f) = fns.get(k).filter(|f| f.open < c.name && c.name < f.close) {
                out.functions.insert(f.open);
            }
        }
        out
    }
}
