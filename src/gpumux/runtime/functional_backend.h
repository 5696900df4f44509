// Runs each launch to completion at launch time, TB after TB, with no timing.
// Used for functional verification and as the reference the timing model
// must agree with.
#pragma once

#include "gpumux/runtime/runtime.h"

namespace gpumux::exec {
struct GridLaunch;
}

namespace gpumux::runtime {

class FunctionalBackend : public LaunchBackend {
 public:
  explicit FunctionalBackend(uint32_t num_sms) : num_sms_(num_sms) {}
  void launch(Launch& l) override;
  void synchronize(Context&) override {}
  double now_ms() const override { return 0.0; }
  uint64_t warp_instructions() const override { return warp_insts_; }

 private:
  // launch() with an observer attached: reports every TB and warp instruction.
  void run_observed(const Context& ctx, Stream s, const exec::GridLaunch& g);

  uint32_t num_sms_;
  uint32_t next_grid_id_ = 1;
  uint64_t warp_insts_ = 0;
};

}  // namespace gpumux::runtime
