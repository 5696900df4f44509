// backprop: training steps of an n-16-1 perceptron; wide layer on the GPU, small ones on the host.
#include <array>
#include <cmath>

#include "common/fp_checks.h"
#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kHidden = 16, kInputsPerBlock = 16;
constexpr double kEta = 0.3, kMomentum = 0.3;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The host half of a training step: hidden and output activations from the
// hidden units' net inputs, output-layer update, and the hidden deltas the
// GPU needs for the input-layer update.
struct SmallLayers {
  std::array<double, kHidden> w_out{}, prev_dw_out{}, bias_hidden{};
  double bias_out = 0, prev_dbias_out = 0;

  std::array<double, kHidden> train(const std::array<double, kHidden>& net_hidden, double target) {
    std::array<double, kHidden> hidden, delta;
    double net_out = bias_out;
    for (int h = 0; h < kHidden; ++h) {
      hidden[h] = sigmoid(net_hidden[h] + bias_hidden[h]);
      net_out += w_out[h] * hidden[h];
    }
    double out = sigmoid(net_out);
    double delta_out = out * (1 - out) * (target - out);
    for (int h = 0; h < kHidden; ++h) {
      delta[h] = hidden[h] * (1 - hidden[h]) * w_out[h] * delta_out;
      double dw = kEta * delta_out * hidden[h] + kMomentum * prev_dw_out[h];
      w_out[h] += dw;
      prev_dw_out[h] = dw;
    }
    double db = kEta * delta_out + kMomentum * prev_dbias_out;
    bias_out += db;
    prev_dbias_out = db;
    return delta;
  }
};

CheckResult run_backprop(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int n_in = host::by_size(size, 2048, 32768, 262144, 1 << 20);
  // Training steps, one sample each. More steps amortize the weight copies,
  // but every step reads partial sums back: kernels cannot dominate (docs/workloads.md).
  const int samples = host::by_size(size, 2, 8, 2, 2);
  const int blocks = n_in / kInputsPerBlock;
  Rng rng(seed);
  // Weights scaled by 1/sqrt(n) keep the hidden units out of saturation.
  const float w_range = 1.f / std::sqrt(float(n_in));
  std::vector<float> w_in = host::random_floats(rng, size_t(n_in) * kHidden, -w_range, w_range);
  std::vector<std::vector<float>> inputs;
  for (int s = 0; s < samples; ++s) inputs.push_back(host::random_floats(rng, n_in, 0.f, 1.f));
  const double targets[2] = {0.9, 0.1};  // alternating
  SmallLayers gpu_small;
  for (int h = 0; h < kHidden; ++h) {
    gpu_small.w_out[h] = rng.uniform_d(-1, 1);
    gpu_small.bias_hidden[h] = rng.uniform_d(-0.5, 0.5);
  }
  SmallLayers ref_small = gpu_small;

  runtime::DevPtr d_w = ctx.malloc_copy(w_in);
  runtime::DevPtr d_prev_dw = ctx.malloc(w_in.size() * sizeof(float));
  ctx.memset(d_prev_dw, 0, w_in.size() * sizeof(float));
  runtime::DevPtr d_partial = ctx.malloc(size_t(blocks) * kHidden * sizeof(float));
  runtime::DevPtr d_delta = ctx.malloc(kHidden * sizeof(float));
  runtime::Kernel forward = mod.kernel("bp_layer_forward"), adjust = mod.kernel("bp_adjust_weights");
  const runtime::Dim3 block(kHidden, kInputsPerBlock);
  std::vector<float> first_partials;
  for (int s = 0; s < samples; ++s) {
    runtime::DevPtr d_x = ctx.malloc_copy(inputs[s]);
    host::launch(ctx, forward, blocks, block, d_x, d_w, d_partial);
    std::vector<float> partial = ctx.read<float>(d_partial, size_t(blocks) * kHidden);
    if (s == 0) first_partials = partial;
    std::array<double, kHidden> net{};
    for (int b = 0; b < blocks; ++b)
      for (int h = 0; h < kHidden; ++h) net[h] += partial[size_t(b) * kHidden + h];
    std::array<double, kHidden> delta = gpu_small.train(net, targets[s % 2]);
    std::vector<float> delta_f(delta.begin(), delta.end());
    ctx.memcpy_h2d(d_delta, delta_f.data(), kHidden * sizeof(float));
    host::launch(ctx, adjust, blocks, block, d_w, d_prev_dw, d_x, d_delta, float(kEta),
                 float(kMomentum));
  }
  std::vector<float> got_w = ctx.read<float>(d_w, w_in.size());

  // Reference training in double.
  std::vector<double> w(w_in.begin(), w_in.end()), prev_dw(w.size(), 0.0), dw_mag(w.size(), 0.0);
  std::vector<fp::Accum> partial_ref(size_t(blocks) * kHidden);
  for (int s = 0; s < samples; ++s) {
    const std::vector<float>& x = inputs[s];
    std::array<double, kHidden> net{};
    for (int i = 0; i < n_in; ++i)
      for (int h = 0; h < kHidden; ++h) {
        double t = w[size_t(i) * kHidden + h] * x[i];
        net[h] += t;
        if (s == 0) partial_ref[size_t(i / kInputsPerBlock) * kHidden + h].add(t);
      }
    std::array<double, kHidden> delta = ref_small.train(net, targets[s % 2]);
    for (int i = 0; i < n_in; ++i)
      for (int h = 0; h < kHidden; ++h) {
        size_t k = size_t(i) * kHidden + h;
        double dw = kEta * delta[h] * x[i] + kMomentum * prev_dw[k];
        w[k] += dw;
        prev_dw[k] = dw;
        dw_mag[k] += std::fabs(dw);
      }
  }
  // Partial sums: one rounding per product plus four tree levels.
  std::vector<double> want_partial, bound_partial;
  fp::split_bounds(partial_ref, 6, 0, want_partial, bound_partial);
  // Weights: a few roundings of the weight itself, and the updates inherit a
  // small relative error from the float partial sums behind the deltas.
  std::vector<double> bound_w(w.size());
  for (size_t k = 0; k < w.size(); ++k)
    bound_w[k] = 8 * fp::kF32Unit * std::fabs(w[k]) + 1e-3 * dw_mag[k] + 1e-12;
  return host::check_all({fp::check_within(first_partials, want_partial, bound_partial, "partial"),
                          fp::check_within(got_w, w, bound_w, "weight")});
}

}  // namespace

const WorkloadSpec& backprop_workload() {
  static const WorkloadSpec spec{
      "backprop",
      "perceptron training: forward pass with shared-memory tree reduction, weight update; host layers between",
      "compute",
      embedded::backprop_ptx,
      {"2048 inputs x 16 hidden, 2 training steps", "32768 inputs, 8 steps",
       "262144 inputs, 2 steps", "1M inputs, 2 steps"},
      run_backprop};
  return spec;
}

}  // namespace gpumux::workloads
