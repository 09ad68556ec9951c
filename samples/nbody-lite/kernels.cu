#include "kernels.cuh"

__global__ void integrate(float4 *pos, float4 *vel, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float3 acc = make_float3(0.f, 0.f, 0.f);
  for (int j = 0; j < n; ++j) {
    float4 q = __ldg(&pos[j]);
    float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-9f);
    float s = q.w * inv * inv * inv;
    acc.x += dx * s; acc.y += dy * s; acc.z += dz * s;
  }
  vel[i].x += acc.x * dt; vel[i].y += acc.y * dt; vel[i].z += acc.z * dt;
  pos[i].x += vel[i].x * dt; pos[i].y += vel[i].y * dt; pos[i].z += vel[i].z * dt;
}

__global__ void energy(const float4 *vel, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float e = 0.f;
  if (i < n) e = 0.5f * (vel[i].x * vel[i].x + vel[i].y * vel[i].y + vel[i].z * vel[i].z);
  e = warp_sum(e);
  int lane = threadIdx.x % WARP_SIZE;
  if (lane == 0) atomicAdd(out, e);
}
