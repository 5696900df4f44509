// spatial-smart: like spatial-even, but no kernel gets more SMs than it can
// fill. A kernel needs ceil((tbs_left + tbs_running) / TBs per empty SM) SMs;
// the SMs are water-filled: each round splits the SMs not yet given evenly
// among the kernels still below their need (capped at it, remainder to the
// first kernels in dispatch order), until every kernel has its need or no SM
// is left. SMs left once every kernel has its need are split evenly among all
// of them (remainder to the first): the cap only gives SMs to kernels that
// can use them, it never leaves an SM idle, which would only slow a kernel
// down (its TBs packed on fewer SMs).
#include <algorithm>

#include "gpumux/frontend/policies/common.h"

namespace gpumux::frontend {
namespace {

class SpatialSmartPolicy final : public policy::SpatialPolicy {
 public:
  std::string_view name() const override { return "spatial-smart"; }

 protected:
  std::vector<uint32_t> sm_counts(std::span<const ActiveKernel> kernels,
                                  std::span<sm::Sm* const> sms) const override {
    std::vector<uint32_t> got(kernels.size(), 0);
    if (sms.empty()) return got;
    std::vector<uint64_t> need(kernels.size());
    for (size_t i = 0; i < kernels.size(); ++i) {
      const ActiveKernel& a = kernels[i];
      uint64_t per_sm = std::max<uint32_t>(1, policy::tbs_per_empty_sm(*a.kernel, sms.front()->params()));
      need[i] = (a.tbs_left + a.tbs_running + per_sm - 1) / per_sm;
    }
    uint32_t left = uint32_t(sms.size());
    while (left > 0) {
      std::vector<size_t> hungry;
      for (size_t i = 0; i < kernels.size(); ++i)
        if (got[i] < need[i]) hungry.push_back(i);
      if (hungry.empty()) break;
      uint32_t share = uint32_t(left / hungry.size());
      if (share == 0) {  // fewer SMs than hungry kernels: one each, in dispatch order
        for (size_t i : hungry) {
          if (left == 0) break;
          ++got[i];
          --left;
        }
        break;
      }
      for (size_t i : hungry) {
        uint32_t g = uint32_t(std::min<uint64_t>(share, need[i] - got[i]));
        got[i] += g;
        left -= g;
      }
    }
    for (size_t i = 0; left > 0 && !kernels.empty(); i = (i + 1) % kernels.size()) {
      ++got[i];
      --left;
    }
    return got;
  }
};

}  // namespace

std::unique_ptr<SharingPolicy> make_spatial_smart(const PolicyOptions&) {
  return std::make_unique<SpatialSmartPolicy>();
}

}  // namespace gpumux::frontend
