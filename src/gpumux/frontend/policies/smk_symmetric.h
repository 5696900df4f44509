// The sharing policy "smk-symmetric" (smk_symmetric.cpp): the symmetric TB
// allocation of Wang et al. (ISCA'17 3.6), whose per-SM TB shares the QoS TB
// adjustment (gpu/qos/tb_adjustment.h) changes one SM at a time.
#pragma once

#include <cstdint>

namespace gpumux::frontend {

class TbShareTarget {
 public:
  virtual ~TbShareTarget() = default;
  // Adds `delta` to kernel `kernel`'s TB share on SM `sm` (its quota there,
  // never below 0) until the kernel ends. Takes effect at the next repartition.
  virtual void adjust_tbs(uint32_t kernel, uint32_t sm, int32_t delta) = 0;
};

}  // namespace gpumux::frontend
