// Floating-point checks whose tolerance follows from the computation rather
// than from a guessed constant. A float sum of n terms, in any order and with
// or without fused multiply-adds, is within n * u * sum|term| of the exact sum
// (u = 2^-24, the unit roundoff of f32). References are computed in double
// together with that sum of magnitudes, so a check cannot fail on rounding
// yet still catches any real error (which is orders of magnitude larger).
#pragma once

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "workload.h"

namespace gpumux::workloads::fp {

inline constexpr double kF32Unit = 1.0 / 16777216.0;  // 2^-24
inline constexpr double kF64Unit = 1.0 / 9007199254740992.0;  // 2^-53

// Passes when |got[i] - want[i]| <= bound[i] for every i.
template <class T>
CheckResult check_within(const std::vector<T>& got, const std::vector<double>& want,
                         const std::vector<double>& bound, std::string_view what = "result") {
  if (got.size() != want.size() || bound.size() != want.size())
    return {false, fmt::format("{}: size {} != expected {}", what, got.size(), want.size())};
  double worst_ratio = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(double(got[i]) - want[i]);
    if (!(err <= bound[i]))
      return {false, fmt::format("{}[{}] = {} expected {} (error bound {:.3g})", what, i,
                                 double(got[i]), want[i], bound[i])};
    if (bound[i] > 0) worst_ratio = std::max(worst_ratio, err / bound[i]);
  }
  return {true, fmt::format("{} {} values within error bounds (worst {:.2f} of bound)",
                            got.size(), what, worst_ratio)};
}

// A reference value accumulated in double together with the magnitude of its
// terms, from which the error bound of a float evaluation follows.
struct Accum {
  double sum = 0, magnitude = 0;
  void add(double term) {
    sum += term;
    magnitude += std::fabs(term);
  }
};

// Splits accumulators into reference values and bounds: bound = slack * n * u * magnitude
// + floor, where n is the number of rounding steps a float evaluation makes in series.
inline void split_bounds(const std::vector<Accum>& acc, double rounding_steps, double floor,
                         std::vector<double>& want, std::vector<double>& bound) {
  want.resize(acc.size());
  bound.resize(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    want[i] = acc[i].sum;
    bound[i] = rounding_steps * kF32Unit * acc[i].magnitude + floor;
  }
}

}  // namespace gpumux::workloads::fp
