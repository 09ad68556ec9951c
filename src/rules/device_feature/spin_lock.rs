//! Spin locks that need independent thread scheduling. A lock taken by spinning on
//! `atomicCAS(lock, FREE, HELD)` (or `atomicExch(lock, HELD)`) until it succeeds, and released
//! by storing `FREE` back, works on NVIDIA GPUs from Volta on because every thread has its own
//! program counter: the lane that won runs its critical section while the lanes of its warp
//! that lost keep spinning. An AMD wavefront has one program counter: the lane that won leaves
//! the loop and waits, masked off, until the lanes still in the loop leave it too, and they wait
//! for a release it never reaches. The kernel hangs as soon as two lanes of one wavefront
//! contend (pre-Volta NVIDIA GPUs hung the same way: CUDA Programming Guide, "Independent
//! Thread Scheduling"; LLVM's OpenMP runtime takes its amdgcn locks from one lane for this
//! reason, reviews.llvm.org/D75546).
//!
//! The model: an acquire is a loop whose condition is the atomic, whose address and expected
//! value the loop does not change (a compare-and-swap retry loop that recomputes its expected
//! value, or a probe that moves to the next slot, is lock-free and not a lock), and that the
//! file releases by storing the expected value back at the same lock. Who runs it decides:
//! nothing is reported where one lane per wavefront takes the lock (`if (threadIdx.x == 0)`,
//! `if (lane == 0)`, an early `if (lane != 0) return;`, in the function or at every call the
//! file makes of it); REMEDIATION where every lane reaching a kernel's loop takes it, where a
//! call in the file does not guard it, or where the lock is a block's shared memory (only the
//! block's own threads contend, so lanes of one wavefront do) or the file says it relies on
//! independent thread scheduling; UNKNOWN for a lock helper whose callers lie in other files.

use crate::finding::Finding;
use crate::gate::Status;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, Src};
use tree_sitter::Node;

rule!(SPIN_LOCK_IN_WAVEFRONT, "HP716", DeviceFeature, Remediation, Runtime,
    summary: "A spin lock taken per thread in device code (`while (atomicCAS(lock, 0, 1) != 0);`, released by `atomicExch(lock, 0)`): it needs independent thread scheduling, which AMD wavefronts do not have. UNKNOWN for a lock helper whose callers are in other files; nothing where one lane per wavefront takes the lock.",
    why: "A lane that takes the lock leaves the spin loop and waits at its end for the wavefront's other lanes, which spin on the lock it holds and never releases: the kernel hangs when two lanes of one wavefront contend. NVIDIA GPUs run this from Volta on because each thread has its own program counter; AMD GPUs, like pre-Volta NVIDIA ones, do not.",
    bad: "__device__ void lock(int* m) { while (atomicCAS(m, 0, 1) != 0) {} }\n__device__ void unlock(int* m) { atomicExch(m, 0); }\n__global__ void k(int* m, float* x) { lock(m); x[0] += 1; unlock(m); }",
    good: "__global__ void k(int* m, float* x) {\n  bool done = false;\n  while (!done) {\n    if (atomicCAS(m, 0, 1) == 0) { x[0] += 1; __threadfence(); atomicExch(m, 0); done = true; }\n  }\n}",
    fix: "Run the critical section inside the loop, in the iteration that took the lock (the lanes that lost retry after it releases), or take the lock from one lane per wavefront and share the work with the others.",
    refs: ["https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#independent-thread-scheduling", "https://reviews.llvm.org/D75546"],
);

/// The atomics a lock is taken with.
const ACQUIRE: [&str; 6] = [
    "atomicCAS",
    "atomicCAS_block",
    "atomicCAS_system",
    "atomicExch",
    "atomicExch_block",
    "atomicExch_system",
];

