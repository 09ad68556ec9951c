// Source: https://github.com/karpathy/llm.c/blob/f1e2ace651495b74ae22d45d1723443fd00ecd3a/llmc/matmul.cuh (lines 107-140).
// Licence: MIT, Copyright (c) 2024 Andrej Karpathy. Labels (`expect` comments) added by hipport, by reading the code.
// Wrapper around cublasLtMatmul that is meant to support everything we need in llm.c
// https://docs.nvidia.com/cuda/cublas/#cublasltmatmul
void matmul_cublaslt(floatX* d, const floatX* a, const floatX* b, const floatX* bias,
                     int m, int n, int k, cudaStream_t stream=0, bool transA=true, bool transB=false,
                     int batch_count=0, size_t strideA=0, size_t strideB=0, size_t strideOut=0,
                     bool accumulate=false, floatX* pre_gelu=NULL, bool backward=false)
{
    NVTX_RANGE_FN();
    bool has_bias = (bias != NULL);
    bool has_gelu = (pre_gelu != NULL);

    // check alignment (some modes work unaligned but it always best to be aligned for performance)
    if(((uintptr_t)a % 16) != 0 || ((uintptr_t)b % 16) != 0 || ((uintptr_t)d % 16) != 0 || ((uintptr_t)bias % 16) != 0) {  // expect-ok: 16-byte alignment check, not a warp size
        printf("All cuBLASLt pointers must be aligned!\n");
        exit(EXIT_FAILURE);
    }

    // create the operation descriptor
    cublasLtMatmulDesc_t operationDesc;  // expect-ok: translated one-to-one to hipBLASLt (type or create call)
    cublasCheck(cublasLtMatmulDescCreate(&operationDesc, cublas_compute, CUDA_R_32F));  // expect-ok: translated one-to-one to hipBLASLt (type or create call)

    int returnedResults = 0;
    cublasLtMatmulPreference_t preference;  // expect-ok: translated one-to-one to hipBLASLt (type or create call)
    cublasLtMatmulHeuristicResult_t heuristic;  // expect-ok: translated one-to-one to hipBLASLt (type or create call)

    cublasOperation_t opNoTranspose = CUBLAS_OP_N;
    cublasOperation_t opTranspose = CUBLAS_OP_T;
    cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_TRANSA, (transA)  ? &opTranspose : &opNoTranspose,   sizeof(opTranspose)));  // expect-ok: transposes are set the same way in hipBLASLt
    cublasCheck(cublasLtMatmulDescSetAttribute(operationDesc, CUBLASLT_MATMUL_DESC_TRANSB, (transB) ? &opTranspose   : &opNoTranspose, sizeof(opNoTranspose)));  // expect-ok: transposes are set the same way in hipBLASLt

    // define matrix layouts
    cublasLtMatrixLayout_t ALayout;  // expect-ok: translated one-to-one to hipBLASLt (type or create call)
    cublasLtMatrixLayout_t BLayout;  // expect-ok: translated one-to-one to hipBLASLt (type or create call)
    cublasLtMatrixLayout_t DLayout;
