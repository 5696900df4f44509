// Stream capture: work enqueued in a capturing stream (memset, kernels,
// copies, a host function, a graph launch) becomes a graph instead of
// running, with a fork into a second stream and its join through events; the
// graph then runs twice. Capture queries, dependency updates and capture into
// an existing graph; the capture mode rules (synchronous calls prohibited in
// global mode, allowed in relaxed mode or after
// cudaThreadExchangeStreamCaptureMode) and the errors that end a capture
// (invalidated, unjoined, unmatched, the legacy stream). Prints
// "PASS stream_capture" when every check holds.
#include <cstdio>
#include <vector>

#include "check.h"

constexpr int kN = 512;

__global__ void add(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += v;
}
__global__ void combine(int* a, const int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 2 + b[i];
}

void CUDART_CB count_call(void* p) { ++*static_cast<int*>(p); }

size_t node_count(cudaGraph_t g) {
  size_t n = 0;
  CHECK_CUDA(cudaGraphGetNodes(g, nullptr, &n));
  return n;
}

int main() {
  int *a, *b;
  CHECK_CUDA(cudaMalloc(&a, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&b, kN * sizeof(int)));
  std::vector<int> host(kN, -1);
  int host_calls = 0;
  cudaStream_t s1, s2;
  CHECK_CUDA(cudaStreamCreate(&s1));
  CHECK_CUDA(cudaStreamCreate(&s2));
  cudaEvent_t fork, join;
  CHECK_CUDA(cudaEventCreate(&fork));
  CHECK_CUDA(cudaEventCreate(&join));

  // A small graph to launch inside the capture: b += 1.
  cudaGraph_t inc;
  CHECK_CUDA(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
  add<<<kN / 128, 128, 0, s2>>>(b, kN, 1);
  CHECK_CUDA(cudaStreamEndCapture(s2, &inc));
  cudaGraphExec_t inc_exec;
  CHECK_CUDA(cudaGraphInstantiate(&inc_exec, inc, 0));

  // s1: memset a, a += 5, fork; s2: memset b, b += 7, inc graph; s1: a = 2a + b (after the join), copy out, host fn.
  cudaStreamCaptureStatus status;
  CHECK_CUDA(cudaStreamIsCapturing(s1, &status));
  CHECK(status == cudaStreamCaptureStatusNone);
  CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaStreamIsCapturing(s1, &status));
  CHECK(status == cudaStreamCaptureStatusActive);
  CHECK_ERR(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
  CHECK_CUDA(cudaMemsetAsync(a, 0, kN * sizeof(int), s1));
  add<<<kN / 128, 128, 0, s1>>>(a, kN, 5);
  CHECK_CUDA(cudaEventRecord(fork, s1));
  CHECK_CUDA(cudaStreamWaitEvent(s2, fork, 0));  // s2 joins the capture
  CHECK_CUDA(cudaStreamIsCapturing(s2, &status));
  CHECK(status == cudaStreamCaptureStatusActive);
  CHECK_CUDA(cudaMemsetAsync(b, 0, kN * sizeof(int), s2));
  add<<<kN / 128, 128, 0, s2>>>(b, kN, 7);
  CHECK_CUDA(cudaGraphLaunch(inc_exec, s2));
  CHECK_CUDA(cudaEventRecord(join, s2));
  CHECK_CUDA(cudaStreamWaitEvent(s1, join, 0));
  combine<<<kN / 128, 128, 0, s1>>>(a, b, kN);
  CHECK_CUDA(cudaMemcpyAsync(host.data(), a, kN * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK_CUDA(cudaLaunchHostFunc(s1, count_call, &host_calls));
  unsigned long long id1 = 0, id2 = 0;
  cudaGraph_t capturing = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  size_t num_deps = 0;
  CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, &id1, &capturing, &deps, nullptr, &num_deps));
  CHECK(status == cudaStreamCaptureStatusActive && capturing && num_deps == 1);
  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(deps[0], &type));
  CHECK(type == cudaGraphNodeTypeHost);
  CHECK_CUDA(cudaStreamGetCaptureInfo(s2, &status, &id2));
  CHECK(id1 == id2);
  // Nothing ran: the host buffer and the host function are untouched.
  CHECK(host[0] == -1 && host_calls == 0);
  cudaGraph_t g;
  CHECK_CUDA(cudaStreamEndCapture(s1, &g));
  CHECK_CUDA(cudaStreamIsCapturing(s2, &status));
  CHECK(status == cudaStreamCaptureStatusNone);
  CHECK(node_count(g) == 8);  // 2 memsets, 3 kernels, the child graph, copy, host fn
  size_t roots = 0;
  CHECK_CUDA(cudaGraphGetRootNodes(g, nullptr, &roots));
  CHECK(roots == 1);

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 1; launch <= 2; ++launch) {
    CHECK_CUDA(cudaGraphLaunch(exec, s1));
    CHECK_CUDA(cudaStreamSynchronize(s1));
    for (int i = 0; i < kN; ++i) CHECK(host[i] == 5 * 2 + 7 + 1);
    CHECK(host_calls == launch);
  }

  // cudaStreamUpdateCaptureDependencies: an empty set makes the next node a root.
  CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
  add<<<1, 32, 0, s1>>>(a, 32, 1);
  CHECK_CUDA(cudaStreamUpdateCaptureDependencies(s1, nullptr, nullptr, 0, cudaStreamSetCaptureDependencies));
  add<<<1, 32, 0, s1>>>(a, 32, 1);
  cudaGraph_t two_roots;
  CHECK_CUDA(cudaStreamEndCapture(s1, &two_roots));
  CHECK_CUDA(cudaGraphGetRootNodes(two_roots, nullptr, &roots));
  CHECK(roots == 2);

  // Capturing into an existing graph, after one of its nodes.
  cudaGraph_t into;
  CHECK_CUDA(cudaGraphCreate(&into, 0));
  cudaGraphNode_t first;
  CHECK_CUDA(cudaGraphAddEmptyNode(&first, into, nullptr, 0));
  CHECK_CUDA(cudaStreamBeginCaptureToGraph(s1, into, &first, nullptr, 1, cudaStreamCaptureModeGlobal));
  add<<<1, 32, 0, s1>>>(a, 32, 1);
  cudaGraph_t same = nullptr;
  CHECK_CUDA(cudaStreamEndCapture(s1, &same));
  CHECK(same == into && node_count(into) == 2);
  CHECK_CUDA(cudaGraphGetRootNodes(into, nullptr, &roots));
  CHECK(roots == 1);
  CHECK_CUDA(cudaGraphDestroy(into));

  // Global mode: a synchronous call invalidates the capture.
  void* p = nullptr;
  CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK_ERR(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
  CHECK_CUDA(cudaStreamIsCapturing(s1, &status));
  CHECK(status == cudaStreamCaptureStatusInvalidated);
  CHECK_ERR(cudaMemsetAsync(a, 0, 4, s1), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t none = g;
  CHECK_ERR(cudaStreamEndCapture(s1, &none), cudaErrorStreamCaptureInvalidated);
  CHECK(none == nullptr);
  // So does waiting for the capturing stream.
  CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  CHECK_ERR(cudaStreamSynchronize(s1), cudaErrorStreamCaptureUnsupported);
  CHECK_ERR(cudaStreamEndCapture(s1, &none), cudaErrorStreamCaptureInvalidated);
  // Relaxed mode allows it; so does a relaxed thread mode during a global capture.
  CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  CHECK_CUDA(cudaMalloc(&p, 64));
  CHECK_CUDA(cudaFree(p));
  cudaGraph_t empty;
  CHECK_CUDA(cudaStreamEndCapture(s1, &empty));
  CHECK(node_count(empty) == 0);
  CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == cudaStreamCaptureModeGlobal);
  CHECK_CUDA(cudaMalloc(&p, 64));
  CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK_ERR(cudaFree(p), cudaErrorStreamCaptureUnsupported);
  CHECK_ERR(cudaStreamEndCapture(s1, &none), cudaErrorStreamCaptureInvalidated);
  CHECK_CUDA(cudaFree(p));

  // A fork that is not joined back; ending in the forked stream.
  CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaEventRecord(fork, s1));
  CHECK_CUDA(cudaStreamWaitEvent(s2, fork, 0));
  add<<<1, 32, 0, s2>>>(b, 32, 1);
  CHECK_ERR(cudaStreamEndCapture(s2, &none), cudaErrorStreamCaptureUnmatched);
  CHECK_ERR(cudaStreamEndCapture(s1, &none), cudaErrorStreamCaptureUnjoined);
  CHECK_CUDA(cudaStreamIsCapturing(s2, &status));
  CHECK(status == cudaStreamCaptureStatusNone);
  // The legacy default stream cannot capture.
  CHECK_ERR(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
  CHECK_ERR(cudaStreamEndCapture(s1, &none), cudaErrorIllegalState);

  // Outside capture everything runs again.
  CHECK_CUDA(cudaMemset(a, 0, kN * sizeof(int)));
  add<<<kN / 128, 128, 0, s1>>>(a, kN, 3);
  CHECK_CUDA(cudaMemcpy(host.data(), a, kN * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(host[kN - 1] == 3);
  CHECK(cudaGetLastError() == cudaErrorIllegalState);  // the last failure above

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphExecDestroy(inc_exec));
  for (cudaGraph_t x : {g, inc, two_roots, empty}) CHECK_CUDA(cudaGraphDestroy(x));
  std::printf("PASS stream_capture\n");
  return 0;
}
