#include "gpumux/sm/fault_pipeline.h"

#include <array>
#include <string_view>

#include "gpumux/core/error.h"

namespace gpumux::sm {

namespace {

constexpr std::array kPipelines = {
#define GPUMUX_FAULT_PIPELINE(name, disable, holds, queue, log) \
  FaultPipelineRules{name, WarpDisable::disable, holds, queue, log},
#include "gpumux/sm/fault_pipelines.inc"
#undef GPUMUX_FAULT_PIPELINE
};

}  // namespace

const FaultPipelineRules& fault_pipeline_rules(const std::string& name) {
  for (const FaultPipelineRules& r : kPipelines)
    if (name == r.name) return r;
  std::string known;
  for (const FaultPipelineRules& r : kPipelines) known += std::string(known.empty() ? "" : ", ") + r.name;
  throw LoadError("unknown sm.fault_pipeline.mode \"" + name + "\" (known: " + known + ")");
}

}  // namespace gpumux::sm
