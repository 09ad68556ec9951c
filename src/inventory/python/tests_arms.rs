//! Unit tests of how the file's platform model reads arms and names: the project's own ROCm
//! arms, and names that only look like platform tests. Each with its negative twin.

use super::super::kind::FileKind;
use super::tests::{judged, row};

/// FBGEMM's `supports_float8_fnuz(throw_on_hip_incompatibility=True)`: a parameter holds what
/// the caller passes, so its raise is no ROCm failure. Twin: PyTorch's `IS_HIP_EXTENSION`
/// holds on ROCm, and the same raise under it is HP813.
#[test]
fn a_parameter_named_like_the_platform_is_not_a_platform_test() {
    let param = "def f(throw_on_hip_incompatibility: bool = True):\n    if throw_on_hip_incompatibility:\n        raise RuntimeError(\"old GPU\")\n    return 1\n";
    assert!(
        judged(FileKind::Python, param)
            .iter()
            .all(|r| r.0 != "HP813"),
        "{:?}",
        judged(FileKind::Python, param)
    );
    let flag = "from torch.utils.cpp_extension import IS_HIP_EXTENSION\ndef f():\n    if IS_HIP_EXTENSION:\n        raise RuntimeError(\"no ROCm\")\n    return 1\n";
    assert!(judged(FileKind::Python, flag)
        .iter()
        .any(|r| r.0 == "HP813"));
}

/// A capability threshold in an arm only the ROCm build runs is the project's own choice on
/// the gfx version (FBGEMM's FNUZ FP8 before gfx950): PASS. Twin: the same threshold outside
/// the arm stays open.
#[test]
fn a_threshold_in_the_projects_rocm_arm_is_pass() {
    let inside = "import torch\ndef dtype():\n    if torch.version.hip:\n        if torch.cuda.get_device_capability() < (9, 5):\n            return 1\n    return 2\n";
    assert_eq!(
        judged(FileKind::Python, inside)
            .into_iter()
            .filter(|r| r.0 == "HP811")
            .collect::<Vec<_>>(),
        [row("HP811", 4, "PASS", "RUNTIME")]
    );
    let outside = "import torch\ndef dtype():\n    if torch.cuda.get_device_capability() < (9, 5):\n        return 1\n    return 2\n";
    assert!(judged(FileKind::Python, outside)
        .iter()
        .any(|r| r.0 == "HP811" && r.2 != "PASS"));
}
