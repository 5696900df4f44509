// Host-side helpers shared by the memory-bound workloads: size selection,
// launches, deterministic random inputs and combined checks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "workload.h"

namespace gpumux::workloads::host {

// The value for the requested problem size, for benchmarks with a paper size.
template <class T>
constexpr T by_size(Size s, T tiny, T medium, T small, T large, T paper) {
  switch (s) {
    case Size::Tiny: return tiny;
    case Size::Medium: return medium;
    case Size::Small: return small;
    case Size::Large: return large;
    case Size::Paper: return paper;
  }
  return large;
}
// The value for the requested problem size, for benchmarks without a paper
// size (run_workload refuses it before their drivers run).
template <class T>
constexpr T by_size(Size s, T tiny, T medium, T small, T large) {
  if (s == Size::Paper) throw std::logic_error("by_size: this benchmark has no paper size");
  return by_size(s, tiny, medium, small, large, large);
}

// How many times a driver runs its kernel sequence on the device-resident
// inputs. Where the kernels touch each copied byte only a few times, PCIe
// copies dominate the application's time at any problem size; at medium such
// drivers repeat their kernels (as the CUDA samples' timing loops do) so that
// the GPU is busy with them for most of the run (docs/workloads.md). The
// other sizes run the sequence once.
constexpr int passes(Size s, int medium) { return s == Size::Medium ? medium : 1; }

// The grid of a persistent-thread kernel (the `-pt` variants), whose TBs loop
// over work items: kPersistentThreadsPerSm threads' worth of TBs of
// `block_threads` on every SM of the device, or fewer when the work has fewer
// blocks. 1024 threads is half of a TITAN V SM's 2048 (the QAWS paper's GPU),
// so the two kernels of a QAWS pair each hold an equal share of every SM, as
// the paper's persistent kernels do (docs/workloads.md, "Persistent-thread
// variants", lists what else limits residency).
inline constexpr uint32_t kPersistentThreadsPerSm = 1024;
inline uint32_t persistent_grid(runtime::Context& ctx, uint32_t block_threads, uint64_t work_blocks) {
  const uint64_t resident = uint64_t(ctx.device().limits().num_sms) * (kPersistentThreadsPerSm / block_threads);
  return uint32_t(std::min(resident, work_blocks));
}

// Number of blocks of `per_block` items that cover `n` items.
inline uint32_t blocks_for(uint64_t n, uint64_t per_block) {
  return uint32_t((n + per_block - 1) / per_block);
}

inline std::vector<float> random_floats(Rng& rng, size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

// Integers uniformly distributed in [lo, hi].
inline std::vector<int32_t> random_ints(Rng& rng, size_t n, int32_t lo, int32_t hi) {
  std::vector<int32_t> v(n);
  for (int32_t& x : v) x = lo + int32_t(rng.below(uint32_t(hi - lo + 1)));
  return v;
}

// Launches on the default stream with no dynamic shared memory, the
// arguments packed in order (the drivers' single launch path).
template <class... A>
void launch(runtime::Context& ctx, const runtime::Kernel& k, runtime::Dim3 grid,
            runtime::Dim3 block, const A&... a) {
  runtime::KernelArgs args;
  (args.add(a), ...);
  ctx.launch(k, grid, block, uint64_t{0}, runtime::Stream{}, args);
}

// Event mode (docs/edge.md): the context's event source delivers `events`
// requests' worth of event kernels of `k`, each one TB of `threads` threads
// with the arguments args(e), at most `max_in_flight` at once, and waits for
// them all. payload(e) is the request data the device (the NIC) writes into
// GPU memory itself before the event, as EDGE's NIC does: the drivers do not
// copy it from the host. The number of events: the source's count, else
// `default_events`.
inline uint32_t event_count(const runtime::Context& ctx, uint32_t default_events) {
  return ctx.event_source() && ctx.event_source()->events ? ctx.event_source()->events : default_events;
}
// The payload of an event: `count` elements of `data` from `first`, written to `dst`.
template <class T>
runtime::EventPayload payload_of(runtime::DevPtr dst, const std::vector<T>& data, size_t first, size_t count) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data() + first);
  return {dst, std::vector<uint8_t>(p, p + count * sizeof(T))};
}
template <class MakeArgs, class MakePayload>
void deliver_events(runtime::Context& ctx, const runtime::Kernel& k, uint32_t threads, uint32_t max_in_flight,
                    uint32_t events, MakeArgs args, MakePayload payload) {
  runtime::Doorbell bell = ctx.register_event(k, {1}, {threads}, 0, max_in_flight);
  std::vector<runtime::KernelArgs> blocks;
  std::vector<runtime::EventPayload> payloads;
  blocks.reserve(events);
  payloads.reserve(events);
  for (uint32_t e = 0; e < events; ++e) {
    blocks.push_back(args(e));
    payloads.push_back(payload(e));
  }
  ctx.deliver_events(bell, blocks, *ctx.event_source(), std::move(payloads));
  ctx.wait_events(bell);
  ctx.unregister_event(bell);
}

// The first failing check, or all the passing summaries joined.
inline CheckResult check_all(std::initializer_list<CheckResult> checks) {
  CheckResult all{true, ""};
  for (const CheckResult& c : checks) {
    if (!c.passed) return c;
    if (!all.detail.empty()) all.detail += "; ";
    all.detail += c.detail;
  }
  return all;
}

}  // namespace gpumux::workloads::host
