from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="ranker-ops",
    version="0.1.0",
    install_requires=["torch>=2.1", "xformers==0.0.26"],
    ext_modules=[
        CUDAExtension(
            "ranker_ops",
            ["csrc/ops.cpp", "csrc/topk.cu"],
            extra_compile_args={
                "cxx": ["-O3"],
                "nvcc": ["-O3", "-gencode", "arch=compute_80,code=sm_80", "--use_fast_math"],
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
