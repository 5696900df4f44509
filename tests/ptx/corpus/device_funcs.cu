// Non-inlined device functions: call chains, recursion, local arrays indexed
// at run time (stack depot), struct returns and function pointers.
struct Vec3 {
  float x, y, z;
};

__device__ __noinline__ Vec3 cross(Vec3 a, Vec3 b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

__device__ __noinline__ float dot3(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int sum_digits(long long v, int base) {
  int digits[64];
  int count = 0;
  if (v < 0) v = -v;
  do {
    digits[count++] = int(v % base);
    v /= base;
  } while (v && count < 64);
  int s = 0;
  for (int i = count - 1; i >= 0; --i) s = s * 3 + digits[i];
  return s;
}

__device__ __noinline__ void noop_marker() { __threadfence_block(); }

typedef float (*unary_fn)(float);
__device__ __noinline__ float sq(float x) { return x * x; }
__device__ __noinline__ float half_of(float x) { return x * 0.5f; }

extern "C" __global__ void geometry(const float3* a, const float3* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Vec3 va{a[i].x, a[i].y, a[i].z}, vb{b[i].x, b[i].y, b[i].z};
  Vec3 c = cross(va, vb);
  out[i] = dot3(c, va) + dot3(c, c);
  noop_marker();
}

extern "C" __global__ void recursion(unsigned* out, const long long* vals) {
  unsigned t = threadIdx.x;
  out[t] = fib(t % 12) + sum_digits(vals[t], 7);
}

extern "C" __global__ void local_sort(const int* in, int* out, int n) {
  int v[16];
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  if (base + 16 > n) return;
  for (int i = 0; i < 16; ++i) v[i] = in[base + i];
  for (int i = 1; i < 16; ++i) {  // insertion sort with data-dependent indices
    int key = v[i], j = i - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = key;
  }
  for (int i = 0; i < 16; ++i) out[base + i] = v[i];
}

extern "C" __global__ void apply_fn(float* data, int n, int which) {
  unary_fn f = which ? sq : half_of;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[i]);
}