pub fn check(s: &Src, out: &mut Vec<Finding>) {
    if s.tree.is_none() || !s.idents().any(|(_, n)| ACQUIRE.contains(&n)) {
        return;
    }
    let calls = s.of_kinds(&[K::CallExpression]);
    for call in &calls {
        let name = syntax::call_name(s, *call).unwrap_or("");
        if !ACQUIRE.contains(&name) || !s.in_device_code(*call) {
            continue;
        }
        let Some(lp) = spin_loop(s, *call) else {
            continue;
        };
        let Some((base, free)) = lock_of(s, *call, name, lp) else {
            continue;
        };
        if !released(s, &calls, lp, base, free) || one_lane(s, lp) {
            continue;
        }
        let Some(func) = s.enclosing_function(lp) else {
            continue;
        };
        let fname = syntax::function_name(s, func).unwrap_or("");
        let shown = if fname.is_empty() {
            "this function".to_string()
        } else {
            format!("`{fname}()`")
        };
        let line = |n: Node| s.line(n.start_byte()) + 1;
        let (status, who) = if syntax::qualified(s.bytes(), func, "__global__") {
            (
                Status::Remediation,
                format!("every lane of kernel `{fname}` that reaches it takes it"),
            )
        } else {
            let callers: Vec<Node> = calls
                .iter()
                .filter(|c| {
                    syntax::call_name(s, **c) == Some(fname)
                        && s.in_device_code(**c)
                        && !(func.start_byte() <= c.start_byte() && c.end_byte() <= func.end_byte())
                })
                .copied()
                .collect();
            let open: Vec<Node> = callers
                .iter()
                .filter(|c| !one_lane(s, **c))
                .copied()
                .collect();
            if let Some(c) = open.first() {
                (
                    Status::Remediation,
                    format!(
                        "{shown} is called by every lane that reaches line {}",
                        line(*c)
                    ),
                )
            } else if !callers.is_empty() {
                continue;
            } else if shared_lock(s, lp) {
                (Status::Remediation, format!("the lock {shown} takes is in shared memory, so the threads of one block, lanes of one wavefront among them, contend for it"))
            } else if says_its(s) {
                (
                    Status::Remediation,
                    "the file says its locks rely on independent thread scheduling".to_string(),
                )
            } else {
                (Status::Unknown, format!("{shown} is called from other files: check that its callers take it from one lane per wavefront"))
            }
        };
        let mut f = s.ctx.finding(
            &SPIN_LOCK_IN_WAVEFRONT,
            lp.byte_range().start..call.end_byte(),
            format!("spin lock on `{base}` (`{name}` {}): {who}; an AMD wavefront has no independent thread scheduling, so the lane holding the lock waits for the lanes spinning on it and the kernel hangs", free.shown()),
            Some("run the critical section inside the loop, in the iteration that took the lock, or take the lock from one lane per wavefront".into()),
        );
        f.status = status;
        out.push(f);
    }
}

/// The loop whose condition holds `call` (`while (…)`, `do … while (…)`, `for (; …;)`).
fn spin_loop<'a>(s: &Src<'a>, call: Node<'a>) -> Option<Node<'a>> {
    let mut n = call;
    for _ in 0..12 {
        let p = s.parent(n)?;
        match p.node_kind() {
            K::WhileStatement | K::DoStatement | K::ForStatement => {
                return (p.field(F::Condition).map(|c| c.id()) == Some(n.id())).then_some(p);
            }
            K::CompoundStatement
            | K::ExpressionStatement
            | K::FunctionDefinition
            | K::Declaration
            | K::ReturnStatement => return None,
            _ => n = p,
        }
    }
    None
}

/// The lock's base name and its free value, when the loop neither moves the address nor
/// changes the expected value (a lock-free retry loop does one or the other).
fn lock_of<'a>(
    s: &Src<'a>,
    call: Node<'a>,
    name: &str,
    lp: Node<'a>,
) -> Option<(&'a str, Free<'a>)> {
    let args = syntax::call_args(call);
    let changed = assigned(s, lp);
    let addr = args.first()?;
    let base = syntax::identifiers(s, *addr)
        .into_iter()
        .find(|n| *n != "this")?;
    if syntax::identifiers(s, *addr)
        .iter()
        .any(|n| changed.contains(n))
    {
        return None;
    }
    let free = if name.starts_with("atomicCAS") {
        let expected = args.get(1)?;
        if syntax::identifiers(s, *expected)
            .iter()
            .any(|n| changed.contains(n))
        {
            return None;
        }
        s.text(*expected)
    } else {
        // `while (atomicExch(l, 1) != 0)` / `== 1`: the other side of the comparison is the
        // free value when it differs from the value written.
        let cmp = s
            .parent(call)
            .filter(|p| p.node_kind() == K::BinaryExpression)?;
        let other = if cmp.field(F::Left).map(|x| x.id()) == Some(call.id()) {
            cmp.field(F::Right)?
        } else {
            cmp.field(F::Left)?
        };
        let held = s.text(*args.get(1)?);
        let op = cmp.field(F::Operator).map_or("", |o| s.text(o));
        match op {
            "!=" if s.text(other) != held => s.text(other),
            // `while (atomicExch(l, 1) == 1)`: free is any other value the file stores back.
            "==" if s.text(other) == held => return Some((base, Free::Not(held))),
            _ => return None,
        }
    };
    (!free.is_empty()).then_some((base, Free::Is(free)))
}

