// MRI-Q: the Q matrix of non-Cartesian MRI reconstruction. For every voxel x,
// Q(x) = sum over k-space samples k of |phi(k)|^2 * exp(i 2 pi k.x). A first
// kernel computes |phi|^2 per sample; the host packs the samples in chunks
// that fit in constant memory, and one launch per chunk accumulates that
// chunk's contribution into Q (every thread reads the same sample at the same
// time, the case constant memory broadcasts).
#define K_CHUNK 256

struct KSample {
  float kx, ky, kz, phi_mag;
};
__constant__ KSample c_samples[K_CHUNK];

extern "C" __global__ void mriq_phi_mag(const float* __restrict__ phi_r,
                                        const float* __restrict__ phi_i,
                                        float* __restrict__ phi_mag, int num_k) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < num_k) {
    float r = phi_r[k], i = phi_i[k];
    phi_mag[k] = r * r + i * i;
  }
}

extern "C" __global__ void mriq_compute_q(const float* __restrict__ x, const float* __restrict__ y,
                                          const float* __restrict__ z, float* __restrict__ q_r,
                                          float* __restrict__ q_i, int num_x, int chunk_size) {
  const float two_pi = 6.2831853071795864769f;
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= num_x) return;
  float vx = x[v], vy = y[v], vz = z[v];
  float acc_r = q_r[v], acc_i = q_i[v];
  for (int k = 0; k < chunk_size; ++k) {
    float phase = two_pi * (c_samples[k].kx * vx + c_samples[k].ky * vy + c_samples[k].kz * vz);
    float s, c;
    sincosf(phase, &s, &c);
    acc_r += c_samples[k].phi_mag * c;
    acc_i += c_samples[k].phi_mag * s;
  }
  q_r[v] = acc_r;
  q_i[v] = acc_i;
}
