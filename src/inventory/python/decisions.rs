//! What the platform model ([`super::platform`]) settles in a Python file beyond "the ROCm build
//! skips this": capability thresholds and `torch.version.cuda` operands that decide nothing on
//! ROCm (PASS), arms the ROCm build takes that fail there (HP813, never a PASS), and the CUDA
//! toolkit location read in Python (HP852, one fact per file), and `setup.py` arms that
//! `CUDA_HOME` alone decides (HP835).

use super::super::{build, platform, py_capability, rocm_branch, version_check, Out};
use super::{dotted, has_ancestor, Flavor};
use crate::gate::Phase;
use crate::inventory::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// Applies the model's decisions to the file's findings and raises its own.
pub(super) fn judge(
    out: &mut Out,
    root: Node,
    src: &[u8],
    flavor: Flavor,
    model: &platform::Model,
) {
    let decisions = [
        version_check::TORCH_VERSION_CUDA.id.code,
        version_check::DEVICE_CAPABILITY_THRESHOLD.id.code,
    ];
    out.pass_within(model.moot_on_rocm(), &decisions, |by| {
        format!(" (decides nothing on ROCm: `{by}` settles the condition there)")
    });
    let settled = py_capability::settled_ranges(root, src);
    out.pass_within(
        &settled,
        &[version_check::DEVICE_CAPABILITY_THRESHOLD.id.code],
        |why| format!(" ({why})"),
    );
    // Skips every AMD GPU answers alike: the test runs (or not) on all of them, a check.
    out.check_within(
        &py_capability::amd_skip_ranges(root, src),
        version_check::DEVICE_CAPABILITY_THRESHOLD.id.code,
    );
    // Code paths every current GPU takes alike, where the choice needs nothing: in tests, and
    // guards that fail on old GPUs only.
    let test = py_capability::is_test_path(out.ctx.path);
    let paths = py_capability::settled_path_ranges(root, src, test);
    out.pass_within(
        &paths,
        &[version_check::DEVICE_CAPABILITY_THRESHOLD.id.code],
        |why| format!(" ({why})"),
    );
    // A threshold in an arm only the ROCm build runs is the project's own ROCm code comparing
    // the gfx version on purpose (FBGEMM's `elif torch.version.hip:` / `if
    // get_device_capability() < (9, 5):` choosing FNUZ FP8 before gfx950).
    out.pass_within(
        model.rocm_only(),
        &[version_check::DEVICE_CAPABILITY_THRESHOLD.id.code],
        |why| {
            format!(" (in an arm only the ROCm build runs, {why}: the project's own ROCm code, which compares the gfx version on purpose)")
        },
    );
    // A capability test kept in a name (`has_sm_8_0 = major >= 8`) that the ROCm build reads
    // nowhere it matters: every read is skipped there or moot (`SYSTEM == "cuda" and
    // has_sm_8_0`).
    let unread = py_capability::stored_tests_rocm_ignores(root, src, &|b| {
        model.rocm_skips(b).is_some()
            || model
                .moot_on_rocm()
                .iter()
                .chain(model.rocm_dead())
                .any(|(r, _)| r.contains(&b))
    });
    out.pass_within(
        &unread,
        &[version_check::DEVICE_CAPABILITY_THRESHOLD.id.code],
        |why| format!(" ({why})"),
    );
    // Other code paths every AMD GPU takes alike: a check, not a change.
    out.check_within(
        &py_capability::amd_settled_ranges(root, src, &paths),
        version_check::DEVICE_CAPABILITY_THRESHOLD.id.code,
    );
    cuda_home_reads(out, root, src, model);
    if flavor == Flavor::SetupPy {
        cuda_home_arms(out, root, src);
    }
    for f in model.rocm_failures() {
        let phase = match (f.module_level, flavor) {
            (true, Flavor::SetupPy) => Phase::Install,
            (true, Flavor::Module) => Phase::Import,
            (false, _) => Phase::Runtime,
        };
        let code = version_check::ROCM_ARM_FAILS.id.code;
        out.push(
            &version_check::ROCM_ARM_FAILS,
            f.range.clone(),
            format!(
                "`{}` holds on ROCm builds of PyTorch: on ROCm this arm {}",
                short(&f.test),
                f.what
            ),
            Some("accept ROCm in the test (torch.version.hip) or give ROCm its own arm".into()),
        );
        out.set_phase(code, f.range.clone(), phase);
    }
}

