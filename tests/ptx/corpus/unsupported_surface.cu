// Deliberately unsupported: a surface reduction (sured), which CUDA C has no
// intrinsic for, written as inline PTX, next to a supported surface store.
extern "C" __global__ void surf_reduce(cudaSurfaceObject_t surf, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) {
    surf1Dwrite<float>(x * 2.0f, surf, x * 4);
    asm volatile("sured.b.add.1d.u32.trap [%0, {%1}], %2;" ::"l"(surf), "r"(x * 4), "r"(1u));
  }
}
