// Pitched 2D copies and memsets, memset and async variants, cudaMemcpyDefault,
// pointer attributes, and managed memory (cudaMallocManaged and __managed__)
// read and written by both host and device.
#include <cstring>
#include <vector>

#include "check.h"

__managed__ int counter = 5;

__global__ void add_rows(int* m, size_t pitch, int w, int h, int v) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) ((int*)((char*)m + y * pitch))[x] += v;
}

__global__ void bump(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 2 + 1;
  if (i == 0) counter += 10;
}

int main() {
  const int w = 37, h = 9;
  int* m = nullptr;
  size_t pitch = 0;
  CHECK_CUDA(cudaMallocPitch((void**)&m, &pitch, w * sizeof(int), h));
  CHECK(pitch >= w * sizeof(int) && pitch % 256 == 0);
  CHECK_CUDA(cudaMemset2D(m, pitch, 0, w * sizeof(int), h));
  std::vector<int> host(w * h);
  for (int i = 0; i < w * h; ++i) host[i] = i;
  CHECK_CUDA(cudaMemcpy2D(m, pitch, host.data(), w * sizeof(int), w * sizeof(int), h, cudaMemcpyHostToDevice));
  add_rows<<<dim3(1, h), 64>>>(m, pitch, w, h, 100);
  CHECK_CUDA(cudaGetLastError());
  // Device-to-device into a second pitched buffer, then back to the host.
  int* m2 = nullptr;
  size_t pitch2 = 0;
  CHECK_CUDA(cudaMallocPitch((void**)&m2, &pitch2, w * sizeof(int), h));
  CHECK_CUDA(cudaMemcpy2DAsync(m2, pitch2, m, pitch, w * sizeof(int), h, cudaMemcpyDeviceToDevice, 0));
  std::vector<int> back(w * h, -1);
  CHECK_CUDA(cudaMemcpy2D(back.data(), w * sizeof(int), m2, pitch2, w * sizeof(int), h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i) CHECK(back[i] == i + 100);
  CHECK_ERR(cudaMemcpy2D(m, 8, host.data(), w * sizeof(int), w * sizeof(int), h, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);

  // 3D: a pitched volume set to 0x01 bytes, one sub-box overwritten from the host, read back whole.
  const int vw = 10, vh = 4, vd = 3;
  cudaPitchedPtr vol;
  CHECK_CUDA(cudaMalloc3D(&vol, make_cudaExtent(vw * sizeof(int), vh, vd)));
  CHECK(vol.pitch >= vw * sizeof(int) && vol.xsize == vw * sizeof(int) && vol.ysize == vh);
  CHECK_CUDA(cudaMemset3D(vol, 0x01, make_cudaExtent(vw * sizeof(int), vh, vd)));
  std::vector<int> box(3 * 2 * 1, 7);  // 3 ints x 2 rows x 1 slice
  cudaMemcpy3DParms up = {};
  up.srcPtr = make_cudaPitchedPtr(box.data(), 3 * sizeof(int), 3 * sizeof(int), 2);
  up.dstPtr = vol;
  up.dstPos = make_cudaPos(2 * sizeof(int), 1, 2);  // x in bytes
  up.extent = make_cudaExtent(3 * sizeof(int), 2, 1);
  up.kind = cudaMemcpyHostToDevice;
  CHECK_CUDA(cudaMemcpy3D(&up));
  std::vector<int> whole(vw * vh * vd, -1);
  cudaMemcpy3DParms down = {};
  down.srcPtr = vol;
  down.dstPtr = make_cudaPitchedPtr(whole.data(), vw * sizeof(int), vw * sizeof(int), vh);
  down.extent = make_cudaExtent(vw * sizeof(int), vh, vd);
  down.kind = cudaMemcpyDeviceToHost;
  CHECK_CUDA(cudaMemcpy3DAsync(&down, 0));
  CHECK_CUDA(cudaStreamSynchronize(0));
  for (int z = 0; z < vd; ++z)
    for (int y = 0; y < vh; ++y)
      for (int x = 0; x < vw; ++x) {
        bool in_box = z == 2 && y >= 1 && y < 3 && x >= 2 && x < 5;
        CHECK(whole[(z * vh + y) * vw + x] == (in_box ? 7 : 0x01010101));
      }
  CHECK_CUDA(cudaFree(vol.ptr));

  // Byte memsets.
  unsigned char* bytes;
  CHECK_CUDA(cudaMalloc(&bytes, 1000));
  CHECK_CUDA(cudaMemset(bytes, 0xab, 1000));
  CHECK_CUDA(cudaMemsetAsync(bytes + 100, 0x01, 50, 0));
  std::vector<unsigned char> hb(1000);
  CHECK_CUDA(cudaMemcpy(hb.data(), bytes, 1000, cudaMemcpyDefault));
  for (int i = 0; i < 1000; ++i) CHECK(hb[i] == (i >= 100 && i < 150 ? 0x01 : 0xab));

  cudaPointerAttributes pa;
  CHECK_CUDA(cudaPointerGetAttributes(&pa, bytes));
  CHECK(pa.type == cudaMemoryTypeDevice && pa.devicePointer == bytes);
  CHECK_CUDA(cudaPointerGetAttributes(&pa, hb.data()));
  CHECK(pa.type == cudaMemoryTypeUnregistered);

  // Managed memory: written by the host, updated by a kernel, read by the host.
  const int n = 300;
  int* shared_data = nullptr;
  CHECK_CUDA(cudaMallocManaged(&shared_data, n * sizeof(int)));
  for (int i = 0; i < n; ++i) shared_data[i] = i;
  CHECK(counter == 5);
  counter = 7;
  bump<<<(n + 127) / 128, 128>>>(shared_data, n);
  CHECK_CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) CHECK(shared_data[i] == 2 * i + 1);
  CHECK(counter == 17);
  CHECK_CUDA(cudaPointerGetAttributes(&pa, shared_data));
  CHECK(pa.type == cudaMemoryTypeManaged);
  CHECK_CUDA(cudaFree(shared_data));

  size_t free_b = 0, total_b = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
  CHECK(free_b > 0 && free_b < total_b);
  CHECK_CUDA(cudaFree(m));
  CHECK_CUDA(cudaFree(m2));
  CHECK_CUDA(cudaFree(bytes));
  std::printf("PASS memory_variants\n");
  return 0;
}
