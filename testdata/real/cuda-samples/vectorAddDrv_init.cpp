// Source: https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/0_Introduction/vectorAddDrv/vectorAddDrv.cpp (lines 53-56,80-111).
// Licence: BSD-3-Clause, Copyright (c) 2022, NVIDIA CORPORATION. Labels (`expect` comments) added by hipport, by reading the code.
CUdevice    cuDevice;
CUcontext   cuContext;
CUmodule    cuModule;
CUfunction  vecAdd_kernel;
    CUctxCreateParams ctxCreateParams = {};  // expect: HP001 unsupported-api REMEDIATION

    // Initialize
    checkCudaErrors(cuInit(0));  // expect-ok: cuInit maps to hipInit

    cuDevice = findCudaDeviceDRV(argc, (const char **)argv);
    // Create context
    checkCudaErrors(cuCtxCreate(&cuContext, &ctxCreateParams, 0, cuDevice));  // expect: HP501 driver-api REMEDIATION

    // first search for the module path before we load the results
    string module_path;

    std::ostringstream fatbin;

    if (!findFatbinPath(FATBIN_FILE, module_path, argv, fatbin)) {
        exit(EXIT_FAILURE);
    }
    else {
        printf("> initCUDA loading module: <%s>\n", module_path.c_str());
    }

    if (!fatbin.str().size()) {
        printf("fatbin file empty. exiting..\n");
        exit(EXIT_FAILURE);
    }

    // Create module from binary file (FATBIN)
    checkCudaErrors(cuModuleLoadData(&cuModule, fatbin.str().c_str()));  // expect: HP502 driver-api REMEDIATION

    // Get function handle from module
    checkCudaErrors(cuModuleGetFunction(&vecAdd_kernel, cuModule, "VecAdd_kernel"));  // expect-ok: cuModuleGetFunction maps to hipModuleGetFunction