/// The value that frees a lock: the one the acquire expects (`atomicCAS(l, 0, 1)`), or any
/// value but the one it writes (`while (atomicExch(l, 1) == 1)`).
#[derive(Clone, Copy)]
enum Free<'a> {
    Is(&'a str),
    Not(&'a str),
}

impl Free<'_> {
    fn frees(&self, value: &str) -> bool {
        let norm = |t: &str| t.split_whitespace().collect::<String>();
        match self {
            Free::Is(v) => norm(v) == norm(value),
            Free::Not(v) => norm(v) != norm(value),
        }
    }
    fn shown(&self) -> String {
        match self {
            Free::Is(v) => format!("until it returns `{v}`"),
            Free::Not(v) => format!("while it returns `{v}`"),
        }
    }
}

/// Names the loop assigns or increments.
fn assigned<'a>(s: &Src<'a>, lp: Node<'a>) -> Vec<&'a str> {
    let mut v = Vec::new();
    for a in syntax::descendants(lp, K::AssignmentExpression) {
        if let Some(l) = a.field(F::Left) {
            v.extend(syntax::identifiers(s, l));
        }
    }
    for u in syntax::descendants(lp, K::UpdateExpression) {
        v.extend(syntax::identifiers(s, u));
    }
    v
}

/// Whether the file stores the free value back at the lock: `atomicExch(l, FREE)` or
/// `*l = FREE` / `l[i] = FREE`, outside the loop.
fn released(s: &Src, calls: &[Node], lp: Node, base: &str, free: Free) -> bool {
    let outside = |n: Node| n.end_byte() <= lp.start_byte() || n.start_byte() >= lp.end_byte();
    calls.iter().any(|c| {
        outside(*c) && syntax::call_name(s, *c).is_some_and(|n| n.starts_with("atomicExch")) && {
            let a = syntax::call_args(*c);
            a.len() == 2 && syntax::identifiers(s, a[0]).contains(&base) && free.frees(s.text(a[1]))
        }
    }) || s.tree.is_some_and(|t| {
        syntax::descendants(t.root_node(), K::AssignmentExpression)
            .into_iter()
            .any(|a| {
                outside(a)
                    && a.field(F::Operator).is_some_and(|o| s.text(o) == "=")
                    && a.field(F::Left).is_some_and(|l| {
                        matches!(l.node_kind(), K::PointerExpression | K::SubscriptExpression)
                            && syntax::identifiers(s, l).first() == Some(&base)
                    })
                    && a.field(F::Right).is_some_and(|r| free.frees(s.text(r)))
            })
    })
}

/// Whether one lane per wavefront runs `n`: an enclosing `if` whose condition picks one lane
/// (`threadIdx.x == 0`, `lane == 0`, `!lane`, `lane == leader`), or an earlier `if` in an
/// enclosing block that returns every other lane (`if (threadIdx.x != 0) return;`).
fn one_lane(s: &Src, n: Node) -> bool {
    let mut child = n;
    while let Some(p) = s.parent(child) {
        match p.node_kind() {
            K::FunctionDefinition => return false,
            K::IfStatement => {
                let in_then = p.field(F::Consequence).map(|c| c.id()) == Some(child.id());
                if in_then && p.field(F::Condition).is_some_and(|c| picks_one(s.text(c))) {
                    return true;
                }
            }
            K::CompoundStatement => {
                let mut c = p.walk();
                let exits_others = p
                    .named_children(&mut c)
                    .take_while(|x| x.end_byte() <= child.start_byte())
                    .any(|x| {
                        x.node_kind() == K::IfStatement
                            && x.field(F::Alternative).is_none()
                            && x.field(F::Consequence).is_some_and(|t| {
                                let t = s.text(t);
                                let t = t.trim_matches(|c: char| {
                                    c == '{' || c == '}' || c.is_whitespace()
                                });
                                t.starts_with("return")
                            })
                            && x.field(F::Condition)
                                .is_some_and(|c| drops_others(s.text(c)))
                    });
                if exits_others {
                    return true;
                }
            }
            _ => {}
        }
        child = p;
    }
    false
}

