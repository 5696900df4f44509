#include "gpumux/gpu/paged_data.h"

#include <iterator>

#include "gpumux/sm/device_addresses.h"

namespace gpumux::gpu {

void PagedData::managed_only(uint32_t app) {
  app %= sm::kMaxApps;
  if (managed_only_.size() <= app) managed_only_.resize(app + 1);
  managed_only_[app] = true;
}

void PagedData::add_managed(uint64_t addr, uint64_t bytes) {
  if (bytes) managed_[addr] = addr + bytes;
}

void PagedData::remove_managed(uint64_t addr) { managed_.erase(addr); }

bool PagedData::paged(uint64_t unit_addr) const {
  if (!sm::is_application_data(unit_addr)) return false;
  const uint32_t app = uint32_t(unit_addr >> sm::kAppShift);
  if (app >= managed_only_.size() || !managed_only_[app]) return true;
  // The last range starting inside or before the unit is the only one that may overlap it.
  auto it = managed_.lower_bound(unit_addr + unit_bytes_);
  if (it == managed_.begin()) return false;
  return std::prev(it)->second > unit_addr;
}

}  // namespace gpumux::gpu
