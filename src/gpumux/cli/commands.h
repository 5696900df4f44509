// Each file cli/cmd_*.cpp adds one group of subcommands to the gpumux tool.
#pragma once

#include <CLI/CLI.hpp>

namespace gpumux::cli {

// Exit code a subcommand's callback leaves for main() to return.
int& exit_code();
// git describe of the sources the binary was built from (gpumux --version).
const char* source_commit();

void add_ptx_commands(CLI::App& app);       // gpumux ptx check
void add_workload_commands(CLI::App& app);  // gpumux list, gpumux verify
void add_run_commands(CLI::App& app);       // gpumux run
void add_config_commands(CLI::App& app);    // gpumux config dump|import|docs
void add_bench_commands(CLI::App& app);       // gpumux bench
void add_experiment_commands(CLI::App& app);  // gpumux experiment run|check|report
void add_calibrate_commands(CLI::App& app);   // gpumux calibrate
void add_exec_commands(CLI::App& app);        // gpumux exec -- ./cuda-program
void add_serve_commands(CLI::App& app);       // gpumux serve WORKLOAD

}  // namespace gpumux::cli