/// The condition's text without blanks and outer parentheses.
fn bare(t: &str) -> String {
    let mut t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    while t.starts_with('(') && t.ends_with(')') && balanced(&t[1..t.len() - 1]) {
        t = t[1..t.len() - 1].to_string();
    }
    t
}

fn balanced(t: &str) -> bool {
    let mut d = 0i32;
    for c in t.chars() {
        d += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if d < 0 {
            return false;
        }
    }
    d == 0
}

/// Whether an expression names a thread's or lane's index.
fn lane_ish(t: &str) -> bool {
    t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .any(|w| {
            let l = w.to_ascii_lowercase();
            w == "threadIdx"
                || l.contains("lane")
                || matches!(
                    l.as_str(),
                    "tid"
                        | "tx"
                        | "lid"
                        | "ltid"
                        | "thread_id"
                        | "threadid"
                        | "local_id"
                        | "thid"
                        | "t_id"
                )
                || l.starts_with("tid_")
        })
}

fn constant_ish(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_ascii_digit())
        || t.to_ascii_lowercase().contains("leader")
        || t.to_ascii_lowercase().contains("first")
}

/// `lane == 0`, `threadIdx.x % 32 == 0`, `!lane`, and conjunctions holding one of them.
fn picks_one(cond: &str) -> bool {
    let c = bare(cond);
    if c.contains("||") {
        return false;
    }
    c.split("&&").any(|part| {
        let part = bare(part);
        if let Some(rest) = part.strip_prefix('!') {
            return !rest.starts_with('=') && lane_ish(rest) && !rest.contains("==");
        }
        let Some((l, r)) = part.split_once("==") else {
            return false;
        };
        let (l, r) = (bare(l), bare(r));
        (lane_ish(&l) && constant_ish(&r)) || (lane_ish(&r) && constant_ish(&l))
    })
}

/// `lane != 0`, `threadIdx.x > 0`, `lane` (truthy), and disjunctions holding one of them.
fn drops_others(cond: &str) -> bool {
    let c = bare(cond);
    if c.contains("&&") {
        return false;
    }
    c.split("||").any(|part| {
        let part = bare(part);
        if let Some((l, r)) = part.split_once("!=") {
            let (l, r) = (bare(l), bare(r));
            return (lane_ish(&l) && constant_ish(&r)) || (lane_ish(&r) && constant_ish(&l));
        }
        if let Some((l, r)) = part.split_once('>') {
            let r = r.trim_start_matches('=');
            return lane_ish(&bare(l)) && matches!(bare(r).as_str(), "0" | "0u" | "0U");
        }
        part.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            && lane_ish(&part)
    })
}

/// Whether the lock lives in a block's shared memory: the struct or function around the loop
/// declares `__shared__` storage.
fn shared_lock(s: &Src, lp: Node) -> bool {
    let mut n = lp;
    while let Some(p) = s.parent(n) {
        if matches!(p.node_kind(), K::StructSpecifier | K::ClassSpecifier)
            && s.text(p).contains("__shared__")
        {
            return true;
        }
        n = p;
    }
    false
}

/// Whether the file says its code relies on independent thread scheduling (an `#error` for
/// pre-Volta GPUs, a comment).
fn says_its(s: &Src) -> bool {
    let t = String::from_utf8_lossy(s.bytes()).to_ascii_lowercase();
    t.contains("independent thread scheduling")
}

#[cfg(test)]
mod tests {
    fn fires(src: &str) -> Vec<u32> {
        crate::model::syntax::test_support::fires(src, "HP716")
    }
    /// Lines where HP716 is REMEDIATION (UNKNOWN is a question, not a change).
    fn open(src: &str) -> Vec<u32> {
        crate::model::syntax::test_support::hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP716" && f.status == crate::gate::Status::Remediation)
            .map(|f| f.line)
            .collect()
    }

