#include "gpumux/cudart/mem_pool.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/cudart/session.h"

namespace gpumux::cudart {

namespace {

// Blocks are sized in these units, so that a freed block fits later requests of about its size.
constexpr uint64_t kGranularity = 256;

}  // namespace

runtime::DevPtr MemPool::allocate(Session& s, uint64_t bytes) {
  const uint64_t size = std::max<uint64_t>(1, (bytes + kGranularity - 1) / kGranularity) * kGranularity;
  auto fit = idle_.lower_bound(size);
  runtime::DevPtr p;
  uint64_t block;
  if (fit != idle_.end() && fit->first <= 2 * size) {  // reuse, wasting at most half the block
    block = fit->first;
    p = fit->second;
    idle_.erase(fit);
  } else {
    if (max_bytes_ && reserved_ + size > max_bytes_)
      throw ApiError(fmt::format("the pool holds {} of its {} bytes: no room for {} more", reserved_, max_bytes_, size));
    block = size;
    p = s.malloc(size);
    reserved_ += size;
    reserved_high_ = std::max(reserved_high_, reserved_);
  }
  live_[p] = block;
  used_ += block;
  used_high_ = std::max(used_high_, used_);
  return p;
}

void MemPool::release(runtime::DevPtr p) {
  auto it = live_.find(p);
  used_ -= it->second;
  idle_.emplace(it->second, p);
  live_.erase(it);
}

void MemPool::trim(Session& s, uint64_t keep) {
  while (reserved_ > keep && !idle_.empty()) {
    auto largest = std::prev(idle_.end());
    s.free(largest->second);
    reserved_ -= largest->first;
    idle_.erase(largest);
  }
}

void MemPool::clear() {
  live_.clear();
  idle_.clear();
  reserved_ = used_ = reserved_high_ = used_high_ = 0;
}

MemPools::MemPools() {
  pools_.push_back(std::make_unique<MemPool>());
  current_ = pools_.front().get();
}

MemPool& MemPools::create(uint64_t max_bytes) { return *pools_.emplace_back(std::make_unique<MemPool>(max_bytes)); }

void MemPools::destroy(Session& s, MemPool& p) {
  p.trim(s, 0);
  if (current_ == &p) current_ = &default_pool();
  if (!p.empty()) {
    p.destroyed = true;  // goes when its last block is freed (owner())
    return;
  }
  std::erase_if(pools_, [&](const auto& q) { return q.get() == &p; });
}

bool MemPools::valid(const MemPool* p) const {
  return std::any_of(pools_.begin(), pools_.end(), [&](const auto& q) { return q.get() == p && !p->destroyed; });
}

MemPool* MemPools::owner(runtime::DevPtr p) {
  for (const auto& q : pools_)
    if (q->owns(p)) return q.get();
  return nullptr;
}

void MemPools::trim_to_thresholds(Session& s) {
  for (auto& p : pools_) p->trim(s, p->destroyed ? 0 : p->release_threshold);
  std::erase_if(pools_, [](const auto& p) { return p->destroyed && p->empty(); });
}

void MemPools::clear() {
  for (auto& p : pools_) p->clear();
  std::erase_if(pools_, [](const auto& p) { return p->destroyed; });
  current_ = &default_pool();
}

}  // namespace gpumux::cudart
