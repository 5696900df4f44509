// Kernel-aware warp scheduling (GPU Maestro, ASPLOS'17, section 4.3): GTO
// inside each kernel (each has its own greedy warp), and a kernel-level choice of which kernel's ready warps
// go first, so that a kernel sharing the SM is not starved by older warps of
// another. Warps marked urgent (their TB is being drained, or their kernel has
// no TB left to place: its resident TBs are its boundary TBs, whose end frees
// the SM for the others) go before all others; the kernel-level choice then
// applies among the kernels with urgent ready warps.
//
// Adding a kernel-aware policy: write warp_scheduler/ka_<name>.cpp with a
// subclass of KernelAwareGto that implements favoured() (and, if it keeps
// statistics, observe()/issued()), a make_ka_<name>(const SmParams&)
// factory, and add one GPUMUX_WARP_SCHEDULER line to policies.inc.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {

// Per-kernel state of a sub-core's scheduler; a handful of kernels, so a
// linear search is fastest.
template <class T>
class PerKernel {
 public:
  T* find(uint32_t kernel) {
    for (auto& [k, v] : entries_)
      if (k == kernel) return &v;
    return nullptr;
  }
  T& of(uint32_t kernel) {
    T* v = find(kernel);
    return v ? *v : entries_.emplace_back(kernel, T{}).second;
  }
  // Drops the kernels without a warp in `warps` (they left the sub-core).
  void keep_resident(std::span<const WarpView> warps) {
    std::erase_if(entries_, [&](const auto& e) {
      return std::none_of(warps.begin(), warps.end(), [&](const WarpView& w) { return w.kernel == e.first; });
    });
  }
  template <class F>
  void for_each(F f) {
    for (auto& e : entries_) f(e.second);
  }

 private:
  std::vector<std::pair<uint32_t, T>> entries_;
};

class KernelAwareGto : public WarpScheduler {
 public:
  int pick(std::span<const WarpView> warps) final;
  bool wants_kernel_fields() const final { return true; }  // urgent (and ka-fair's fair_weight)

 protected:
  static constexpr uint32_t kAnyKernel = std::numeric_limits<uint32_t>::max();
  // The kernel whose ready warps go first, among `ready` (the kernels with a
  // candidate warp, at least two, ascending); kAnyKernel: plain GTO over all.
  virtual uint32_t favoured(std::span<const uint32_t> ready) = 0;
  // Each pick sees the sub-core's warps first (before favoured()).
  virtual void observe(std::span<const WarpView> warps) { (void)warps; }
  // The warp that issues.
  virtual void issued(const WarpView& w) { (void)w; }

 private:
  // GTO's greedy warp of each kernel: slot and age (slots are reused).
  struct Greedy {
    uint16_t slot = 0;
    uint64_t age = 0;
  };

  std::vector<uint32_t> ready_kernels_;
  PerKernel<Greedy> greedy_;
  uint32_t last_kernel_ = kAnyKernel;  // of the warp that issued last
};

}  // namespace gpumux::sm
