// mig: NVIDIA's Multi-Instance GPU. Each application runs in a GPU instance
// of the profile its workload entry names: the instance's SMs are its own
// (its kernels share them as fcfs kernels do, no other application's TB
// lands there), and so are its memory partitions, L2 slices and DRAM
// channels (partition_hardware: the Gpu restricts the address map), so
// instances interfere only in the crossbar. Placement: mig_profiles.h.
#include <numeric>

#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {
namespace {

class MigPolicy final : public SharingPolicy {
 public:
  explicit MigPolicy(std::map<uint32_t, std::string> profile_by_app) : profile_by_app_(std::move(profile_by_app)) {}
  std::string_view name() const override { return "mig"; }

  std::optional<HardwareInstances> partition_hardware(const GpuParams& gpu) override {
    HardwareInstances hw;
    hw.instances = place_mig_instances(profile_by_app_, gpu);
    uint32_t instance = 0;
    for (const auto& entry : profile_by_app_) {
      hw.instance_by_app[entry.first] = instance;
      sms_by_app_[entry.first] = hw.instances[instance++];
    }
    return hw;
  }
  std::vector<uint32_t> device_sms(uint32_t app) const override {
    auto it = sms_by_app_.find(app);
    if (it == sms_by_app_.end()) return {};
    std::vector<uint32_t> sms(it->second.sms);
    std::iota(sms.begin(), sms.end(), it->second.first_sm);
    return sms;
  }
  void repartition(std::span<const ActiveKernel>, std::span<sm::Sm* const>) override {}
  uint32_t quota(const sm::KernelInstance& k, uint32_t sm) const override {
    auto it = sms_by_app_.find(k.app);
    if (it == sms_by_app_.end()) return 0;  // the workload file gives every application a profile
    return sm - it->second.first_sm < it->second.sms ? kUnlimited : 0;
  }

 private:
  std::map<uint32_t, std::string> profile_by_app_;
  std::map<uint32_t, MigInstance> sms_by_app_;
};

}  // namespace

std::unique_ptr<SharingPolicy> make_mig(const PolicyOptions& o) { return std::make_unique<MigPolicy>(o.mig_profile_by_app); }

}  // namespace gpumux::frontend
