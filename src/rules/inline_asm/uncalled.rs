//! HP201 on PTX in device helpers nothing calls: the device compiler never generates an
//! uncalled function, so its PTX does not stop the build.

use super::{INLINE_PTX, IN_FUNCTION};
use crate::finding::Finding;

/// HP201 on PTX inside a device helper that no source of the project calls (ethminer's
/// `cuda_helper.h`: dozens of rotate and shift variants, most never used): the device compiler
/// never generates an uncalled function, so that PTX does not stop the build; deleting or
/// porting the helper is for when something calls it. `sources` are the project's C/C++/CUDA
/// files. A name used anywhere but its own definitions (a call, a pointer taken, a macro) keeps
/// the finding open.
pub fn settle_uncalled(findings: &mut [Finding], sources: &[(&str, &[u8])]) {
    let name_of = |f: &Finding| -> Option<String> {
        let at = f.message.find(IN_FUNCTION)? + IN_FUNCTION.len();
        let rest = &f.message[at..];
        Some(rest[..rest.find('`')?].to_string())
    };
    let names: std::collections::BTreeSet<String> = findings
        .iter()
        .filter(|f| f.rule == INLINE_PTX.id.code && f.status != crate::gate::Status::Pass)
        .filter_map(name_of)
        .filter(|n| !n.contains("::") && !n.is_empty())
        .collect();
    if names.is_empty() {
        return;
    }
    let seeing = Seeing::of(sources);
    let mut used: std::collections::BTreeMap<(String, String), bool> = Default::default();
    for f in findings.iter_mut() {
        if f.rule != INLINE_PTX.id.code || f.status == crate::gate::Status::Pass {
            continue;
        }
        let Some(n) = name_of(f).filter(|n| names.contains(n)) else {
            continue;
        };
        let key = (n.clone(), f.path.clone());
        let called = *used.entry(key).or_insert_with(|| {
            let visible = seeing.files_seeing(&f.path);
            let scope: Vec<(&str, &[u8])> = sources
                .iter()
                .filter(|(p, _)| visible.as_ref().is_none_or(|v| v.contains(p)))
                .copied()
                .collect();
            Liveness::new(&scope).live(&n)
        });
        if !called {
            f.settle(&format!(
                " — `{n}` is called nowhere in the project's sources that include `{}` (nor by a device function something calls), so the device compiler never generates it: nothing stops the build here (port or delete the helper when something calls it)",
                f.path
            ));
        }
    }
}

/// Which of the project's sources share a translation unit with a file: those that include
/// it (directly or through other headers) and every file those include, since a header can
/// call what an earlier include of the same unit declared (SpargeAttn's `attn_utils.cuh` calls
/// `math.cuh`'s helpers without including it). Include lines are read from each source's text.
struct Seeing<'a> {
    /// File → the project files that include it directly.
    includers: std::collections::BTreeMap<String, Vec<&'a str>>,
    /// File → the project files it includes directly.
    includes: std::collections::BTreeMap<&'a str, Vec<String>>,
}

