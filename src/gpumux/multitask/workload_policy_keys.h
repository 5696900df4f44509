// The sharing policy's and preemption's keys of a workload file's [policy]
// table (workload_file.cpp reads the others).
#pragma once

#include "gpumux/core/strict_toml.h"
#include "gpumux/multitask/workload_file.h"

namespace gpumux::multitask {

// Reads them into w.policy_options; refuses a key its policy or mechanism
// would ignore, with file:line.
void parse_policy_keys(StrictTable& pt, WorkloadFile& w);

}  // namespace gpumux::multitask
