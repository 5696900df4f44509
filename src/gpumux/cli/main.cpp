// The gpumux command. Errors from any layer end here with a clear message and
// a non-zero exit code.
#include <fmt/core.h>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"

namespace gpumux::cli {
int& exit_code() {
  static int code = 0;
  return code;
}
}  // namespace gpumux::cli

int main(int argc, char** argv) {
  CLI::App app{"gpumux: a cycle-level simulator of multitasking GPUs"};
  app.require_subcommand(0, 1);
  gpumux::cli::add_ptx_commands(app);
  gpumux::cli::add_workload_commands(app);
  gpumux::cli::add_run_commands(app);
  gpumux::cli::add_config_commands(app);
  gpumux::cli::add_bench_commands(app);
  gpumux::cli::add_experiment_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const gpumux::DeviceFault& e) {
    fmt::print(stderr, "gpumux: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpumux: error: {}\n", e.what());
    return 2;
  }
  return gpumux::cli::exit_code();
}
