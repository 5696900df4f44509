// gpumux ptx check FILE...: what each PTX file contains and whether gpumux can run it.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/cli/commands.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/ptx/check.h"

namespace gpumux::cli {

void add_ptx_commands(CLI::App& app) {
  CLI::App* ptx = app.add_subcommand("ptx", "Inspect PTX files");
  ptx->require_subcommand(1);
  CLI::App* check = ptx->add_subcommand(
      "check",
      "List kernels, parameters, estimated resources, and unsupported constructs and instructions");
  auto files = std::make_shared<std::vector<std::string>>();
  check->add_option("files", *files, "PTX files")->required()->check(CLI::ExistingFile);
  check->callback([files] {
    bool ok = true;
    // Beyond what the parser rejects, report what the engine cannot bind.
    for (const std::string& f : *files) ok &= ptx::check_ptx_file(f, std::cout, &exec::bind_instructions);
    if (!ok) exit_code() = 1;
  });
}

}  // namespace gpumux::cli
