// gen_ptx flags: -rdc=true
// Streams created in a kernel (dynamic parallelism): each thread of the parent
// creates a non-blocking stream and launches two children into it, the second
// reading what the first wrote (work in one stream runs in order), then
// destroys the stream. A stream created without cudaStreamNonBlocking is
// refused, as on a GPU.
#include <cuda_runtime.h>

__global__ void fill(int* out, int v) { out[threadIdx.x] = v + int(threadIdx.x); }
__global__ void twice(int* out) { out[threadIdx.x] *= 2; }

extern "C" __global__ void streams_parent(int* out, int* status) {
  cudaStream_t s;
  int* mine = out + 32 * threadIdx.x;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
    status[threadIdx.x] = -1;
    return;
  }
  fill<<<1, 32, 0, s>>>(mine, int(threadIdx.x) * 100);
  twice<<<1, 32, 0, s>>>(mine);
  cudaStream_t blocking;
  status[threadIdx.x] = int(cudaStreamCreateWithFlags(&blocking, cudaStreamDefault)) * 10 +
                        int(cudaStreamDestroy(s));
}
