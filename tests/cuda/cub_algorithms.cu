// The main device-wide algorithms of Thrust and CUB (sort, scan, reduce,
// select, histogram, run-length encode) on several key types, at sizes that
// take the single-tile paths and the multi-tile ones (onesweep radix sort,
// decoupled look-back scans), each checked against the CPU. Thrust frees its
// temporary storage right after enqueueing the kernels, as real code does.
// Usage: cub_algorithms [n]   (default 200000)
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <vector>

#include "check.h"

namespace {

uint32_t next(uint32_t& s) { return s = s * 1664525u + 1013904223u; }

template <class T>
std::vector<T> random_values(int n, uint32_t seed) {
  std::vector<T> v(n);
  for (auto& x : v) {
    uint64_t r = uint64_t(next(seed)) << 32 | next(seed);
    if constexpr (std::is_floating_point_v<T>) x = T(int64_t(r % 2001) - 1000) / T(64);
    else x = T(r);
  }
  return v;
}

template <class T>
void thrust_sort(int n, uint32_t seed) {
  std::vector<T> h = random_values<T>(n, seed);
  thrust::device_vector<T> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  std::sort(h.begin(), h.end());
  thrust::host_vector<T> got = d;
  for (int i = 0; i < n; ++i) CHECK(got[i] == h[i]);
}

void thrust_sort_by_key_descending(int n) {
  std::vector<uint32_t> keys = random_values<uint32_t>(n, 7);
  for (auto& k : keys) k %= 1000;  // many equal keys: the sort must be stable
  std::vector<int> vals(n);
  std::iota(vals.begin(), vals.end(), 0);
  thrust::device_vector<uint32_t> dk(keys.begin(), keys.end());
  thrust::device_vector<int> dv(vals.begin(), vals.end());
  thrust::stable_sort_by_key(dk.begin(), dk.end(), dv.begin(), thrust::greater<uint32_t>());
  std::stable_sort(vals.begin(), vals.end(), [&](int a, int b) { return keys[a] > keys[b]; });
  thrust::host_vector<int> got = dv;
  for (int i = 0; i < n; ++i) CHECK(got[i] == vals[i]);
}

void cub_pairs_descending(int n) {
  std::vector<float> keys = random_values<float>(n, 11);
  std::vector<int> vals(n);
  std::iota(vals.begin(), vals.end(), 0);
  float *kin, *kout;
  int *vin, *vout;
  CHECK_CUDA(cudaMalloc(&kin, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&kout, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&vin, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&vout, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(kin, keys.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(vin, vals.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  size_t bytes = 0;
  CHECK_CUDA(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, kin, kout, vin, vout, n));
  void* tmp;
  CHECK_CUDA(cudaMalloc(&tmp, bytes));
  CHECK_CUDA(cub::DeviceRadixSort::SortPairsDescending(tmp, bytes, kin, kout, vin, vout, n));
  CHECK_CUDA(cudaFree(tmp));  // before the kernels have run: cudaFree waits for them
  std::vector<float> gk(n);
  std::vector<int> gv(n);
  CHECK_CUDA(cudaMemcpy(gk.data(), kout, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(gv.data(), vout, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::stable_sort(vals.begin(), vals.end(), [&](int a, int b) { return keys[a] > keys[b]; });
  for (int i = 0; i < n; ++i) CHECK(gv[i] == vals[i] && gk[i] == keys[vals[i]]);
  for (void* p : {(void*)kin, (void*)kout, (void*)vin, (void*)vout}) CHECK_CUDA(cudaFree(p));
}

void scans_and_reductions(int n) {
  std::vector<int> h = random_values<int>(n, 3);
  for (auto& x : h) x %= 1000;
  thrust::device_vector<int> d(h.begin(), h.end()), out(n);
  thrust::inclusive_scan(d.begin(), d.end(), out.begin());
  std::vector<int> want(n);
  std::inclusive_scan(h.begin(), h.end(), want.begin());
  thrust::host_vector<int> got = out;
  for (int i = 0; i < n; ++i) CHECK(got[i] == want[i]);
  thrust::exclusive_scan(d.begin(), d.end(), out.begin(), 5, thrust::maximum<int>());
  std::exclusive_scan(h.begin(), h.end(), want.begin(), 5, [](int a, int b) { return std::max(a, b); });
  got = out;
  for (int i = 0; i < n; ++i) CHECK(got[i] == want[i]);
  long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
  CHECK(sum == std::accumulate(h.begin(), h.end(), 0LL));
  int mn = thrust::reduce(d.begin(), d.end(), 1 << 30, thrust::minimum<int>());
  CHECK(mn == *std::min_element(h.begin(), h.end()));

  std::vector<float> f = random_values<float>(n, 5);  // multiples of 1/64 below 16
  thrust::device_vector<float> df(f.begin(), f.end()), fout(n);
  const int m = std::min(n, 4000);  // |prefix sums| < 2^18: exact in any order
  thrust::inclusive_scan(df.begin(), df.begin() + m, fout.begin());
  std::vector<float> fwant(m);
  std::inclusive_scan(f.begin(), f.begin() + m, fwant.begin());
  thrust::host_vector<float> fgot = fout;
  for (int i = 0; i < m; ++i) CHECK(fgot[i] == fwant[i]);
  CHECK(thrust::reduce(df.begin(), df.end(), -1e30f, thrust::maximum<float>()) == *std::max_element(f.begin(), f.end()));

  // CUB's exclusive sum on 64-bit values.
  std::vector<long long> l(n);
  for (int i = 0; i < n; ++i) l[i] = (long long)h[i] * 1000003;
  long long *lin, *lout;
  CHECK_CUDA(cudaMalloc(&lin, n * sizeof(long long)));
  CHECK_CUDA(cudaMalloc(&lout, n * sizeof(long long)));
  CHECK_CUDA(cudaMemcpy(lin, l.data(), n * sizeof(long long), cudaMemcpyHostToDevice));
  size_t bytes = 0;
  CHECK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, lin, lout, n));
  void* tmp;
  CHECK_CUDA(cudaMalloc(&tmp, bytes));
  CHECK_CUDA(cub::DeviceScan::ExclusiveSum(tmp, bytes, lin, lout, n));
  std::vector<long long> lgot(n), lwant(n);
  CHECK_CUDA(cudaMemcpy(lgot.data(), lout, n * sizeof(long long), cudaMemcpyDeviceToHost));
  std::exclusive_scan(l.begin(), l.end(), lwant.begin(), 0LL);
  CHECK(lgot == lwant);
  for (void* p : {(void*)lin, (void*)lout, tmp}) CHECK_CUDA(cudaFree(p));
}

struct IsMultipleOf3 {
  __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};

void select_histogram_rle(int n) {
  std::vector<int> h = random_values<int>(n, 9);
  for (auto& x : h) x = std::abs(x % 50);
  // thrust::copy_if and cub::DeviceSelect::If: the kept values in order.
  thrust::device_vector<int> d(h.begin(), h.end()), out(n);
  auto end = thrust::copy_if(d.begin(), d.end(), out.begin(), IsMultipleOf3());
  std::vector<int> want;
  std::copy_if(h.begin(), h.end(), std::back_inserter(want), IsMultipleOf3());
  CHECK(end - out.begin() == (long)want.size());
  thrust::host_vector<int> got(out.begin(), end);
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == want[i]);
  int* selected_count;
  CHECK_CUDA(cudaMalloc(&selected_count, sizeof(int)));
  size_t bytes = 0;
  int* in = thrust::raw_pointer_cast(d.data());
  int* o = thrust::raw_pointer_cast(out.data());
  CHECK_CUDA(cub::DeviceSelect::If(nullptr, bytes, in, o, selected_count, n, IsMultipleOf3()));
  void* tmp;
  CHECK_CUDA(cudaMalloc(&tmp, bytes));
  CHECK_CUDA(cub::DeviceSelect::If(tmp, bytes, in, o, selected_count, n, IsMultipleOf3()));
  int count = 0;
  CHECK_CUDA(cudaMemcpy(&count, selected_count, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(count == (int)want.size());
  got = thrust::host_vector<int>(out.begin(), out.begin() + count);
  for (int i = 0; i < count; ++i) CHECK(got[i] == want[i]);
  CHECK_CUDA(cudaFree(tmp));

  // cub::DeviceHistogram::HistogramEven: 10 bins over [0, 50).
  int* hist;
  CHECK_CUDA(cudaMalloc(&hist, 10 * sizeof(int)));
  bytes = 0;
  CHECK_CUDA(cub::DeviceHistogram::HistogramEven(nullptr, bytes, in, hist, 11, 0, 50, n));
  CHECK_CUDA(cudaMalloc(&tmp, bytes));
  CHECK_CUDA(cub::DeviceHistogram::HistogramEven(tmp, bytes, in, hist, 11, 0, 50, n));
  std::vector<int> ghist(10), whist(10, 0);
  CHECK_CUDA(cudaMemcpy(ghist.data(), hist, 10 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int x : h) whist[x / 5]++;
  CHECK(ghist == whist);
  CHECK_CUDA(cudaFree(tmp));

  // Run-length encoding of sorted data (cub) and reduce_by_key / unique (thrust).
  std::sort(h.begin(), h.end());
  thrust::copy(h.begin(), h.end(), d.begin());
  thrust::device_vector<int> uniq(n), counts(n);
  int* runs;
  CHECK_CUDA(cudaMalloc(&runs, sizeof(int)));
  bytes = 0;
  int* u = thrust::raw_pointer_cast(uniq.data());
  int* c = thrust::raw_pointer_cast(counts.data());
  CHECK_CUDA(cub::DeviceRunLengthEncode::Encode(nullptr, bytes, in, u, c, runs, n));
  CHECK_CUDA(cudaMalloc(&tmp, bytes));
  CHECK_CUDA(cub::DeviceRunLengthEncode::Encode(tmp, bytes, in, u, c, runs, n));
  int nruns = 0;
  CHECK_CUDA(cudaMemcpy(&nruns, runs, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> wu, wc;
  for (int x : h) {
    if (wu.empty() || wu.back() != x) wu.push_back(x), wc.push_back(0);
    ++wc.back();
  }
  CHECK(nruns == (int)wu.size());
  thrust::host_vector<int> gu(uniq.begin(), uniq.begin() + nruns), gc(counts.begin(), counts.begin() + nruns);
  for (int i = 0; i < nruns; ++i) CHECK(gu[i] == wu[i] && gc[i] == wc[i]);
  CHECK_CUDA(cudaFree(tmp));
  thrust::device_vector<int> ones(n, 1);
  auto ends = thrust::reduce_by_key(d.begin(), d.end(), ones.begin(), uniq.begin(), counts.begin());
  CHECK(ends.first - uniq.begin() == (long)wu.size());
  gc = thrust::host_vector<int>(counts.begin(), ends.second);
  for (size_t i = 0; i < wc.size(); ++i) CHECK(gc[i] == wc[i]);
  CHECK(thrust::unique(d.begin(), d.end()) - d.begin() == (long)wu.size());
  for (void* p : {(void*)selected_count, (void*)hist, (void*)runs}) CHECK_CUDA(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  for (int size : {1000, n}) {  // single-tile and multi-tile paths
    thrust_sort<uint32_t>(size, 1);
    thrust_sort<int>(size, 2);
    thrust_sort<float>(size, 3);
    thrust_sort<double>(size, 4);
    thrust_sort<long long>(size, 5);
    thrust_sort_by_key_descending(size);
    cub_pairs_descending(size);
    scans_and_reductions(size);
    select_histogram_rle(size);
    std::printf("size %d: sort, sort_by_key, scan, reduce, select, histogram, run-length encode pass\n", size);
  }
  CHECK_CUDA(cudaGetLastError());
  std::printf("PASS cub_algorithms\n");
  return 0;
}
