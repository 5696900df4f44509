// Names and descriptions of cudaError_t values (cudaGetErrorName/String).
#pragma once

#include "gpumux/cudart/cuda_abi.h"

namespace gpumux::cudart {

const char* error_name(cudaError_t e);    // "cudaErrorIllegalAddress"
const char* error_string(cudaError_t e);  // a one-line description

}  // namespace gpumux::cudart
