// The multi-device entry points on gpumux's single device: peer copies of
// device 0 with itself, peer access refused, its PCI name both ways,
// cudaSetValidDevices, the shared-memory bank configuration and a kernel's
// parameter layout (cudaFuncGetParamInfo). Errors are not sticky.
#include <cstring>

// The shared-memory bank calls are deprecated, and still called by older programs.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include "check.h"

struct Triple {
  double a;
  char b;
  int c;
};

__global__ void params(int x, double y, Triple t, const float* p) {}

int main() {
  const int n = 4096;
  int *a, *b;
  CHECK_CUDA(cudaMalloc(&a, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&b, n * sizeof(int)));
  int h[n], got[n];
  for (int i = 0; i < n; ++i) h[i] = i * 3 - 7;
  CHECK_CUDA(cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpyPeer(b, 0, a, 0, sizeof h));
  CHECK_CUDA(cudaMemcpy(got, b, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(got, h, sizeof h) == 0);
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_CUDA(cudaMemset(b, 0, sizeof h));
  CHECK_CUDA(cudaMemcpyPeerAsync(b, 0, a, 0, sizeof h / 2, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaMemcpy(got, b, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(got[i] == (i < n / 2 ? h[i] : 0));
  CHECK_ERR(cudaMemcpyPeer(b, 1, a, 0, sizeof h), cudaErrorInvalidDevice);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidDevice);

  CHECK_ERR(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
  CHECK_ERR(cudaDeviceDisablePeerAccess(1), cudaErrorInvalidDevice);
  int value = -1;
  CHECK_ERR(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, 0), cudaErrorInvalidDevice);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidDevice);

  char bus[32];
  CHECK_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  int device = -1;
  CHECK_CUDA(cudaDeviceGetByPCIBusId(&device, bus));
  CHECK(device == 0);
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  char expect[32];
  std::snprintf(expect, sizeof expect, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  CHECK(std::strcmp(bus, expect) == 0);
  CHECK_ERR(cudaDeviceGetByPCIBusId(&device, "0000:3b:00.0"), cudaErrorInvalidDevice);
  CHECK_ERR(cudaDeviceGetByPCIBusId(&device, "not a bus"), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);

  int valid[] = {0};
  CHECK_CUDA(cudaSetValidDevices(valid, 1));
  int invalid[] = {0, 2};
  CHECK_ERR(cudaSetValidDevices(invalid, 2), cudaErrorInvalidDevice);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidDevice);

  cudaSharedMemConfig config;
  CHECK_CUDA(cudaDeviceGetSharedMemConfig(&config));
  CHECK(config == cudaSharedMemBankSizeFourByte);
  CHECK_CUDA(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));  // no effect on 8.0, as on a GPU
  CHECK_CUDA(cudaDeviceGetSharedMemConfig(&config));
  CHECK(config == cudaSharedMemBankSizeFourByte);
  CHECK_CUDA(cudaFuncSetSharedMemConfig(params, cudaSharedMemBankSizeDefault));

  // The ABI layout: int at 0, double at 8, the 16-byte struct at 16, the pointer at 32.
  const size_t want_offset[] = {0, 8, 16, 32}, want_size[] = {4, 8, sizeof(Triple), 8};
  for (size_t i = 0; i < 4; ++i) {
    size_t offset = 99, size = 99;
    CHECK_CUDA(cudaFuncGetParamInfo(reinterpret_cast<const void*>(params), i, &offset, &size));
    CHECK(offset == want_offset[i] && size == want_size[i]);
  }
  size_t offset;
  CHECK_ERR(cudaFuncGetParamInfo(reinterpret_cast<const void*>(params), 4, &offset, nullptr), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  // Stream queries: flags as created, distinct ids, device 0; attributes copied.
  cudaStream_t nb;
  CHECK_CUDA(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
  unsigned flags = 99;
  CHECK_CUDA(cudaStreamGetFlags(nb, &flags));
  CHECK(flags == cudaStreamNonBlocking);
  CHECK_CUDA(cudaStreamGetFlags(s, &flags));
  CHECK(flags == cudaStreamDefault);
  unsigned long long id_s = 0, id_nb = 0;
  CHECK_CUDA(cudaStreamGetId(s, &id_s));
  CHECK_CUDA(cudaStreamGetId(nb, &id_nb));
  CHECK(id_s != id_nb);
  int stream_device = -1;
  CHECK_CUDA(cudaStreamGetDevice(nb, &stream_device));
  CHECK(stream_device == 0);
  cudaStream_t bad;
  CHECK_ERR(cudaStreamCreateWithFlags(&bad, 0x10), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  cudaLaunchAttributeValue policy = {};
  policy.syncPolicy = cudaSyncPolicyYield;
  CHECK_CUDA(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &policy));
  CHECK_CUDA(cudaStreamCopyAttributes(nb, s));
  cudaLaunchAttributeValue copied = {};
  CHECK_CUDA(cudaStreamGetAttribute(nb, cudaStreamAttributeSynchronizationPolicy, &copied));
  CHECK(copied.syncPolicy == cudaSyncPolicyYield);
  CHECK_CUDA(cudaStreamDestroy(nb));

  params<<<1, 1>>>(1, 2.0, Triple{1.0, 'x', 3}, nullptr);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("PASS single_device\n");
  return 0;
}
