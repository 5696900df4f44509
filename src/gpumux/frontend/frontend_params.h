// Parameters of the front end (frontend/): kernel queues and TB dispatcher.
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux {

struct FrontendParams {
  uint32_t launch_latency = 3000;  // core cycles (~2.7 us at 1.1 GHz)
  uint32_t device_launch_latency = 3000;  // core cycles: a child grid of a device-side launch
  // Core cycles: a kernel node of a CUDA graph launch after the graph's first
  // kernel, whose work descriptors the driver uploaded with the graph. Estimate:
  // NVIDIA's "Getting Started with CUDA Graphs" blog (A. Gray, 2019) measures a
  // chain of short kernels at 3.8 us per kernel launched in a stream and 3.4 us
  // in a graph, for a ~2.9 us kernel: ~0.5 us of overhead per kernel instead of
  // ~0.9 us. launch_latency scaled by that ratio (5/9) gives 1650.
  uint32_t graph_launch_latency = 1650;
  uint32_t max_active_kernels = 0;  // 0: the number of SMs
  bool check_invariants = false;
  uint32_t preempt_every = 0;

  static void declare(ParamDecl<FrontendParams>& d) {
    d.param("launch_latency", &FrontendParams::launch_latency, "core cycles",
            "from a kernel reaching the head of its stream to its first TB dispatch (launch overhead)")
        .range(0, 1 << 30);
    d.param("device_launch_latency", &FrontendParams::device_launch_latency, "core cycles",
            "from a child grid launched by a kernel (dynamic parallelism) reaching the head of its device stream "
            "to its first TB dispatch")
        .range(0, 1 << 30);
    d.param("graph_launch_latency", &FrontendParams::graph_launch_latency, "core cycles",
            "as launch_latency, for the kernel nodes of a CUDA graph launch after the graph's first kernel "
            "(the graph's work is submitted at once)")
        .range(0, 1 << 30);
    d.param("max_active_kernels", &FrontendParams::max_active_kernels, "kernels",
            "kernels dispatching TBs at once (hardware kernel dispatch table entries; 0: as many as SMs, which "
            "allows one kernel per SM, thesis 5.2.3)")
        .range(0, 1024);
    d.param("check_invariants", &FrontendParams::check_invariants, "",
            "after every TB placement, check the SM's resource accounting and the sharing policy's exclusivity "
            "(frontend/invariants.h; slow, for testing)");
    d.param("preempt_every", &FrontendParams::preempt_every, "core cycles",
            "preemption stress test: this often, every TB on the next SM (round-robin) is preempted with the "
            "policy's mechanism and placed again later; 0: off (tests the preemption protocol on any workload)")
        .range(0, 1 << 30);
  }
};

}  // namespace gpumux
