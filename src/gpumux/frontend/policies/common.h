// Helpers shared by the sharing policies: a TB's needs and an SM's capacity
// as vectors over the five resources a resident TB holds, and the base of the
// spatial policies (one kernel per SM, contiguous SM ranges).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpumux/core/sm_params.h"
#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend::policy {

enum Resource : uint8_t { kTbSlots, kWarps, kThreads, kRegisters, kSharedMem };
inline constexpr size_t kNumResources = 5;
using Amounts = std::array<uint64_t, kNumResources>;

// "TB slots", "warps", "threads", "registers", "shared memory bytes".
const char* resource_name(size_t r);
Amounts capacity(const SmParams& p);
// What one TB of k holds: 1 TB slot, its warps, threads, registers and shared memory.
Amounts needs(const sm::KernelInstance& k);

// floor(share / need), minimised over the resources the TB needs, and the
// resource reaching the minimum.
struct Limit {
  uint64_t tbs = 0;
  size_t resource = kTbSlots;
};
Limit tbs_within(const Amounts& share, const Amounts& need);
// The TBs of a's kernel that fit `share` of an SM (tbs_within); a share that
// holds none is a PartitionError naming `policy` and the share (`share_text`,
// e.g. "1/2").
uint32_t quota_within(const ActiveKernel& a, const Amounts& share, std::string_view policy,
                      std::string_view share_text);
// TBs of k that fit together on an empty SM of `p` (0: not even one).
uint32_t tbs_per_empty_sm(const sm::KernelInstance& k, const SmParams& p);

// "512 threads, 32768 registers, ..." for a message.
std::string describe(const Amounts& a);

// The kernels of `active` with TBs left to dispatch, in dispatch order: only
// they take part in a partition (the others have nothing left to place).
std::vector<ActiveKernel> with_tbs_left(std::span<const ActiveKernel> active);

// Spatial partitioning: each SM belongs to at most one kernel, the kernels'
// SMs are contiguous ranges in dispatch-priority order; only kernels with
// TBs left own SMs. Subclasses say how many SMs each kernel gets.
class SpatialPolicy : public SharingPolicy {
 public:
  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) final;
  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const final;
  bool exclusive_sms() const final { return true; }

 protected:
  // SMs per kernel of `kernels` (all with TBs left, in dispatch order); the
  // sum is at most sms.size().
  virtual std::vector<uint32_t> sm_counts(std::span<const ActiveKernel> kernels,
                                          std::span<sm::Sm* const> sms) const = 0;

 private:
  static constexpr uint32_t kNoOwner = ~0u;
  std::vector<uint32_t> owner_;  // kernel id per SM id
};

// Intra-SM sharing with the same quota on every SM (all SMs are alike):
// subclasses fill quotas_ (TBs per SM, by kernel id) in repartition().
class UniformQuotaPolicy : public SharingPolicy {
 public:
  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const final;

 protected:
  std::map<uint32_t, uint32_t> quotas_;  // by kernel id; absent: 0
};

// Splits `n` units evenly among `ways` receivers, the remainder one each to
// the first ones.
std::vector<uint32_t> split_evenly(uint32_t n, size_t ways);

}  // namespace gpumux::frontend::policy
