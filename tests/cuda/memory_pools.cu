// Stream-ordered allocation: cudaMallocAsync/cudaFreeAsync from the default
// pool on two streams (a buffer freed on one stream and reused on the other
// after an event), a created pool with a release threshold and its
// reserved/used counters, cudaMemPoolTrimTo, the device's current pool, and
// the error paths; every kernel result is checked against the CPU.
#include <vector>

#include "check.h"

__global__ void fill(int* out, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = base + i;
}

__global__ void add_into(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 2 * a[i];
}

unsigned long long pool_attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
  unsigned long long v = ~0ull;
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, a, &v));
  return v;
}

int main() {
  const int n = 4096;
  const size_t bytes = n * sizeof(int);
  int supported = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
  CHECK(supported == 1);
  cudaStream_t s1, s2;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t freed;
  CHECK_CUDA(cudaEventCreate(&freed));

  // Producer on s1: a temporary, freed on s1 after the kernel that reads it.
  int *tmp, *acc;
  CHECK_CUDA(cudaMallocAsync(&tmp, bytes, s1));
  CHECK_CUDA(cudaMallocAsync(&acc, bytes, s1));
  fill<<<n / 256, 256, 0, s1>>>(tmp, n, 7);
  fill<<<n / 256, 256, 0, s1>>>(acc, n, 1000);
  add_into<<<n / 256, 256, 0, s1>>>(tmp, acc, n);
  CHECK_CUDA(cudaFreeAsync(tmp, s1));
  CHECK_CUDA(cudaEventRecord(freed, s1));
  // Consumer on s2, after the event: its allocation may reuse tmp's memory; acc stays intact.
  CHECK_CUDA(cudaStreamWaitEvent(s2, freed, 0));
  int* other;
  CHECK_CUDA(cudaMallocAsync(&other, bytes, s2));
  fill<<<n / 256, 256, 0, s2>>>(other, n, -50);
  add_into<<<n / 256, 256, 0, s2>>>(other, acc, n);
  std::vector<int> host(n);
  CHECK_CUDA(cudaMemcpyAsync(host.data(), acc, bytes, cudaMemcpyDeviceToHost, s2));
  CHECK_CUDA(cudaStreamSynchronize(s2));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 1000 + i + 2 * (7 + i) + 2 * (-50 + i));
  CHECK_CUDA(cudaFreeAsync(other, s2));
  CHECK_CUDA(cudaFreeAsync(acc, s2));

  // The default pool is the current one; with threshold 0 a synchronization releases it all.
  cudaMemPool_t def, cur;
  CHECK_CUDA(cudaDeviceGetDefaultMemPool(&def, 0));
  CHECK_CUDA(cudaDeviceGetMemPool(&cur, 0));
  CHECK(def == cur);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK(pool_attr(def, cudaMemPoolAttrUsedMemCurrent) == 0);
  CHECK(pool_attr(def, cudaMemPoolAttrReservedMemCurrent) == 0);
  CHECK(pool_attr(def, cudaMemPoolAttrUsedMemHigh) >= 2 * bytes);

  // A pool of its own, keeping up to 1 MiB across synchronizations.
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
  unsigned long long threshold = 1 << 20;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK(pool_attr(pool, cudaMemPoolAttrReleaseThreshold) == threshold);
  int* a;
  int* b;
  CHECK_CUDA(cudaMallocFromPoolAsync(&a, bytes, pool, s1));
  CHECK_CUDA(cudaMallocFromPoolAsync(&b, bytes, pool, s1));
  CHECK(a != b);
  CHECK(pool_attr(pool, cudaMemPoolAttrUsedMemCurrent) >= 2 * bytes);
  fill<<<n / 256, 256, 0, s1>>>(a, n, 3);
  CHECK_CUDA(cudaFreeAsync(a, s1));
  CHECK_CUDA(cudaStreamSynchronize(s1));
  const unsigned long long reserved = pool_attr(pool, cudaMemPoolAttrReservedMemCurrent);
  CHECK(reserved >= 2 * bytes);  // below the threshold: a's block is kept
  CHECK(pool_attr(pool, cudaMemPoolAttrUsedMemCurrent) < reserved);
  int* c;
  CHECK_CUDA(cudaMallocFromPoolAsync(&c, bytes, pool, s2));  // reuses a's block
  CHECK(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent) == reserved);
  fill<<<n / 256, 256, 0, s2>>>(c, n, 11);
  fill<<<n / 256, 256, 0, s2>>>(b, n, 22);
  add_into<<<n / 256, 256, 0, s2>>>(c, b, n);
  CHECK_CUDA(cudaMemcpy(host.data(), b, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 22 + i + 2 * (11 + i));
  // cudaFree works on pool memory too; trimming keeps what is asked for.
  CHECK_CUDA(cudaFree(c));
  CHECK_CUDA(cudaFreeAsync(b, s2));
  CHECK_CUDA(cudaStreamSynchronize(s2));
  CHECK(pool_attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0);
  CHECK_CUDA(cudaMemPoolTrimTo(pool, bytes));
  CHECK(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent) <= bytes);
  CHECK_CUDA(cudaMemPoolTrimTo(pool, 0));
  CHECK(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0);
  unsigned long long zero = 0;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  CHECK(pool_attr(pool, cudaMemPoolAttrUsedMemHigh) == 0);
  int follow = -1;
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &follow));
  CHECK(follow == 1);

  // The pool as the device's current pool serves cudaMallocAsync.
  CHECK_CUDA(cudaDeviceSetMemPool(0, pool));
  int* d;
  CHECK_CUDA(cudaMallocAsync(&d, bytes, s1));
  CHECK(pool_attr(pool, cudaMemPoolAttrUsedMemCurrent) >= bytes);
  fill<<<n / 256, 256, 0, s1>>>(d, n, 5);
  CHECK_CUDA(cudaMemcpyAsync(host.data(), d, bytes, cudaMemcpyDeviceToHost, s1));
  CHECK_CUDA(cudaStreamSynchronize(s1));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 5 + i);
  CHECK_CUDA(cudaFreeAsync(d, s1));
  cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  CHECK_CUDA(cudaMemPoolGetAccess(&flags, pool, &loc));
  CHECK(flags == cudaMemAccessFlagsProtReadWrite);

  // Errors: the default pool cannot be destroyed, a destroyed pool is no pool,
  // IPC pools and other devices are refused.
  CHECK_ERR(cudaMemPoolDestroy(def), cudaErrorInvalidValue);
  CHECK_CUDA(cudaMemPoolDestroy(pool));
  CHECK_CUDA(cudaDeviceGetMemPool(&cur, 0));
  CHECK(cur == def);  // the current pool falls back to the default one
  CHECK_ERR(cudaMallocFromPoolAsync(&d, bytes, pool, s1), cudaErrorInvalidValue);
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  CHECK_ERR(cudaMemPoolCreate(&pool, &props), cudaErrorNotSupported);
  CHECK_ERR(cudaDeviceGetDefaultMemPool(&cur, 1), cudaErrorInvalidDevice);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidDevice);
  CHECK_CUDA(cudaGetLastError());

  CHECK_CUDA(cudaEventDestroy(freed));
  CHECK_CUDA(cudaStreamDestroy(s1));
  CHECK_CUDA(cudaStreamDestroy(s2));
  std::printf("PASS memory_pools\n");
  return 0;
}
