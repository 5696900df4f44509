// The [policy] keys of a workload file that tune the sharing policy and its
// preemption (docs/sharing-policies.md, docs/preemption.md, docs/maestro.md,
// docs/sharing-modes.md); workload_file.cpp reads the rest of the file.
#include "gpumux/multitask/workload_policy_keys.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpumux/frontend/preemption/mechanism.h"

namespace gpumux::multitask {
namespace {

// The preemption keys of [policy]. Each option must take effect: it is
// refused with a mechanism or policy that would ignore it.
void parse_preemption(StrictTable& pt, WorkloadFile& w) {
  frontend::PreemptionOptions& po = w.policy_options.preemption;
  if (w.policy == "maestro") po.mechanism = "chimera";  // GPU Maestro repartitions with Chimera (ASPLOS'17 4.1)
  if (w.policy == "time-slice") po.mechanism = "switch";  // a timeslice ends with a context switch (docs/sharing-modes.md)
  if (auto m = pt.get<std::string>("preemption", "a preemption mechanism name")) {
    auto known = frontend::preemption_mechanism_names();
    if (std::find(known.begin(), known.end(), *m) == known.end())
      pt.fail(*pt.node("preemption"), "preemption",
              fmt::format("unknown preemption mechanism '{}' (known: {})", *m, fmt::join(known, ", ")));
    po.mechanism = *m;
  }
  auto microseconds = [&](const char* key, double& out) {
    auto v = pt.get<double>(key, "a number of microseconds");
    if (!v) return false;
    if (!(*v >= 0 && *v <= 1e6)) pt.fail(*pt.node(key), key, "expected microseconds in [0, 1e6]");
    out = *v;
    return true;
  };
  auto only_with = [&](const char* key, bool ok, std::string_view what) {
    if (!ok) pt.fail(*pt.node(key), key, fmt::format("only used with {}", what));
  };
  if (microseconds("latency_budget_us", po.latency_budget_us))
    only_with("latency_budget_us", po.mechanism == "chimera", "preemption = \"chimera\"");
  if (microseconds("switch_after_us", po.switch_after_us))
    only_with("switch_after_us", po.mechanism == "drain" || po.mechanism == "chimera",
              "preemption = \"drain\" or \"chimera\" (hybrid: TBs still draining are then switched)");
  if (auto live = pt.get<bool>("live_registers", "true or false")) {
    po.save.live_registers_only = *live;
    only_with("live_registers",
              po.mechanism == "switch" || po.mechanism == "chimera" || po.switch_after_us > 0,
              "a mechanism that switches contexts (switch, chimera, or drain with switch_after_us)");
  }
  if (auto lazy = pt.get<bool>("lazy_shared", "true or false")) {
    po.save.lazy_shared = *lazy;
    only_with("lazy_shared", po.mechanism == "switch" || po.mechanism == "chimera" || po.switch_after_us > 0,
              "a mechanism that switches contexts (switch, chimera, or drain with switch_after_us)");
  }
  if (auto zero = pt.get<bool>("zero_cost_preemption", "true or false")) {
    po.save.zero_cost = *zero;
    if (*zero && po.save.lazy_shared)
      pt.fail(*pt.node("zero_cost_preemption"), "zero_cost_preemption",
              "a zero-cost switch moves no bytes: lazy_shared would have nothing to leave parked");
  }
  if (auto ex = pt.get<bool>("exclusive", "true or false")) {
    w.policy_options.exclusive = *ex;
    only_with("exclusive", w.policy == "ppq", "policy ppq");
  }
}

// maestro's, warped-slicer's, smk-split's, time-slice's, mig's and mps's keys of [policy] (docs/maestro.md, docs/sharing-modes.md), refused with another policy.
void parse_policy_specific_keys(StrictTable& pt, WorkloadFile& w) {
  frontend::MaestroOptions& mo = w.policy_options.maestro;
  for (const char* key :
       {"epoch_cycles", "objective", "rededicate_every", "stable_tolerance", "resume_pairs", "role_swaps"})
    if (pt.node(key) && w.policy != "maestro")
      pt.fail(*pt.node(key), key, fmt::format("only used with policy maestro, not '{}'", w.policy));
  mo.epoch_cycles = Cycle(pt.integer("epoch_cycles", 1, int64_t(1) << 40).value_or(int64_t(mo.epoch_cycles)));
  mo.rededicate_every = uint32_t(pt.integer("rededicate_every", 1, 1 << 20).value_or(mo.rededicate_every));
  mo.objective =
      pt.choice("objective", {{"antt", frontend::maestro::Objective::Antt}, {"stp", frontend::maestro::Objective::Stp}},
                mo.objective);
  if (auto t = pt.get<double>("stable_tolerance", "a fraction")) {
    if (!(*t >= 0 && *t <= 1)) pt.fail(*pt.node("stable_tolerance"), "stable_tolerance", "expected a fraction in [0, 1]");
    mo.stable_tolerance = *t;
  }
  if (auto r = pt.get<bool>("resume_pairs", "true or false")) mo.resume_pairs = *r;
  if (auto r = pt.get<bool>("role_swaps", "true or false")) mo.role_swaps = *r;
  if (auto t = pt.get<double>("timeslice_us", "a number of microseconds")) {
    if (w.policy != "time-slice")
      pt.fail(*pt.node("timeslice_us"), "timeslice_us", fmt::format("only used with policy time-slice, not '{}'", w.policy));
    if (!(*t > 0 && *t <= 1e6)) pt.fail(*pt.node("timeslice_us"), "timeslice_us", "expected microseconds in (0, 1e6]");
    w.policy_options.timeslice_us = *t;
  }
  if (const toml::node* n = pt.node("mig_profiles")) {  // by app position; or each app's mig_profile
    if (w.policy != "mig") pt.fail(*n, "mig_profiles", fmt::format("only used with policy mig, not '{}'", w.policy));
    std::vector<std::string> names = strings(pt, "mig_profiles");
    for (size_t i = 0; i < names.size(); ++i) w.policy_options.mig_profile_by_app[uint32_t(i)] = names[i];
  }
  if (auto pct = pt.integer("active_thread_percentage", 1, 100)) {  // the control daemon's default
    if (w.policy != "mps")
      pt.fail(*pt.node("active_thread_percentage"), "active_thread_percentage",
              fmt::format("only used with policy mps, not '{}'", w.policy));
    w.policy_options.mps_default_percent = uint32_t(*pct);
  }
  if (const toml::node* n = pt.node("fault_isolation"); n && w.policy != "mps")
    pt.fail(*n, "fault_isolation", fmt::format("only used with policy mps, not '{}'", w.policy));
  bool& isolation = w.policy_options.mps_fault_isolation;
  isolation = pt.get<bool>("fault_isolation", "true or false").value_or(isolation);
  if (auto share = pt.get<double>("first_share", "a fraction")) {
    const toml::node& n = *pt.node("first_share");
    if (w.policy != "smk-split")
      pt.fail(n, "first_share", fmt::format("only used with policy smk-split, not '{}'", w.policy));
    if (!(*share > 0 && *share < 1)) pt.fail(n, "first_share", "expected a fraction in (0, 1)");
    w.policy_options.first_share = *share;
  }
  if (const toml::node* n = pt.node("profile_cycles"); n && w.policy != "warped-slicer")
    pt.fail(*n, "profile_cycles", fmt::format("only used with policy warped-slicer, not '{}'", w.policy));
  Cycle& profile = w.policy_options.warped_slicer.profile_cycles;
  profile = Cycle(pt.integer("profile_cycles", 1, int64_t(1) << 40).value_or(int64_t(profile)));
}

}  // namespace

void parse_policy_keys(StrictTable& pt, WorkloadFile& w) {
  parse_preemption(pt, w);
  parse_policy_specific_keys(pt, w);
  // Any policy (docs/virtual-memory.md, "Fault-aware scheduling"); the GPU
  // refuses it without demand paging and a pipeline that can squash a fault.
  w.policy_options.fault_aware = pt.get<bool>("fault_aware", "true or false").value_or(false);
}

}  // namespace gpumux::multitask
