/// Jitify's Tegra list: exact (major, minor) pairs of NVIDIA models, false on every AMD
/// GPU, whose other arm is every other GPU's: PASS, one finding per pair. Twins: a major
/// test alone (`major == 7`: a family) stays UNKNOWN; a pair AMD may report (`major == 9
/// && minor == 0`, gfx90a) stays open.
/// beagle-lib's device filter: `major >= 3` and the emulation sentinel `minor != 9999` both
/// give every current GPU one answer: PASS. Twin: a real minor test stays open.
#[test]
fn the_emulation_sentinel_is_settled_everywhere() {
    use crate::model::syntax::test_support::hazard_findings;
    let src = "void f(int n) {\n  int capabilityMajor, capabilityMinor;\n  cuDeviceGetAttribute(&capabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);\n  cuDeviceGetAttribute(&capabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);\n  if (capabilityMajor >= 3 && capabilityMinor != 9999) use(n);\n  if (capabilityMajor >= 3 && capabilityMinor != 5) use(n);\n}\n";
    let fs: Vec<(u32, String)> = hazard_findings(src)
        .into_iter()
        .filter(|f| f.rule == "HP402")
        .map(|f| (f.line, f.status.as_str().to_string()))
        .collect();
    assert!(
        fs.iter().filter(|f| f.0 == 5).all(|f| f.1 == "PASS"),
        "{fs:?}"
    );
    assert!(fs.iter().any(|f| f.0 == 5), "{fs:?}");
    assert!(fs.iter().any(|f| f.0 == 6 && f.1 != "PASS"), "{fs:?}");
}

/// nvidia-texture-tools' device filter: `major == -1 || minor == -1` (a "no device"
/// sentinel the program stores) gives every GPU one answer: PASS. Twin: a real threshold
/// beside it stays open.
#[test]
fn a_negative_sentinel_is_settled_everywhere() {
    use crate::model::syntax::test_support::hazard_findings;
    let src = "void f(int n) {\n  cudaDeviceProp p;\n  cudaGetDeviceProperties(&p, 0);\n  if (p.major == -1 || p.minor == -1) return;\n  if (p.major != - 1) use(n);\n  if (p.major == 9) use(n); else skip(n);\n}\n";
    let fs: Vec<(u32, String, String)> = hazard_findings(src)
        .into_iter()
        .filter(|f| f.rule == "HP402")
        .map(|f| (f.line, f.status.as_str().to_string(), f.message.clone()))
        .collect();
    assert!(
        fs.iter()
            .filter(|f| f.0 == 4)
            .all(|f| f.1 == "PASS" && f.2.contains("negative capability")),
        "{fs:?}"
    );
    assert!(fs.iter().any(|f| f.0 == 4), "{fs:?}");
    assert!(fs.iter().any(|f| f.0 == 5 && f.1 == "PASS"), "{fs:?}");
    assert!(fs.iter().any(|f| f.0 == 6 && f.1 != "PASS"), "{fs:?}");
}

/// gamer's cores-per-SM table: `== 9`, `== 10`, `== 12` of one `else if` chain are one
/// decision, carried by the first. Twin: the same tests in separate `if`s stay apart.
#[test]
fn one_capability_chain_is_one_finding() {
    let open = |src: &str| crate::model::syntax::test_support::fires_open(src, "HP402");
    let chain = "void f(cudaDeviceProp p) {\n  int n;\n  if (p.major == 9) n = 128;\n  else if (p.major == 10) n = 128;\n  else if (p.major == 12) n = 128;\n  else n = 0;\n}\n";
    assert_eq!(open(chain), [3]);
    let apart = "void f(cudaDeviceProp p) {\n  int n;\n  if (p.major == 9) n = 128;\n  if (p.major == 10) n = 128;\n}\n";
    assert_eq!(open(apart), [3, 4]);
}

