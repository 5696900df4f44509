#include "gpumux/cudart/driver/sm_split.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpumux::cudart::driver {

SmGranularity sm_granularity(int cc_major, bool ignore_coscheduling) {
  if (ignore_coscheduling) return {1, 1};
  if (cc_major >= 9) return {8, 8};
  if (cc_major == 8) return {4, 2};
  return {2, 2};
}

SmSplit split_sms_by_count(std::span<const uint32_t> input, uint32_t max_groups, uint32_t min_count, SmGranularity g) {
  SmSplit s;
  if (min_count > input.size()) {
    s.status = SplitStatus::InvalidValue;
    s.error = fmt::format("minCount {} is more than the input's {} SMs", min_count, input.size());
    return s;
  }
  const uint32_t at_least = std::max(min_count, g.min_sms);
  s.group_sms = (at_least + g.multiple - 1) / g.multiple * g.multiple;
  size_t fit = input.size() / s.group_sms;
  if (fit == 0) {
    s.status = SplitStatus::InvalidConfiguration;
    s.error = fmt::format(
        "a group of minCount {} SMs takes {} (at least {}, a multiple of {}): more than the input's {} SMs",
        min_count, s.group_sms, g.min_sms, g.multiple, input.size());
    return s;
  }
  size_t n = max_groups ? std::min<size_t>(fit, max_groups) : fit;
  for (size_t i = 0; i < n; ++i)
    s.groups.emplace_back(input.begin() + i * s.group_sms, input.begin() + (i + 1) * s.group_sms);
  s.remaining.assign(input.begin() + n * s.group_sms, input.end());
  return s;
}

}  // namespace gpumux::cudart::driver