impl<'a> Seeing<'a> {
    fn of(sources: &[(&'a str, &[u8])]) -> Seeing<'a> {
        use crate::model::includes;
        let known: std::collections::BTreeSet<&str> = sources.iter().map(|(p, _)| *p).collect();
        let roots = includes::roots(known.iter().copied());
        let exists = |p: &str| known.contains(p);
        let mut includers: std::collections::BTreeMap<String, Vec<&'a str>> = Default::default();
        let mut forward: std::collections::BTreeMap<&'a str, Vec<String>> = Default::default();
        for (rel, text) in sources {
            for inc in includes::written_in_text(text) {
                if let Some(to) = includes::resolve(rel, &inc, &roots, &exists) {
                    includers.entry(to.clone()).or_default().push(rel);
                    forward.entry(rel).or_default().push(to);
                }
            }
        }
        Seeing {
            includers,
            includes: forward,
        }
    }

    /// The files of the translation units that include `path` (itself among them), or `None`
    /// when nothing includes it: a header reached by paths this reading does not resolve may
    /// be seen by any source.
    fn files_seeing<'s>(&'s self, path: &'s str) -> Option<std::collections::BTreeSet<&'s str>> {
        self.includers.get(path)?;
        let mut above: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        let mut stack = vec![path];
        while let Some(f) = stack.pop() {
            if above.insert(f) {
                if let Some(by) = self.includers.get(f) {
                    stack.extend(by.iter().copied());
                }
            }
        }
        let mut seen = above.clone();
        let mut stack: Vec<&str> = above.into_iter().collect();
        while let Some(f) = stack.pop() {
            for to in self.includes.get(f).into_iter().flatten() {
                if seen.insert(to.as_str()) {
                    stack.push(to.as_str());
                }
            }
        }
        Some(seen)
    }
}

/// Whether a device function is generated: some use of its name in `sources` is live. A use
/// inside the body of another `__device__` function (not a kernel) counts only when that
/// function is itself live: simd_functions-style headers (astro-accelerate's) define
/// `vmaxs4` with `vcmpges4`, and nothing calls either, so neither is generated. A use outside
/// any function body (a macro, an initializer), in a kernel, or in a function whose head does
/// not say `__device__` (host code, a macro-decorated head) is live. Recursion is no use.
struct Liveness<'s> {
    sources: &'s [(&'s str, &'s [u8])],
    /// Each source's function bodies, read when a use lands in it.
    bodies: std::cell::RefCell<std::collections::BTreeMap<usize, Vec<Body>>>,
    /// Functions decided, and those being decided (`false` while in progress: a cycle of
    /// helpers calling each other and nothing else is not live).
    known: std::cell::RefCell<std::collections::BTreeMap<String, bool>>,
}

/// A function body's bytes, its function's name, and whether it is a device helper
/// (`__device__` in its head, not `__global__`).
struct Body {
    span: std::ops::Range<usize>,
    name: String,
    device_helper: bool,
}

impl<'s> Liveness<'s> {
    fn new(sources: &'s [(&'s str, &'s [u8])]) -> Self {
        Liveness {
            sources,
            bodies: Default::default(),
            known: Default::default(),
        }
    }

    fn live(&self, name: &str) -> bool {
        if let Some(&k) = self.known.borrow().get(name) {
            return k;
        }
        self.known.borrow_mut().insert(name.to_string(), false);
        let mut live = false;
        'files: for (i, (_, text)) in self.sources.iter().enumerate() {
            for at in uses(name, text) {
                match self.device_function_around(i, at) {
                    None => live = true,
                    Some(m) if m == name => continue,
                    Some(m) => live = self.live(&m),
                }
                if live {
                    break 'files;
                }
            }
        }
        self.known.borrow_mut().insert(name.to_string(), live);
        live
    }

    /// The name of the device helper whose body (the innermost function body around the use)
    /// holds byte `at` of source `i`, or `None` when the use is anywhere else.
    fn device_function_around(&self, i: usize, at: usize) -> Option<String> {
        let mut bodies = self.bodies.borrow_mut();
        let bodies = bodies
            .entry(i)
            .or_insert_with(|| function_bodies(self.sources[i].1));
        let inner = bodies
            .iter()
            .filter(|b| b.span.contains(&at))
            .min_by_key(|b| b.span.len())?;
        inner.device_helper.then(|| inner.name.clone())
    }
}

/// The function bodies of a source, read from its code tokens.
fn function_bodies(text: &[u8]) -> Vec<Body> {
    use crate::model::token_fns::{Block, Code};
    let lexed = crate::lex::lex(text);
    let code = Code::of(text, &lexed);
    let byte = |k: usize| lexed.tokens[code.toks[k]].start as usize;
    let mut out = Vec::new();
    for k in 0..code.toks.len() {
        if code.t(k) != b"{" {
            continue;
        }
        let (Block::Function(name), Some(close)) = (code.block(k), code.close(k)) else {
            continue;
        };
        let head: Vec<&[u8]> = (0..name)
            .rev()
            .take_while(|&j| !matches!(code.t(j), b";" | b"{" | b"}"))
            .map(|j| code.t(j))
            .collect();
        out.push(Body {
            span: byte(k)..byte(close),
            name: String::from_utf8_lossy(code.t(name)).into_owned(),
            device_helper: head.contains(&&b"__device__"[..])
                && !head.contains(&&b"__global__"[..]),
        });
    }
    out
}

/// Where `name` occurs in `text` other than where a function of that name is defined or
/// declared (a return type or a qualifier right before it), or in a comment.
fn uses(name: &str, text: &[u8]) -> Vec<usize> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    {
        let n = name.as_bytes();
        let mut from = 0;
        while let Some(p) = memchr::memmem::find(&text[from..], n) {
            let at = from + p;
            from = at + n.len();
            if at > 0 && word(text[at - 1]) || text.get(at + n.len()).is_some_and(|&b| word(b)) {
                continue;
            }
            // A call commented out (`// qk_dot_simple(q, k);`) calls nothing.
            if in_comment(text, at) {
                continue;
            }
            // The word before it: a type (a definition or declaration) or nothing that makes
            // this a use.
            let before = &text[..at];
            let trimmed = before.trim_ascii_end();
            let prev_end = trimmed.len();
            let prev_start = trimmed.iter().rposition(|&b| !word(b)).map_or(0, |i| i + 1);
            let prev = &trimmed[prev_start..prev_end];
            let last = trimmed.last().copied();
            // `U32& f()` declares; `mask & f()` and `__popc(b & f())` use: after `*`/`&`, a
            // declaration is a statement with no `=` and no open `(` before the name.
            let expression = || {
                let from = trimmed
                    .iter()
                    .rposition(|&b| matches!(b, b';' | b'{' | b'}'))
                    .map_or(0, |i| i + 1);
                trimmed[from..]
                    .iter()
                    .any(|&b| matches!(b, b'=' | b'(' | b'['))
            };
            let declared = (!prev.is_empty()
                && !matches!(prev, b"return" | b"case" | b"else" | b"do" | b"define"))
                || (matches!(last, Some(b'*') | Some(b'&')) && !expression());
            if !declared {
                out.push(at);
            }
        }
    }
    out
}

