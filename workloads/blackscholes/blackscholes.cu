// Black-Scholes pricing of European call and put options in f32. The normal
// CDF uses the classic 5th-order polynomial approximation (Abramowitz &
// Stegun 26.2.17). A fixed grid walks the option arrays with a grid-stride
// loop; each launch prices every option for one trading day, the time to
// expiry shrinking by `elapsed` years.
__device__ __forceinline__ float normal_cdf(float d) {
  const float b1 = 0.31938153f, b2 = -0.356563782f, b3 = 1.781477937f, b4 = -1.821255978f,
              b5 = 1.330274429f, p = 0.2316419f, inv_sqrt_2pi = 0.39894228040143267794f;
  float k = 1.0f / (1.0f + p * fabsf(d));
  float tail = inv_sqrt_2pi * expf(-0.5f * d * d) *
               (k * (b1 + k * (b2 + k * (b3 + k * (b4 + k * b5)))));
  return d > 0.f ? 1.0f - tail : tail;
}

extern "C" __global__ void blackscholes_price(const float* __restrict__ spot,
                                              const float* __restrict__ strike,
                                              const float* __restrict__ years, float elapsed,
                                              float riskfree, float volatility,
                                              float* __restrict__ call, float* __restrict__ put,
                                              int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float s = spot[i], x = strike[i], t = years[i] - elapsed;
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
    float d2 = d1 - volatility * sqrt_t;
    float cnd1 = normal_cdf(d1), cnd2 = normal_cdf(d2);
    float discounted = x * expf(-riskfree * t);
    call[i] = s * cnd1 - discounted * cnd2;
    put[i] = discounted * (1.0f - cnd2) - s * (1.0f - cnd1);
  }
}
