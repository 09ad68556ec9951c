// id: math_constants
// names: CUDART_*=HIP_*
// headers: math_constants.h
// rocm: 5.0.0 5.6.1
// guard: HIP_VERSION < 50700000
// exact: yes
// source: https://github.com/ROCm/clr/blob/rocm-6.2.0/hipamd/include/hip/amd_detail/amd_hip_math_constants.h (hip/hip_math_constants.h, MIT licence, (c) AMD; single precision from ROCm 5.3, double precision from 5.7)
// semantics: The HIP release's own constants, value for value (each kept if the target already defines it). CUDART_X becomes HIP_X as in later releases.
// test: __device__ float f(float x) { return x * HIP_PI_F + (float)HIP_PI + HIP_SQRT_TWO_F + (float)HIP_INF + HIP_REMQUO_MASK_F; }
// ---
#ifndef HIP_INF_F
#define HIP_INF_F __int_as_float(0x7f800000U)
#endif
#ifndef HIP_NAN_F
#define HIP_NAN_F __int_as_float(0x7fffffffU)
#endif
#ifndef HIP_MIN_DENORM_F
#define HIP_MIN_DENORM_F __int_as_float(0x00000001U)
#endif
#ifndef HIP_MAX_NORMAL_F
#define HIP_MAX_NORMAL_F __int_as_float(0x7f7fffffU)
#endif
#ifndef HIP_NEG_ZERO_F
#define HIP_NEG_ZERO_F __int_as_float(0x80000000U)
#endif
#ifndef HIP_ZERO_F
#define HIP_ZERO_F 0.0F
#endif
#ifndef HIP_ONE_F
#define HIP_ONE_F 1.0F
#endif
#ifndef HIP_SQRT_HALF_F
#define HIP_SQRT_HALF_F 0.707106781F
#endif
#ifndef HIP_SQRT_HALF_HI_F
#define HIP_SQRT_HALF_HI_F 0.707106781F
#endif
#ifndef HIP_SQRT_HALF_LO_F
#define HIP_SQRT_HALF_LO_F 1.210161749e-08F
#endif
#ifndef HIP_SQRT_TWO_F
#define HIP_SQRT_TWO_F 1.414213562F
#endif
#ifndef HIP_THIRD_F
#define HIP_THIRD_F 0.333333333F
#endif
#ifndef HIP_PIO4_F
#define HIP_PIO4_F 0.785398163F
#endif
#ifndef HIP_PIO2_F
#define HIP_PIO2_F 1.570796327F
#endif
#ifndef HIP_3PIO4_F
#define HIP_3PIO4_F 2.356194490F
#endif
#ifndef HIP_2_OVER_PI_F
#define HIP_2_OVER_PI_F 0.636619772F
#endif
#ifndef HIP_SQRT_2_OVER_PI_F
#define HIP_SQRT_2_OVER_PI_F 0.797884561F
#endif
#ifndef HIP_PI_F
#define HIP_PI_F 3.141592654F
#endif
#ifndef HIP_L2E_F
#define HIP_L2E_F 1.442695041F
#endif
#ifndef HIP_L2T_F
#define HIP_L2T_F 3.321928094F
#endif
#ifndef HIP_LG2_F
#define HIP_LG2_F 0.301029996F
#endif
#ifndef HIP_LGE_F
#define HIP_LGE_F 0.434294482F
#endif
#ifndef HIP_LN2_F
#define HIP_LN2_F 0.693147181F
#endif
#ifndef HIP_LNT_F
#define HIP_LNT_F 2.302585093F
#endif
#ifndef HIP_LNPI_F
#define HIP_LNPI_F 1.144729886F
#endif
#ifndef HIP_TWO_TO_M126_F
#define HIP_TWO_TO_M126_F 1.175494351e-38F
#endif
#ifndef HIP_TWO_TO_126_F
#define HIP_TWO_TO_126_F 8.507059173e37F
#endif
#ifndef HIP_NORM_HUGE_F
#define HIP_NORM_HUGE_F 3.402823466e38F
#endif
#ifndef HIP_TWO_TO_23_F
#define HIP_TWO_TO_23_F 8388608.0F
#endif
#ifndef HIP_TWO_TO_24_F
#define HIP_TWO_TO_24_F 16777216.0F
#endif
#ifndef HIP_TWO_TO_31_F
#define HIP_TWO_TO_31_F 2147483648.0F
#endif
#ifndef HIP_TWO_TO_32_F
#define HIP_TWO_TO_32_F 4294967296.0F
#endif
#ifndef HIP_REMQUO_BITS_F
#define HIP_REMQUO_BITS_F 3U
#endif
#ifndef HIP_REMQUO_MASK_F
#define HIP_REMQUO_MASK_F (~((~0U)<<HIP_REMQUO_BITS_F))
#endif
#ifndef HIP_TRIG_PLOSS_F
#define HIP_TRIG_PLOSS_F 105615.0F
#endif
#ifndef HIP_INF
#define HIP_INF __longlong_as_double(0x7ff0000000000000ULL)
#endif
#ifndef HIP_NAN
#define HIP_NAN __longlong_as_double(0xfff8000000000000ULL)
#endif
#ifndef HIP_NEG_ZERO
#define HIP_NEG_ZERO __longlong_as_double(0x8000000000000000ULL)
#endif
#ifndef HIP_MIN_DENORM
#define HIP_MIN_DENORM __longlong_as_double(0x0000000000000001ULL)
#endif
#ifndef HIP_ZERO
#define HIP_ZERO 0.0
#endif
#ifndef HIP_ONE
#define HIP_ONE 1.0
#endif
#ifndef HIP_SQRT_TWO
#define HIP_SQRT_TWO 1.4142135623730951e+0
#endif
#ifndef HIP_SQRT_HALF
#define HIP_SQRT_HALF 7.0710678118654757e-1
#endif
#ifndef HIP_SQRT_HALF_HI
#define HIP_SQRT_HALF_HI 7.0710678118654757e-1
#endif
#ifndef HIP_SQRT_HALF_LO
#define HIP_SQRT_HALF_LO (-4.8336466567264567e-17)
#endif
#ifndef HIP_THIRD
#define HIP_THIRD 3.3333333333333333e-1
#endif
#ifndef HIP_TWOTHIRD
#define HIP_TWOTHIRD 6.6666666666666667e-1
#endif
#ifndef HIP_PIO4
#define HIP_PIO4 7.8539816339744828e-1
#endif
#ifndef HIP_PIO4_HI
#define HIP_PIO4_HI 7.8539816339744828e-1
#endif
#ifndef HIP_PIO4_LO
#define HIP_PIO4_LO 3.0616169978683830e-17
#endif
#ifndef HIP_PIO2
#define HIP_PIO2 1.5707963267948966e+0
#endif
#ifndef HIP_PIO2_HI
#define HIP_PIO2_HI 1.5707963267948966e+0
#endif
#ifndef HIP_PIO2_LO
#define HIP_PIO2_LO 6.1232339957367660e-17
#endif
#ifndef HIP_3PIO4
#define HIP_3PIO4 2.3561944901923448e+0
#endif
#ifndef HIP_2_OVER_PI
#define HIP_2_OVER_PI 6.3661977236758138e-1
#endif
#ifndef HIP_PI
#define HIP_PI 3.1415926535897931e+0
#endif
#ifndef HIP_PI_HI
#define HIP_PI_HI 3.1415926535897931e+0
#endif
#ifndef HIP_PI_LO
#define HIP_PI_LO 1.2246467991473532e-16
#endif
#ifndef HIP_SQRT_2PI
#define HIP_SQRT_2PI 2.5066282746310007e+0
#endif
#ifndef HIP_SQRT_2PI_HI
#define HIP_SQRT_2PI_HI 2.5066282746310007e+0
#endif
#ifndef HIP_SQRT_2PI_LO
#define HIP_SQRT_2PI_LO (-1.8328579980459167e-16)
#endif
#ifndef HIP_SQRT_PIO2
#define HIP_SQRT_PIO2 1.2533141373155003e+0
#endif
#ifndef HIP_SQRT_PIO2_HI
#define HIP_SQRT_PIO2_HI 1.2533141373155003e+0
#endif
#ifndef HIP_SQRT_PIO2_LO
#define HIP_SQRT_PIO2_LO (-9.1642899902295834e-17)
#endif
#ifndef HIP_SQRT_2OPI
#define HIP_SQRT_2OPI 7.9788456080286536e-1
#endif
#ifndef HIP_L2E
#define HIP_L2E 1.4426950408889634e+0
#endif
#ifndef HIP_L2E_HI
#define HIP_L2E_HI 1.4426950408889634e+0
#endif
#ifndef HIP_L2E_LO
#define HIP_L2E_LO 2.0355273740931033e-17
#endif
#ifndef HIP_L2T
#define HIP_L2T 3.3219280948873622e+0
#endif
#ifndef HIP_LG2
#define HIP_LG2 3.0102999566398120e-1
#endif
#ifndef HIP_LG2_HI
#define HIP_LG2_HI 3.0102999566398120e-1
#endif
#ifndef HIP_LG2_LO
#define HIP_LG2_LO (-2.8037281277851704e-18)
#endif
#ifndef HIP_LGE
#define HIP_LGE 4.3429448190325182e-1
#endif
#ifndef HIP_LGE_HI
#define HIP_LGE_HI 4.3429448190325182e-1
#endif
#ifndef HIP_LGE_LO
#define HIP_LGE_LO 1.09831965021676510e-17
#endif
#ifndef HIP_LN2
#define HIP_LN2 6.9314718055994529e-1
#endif
#ifndef HIP_LN2_HI
#define HIP_LN2_HI 6.9314718055994529e-1
#endif
#ifndef HIP_LN2_LO
#define HIP_LN2_LO 2.3190468138462996e-17
#endif
#ifndef HIP_LNT
#define HIP_LNT 2.3025850929940459e+0
#endif
#ifndef HIP_LNT_HI
#define HIP_LNT_HI 2.3025850929940459e+0
#endif
#ifndef HIP_LNT_LO
#define HIP_LNT_LO (-2.1707562233822494e-16)
#endif
#ifndef HIP_LNPI
#define HIP_LNPI 1.1447298858494002e+0
#endif
#ifndef HIP_LN2_X_1024
#define HIP_LN2_X_1024 7.0978271289338397e+2
#endif
#ifndef HIP_LN2_X_1025
#define HIP_LN2_X_1025 7.1047586007394398e+2
#endif
#ifndef HIP_LN2_X_1075
#define HIP_LN2_X_1075 7.4513321910194122e+2
#endif
#ifndef HIP_LG2_X_1024
#define HIP_LG2_X_1024 3.0825471555991675e+2
#endif
#ifndef HIP_LG2_X_1075
#define HIP_LG2_X_1075 3.2360724533877976e+2
#endif
#ifndef HIP_TWO_TO_23
#define HIP_TWO_TO_23 8388608.0
#endif
#ifndef HIP_TWO_TO_52
#define HIP_TWO_TO_52 4503599627370496.0
#endif
#ifndef HIP_TWO_TO_53
#define HIP_TWO_TO_53 9007199254740992.0
#endif
#ifndef HIP_TWO_TO_54
#define HIP_TWO_TO_54 18014398509481984.0
#endif
#ifndef HIP_TWO_TO_M54
#define HIP_TWO_TO_M54 5.5511151231257827e-17
#endif
#ifndef HIP_TWO_TO_M1022
#define HIP_TWO_TO_M1022 2.22507385850720140e-308
#endif
#ifndef HIP_TRIG_PLOSS
#define HIP_TRIG_PLOSS 2147483648.0
#endif
#ifndef HIP_DBL2INT_CVT
#define HIP_DBL2INT_CVT 6755399441055744.0
#endif
