#include "gpumux/frontend/policies/sm_ownership.h"

#include <algorithm>

#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend::policy {

void SmOwnershipPolicy::repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) {
  owner_.resize(sms.size(), kNoOwner);
  reserved_.resize(sms.size(), false);
  for (size_t s = 0; s < sms.size(); ++s) {
    auto a = std::find_if(active.begin(), active.end(), [&](const ActiveKernel& k) { return k.kernel->id == owner_[s]; });
    // Gone, or nothing left to place: the SM is free for another kernel.
    if (a == active.end() || a->tbs_left == 0) owner_[s] = kNoOwner;
    // Reserved until only the owner's TBs are left on it.
    uint32_t mine = owner_[s] == kNoOwner ? 0 : sms[s]->resident_tbs(uint32_t(owner_[s]));
    if (owner_[s] == kNoOwner || sms[s]->resident_tbs() == mine) reserved_[s] = false;
  }
  assign(active, sms);
}

uint32_t SmOwnershipPolicy::quota(const sm::KernelInstance& k, uint32_t sm) const {
  return sm < owner_.size() && owner_[sm] == int64_t(k.id) ? kUnlimited : 0;
}

uint32_t SmOwnershipPolicy::keep(const ActiveKernel& k, uint32_t sm) const {
  return sm < owner_.size() && reserved_[sm] && owner_[sm] != int64_t(k.kernel->id) ? 0 : kUnlimited;
}

uint32_t SmOwnershipPolicy::need(const ActiveKernel& k, std::span<sm::Sm* const> sms) {
  if (sms.empty()) return 0;
  uint64_t per_sm = std::max<uint32_t>(1, tbs_per_empty_sm(*k.kernel, sms.front()->params()));
  return uint32_t(std::min<uint64_t>((k.tbs_left + per_sm - 1) / per_sm, sms.size()));
}

uint32_t SmOwnershipPolicy::held(uint32_t kernel) const {
  return uint32_t(std::count(owner_.begin(), owner_.end(), int64_t(kernel)));
}

void SmOwnershipPolicy::give_free(const ActiveKernel& k, uint32_t target, std::span<sm::Sm* const> sms,
                                  const std::function<bool(size_t)>& preempt) {
  uint32_t have = held(k.kernel->id);
  for (bool idle_only : {true, false})
    for (size_t s = 0; s < sms.size() && have < target; ++s)
      if (owner_[s] == kNoOwner && (!idle_only || sms[s]->resident_tbs() == 0)) {
        if (preempt && preempt(s))
          take(uint32_t(s), k.kernel->id, sms);
        else
          owner_[s] = k.kernel->id;
        ++have;
      }
}

void SmOwnershipPolicy::take(uint32_t sm, uint32_t kernel, std::span<sm::Sm* const> sms) {
  owner_[sm] = kernel;
  reserved_[sm] = sms[sm]->resident_tbs() != sms[sm]->resident_tbs(kernel);
}

void SmOwnershipPolicy::release(uint32_t kernel) {
  for (size_t s = 0; s < owner_.size(); ++s)
    if (owner_[s] == int64_t(kernel)) {
      owner_[s] = kNoOwner;
      reserved_[s] = false;
    }
}

}  // namespace gpumux::frontend::policy
