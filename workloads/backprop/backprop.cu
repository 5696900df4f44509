// Back-propagation training of a network with a wide input layer, 16 hidden
// units and one output. The GPU does the two wide steps: the input->hidden
// forward pass and the input->hidden weight update; the host does the small
// layers in between, as in the original application. A 16x16 block owns 16
// inputs x 16 hidden units: the forward pass forms the 256 products in shared
// memory and reduces them over the inputs with a tree, leaving one partial
// sum per hidden unit and block for the host to add up.
#define HIDDEN 16
#define INPUTS_PER_BLOCK 16

// weights[i * HIDDEN + h] connects input i to hidden unit h.
extern "C" __global__ void __launch_bounds__(HIDDEN * INPUTS_PER_BLOCK)
bp_layer_forward(const float* __restrict__ input, const float* __restrict__ weights,
                 float* __restrict__ partial_sums) {
  __shared__ float s_input[INPUTS_PER_BLOCK];
  __shared__ float s_products[INPUTS_PER_BLOCK][HIDDEN];
  const int h = threadIdx.x, k = threadIdx.y;
  const int i = blockIdx.x * INPUTS_PER_BLOCK + k;

  if (h == 0) s_input[k] = input[i];
  __syncthreads();
  s_products[k][h] = weights[i * HIDDEN + h] * s_input[k];
  __syncthreads();
  for (int stride = 1; stride < INPUTS_PER_BLOCK; stride *= 2) {
    if (k % (2 * stride) == 0) s_products[k][h] += s_products[k + stride][h];
    __syncthreads();
  }
  if (k == 0) partial_sums[blockIdx.x * HIDDEN + h] = s_products[0][h];
}

// Gradient step with momentum: dw = eta * delta_h * x_i + momentum * dw_prev.
extern "C" __global__ void __launch_bounds__(HIDDEN * INPUTS_PER_BLOCK)
bp_adjust_weights(float* __restrict__ weights, float* __restrict__ prev_dw,
                  const float* __restrict__ input, const float* __restrict__ hidden_delta,
                  float eta, float momentum) {
  const int h = threadIdx.x;
  const int i = blockIdx.x * INPUTS_PER_BLOCK + threadIdx.y;
  const int w = i * HIDDEN + h;
  float dw = eta * hidden_delta[h] * input[i] + momentum * prev_dw[w];
  weights[w] += dw;
  prev_dw[w] = dw;
}
