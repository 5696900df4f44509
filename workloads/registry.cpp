#include <algorithm>
#include <stdexcept>

#include "workload.h"

// Each workloads/<name>/<name>.cpp defines gpumux::workloads::<name>_workload();
// the build lists them in workload_list.inc (one folder, one registration).
namespace gpumux::workloads {
#define GPUMUX_WORKLOAD(n) const WorkloadSpec& n##_workload();
#include "workload_list.inc"
#undef GPUMUX_WORKLOAD

const std::vector<const WorkloadSpec*>& all_workloads() {
  static const std::vector<const WorkloadSpec*> list = [] {
    std::vector<const WorkloadSpec*> v;
#define GPUMUX_WORKLOAD(n)                                    \
  v.push_back(&n##_workload());                               \
  if (n##_workload().persistent) v.push_back(n##_workload().persistent);
#include "workload_list.inc"
#undef GPUMUX_WORKLOAD
    return v;
  }();
  return list;
}

const std::vector<const WorkloadSpec*>& base_workloads() {
  static const std::vector<const WorkloadSpec*> list = [] {
    std::vector<const WorkloadSpec*> v;
#define GPUMUX_WORKLOAD(n) v.push_back(&n##_workload());
#include "workload_list.inc"
#undef GPUMUX_WORKLOAD
    return v;
  }();
  return list;
}

const WorkloadSpec* find_workload(std::string_view name) {
  for (const WorkloadSpec* w : all_workloads())
    if (w->name == name) return w;
  return nullptr;
}

const char* size_name(Size s) {
  switch (s) {
    case Size::Tiny: return "tiny";
    case Size::Medium: return "medium";
    case Size::Small: return "small";
    case Size::Large: return "large";
    case Size::Paper: return "paper";
  }
  return "?";
}

bool parse_size(std::string_view s, Size& out) {
  for (Size z : all_sizes)
    if (s == size_name(z)) {
      out = z;
      return true;
    }
  return false;
}

const char* size_names() {
  static const std::string list = [] {
    std::string s;
    for (size_t i = 0; i < std::size(all_sizes); ++i)
      s += (i == 0 ? "" : i + 1 == std::size(all_sizes) ? " or " : ", ") + std::string(size_name(all_sizes[i]));
    return s;
  }();
  return list.c_str();
}

bool has_size(const WorkloadSpec& w, Size size) { return !w.sizes[size_t(size)].empty(); }

std::string missing_size_message(const WorkloadSpec& w, Size size) {
  std::string defined;
  for (Size z : all_sizes)
    if (has_size(w, z)) defined += (defined.empty() ? "" : ", ") + std::string(size_name(z));
  return fmt::format("benchmark '{}' has no {} size (it has {})", w.name, size_name(size), defined);
}

CheckResult run_workload(const WorkloadSpec& w, runtime::Context& ctx, Size size, uint64_t seed) {
  if (!has_size(w, size)) throw std::invalid_argument(missing_size_message(w, size));
  runtime::Module& mod = ctx.load_module_string(std::string(w.ptx), w.name + ".ptx");
  return w.run(ctx, mod, size, seed);
}

}  // namespace gpumux::workloads
