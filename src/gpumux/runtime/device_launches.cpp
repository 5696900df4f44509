#include "gpumux/runtime/device_launches.h"

#include <fmt/format.h>

#include "gpumux/exec/builtins/services.h"
#include "gpumux/exec/loaded_module.h"

namespace gpumux::runtime {

std::string Context::DeviceLaunches::launch(exec::DeviceLaunchRequest r) {
  const Module* mod = nullptr;
  for (const auto& m : ctx_.modules_)
    if (&m->loaded() == r.parent->module) mod = m.get();
  if (!mod) return "the launching kernel's module is not loaded in its context";
  const Kernel k = mod->kernel(r.parent->module->function(r.kernel).name);
  const Dim3 grid(r.grid[0], r.grid[1], r.grid[2]), block(r.block[0], r.block[1], r.block[2]);
  try {
    ctx_.check_launch(k, grid, block, r.dyn_smem, "device-side launch");
  } catch (const ApiError& e) {
    return e.what();
  }
  LaunchBackend::Launch l{&ctx_, &k, grid, block, r.dyn_smem, Stream{}, std::move(r.params)};
  return ctx_.dev_.backend().launch_from_device(l, r);
}

std::string LaunchBackend::launch_from_device(Launch& l, const exec::DeviceLaunchRequest&) {
  return fmt::format("device-side launch of {}: the backend does not support it", l.kernel->name());
}

}  // namespace gpumux::runtime
