// Matrix-vector kernels in the style of PolyBench-GPU's gesummv and mvt: one
// thread per row (or column) accumulating straight into global memory, float,
// checked with PolyBench's 0.05% relative threshold against a CPU loop with
// the same summation order.
// Usage: matrix_vector [n]   (default 512)
#include <cmath>
#include <cstdlib>
#include <vector>

#include "check.h"

__global__ void gesummv(int n, float alpha, float beta, const float* a, const float* b, const float* x, float* y,
                        float* tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int j = 0; j < n; j++) {
      tmp[i] += a[i * n + j] * x[j];
      y[i] += b[i * n + j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

__global__ void mvt_rows(int n, const float* a, float* x1, const float* y1) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int j = 0; j < n; j++) x1[i] += a[i * n + j] * y1[j];
}

__global__ void mvt_columns(int n, const float* a, float* x2, const float* y2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int j = 0; j < n; j++) x2[i] += a[j * n + i] * y2[j];
}

namespace {

float* to_device(const std::vector<float>& v) {
  float* d;
  CHECK_CUDA(cudaMalloc(&d, v.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

std::vector<float> to_host(const float* d, size_t n) {
  std::vector<float> v(n);
  CHECK_CUDA(cudaMemcpy(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return v;
}

// PolyBench's percentDiff test: values both below 0.01 always match.
int mismatches(const std::vector<float>& cpu, const std::vector<float>& gpu) {
  int bad = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double c = cpu[i], g = gpu[i];
    if (std::fabs(c) < 0.01 && std::fabs(g) < 0.01) continue;
    if (100.0 * std::fabs((c - g) / (c + 1e-8)) > 0.05) {
      if (bad < 5) std::fprintf(stderr, "element %zu: cpu %.9g gpu %.9g\n", i, c, g);
      ++bad;
    }
  }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const dim3 block(256), grid((n + 255) / 256);
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), x(n), y1(n), y2(n), x1(n), x2(n);
  for (int i = 0; i < n; i++) {
    x[i] = float(i) / n;
    x1[i] = float(i) / n;
    x2[i] = float(i + 1) / n;
    y1[i] = float(i + 3) / n;
    y2[i] = float(i + 4) / n;
    for (int j = 0; j < n; j++) {
      a[size_t(i) * n + j] = float(i) * j / n;
      b[size_t(i) * n + j] = float(i) * (j + 1) / n;
    }
  }
  const float alpha = 43532.0f, beta = 12313.0f;
  float *da = to_device(a), *db = to_device(b), *dx = to_device(x);
  float *dy = to_device(std::vector<float>(n, 0.0f)), *dtmp = to_device(std::vector<float>(n, 0.0f));
  float *dx1 = to_device(x1), *dx2 = to_device(x2), *dy1 = to_device(y1), *dy2 = to_device(y2);
  gesummv<<<grid, block>>>(n, alpha, beta, da, db, dx, dy, dtmp);
  mvt_rows<<<grid, block>>>(n, da, dx1, dy1);
  mvt_columns<<<grid, block>>>(n, da, dx2, dy2);
  CHECK_CUDA(cudaGetLastError());
  const std::vector<float> gy = to_host(dy, n), gx1 = to_host(dx1, n), gx2 = to_host(dx2, n);

  std::vector<float> y(n), tmp(n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      tmp[i] = a[size_t(i) * n + j] * x[j] + tmp[i];
      y[i] = b[size_t(i) * n + j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
    for (int j = 0; j < n; j++) x1[i] = x1[i] + a[size_t(i) * n + j] * y1[j];
    for (int j = 0; j < n; j++) x2[i] = x2[i] + a[size_t(j) * n + i] * y2[j];
  }
  CHECK(mismatches(y, gy) == 0);
  CHECK(mismatches(x1, gx1) == 0);
  CHECK(mismatches(x2, gx2) == 0);
  std::printf("PASS matrix_vector\n");
  return 0;
}
