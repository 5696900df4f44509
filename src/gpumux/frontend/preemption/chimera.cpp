// chimera (Park et al., ASPLOS'15): for each TB, the cheapest way out that
// meets the latency budget. Per TB, in core cycles:
//   drain   latency: the kernel's average TB length so far minus the TB's
//           residency (unknown, so never within budget, before any TB of the
//           kernel finished); cost: none (no work lost)
//   switch  latency: the context bytes of the TBs switched so far on this
//           SM, this one included, over the SM's share of DRAM bandwidth;
//           cost: its save plus its restore (a lazy save counts neither for
//           its shared memory: the cost of a later eviction is not known)
//   flush   only if idempotent; latency: none; cost: its residency (the work
//           redone)
// Among the ways within budget the cheapest is taken, else the quickest.
// The TBs nearest their end are taken first (they are the cheapest to drain).
#include <limits>

#include "gpumux/frontend/preemption/mechanism.h"

namespace gpumux::frontend {
namespace {

class ChimeraPreemption final : public PreemptionMechanism {
 public:
  std::string_view name() const override { return "chimera"; }
  void choose(std::span<const sm::ResidentTb> candidates, uint32_t n, const sm::KernelInstance& k,
              const PreemptionEstimates& e, std::vector<PreemptChoice>& out) const override {
    constexpr double kUnknown = std::numeric_limits<double>::infinity();
    const double avg_tb = k.tbs_finished ? double(k.tb_cycles_finished) / double(k.tbs_finished) : kUnknown;
    auto remaining = [&](const sm::ResidentTb& t) { return std::max(0.0, avg_tb - double(t.run_cycles)); };
    auto nearest_end = [&](const sm::ResidentTb& a, const sm::ResidentTb& b) { return remaining(a) < remaining(b); };
    const double budget = double(e.latency_budget);
    double switched_bytes = 0;
    for (const sm::ResidentTb& t : first_n(candidates, n, nearest_end)) {
      double bytes = double(e.live_registers_only ? t.live_context_bytes : t.context_bytes) -
                     (e.lazy_shared ? t.shared_bytes : 0);
      struct Way {
        sm::PreemptAction action;
        double latency, cost;
      };
      Way ways[3] = {{sm::PreemptAction::Drain, remaining(t), 0},
                     {sm::PreemptAction::Switch, (switched_bytes + bytes) / e.sm_bytes_per_cycle,
                      2 * bytes / e.sm_bytes_per_cycle},
                     {sm::PreemptAction::Flush, t.idempotent ? 0 : kUnknown, double(t.run_cycles)}};
      const Way* best = nullptr;
      for (const Way& w : ways)
        if (w.latency <= budget && (!best || w.cost < best->cost)) best = &w;
      if (!best)
        for (const Way& w : ways)
          if (!best || w.latency < best->latency) best = &w;
      if (best->action == sm::PreemptAction::Switch) switched_bytes += bytes;
      out.push_back({t.slot, best->action});
    }
  }
};

}  // namespace

std::unique_ptr<PreemptionMechanism> make_chimera() { return std::make_unique<ChimeraPreemption>(); }

}  // namespace gpumux::frontend
