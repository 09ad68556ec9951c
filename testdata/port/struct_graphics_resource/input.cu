// CUDA-GL interop style (cuda-samples particles, simpleGL…): the resource is named through its
// struct tag. HIP's hipGraphicsResource is a typedef, so only its tag `_hipGraphicsResource`
// may follow `struct`.
#include <cuda_runtime.h>

struct cudaGraphicsResource;  // forward declaration

class ParticleSystem {
 public:
  void map(float **pos) {
    size_t bytes = 0;
    cudaGraphicsMapResources(1, &m_cuda_posvbo_resource, 0);
    cudaGraphicsResourceGetMappedPointer((void **)pos, &bytes, m_cuda_posvbo_resource);
  }
  void unmap() { cudaGraphicsUnmapResources(1, &m_cuda_posvbo_resource, 0); }

 protected:
  struct cudaGraphicsResource *m_cuda_posvbo_resource = nullptr;  // handles OpenGL-CUDA exchange
  cudaGraphicsResource_t m_cuda_colorvbo_resource = nullptr;
  cudaGraphicsResource *m_plain = nullptr;
};

const char *kStructName = "struct cudaGraphicsResource";  // a string is never touched