/// A condition's text on one line, cut short.
fn short(t: &str) -> String {
    let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

/// `CUDA_HOME` (or `CUDA_PATH`) used in Python where nothing guards it: `os.path.join(CUDA_HOME,
/// "include")`, `CUDA_HOME + "/bin"`, `os.environ["CUDA_HOME"]` (a KeyError when unset). On a
/// ROCm system without a CUDA toolkit it is None (unset), so the use raises. One fact per file
/// (HP852), raised at the first such use the ROCm build runs, else at the first (then PASS: only
/// CUDA code uses it). Guarded uses are how a project copes with either build and are not
/// counted: under a test of the name (`if CUDA_HOME is not None:`, `CUDA_HOME and ...`,
/// `... if CUDA_HOME else ...`, after `if CUDA_HOME is None: return`), inside `try:`, a
/// function parameter of that name, and `os.getenv("CUDA_HOME")` (None is an answer).
fn cuda_home_reads(out: &mut Out, root: Node, src: &[u8], model: &platform::Model) {
    const NAMES: &[&str] = &["CUDA_HOME", "CUDA_PATH"];
    let mut reads: Vec<Range<usize>> = Vec::new();
    ts::each(root, &mut |n| {
        let (read, name) = match n.node_kind() {
            K::Identifier => {
                let t = ts::text(n, src);
                let used = NAMES.contains(&t)
                    && !has_ancestor(n, K::ImportFromStatement, 3)
                    && !has_ancestor(n, K::ImportStatement, 3)
                    && n.parent().is_some_and(|p| {
                        matches!(p.node_kind(), K::ArgumentList | K::BinaryOperator)
                            || p.kind() == "interpolation"
                    });
                (used, t.to_string())
            }
            K::Subscript => match platform::predicate::env_read(n, src) {
                Some(k) if NAMES.contains(&k.as_str()) => (
                    n.parent().is_none_or(|p| {
                        !(p.node_kind() == K::Assignment && p.field(F::Left) == Some(n))
                    }),
                    k,
                ),
                _ => (false, String::new()),
            },
            _ => (false, String::new()),
        };
        if read && !guarded(n, &name, src) && !reads.iter().any(|r| r.contains(&n.start_byte())) {
            reads.push(n.byte_range());
        }
    });
    let Some(first) = reads
        .iter()
        .find(|r| model.rocm_skips(r.start).is_none())
        .or(reads.first())
        .cloned()
    else {
        return;
    };
    let what = out.text(first.clone()).to_string();
    out.push(
        &build::CUDA_INSTALL_PATH,
        first,
        format!(
            "reads the CUDA toolkit location (`{}`; {} read{} in this file, one fact): ROCm is found through ROCM_HOME/ROCM_PATH, and {}",
            short(&what),
            reads.len(),
            if reads.len() == 1 { "" } else { "s" },
            match env_default(root, src) {
                Some((name, dflt)) => format!(
                    "`{name}` defaults to `{dflt}` here: on a ROCm system without a CUDA toolkit the paths built from it name a folder that is not there"
                ),
                None => "CUDA_HOME is None on a ROCm system without a CUDA toolkit".to_string(),
            }
        ),
        Some("use torch.utils.cpp_extension.ROCM_HOME (or ROCM_PATH, default /opt/rocm) when torch.version.hip is set".into()),
    );
}

/// `CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")` (or `os.getenv`) at module
/// level: the name and its default, which the reads then see instead of None (warp-rnnt).
fn env_default(root: Node, src: &[u8]) -> Option<(String, String)> {
    ts::named_children(root).into_iter().find_map(|st| {
        let a = ts::named_children(st).into_iter().next()?;
        if a.node_kind() != K::Assignment {
            return None;
        }
        let name = ts::text(a.field(F::Left)?, src);
        let call = a.field(F::Right)?;
        if !matches!(name, "CUDA_HOME" | "CUDA_PATH") || call.node_kind() != K::Call {
            return None;
        }
        let f = dotted(call.field(F::Function)?, src)?;
        if !matches!(f.as_str(), "os.environ.get" | "os.getenv") {
            return None;
        }
        let args = ts::named_children(call.field(F::Arguments)?);
        let dflt = args.get(1).filter(|d| d.node_kind() == K::String)?;
        Some((name.to_string(), ts::text(*dflt, src).to_string()))
    })
}

/// Whether a use of `name` is guarded: an enclosing test that mentions it, a `try:`, a
/// parameter of that name, or an earlier `if` in an enclosing block that tests it and returns
/// (a `raise` there fails on ROCm: the use after it still counts).
fn guarded(n: Node, name: &str, src: &[u8]) -> bool {
    let mentions = |c: Option<Node>| c.is_some_and(|c| mentions_word(ts::text(c, src), name));
    let mut cur = n;
    while let Some(p) = cur.parent() {
        match p.node_kind() {
            K::IfStatement | K::ElifClause if mentions(p.field(F::Condition)) => return true,
            K::BooleanOperator if mentions(p.field(F::Left)) => return true,
            K::ConditionalExpression if mentions(ts::named_children(p).get(1).copied()) => {
                return true
            }
            K::TryStatement => return true,
            K::FunctionDefinition if mentions(p.child_by_field_name("parameters")) => return true,
            K::Block | K::Module => {
                let earlier_exit = ts::named_children(p)
                    .into_iter()
                    .take_while(|s| s.end_byte() <= cur.start_byte())
                    .any(|s| {
                        s.node_kind() == K::IfStatement
                            && mentions(s.field(F::Condition))
                            && s.field(F::Consequence).is_some_and(|b| {
                                ts::named_children(b).last().is_some_and(|l| {
                                    matches!(
                                        l.node_kind(),
                                        K::ReturnStatement
                                            | K::ContinueStatement
                                            | K::BreakStatement
                                    )
                                })
                            })
                    });
                if earlier_exit {
                    return true;
                }
            }
            _ => {}
        }
        cur = p;
    }
    false
}

/// `name` as a whole word in `text`.
fn mentions_word(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

/// `if torch.cuda.is_available() and CUDA_HOME is not None: <CUDA build> else: raise ...` in a
/// `setup.py`: an `if`/`elif` chain whose arm on the ROCm build is decided by PyTorch's
/// `CUDA_HOME` alone, which is None on a ROCm machine without a CUDA toolkit
/// ([`platform::predicate::rocm_with_cuda_toolkit`]). One finding (HP835) on the deciding
/// condition: INSTALL where the arm the ROCm build then takes raises or exits, else CORRECTNESS
/// naming what the arm it skips adds to the build (`CUDAExtension`, sources, macros); nothing
/// where that arm adds nothing to the build (`if CUDA_HOME is None: print(...)`). PASS where
/// the condition reads `CUDA_HOME` but the ROCm build takes the same arm with or without a
/// toolkit (`or ROCM_HOME is not None`, `or torch.version.hip`, `IS_HIP_EXTENSION`). A chain
/// with the project's own ROCm arm (`elif torch.version.hip:`) is the platform model's.
fn cuda_home_arms(out: &mut Out, root: Node, src: &[u8]) {
    let mut ifs = Vec::new();
    // Flags assigned from such a test (`WITH_CUDA = torch.cuda.is_available() and CUDA_HOME is
    // not None`, nicolas-chaulet/torch-points-kernels), each with the value that decides it.
    let mut flags: Vec<(String, Node)> = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() == K::IfStatement && ts::text(n, src).contains("CUDA_HOME") {
            ifs.push(n);
        }
        if n.node_kind() == K::Assignment {
            if let (Some(l), Some(r)) = (n.field(F::Left), n.field(F::Right)) {
                if l.node_kind() == K::Identifier
                    && ts::text(r, src).contains("CUDA_HOME")
                    && platform::predicate::reads_torch_cuda_home(r, src)
                {
                    flags.push((ts::text(l, src).to_string(), r));
                }
            }
        }
    });
    // A flag assigned once from the test: the `if FLAG:` statements it decides.
    let once = |name: &str| flags.iter().filter(|(n, _)| n == name).count() == 1;
    let mut flag_ifs = Vec::new();
    if !flags.is_empty() {
        ts::each(root, &mut |n| {
            if n.node_kind() != K::IfStatement {
                return;
            }
            let Some(c) = n.field(F::Condition) else {
                return;
            };
            if c.node_kind() != K::Identifier {
                return;
            }
            let name = ts::text(c, src);
            if let Some((_, value)) = flags.iter().find(|(f, _)| f == name && once(f)) {
                flag_ifs.push((n, *value));
            }
        });
    }
    for n in ifs {
        cuda_home_arm(out, n, src, None);
    }
    // One finding per flag, on its assignment (the first `if` it decides).
    let mut done: Vec<usize> = Vec::new();
    for (n, value) in flag_ifs {
        if !done.contains(&value.start_byte()) {
            done.push(value.start_byte());
            cuda_home_arm(out, n, src, Some(value));
        }
    }
}

