// mps: NVIDIA's Multi-Process Service. The clients' kernels run in one
// context and share the SMs as fcfs kernels do (each may fill the resources
// the earlier ones leave), and a client with an active-thread percentage p
// below 100 places TBs on ceil(p x SMs / 100) SMs only
// (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, Volta MPS execution resource
// provisioning). Which SMs a limited client gets is not published: the model
// gives each one a contiguous range starting where the previous limited
// client's ends (wrapping around), so limited clients whose SM counts sum to
// at most the GPU's are disjoint; clients without a limit use every SM. A
// served program's own CUDA_MPS_ACTIVE_THREAD_PERCENTAGE replaces the
// workload file's value for it (which stands for the control daemon's
// default), as the client's setting does on real MPS. A client's device
// fault reaches every client unless `fault_isolation` is set
// (PolicyOptions::mps_fault_isolation).
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "gpumux/core/error.h"

#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {
namespace {

class MpsPolicy final : public SharingPolicy {
 public:
  MpsPolicy(std::map<uint32_t, uint32_t> percent_by_app, bool fault_isolation)
      : percent_by_app_(std::move(percent_by_app)), fault_isolation_(fault_isolation) {}
  std::string_view name() const override { return "mps"; }
  bool faults_reach_every_app() const override { return !fault_isolation_; }

  void client_environment(uint32_t app, std::span<const std::string> env) override {
    constexpr std::string_view kKey = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=";
    for (const std::string& e : env) {
      if (!e.starts_with(kKey)) continue;
      std::string_view v = std::string_view(e).substr(kKey.size());
      uint32_t percent = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), percent);
      if (ec != std::errc() || end != v.data() + v.size() || percent < 1 || percent > 100)
        throw ApiError(fmt::format("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE='{}' is not a percentage in 1..100", v));
      if (percent < 100)
        percent_by_app_[app] = percent;
      else
        percent_by_app_.erase(app);
      num_sms_ = 0;  // recompute the ranges at the next repartition
    }
  }
  void repartition(std::span<const ActiveKernel>, std::span<sm::Sm* const> sms) override {
    if (sms.size() == num_sms_) return;  // the ranges depend on the SM count only
    num_sms_ = uint32_t(sms.size());
    ranges_.clear();
    uint32_t next = 0;
    for (const auto& [app, percent] : percent_by_app_) {
      uint32_t count = std::clamp<uint32_t>(uint32_t(std::ceil(percent * double(num_sms_) / 100.0)), 1, num_sms_);
      ranges_[app] = {next, count};
      next = (next + count) % num_sms_;
    }
  }
  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const override {
    auto it = ranges_.find(k.app);
    if (it == ranges_.end()) return kUnlimited;
    auto [first, count] = it->second;
    return (sm + num_sms_ - first) % num_sms_ < count ? kUnlimited : 0;
  }

 private:
  std::map<uint32_t, uint32_t> percent_by_app_;       // limited clients only (below 100)
  bool fault_isolation_;
  uint32_t num_sms_ = 0;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> ranges_;  // app -> first SM, SM count
};

}  // namespace

std::unique_ptr<SharingPolicy> make_mps(const PolicyOptions& o) {
  return std::make_unique<MpsPolicy>(o.mps_percent_by_app, o.mps_fault_isolation);
}

}  // namespace gpumux::frontend
