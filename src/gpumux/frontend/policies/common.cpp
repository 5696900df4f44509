#include "gpumux/frontend/policies/common.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace gpumux::frontend::policy {

const char* resource_name(size_t r) {
  static constexpr const char* kNames[kNumResources] = {"TB slots", "warps", "threads", "registers",
                                                        "shared memory bytes"};
  return kNames[r];
}

Amounts capacity(const SmParams& p) {
  return {p.tb_slots, p.warp_slots, p.max_threads, p.registers, p.shared_mem_bytes};
}

Amounts needs(const sm::KernelInstance& k) {
  const sm::TbNeeds& n = k.needs;
  return {1, n.warps, n.threads, n.registers, n.shared_bytes};
}

Limit tbs_within(const Amounts& share, const Amounts& need) {
  Limit l{std::numeric_limits<uint64_t>::max(), kTbSlots};
  for (size_t r = 0; r < kNumResources; ++r) {
    if (need[r] == 0) continue;
    uint64_t n = share[r] / need[r];
    if (n < l.tbs) l = {n, r};
  }
  return l;
}

uint32_t quota_within(const ActiveKernel& a, const Amounts& share, std::string_view policy,
                      std::string_view share_text) {
  Amounts need = needs(*a.kernel);
  Limit l = tbs_within(share, need);
  if (l.tbs == 0)
    throw PartitionError(fmt::format(
        "sharing policy {}: kernel {} gets {} of each SM ({} {}), less than one of its TBs needs ({} {})", policy,
        a.kernel->label, share_text, share[l.resource], resource_name(l.resource), need[l.resource],
        resource_name(l.resource)));
  return uint32_t(l.tbs);
}

uint32_t tbs_per_empty_sm(const sm::KernelInstance& k, const SmParams& p) { return sm::tbs_per_empty_sm(k.needs, p); }

std::string describe(const Amounts& a) {
  std::string s;
  for (size_t r = 0; r < kNumResources; ++r) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", a[r], resource_name(r));
  return s;
}

std::vector<ActiveKernel> with_tbs_left(std::span<const ActiveKernel> active) {
  std::vector<ActiveKernel> v;
  for (const ActiveKernel& a : active)
    if (a.tbs_left > 0) v.push_back(a);
  return v;
}

std::vector<uint32_t> split_evenly(uint32_t n, size_t ways) {
  std::vector<uint32_t> v(ways, 0);
  if (ways == 0) return v;
  for (size_t i = 0; i < ways; ++i) v[i] = uint32_t(n / ways + (i < n % ways ? 1 : 0));
  return v;
}

void SpatialPolicy::repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) {
  uint32_t max_id = 0;
  for (const sm::Sm* s : sms) max_id = std::max(max_id, s->id());
  owner_.assign(sms.empty() ? 0 : size_t(max_id) + 1, kNoOwner);
  std::vector<ActiveKernel> ks = with_tbs_left(active);
  std::vector<uint32_t> counts = sm_counts(ks, sms);
  size_t next = 0;
  for (size_t i = 0; i < ks.size(); ++i)
    for (uint32_t j = 0; j < counts[i] && next < sms.size(); ++j) owner_[sms[next++]->id()] = ks[i].kernel->id;
}

uint32_t SpatialPolicy::quota(const sm::KernelInstance& k, uint32_t sm) const {
  return sm < owner_.size() && owner_[sm] == k.id ? kUnlimited : 0;
}

uint32_t UniformQuotaPolicy::quota(const sm::KernelInstance& k, uint32_t) const {
  auto it = quotas_.find(k.id);
  return it == quotas_.end() ? 0 : it->second;
}

}  // namespace gpumux::frontend::policy
