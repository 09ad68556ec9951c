// Source: https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/0_Introduction/systemWideAtomics/systemWideAtomics.cu (lines 42-69).
// Licence: BSD-3-Clause, Copyright (c) 2022, NVIDIA CORPORATION. Labels (`expect` comments) added by hipport, by reading the code.
#define LOOP_NUM 50

__global__ void atomicKernel(int *atom_arr)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;

    for (int i = 0; i < LOOP_NUM; i++) {
        // Atomic addition
        atomicAdd_system(&atom_arr[0], 10);  // expect: HP707 device-feature UNKNOWN

        // Atomic exchange
        atomicExch_system(&atom_arr[1], tid);  // expect: HP707 device-feature UNKNOWN

        // Atomic maximum
        atomicMax_system(&atom_arr[2], tid);  // expect: HP707 device-feature UNKNOWN

        // Atomic minimum
        atomicMin_system(&atom_arr[3], tid);  // expect: HP707 device-feature UNKNOWN

        // Atomic increment (modulo 17+1)
        atomicInc_system((unsigned int *)&atom_arr[4], 17);  // expect: HP707 device-feature UNKNOWN; HP001 unsupported-api REMEDIATION

        // Atomic decrement
        atomicDec_system((unsigned int *)&atom_arr[5], 137);  // expect: HP707 device-feature UNKNOWN; HP001 unsupported-api REMEDIATION

        // Atomic compare-and-swap
        atomicCAS_system(&atom_arr[6], tid - 1, tid);  // expect: HP707 device-feature UNKNOWN

