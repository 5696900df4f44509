#include "gpumux/sm/occupancy.h"

#include <algorithm>

#include "gpumux/exec/loaded_module.h"

namespace gpumux::sm {

namespace {

uint32_t round_up(uint64_t v, uint32_t granularity) {
  return uint32_t((v + granularity - 1) / granularity * granularity);
}

}  // namespace

TbNeeds tb_needs(const exec::KernelLayout& kl, uint32_t threads, uint64_t dyn_smem, const SmParams& sp) {
  TbNeeds n;
  n.threads = threads;
  n.warps = (threads + 31) / 32;
  n.registers =
      std::min(round_up(uint64_t(kl.resources.registers) * n.warps * 32, sp.register_granularity), sp.registers);
  n.shared_bytes = round_up(kl.shared.dynamic_offset + dyn_smem, sp.shared_mem_granularity);
  return n;
}

uint32_t tbs_per_empty_sm(const TbNeeds& n, const SmParams& sp) {
  uint64_t tbs = sp.tb_slots;
  auto within = [&](uint64_t capacity, uint64_t need) {
    if (need) tbs = std::min(tbs, capacity / need);
  };
  within(sp.warp_slots, n.warps);
  within(sp.max_threads, n.threads);
  within(sp.registers, n.registers);
  within(sp.shared_mem_bytes, n.shared_bytes);
  return uint32_t(tbs);
}

}  // namespace gpumux::sm
