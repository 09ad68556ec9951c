# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/tests/test_flash_attn_triton_amd.py (lines 33-39).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
MAX_HEADDIM_SM8x = 192


is_sm75 = torch.cuda.get_device_capability("cuda") == (7, 5)  # expect: HP811 version-check REMEDIATION
is_sm8x = torch.cuda.get_device_capability("cuda")[0] == 8  # expect: HP811 version-check REMEDIATION
is_sm80 = torch.cuda.get_device_capability("cuda") == (8, 0)  # expect: HP811 version-check REMEDIATION
is_sm90 = torch.cuda.get_device_capability("cuda") == (9, 0)  # expect: HP811 version-check REMEDIATION
