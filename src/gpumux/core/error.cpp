#include "gpumux/core/error.h"

#include <fmt/format.h>

namespace gpumux {

std::string FaultSite::describe() const {
  std::string s = fmt::format("kernel {} TB ({},{},{}) warp {}", kernel, tb_x, tb_y, tb_z, warp);
  if (lane) s += fmt::format(" lane {}", *lane);
  s += fmt::format(" pc {}", pc);
  if (!function.empty() && function != kernel) s += fmt::format(" in function {}", function);
  if (ptx.line) s += fmt::format(" at {}", ptx.str());
  if (source.line) s += fmt::format(" (source {})", source.str());
  return s;
}

DeviceFault::DeviceFault(std::string reason, FaultSite site)
    : std::runtime_error(fmt::format("device fault: {} ({})", reason, site.describe())),
      reason_(std::move(reason)),
      site_(std::move(site)) {}

}  // namespace gpumux