#[test]
fn exact_model_pairs_are_pass() {
    use crate::model::syntax::test_support::hazard_findings;
    let src = "void f(cudaDeviceProp p) {\n  bool tegra = ((p.major == 5 && p.minor == 3) ||\n               (p.major == 7 && p.minor == 2));\n  if (p.major == 7) volta(); else other();\n  if (p.major == 9 && p.minor == 0) hopper();\n}\n";
    let fs: Vec<_> = hazard_findings(src)
        .into_iter()
        .filter(|f| f.rule == "HP402")
        .map(|f| (f.line, f.status))
        .collect();
    use crate::gate::Status::*;
    assert_eq!(fs[..2], [(2, Pass), (3, Pass)], "{fs:?}");
    assert!(fs.iter().any(|&(l, st)| l == 4 && st == Unknown), "{fs:?}");
    assert!(fs.iter().any(|&(l, st)| l == 5 && st != Pass), "{fs:?}");
}

#[test]
fn capability_checks_that_only_separate_pre_maxwell_gpus_are_pass() {
    use crate::model::syntax::test_support::{fires, fires_open};
    // SHOC's double-precision test and Parboil's sm_1x workaround: every current GPU (and
    // every AMD GPU, major 9..12) takes the same branch. `major >= 8` (tf32) and a minor
    // test beside a current major are real decisions.
    let src = "void f(cudaDeviceProp deviceProp, cudaDeviceProp p) {\n  if ((deviceProp.major == 1 && deviceProp.minor >= 3) ||\n      (deviceProp.major >= 2)) dp();\n  if ((1 == p.major) && (p.minor < 2)) old();\n  if (p.major >= 8) tf32();\n  if (p.major == 9 && p.minor >= 0) hopper();\n  if (p.major < 13) x();\n  if (p.major < 5 || (p.major == 5 && p.minor < 3)) nofp16();\n  else fp16();\n}\n";
    assert_eq!(fires(src, "HP402"), [2, 3, 4, 5, 6, 7, 8]);
    // cuda-samples' fp16 test: `major == 5 && minor < 3` tells Maxwell GPUs apart, so the
    // line stays open although `major < 5` alone is settled (and AMD runs its `else`).
    assert_eq!(fires_open(src, "HP402"), [5, 6, 8]);
    // `major >= 8` is true on every AMD GPU (9 … 12): the tf32 arm always runs there, a
    // thing to check (UNKNOWN), not a change; its twin `major == 9` (Hopper, and gfx9 but
    // not gfx11) is a real decision on AMD too and stays REMEDIATION.
    let st = |line: u32| {
        crate::model::syntax::test_support::hazard_findings(src)
            .into_iter()
            .find(|f| f.rule == "HP402" && f.line == line)
            .map(|f| f.status)
    };
    assert_eq!(st(5), Some(crate::gate::Status::Unknown));
    assert_eq!(st(6), Some(crate::gate::Status::Remediation));
    assert_eq!(st(8), Some(crate::gate::Status::Remediation));
    let msgs = crate::model::syntax::test_support::messages(src, "HP402");
    assert!(
        msgs.iter().any(|m| m.contains("true on every AMD GPU")),
        "{msgs:?}"
    );
}

/// faiss' `getDeviceSupportsFloat16Math`: `major >= 6 || (major == 5 && minor >= 3)` is
/// true on every AMD GPU whatever the minor test says, so the line is one check (UNKNOWN)
/// on its decisive comparison. Twin: a minor test next to a major test AMD does not settle
/// (`major == 9 && minor >= 4`, true on gfx942 only) stays open.
#[test]
fn comparisons_a_settled_logical_expression_never_consults_hold_no_fact() {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;
    let st = |src: &str| -> Vec<(u32, Status)> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP402")
            .map(|f| (f.line, f.status))
            .collect()
    };
    let src = "bool f(cudaDeviceProp prop) {\n  return (prop.major >= 6 || (prop.major == 5 && prop.minor >= 3));\n}\n";
    assert_eq!(st(src), [(2, Status::Unknown)]);
    let open = src.replace("prop.major >= 6 || (prop.major == 5", "(prop.major == 9");
    assert_eq!(st(&open), [(2, Status::Remediation)]);
}

