// Whole-file reads and atomic writes for the study's output folder, which
// several processes (local children, Slurm array tasks) read and write.
#pragma once

#include <filesystem>
#include <string>

namespace gpumux::experiments {

// The file's contents; empty if it cannot be read.
std::string read_text(const std::filesystem::path& p);
// Writes a temporary file beside `p`, then renames it over `p`: a reader sees
// the old contents or the new, never a torn file. ApiError if it cannot.
void write_text(const std::filesystem::path& p, const std::string& text);

}  // namespace gpumux::experiments
