#include "gpumux/gpu/qos/tb_adjustment.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gpumux/core/error.h"

namespace gpumux::gpu {
namespace {

using frontend::policy::Amounts;
using frontend::policy::kNumResources;

// The fewest TBs of `victim` whose resources, with `free`, hold one TB of
// `gainer` (0: no number of them does).
uint32_t tbs_to_vacate(const Amounts& free, const Amounts& gainer, const Amounts& victim) {
  uint64_t n = 0;
  for (size_t r = 0; r < kNumResources; ++r) {
    if (free[r] >= gainer[r]) continue;
    if (victim[r] == 0) return 0;
    n = std::max(n, (gainer[r] - free[r] + victim[r] - 1) / victim[r]);
  }
  return uint32_t(n);
}

bool fits(const Amounts& free, const Amounts& need) {
  for (size_t r = 0; r < kNumResources; ++r)
    if (free[r] < need[r]) return false;
  return true;
}

// The paper's victim rules for `n` TBs of `v` on `sm`.
bool may_be_victim(const TbKernel& v, uint32_t sm, uint32_t n, uint32_t total_tbs) {
  if (!v.goal) return true;
  if (v.idle_tbs(sm) >= n + 1) return true;
  return v.ipc_history && total_tbs > 0 && *v.ipc_history * (1.0 - double(n) / double(total_tbs)) > *v.goal;
}

}  // namespace

std::vector<TbMove> plan_tb_moves(std::span<const TbKernel> kernels, const Amounts& capacity, bool may_swap) {
  std::vector<TbMove> moves;
  if (kernels.empty()) return moves;
  const size_t sms = kernels.front().tbs.size();
  std::vector<std::vector<uint32_t>> tbs;  // resident as the moves so far leave them, [kernel][sm]
  std::vector<uint32_t> totals;
  for (const TbKernel& k : kernels) {
    tbs.push_back(k.tbs);
    totals.push_back(0);
    for (uint32_t t : k.tbs) totals.back() += t;
  }
  // Non-QoS kernels are tried as victims first, then QoS kernels, each in dispatch order.
  std::vector<size_t> victim_order;
  for (int qos = 0; qos < 2; ++qos)
    for (size_t i = 0; i < kernels.size(); ++i)
      if (kernels[i].goal.has_value() == bool(qos)) victim_order.push_back(i);
  for (uint32_t sm = 0; sm < sms; ++sm) {
    for (size_t g = 0; g < kernels.size(); ++g) {
      const TbKernel& k = kernels[g];
      if (!k.goal || !k.tbs_left || !k.ipc_history || *k.ipc_history >= *k.goal || k.idle_tbs(sm) > 1) continue;
      Amounts free = capacity;
      for (size_t i = 0; i < kernels.size(); ++i)
        for (size_t r = 0; r < kNumResources; ++r)
          free[r] -= std::min(free[r], uint64_t(tbs[i][sm]) * kernels[i].need[r]);
      if (fits(free, k.need)) {
        // Room, but its share there not filled yet: its TBs are still being
        // placed, and a larger share would not add TLP.
        if (!k.share.empty() && tbs[g][sm] < k.share[sm]) continue;
        moves.push_back({sm, k.kernel, 0, 0});
        ++tbs[g][sm];
        continue;
      }
      if (!may_swap) continue;
      for (size_t v : victim_order) {
        if (v == g) continue;
        uint32_t n = tbs_to_vacate(free, k.need, kernels[v].need);
        if (n == 0 || n > tbs[v][sm] || !may_be_victim(kernels[v], sm, n, totals[v])) continue;
        moves.push_back({sm, k.kernel, kernels[v].kernel, n});
        tbs[v][sm] -= n;
        totals[v] -= n;
        ++tbs[g][sm];
        break;
      }
    }
  }
  return moves;
}

TbAdjustment::TbAdjustment(const TbAdjustmentParams& p, QosGoals goals, frontend::TbDispatcher& dispatcher,
                           std::vector<sm::Sm*> sms)
    : p_(p),
      goals_(std::move(goals)),
      dispatcher_(dispatcher),
      shares_([&]() -> frontend::TbShareTarget& {
        auto* t = dynamic_cast<frontend::TbShareTarget*>(&dispatcher.policy());
        if (!t)
          throw ApiError(fmt::format("the QoS TB adjustment changes TB shares per SM: it needs the sharing policy "
                                     "\"smk-symmetric\", not \"{}\"",
                                     dispatcher.policy().name()));
        return *t;
      }()),
      context_switch_(frontend::make_preemption_mechanism("switch")),
      sms_(std::move(sms)) {}

void TbAdjustment::register_stats(StatRegistry& reg) {
  reg.add("qos.tb_adjust.grants", grants_, "TBs granted to the QoS kernel on one SM by the TB adjustment");
  reg.add("qos.tb_adjust.victim_tbs", victim_tbs_,
          "TBs of the kernel the TB adjustment asked to leave by context switch (one whose warps had all exited "
          "finishes instead)");
  reg.add("qos.tb_adjust.swap_bytes", swap_bytes_,
          "context bytes saved for the kernel's TBs swapped out by the TB adjustment (finished swaps)");
  reg.add("qos.tb_adjust.swap_cycles", swap_cycles_,
          "sum over the TB adjustment's swaps of the kernel's TBs of the cycles from request to the TBs having left");
  reg.add("qos.tb_adjust.idle_warp_samples", idle_samples_, "samples of the idle warps of every kernel on every SM");
}

void TbAdjustment::sample(Cycle now) {
  for (const frontend::ActiveKernel& a : dispatcher_.active_kernels()) {
    std::vector<uint64_t>& sums = idle_sums_[a.kernel->id];
    sums.resize(sms_.size(), 0);
    for (size_t s = 0; s < sms_.size(); ++s) sums[s] += sms_[s]->idle_warps(a.kernel->id, now);
  }
  ++samples_;
  idle_samples_.add();
  account_swaps();
}

void TbAdjustment::account_swaps() {
  const std::vector<frontend::PreemptionRecord>& recs = dispatcher_.preemptions();
  std::erase_if(swaps_pending_, [&](const std::pair<size_t, StatKey>& swap) {
    const auto& [i, key] = swap;
    const frontend::PreemptionRecord& rec = recs[i];
    if (!rec.done()) return false;
    swap_bytes_[key].add(rec.bytes_saved);
    swap_cycles_[key].add(rec.latency());
    return true;
  });
}

void TbAdjustment::new_epoch(const EpochSample& s, Cycle now) {
  if (s.index == 0) {  // a new series: samples from before the controller slept are not this epoch's
    idle_sums_.clear();
    samples_ = 0;
  }
  sample(now);
  std::vector<frontend::ActiveKernel> active = dispatcher_.active_kernels();
  std::set<uint32_t> apps;
  for (const KernelEpoch& k : s.kernels) {
    apps.insert(k.app);
    history_[k.app].thread_insts += k.total_thread_insts();
  }
  for (uint32_t app : apps) history_[app].cycles += s.ended_cycles;
  std::vector<TbKernel> kernels;
  for (const KernelEpoch& e : s.kernels) {
    auto a = std::find_if(active.begin(), active.end(),
                          [&](const frontend::ActiveKernel& x) { return x.kernel->id == e.kernel; });
    if (a == active.end()) continue;
    TbKernel k;
    k.kernel = e.kernel;
    k.goal = goals_.of(e.app);
    const History& h = history_[e.app];
    if (h.cycles > 0) k.ipc_history = double(h.thread_insts) / double(h.cycles);
    k.tbs_left = a->tbs_left > 0;
    k.need = frontend::policy::needs(*a->kernel);
    k.warps_per_tb = std::max<uint32_t>(1, a->kernel->needs.warps);
    k.tbs = e.tbs;
    for (const sm::Sm* sm : sms_) k.share.push_back(dispatcher_.quota(*a->kernel, sm->id()));
    k.idle_warps.assign(sms_.size(), 0);
    if (auto it = idle_sums_.find(e.kernel); it != idle_sums_.end())
      for (size_t i = 0; i < sms_.size(); ++i) k.idle_warps[i] = double(it->second[i]) / double(samples_);
    kernels.push_back(std::move(k));
  }
  idle_sums_.clear();
  samples_ = 0;
  if (kernels.empty()) return;
  std::vector<TbMove> moves =
      plan_tb_moves(kernels, frontend::policy::capacity(sms_.front()->params()), !dispatcher_.preempting());
  auto key_of = [&](uint32_t id) {
    for (const frontend::ActiveKernel& a : active)
      if (a.kernel->id == id) return a.kernel->key;
    return kNoKey;
  };
  for (const TbMove& m : moves) {
    if (m.victim_tbs > 0) {
      std::optional<size_t> rec = dispatcher_.preempt(m.sm, m.victim, m.victim_tbs, *context_switch_, now);
      if (!rec) continue;
      swaps_pending_.emplace_back(*rec, key_of(m.victim));
      shares_.adjust_tbs(m.victim, m.sm, -int32_t(m.victim_tbs));
      victim_tbs_[key_of(m.victim)].add(dispatcher_.preemptions()[*rec].tbs);
    }
    shares_.adjust_tbs(m.kernel, m.sm, 1);
    grants_[key_of(m.kernel)].add();
  }
  if (!moves.empty()) dispatcher_.request_repartition();
}

}  // namespace gpumux::gpu
