// Parameters of the QoS TB adjustment (tb_adjustment.h), the config table
// [qos.tb_adjustment].
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux {

struct TbAdjustmentParams {
  uint32_t idle_warp_samples = 100;  // the paper's

  static void declare(ParamDecl<TbAdjustmentParams>& d) {
    d.param("idle_warp_samples", &TbAdjustmentParams::idle_warp_samples, "samples per epoch",
            "times per QoS epoch the idle warps of every kernel on every SM are counted for the TB adjustment "
            "(only with [policy] tb_adjustment = true; docs/qos.md)")
        .range(1, 100000);
  }
};

}  // namespace gpumux
