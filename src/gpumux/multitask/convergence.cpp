#include "gpumux/multitask/convergence.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace gpumux::multitask {

namespace {

constexpr size_t kBatches = 10;
// Student's t, 97.5% quantile, kBatches - 1 = 9 degrees of freedom (any t table).
constexpr double kT975Df9 = 2.262;

}  // namespace

RateConvergence::RateConvergence(ConvergenceRule rule, std::vector<Cycle> arrivals) : rule_(rule) {
  if (!(rule.tolerance > 0 && rule.tolerance < 1) || rule.windows < 2)
    throw std::invalid_argument("RateConvergence: tolerance must be in (0, 1) and windows >= 2");
  for (Cycle a : arrivals) apps_.push_back({a, 0, {}, {}, false});
}

void RateConvergence::add_window(Cycle end, std::span<const uint64_t> warp_insts) {
  if (warp_insts.size() != apps_.size() || end <= last_end_)
    throw std::invalid_argument("RateConvergence::add_window: one count per application, windows in order");
  Cycle start = last_end_;
  last_end_ = end;
  for (size_t i = 0; i < apps_.size(); ++i) {
    App& a = apps_[i];
    if (end <= a.arrival) continue;
    a.total += warp_insts[i];
    Cycle from = std::max(start, a.arrival);
    a.window_ipc.push_back(double(warp_insts[i]) / double(end - from));
    if (a.total) a.running.push_back(double(a.total) / double(end - a.arrival));
  }
}

double RateConvergence::spread(const App& a) const {
  if (a.running.empty()) return 0;
  const double latest = a.running.back();
  size_t n = std::min<size_t>(rule_.windows, a.running.size());
  double worst = 0;
  for (size_t k = a.running.size() - n; k < a.running.size(); ++k)
    worst = std::max(worst, std::abs(a.running[k] - latest) / latest);
  return worst;
}

bool RateConvergence::converged(size_t app) const {
  const App& a = apps_.at(app);
  return a.retired || (a.running.size() >= rule_.windows && spread(a) <= rule_.tolerance);
}

bool RateConvergence::converged() const {
  for (size_t i = 0; i < apps_.size(); ++i)
    if (!converged(i)) return false;
  return true;
}

RateEstimate RateConvergence::estimate(size_t app) const {
  const App& a = apps_.at(app);
  RateEstimate e;
  if (a.running.empty()) return e;
  e.ipc = a.running.back();
  e.spread = spread(a);
  // Batch means over the latest whole batches of windows since arrival.
  const size_t per_batch = a.window_ipc.size() / kBatches;
  if (per_batch >= 2) {
    std::vector<double> means;
    size_t first = a.window_ipc.size() - per_batch * kBatches;
    for (size_t b = 0; b < kBatches; ++b) {
      double sum = 0;
      for (size_t k = 0; k < per_batch; ++k) sum += a.window_ipc[first + b * per_batch + k];
      means.push_back(sum / double(per_batch));
    }
    double mean = 0, var = 0;
    for (double m : means) mean += m / double(kBatches);
    for (double m : means) var += (m - mean) * (m - mean) / double(kBatches - 1);
    if (mean > 0) e.batch_half_width = kT975Df9 * std::sqrt(var / double(kBatches)) / mean;
  }
  return e;
}

void set_metric_bounds(ConvergenceReport& c, const WorkloadMetrics& m) {
  c.stp_bound = c.antt_bound = 0.0;
  for (size_t i = 0; i < c.apps.size(); ++i) {
    *c.stp_bound += m.apps.at(i).progress * c.apps[i].bound();
    *c.antt_bound += m.apps.at(i).ntt * c.apps[i].bound() / double(c.apps.size());
  }
}

nlohmann::json to_json(const ConvergenceReport& c) {
  using nlohmann::json;
  json apps = json::array();
  for (size_t i = 0; i < c.apps.size(); ++i) {
    const RateEstimate& e = c.apps[i];
    apps.push_back({{"name", c.names.at(i)}, {"ipc", e.ipc}, {"spread", e.spread},
                    {"batch_half_width", e.batch_half_width ? json(*e.batch_half_width) : json(nullptr)},
                    {"bound", e.bound()}});
  }
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"converged", c.converged}, {"at", c.at}, {"window", c.window}, {"tolerance", c.rule.tolerance},
          {"windows", c.rule.windows}, {"apps", apps}, {"stp_bound", opt(c.stp_bound)},
          {"antt_bound", opt(c.antt_bound)}};
}

std::string format_convergence(const ConvergenceReport& c) {
  std::string s = c.converged ? fmt::format("converged at core cycle {}: every app's rate within {:.1f}% over {} windows "
                                            "of {} cycles\n",
                                            c.at, 100 * c.rule.tolerance, c.rule.windows, c.window)
                              : fmt::format("NOT converged by core cycle {} (tolerance {:.1f}%, {} windows of {} "
                                            "cycles): the estimates below are not within their bound\n",
                                            c.at, 100 * c.rule.tolerance, c.rule.windows, c.window);
  for (size_t i = 0; i < c.apps.size(); ++i) {
    const RateEstimate& e = c.apps[i];
    std::string batch = e.batch_half_width ? fmt::format("{:.2f}%", 100 * *e.batch_half_width) : "n/a";
    s += fmt::format("  {}: {:.3f} warp insts/cycle, spread {:.2f}%, batch-means 95% +-{}\n", c.names.at(i), e.ipc,
                     100 * e.spread, batch);
  }
  if (c.stp_bound && c.antt_bound)
    s += fmt::format("  error bound: STP +-{:.3f}, ANTT +-{:.3f} (estimated from rates, not completions)\n",
                     *c.stp_bound, *c.antt_bound);
  return s;
}

}  // namespace gpumux::multitask
