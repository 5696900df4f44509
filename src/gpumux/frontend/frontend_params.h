// Parameters of the front end (frontend/): kernel queues and TB dispatcher.
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux {

struct FrontendParams {
  uint32_t launch_latency = 3000;  // core cycles (~2.7 us at 1.1 GHz)
  uint32_t max_active_kernels = 32;
  bool check_invariants = false;

  static void declare(ParamDecl<FrontendParams>& d) {
    d.param("launch_latency", &FrontendParams::launch_latency, "core cycles",
            "from a kernel reaching the head of its stream to its first TB dispatch (launch overhead)")
        .range(0, 1 << 30);
    d.param("max_active_kernels", &FrontendParams::max_active_kernels, "kernels",
            "kernels dispatching TBs at once (hardware kernel dispatch table entries)")
        .range(1, 1024);
    d.param("check_invariants", &FrontendParams::check_invariants, "",
            "after every TB placement, check the SM's resource accounting and the sharing policy's exclusivity "
            "(frontend/invariants.h; slow, for testing)");
  }
};

}  // namespace gpumux
