// Binomial option pricing (Cox-Ross-Rubinstein) of European calls in double
// precision, one block per option. The tree's leaves hold the payoff at
// expiry; each backward step replaces node i by the discounted expectation of
// nodes i and i+1. Each thread keeps 8 consecutive nodes in registers and only
// exchanges its first node with the previous thread through shared memory
// (double-buffered, so one barrier per step suffices).
#define NODES_PER_THREAD 8

// Prices option `opt`; every thread of the block calls it (barriers).
__device__ __forceinline__ void binomial_option(const double* __restrict__ spot, const double* __restrict__ strike,
                                                const double* __restrict__ years, double riskfree,
                                                double volatility, int steps, double* __restrict__ call_price,
                                                int opt, double* s_first_node) {
  const int t = threadIdx.x;
  const double s = spot[opt], x = strike[opt];
  const double dt = years[opt] / steps;
  const double vdt = volatility * sqrt(dt);
  const double growth = exp(riskfree * dt);
  const double up = exp(vdt), down = exp(-vdt);
  const double p_up = (growth - down) / (up - down);
  const double discount = exp(-riskfree * dt);
  const double w_up = p_up * discount, w_down = (1.0 - p_up) * discount;

  // Leaf i is the price after i up-moves and steps-i down-moves.
  double v[NODES_PER_THREAD];
#pragma unroll
  for (int j = 0; j < NODES_PER_THREAD; ++j) {
    int i = t * NODES_PER_THREAD + j;
    double price = s * exp(vdt * (2 * i - steps));
    v[j] = i <= steps ? fmax(price - x, 0.0) : 0.0;
  }

  for (int n = steps; n > 0; --n) {
    double* buffer = s_first_node + (n & 1) * blockDim.x;
    buffer[t] = v[0];
    __syncthreads();
    double next = t + 1 < blockDim.x ? buffer[t + 1] : 0.0;
#pragma unroll
    for (int j = 0; j < NODES_PER_THREAD - 1; ++j) v[j] = w_up * v[j + 1] + w_down * v[j];
    v[NODES_PER_THREAD - 1] = w_up * next + w_down * v[NODES_PER_THREAD - 1];
  }
  if (t == 0) call_price[opt] = v[0];
}

extern "C" __global__ void binomial_price(const double* __restrict__ spot,
                                          const double* __restrict__ strike,
                                          const double* __restrict__ years, double riskfree,
                                          double volatility, int steps,
                                          double* __restrict__ call_price) {
  extern __shared__ double s_first_node[];  // [2][blockDim.x]
  binomial_option(spot, strike, years, riskfree, volatility, steps, call_price, blockIdx.x, s_first_node);
}

// Persistent threads (the QAWS paper's form): a resident grid whose blocks
// loop over the options. The barrier keeps the next option's first exchange
// from overwriting nodes another thread of the last step still reads.
extern "C" __global__ void binomial_price_pt(const double* __restrict__ spot,
                                             const double* __restrict__ strike,
                                             const double* __restrict__ years, double riskfree,
                                             double volatility, int steps,
                                             double* __restrict__ call_price, int options) {
  extern __shared__ double s_first_node[];  // [2][blockDim.x]
  for (int opt = blockIdx.x; opt < options; opt += gridDim.x) {
    binomial_option(spot, strike, years, riskfree, volatility, steps, call_price, opt, s_first_node);
    __syncthreads();
  }
}
