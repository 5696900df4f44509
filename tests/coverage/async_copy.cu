// Coverage: asynchronous copies the way CUDA code writes them. Each block
// stages tiles of `in` through shared memory and writes 2*x+1 to `out`.
//  - pipeline_scale: cuda::pipeline (cp.async + commit/wait groups), two stages.
//  - barrier_scale: cuda::memcpy_async with a block-scope cuda::barrier
//    (mbarrier init/arrive/try_wait, cp.async.mbarrier.arrive).
//  - cg_scale: cooperative_groups::memcpy_async + cg::wait.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>

// cuda::barrier in __shared__ has a constructor nvcc does not run; init() sets it up.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;

constexpr int kTile = 256;

extern "C" __global__ void pipeline_scale(const float* in, float* out, int tiles_per_block) {
  __shared__ float buf[2][kTile];
  auto pipe = cuda::make_pipeline();
  const int base = blockIdx.x * tiles_per_block * kTile;
  int fetch = 0;
  for (int stage = 0; stage < 2 && fetch < tiles_per_block; ++stage, ++fetch) {
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[stage][threadIdx.x], &in[base + fetch * kTile + threadIdx.x],
                       sizeof(float), pipe);
    pipe.producer_commit();
  }
  for (int t = 0; t < tiles_per_block; ++t) {
    pipe.consumer_wait();
    __syncthreads();
    out[base + t * kTile + threadIdx.x] = 2.0f * buf[t % 2][(threadIdx.x + 1) % kTile] + 1.0f;
    __syncthreads();
    pipe.consumer_release();
    if (fetch < tiles_per_block) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buf[fetch % 2][threadIdx.x], &in[base + fetch * kTile + threadIdx.x],
                         sizeof(float), pipe);
      pipe.producer_commit();
      ++fetch;
    }
  }
}

extern "C" __global__ void barrier_scale(const float4* in, float4* out) {
  __shared__ float4 tile[kTile];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * kTile, sizeof(tile), bar);
  bar.arrive_and_wait();
  float4 v = tile[(threadIdx.x + 3) % kTile];
  out[blockIdx.x * kTile + threadIdx.x] = make_float4(2 * v.x + 1, 2 * v.y + 1, 2 * v.z + 1, 2 * v.w + 1);
}

extern "C" __global__ void cg_scale(const int* in, int* out) {
  __shared__ int tile[kTile];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in + blockIdx.x * kTile, sizeof(int) * kTile);
  cg::wait(block);
  out[blockIdx.x * kTile + threadIdx.x] = 2 * tile[kTile - 1 - threadIdx.x] + 1;
}
