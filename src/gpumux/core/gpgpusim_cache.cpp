#include "gpumux/core/gpgpusim_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace gpumux {
namespace {

constexpr uint64_t kLineBytes = 128;
constexpr uint64_t kMaxWays = 64;

char letter(const std::vector<std::string_view>& fields, size_t i) {
  return i < fields.size() && fields[i].size() == 1 ? fields[i][0] : '\0';
}

}  // namespace

std::optional<GpgpusimCacheSpec> parse_gpgpusim_cache(std::string_view text) {
  std::vector<std::string_view> groups = split_gpgpusim_fields(text, ',');
  std::vector<std::string_view> geo = split_gpgpusim_fields(groups[0], ':');
  GpgpusimCacheSpec c;
  if (!geo.empty() && (geo[0] == "N" || geo[0] == "S")) {
    c.sectored = geo[0] == "S";
    geo.erase(geo.begin());
  }
  if (geo.size() != 3) return std::nullopt;
  auto sets = parse_gpgpusim_uint(geo[0]), line = parse_gpgpusim_uint(geo[1]), ways = parse_gpgpusim_uint(geo[2]);
  if (!sets || !line || !ways || *sets == 0 || *line == 0 || *ways == 0) return std::nullopt;
  c.sets = *sets;
  c.line_bytes = *line;
  c.ways = *ways;
  if (groups.size() > 1) {
    auto pol = split_gpgpusim_fields(groups[1], ':');
    c.replacement = letter(pol, 0);
    c.write = letter(pol, 1);
    c.allocate = letter(pol, 2);
    c.write_allocate = letter(pol, 3);
    c.set_index = letter(pol, 4);
  }
  if (groups.size() > 2) {
    auto mshr = split_gpgpusim_fields(groups[2], ':');
    c.mshr_type = std::string(mshr[0]);
    if (mshr.size() == 3) {
      c.mshr_entries = parse_gpgpusim_uint(mshr[1]);
      c.mshr_merge = parse_gpgpusim_uint(mshr[2]);
    }
  }
  for (size_t g = 3; g < groups.size(); ++g) c.queue_groups.emplace_back(groups[g]);
  return c;
}

FittedCache fit_gpgpusim_cache(uint64_t slice_bytes, uint64_t ways, uint32_t slices) {
  std::vector<std::string> changes;
  uint64_t lines = slice_bytes / kLineBytes;
  // Total capacity in whole KiB: 8 lines of 128 B each.
  while (lines > 0 && lines * slices % 8 != 0) --lines;
  if (lines == 0) lines = 8;  // below 1 KiB: the smallest gpumux cache
  if (lines * kLineBytes != slice_bytes)
    changes.push_back(fmt::format("capacity {} B -> {} B per slice (whole 128 B lines, whole KiB in total)",
                                  slice_bytes, lines * kLineBytes));
  uint64_t fitted_ways = std::clamp<uint64_t>(ways, 1, std::min(kMaxWays, lines));
  while (lines % fitted_ways != 0) --fitted_ways;
  if (fitted_ways != ways)
    changes.push_back(fmt::format("{} ways -> {} sets of {} ways (at most {} ways, whole sets; capacity kept)", ways,
                                  lines / fitted_ways, fitted_ways, kMaxWays));
  FittedCache f;
  f.size_kb = uint32_t(lines * kLineBytes * slices / 1024);
  f.ways = uint32_t(fitted_ways);
  f.adjustment = fmt::format("{}", fmt::join(changes, "; "));
  return f;
}

std::vector<std::string_view> split_gpgpusim_fields(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::optional<uint64_t> parse_gpgpusim_uint(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace gpumux