/// The `if` chain `n`; `flag` is the value its first condition (a flag name) was assigned.
fn cuda_home_arm(out: &mut Out, n: Node, src: &[u8], flag: Option<Node>) {
    // Each arm: its condition (None for `else`) and body.
    let mut arms: Vec<(Option<Node>, Option<Node>)> =
        vec![(flag.or(n.field(F::Condition)), n.field(F::Consequence))];
    let mut cur = n.walk();
    for alt in n.fields(F::Alternative, &mut cur) {
        arms.push(match alt.node_kind() {
            K::ElifClause => (alt.field(F::Condition), alt.field(F::Consequence)),
            _ => (None, alt.field(F::Body)),
        });
    }
    let on_rocm = |c: Option<Node>, toolkit: bool| {
        c.map_or(Some(true), |c| {
            platform::predicate::rocm_with_cuda_toolkit(c, src, toolkit)
        })
    };
    let reads = |c: Option<Node>| {
        c.is_some_and(|c| {
            ts::text(c, src).contains("CUDA_HOME")
                && platform::predicate::reads_torch_cuda_home(c, src)
        })
    };
    let project_rocm_arm = |c: Option<Node>| {
        c.is_some_and(|c| {
            let v = platform::eval(c, src);
            v.names_platform && v.rocm == Some(true) && !reads(Some(c))
        })
    };
    if arms.iter().any(|(c, _)| project_rocm_arm(*c)) {
        return;
    }
    // The arms in order, as far as the ROCm build evaluates them.
    let mut settled: Option<Node> = None;
    // Every earlier arm is false on ROCm: the ROCm build surely reaches this one.
    let mut reached = true;
    for (i, (c, _)) in arms.iter().enumerate() {
        let (with, without) = (on_rocm(*c, true), on_rocm(*c, false));
        if reads(*c) && with != without {
            let c = c.expect("an arm that reads CUDA_HOME has a condition");
            decided_by_cuda_home(out, c, &arms, i, src);
            return;
        }
        if reads(*c) && settled.is_none() {
            settled = *c;
        }
        if without == Some(true) {
            // The arm the ROCm build takes: it must not fail there.
            if reached
                && arms[i]
                    .1
                    .is_some_and(|b| platform::failure_word(b, src).is_some())
            {
                return;
            }
            break;
        }
        reached &= without == Some(false);
    }
    if let Some(c) = settled {
        out.push(
            &rocm_branch::CUDA_HOME_ARM,
            c.byte_range(),
            format!(
                "`{}` reads CUDA_HOME, which is None on a ROCm machine without a CUDA toolkit, but the ROCm build takes the same arm either way",
                short(ts::text(c, src))
            ),
            None,
        );
        out.pass_within(
            &[(c.byte_range(), String::new())],
            &[rocm_branch::CUDA_HOME_ARM.id.code],
            |_| " (the condition accepts ROCm)".into(),
        );
    }
}

