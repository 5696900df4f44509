// Runs each launch to completion at launch time, TB after TB, with no timing.
// Used for functional verification and as the reference the timing model
// must agree with.
//
// Cooperative launches (grid-wide barriers) are refused: their TBs would have
// to run concurrently.
//
// Child grids of device-side launch run after their parent grid's TBs, in
// launch order (each with its own children), tail launches last: one of the
// orders CUDA allows, since a kernel cannot wait for its children.
#pragma once

#include <map>
#include <vector>

#include "gpumux/exec/thread_block.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux::runtime {

class FunctionalBackend : public LaunchBackend {
 public:
  explicit FunctionalBackend(uint32_t num_sms) : num_sms_(num_sms) {}
  void launch(Launch& l) override;
  std::string launch_from_device(Launch& l, const exec::DeviceLaunchRequest& r) override;
  void synchronize(Context&) override {}
  double now_ms() const override { return 0.0; }
  uint64_t warp_instructions() const override { return warp_insts_; }

 private:
  exec::GridLaunch make_grid(Launch& l);
  // Runs g's TBs, then its children (run_grid for each).
  void run_grid(const Context& ctx, Stream s, const exec::GridLaunch& g);
  // With an observer attached: reports every TB and warp instruction.
  void run_observed(const Context& ctx, Stream s, const exec::GridLaunch& g);

  struct Child {
    exec::GridLaunch grid;
    bool tail = false;
  };
  uint32_t num_sms_;
  uint32_t next_grid_id_ = 1;
  uint64_t warp_insts_ = 0;
  std::map<uint32_t, std::vector<Child>> children_;  // by parent grid id, launched while it runs
};

}  // namespace gpumux::runtime
