// Event kernels on the host side (events.h): registration, the device's
// deliveries, and arrival processes.
#include "gpumux/runtime/events.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/ptx/ir.h"
#include "gpumux/runtime/runtime.h"

namespace gpumux::runtime {

const char* arrival_kind_name(ArrivalProcess::Kind k) {
  switch (k) {
    case ArrivalProcess::Kind::Periodic: return "periodic";
    case ArrivalProcess::Kind::Poisson: return "poisson";
    case ArrivalProcess::Kind::Bursts: return "bursts";
  }
  return "?";
}

bool parse_arrival_kind(std::string_view s, ArrivalProcess::Kind& out) {
  for (auto k : {ArrivalProcess::Kind::Periodic, ArrivalProcess::Kind::Poisson, ArrivalProcess::Kind::Bursts})
    if (s == arrival_kind_name(k)) {
      out = k;
      return true;
    }
  return false;
}

std::vector<uint64_t> arrival_times_ps(const ArrivalProcess& p, size_t n) {
  // splitmix64, as the workload library's Rng: identical on every platform.
  uint64_t state = p.seed * 0x2545f4914f6cdd1dull + 0x9e3779b97f4a7c15ull;
  auto uniform = [&] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);  // (0, 1)
  };
  const double interval_ps = p.interval_us * 1e6;
  std::vector<uint64_t> t;
  t.reserve(n);
  double now = p.start_us * 1e6;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) switch (p.kind) {
        case ArrivalProcess::Kind::Periodic: now += interval_ps; break;
        case ArrivalProcess::Kind::Poisson: now += -std::log(uniform()) * interval_ps; break;
        case ArrivalProcess::Kind::Bursts:
          now += i % std::max(1u, p.burst) == 0 ? interval_ps - double(std::max(1u, p.burst) - 1) * p.burst_gap_ns * 1e3
                                                : p.burst_gap_ns * 1e3;
          break;
      }
    t.push_back(uint64_t(std::llround(now)));
  }
  return t;
}

struct Context::EventKernel {
  Kernel kernel;
  LaunchBackend::RegisteredEvent reg;
};

Doorbell Context::register_event(const Kernel& k, Dim3 grid, Dim3 block, uint64_t dyn_smem, uint32_t max_in_flight) {
  check_launch(k, grid, block, dyn_smem, "event registration");
  if (max_in_flight == 0 || max_in_flight > 65536)
    throw ApiError(fmt::format("event registration of {}: max_in_flight {} is not in 1..65536", k.name(),
                               max_in_flight));
  Doorbell d;
  d.param_bytes = uint32_t(k.function().param_bytes);
  d.slots = max_in_flight;
  d.submission_queue = malloc(uint64_t(std::max(1u, d.param_bytes)) * max_in_flight);
  d.completion_queue = malloc(uint64_t(4) * max_in_flight);
  auto e = std::make_shared<EventKernel>(EventKernel{k, {this, nullptr, grid, block, dyn_smem, d}});
  e->reg.kernel = &e->kernel;
  e->reg.bell.id = dev_.backend().register_event(e->reg);
  d = e->reg.bell;
  event_kernels_.push_back(std::move(e));
  return d;
}

const Context::EventKernel& Context::event_kernel(const Doorbell& d) const {
  for (const auto& e : event_kernels_)
    if (e->reg.bell.id == d.id && d.id != 0) return *e;
  throw ApiError(fmt::format("doorbell {} is not registered in context {}", d.id, name_));
}

void Context::unregister_event(const Doorbell& d) {
  const EventKernel& e = event_kernel(d);
  wait_events(d);
  dev_.backend().unregister_event(*this, d.id);
  free(e.reg.bell.submission_queue);
  free(e.reg.bell.completion_queue);
  std::erase_if(event_kernels_, [&](const auto& p) { return p.get() == &e; });
}

void Context::deliver_events(const Doorbell& d, const std::vector<KernelArgs>& blocks, const ArrivalProcess& p,
                             std::vector<EventPayload> payloads) {
  const EventKernel& e = event_kernel(d);
  if (!payloads.empty() && payloads.size() != blocks.size())
    throw ApiError(fmt::format("events of {}: {} payloads for {} parameter blocks (none or one per block)",
                               e.kernel.name(), payloads.size(), blocks.size()));
  std::vector<EventBlock> packed(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    try {
      packed[i].params = pack_arguments(e.kernel.function(), blocks[i]);
    } catch (const ApiError& err) {
      throw ApiError(fmt::format("event parameter block {} of {}: {}", i, e.kernel.name(), err.what()));
    }
    if (payloads.empty()) continue;
    EventPayload& pl = payloads[i];
    if (!pl.bytes.empty() && !mem_->translate(pl.dst, pl.bytes.size()))
      throw ApiError(fmt::format("event payload {} of {}: {}", i, e.kernel.name(),
                                 mem_->explain(pl.dst, pl.bytes.size())));
    packed[i].payload = std::move(pl);
  }
  call_in_order();
  dev_.backend().deliver_events(e.reg, std::move(packed), arrival_times_ps(p, blocks.size()));
}

void Context::wait_events(const Doorbell& d) {
  event_kernel(d);
  dev_.backend().wait_events(*this, d.id);
}

uint32_t LaunchBackend::register_event(const RegisteredEvent&) { return next_event_id_++; }

void LaunchBackend::deliver_events(const RegisteredEvent& e, std::vector<EventBlock> blocks,
                                   std::vector<uint64_t>) {
  const uint32_t one = 1;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const uint64_t slot = i % e.bell.slots;
    EventBlock& b = blocks[i];
    if (!b.payload.bytes.empty()) e.ctx->memory().write(b.payload.dst, b.payload.bytes.data(), b.payload.bytes.size());
    if (!b.params.empty())
      e.ctx->memory().write(e.bell.submission_queue + slot * e.bell.param_bytes, b.params.data(), b.params.size());
    Launch l{e.ctx, e.kernel, e.grid, e.block, e.dyn_smem, {}, std::move(b.params)};
    launch(l);
    synchronize(*e.ctx);
    e.ctx->memory().write(e.bell.completion_queue + slot * 4, &one, 4);
  }
}

}  // namespace gpumux::runtime
