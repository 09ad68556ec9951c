// Source: https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/5_Domain_Specific/convolutionFFT2D/convolutionFFT2D.cu (lines 40-49 and 72-79; the texture set-up and arguments are cut, the kernel is in convolutionFFT2D.cuh).
// Licence: BSD-3-Clause, Copyright (c) 2022, NVIDIA CORPORATION. Labels (`expect` comments) added by hipport, by reading the code.
////////////////////////////////////////////////////////////////////////////////
/// Position convolution kernel center at (0, 0) in the image
////////////////////////////////////////////////////////////////////////////////
extern "C" void
padKernel(float *d_Dst, float *d_Src, int fftH, int fftW, int kernelH, int kernelW, int kernelY, int kernelX)
{
    assert(d_Src != d_Dst);
    dim3 threads(32, 8);  // expect-ok: a 2-D image tile for a padding kernel that does no warp-level work
    dim3 grid(iDivUp(kernelW, threads.x), iDivUp(kernelH, threads.y));


    padKernel_kernel<<<grid, threads>>>(d_Dst,
                                        d_Src,
                                        fftH,
                                        fftW,
                                        kernelH,
                                        kernelW,
                                        kernelY,
                                        kernelX
    );
}
