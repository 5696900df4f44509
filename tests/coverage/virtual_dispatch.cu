// Coverage: virtual functions. Objects of two derived classes are built in
// device memory by placement new; each thread calls a virtual method through
// a base pointer (an indirect call with a prototype), so warps diverge on
// the call target.
#include <new>

struct Shape {
  __device__ virtual float area(float scale) const = 0;
  __device__ virtual int sides() const = 0;
};

struct Square : Shape {
  float side;
  __device__ explicit Square(float s) : side(s) {}
  __device__ float area(float scale) const override { return scale * side * side; }
  __device__ int sides() const override { return 4; }
};

struct Triangle : Shape {
  float base, height;
  __device__ Triangle(float b, float h) : base(b), height(h) {}
  __device__ float area(float scale) const override { return scale * 0.5f * base * height; }
  __device__ int sides() const override { return 3; }
};

union ShapeStorage {
  Square square;
  Triangle triangle;
  __device__ ShapeStorage() {}
};

// kind[i] % 3 == 0: a triangle, else a square; out[i] = area(2) + sides.
extern "C" __global__ void virtual_area(const int* kind, const float* size, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ShapeStorage storage;
  Shape* s;
  if (kind[i] % 3 == 0) s = new (&storage.triangle) Triangle(size[i], size[i] + 1.0f);
  else s = new (&storage.square) Square(size[i]);
  out[i] = s->area(2.0f) + float(s->sides());
}
