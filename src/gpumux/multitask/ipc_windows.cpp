#include "gpumux/multitask/ipc_windows.h"

#include <numeric>

#include <fmt/format.h>

namespace gpumux::multitask {

double WindowSeries::ipc(const IpcWindows& w, size_t window) const {
  Cycle n = w.length(window);
  return n ? double(warp_insts.at(window)) / double(n) : 0.0;
}

uint64_t WindowSeries::total() const { return std::accumulate(warp_insts.begin(), warp_insts.end(), uint64_t(0)); }

void check_sampled_sm(std::optional<uint32_t> sm, uint32_t num_sms, std::string_view where) {
  if (sm && *sm >= num_sms)
    throw LoadError(fmt::format("{}{}run.ipc_sm = {}: the GPU has {} SMs (0 to {})", where, where.empty() ? "" : ": ",
                                *sm, num_sms, num_sms - 1));
}

WindowSampler::WindowSampler(gpu::Gpu& g, std::vector<std::string> app_names, Cycle window,
                             std::optional<uint32_t> sm, std::function<bool(const IpcWindows&)> on_window)
    : Component(g.engine(), g.clocks().core, "ipc-windows"), g_(g), on_window_(std::move(on_window)) {
  check_sampled_sm(sm, g.num_sms());
  w_.window = window;
  w_.sm = sm;
  for (uint32_t i = 0; i < app_names.size(); ++i) w_.apps.push_back({std::move(app_names[i]), i, {}});
}

void WindowSampler::arm() {
  if (!asleep_ || finished_) return;
  asleep_ = false;
  Cycle next = (g_.core_cycle() / w_.window + 1) * w_.window;
  wake_at(engine().clock(domain()).tick_of(next));
}

Cycle WindowSampler::tick(Cycle now) {
  if (finished_) return kNever;
  sample(now);
  if (on_window_ && on_window_(w_)) {
    engine().stop();
    asleep_ = true;
    return kNever;
  }
  // Alone in the engine: sleep, so that it can go idle.
  asleep_ = engine().idle();
  return asleep_ ? kNever : now + w_.window;
}

void WindowSampler::sample(Cycle end) {
  // Window ends passed while asleep: nothing ran on the GPU in those windows.
  while (w_.start(w_.ends.size()) + w_.window < end) {
    for (WindowSeries& s : w_.apps) s.warp_insts.push_back(0);
    for (WindowSeries& s : w_.kernels) s.warp_insts.push_back(0);
    w_.ends.push_back(w_.start(w_.ends.size()) + w_.window);
    sample_paging();
  }
  const StatKeys& keys = g_.keys();
  for (WindowSeries& s : w_.apps) s.warp_insts.push_back(0);
  for (WindowSeries& s : w_.kernels) s.warp_insts.push_back(0);
  seen_.resize(keys.size(), 0);
  const uint32_t first_sm = w_.sm.value_or(0), end_sm = w_.sm ? *w_.sm + 1 : g_.num_sms();
  for (size_t k = 1; k < keys.size(); ++k) {  // key 0: unattributed work, no kernel's
    uint64_t now = 0;
    for (uint32_t i = first_sm; i < end_sm; ++i) now += g_.sm(i).stats().warp_insts.at(StatKey(k)).value();
    uint64_t delta = now - seen_[k];  // counters only grow
    seen_[k] = now;
    const StatKeys::Entry& e = keys.at(StatKey(k));
    size_t slot = k - 1;
    if (slot == w_.kernels.size())  // keys come in order; a new kernel's earlier windows are zeros
      w_.kernels.push_back({e.label, e.app, std::vector<uint64_t>(w_.ends.size() + 1, 0)});
    w_.kernels[slot].warp_insts.back() += delta;
    if (e.app < w_.apps.size()) w_.apps[e.app].warp_insts.back() += delta;
  }
  w_.ends.push_back(end);
  sample_paging();
}

void WindowSampler::sample_paging() {
  if (!g_.config().vm.demand_paging) return;
  w_.faults_in_flight.push_back(g_.memory().mmu()->faults_in_flight());
  uint32_t active = 0;
  for (uint32_t i = 0; i < g_.num_sms(); ++i) active += g_.sm(i).active_warps();
  w_.active_warps.push_back(active);
}

void WindowSampler::finish(Cycle end) {
  if (finished_) return;
  finished_ = true;
  if (end > w_.start(w_.ends.size())) sample(end);
}

nlohmann::json to_json(const IpcWindows& w) {
  using nlohmann::json;
  auto series = [](const std::vector<WindowSeries>& v) {
    json out = json::array();
    for (const WindowSeries& s : v) out.push_back({{"name", s.name}, {"app", s.app}, {"warp_insts", s.warp_insts}});
    return out;
  };
  json out = {{"window", w.window}, {"ends", w.ends}, {"apps", series(w.apps)}, {"kernels", series(w.kernels)}};
  if (w.sm) out["sm"] = *w.sm;
  if (!w.faults_in_flight.empty()) {
    out["faults_in_flight"] = w.faults_in_flight;
    out["active_warps"] = w.active_warps;
  }
  return out;
}

void add_ipc_tracks(stats::Timeline& t, const IpcWindows& w, double core_mhz) {
  if (w.ends.empty()) return;
  auto process = [&](uint32_t app) { return fmt::format("app {}: {}", app, w.apps.at(app).name); };
  for (size_t k = 0; k <= w.ends.size(); ++k) {
    // A last sample of 0 at the run's end closes every graph.
    double at = double(k < w.ends.size() ? w.start(k) : w.ends.back()) / core_mhz;
    for (const WindowSeries& a : w.apps)
      t.counter(process(a.app), "IPC", at, {{"warp insts/cycle", k < w.ends.size() ? a.ipc(w, k) : 0.0}});
    std::vector<nlohmann::json> by_app(w.apps.size(), nlohmann::json::object());
    for (const WindowSeries& s : w.kernels)
      if (s.app < by_app.size()) by_app[s.app][s.name] = k < w.ends.size() ? s.ipc(w, k) : 0.0;
    for (uint32_t a = 0; a < by_app.size(); ++a)
      if (!by_app[a].empty()) t.counter(process(a), "kernel IPC", at, by_app[a]);
  }
  for (size_t k = 0; k < w.faults_in_flight.size(); ++k) {
    t.counter("GPU", "faults in flight", double(w.ends[k]) / core_mhz, {{"faults", w.faults_in_flight[k]}});
    t.counter("GPU", "active warps", double(w.ends[k]) / core_mhz, {{"warps", w.active_warps[k]}});
  }
}

}  // namespace gpumux::multitask