/// Whether byte `at` of `text` is inside a comment: after `//` on its line, or after a `/*`
/// not closed before it. Quotes are not tracked (a `//` inside a string on the line counts as
/// a comment): the cost is a missed use, which leaves a finding open.
fn in_comment(text: &[u8], at: usize) -> bool {
    let before = &text[..at];
    let line = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    if memchr::memmem::find(&before[line..], b"//").is_some() {
        return true;
    }
    match memchr::memmem::rfind(before, b"/*") {
        Some(open) => memchr::memmem::find(&before[open..], b"*/").is_none(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings_at;

    /// ethminer's `cuda_helper.h`: a shift helper nothing calls does not stop the build; twins:
    /// the same helper called from a kernel in another file, and PTX with a 64-bit register
    /// operand (`"l"`), which hipcc rejects even in an uncalled function.
    #[test]
    fn ptx_in_helpers_nothing_calls_does_not_stop_the_build() {
        let helper = "__device__ __forceinline__ unsigned shl_t32(unsigned x, unsigned n) {\n  unsigned r;\n  asm(\"shl.b32 %0,%1,%2;\" : \"=r\"(r) : \"r\"(x), \"r\"(n));\n  return r;\n}\n__device__ __forceinline__ unsigned long long swab(unsigned long long x) {\n  unsigned long long r;\n  asm(\"mov.b64 %0,%1;\" : \"=l\"(r) : \"l\"(x));\n  return r;\n}\n";
        let kernel = "#include \"helper.cuh\"\n__global__ void k(unsigned* o) { unsigned l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); o[0] = l; }\n";
        let mut fs = hazard_findings_at("helper.cuh", helper);
        fs.retain(|f| f.rule == "HP201");
        assert_eq!(fs.len(), 2, "{fs:?}");
        let sources = [
            ("helper.cuh", helper.as_bytes()),
            ("k.cu", kernel.as_bytes()),
        ];
        super::settle_uncalled(&mut fs, &sources);
        assert_eq!(fs[0].status, Status::Pass, "{}", fs[0].message);
        assert_ne!(
            fs[1].status,
            Status::Pass,
            "`l` operands fail even uncalled"
        );
        // A kernel nothing in the project launches is still compiled.
        let mut ks = hazard_findings_at("k.cu", kernel);
        ks.retain(|f| f.rule == "HP201");
        assert_eq!(ks.len(), 1);
        super::settle_uncalled(&mut ks, &sources);
        assert_ne!(ks[0].status, Status::Pass);
        let calls = "#include \"helper.cuh\"\n__global__ void k(unsigned* o) { o[0] = shl_t32(o[1], 3); }\n";
        let mut fs = hazard_findings_at("helper.cuh", helper);
        fs.retain(|f| f.rule == "HP201");
        let sources = [
            ("helper.cuh", helper.as_bytes()),
            ("k.cu", calls.as_bytes()),
        ];
        super::settle_uncalled(&mut fs, &sources);
        assert!(fs.iter().all(|f| f.status != Status::Pass));
        // nvdiffrast's `getLaneMaskLt()`, used only after `&` (`__popc(m & getLaneMaskLt())`),
        // is called; twin: a helper returning a reference is still only declared.
        let lane = "__device__ __inline__ unsigned getLaneMaskLt(void) { unsigned r; asm(\"mov.u32 %0, %lanemask_lt;\" : \"=r\"(r)); return r; }\n";
        for (user, called) in [
            ("__global__ void k(unsigned* o, unsigned m) { o[0] = __popc(m & getLaneMaskLt()); }\n", true),
            ("__global__ void k(unsigned* o, unsigned m) { unsigned i = m & getLaneMaskLt(); o[0] = i; }\n", true),
            ("__device__ unsigned& getLaneMaskLt(void);\n", false),
        ] {
            let mut fs = hazard_findings_at("util.inl", lane);
            fs.retain(|f| f.rule == "HP201");
            assert_eq!(fs.len(), 1, "{fs:?}");
            let sources = [("util.inl", lane.as_bytes()), ("k.cu", user.as_bytes())];
            super::settle_uncalled(&mut fs, &sources);
            assert_eq!(fs[0].status != Status::Pass, called, "{user}: {}", fs[0].message);
        }
    }

    /// omniserve's two copies of `qk_hmma_dot_simple`: the one in a header whose units never
    /// call it is uncalled, though another extension's copy of the name is called. Twins: a
    /// header of the same unit calls it without including it (SpargeAttn's `attn_utils.cuh`
    /// after `math.cuh`), and a header nothing includes is seen by every source.
    #[test]
    fn a_call_counts_only_in_the_units_that_include_the_helper() {
        let helper = "__device__ __forceinline__ unsigned shl_t32(unsigned x, unsigned n) {\n  unsigned r;\n  asm(\"shl.b32 %0,%1,%2;\" : \"=r\"(r) : \"r\"(x), \"r\"(n));\n  return r;\n}\n";
        let a_unit = "#include \"sel/helper.cuh\"\n__global__ void k(unsigned* o) { o[0] = 1; }\n";
        let other = "__device__ unsigned shl_t32(unsigned x, unsigned n) { return x << n; }\n__global__ void g(unsigned* o) { o[0] = shl_t32(o[1], 3); }\n";
        let co_unit = "#include \"sel/helper.cuh\"\n#include \"sel/user.cuh\"\n__global__ void k(unsigned* o) { o[0] = 1; }\n";
        let user = "__device__ unsigned twice(unsigned x) { return shl_t32(x, 1); }\n__global__ void g(unsigned* o) { o[0] = twice(o[1]); }\n";
        let orphan = [("sel/helper.cuh", helper), ("dense/k.cu", other)];
        for (files, called) in [
            (
                vec![
                    ("sel/helper.cuh", helper),
                    ("sel/k.cu", a_unit),
                    ("dense/k.cu", other),
                ],
                false,
            ),
            (
                vec![
                    ("sel/helper.cuh", helper),
                    ("sel/k.cu", co_unit),
                    ("sel/user.cuh", user),
                ],
                true,
            ),
            (orphan.to_vec(), true),
        ] {
            let mut fs = hazard_findings_at("sel/helper.cuh", helper);
            fs.retain(|f| f.rule == "HP201");
            let sources: Vec<(&str, &[u8])> =
                files.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
            super::settle_uncalled(&mut fs, &sources);
            assert_eq!(
                fs[0].status != Status::Pass,
                called,
                "{files:?}: {}",
                fs[0].message
            );
        }
    }

    /// astro-accelerate's `simd_functions.hpp`: `vmaxs4` calls `vcmpges4` (PTX) and nothing
    /// calls `vmaxs4`, so neither is generated. Twins: a kernel calls `vmaxs4`; a host
    /// function (no `__device__` in its head) calls it; two helpers calling only each other are
    /// not live.
    #[test]
    fn a_helper_called_only_by_uncalled_helpers_is_not_generated() {
        let helper = "static __device__ __forceinline__ unsigned vcmpges4(unsigned a, unsigned b) {\n  unsigned r;\n  asm(\"not.b32 %0,%1;\" : \"=r\"(r) : \"r\"(a));\n  return r;\n}\nstatic __device__ __forceinline__ unsigned vmaxs4(unsigned a, unsigned b) {\n  unsigned s = vcmpges4(a, b);\n  return (a & s) | (b & ~s);\n}\ntemplate <typename T> __device__ T ping(T x) { return x ? pong(x - 1) : vcmpges4(x, x); }\ntemplate <typename T> __device__ T pong(T x) { return ping(x); }\n";
        for (user, called) in [
            ("__global__ void k(unsigned* o) { o[0] = 1; }\n", false),
            (
                "__global__ void k(unsigned* o) { if (o[1]) { o[0] = vmaxs4(o[1], o[2]); } }\n",
                true,
            ),
            (
                "__global__ void k(unsigned* o) { o[0] = pong(o[1]); }\n",
                true,
            ),
            (
                "unsigned host_max(unsigned a) { return vmaxs4(a, a); }\n",
                true,
            ),
            ("#define MAX4(a, b) vmaxs4(a, b)\n", true),
        ] {
            let mut fs = hazard_findings_at("simd_functions.hpp", helper);
            fs.retain(|f| f.rule == "HP201");
            assert_eq!(fs.len(), 1, "{fs:?}");
            let sources = [
                ("simd_functions.hpp", helper.as_bytes()),
                ("k.cu", user.as_bytes()),
            ];
            super::settle_uncalled(&mut fs, &sources);
            assert_eq!(
                fs[0].status != Status::Pass,
                called,
                "{user}: {}",
                fs[0].message
            );
        }
    }

    /// omniserve's `qk_hmma_dot_simple`: its only calls are commented out, so nothing calls
    /// it; the twin: the same call live, after a comment on the line before.
    #[test]
    fn a_call_in_a_comment_calls_nothing() {
        let helper = "__device__ __forceinline__ unsigned shl_t32(unsigned x, unsigned n) {\n  unsigned r;\n  asm(\"shl.b32 %0,%1,%2;\" : \"=r\"(r) : \"r\"(x), \"r\"(n));\n  return r;\n}\n";
        for (user, called) in [
            ("__global__ void k(unsigned* o) {\n  // o[0] = shl_t32(o[1], 3);\n  /* o[1] = shl_t32(o[2], 1);\n  */ o[2] = 0;\n}\n", false),
            ("__global__ void k(unsigned* o) {\n  /* shifted */ // below\n  o[0] = shl_t32(o[1], 3);\n}\n", true),
        ] {
            let mut fs = hazard_findings_at("helper.cuh", helper);
            fs.retain(|f| f.rule == "HP201");
            let sources = [("helper.cuh", helper.as_bytes()), ("k.cu", user.as_bytes())];
            super::settle_uncalled(&mut fs, &sources);
            assert_eq!(fs[0].status != Status::Pass, called, "{user}: {}", fs[0].message);
        }
    }
}
