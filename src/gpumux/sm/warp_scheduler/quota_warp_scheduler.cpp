#include "gpumux/sm/warp_scheduler/quota_warp_scheduler.h"

#include <algorithm>
#include <utility>

namespace gpumux::sm {

const KernelQuotas::Entry* KernelQuotas::find(uint32_t kernel) const {
  for (const Entry& e : entries_)
    if (e.kernel == kernel) return &e;
  return nullptr;
}

KernelQuotas::Entry* KernelQuotas::find(uint32_t kernel) {
  return const_cast<Entry*>(std::as_const(*this).find(kernel));
}

void KernelQuotas::set(uint32_t kernel, int64_t quota, bool qos) {
  Entry* e = find(kernel);
  if (!e) e = &entries_.emplace_back();
  *e = Entry{kernel, quota, quota, qos, false};
}

bool KernelQuotas::qos_exhausted() const {
  return std::none_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.qos && e.left > 0; });
}

bool KernelQuotas::allows(uint32_t kernel) {
  Entry* e = find(kernel);
  if (!e || e->left > 0) return true;
  if (e->qos || e->quota < 0 || !qos_exhausted()) return false;
  e->refilled = true;
  if (e->quota == 0) return true;
  e->left += e->quota;
  return e->left > 0;
}

void KernelQuotas::charge(uint32_t kernel, uint32_t threads) {
  if (Entry* e = find(kernel)) e->left -= threads;
}

bool KernelQuotas::all_used() const {
  return std::all_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.left <= 0 || e.refilled; });
}

std::optional<int64_t> KernelQuotas::remaining(uint32_t kernel) const {
  const Entry* e = find(kernel);
  return e ? std::optional<int64_t>(e->left) : std::nullopt;
}

int QuotaWarpScheduler::pick(std::span<const WarpView> warps) {
  allowed_.assign(warps.begin(), warps.end());
  bool any = false;
  for (WarpView& v : allowed_) {
    v.ready = v.ready && quotas_.allows(v.kernel);
    any |= v.ready;
  }
  return any ? base_->pick(allowed_) : -1;
}

}  // namespace gpumux::sm
