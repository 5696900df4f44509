// add-strings: concatenates pairs of random strings into device-malloc'd
// buffers (in the spirit of the Halloc allocator's string example that the
// thesis's figure 6.14 runs), then gathers them into one packed array.
#include <numeric>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr int kMaxLength = 31;  // each string of a pair: 1..31 characters

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int pairs = host::by_size(size, 4096, 65536, 524288, 2097152);
  Rng rng(seed);
  std::string chars;
  std::vector<int> offsets{0};
  for (int s = 0; s < 2 * pairs; ++s) {
    const int length = 1 + int(rng.below(kMaxLength));
    for (int k = 0; k < length; ++k) chars.push_back(char('a' + rng.below(26)));
    offsets.push_back(int(chars.size()));
  }
  std::vector<int> out_offsets(pairs);
  std::string want;
  for (int i = 0; i < pairs; ++i) {
    out_offsets[i] = int(want.size());
    want += chars.substr(offsets[2 * i], offsets[2 * i + 2] - offsets[2 * i]);
    want.push_back('\0');
  }
  // Every block is at most 2 * 31 + 1 bytes, accounted in 16-byte granules: 64.
  ctx.set_device_heap_limit(uint64_t(pairs) * 64);

  runtime::DevPtr d_chars = ctx.malloc_copy(std::vector<char>(chars.begin(), chars.end()));
  runtime::DevPtr d_offsets = ctx.malloc_copy(offsets);
  runtime::DevPtr d_out_offsets = ctx.malloc_copy(out_offsets);
  runtime::DevPtr d_results = ctx.malloc(size_t(pairs) * sizeof(uint64_t));
  runtime::DevPtr d_lengths = ctx.malloc(size_t(pairs) * sizeof(int));
  runtime::DevPtr d_out = ctx.malloc(want.size());
  const uint32_t block = 128, grid = host::blocks_for(pairs, block);
  host::launch(ctx, mod.kernel("concat_strings"), {grid}, {block}, d_chars, d_offsets, pairs, d_results, d_lengths);
  host::launch(ctx, mod.kernel("gather_strings"), {grid}, {block}, d_results, d_lengths, d_out_offsets, pairs, d_out);
  std::vector<int> lengths = ctx.read<int>(d_lengths, pairs);
  std::vector<char> got = ctx.read<char>(d_out, want.size());
  for (runtime::DevPtr p : {d_chars, d_offsets, d_out_offsets, d_results, d_lengths, d_out}) ctx.free(p);

  std::vector<int> want_lengths(pairs);
  for (int i = 0; i < pairs; ++i) want_lengths[i] = offsets[2 * i + 2] - offsets[2 * i];
  return host::check_all({check_exact(lengths, want_lengths, "lengths"),
                          check_exact(got, std::vector<char>(want.begin(), want.end()), "strings")});
}

}  // namespace

const WorkloadSpec& addstrings_workload() {
  static const WorkloadSpec spec{
      "add-strings",
      "concatenation of random string pairs into buffers from device malloc, gathered and freed by a second kernel",
      "memory",
      embedded::addstrings_ptx,
      {"4096 pairs", "65536 pairs", "524288 pairs", "2097152 pairs"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
