#include "gpumux/experiments/publish.h"

#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpumux/core/error.h"
#include "gpumux/experiments/files.h"

namespace gpumux::experiments {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kPublished[] = {"results.csv", "trends.json", "report.html"};

json study_json(const fs::path& out) {
  const std::string text = read_text(out / "study.json");
  if (text.empty())
    throw LoadError(fmt::format("{}: no study.json (run the study first: gpumux experiment run)", out.string()));
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw LoadError(fmt::format("{}: {}", (out / "study.json").string(), e.what()));
  }
}

std::string text_of(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string("unknown");
}

}  // namespace

std::string commit_text(const fs::path& out) {
  const json st = study_json(out);
  const json& runs = st.contains("runs") ? st["runs"] : json::object();
  const bool sampled = st.contains("sample") && !st["sample"].is_null();
  return fmt::format("{}\ngpumux {}, build {}\nstudy {}, scale {}, {}\n{} of {} runs have results; gathered {}\n",
                     text_of(st, "commit"), text_of(st, "gpumux_version"), text_of(st, "build_id"),
                     text_of(st, "name"), text_of(st, "scale"),
                     sampled ? st["sample"]["text"].get<std::string>() : std::string("every mix of the scale"),
                     runs.value("ok", 0), runs.value("total", 0), text_of(st, "created"));
}

void check_results_of(const Study& s, const fs::path& out) {
  const json st = study_json(out);
  if (text_of(st, "name") != s.name || text_of(st, "scale") != s.scale)
    throw LoadError(fmt::format("{}: holds the results of study '{}' at scale '{}', not '{}' at '{}'", out.string(),
                                text_of(st, "name"), text_of(st, "scale"), s.name, s.scale));
}

std::vector<std::string> publish_results(const Study& s, const fs::path& out, const fs::path& dest) {
  check_results_of(s, out);
  std::error_code ec;
  for (const char* f : kPublished)
    if (!fs::is_regular_file(out / f, ec))
      throw LoadError(fmt::format("{}: no {} (gpumux experiment run, then report)", out.string(), f));
  const std::string commit = commit_text(out);

  fs::create_directories(dest / "figures");
  // A figure the study no longer draws must not stay in the published folder.
  for (const fs::directory_entry& e : fs::directory_iterator(dest / "figures"))
    if (e.path().extension() == ".svg") fs::remove(e.path());
  std::vector<std::string> written;
  for (const char* f : kPublished) {
    fs::copy_file(out / f, dest / f, fs::copy_options::overwrite_existing);
    written.push_back(f);
  }
  std::vector<fs::path> figures;
  if (fs::is_directory(out / "figures", ec))
    for (const fs::directory_entry& e : fs::directory_iterator(out / "figures"))
      if (e.path().extension() == ".svg") figures.push_back(e.path());
  std::sort(figures.begin(), figures.end());
  for (const fs::path& f : figures) {
    fs::copy_file(f, dest / "figures" / f.filename(), fs::copy_options::overwrite_existing);
    written.push_back("figures/" + f.filename().string());
  }
  write_text(dest / "commit", commit);
  written.push_back("commit");
  return written;
}

}  // namespace gpumux::experiments
