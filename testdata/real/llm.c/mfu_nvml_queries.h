// Source: https://github.com/karpathy/llm.c/blob/f1e2ace651495b74ae22d45d1723443fd00ecd3a/llmc/mfu.h (lines 195-209; the function is closed here).
// Licence: MIT, Copyright (c) 2024 Andrej Karpathy. Labels (`expect` comments) added by hipport, by reading the code.
// gather data for a GPUUtilInfo object
GPUUtilInfo get_gpu_utilization_info() {
    GPUUtilInfo info;
    nvmlDevice_t device = nvml_get_device();  // expect: HP001 unsupported-api REMEDIATION
    // query different infos directly
    nvmlCheck(nvmlDeviceGetClockInfo(device, NVML_CLOCK_SM, &info.clock));  // expect-ok: NVML's use is one decision, folded into line 6
    nvmlCheck(nvmlDeviceGetMaxClockInfo(device, NVML_CLOCK_SM, &info.max_clock));  // expect-ok: NVML's use is one decision, folded into line 6
    nvmlCheck(nvmlDeviceGetPowerManagementLimit(device, &info.power_limit));  // expect-ok: NVML's use is one decision, folded into line 6
    nvmlCheck(nvmlDeviceGetPowerUsage(device, &info.power));  // expect-ok: NVML's use is one decision, folded into line 6
    nvmlCheck(nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, &info.temperature));  // expect-ok: NVML's use is one decision, folded into line 6
    nvmlCheck(nvmlDeviceGetTemperatureThreshold(device, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &info.temp_slowdown));  // expect-ok: NVML's use is one decision, folded into line 6
    unsigned long long throttle;
    nvmlCheck(nvmlDeviceGetCurrentClocksThrottleReasons(device, &throttle));  // expect-ok: NVML's use is one decision, folded into line 6
    info.throttle_reason = get_throttle_reason(throttle);
    nvmlCheck(nvmlDeviceGetFanSpeed(device, &info.fan));  // expect-ok: NVML's use is one decision, folded into line 6
    return info;
}
