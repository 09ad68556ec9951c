# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/tests/test_flash_attn.py (lines 23-26,586-588)
#         and tests/models/test_llama.py (lines 402,429-431).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
is_sm75 = torch.cuda.get_device_capability("cuda") == (7, 5)  # expect: HP811 version-check REMEDIATION
is_sm8x = torch.cuda.get_device_capability("cuda")[0] == 8  # expect: HP811 version-check REMEDIATION
is_sm80 = torch.cuda.get_device_capability("cuda") == (8, 0)  # expect: HP811 version-check REMEDIATION
is_sm90 = torch.cuda.get_device_capability("cuda") == (9, 0)  # expect: HP811 version-check REMEDIATION


def test_flash_attn_qkvpacked(seqlen, d, dropout_p, causal, local, alibi, deterministic, dtype):
    if seqlen >= 2048 and torch.cuda.get_device_properties("cuda").total_memory <= 16 * 2**30:  # expect-ok: a memory size, not a compute capability
        pytest.skip()  # Reference implementation OOM


def test_llama_parallel_generation(model_name, world_size):
    os.environ["NCCL_ASYNC_ERROR_HANDLING"] = "0"  # expect-ok: PyTorch's ProcessGroupNCCL reads it, on RCCL too
    if not torch.distributed.is_initialized():
        torch.distributed.init_process_group(backend="nccl", init_method="env://")
