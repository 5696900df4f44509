// The cycles during which an application's kernels had TBs on the GPU: the
// time base of kernel CPI (GPU Maestro eq. 1-2) and of EDGE's kernel NTT.
#include <algorithm>

#include "gpumux/multitask/runner.h"

namespace gpumux::multitask {

namespace {

// The length of the union of `spans`, none starting before `start`.
Cycle union_length(std::vector<std::pair<Cycle, Cycle>>& spans, Cycle start) {
  std::sort(spans.begin(), spans.end());
  Cycle busy = 0, covered = start;  // covered: end of the union so far
  for (auto [from, to] : spans) {
    from = std::max(from, covered);
    if (to > from) busy += to - from;
    covered = std::max(covered, to);
  }
  return busy;
}

}  // namespace

Cycle kernel_busy_cycles(const std::vector<frontend::KernelRecord>& kernels, uint32_t app, const AppRun& run) {
  std::vector<std::pair<Cycle, Cycle>> spans;
  for (const frontend::KernelRecord& k : kernels)
    if (k.app == app && k.done && k.finished > k.first_tb)
      spans.emplace_back(std::max(k.first_tb, run.start), std::min(k.finished, run.end));
  return union_length(spans, run.start);
}

Cycle run_busy_cycles(const std::vector<frontend::KernelRecord>& kernels, uint32_t app, Cycle end) {
  std::vector<std::pair<Cycle, Cycle>> spans;
  for (const frontend::KernelRecord& k : kernels) {
    // A launch not done has dispatched a TB when first_tb is set (one still
    // running that dispatched at cycle 0, only possible with
    // frontend.launch_latency = 0, is not counted).
    if (k.app != app || (!k.done && k.first_tb == 0)) continue;
    spans.emplace_back(k.first_tb, std::min(k.done ? k.finished : end, end));
  }
  return union_length(spans, 0);
}

}  // namespace gpumux::multitask