    /// A global lock every lane of a grid-stride loop takes (as MNN's ScatterNd plugin does),
    /// with its twins: the critical section inside the loop, one lane per block taking it.
    #[test]
    fn per_lane_lock_in_a_kernel() {
        let src = "__device__ float acc;\n__global__ void k(int* m, const float* x, int n) {\n  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n    while (atomicCAS(m, 0, 1) != 0);\n    acc += x[i];\n    atomicExch(m, 0);\n  }\n}\n";
        assert_eq!(fires(src), [4]);
        let inside = "__global__ void k(int* m, float* x) {\n  bool done = false;\n  while (!done) {\n    if (atomicCAS(m, 0, 1) == 0) { x[0] += 1; atomicExch(m, 0); done = true; }\n  }\n}\n";
        assert!(fires(inside).is_empty());
        let one = src.replace("    while", "    if (threadIdx.x == 0) while");
        assert!(fires(&one).is_empty(), "one lane per block takes it");
        let early = src.replace(
            "  for (int i",
            "  if (threadIdx.x != 0) return;\n  for (int i",
        );
        assert!(fires(&early).is_empty(), "the other lanes returned");
    }

    /// Lock-free compare-and-swap loops are not locks: the classic double `atomicAdd`, a hash
    /// probe moving to the next slot, and a flag no one stores back.
    #[test]
    fn lock_free_loops_are_not_locks() {
        let cas_add = "__device__ double add(unsigned long long* a, double v) {\n  unsigned long long old = *a, assumed;\n  do { assumed = old; old = atomicCAS(a, assumed, __double_as_longlong(v + __longlong_as_double(assumed))); } while (assumed != old);\n  return old;\n}\n__global__ void k(unsigned long long* a) { add(a, 1.0); }\n";
        assert!(fires(cas_add).is_empty());
        let probe = "__global__ void k(int* t, int key, int cap) {\n  int slot = key % cap;\n  while (atomicCAS(&t[slot], -1, key) != -1) { slot = (slot + 1) % cap; }\n}\n";
        assert!(fires(probe).is_empty());
        let flag = "__global__ void k(int* f) {\n  while (atomicCAS(f, 1, 0) != 1) {}\n}\n";
        assert!(fires(flag).is_empty(), "no release: a flag, not a lock");
    }

    /// A lock helper (RXMesh's `ShmemMutex`, a struct over `__shared__` storage): REMEDIATION
    /// with no caller in the file; a global-memory helper with no caller in the file is
    /// UNKNOWN; guarded callers in the file clear it, an unguarded one makes it REMEDIATION.
    #[test]
    fn lock_helpers_are_judged_by_their_callers() {
        let shared = "struct M {\n  __device__ void alloc() { __shared__ int s[1]; m = s; }\n  __device__ void lock() {\n    while (::atomicCAS(m, 0, 1) != 0) { __threadfence(); }\n  }\n  __device__ void unlock() { ::atomicExch(m, 0); }\n  int* m;\n};\n";
        assert_eq!(open(shared), [4]);
        let global = shared.replace("__shared__ int s[1]; m = s;", "");
        assert_eq!(fires(&global), [4]);
        assert!(open(&global).is_empty(), "UNKNOWN: callers elsewhere");
        let guarded = format!("{global}__global__ void k(M mu) {{ if (threadIdx.x == 0) {{ mu.lock(); mu.unlock(); }} }}\n");
        assert!(fires(&guarded).is_empty());
        let every = format!("{global}__global__ void k(M mu) {{ mu.lock(); mu.unlock(); }}\n");
        assert_eq!(open(&every), [4]);
        // A host `lock()` of the same name (a `std::mutex`) is no caller of the device helper.
        let host = format!("{global}void h(std::mutex& m) {{ m.lock(); m.unlock(); }}\n");
        assert!(open(&host).is_empty(), "{:?}", open(&host));
        let exch = "__device__ void lock(int* l) { while (atomicExch(l, 1) != 0) {} }\n__device__ void unlock(int* l) { atomicExch(l, 0); }\n__global__ void k(int* l) { lock(l); unlock(l); }\n";
        assert_eq!(open(exch), [1]);
        // Test-and-set written `== 1`: any other value stored back frees it.
        let tas = exch.replace("!= 0", "== 1");
        assert_eq!(open(&tas), [1]);
        let never = tas.replace("atomicExch(l, 0)", "atomicExch(l, 1)");
        assert!(
            fires(&never).is_empty(),
            "nothing frees it: not a lock this model knows"
        );
    }
}
