//! The platform model's unit tests: which code each build runs, with negative twins.

use super::*;

fn ranges(src: &str) -> Vec<String> {
    let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
    Model::of(tree.root_node(), src.as_bytes())
        .rocm_dead()
        .iter()
        .map(|(r, _)| {
            src[r.clone()]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn cuda_arms_of_rocm_tests() {
    let src = "if HIP_BUILD:\n    a = 1\nelse:\n    b = 2\nif not IS_HIP_EXTENSION:\n    c = 3\nif torch.version.hip is None:\n    d = 4\nif BUILD_TARGET == \"rocm\":\n    e = 5\nelif x:\n    f = 6\nv = \"hip\" if bool(torch.version.hip) else \"cu\"\nif ROCM_HOME is not None and y:\n    g = 7\nif SKIP_CUDA_BUILD:\n    h = 8\n";
    assert_eq!(
        ranges(src),
        vec!["else: b = 2", "c = 3", "d = 4", "elif x: f = 6", "\"cu\"",]
    );
}

#[test]
fn helpers_called_only_from_a_cuda_arm_are_cuda_only() {
    // flash-attention's setup.py: `add_cuda_gencodes` is called only in the CUDA arm.
    let src = "def add_cuda_gencodes(cc_flag):\n    cc_flag += [\"-gencode\", \"arch=compute_80,code=sm_80\"]\n    return cc_flag\n\ndef helper2():\n    return add_cuda_gencodes([])\n\ndef shared():\n    return [\"-O3\"]\n\nif not SKIP_CUDA_BUILD and not IS_ROCM:\n    cc = helper2() + shared()\nelif IS_ROCM:\n    r = shared()\n";
    let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
    let model = Model::of(tree.root_node(), src.as_bytes());
    let got = model.rocm_dead();
    let bodies: Vec<&str> = got.iter().map(|(r, _)| src[r.clone()].trim()).collect();
    assert!(
        bodies
            .iter()
            .any(|b| b.starts_with("return add_cuda_gencodes")),
        "{bodies:?}"
    );
    assert!(
        bodies.iter().any(|b| b.starts_with("cc_flag += [")),
        "{bodies:?}"
    );
    // `shared()` is also called from the ROCm arm: not CUDA-only.
    assert!(!bodies.iter().any(|b| b.contains("-O3")), "{bodies:?}");
    let (_, test) = got
        .iter()
        .find(|(r, _)| src[r.clone()].contains("-gencode"))
        .unwrap();
    assert!(
        test.ends_with("`add_cuda_gencodes()` is called only there"),
        "{test}"
    );
    // Referenced as a value too (a callback): left alone.
    let src =
        "def f():\n    x = [\"-gencode\"]\n\nif not IS_HIP_EXTENSION:\n    f()\nhooks = [f]\n";
    assert_eq!(ranges(src), vec!["f()"]);
    // Never called: left alone.
    let src = "def f():\n    x = 1\n\nif not IS_HIP_EXTENSION:\n    y = 2\n";
    assert_eq!(ranges(src), vec!["y = 2"]);
}

/// pytorch_scatter's `__init__.py`: `is_not_hip` names HIP but stands for the CUDA build;
/// a name assigned from a platform test means that test, not its words.
#[test]
fn names_assigned_from_platform_tests_mean_the_test() {
    let src = "is_not_hip = torch.version.hip is None\nis_cuda = torch.version.cuda is not None\nif is_not_hip and is_cuda and v != -1:\n    a = 1\nIS_ROCM = torch.version.hip is not None\nif not IS_ROCM:\n    b = 2\n";
    // The operands after the CUDA-only `is_not_hip` are evaluated only on CUDA too.
    assert_eq!(ranges(src), vec!["a = 1", "v != -1", "is_cuda", "b = 2"]);
    // Assigned twice, or from something that is no platform test: the name's words decide.
    let src = "use_hip = False\nuse_hip = detect()\nif not use_hip:\n    a = 1\nhip_ok = check()\nif not hip_ok:\n    b = 2\nif not_cuda_x:\n    c = 3\n";
    assert_eq!(ranges(src), vec!["a = 1", "b = 2"]);
}

/// torchao's `torchao/utils.py`: a capability threshold after `torch.version.cuda` in an
/// `and` chain, or under a local `is_cuda` assigned from one, is evaluated only on CUDA.
#[test]
fn and_chains_and_local_names_guard_their_right_side() {
    let src = "def at_least_90():\n    return (\n        torch.cuda.is_available()\n        and torch.version.cuda\n        and cap() >= (9, 0)\n    )\n\ndef is_sm(a, b):\n    is_cuda = torch.cuda.is_available() and torch.version.cuda\n    return cap() == (a, b) if is_cuda else False\n\nok = IS_HIP or cap2() >= 8\n";
    assert_eq!(
        ranges(src),
        vec!["cap() >= (9, 0)", "cap() == (a, b)", "cap2() >= 8"]
    );
    // Neither side names the platform, or the left holds on ROCm: nothing is CUDA-only.
    let src = "def f():\n    return torch.cuda.is_available() and cap() >= (9, 0)\n\ng = IS_HIP and cap() >= 9\nh = torch.version.cuda or cap() >= 9\n";
    assert!(ranges(src).is_empty(), "{:?}", ranges(src));
}

#[test]
fn and_or_conditions_decide_by_what_each_outcome_implies() {
    // flash-attention's setup.py: the first arm is CUDA-only, the `elif` arm is ROCm's.
    let src = "if not SKIP_CUDA_BUILD and not IS_ROCM:\n    a = 1\nelif not SKIP_CUDA_BUILD and IS_ROCM:\n    b = 2\nelse:\n    c = 3\n";
    assert_eq!(ranges(src), vec!["a = 1"]);
    // `or` with a ROCm test: the else arm is CUDA-only, the body is not (and `FORCE` is
    // only evaluated on CUDA).
    let src = "if IS_HIP_EXTENSION or FORCE:\n    a = 1\nelse:\n    b = 2\n";
    assert_eq!(ranges(src), vec!["else: b = 2", "FORCE"]);
    // `not hip or X`: the body runs on ROCm when X holds, the else arm only on ROCm.
    let src = "if not IS_HIP_EXTENSION or X:\n    a = 1\nelse:\n    b = 2\n";
    assert!(ranges(src).is_empty());
    // `hip and X`: neither arm is CUDA-only.
    let src = "if torch.version.hip and X:\n    a = 1\nelse:\n    b = 2\n";
    assert!(ranges(src).is_empty());
    // An `elif` whose own test is CUDA-only after an unrelated `if`.
    let src = "if DEBUG:\n    a = 1\nelif not is_rocm() and FAST:\n    b = 2\n";
    assert_eq!(ranges(src), vec!["b = 2", "FAST"]);
    // Parenthesised and nested (`(A or B)` is evaluated only on CUDA too).
    let src = "x = 1 if (not HIP_BUILD and (A or B)) else 2\n";
    assert_eq!(ranges(src), vec!["1", "(A or B)"]);
    let tree = ts::parse(
        ts::Lang::Python,
        b"if torch.version.hip and X:\n    a = 1\n",
    )
    .unwrap();
    assert!(Model::of(
        tree.root_node(),
        b"if torch.version.hip and X:\n    a = 1\n"
    )
    .branches());
}

/// The reasons the ROCm build skips each line, `(line, reason)`.
fn skipped(src: &str) -> Vec<(usize, String)> {
    let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
    let m = Model::of(tree.root_node(), src.as_bytes());
    let mut out = Vec::new();
    for (i, line) in src.lines().enumerate() {
        let at = src.lines().take(i).map(|l| l.len() + 1).sum::<usize>() + line.len()
            - line.trim_start().len();
        if let Some(w) = m.rocm_skips(at) {
            out.push((i + 1, w.to_string()));
        }
    }
    out
}

fn lines(src: &str) -> Vec<usize> {
    skipped(src).into_iter().map(|(l, _)| l).collect()
}

#[test]
fn decorators_and_skip_marks_state_the_platform() {
    let src = "@unittest.skipIf(torch.version.hip, \"no\")\ndef a():\n    x = 1\n@pytest.mark.skipif(not torch.version.cuda, reason=\"\")\ndef b():\n    x = 1\n@unittest.skipUnless(torch.version.cuda is not None, \"\")\ndef c():\n    x = 1\n@skipIfRocm\ndef d():\n    x = 1\n@pytest.mark.slow\n@skip_if_rocm\nclass E:\n    x = 1\n";
    assert_eq!(lines(src), [2, 3, 5, 6, 8, 9, 11, 12, 15, 16]);
    assert!(skipped(src)[8].1.contains("`@skip_if_rocm`"));
    // Twins: the other platform, a condition that names none, a ROCm-only decorator.
    let src = "@unittest.skipIf(torch.version.cuda, \"no\")\ndef a():\n    x = 1\n@pytest.mark.skipif(not has_gpu(), reason=\"\")\ndef b():\n    x = 1\n@skip_if_not_rocm\ndef c():\n    x = 1\n@rocm_only\ndef d():\n    x = 1\n";
    assert!(lines(src).is_empty(), "{:?}", skipped(src));
    let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
    let m = Model::of(tree.root_node(), src.as_bytes());
    // `@unittest.skipIf(torch.version.cuda)`, `@skip_if_not_rocm`, `@rocm_only`.
    assert_eq!(m.rocm_only().len(), 3, "{:?}", m.rocm_only());
}

#[test]
fn a_mark_assigned_to_a_name_and_pytestmark() {
    let src = "skip_rocm = pytest.mark.skipif(torch.version.hip is not None, reason=\"\")\n@skip_rocm\ndef a():\n    x = 1\ndef b():\n    x = 1\n";
    assert_eq!(lines(src), [3, 4]);
    let src = "pytestmark = [pytest.mark.gpu, pytest.mark.skipif(IS_ROCM, reason=\"\")]\nIS_ROCM = torch.version.hip is not None\ndef a():\n    x = 1\n";
    assert_eq!(lines(src), [1, 2, 3, 4]);
    let src = "pytestmark = pytest.mark.skipif(not has_gpu(), reason=\"\")\ndef a():\n    x = 1\n";
    assert!(lines(src).is_empty());
}

#[test]
fn early_exits_guard_what_follows() {
    // Return, raise, continue, pytest.skip, sys.exit on ROCm.
    let src = "def f():\n    if not torch.version.cuda:\n        return\n    a = 1\nfor x in xs:\n    if torch.version.hip:\n        continue\n    b = 2\ndef t():\n    if IS_ROCM:\n        pytest.skip(\"no\")\n    c = 3\n";
    assert_eq!(lines(src), [4, 8, 12]);
    assert!(skipped(src)[0].1.contains("`if not torch.version.cuda:`"));
    // Twins: the guard's arm does not leave, or it leaves on CUDA, or it names no platform.
    let src = "def f():\n    if not torch.version.cuda:\n        log()\n    a = 1\ndef g():\n    if torch.version.cuda:\n        return\n    b = 2\ndef h():\n    if not ok:\n        return\n    c = 3\n";
    // Only the CUDA arm's own body (line 7).
    assert_eq!(lines(src), [7], "{:?}", skipped(src));
}

#[test]
fn failures_are_arms_only_rocm_takes() {
    let fails = |src: &str| {
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        Model::of(tree.root_node(), src.as_bytes())
            .rocm_failures()
            .iter()
            .map(|f| (f.test.clone(), f.module_level))
            .collect::<Vec<_>>()
    };
    let src = "if torch.version.cuda is None:\n    raise RuntimeError()\n";
    assert_eq!(
        fails(src),
        [("torch.version.cuda is None".to_string(), true)]
    );
    let src = "if torch.version.cuda:\n    pass\nelse:\n    sys.exit(1)\n";
    assert_eq!(fails(src), [("torch.version.cuda".to_string(), true)]);
    let src = "def f():\n    assert torch.version.cuda, \"cuda\"\n";
    assert_eq!(fails(src), [("torch.version.cuda".to_string(), false)]);
    // After a failure at import, nothing else in the module runs on ROCm.
    let src =
        "if torch.version.hip:\n    raise E()\nif torch.version.cuda is None:\n    raise F()\n";
    assert_eq!(fails(src).len(), 1);
    // Twins: neither build, a skip, a quiet return, a failure inside code ROCm skips.
    let src = "if torch.version.cuda is None and torch.version.hip is None:\n    raise RuntimeError()\nif torch.version.hip:\n    raise unittest.SkipTest(\"x\")\ndef f():\n    if torch.version.hip:\n        return\n@skip_if_rocm\ndef g():\n    if torch.version.cuda is None:\n        raise E()\n";
    assert!(fails(src).is_empty(), "{:?}", fails(src));
}

#[test]
fn moot_operands_and_forced_cuda() {
    let src = "a = cc != (9, 0) or torch.version.cuda is None\nb = cc >= (8, 0) and torch.version.cuda is not None\nc = cc != (9, 0) or torch.cuda.is_available()\n";
    let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
    let m = Model::of(tree.root_node(), src.as_bytes());
    let moot: Vec<&str> = m
        .moot_on_rocm()
        .iter()
        .map(|(r, _)| &src[r.clone()])
        .collect();
    assert_eq!(moot, ["cc != (9, 0)", "cc >= (8, 0)"]);
    // A user forcing CUDA is the CUDA arm in a file that branches for the platform; a switch
    // that is not about CUDA decides nothing.
    let src = "if torch.version.hip:\n    h = 0\nif os.getenv(\"FORCE_CUDA\", \"0\") == \"1\":\n    a = 1\nif os.getenv(\"DEBUG\", \"0\") == \"1\":\n    b = 2\n";
    assert_eq!(lines(src), [4]);
    // kaolin-wisp: with no ROCm branch in the file, `FORCE_CUDA=1` is how a GPU-less build asks
    // for the extension on either platform: its arm stays the ROCm build's.
    let src = "if os.getenv(\"FORCE_CUDA\", \"0\") == \"1\":\n    a = 1\n";
    assert!(lines(src).is_empty(), "{:?}", lines(src));
}

/// lmdeploy's `is_bf16_supported`: the name is assigned inside an `if` of the function.
#[test]
fn names_assigned_in_nested_blocks_of_the_function() {
    let src = "def f(d):\n    if d == 'cuda':\n        v = torch.version.cuda\n        if v is not None and cap().major >= 8:\n            return True\n";
    assert_eq!(ranges(src), ["return True", "cap().major >= 8"]);
    // Assigned twice in the function: unknown.
    let src = "def f(d):\n    v = torch.version.cuda\n    if d:\n        v = other()\n    if v is not None and cap().major >= 8:\n        return True\n";
    assert!(ranges(src).is_empty(), "{:?}", ranges(src));
}

#[test]
fn other_operating_systems_arms_are_not_the_rocm_build() {
    let src = "import sys, os, platform\nIS_WINDOWS = sys.platform == \"win32\"\nif sys.platform == \"win32\":\n    a = 1\nelse:\n    b = 2\nif sys.platform.startswith(\"darwin\"):\n    c = 3\nif os.name == \"nt\":\n    d = 4\nif platform.system() == \"Windows\":\n    e = 5\nif IS_WINDOWS:\n    f = 6\nif sys.platform != \"darwin\":\n    g = 7\n";
    assert_eq!(
        ranges(src),
        vec!["a = 1", "c = 3", "d = 4", "e = 5", "f = 6"]
    );
    // The reason names the condition and the target OS.
    let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
    let model = Model::of(tree.root_node(), src.as_bytes());
    let why = model.rocm_skips(src.find("a = 1").unwrap()).unwrap();
    assert!(why.contains("`sys.platform == \"win32\"`"), "{why}");
    assert!(why.contains("target OS is Linux"), "{why}");
    // OS tests do not tell ROCm from CUDA.
    assert!(!model.branches());
    // Twins: the Linux arm and `not IS_WINDOWS` stay open; their `else` does not.
    let src = "import sys\nIS_WINDOWS = sys.platform == \"win32\"\nif sys.platform == \"linux\":\n    a = 1\nelse:\n    b = 2\nif not IS_WINDOWS:\n    c = 3\n";
    assert_eq!(ranges(src), vec!["else: b = 2"]);
}

/// GPTQModel: `target_device.type != "cuda"` is a torch device's type, "cuda" on ROCm builds
/// too: no platform arm (the raise under it is not ROCm's). Twin: a build target compared with
/// "cuda" is one.
#[test]
fn a_torch_device_type_names_no_platform() {
    let src = "if target_device.type != \"cuda\":\n    raise ValueError(\"x\")\nif BUILD_TARGET == \"cuda\":\n    a = 1\n";
    assert_eq!(ranges(src), vec!["a = 1"]);
}

/// text-generation-inference: `SYSTEM` (here `MODE`, a name that says nothing) holds the platform's name (`"rocm"` under
/// `torch.version.hip`, `"cuda"` otherwise), so `SYSTEM == "cuda" and has_sm_8_0` is false on
/// ROCm whatever the capability says. Twin: a name also assigned something else decides nothing.
#[test]
fn a_name_holding_the_platforms_name_is_a_platform_test() {
    let src = "MODE = None\nif torch.version.hip is not None:\n    MODE = \"rocm\"\nelse:\n    MODE = \"cuda\"\nok = MODE == \"cuda\" and has_sm_8_0\n";
    assert!(
        ranges(src).iter().any(|r| r == "has_sm_8_0"),
        "{:?}",
        ranges(src)
    );
    let twin = src.replace("MODE = None\n", "MODE = pick()\n");
    assert!(
        !ranges(&twin).iter().any(|r| r == "has_sm_8_0"),
        "{:?}",
        ranges(&twin)
    );
}
