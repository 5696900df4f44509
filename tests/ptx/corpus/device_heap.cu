// Device-side heap allocation (malloc/free): engine built-ins.
extern "C" __global__ void heap_user(int** slots, int n) {
  int* p = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) p[i] = i;
  slots[blockIdx.x * blockDim.x + threadIdx.x] = p;
  if (n < 0) free(p);
}
