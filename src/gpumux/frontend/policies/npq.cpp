// npq (thesis 5.3.2, non-preemptive priority queues): as kernel-fcfs, but
// free SMs go to the kernels in priority order (then activation order); a
// high-priority kernel waits for SMs to be released, never preempting.
#include "gpumux/frontend/policies/sm_ownership.h"

namespace gpumux::frontend {
namespace {

class NpqPolicy final : public policy::SmOwnershipPolicy {
 public:
  std::string_view name() const override { return "npq"; }

 protected:
  void assign(std::span<const ActiveKernel> active, std::span<sm::Sm* const> sms) override {
    for (const ActiveKernel& k : active) give_free(k, need(k, sms), sms);  // active: dispatch-priority order
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_npq(const PolicyOptions&) { return std::make_unique<NpqPolicy>(); }

}  // namespace gpumux::frontend
