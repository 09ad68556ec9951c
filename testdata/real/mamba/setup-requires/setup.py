# Source: https://github.com/state-spaces/mamba/blob/e9594ce1c732d97440f0332fdc43170a2294dbfa/setup.py (lines 362,394-407).
# Licence: Apache-2.0, Copyright (c) 2023 Tri Dao, Albert Gu. Labels (`expect` comments) added by hipport, by reading the code.
setup(
    python_requires=">=3.10",
    install_requires=[
        "torch",  # expect: HP820 python-package REMEDIATION
        "packaging",
        "ninja",
        "einops",
        "triton>=3.5.0",  # expect: HP820 python-package PASS
        "transformers",
        "tilelang==0.1.8",  # expect-ok: tilelang has a HIP backend
        "apache-tvm-ffi<=0.1.12",
        "quack-kernels>=0.3.4",  # expect: HP821 python-package UNKNOWN
        # "causal_conv1d>=1.4.0",
    ],
)
