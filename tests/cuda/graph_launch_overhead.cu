// The launch overhead of a graph: the same chain of short kernels launched
// one by one in a stream and as a captured graph, timed with events in
// simulated time. Prints the two times (tests/cudart compares them with the
// GPU config's frontend.launch_latency and graph_launch_latency) and
// "PASS graph_launch_overhead" when the results are right and the graph is faster.
#include <cstdio>

#include "check.h"

constexpr int kKernels = 20;

__global__ void tiny(int* x) {
  if (threadIdx.x == 0) atomicAdd(x, 1);
}

int main() {
  int* x;
  CHECK_CUDA(cudaMalloc(&x, sizeof(int)));
  CHECK_CUDA(cudaMemset(x, 0, sizeof(int)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  cudaEvent_t e[4];
  for (cudaEvent_t& ev : e) CHECK_CUDA(cudaEventCreate(&ev));

  CHECK_CUDA(cudaEventRecord(e[0], s));
  for (int i = 0; i < kKernels; ++i) tiny<<<1, 32, 0, s>>>(x);
  CHECK_CUDA(cudaEventRecord(e[1], s));
  CHECK_CUDA(cudaStreamSynchronize(s));

  cudaGraph_t g;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < kKernels; ++i) tiny<<<1, 32, 0, s>>>(x);
  CHECK_CUDA(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  CHECK_CUDA(cudaEventRecord(e[2], s));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaEventRecord(e[3], s));
  CHECK_CUDA(cudaStreamSynchronize(s));

  int count = 0;
  CHECK_CUDA(cudaMemcpy(&count, x, sizeof count, cudaMemcpyDeviceToHost));
  CHECK(count == 2 * kKernels);
  float stream_ms = 0, graph_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&stream_ms, e[0], e[1]));
  CHECK_CUDA(cudaEventElapsedTime(&graph_ms, e[2], e[3]));
  std::printf("launch_overhead kernels=%d stream_ms=%.9f graph_ms=%.9f\n", kKernels, stream_ms, graph_ms);
  CHECK(graph_ms < stream_ms);
  std::printf("PASS graph_launch_overhead\n");
  return 0;
}
