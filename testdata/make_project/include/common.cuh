#pragma once
#include <cuda_runtime.h>
#define N 64
