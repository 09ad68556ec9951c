# Source: https://github.com/state-spaces/mamba/blob/e9594ce1c732d97440f0332fdc43170a2294dbfa/tests/ops/triton/test_mamba3_siso.py (lines 950,955-958).
# Licence: Apache-2.0. Labels (`expect` comments) added by hipport.
def test_mamba3_siso_fwd_blackwell_regression(nheads_qk=4, has_Z=True, has_D=True):
    if not torch.cuda.is_available():
        pytest.skip("CUDA not available")

    major, _ = torch.cuda.get_device_capability()
    if major not in (10, 12):  # expect: HP811 version-check REMEDIATION
        pytest.skip(f"Blackwell-specific regression -- skipping on compute capability {major}.x")
