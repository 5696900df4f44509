// Shared by the front-end tests: the SMs of a configured GPU for policy
// arithmetic, fake kernels with chosen per-TB needs, a timing device of
// several applications under a sharing policy, and the CPU reference of the
// FMA-chain kernels (fma_chains in tests/timing/kernels, spin in
// tests/frontend/kernels).
#pragma once

#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpumux/frontend/sharing_policy.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::frontend::fixtures {

inline const std::string kTimingPtx = std::string(GPUMUX_SOURCE_DIR) + "/tests/timing/kernels/timing_tests.ptx";
inline const std::string kPreemptionPtx = std::string(GPUMUX_SOURCE_DIR) + "/tests/frontend/kernels/preemption_tests.ptx";

// The gtx980 configuration with `overrides`.
inline Config gtx980(std::vector<std::string> overrides) {
  return Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml", std::move(overrides));
}

// A GPU whose SMs the policies partition (gtx980: 64 warps, 32 TBs, 2048
// threads, 64K registers, 96 KB shared memory per SM).
struct Sms {
  explicit Sms(uint32_t n = 16) : config(gtx980({"gpu.num_sms=" + std::to_string(n)})), gpu(config.values()) {
    for (uint32_t i = 0; i < gpu.num_sms(); ++i) ptrs.push_back(&gpu.sm(i));
  }
  std::span<sm::Sm* const> span() const { return ptrs; }
  Config config;
  gpu::Gpu gpu;
  std::vector<sm::Sm*> ptrs;
};

// A kernel whose TBs have `threads` threads, `regs_per_thread` registers each
// and `smem` bytes of shared memory.
inline std::unique_ptr<sm::KernelInstance> kernel(uint32_t id, uint32_t threads, uint32_t regs_per_thread = 32,
                                                  uint32_t smem = 0, uint32_t app = 0, int priority = 0) {
  auto k = std::make_unique<sm::KernelInstance>();
  k->id = id;
  k->app = app;
  k->priority = priority;
  k->label = "app" + std::to_string(app) + ".k" + std::to_string(id);
  k->needs.threads = threads;
  k->needs.warps = (threads + 31) / 32;
  k->needs.registers = k->needs.warps * 32 * regs_per_thread;
  k->needs.shared_bytes = smem;
  return k;
}

// The SM ids on which k may place TBs.
inline std::vector<uint32_t> allowed(const SharingPolicy& p, const sm::KernelInstance& k,
                                     std::span<sm::Sm* const> sms) {
  std::vector<uint32_t> v;
  for (const sm::Sm* m : sms)
    if (p.quota(k, m->id()) > 0) v.push_back(m->id());
  return v;
}
inline std::vector<uint32_t> allowed(const SharingPolicy& p, const sm::KernelInstance& k, const Sms& s) {
  return allowed(p, k, s.span());
}

inline std::vector<uint32_t> range(uint32_t begin, uint32_t end) {
  std::vector<uint32_t> v;
  for (uint32_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

// A gtx980 timing device with `overrides` whose TBs are placed under
// `policy`, with one context per application, each with `ptx` loaded.
struct PolicyDevice {
  PolicyDevice(const std::string& policy, const PolicyOptions& o, std::vector<std::string> overrides, size_t apps,
               const std::string& ptx)
      : config(gtx980(std::move(overrides))), dev(timing::make_device(config.values(), make_sharing_policy(policy, o))) {
    for (size_t i = 0; i < apps; ++i) {
      ctx.push_back(&dev->create_context("app" + std::to_string(i)));
      mod.push_back(&ctx.back()->load_module_file(ptx));
    }
  }
  gpu::Gpu& gpu() { return timing::backend_of(*dev).gpu(); }
  TbDispatcher& dispatcher() { return gpu().dispatcher(); }
  const KernelRecord& record(size_t i) { return timing::backend_of(*dev).kernels().at(i); }
  // Simulates up to core cycle `c` (queued launches run meanwhile).
  void run_to_cycle(Cycle c) { gpu().engine().run_until(gpu().engine().clock(gpu().clocks().core).tick_of(c)); }
  // Launches `name` of app `app`'s module on a new stream of `priority`
  // with (out, iters) arguments; returns out.
  runtime::DevPtr launch(size_t app, const std::string& name, uint32_t tbs, uint32_t threads, int iters,
                         int priority = 0) {
    runtime::Context& c = *ctx[app];
    runtime::DevPtr out = c.malloc(uint64_t(tbs) * threads * 4);
    runtime::KernelArgs a;
    a.add(out).add(iters);
    c.launch(mod[app]->kernel(name), {tbs}, {threads}, 0, c.create_stream(priority), a);
    return out;
  }

  Config config;
  std::unique_ptr<runtime::Device> dev;
  std::vector<runtime::Context*> ctx;
  std::vector<runtime::Module*> mod;
};

// fma_chains and spin: 4 chains of `iters` fused multiply-adds from threadIdx.x.
inline float fma_reference(unsigned tid, int iters) {
  float a = float(tid), b = a + 1.f, c = a + 2.f, d = a + 3.f;
  for (int i = 0; i < iters; ++i) {
    a = std::fma(a, 0.999f, 0.5f);
    b = std::fma(b, 0.999f, 0.5f);
    c = std::fma(c, 0.999f, 0.5f);
    d = std::fma(d, 0.999f, 0.5f);
  }
  return a + b + c + d;
}

// Threads whose output differs from fma_reference(thread in its TB, iters) + tid * tid_weight.
inline size_t wrong_fma_results(const std::vector<float>& out, uint32_t threads, int iters, float tid_weight = 0) {
  size_t wrong = 0;
  for (size_t t = 0; t < out.size(); ++t) {
    unsigned tid = unsigned(t % threads);
    wrong += out[t] != fma_reference(tid, iters) + float(tid) * tid_weight;
  }
  return wrong;
}

}  // namespace gpumux::frontend::fixtures
