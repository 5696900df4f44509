// Managed memory with prefetches and advice: inputs written by the host,
// an output only the device writes, cudaMemAdvise on the inputs, a kernel
// that faults its data in, the same kernel after cudaMemPrefetchAsync, a
// prefetch back to the host before the host updates an input, and the
// errors a real GPU returns for bad arguments. Checked against the CPU.
#include <cstdio>
#include <vector>

#include "check.h"

__global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

static void check_against_cpu(float a, const float* x, const float* y, const float* out, int n) {
  for (int i = 0; i < n; ++i) CHECK(out[i] == a * x[i] + y[i]);
}

int main() {
  const int n = 1 << 18;  // 1 MB per array: 16 migration units of 64 KB
  const size_t bytes = n * sizeof(float);
  float *x = nullptr, *y = nullptr, *out = nullptr, *plain = nullptr;
  CHECK_CUDA(cudaMallocManaged(&x, bytes));
  CHECK_CUDA(cudaMallocManaged(&y, bytes));
  CHECK_CUDA(cudaMallocManaged(&out, bytes));
  CHECK_CUDA(cudaMalloc(&plain, bytes));
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 1000);
    y[i] = float(i % 7);
  }
  cudaMemLocation gpu{cudaMemLocationTypeDevice, 0}, host{cudaMemLocationTypeHost, 0};
  CHECK_CUDA(cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, gpu));
  CHECK_CUDA(cudaMemAdvise(y, bytes, cudaMemAdviseSetPreferredLocation, gpu));
  CHECK_CUDA(cudaMemAdvise(y, bytes, cudaMemAdviseSetAccessedBy, gpu));
  CHECK_CUDA(cudaMemAdvise(y, bytes, cudaMemAdviseUnsetAccessedBy, gpu));

  // Errors: advice and prefetches take managed memory, known advice, device 0 or the host.
  CHECK_ERR(cudaMemAdvise(plain, bytes, cudaMemAdviseSetReadMostly, gpu), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemAdvise(x, bytes, cudaMemoryAdvise(99), gpu), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemPrefetchAsync(plain, bytes, gpu, 0, 0), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemPrefetchAsync(x, bytes, cudaMemLocation{cudaMemLocationTypeDevice, 1}, 0, 0),
            cudaErrorInvalidDevice);
  cudaGetLastError();

  cudaEvent_t start, faulted, prefetched, done;
  for (cudaEvent_t* e : {&start, &faulted, &prefetched, &done}) CHECK_CUDA(cudaEventCreate(e));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  // First touch on the device: the inputs migrate, the output is allocated there.
  CHECK_CUDA(cudaEventRecord(start));
  saxpy<<<blocks, threads>>>(2.0f, x, y, out, n);
  CHECK_CUDA(cudaEventRecord(faulted));
  CHECK_CUDA(cudaEventSynchronize(faulted));
  check_against_cpu(2.0f, x, y, out, n);

  // The host updates y after taking it back; the prefetch brings it to the device ahead of the kernel.
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_CUDA(cudaMemPrefetchAsync(y, bytes, host, 0, s));
  for (int i = 0; i < n; ++i) y[i] += 1.0f;
  CHECK_CUDA(cudaMemPrefetchAsync(y, bytes, gpu, 0, s));
  CHECK_CUDA(cudaMemPrefetchAsync(out, bytes, gpu, 0, s));
  CHECK_CUDA(cudaEventRecord(prefetched, s));
  saxpy<<<blocks, threads, 0, s>>>(3.0f, x, y, out, n);
  CHECK_CUDA(cudaEventRecord(done, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  check_against_cpu(3.0f, x, y, out, n);

  float first_ms = 0, second_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&first_ms, start, faulted));
  CHECK_CUDA(cudaEventElapsedTime(&second_ms, prefetched, done));
  std::printf("kernel with faults %.3f ms, after prefetches %.3f ms\n", first_ms, second_ms);

  CHECK_CUDA(cudaStreamDestroy(s));
  for (cudaEvent_t e : {start, faulted, prefetched, done}) CHECK_CUDA(cudaEventDestroy(e));
  for (float* p : {x, y, out, plain}) CHECK_CUDA(cudaFree(p));
  std::printf("PASS managed_prefetch\n");
  return 0;
}