/// Arm `h` of `arms`, with condition `c`, is decided by `CUDA_HOME` on ROCm.
fn decided_by_cuda_home(
    out: &mut Out,
    c: Node,
    arms: &[(Option<Node>, Option<Node>)],
    h: usize,
    src: &[u8],
) {
    let val = |c: Option<Node>, toolkit: bool| {
        c.map_or(Some(true), |c| {
            platform::predicate::rocm_with_cuda_toolkit(c, src, toolkit)
        })
    };
    // The arm the ROCm build takes without a toolkit (None: not known; `arms.len()`: none),
    // and the arms it skips that a toolkit would let it take.
    let (taken, lost): (Option<usize>, Vec<usize>) = match val(Some(c), false) {
        Some(false) => {
            let mut taken = Some(arms.len());
            for (j, (cj, _)) in arms.iter().enumerate().skip(h + 1) {
                match val(*cj, false) {
                    Some(true) => {
                        taken = Some(j);
                        break;
                    }
                    Some(false) => {}
                    None => {
                        taken = None;
                        break;
                    }
                }
            }
            (taken, vec![h])
        }
        Some(true) => {
            let mut lost = Vec::new();
            for (k, (ck, _)) in arms.iter().enumerate().skip(h + 1) {
                let v = val(*ck, true);
                if v != Some(false) {
                    lost.push(k);
                }
                if v == Some(true) {
                    break;
                }
            }
            (Some(h), lost)
        }
        None => return,
    };
    let head = short(ts::text(c, src));
    let line = |b: usize| src[..b].iter().filter(|c| **c == b'\n').count() + 1;
    let fails = taken
        .and_then(|j| arms.get(j))
        .and_then(|(cj, b)| Some((cj, b.as_ref()?)))
        .and_then(|(cj, b)| Some((cj, *b, platform::failure_word(*b, src)?)));
    let suggestion = Some(
        "accept ROCm in the test: `(CUDA_HOME is not None or ROCM_HOME is not None)` or `torch.version.hip` (ROCM_HOME from torch.utils.cpp_extension)".to_string(),
    );
    let premise = "CUDA_HOME is None on a ROCm build of PyTorch without a CUDA toolkit (ROCM_HOME is set instead)";
    if let Some((cj, b, what)) = fails {
        let arm = match cj {
            Some(_) if taken == Some(h) => "this arm".to_string(),
            Some(cj) => format!("the arm `elif {}:`", short(ts::text(*cj, src))),
            None => format!("the `else` arm (line {})", line(b.start_byte())),
        };
        out.push(
            &rocm_branch::CUDA_HOME_ARM,
            c.byte_range(),
            format!("`{head}` is decided by CUDA_HOME: {premise}, so on ROCm {arm} {what} and the install fails"),
            suggestion,
        );
        out.set_phase(
            rocm_branch::CUDA_HOME_ARM.id.code,
            c.byte_range(),
            crate::gate::Phase::Install,
        );
        return;
    }
    let mut items = Items::default();
    for k in lost {
        if let Some(b) = arms[k].1 {
            build_items(b, src, &mut items);
        }
    }
    let mut parts: Vec<String> = Vec::new();
    for (what, names) in [
        ("", &items.extension),
        ("the sources ", &items.sources),
        ("the macros ", &items.macros),
    ] {
        if names.is_empty() {
            continue;
        }
        let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
        let more = if names.len() > shown.len() {
            ", …"
        } else {
            ""
        };
        parts.push(format!("{what}{}{more}", shown.join(", ")));
    }
    if parts.is_empty() {
        return;
    }
    out.push(
        &rocm_branch::CUDA_HOME_ARM,
        c.byte_range(),
        format!(
            "`{head}` is decided by CUDA_HOME: {premise}, so the ROCm build skips the CUDA arm and builds without {}: the extension is CPU-only there",
            parts.join("; ")
        ),
        suggestion,
    );
}

