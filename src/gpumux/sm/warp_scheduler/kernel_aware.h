// Kernel-aware warp scheduling (GPU Maestro, ASPLOS'17, section 4.3): GTO
// inside each kernel (each has its own greedy warp), and a kernel-level choice of which kernel's ready warps
// go first, so that a kernel sharing the SM is not starved by older warps of
// another. Warps marked urgent (their TB is being drained, or their kernel has
// no TB left to place: its resident TBs are its boundary TBs, whose end frees
// the SM for the others) go before all others.
//
// Adding a kernel-aware policy: write warp_scheduler/ka_<name>.cpp with a
// subclass of KernelAwareGto that implements favoured() (and, if it keeps
// statistics, observe()/issued()), a make_ka_<name>(const SmParams&)
// factory, and add one GPUMUX_WARP_SCHEDULER line to policies.inc.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {

class KernelAwareGto : public WarpScheduler {
 public:
  int pick(std::span<const WarpView> warps) final;

 protected:
  static constexpr uint32_t kAnyKernel = std::numeric_limits<uint32_t>::max();
  // The kernel whose ready warps go first, among `ready` (the kernels with a
  // ready warp, at least two, ascending); kAnyKernel: plain GTO over all.
  virtual uint32_t favoured(std::span<const uint32_t> ready) = 0;
  // Each pick sees the sub-core's warps first (before favoured()).
  virtual void observe(std::span<const WarpView> warps) { (void)warps; }
  // The warp that issues.
  virtual void issued(const WarpView& w) { (void)w; }

 private:
  // GTO's greedy warp of each kernel: slot and age (slots are reused).
  struct Greedy {
    uint32_t kernel = 0;
    uint16_t slot = 0;
    uint64_t age = 0;
  };
  Greedy* greedy_of(uint32_t kernel);

  std::vector<uint32_t> ready_kernels_;
  std::vector<Greedy> greedy_;  // a handful of kernels: a linear search is fastest
  uint32_t last_kernel_ = kAnyKernel;  // of the warp that issued last
};

}  // namespace gpumux::sm
