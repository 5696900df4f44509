// gpumux config: GPU configurations from the command line.
//
//   gpumux config dump [--config PRESET_OR_FILE] [--set path.key=value]...
//   gpumux config import gpgpusim.config [-o out.toml]
//   gpumux config docs > docs/config.md
//
// import prints one "adjusted: <option> <value> (<change>)" line for every value
// changed to fit gpumux and one "not modeled: <option> <value> (<reason>)" line
// for every option gpumux does not model, on stderr and as comments in the TOML.
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpumux/cli/commands.h"
#include "gpumux/core/config.h"
#include "gpumux/core/config_import.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"

namespace gpumux::cli {
namespace {

struct DumpOptions {
  std::string config;
  std::vector<std::string> sets;
};

struct ImportOptions {
  std::string input;
  std::string output;
};

// Accel-Sim keeps one gpgpusim.config per folder named after the GPU.
std::string gpu_name_of(const std::filesystem::path& file) {
  if (file.filename() == "gpgpusim.config" && file.has_parent_path())
    return std::filesystem::absolute(file).parent_path().filename().string();
  return file.stem().string();
}

void run_import(const ImportOptions& o) {
  std::ifstream in(o.input);
  if (!in) throw LoadError(fmt::format("{}: cannot open", o.input));
  std::stringstream text;
  text << in.rdbuf();
  GpgpusimImport result = import_gpgpusim_config(text.str(), o.input, gpu_name_of(o.input));
  std::string toml = fmt::format("# imported from {} by gpumux config import\n", o.input);
  for (const auto* lines : {&result.adjusted, &result.not_modeled}) {
    for (const auto& line : *lines) {
      fmt::print(stderr, "{}\n", line);
      toml += "# " + line + "\n";
    }
  }
  toml += result.config.dump();
  if (o.output.empty()) {
    fmt::print("{}", toml);
    return;
  }
  std::ofstream out(o.output);
  out << toml;
  if (!out) throw LoadError(fmt::format("{}: cannot write", o.output));
}

}  // namespace

void add_config_commands(CLI::App& app) {
  CLI::App* config = app.add_subcommand("config", "GPU configurations: dump, import, reference");
  config->require_subcommand(1);

  auto dump_opts = std::make_shared<DumpOptions>();
  CLI::App* dump = config->add_subcommand("dump", "Print the effective configuration as TOML");
  dump->add_option("-c,--config", dump_opts->config, "GPU preset name or config file (TOML)");
  dump->add_option("--set", dump_opts->sets, "Override one key: section.key=value (repeatable)")
      ->allow_extra_args(false);
  dump->callback([dump_opts] {
    Config c = dump_opts->config.empty() ? Config::build(std::nullopt, dump_opts->sets)
                                         : gpu::load_config(dump_opts->config, dump_opts->sets);
    fmt::print("{}", c.dump());
  });

  auto import_opts = std::make_shared<ImportOptions>();
  CLI::App* import = config->add_subcommand("import", "Convert a GPGPU-Sim/Accel-Sim gpgpusim.config to TOML");
  import->add_option("file", import_opts->input, "gpgpusim.config file")->required()->check(CLI::ExistingFile);
  import->add_option("-o,--output", import_opts->output, "Write the TOML to this file instead of stdout");
  import->callback([import_opts] { run_import(*import_opts); });

  CLI::App* docs = config->add_subcommand("docs", "Print the configuration reference (docs/config.md)");
  docs->callback([] { fmt::print("{}", config_reference_markdown()); });
}

}  // namespace gpumux::cli
