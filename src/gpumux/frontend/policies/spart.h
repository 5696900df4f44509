// The sharing policy "spart" (spart.cpp): spatial partitioning whose SM
// counts per application are set from outside, by the QoS manager "spart"
// (gpu/qos/spart_manager.cpp) hill climbing toward the QoS goals.
#pragma once

#include <cstdint>
#include <map>

namespace gpumux::frontend {

class SmCountTarget {
 public:
  virtual ~SmCountTarget() = default;
  // SMs of each application (by app id); applications without one split the
  // SMs left evenly. Takes effect at the next repartition.
  virtual void set_sm_counts(const std::map<uint32_t, uint32_t>& sms_by_app) = 0;
};

}  // namespace gpumux::frontend
