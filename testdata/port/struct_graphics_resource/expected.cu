// CUDA-GL interop style (cuda-samples particles, simpleGL…): the resource is named through its
// struct tag. HIP's hipGraphicsResource is a typedef, so only its tag `_hipGraphicsResource`
// may follow `struct`.
#include <hip/hip_runtime.h>

struct _hipGraphicsResource;  // forward declaration

class ParticleSystem {
 public:
  void map(float **pos) {
    size_t bytes = 0;
    hipGraphicsMapResources(1, &m_cuda_posvbo_resource, 0);
    hipGraphicsResourceGetMappedPointer((void **)pos, &bytes, m_cuda_posvbo_resource);
  }
  void unmap() { hipGraphicsUnmapResources(1, &m_cuda_posvbo_resource, 0); }

 protected:
  struct _hipGraphicsResource *m_cuda_posvbo_resource = nullptr;  // handles OpenGL-CUDA exchange
  hipGraphicsResource_t m_cuda_colorvbo_resource = nullptr;
  hipGraphicsResource *m_plain = nullptr;
};

const char *kStructName = "struct cudaGraphicsResource";  // a string is never touched