/// What an arm adds to a build (see [`build_items`]).
#[derive(Default)]
struct Items {
    extension: Vec<String>,
    sources: Vec<String>,
    macros: Vec<String>,
}

/// What an arm adds to the build: `CUDAExtension`, source files (string literals and the names
/// added to a list of sources: `sources += source_cuda`), macros (`("WITH_CUDA", None)`).
fn build_items(block: Node, src: &[u8], items: &mut Items) {
    let add = |to: &mut Vec<String>, s: &str| {
        if !to.iter().any(|x| x == s) {
            to.push(s.to_string());
        }
    };
    let sources_list = |n: Option<Node>| {
        n.is_some_and(|n| {
            let t = ts::text(n, src).to_ascii_lowercase();
            t.contains("source") || t.contains("src")
        })
    };
    ts::each(block, &mut |n| match n.node_kind() {
        K::Identifier | K::Attribute
            if ts::text(n, src).ends_with("CUDAExtension")
                && n.parent().is_none_or(|p| p.node_kind() != K::Attribute) =>
        {
            add(&mut items.extension, "CUDAExtension")
        }
        K::String => {
            if let Some((t, _)) = super::string(n, src) {
                if rocm_branch::is_source(&t) {
                    add(&mut items.sources, &t);
                }
            }
        }
        K::AugmentedAssignment if sources_list(n.field(F::Left)) => {
            if let Some(r) = n.field(F::Right).filter(|r| r.node_kind() == K::Identifier) {
                add(&mut items.sources, ts::text(r, src));
            }
        }
        K::Call => {
            let f = n.field(F::Function);
            let method = f
                .and_then(|f| f.field(F::Attribute))
                .map(|a| ts::text(a, src));
            if matches!(method, Some("extend" | "append"))
                && sources_list(f.and_then(|f| f.field(F::Object)))
            {
                for a in n
                    .field(F::Arguments)
                    .map(ts::named_children)
                    .unwrap_or_default()
                {
                    if a.node_kind() == K::Identifier {
                        add(&mut items.sources, ts::text(a, src));
                    }
                }
            }
        }
        K::Tuple => {
            let kids = ts::named_children(n);
            if let [name, value] = kids.as_slice() {
                let macro_name = super::string(*name, src).map(|(t, _)| t).filter(|t| {
                    !t.is_empty()
                        && t.chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                });
                let value_ok = value.node_kind() == K::None || value.node_kind() == K::String;
                if let (Some(m), true) = (macro_name, value_ok) {
                    add(&mut items.macros, &m);
                }
            }
        }
        _ => {}
    });
}
