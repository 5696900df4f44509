// Element-wise vector addition: the simplest streaming kernel, one thread per
// element, purely bandwidth bound (two loads, one store, one add).
extern "C" __global__ void vecadd(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Persistent threads (the QAWS paper's form): a resident grid strides over the elements.
extern "C" __global__ void vecadd_pt(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}
