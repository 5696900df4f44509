// k-means clustering, device side. kmeans_transpose turns the point-major
// input into feature-major order once, so that in kmeans_assign consecutive
// threads (points) read consecutive words. kmeans_assign finds each point's
// nearest centroid (centroids live in constant memory, broadcast to the
// warp), records its membership and counts the points that changed cluster
// with one atomic per warp; the host recomputes the centroids and iterates
// until few points move.
#define MAX_CENTROID_VALUES 1024  // clusters x features

__constant__ float centroids[MAX_CENTROID_VALUES];

extern "C" __global__ void kmeans_transpose(const float* __restrict__ points,
                                            float* __restrict__ features_t, int npoints,
                                            int nfeatures) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npoints) return;
  for (int f = 0; f < nfeatures; ++f) features_t[(size_t)f * npoints + i] = points[(size_t)i * nfeatures + f];
}

extern "C" __global__ void kmeans_assign(const float* __restrict__ features_t, int npoints,
                                         int nfeatures, int nclusters, int* __restrict__ membership,
                                         unsigned* __restrict__ changed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool moved = false;
  if (i < npoints) {
    float best_dist = 3.0e38f;
    int best = 0;
    for (int c = 0; c < nclusters; ++c) {
      float dist = 0.0f;
      for (int f = 0; f < nfeatures; ++f) {
        float d = features_t[(size_t)f * npoints + i] - centroids[c * nfeatures + f];
        dist = __fmaf_rn(d, d, dist);
      }
      if (dist < best_dist) {
        best_dist = dist;
        best = c;
      }
    }
    moved = membership[i] != best;
    membership[i] = best;
  }
  const unsigned moved_mask = __ballot_sync(0xffffffffu, moved);
  if ((threadIdx.x & 31) == 0 && moved_mask) atomicAdd(changed, (unsigned)__popc(moved_mask));
}
