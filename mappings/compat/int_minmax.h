// id: int_minmax
// names: umin umax llmin llmax ullmin ullmax
// rocm: 5.0.0
// exact: no
// source: https://docs.nvidia.com/cuda/cuda-math-api/cuda_math_api/group__CUDA__MATH__INT.html (umin, umax, llmin, llmax, ullmin, ullmax)
// source: https://rocm.docs.amd.com/projects/HIPIFY/en/latest/reference/tables/CUDA_Device_API_supported_by_HIP.html (HIP declares none of them)
// semantics: The CUDA integer minimum and maximum functions, each the plain comparison of its two arguments in the named type, callable from host and device as in CUDA. HIP's min/max overloads cover most uses, but these names do not exist in any HIP release. Trivially equivalent; still not a HIP implementation, so reviewed like every shim.
// test: __global__ void k(unsigned* u, long long* l, unsigned long long* q) {
// test:   u[0] = umin(u[1], u[2]) + umax(u[1], u[2]); l[0] = llmin(l[1], l[2]) + llmax(l[1], l[2]); q[0] = ullmin(q[1], q[2]) + ullmax(q[1], q[2]); }
// ---
static inline __host__ __device__ unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline __host__ __device__ unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
static inline __host__ __device__ long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline __host__ __device__ long long llmax(long long a, long long b) { return a < b ? b : a; }
static inline __host__ __device__ unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline __host__ __device__ unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
