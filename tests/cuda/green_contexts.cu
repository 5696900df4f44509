// Green contexts through the CUDA driver API (linked with -lcuda): the
// device's SMs split into two groups, a green context and a stream on each,
// a kernel launched into each stream. Every TB records the SM it ran on
// (%smid); the host checks that each kernel stayed on its group's SMs, that
// the groups are disjoint, that a kernel of an ordinary stream may use every
// SM, and the results against the CPU; the runtime's and the driver's SM
// counts must be the device's too. Arguments: the device's SM count and,
// optionally, its first SM (a MIG instance's); the placement gpumux documents
// (group i: SMs [first + i x size, first + (i + 1) x size)) is checked too
// (docs/sharing-modes.md, "Green contexts"). A green context made current
// (cuCtxFromGreenCtx, cuCtxSetCurrent, cuCtxPushCurrent) takes the runtime's
// default-stream launches and cudaStreamCreate's streams onto its SMs; the
// primary context made current again gives them every SM. With the argument
// "unsupported" it calls a driver function gpumux does not implement, which
// must end the program with the function's name.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "check.h"

#define CHECK_CU(call) CHECK_CU_ERR(call, CUDA_SUCCESS)
#define CHECK_CU_ERR(call, expected)                                                           \
  do {                                                                                         \
    CUresult r_ = (call);                                                                      \
    if (r_ != (expected)) {                                                                    \
      const char* name_ = nullptr;                                                             \
      cuGetErrorName(r_, &name_);                                                              \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %d (%s), expected %s\n", __FILE__, __LINE__, \
                   #call, int(r_), name_ ? name_ : "?", #expected);                           \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

__device__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__global__ void scale_add(const float* in, float* out, unsigned* sms, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + b * float(i % 7);
  if (threadIdx.x == 0) sms[blockIdx.x] = smid();
}

constexpr int kThreads = 128, kBlocks = 96, kN = kThreads * kBlocks;

struct Run {
  float a, b;
  float* out;
  unsigned* sms;
  std::vector<float> host_out;
  std::vector<unsigned> host_sms;
};

void launch(Run& r, const float* in, cudaStream_t s) {
  CHECK_CUDA(cudaMalloc(&r.out, kN * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&r.sms, kBlocks * sizeof(unsigned)));
  scale_add<<<kBlocks, kThreads, 0, s>>>(in, r.out, r.sms, kN, r.a, r.b);
  CHECK_CUDA(cudaGetLastError());
}

std::set<unsigned> finish(Run& r, const std::vector<float>& in) {
  r.host_out.resize(kN);
  r.host_sms.resize(kBlocks);
  CHECK_CUDA(cudaMemcpy(r.host_out.data(), r.out, kN * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(r.host_sms.data(), r.sms, kBlocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) CHECK(r.host_out[i] == r.a * in[i] + r.b * float(i % 7));
  return std::set<unsigned>(r.host_sms.begin(), r.host_sms.end());
}

int main(int argc, char** argv) {
  CHECK(argc == 2 || argc == 3);
  if (std::string(argv[1]) == "unsupported") {
    CHECK_CU(cuInit(0));
    cuCtxResetPersistingL2Cache();
    std::printf("FAIL: cuCtxResetPersistingL2Cache returned\n");
    return 1;
  }
  const unsigned num_sms = unsigned(std::atoi(argv[1]));
  const unsigned first = argc == 3 ? unsigned(std::atoi(argv[2])) : 0;
  CHECK_CU_ERR(cuDeviceGetCount(nullptr), CUDA_ERROR_NOT_INITIALIZED);  // before cuInit
  CHECK_CU(cuInit(0));
  int version = 0, count = 0;
  CHECK_CU(cuDriverGetVersion(&version));
  CHECK(version >= 12040);  // green contexts came with CUDA 12.4
  CHECK_CU(cuDeviceGetCount(&count));
  CHECK(count == 1);
  CUdevice dev;
  CHECK_CU(cuDeviceGet(&dev, 0));

  CUdevResource all;
  CHECK_CU(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  CHECK(all.type == CU_DEV_RESOURCE_TYPE_SM);
  CHECK(all.sm.smCount == num_sms);
  // The runtime and the driver describe the same device (a MIG instance's SMs under mig).
  int sm_attr = 0, cu_sm_attr = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sm_attr, cudaDevAttrMultiProcessorCount, 0));
  CHECK_CU(cuDeviceGetAttribute(&cu_sm_attr, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  CHECK(sm_attr == int(num_sms) && cu_sm_attr == int(num_sms) && prop.multiProcessorCount == int(num_sms));
  // Compute capability 8.x: at least 4 SMs per group, a multiple of 2.
  CHECK(all.sm.minSmPartitionSize == 4 && all.sm.smCoscheduledAlignment == 2);

  // minCount 5 rounds up to 6: two groups of 6 on 16 SMs, 4 remaining.
  const unsigned group_sms = 6;
  unsigned n = 0;
  CHECK_CU(cuDevSmResourceSplitByCount(nullptr, &n, &all, nullptr, 0, 5));  // a query
  CHECK(n == num_sms / group_sms);
  CHECK(n >= 2);
  n = 2;
  CUdevResource groups[2], rest;
  CHECK_CU(cuDevSmResourceSplitByCount(groups, &n, &all, &rest, 0, 5));
  CHECK(n == 2);
  CHECK(groups[0].sm.smCount == group_sms && groups[1].sm.smCount == group_sms);
  CHECK(rest.sm.smCount == num_sms - 2 * group_sms);
  // Impossible requests.
  CHECK_CU_ERR(cuDevSmResourceSplitByCount(groups, &n, &all, nullptr, 0, num_sms + 1), CUDA_ERROR_INVALID_VALUE);
  CHECK_CU_ERR(cuDevSmResourceSplitByCount(nullptr, &n, &groups[0], nullptr, 0, 2),
               CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);  // a split's output is split only through a green context

  CUgreenCtx green[2];
  CUstream streams[2];
  for (int g = 0; g < 2; ++g) {
    CUdevResourceDesc desc;
    CHECK_CU(cuDevResourceGenerateDesc(&desc, &groups[g], 1));
    CHECK_CU_ERR(cuGreenCtxCreate(&green[g], desc, dev, 0), CUDA_ERROR_INVALID_VALUE);  // the flag is required
    CHECK_CU(cuGreenCtxCreate(&green[g], desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CHECK_CU(cuGreenCtxStreamCreate(&streams[g], green[g], CU_STREAM_NON_BLOCKING, 0));
    CUgreenCtx of = nullptr;
    CHECK_CU(cuStreamGetGreenCtx(streams[g], &of));
    CHECK(of == green[g]);
    CUdevResource mine;
    CHECK_CU(cuGreenCtxGetDevResource(green[g], &mine, CU_DEV_RESOURCE_TYPE_SM));
    CHECK(mine.sm.smCount == group_sms);
  }

  std::vector<float> in(kN);
  for (int i = 0; i < kN; ++i) in[i] = float(i % 1000) * 0.5f;
  float* d_in;
  CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

  // Both green contexts' kernels at once, then one on an ordinary stream.
  Run runs[3] = {{2.0f, 1.0f}, {-1.0f, 3.0f}, {0.5f, -2.0f}};
  launch(runs[0], d_in, streams[0]);
  launch(runs[1], d_in, streams[1]);
  for (int g = 0; g < 2; ++g) CHECK_CU(cuStreamSynchronize(streams[g]));
  cudaStream_t plain;
  CHECK_CUDA(cudaStreamCreate(&plain));
  CUgreenCtx none = green[0];
  CHECK_CU(cuStreamGetGreenCtx(plain, &none));
  CHECK(none == nullptr);
  launch(runs[2], d_in, plain);
  CHECK_CUDA(cudaStreamSynchronize(plain));

  std::set<unsigned> used[3];
  for (int k = 0; k < 3; ++k) used[k] = finish(runs[k], in);
  for (int g = 0; g < 2; ++g) {
    CHECK(used[g].size() <= group_sms);
    for (unsigned sm : used[g]) {
      CHECK(used[1 - g].count(sm) == 0);                        // disjoint groups
      CHECK(sm >= first + g * group_sms && sm < first + (g + 1) * group_sms);  // gpumux's placement
    }
  }
  CHECK(used[2].size() > group_sms);  // the ordinary stream is not confined
  CHECK(*used[2].rbegin() >= first + 2 * group_sms);  // and reaches the SMs of no group

  // Green context 1 made current: the runtime's default stream and a new
  // runtime stream launch on its SMs; the primary context again: every SM.
  CUcontext primary = nullptr, ctx1 = nullptr, again = nullptr, popped = nullptr;
  CHECK_CU(cuCtxGetCurrent(&primary));
  CHECK(primary != nullptr);
  CHECK_CU(cuCtxFromGreenCtx(&ctx1, green[1]));
  CHECK_CU(cuCtxFromGreenCtx(&again, green[1]));
  CHECK(again == ctx1 && ctx1 != primary);
  CHECK_CU(cuCtxSetCurrent(ctx1));
  CHECK_CU(cuCtxGetCurrent(&again));
  CHECK(again == ctx1);
  cudaStream_t in_green;
  CHECK_CUDA(cudaStreamCreate(&in_green));
  CUgreenCtx of_stream = nullptr;
  CHECK_CU(cuStreamGetGreenCtx(in_green, &of_stream));
  CHECK(of_stream == nullptr);  // a runtime stream on the green context's SMs, not one of cuGreenCtxStreamCreate
  Run current[3] = {{1.5f, 0.5f}, {3.0f, -1.0f}, {-2.0f, 2.0f}};
  launch(current[0], d_in, 0);
  launch(current[1], d_in, in_green);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CU_ERR(cuGreenCtxDestroy(green[1]), CUDA_ERROR_INVALID_CONTEXT);  // current: not destroyed
  CHECK_CU(cuCtxPushCurrent(primary));
  launch(current[2], d_in, 0);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CU(cuCtxPopCurrent(&popped));
  CHECK(popped == primary);
  CHECK_CU(cuCtxGetCurrent(&again));
  CHECK(again == ctx1);
  CHECK_CU(cuCtxSetCurrent(nullptr));  // the primary context again
  CHECK_CU(cuCtxGetCurrent(&again));
  CHECK(again == primary);
  CHECK_CU_ERR(cuCtxSetCurrent(reinterpret_cast<CUcontext>(&popped)), CUDA_ERROR_INVALID_CONTEXT);
  for (int k = 0; k < 2; ++k)
    for (unsigned sm : finish(current[k], in)) CHECK(sm >= first + group_sms && sm < first + 2 * group_sms);
  const std::set<unsigned> primary_sms = finish(current[2], in);
  CHECK(primary_sms.size() > group_sms && *primary_sms.rbegin() >= first + 2 * group_sms);
  CHECK_CUDA(cudaStreamDestroy(in_green));

  for (int g = 0; g < 2; ++g) {
    CHECK_CU(cuStreamDestroy(streams[g]));
    CHECK_CU(cuGreenCtxDestroy(green[g]));
  }
  CHECK_CUDA(cudaStreamDestroy(plain));
  // The runtime's entry-point query finds the driver's functions (versioned
  // names included) and reports the ones gpumux lacks as not found.
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuGreenCtxCreate", &fn, 12040, cudaEnableDefault, &found));
  CHECK(found == cudaDriverEntryPointSuccess && fn == reinterpret_cast<void*>(&cuGreenCtxCreate));
  CHECK_CUDA(cudaGetDriverEntryPoint("cuStreamDestroy", &fn, cudaEnableDefault, &found));
  CHECK(fn == reinterpret_cast<void*>(&cuStreamDestroy));  // cuda.h's cuStreamDestroy_v2
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuCtxPopCurrent", &fn, 13000, cudaEnableDefault, &found));
  CHECK(fn == reinterpret_cast<void*>(&cuCtxPopCurrent));  // cuda.h's cuCtxPopCurrent_v2
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuCtxResetPersistingL2Cache", &fn, 13000, cudaEnableDefault, &found));
  CHECK(fn == nullptr && found == cudaDriverEntryPointSymbolNotFound);
  const char* text = nullptr;
  CHECK_CU(cuGetErrorString(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, &text));
  CHECK(text != nullptr);
  std::printf("PASS green_contexts: SMs %u-%u and %u-%u, plain stream on %zu SMs\n", *used[0].begin(),
              *used[0].rbegin(), *used[1].begin(), *used[1].rbegin(), used[2].size());
  return 0;
}
