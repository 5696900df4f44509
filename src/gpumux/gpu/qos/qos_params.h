// Parameters of QoS management inside the SMs (gpu/qos/, docs/qos.md).
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"
#include "gpumux/gpu/qos/tb_adjustment_params.h"

namespace gpumux {

struct QosParams {
  uint32_t epoch_cycles = 10000;  // ISCA'17 evaluation
  TbAdjustmentParams tb_adjustment;

  static void declare(ParamDecl<QosParams>& d) {
    d.param("epoch_cycles", &QosParams::epoch_cycles, "core cycles",
            "epoch of the QoS manager: per-kernel statistics are sampled and quotas set this often while kernels "
            "are active (only with a quota scheme in the workload's [policy]; docs/qos.md)")
        .range(100, 1 << 30);
    d.section("tb_adjustment", &QosParams::tb_adjustment,
              "static TB adjustment between epochs (ISCA'17 3.6; gpu/qos/tb_adjustment.h)");
  }
};

}  // namespace gpumux
