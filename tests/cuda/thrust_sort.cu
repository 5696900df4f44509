// A Thrust program (library kernels from CUB: radix sort, transform,
// reduce), as a real application uses the runtime through a library.
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "check.h"

int main() {
  const int n = 3000;
  thrust::host_vector<int> h(n);
  long long expect = 0;
  for (int i = 0; i < n; ++i) h[i] = (i * 7919) % 1009 - 500, expect -= h[i];
  thrust::device_vector<int> v = h;
  thrust::sort(v.begin(), v.end());
  thrust::host_vector<int> sorted = v;
  for (int i = 1; i < n; ++i) CHECK(sorted[i - 1] <= sorted[i]);
  thrust::transform(v.begin(), v.end(), v.begin(), thrust::negate<int>());
  long long sum = thrust::reduce(v.begin(), v.end(), 0LL);
  CHECK(sum == expect);
  CHECK_CUDA(cudaGetLastError());
  std::printf("sorted %d values, negated sum %lld\n", n, sum);
  std::printf("PASS thrust_sort\n");
  return 0;
}
