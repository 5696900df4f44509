// Stand-in for the definition that comes with the `gpumux experiment` command
// (removed when that lands): the command documented at the top of executor.h.
#include "gpumux/experiments/executor.h"

namespace gpumux::experiments {

std::vector<std::string> run_one_command(const RunTask& t, const ExecutorOptions& o) {
  return {o.gpumux.string(), "experiment", "run-one", t.dir.string(), "--cache-dir", (o.out / "cache").string()};
}

}  // namespace gpumux::experiments
