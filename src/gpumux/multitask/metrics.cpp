#include "gpumux/multitask/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpumux/core/error.h"

namespace gpumux::multitask {

double kernel_cpi(double busy_cycles, uint64_t thread_insts) {
  return busy_cycles > 0 && thread_insts > 0 ? busy_cycles / double(thread_insts) : 0.0;
}

WorkloadMetrics compute_metrics(std::span<const AppTimes> apps) {
  if (apps.empty()) throw ApiError("multiprogram metrics: no applications");
  WorkloadMetrics m;
  double min_np = 0, max_np = 0, sum_ntt = 0;
  for (const AppTimes& a : apps) {
    auto check = [&](double v, const char* what) {
      if (!std::isfinite(v) || v <= 0)
        throw ApiError(fmt::format("multiprogram metrics: application '{}': {} time {} is not a positive number",
                                   a.name, what, v));
    };
    check(a.shared, "shared");
    check(a.alone, "alone");
    AppMetrics am;
    am.name = a.name;
    am.shared = a.shared;
    am.alone = a.alone;
    am.ntt = a.shared / a.alone;
    am.progress = a.alone / a.shared;
    sum_ntt += am.ntt;
    m.stp += am.progress;
    min_np = m.apps.empty() ? am.progress : std::min(min_np, am.progress);
    max_np = m.apps.empty() ? am.progress : std::max(max_np, am.progress);
    m.apps.push_back(std::move(am));
  }
  m.antt = sum_ntt / double(m.apps.size());
  m.fairness = min_np / max_np;
  return m;
}

nlohmann::json to_json(const WorkloadMetrics& m) {
  nlohmann::json ntt = nlohmann::json::object();
  nlohmann::json apps = nlohmann::json::array();
  std::map<std::string, int> seen;
  for (const AppMetrics& a : m.apps) {
    int n = ++seen[a.name];
    ntt[n == 1 ? a.name : fmt::format("{}#{}", a.name, n)] = a.ntt;
    apps.push_back({{"name", a.name}, {"ntt", a.ntt}, {"progress", a.progress}, {"shared", a.shared}, {"alone", a.alone}});
  }
  return {{"stp", m.stp}, {"antt", m.antt}, {"fairness", m.fairness}, {"ntt", ntt}, {"apps", apps}};
}

}  // namespace gpumux::multitask
