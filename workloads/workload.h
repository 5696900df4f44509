// The workload library's interface: each benchmark is a WorkloadSpec with a
// host driver that generates inputs from a seed, launches its kernels through
// the runtime API, and checks the results against a CPU reference.
#pragma once

#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpumux/runtime/runtime.h"

namespace gpumux::workloads {

// Tiny to large are ordered by problem size. Medium sits between the tests'
// tiny inputs (dominated by copies and launch latency) and small (minutes per
// run): sized so that the kernels take most of a run alone, which takes
// seconds (docs/workloads.md lists the few benchmarks whose copies or round
// trips do not allow it). Paper is shaped like the input a paper simulated
// (its TBs per kernel and TB lengths, docs/workloads.md "Paper"); only the
// benchmarks whose medium grids are smaller than the paper's have one.
enum class Size { Tiny, Medium, Small, Large, Paper };
inline constexpr Size all_sizes[] = {Size::Tiny, Size::Medium, Size::Small, Size::Large, Size::Paper};
const char* size_name(Size s);
bool parse_size(std::string_view s, Size& out);
// "tiny, medium, small, large or paper", for messages that list the accepted sizes.
const char* size_names();

// Outcome of a run's CPU check.
struct CheckResult {
  bool passed = false;
  std::string detail;  // first mismatch, or a short summary when passed
};

struct WorkloadSpec {
  std::string name;         // as the papers call it: "sgemm", "ipv4", ...
  std::string description;  // one line
  std::string category;     // "compute", "memory" or "network"
  std::string_view ptx;     // embedded PTX text of the module (workloads/<name>/<name>.ptx)
  std::string sizes[std::size(all_sizes)];  // what each Size means, in Size order, e.g. "n=4096";
                                            // empty: the benchmark has no such size (only paper may be)
  // Runs the benchmark in `ctx` with the module already loaded; deterministic in `seed`.
  CheckResult (*run)(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed);
  // Its persistent-thread variant ("<name>-pt", as the QAWS paper runs its kernels: a
  // grid that stays resident, each TB looping over work items), listed after it; or none.
  const WorkloadSpec* persistent = nullptr;
};

// The `run` of a benchmark and of its persistent-thread variant, from one driver that
// takes the variant as its last argument: run_variant<run_x, false> and <run_x, true>.
template <CheckResult (*Run)(runtime::Context&, runtime::Module&, Size, uint64_t, bool), bool Persistent>
CheckResult run_variant(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  return Run(ctx, mod, size, seed, Persistent);
}

// Every registered workload, in registration order (workloads/registry.cpp),
// each persistent-thread variant after its benchmark.
const std::vector<const WorkloadSpec*>& all_workloads();
// The benchmarks alone, without their variants.
const std::vector<const WorkloadSpec*>& base_workloads();
const WorkloadSpec* find_workload(std::string_view name);

// Whether `w` defines `size` (every benchmark defines tiny to large).
bool has_size(const WorkloadSpec& w, Size size);
// The error for a size the benchmark does not define, naming those it does.
std::string missing_size_message(const WorkloadSpec& w, Size size);

// Loads the workload's module into ctx and runs it; std::invalid_argument if
// `w` has no such size.
CheckResult run_workload(const WorkloadSpec& w, runtime::Context& ctx, Size size, uint64_t seed);

// Deterministic input generation (splitmix64): identical on every platform,
// unlike the standard library's distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t u32() { return uint32_t(next() >> 32); }
  uint32_t below(uint32_t n) { return uint32_t((next() >> 32) * n >> 32); }  // [0, n)
  float uniform(float lo = 0.f, float hi = 1.f) {
    return lo + (hi - lo) * float(next() >> 40) * (1.0f / 16777216.0f);
  }
  double uniform_d(double lo = 0.0, double hi = 1.0) {
    return lo + (hi - lo) * double(next() >> 11) * (1.0 / 9007199254740992.0);
  }

 private:
  uint64_t s_;
};

// Exact comparison (integers).
template <class T>
CheckResult check_exact(const std::vector<T>& got, const std::vector<T>& want,
                        std::string_view what = "result") {
  if (got.size() != want.size())
    return {false, fmt::format("{}: size {} != expected {}", what, got.size(), want.size())};
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]))
      return {false, fmt::format("{}[{}] = {} expected {}", what, i, got[i], want[i])};
  return {true, fmt::format("{} {} values exact", got.size(), what)};
}

// Floating-point comparison: |got - want| <= atol + rtol * |want|.
template <class T>
CheckResult check_close(const std::vector<T>& got, const std::vector<T>& want, double rtol,
                        double atol, std::string_view what = "result") {
  if (got.size() != want.size())
    return {false, fmt::format("{}: size {} != expected {}", what, got.size(), want.size())};
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = double(got[i]), w = double(want[i]);
    double err = std::fabs(g - w);
    if (!(err <= atol + rtol * std::fabs(w)))
      return {false, fmt::format("{}[{}] = {} expected {} (rtol {}, atol {})", what, i, g, w,
                                 rtol, atol)};
    worst = std::max(worst, err);
  }
  return {true, fmt::format("{} {} values within tolerance (max abs err {:.3g})", got.size(),
                            what, worst)};
}

}  // namespace gpumux::workloads
