// Source: https://github.com/vetter/shoc/blob/0aea03beba2f09fcb5935cc11737372fe4de9ec0/src/cuda/level1/reduction/Reduction.cu (lines 94-123).
// Licence: BSD-3-Clause, Copyright (c) 2011, UT-Battelle, LLC. Labels (`expect` comments) added by hipport, by reading the code.
void
RunBenchmark(ResultDatabase &resultDB, OptionParser &op)
{
    int device;
    cudaGetDevice(&device);
    cudaDeviceProp deviceProp;
    cudaGetDeviceProperties(&deviceProp, device);

    cout << "Running single precision test" << endl;
    RunTest<float>("Reduction", resultDB, op);

    // Test to see if this device supports double precision
    if ((deviceProp.major == 1 && deviceProp.minor >= 3) ||  // expect-ok: compute capability 1.3 (first double precision): false on every current GPU and on AMD (major 9..12)
               (deviceProp.major >= 2))  // expect-ok: true on every current GPU and on AMD, as on a current NVIDIA GPU
    {
        cout << "Running double precision test" << endl;
        RunTest<double>("Reduction-DP", resultDB, op);
    } else {
        cout << "Skipping double precision test" << endl;
        char atts[1024] = "DP_Not_Supported";
        // resultDB requires neg entry for every possible result
        int passes = op.getOptionInt("passes");
        for (int k = 0; k < passes; k++) {
            resultDB.AddResult("Reduction-DP" , atts, "GB/s", FLT_MAX);
            resultDB.AddResult("Reduction-DP_PCIe" , atts, "GB/s", FLT_MAX);
            resultDB.AddResult("Reduction-DP_Parity" , atts, "GB/s", FLT_MAX);
        }
    }

}
