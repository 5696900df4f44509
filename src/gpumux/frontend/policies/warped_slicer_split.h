// The split choice of the sharing policy "warped-slicer" (warped_slicer.cpp;
// Xu et al., "Warped-Slicer: Efficient Intra-SM Slicing through Dynamic
// Resource Partitioning for GPU Multiprogramming", ISCA'16), kept free of the
// simulator so that it can be tested on synthetic curves.
//
// A kernel's scaling curve is its performance on one SM (warp instructions
// per cycle) with t of its TBs resident, t = 0..N (N: what an empty SM
// holds; 0 TBs: no performance). The policy measures it at a few TB counts
// (a profile phase, one count per SM) and interpolates the rest. The split
// gives kernel i t_i TBs on every SM; its combined performance is the sum of
// each kernel's normalised performance curve_i(t_i) / max_t curve_i(t) (the
// intra-SM share of STP the curves predict), and the best split among those
// that fit the SM, every kernel holding at least one TB, wins. Warped-Slicer
// searches the curves by water-filling; every split is enumerated here,
// which finds the same optimum on concave curves and the true one on others.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace gpumux::frontend::warped_slicer {

// curve[t]: performance with t TBs per SM, t = 0..N; curve[0] = 0.
using Curve = std::vector<double>;

// The TB counts a kernel holding at most `max_tbs` per SM is profiled at on
// `sms` SMs, one each: 1..max_tbs when there are enough SMs (the extra ones
// repeat max_tbs), else `sms` counts spread evenly from 1 to max_tbs (one SM:
// max_tbs alone).
std::vector<uint32_t> profile_counts(uint32_t sms, uint32_t max_tbs);

// The curve over 0..max_tbs from (TB count, performance) samples: samples at
// the same count are averaged, counts between samples are interpolated
// linearly (from 0 at 0 TBs), counts beyond the last sample keep its value.
Curve interpolate(std::span<const std::pair<uint32_t, double>> samples, uint32_t max_tbs);

struct Split {
  std::vector<uint32_t> tbs;  // per kernel; empty: no split gives every kernel a TB
  double performance = 0;     // the sum of normalised performance
};

// The split with the best combined performance among those `fits` accepts
// (TBs per kernel, in the order of `curves`); ties go to the larger minimum
// normalised performance, then to the first in enumeration order (fewer TBs
// for the earlier kernels). `fits` must be monotone: a split that fits still
// fits with one TB fewer of any kernel.
Split best_split(std::span<const Curve> curves, const std::function<bool(std::span<const uint32_t>)>& fits);

}  // namespace gpumux::frontend::warped_slicer
