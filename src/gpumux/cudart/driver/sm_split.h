// The arithmetic of green contexts' SM partitions (cuDevSmResourceSplitByCount),
// apart from the driver ABI so that it is unit-tested on its own
// (tests/cudart/sm_split_test.cpp). docs/sharing-modes.md, "Green contexts".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpumux::cudart::driver {

// The smallest group a split makes and the multiple its size is rounded to.
struct SmGranularity {
  uint32_t min_sms = 1;
  uint32_t multiple = 1;
};
// The granularity NVIDIA documents per compute capability (cuda.h of CUDA 13,
// "Green Contexts": "a guideline for each compute architecture"): 6.x and
// 7.x: at least 2 SMs, a multiple of 2; 8.x: at least 4, a multiple of 2;
// 9.0+: at least 8, a multiple of 8. `ignore_coscheduling`
// (CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING: "lower the minimum SM
// count and alignment, and treat each SM independent of its hierarchy"): 1
// and 1, an estimate: the lowered values are not published.
SmGranularity sm_granularity(int cc_major, bool ignore_coscheduling);

enum class SplitStatus { Ok, InvalidValue, InvalidConfiguration };

struct SmSplit {
  SplitStatus status = SplitStatus::Ok;
  std::string error;  // why, when status is not Ok
  uint32_t group_sms = 0;  // SMs per group: minCount rounded up to the granularity
  std::vector<std::vector<uint32_t>> groups;
  std::vector<uint32_t> remaining;  // the input's SMs in no group
};

// Splits `input` (SM ids in ascending order) into groups of
// max(min_count, g.min_sms) SMs rounded up to a multiple of g.multiple: as
// many as fit, at most `max_groups` (0: no limit). Groups are disjoint and
// take the input's SMs in order, group i the i-th run of group_sms of them;
// the rest is `remaining`. InvalidValue: min_count beyond the input's SMs (the
// documented range is 0 to the input's count); InvalidConfiguration: not one
// group of the rounded size fits.
SmSplit split_sms_by_count(std::span<const uint32_t> input, uint32_t max_groups, uint32_t min_count, SmGranularity g);

}  // namespace gpumux::cudart::driver
