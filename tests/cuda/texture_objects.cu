// CUDA arrays with texture and surface objects: a 2D float array filled by
// cudaMemcpy2DToArray and sampled through a texture (point and bilinear
// filtering, clamp and border addressing), a surface written by a kernel and
// read back with cudaMemcpy2DFromArray, a 3D array copied with cudaMemcpy3D,
// a texture over linear memory read with tex1Dfetch, the deprecated
// cudaMemcpyToArray/FromArray, and the error paths.
#include <cmath>
#include <vector>

#include "check.h"

// cudaMemcpyToArray/FromArray are deprecated, and tested on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

__global__ void sample(cudaTextureObject_t t, float* out, int w, int h, float shift) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f + shift, y + 0.5f);
}

__global__ void write_surface(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) surf2Dwrite(float(x * 100 + y), s, x * int(sizeof(float)), y);
}

__global__ void fetch_linear(cudaTextureObject_t t, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(t, i) * 2;
}

__global__ void sample_3d(cudaTextureObject_t t, float* out, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

int main() {
  const int w = 16, h = 8;
  std::vector<float> img(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[y * w + x] = float(x * 3 + y * 50);

  // A 2D array and a texture with point filtering and clamp addressing.
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t arr;
  CHECK_CUDA(cudaMallocArray(&arr, &fdesc, w, h));
  CHECK_CUDA(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  cudaChannelFormatDesc got;
  cudaExtent ext;
  unsigned flags = 7;
  CHECK_CUDA(cudaGetChannelDesc(&got, arr));
  CHECK(got.x == 32 && got.f == cudaChannelFormatKindFloat);
  CHECK_CUDA(cudaArrayGetInfo(&got, &ext, &flags, arr));
  CHECK(ext.width == size_t(w) && ext.height == size_t(h) && flags == 0);

  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point;
  CHECK_CUDA(cudaCreateTextureObject(&point, &res, &td, nullptr));
  float* out;
  CHECK_CUDA(cudaMalloc(&out, w * h * sizeof(float)));
  std::vector<float> host(w * h);
  sample<<<dim3(1, h), w>>>(point, out, w, h, 2.0f);  // two texels to the right, clamped at the edge
  CHECK_CUDA(cudaMemcpy(host.data(), out, w * h * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) CHECK(host[y * w + x] == img[y * w + std::min(x + 2, w - 1)]);

  // Bilinear filtering half a texel off: the mean of two neighbours (within the 9-bit weight).
  td.filterMode = cudaFilterModeLinear;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
  cudaTextureObject_t linear;
  CHECK_CUDA(cudaCreateTextureObject(&linear, &res, &td, nullptr));
  sample<<<dim3(1, h), w>>>(linear, out, w, h, 0.5f);
  CHECK_CUDA(cudaMemcpy(host.data(), out, w * h * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float right = x + 1 < w ? img[y * w + x + 1] : 0.0f;  // border colour 0 beyond the edge
      CHECK(std::fabs(host[y * w + x] - 0.5f * (img[y * w + x] + right)) < 1e-3f * (1 + std::fabs(right)));
    }

  // A surface written by a kernel, read back into a pitched host buffer at an offset.
  cudaArray_t sarr;
  CHECK_CUDA(cudaMallocArray(&sarr, &fdesc, w, h, cudaArraySurfaceLoadStore));
  res.res.array.array = sarr;
  cudaSurfaceObject_t surf;
  CHECK_CUDA(cudaCreateSurfaceObject(&surf, &res));
  write_surface<<<dim3(1, h), w>>>(surf, w, h);
  CHECK_CUDA(cudaGetLastError());
  const int pitch = w + 3;  // floats
  std::vector<float> back(pitch * (h - 1), -1);
  CHECK_CUDA(cudaMemcpy2DFromArray(back.data(), pitch * sizeof(float), sarr, 4 * sizeof(float), 1,
                                   (w - 4) * sizeof(float), h - 1, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h - 1; ++y)
    for (int x = 0; x < w - 4; ++x) CHECK(back[y * pitch + x] == float((x + 4) * 100 + y + 1));
  // To device memory too (staged): the whole surface into `out`.
  CHECK_CUDA(cudaMemcpy2DFromArray(out, w * sizeof(float), sarr, 0, 0, w * sizeof(float), h, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemcpy(host.data(), out, w * h * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(host[3 * w + 5] == 503.0f);

  // A 3D array through cudaMemcpy3D, sampled with tex3D.
  const int d = 3;
  std::vector<float> vol(w * h * d), vout(w * h * d);
  for (int i = 0; i < w * h * d; ++i) vol[i] = float(i % 97);
  cudaArray_t arr3;
  CHECK_CUDA(cudaMalloc3DArray(&arr3, &fdesc, make_cudaExtent(w, h, d), 0));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(vol.data(), w * sizeof(float), w, h);
  p.dstArray = arr3;
  p.extent = make_cudaExtent(w, h, d);
  p.kind = cudaMemcpyHostToDevice;
  CHECK_CUDA(cudaMemcpy3D(&p));
  res.res.array.array = arr3;
  td.filterMode = cudaFilterModePoint;
  cudaTextureObject_t t3;
  CHECK_CUDA(cudaCreateTextureObject(&t3, &res, &td, nullptr));
  float* vdev;
  CHECK_CUDA(cudaMalloc(&vdev, w * h * d * sizeof(float)));
  sample_3d<<<dim3(h, d), w>>>(t3, vdev, w, h, d);
  CHECK_CUDA(cudaMemcpy(vout.data(), vdev, w * h * d * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(vout == vol);

  // A texture over linear memory.
  const int n = 100;
  std::vector<int> iv(n), iout(n);
  for (int i = 0; i < n; ++i) iv[i] = i * i;
  int *ibuf, *iout_dev;
  CHECK_CUDA(cudaMalloc(&ibuf, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&iout_dev, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(ibuf, iv.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaResourceDesc lin = {};
  lin.resType = cudaResourceTypeLinear;
  lin.res.linear.devPtr = ibuf;
  lin.res.linear.desc = cudaCreateChannelDesc<int>();
  lin.res.linear.sizeInBytes = n * sizeof(int);
  cudaTextureDesc ltd = {};
  cudaTextureObject_t lt;
  CHECK_CUDA(cudaCreateTextureObject(&lt, &lin, &ltd, nullptr));
  fetch_linear<<<1, 128>>>(lt, iout_dev, n);
  CHECK_CUDA(cudaMemcpy(iout.data(), iout_dev, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(iout[i] == 2 * i * i);

  // The deprecated linear copies: bytes run row after row of the array, here from
  // element 5 of row 2 over two row ends (a partial, a whole and a partial row),
  // and back through device memory (staged).
  const int start = 2 * w + 5, count = 2 * w + 7;
  std::vector<float> lin_in(count), lin_out(count, -1);
  for (int i = 0; i < count; ++i) lin_in[i] = 1000.0f + float(i);
  CHECK_CUDA(cudaMemcpyToArray(arr, 5 * sizeof(float), 2, lin_in.data(), count * sizeof(float),
                               cudaMemcpyHostToDevice));
  std::vector<float> whole(w * h);
  CHECK_CUDA(cudaMemcpy2DFromArray(whole.data(), w * sizeof(float), arr, 0, 0, w * sizeof(float), h,
                                   cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i)
    CHECK(whole[i] == (i >= start && i < start + count ? lin_in[i - start] : img[i]));
  CHECK_CUDA(cudaMemcpyFromArray(out, arr, 5 * sizeof(float), 2, count * sizeof(float), cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemcpy(lin_out.data(), out, count * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(lin_out == lin_in);
  CHECK_CUDA(cudaMemcpyFromArrayAsync(lin_out.data(), arr, 0, h - 1, w * sizeof(float), cudaMemcpyDeviceToHost, 0));
  for (int x = 0; x < w; ++x) CHECK(lin_out[x] == img[(h - 1) * w + x]);
  CHECK_ERR(cudaMemcpyToArray(arr, 0, h - 1, lin_in.data(), (w + 1) * sizeof(float), cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);  // one element past the last row

  // Error paths: an unsupported channel format, a copy outside the array, a non-array surface.
  cudaChannelFormatDesc bad = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  cudaArray_t none;
  CHECK_ERR(cudaMallocArray(&none, &bad, 4, 4), cudaErrorInvalidValue);
  CHECK_ERR(cudaMemcpy2DToArray(arr, 8 * sizeof(float), 0, img.data(), w * sizeof(float), w * sizeof(float), 1,
                                cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
  CHECK_ERR(cudaCreateSurfaceObject(&surf, &lin), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetChannelDesc(&got, reinterpret_cast<cudaArray_t>(ibuf)), cudaErrorInvalidResourceHandle);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);  // the last one, now cleared: none was sticky
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());

  CHECK_CUDA(cudaDestroyTextureObject(point));
  CHECK_CUDA(cudaDestroyTextureObject(linear));
  CHECK_CUDA(cudaDestroyTextureObject(t3));
  CHECK_CUDA(cudaDestroyTextureObject(lt));
  CHECK_CUDA(cudaDestroySurfaceObject(surf));
  CHECK_CUDA(cudaFreeArray(arr));
  CHECK_CUDA(cudaFreeArray(sarr));
  CHECK_CUDA(cudaFreeArray(arr3));
  std::printf("PASS texture_objects\n");
  return 0;
}
