// Publishing a study's results beside its study file
// (experiments/<name>/results/<scale>/), so that a reader sees its figures and
// trends without running anything: results.csv, trends.json, report.html (its
// figures are inline; figures/<name>.svg are copied beside it, and its link to
// results.csv is relative, so the folder opens standalone) and `commit`, which
// names the sources the results came from. docs/experiments.md, "Publishing".
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpumux/experiments/study.h"

namespace gpumux::experiments {

// LoadError unless OUT holds results of study `s` at s.scale.
void check_results_of(const Study& s, const std::filesystem::path& out);

// Copies the published files of OUT (the results of study `s` at s.scale,
// with its report written) into `dest`, replacing the ones a previous
// publication left there, and writes dest/commit. Returns the files written,
// relative to `dest`. LoadError when OUT holds another study or scale, or
// lacks a file.
std::vector<std::string> publish_results(const Study& s, const std::filesystem::path& out,
                                         const std::filesystem::path& dest);

// The `commit` file: the commit (git describe of the binary's sources) on its
// first line, then the gpumux version and build id, the study and scale, the
// sample if any, and the runs that have results, from OUT/study.json.
std::string commit_text(const std::filesystem::path& out);

}  // namespace gpumux::experiments
