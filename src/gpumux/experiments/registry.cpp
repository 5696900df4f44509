#include "gpumux/core/registry.h"
#include "gpumux/experiments/executor.h"

namespace gpumux::experiments {

#define GPUMUX_EXECUTOR(fn, name) std::unique_ptr<Executor> make_##fn##_executor();
#include "gpumux/experiments/executors.inc"
#undef GPUMUX_EXECUTOR

namespace {

using Factory = std::unique_ptr<Executor> (*)();

constexpr Registered<Factory> kExecutors[] = {
#define GPUMUX_EXECUTOR(fn, name) {name, &make_##fn##_executor},
#include "gpumux/experiments/executors.inc"
#undef GPUMUX_EXECUTOR
};

}  // namespace

std::vector<std::string> executor_names() { return registered_names<Factory>(kExecutors); }

std::unique_ptr<Executor> make_executor(std::string_view name) {
  return find_registered<Factory>(kExecutors, name, "unknown executor")();
}

std::vector<std::string> run_one_command(const RunTask& t, const ExecutorOptions& o) {
  return {o.gpumux.string(), "experiment", "run-one", t.dir.string(), "--cache-dir", (o.out / "cache").string()};
}

}  // namespace gpumux::experiments
