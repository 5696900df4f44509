#include "gpumux/frontend/policies/warped_slicer_split.h"

#include <algorithm>
#include <map>

namespace gpumux::frontend::warped_slicer {

std::vector<uint32_t> profile_counts(uint32_t sms, uint32_t max_tbs) {
  std::vector<uint32_t> v;
  if (max_tbs == 0) return v;
  for (uint32_t j = 0; j < sms; ++j) {
    if (sms >= max_tbs)
      v.push_back(std::min(j + 1, max_tbs));
    else if (sms == 1)
      v.push_back(max_tbs);
    else  // rounded to the nearest count: 1 and max_tbs both measured
      v.push_back(1 + uint32_t((uint64_t(j) * (max_tbs - 1) * 2 + (sms - 1)) / (2 * uint64_t(sms - 1))));
  }
  return v;
}

Curve interpolate(std::span<const std::pair<uint32_t, double>> samples, uint32_t max_tbs) {
  std::map<uint32_t, std::pair<double, uint32_t>> sum;  // count -> (sum, samples)
  for (const auto& [t, perf] : samples) {
    if (t == 0 || t > max_tbs) continue;
    sum[t].first += perf;
    ++sum[t].second;
  }
  Curve c(size_t(max_tbs) + 1, 0.0);
  uint32_t prev_t = 0;
  double prev = 0;
  for (const auto& [t, s] : sum) {
    const double v = s.first / s.second;
    for (uint32_t u = prev_t + 1; u <= t; ++u) c[u] = prev + (v - prev) * double(u - prev_t) / double(t - prev_t);
    prev_t = t;
    prev = v;
  }
  for (uint32_t u = prev_t + 1; u <= max_tbs; ++u) c[u] = prev;
  return c;
}

namespace {

struct Search {
  std::span<const Curve> curves;
  const std::function<bool(std::span<const uint32_t>)>& fits;
  std::vector<double> peak;
  std::vector<uint32_t> tbs;
  Split best;
  double best_min = -1;

  void visit(size_t i) {
    if (i == curves.size()) return score();
    for (uint32_t t = 1; t < curves[i].size(); ++t) {
      tbs[i] = t;
      // The others at their least (one TB each): if that does not fit, more TBs of kernel i cannot either.
      std::vector<uint32_t> least = tbs;
      for (size_t j = i + 1; j < least.size(); ++j) least[j] = 1;
      if (!fits(least)) break;
      visit(i + 1);
    }
    tbs[i] = 0;
  }

  void score() {
    if (!fits(tbs)) return;
    double sum = 0, least = 1e300;
    for (size_t i = 0; i < curves.size(); ++i) {
      const double n = peak[i] > 0 ? curves[i][tbs[i]] / peak[i] : 0;
      sum += n;
      least = std::min(least, n);
    }
    if (best.tbs.empty() || sum > best.performance || (sum == best.performance && least > best_min)) {
      best.tbs = tbs;
      best.performance = sum;
      best_min = least;
    }
  }
};

}  // namespace

Split best_split(std::span<const Curve> curves, const std::function<bool(std::span<const uint32_t>)>& fits) {
  Search s{curves, fits, {}, std::vector<uint32_t>(curves.size(), 0), {}, -1};
  for (const Curve& c : curves) s.peak.push_back(c.empty() ? 0 : *std::max_element(c.begin(), c.end()));
  if (!curves.empty()) s.visit(0);
  return s.best;
}

}  // namespace gpumux::frontend::warped_slicer
