"""Distributed training entry point. torch.cuda in this docstring is not code."""
import os
import subprocess

import pynvml
import torch
import torch.distributed as dist

os.environ["NCCL_IB_DISABLE"] = "0"
os.environ["NCCL_P2P_LEVEL"] = "NVL"
os.environ.setdefault("NCCL_MIN_NCHANNELS", "32")


def setup(rank: int) -> torch.device:
    # torch.cuda.set_device(rank) in a comment is not code
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(rank)
    torch.backends.cudnn.benchmark = True
    return torch.device("cuda", rank)


def pick_kernel() -> str:
    if torch.version.cuda is not None and torch.version.cuda >= "12.0":
        return "fused"
    if torch.cuda.get_device_capability()[0] >= 8:
        return "tf32"
    return "plain"


def toolkit() -> str:
    return subprocess.check_output(["nvcc", "--version"]).decode()


def gpu_count() -> int:
    pynvml.nvmlInit()
    return pynvml.nvmlDeviceGetCount()


def main() -> None:
    device = setup(int(os.environ.get("LOCAL_RANK", "0")))
    model = torch.nn.Linear(8, 8).cuda()
    x = torch.randn(4, 8).to("cuda")
    print(model(x).sum().item(), pick_kernel(), device)


if __name__ == "__main__":
    main()