/// The arms AMD runs. xmrig's Pascal memory caps (`major == 6`, `major < 6`, with no other
/// arm) and tsne-cuda's chain (`== 8`, then `>= 7`, then `>= 6`): AMD skips what only older
/// NVIDIA GPUs run, and never reaches a test after one every AMD GPU passes. Twins: a false
/// test with an `else` AMD runs, a true test (its arm runs on AMD), a test outside an `if`.
#[test]
fn capability_arms_amd_skips_or_never_reaches_are_pass() {
    use crate::model::syntax::test_support::{fires, fires_open};
    let src = "void f(cudaDeviceProp props, int alg) {\n  if (props.major == 6) { cap(); }\n  if (alg == 2 && props.major < 6) { occ(); }\n  if (props.major == 8) { a(); }\n  else if (props.major >= 7) { b(); }\n  else if (props.major >= 6) { c(); }\n  if (props.major < 6) { old(); } else { cur(); }\n  if (props.major >= 9) hopper();\n  else if (props.major == 8) ampere();\n  bool pre = props.major < 6;\n}\n";
    assert_eq!(fires(src, "HP402"), [2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert_eq!(fires_open(src, "HP402"), [5, 7, 8, 10]);
    let msgs = crate::model::syntax::test_support::messages(src, "HP402");
    assert!(
        msgs.iter()
            .any(|m| m.contains("never evaluated on AMD: the test before it (line 5")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("the next test of the chain (line 5)")),
        "{msgs:?}"
    );
}

/// The capability as one number (`major * 10 + minor`, written out or in a variable) and
/// a cast major (`(int)p.major < 2`): every current GPU, and every AMD GPU (90 … 129),
/// passes `>= 13`/`>= 20` alike. The twin: `cc >= 80` (tf32) is a decision.
#[test]
fn a_function_returning_the_capability_as_one_number_gives_it_to_its_callers() {
    use crate::model::syntax::test_support::{fires, fires_open};
    // MNN: `compute_capability()` returns `major * 10 + minor`; a member assigned its call
    // and the call itself are the capability. `>= 80` holds on every AMD GPU (UNKNOWN:
    // check what the arm enables), `< 75` never does (PASS).
    let src = "struct R { cudaDeviceProp mProp;
  int compute_capability() { return mProp.major * 10 + mProp.minor; }
};
void E::init(R *runtime) {
  mCap = runtime->compute_capability();
  if (mCap >= 80) bf16();
  int cc = runtime->compute_capability();
  if (cc < 75) old();
  if (runtime->compute_capability() >= 90) hopper();
}
";
    assert_eq!(fires(src, "HP402"), [6, 8, 9]);
    assert_eq!(fires_open(src, "HP402"), [6, 9]);
    // Twin: a function returning another `a * 10 + b` is no capability.
    let other = src.replace("mProp.major * 10 + mProp.minor", "rows * 10 + cols");
    assert!(fires(&other, "HP402").is_empty());
    let fns = super::capability_functions(src.as_bytes(), &crate::lex::lex(src.as_bytes()));
    assert_eq!(fns, [("compute_capability".to_string(), 10)]);
}

#[test]
fn combined_capabilities_and_cast_majors_are_settled_alike() {
    use crate::model::syntax::test_support::{fires, fires_open};
    let src = "void f(cudaDeviceProp p) {\n  int cv = p.major * 10 + p.minor;\n  bool dbl = (cv >= 13);\n  if ((p.major * 10 + p.minor) >= 12) a();\n  if ((int)p.major < 2) b();\n  if (cv >= 80) tf32();\n}\n";
    assert_eq!(fires(src, "HP402"), [3, 4, 5, 6]);
    assert_eq!(fires_open(src, "HP402"), [6]);
}

/// GPTQModel's Marlin: `cudaDeviceGetAttribute(&info.major_capability, …)` makes the member
/// a capability, not the struct: a thread config computed from `info`'s other members
/// (`th_config.thread_k == -1`) is no capability decision. Twin: the member itself is one.
#[test]
fn a_struct_member_set_to_the_capability_does_not_taint_the_struct() {
    use crate::model::syntax::test_support::fires;
    let src = "struct info_t { int sms; int major_capability; };
void f(int device, info_t info, cfg_t th_config) {
  cudaDeviceGetAttribute(&info.major_capability, cudaDevAttrComputeCapabilityMajor, device);
  cfg_t c = pick(info);
  if (c.thread_k == -1) return;
  if (info.major_capability == 8) ampere();
}
";
    assert_eq!(fires(src, "HP402"), [6]);
}

/// cuda-samples' `helper_cuda.h`: `_ConvertSMVer2Cores` and `_ConvertSMVer2ArchName` look up
/// NVIDIA tables by `(major << 4) + minor`: one check (UNKNOWN/PERFORMANCE) for the file, the
/// second lookup naming the first. Twin: a plain threshold stays REMEDIATION.
#[test]
fn lookups_of_per_architecture_tables_are_one_check() {
    use crate::model::syntax::test_support::hazard_findings;
    let src = "typedef struct { int SM; int Cores; } sSMtoCores;\ninline int cores(int major, int minor) {\n  sSMtoCores t[] = {{0x90, 128}, {-1, -1}};\n  int index = 0;\n  while (t[index].SM != -1) {\n    if (t[index].SM == ((major << 4) + minor)) return t[index].Cores;\n    index++;\n  }\n  return t[index - 1].Cores;\n}\ninline const char* name(int major, int minor) {\n  sSMtoCores n[] = {{0x90, 1}, {-1, -1}};\n  int index = 0;\n  while (n[index].SM != -1) {\n    if (n[index].SM == ((major << 4) + minor)) return \"Hopper\";\n    index++;\n  }\n  return \"?\";\n}\nvoid f(cudaDeviceProp p) { if (p.major == 9) g(); else h(); }\nint k() {\n  int major, minor;\n  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);\n  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);\n  return cores(major, minor) + (name(major, minor)[0] == 'H');\n}\n";
    let fs: Vec<_> = hazard_findings(src)
        .into_iter()
        .filter(|f| f.rule == "HP402")
        .collect();
    let at = |l: u32| {
        fs.iter()
            .find(|f| f.line == l)
            .unwrap_or_else(|| panic!("{fs:#?}"))
    };
    assert_eq!(at(6).status, crate::gate::Status::Unknown);
    assert_eq!(at(6).phase, crate::gate::Phase::Performance);
    assert!(
        at(6).message.contains("(also `n` on line 15)"),
        "{}",
        at(6).message
    );
    assert_eq!(at(15).status, crate::gate::Status::Pass);
    assert!(
        at(15).message.contains("the same way as line 6"),
        "{}",
        at(15).message
    );
    assert_eq!(at(20).status, crate::gate::Status::Remediation);
}

/// cudaqx: `if (props.major < 9) throw …` guards code that needs Hopper; every AMD GPU passes
/// it, so what it protects runs there unverified: UNKNOWN. Twins: the same guard for Volta
/// (`major < 7`), a Hopper test whose arm takes another path, and an arm of an `else if` chain
/// stay PASS.
#[test]
fn a_fail_fast_guard_for_hopper_is_a_thing_to_check() {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;
    let src = "void f(cudaDeviceProp props, int cc) {\n  if (props.major < 9) {\n    throw std::runtime_error(\"device graph launch needs compute capability 9.0\");\n  }\n  if (props.major < 7) { throw std::runtime_error(\"needs Volta\"); }\n  if (props.major < 9) slow_path();\n  if (props.major * 10 + props.minor < 13) throw 1;\n  if (props.major * 10 + props.minor < 90) {\n    fprintf(stderr, \"requires sm_90\\n\");\n    return 1;\n  }\n}\n";
    let st = |line: u32| {
        hazard_findings(src)
            .into_iter()
            .find(|f| f.rule == "HP402" && f.line == line)
            .map(|f| (f.status, f.message))
    };
    let (s2, m2) = st(2).unwrap();
    assert_eq!(s2, Status::Unknown, "{m2}");
    assert!(m2.contains("runs what it protects"), "{m2}");
    assert_eq!(st(5).unwrap().0, Status::Pass);
    assert_eq!(st(6).unwrap().0, Status::Pass);
    assert_eq!(st(7).unwrap().0, Status::Pass);
    assert_eq!(st(8).unwrap().0, Status::Unknown);
}
