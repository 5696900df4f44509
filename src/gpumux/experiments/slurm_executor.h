// The "slurm" executor: a study's tasks as Slurm job arrays (see the top of
// slurm_executor.cpp for the protocol).
#pragma once

#include <memory>

#include "gpumux/experiments/executor.h"

namespace gpumux::experiments {

std::unique_ptr<Executor> make_slurm_executor();

}  // namespace gpumux::experiments
