// The base of the thesis's kernel schedulers (Tanasic, chapter 5.2): each SM
// is owned by at most one kernel (the SM Status Table's kernel), which alone
// may place TBs on it. Giving an owned SM to another kernel *reserves* it: the
// TBs of the previous owner are preempted with the policy's mechanism and the
// new owner (the SMST's `next`) starts once they are gone. An SM whose owner
// has nothing left to place is released: its TBs finish there and the SM goes
// to another kernel, which waits for them (no preemption).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend::policy {

class SmOwnershipPolicy : public SharingPolicy {
 public:
  static constexpr int64_t kNoOwner = -1;

  void repartition(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) final;
  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const final;
  bool exclusive_sms() const final { return true; }
  uint32_t keep(const ActiveKernel& k, uint32_t sm) const final;

 protected:
  // Decides the owners; called by repartition() after released SMs and
  // owners no longer active have been cleared.
  virtual void assign(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) = 0;

  // SMs k can fill: its TBs left (preempted ones included) over the TBs an
  // empty SM holds, rounded up.
  static uint32_t need(const ActiveKernel& k, std::span<sm::Sm* const> sms);
  uint32_t held(uint32_t kernel) const;
  // Gives SMs without an owner to k (idle SMs first) until it holds `target`;
  // an SM for which preempt(sm) holds is reserved (the TBs on it preempted),
  // otherwise the TBs still there finish first.
  void give_free(const ActiveKernel& k, uint32_t target, std::span<sm::Sm* const> sms,
                 const std::function<bool(size_t)>& preempt = nullptr);
  // Gives SM `sm` to `kernel`, reserving it if another kernel's TBs are there.
  void take(uint32_t sm, uint32_t kernel, std::span<sm::Sm* const> sms);
  // Stops k owning any SM (its TBs there finish, no new ones are placed).
  void release(uint32_t kernel);

  std::vector<int64_t> owner_;  // kernel id per SM
  std::vector<bool> reserved_;  // the SM is being freed for its owner
};

}  // namespace gpumux::frontend::policy
