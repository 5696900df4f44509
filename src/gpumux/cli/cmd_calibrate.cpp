// gpumux calibrate: the microbenchmark suite (microbench/) on one GPU
// configuration, against published hardware figures (microbench/published.toml).
//
//   gpumux calibrate -c PRESET_OR_FILE [--set path.key=value]... [--only NAME]... [--scale N] [--json FILE|-]
//
// The table lists every measurement: measured, unit, published, measured over
// published, and the published value's source ("no source" where none was found);
// then each measurement beyond 10% of its published value, with the reason the
// preset stays there (published.toml `deviation`) or "not explained".
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpumux/cli/commands.h"
#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"
#include "published.h"
#include "suite.h"

namespace gpumux::cli {
namespace {

struct CalibrateOptions {
  std::string config;
  std::vector<std::string> sets;
  unsigned scale = 1;
  std::vector<std::string> only;
  std::string json;
};

void run_calibrate(const CalibrateOptions& o) {
  Config cfg = gpu::load_config(o.config, o.sets);
  const GpuConfig& g = cfg.values();
  std::vector<microbench::Measurement> ms = microbench::run_suite(g, o.scale, o.only);
  // Published values are keyed by the preset's name ([gpu] name).
  std::map<std::string, microbench::Published> pub = microbench::published_values(g.gpu.name);
  const std::vector<std::string>& names = microbench::measurement_names();
  for (const auto& [name, p] : pub)
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw LoadError(fmt::format("microbench/published.toml: {}.{}: no such measurement", g.gpu.name, name));
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::string> beyond;
  fmt::print("microbenchmarks on {} ({} SMs, {} MHz core), scale {}\n", g.gpu.name, g.gpu.num_sms, g.clock.core_mhz,
             o.scale);
  fmt::print("{:<24} {:>10} {:<13} {:>10} {:>7}  {}\n", "measurement", "measured", "unit", "published", "ratio",
             "source");
  for (const auto& m : ms) {
    nlohmann::json row = {{"name", m.name}, {"unit", m.unit}, {"measured", m.value}, {"method", m.method}};
    if (!m.detail.empty()) row["detail"] = m.detail;
    auto it = pub.find(m.name);
    if (it == pub.end()) {
      fmt::print("{:<24} {:>10.2f} {:<13} {:>10} {:>7}  no source\n", m.name, m.value, m.unit, "-", "-");
      row["published"] = nullptr;
    } else {
      double ratio = m.value / it->second.value;
      fmt::print("{:<24} {:>10.2f} {:<13} {:>10.2f} {:>7.3f}  {}\n", m.name, m.value, m.unit, it->second.value, ratio,
                 it->second.source);
      row["published"] = it->second.value;
      row["ratio"] = ratio;
      row["source"] = it->second.source;
      if (!microbench::within_published(m.value, it->second)) {
        const std::string& why = it->second.deviation;
        beyond.push_back(fmt::format("  {} ({:.3f}): {}", m.name, ratio, why.empty() ? "not explained" : why));
        row["deviation"] = why.empty() ? nlohmann::json(nullptr) : nlohmann::json(why);
      }
    }
    rows.push_back(std::move(row));
  }
  if (!beyond.empty()) {
    fmt::print("\nbeyond {:.0f}% of the published value:\n", microbench::kPublishedTolerance * 100);
    for (const std::string& line : beyond) fmt::print("{}\n", line);
  }
  if (o.json.empty()) return;
  nlohmann::json doc = {{"gpu", g.gpu.name}, {"scale", o.scale}, {"measurements", rows}};
  if (o.json == "-") {
    fmt::print("{}\n", doc.dump(2));
    return;
  }
  std::ofstream out(o.json);
  out << doc.dump(2) << "\n";
  if (!out) throw LoadError(fmt::format("{}: cannot write", o.json));
}

}  // namespace

void add_calibrate_commands(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cal = app.add_subcommand("calibrate", "Run the microbenchmark suite and compare with published figures");
  cal->add_option("-c,--config", o->config, "GPU preset name or config file (TOML)")->required();
  cal->add_option("--set", o->sets, "Override one key: section.key=value (repeatable)")->allow_extra_args(false);
  cal->add_option("--scale", o->scale, "Multiply iteration counts and sizes (1: smallest)")->check(CLI::Range(1u, 64u));
  cal->add_option("--only", o->only, "Run only this measurement (repeatable; see docs/calibration.md)")
      ->allow_extra_args(false);
  cal->add_option("--json", o->json, "Also write the results as JSON to FILE ('-': standard output)");
  cal->callback([o] { run_calibrate(*o); });
}

}  // namespace gpumux::cli
