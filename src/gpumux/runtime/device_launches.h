// Internal to runtime/: a context as the DeviceLauncher of its kernels'
// device-side launches (exec/device_launch.h). It checks each child launch
// like Context::launch and hands it to the device's backend.
#pragma once

#include "gpumux/exec/device_launch.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux::runtime {

class Context::DeviceLaunches : public exec::DeviceLauncher {
 public:
  explicit DeviceLaunches(Context& ctx) : ctx_(ctx) {}
  std::string launch(exec::DeviceLaunchRequest r) override;

 private:
  Context& ctx_;
};

}  // namespace gpumux::runtime
