// spatial-even: the SMs are split evenly among the kernels with TBs left
// (contiguous ranges in dispatch-priority order, the remainder one each to
// the first kernels); an SM runs one kernel at a time. With more kernels than
// SMs, the last kernels get no SM and wait for a repartition.
#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {
namespace {

class SpatialEvenPolicy final : public policy::SpatialPolicy {
 public:
  std::string_view name() const override { return "spatial-even"; }

 protected:
  std::vector<uint32_t> sm_counts(std::span<const ActiveKernel> kernels,
                                  std::span<sm::Sm* const> sms) const override {
    return policy::split_evenly(uint32_t(sms.size()), kernels.size());
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_spatial_even(const PolicyOptions&) {
  return std::make_unique<SpatialEvenPolicy>();
}

}  // namespace gpumux::frontend
