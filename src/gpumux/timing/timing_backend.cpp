#include "gpumux/timing/timing_backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpumux/exec/device_launch.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/frontend/policies/common.h"
#include "gpumux/sm/device_addresses.h"

namespace gpumux::timing {

TimingBackend::TimingBackend(const GpuConfig& cfg, std::unique_ptr<frontend::SharingPolicy> policy)
    : gpu_(cfg, std::move(policy)) {}

TimingBackend::~TimingBackend() = default;

const sm::ModuleTiming& TimingBackend::timing_of(const runtime::Context& ctx, const exec::LoadedModule& m) {
  TimingEntry& e = timings_[&m];
  if (!e.timing) e = {&ctx, std::make_unique<sm::ModuleTiming>(m, gpu_.config().sm)};
  return *e.timing;
}

void TimingBackend::launch(Launch& l) {
  throw_if_faulted(*l.ctx);
  auto k = make_kernel(l);
  std::optional<Cycle> latency;
  if (l.path == runtime::LaunchPath::GraphNode) latency = gpu_.config().frontend.graph_launch_latency;
  launches_[l.ctx].push_back(gpu_.dispatcher().enqueue(std::move(k), l.stream.id, l.kernel->name(), latency));
}

std::string TimingBackend::launch_from_device(Launch& l, const exec::DeviceLaunchRequest& r) {
  std::unique_ptr<sm::KernelInstance> k;
  try {
    k = make_kernel(l);
  } catch (const ApiError& e) {
    return e.what();
  }
  k->grid.depth = r.parent->depth + 1;
  launches_[l.ctx].push_back(
      gpu_.dispatcher().enqueue_child(std::move(k), *r.parent, r.parent_tb, r.stream, l.kernel->name()));
  return {};
}

std::unique_ptr<sm::KernelInstance> TimingBackend::make_kernel(const Launch& l) {
  const SmParams& sp = gpu_.config().sm;
  const exec::LoadedModule& mod = l.kernel->module();
  const std::string& name = l.kernel->name();
  uint32_t app = l.ctx->app();
  auto num = kernel_numbers_.try_emplace({app, name}, uint32_t(kernel_numbers_.size())).first->second;

  auto k = std::make_unique<sm::KernelInstance>();
  k->id = next_launch_++;
  k->app = app;
  k->label = l.ctx->name() + "." + name;
  k->priority = l.ctx->priority() + l.stream.priority;
  k->warp_budget = l.ctx->warp_budget();
  if (const std::vector<bool>* sms = l.ctx->stream_sms(l.stream)) k->sms = *sms;
  k->key = gpu_.keys().key(app, num, k->label);
  exec::GridLaunch& g = k->grid;
  g.module = &mod;
  g.kernel = l.kernel->index();
  g.grid = {l.grid.x, l.grid.y, l.grid.z};
  g.block = {l.block.x, l.block.y, l.block.z};
  g.dyn_smem = l.dyn_smem;
  g.params = l.params;
  g.mem = &l.ctx->memory();
  g.builtins = &l.ctx->builtin_services();
  g.grid_id = k->id + 1;
  g.num_sms = gpu_.num_sms();
  g.max_local_per_thread = l.ctx->device().limits().max_local_bytes_per_thread;
  k->timing = &timing_of(*l.ctx, mod);

  const exec::KernelLayout& kl = mod.kernel(g.kernel);
  sm::TbNeeds& n = k->needs;
  n = sm::tb_needs(kl, g.threads_per_tb(), g.dyn_smem, sp);
  if (n.warps > sp.warp_slots || n.threads > sp.max_threads || n.shared_bytes > sp.shared_mem_bytes)
    throw ApiError(fmt::format("launch of {}: a TB of {} threads and {} B shared memory never fits an SM of "
                               "the {} config ({} threads, {} B shared memory)",
                               name, n.threads, n.shared_bytes, gpu_.config().gpu.name, sp.max_threads,
                               sp.shared_mem_bytes));
  if (l.grid_sync) {
    // Spinning TBs at a grid barrier wait forever for TBs that cannot be dispatched.
    uint64_t per_sm = frontend::policy::tbs_per_empty_sm(*k, sp), fit = per_sm * gpu_.num_sms();
    if (g.num_tbs() > fit)
      throw ApiError(fmt::format("cooperative launch of {}: {} TBs, but at most {} ({} per SM x {} SMs) are resident "
                                 "at once on the {} config",
                                 name, g.num_tbs(), fit, per_sm, gpu_.num_sms(), gpu_.config().gpu.name));
    g.grid_sync = l.grid_sync;
  }
  if (double x = app < issue_rates_.size() ? issue_rates_[app] : 0; x > 0)
    k->fair_weight = float(x * sp.sub_cores / (double(frontend::policy::tbs_per_empty_sm(*k, sp)) * n.warps));
  return k;
}

uint32_t TimingBackend::register_event(const RegisteredEvent& e) {
  // The EKT entry keeps what the factory needs; the Kernel lives in the context's registration.
  RegisteredEvent reg = e;
  auto make = [this, reg](std::vector<uint8_t> params) {
    Launch l{reg.ctx, reg.kernel, reg.grid, reg.block, reg.dyn_smem, {}, std::move(params)};
    return make_kernel(l);
  };
  Launch probe{e.ctx, e.kernel, e.grid, e.block, e.dyn_smem, {}, {}};
  make_kernel(probe);  // refuses a TB that never fits an SM now, not at the first event
  return gpu_.events().register_kernel(e.ctx->app(), e.ctx->name() + "." + e.kernel->name(), make,
                                       e.ctx->memory(), e.bell);
}

void TimingBackend::unregister_event(runtime::Context&, uint32_t id) { gpu_.events().unregister_kernel(id); }

void TimingBackend::deliver_events(const RegisteredEvent& e, std::vector<runtime::EventBlock> blocks,
                                   std::vector<uint64_t> arrivals_ps) {
  throw_if_faulted(*e.ctx);
  gpu_.events().deliver(e.bell.id, std::move(blocks), arrivals_ps);
}

void TimingBackend::wait_events(runtime::Context& ctx, uint32_t id) {
  frontend::EventEngine& ev = gpu_.events();
  wait([&] { return ev.idle(id); });
  if (std::exception_ptr f = ev.fault(id); f && !faults_.count(&ctx)) faults_[&ctx] = f;
  throw_if_faulted(ctx);
}

void TimingBackend::wait(const std::function<bool()>& ready) {
  if (waiter_)
    waiter_->wait_until(ready);
  else
    gpu_.run_until(ready);
}

void TimingBackend::synchronize(runtime::Context& ctx) {
  uint32_t app = ctx.app();
  wait([&] { return gpu_.dispatcher().app_idle(app); });
  // Every launch of ctx is done now: keep the first fault (sticky), forget the rest.
  auto it = launches_.find(&ctx);
  if (it != launches_.end()) {
    for (size_t r : it->second) {
      const frontend::KernelRecord& rec = gpu_.dispatcher().records()[r];
      if (rec.fault && !faults_.count(&ctx)) faults_[&ctx] = rec.fault;
    }
    launches_.erase(it);
  }
  throw_if_faulted(ctx);
}

void TimingBackend::throw_if_faulted(const runtime::Context& ctx) {
  auto it = faults_.find(&ctx);
  if (it != faults_.end()) std::rethrow_exception(it->second);
}

void TimingBackend::transfer(runtime::Context& ctx, runtime::Transfer kind, uint64_t bytes) {
  using runtime::Transfer;
  frontend::CopyDir dir = kind == Transfer::HostToDevice   ? frontend::CopyDir::HostToDevice
                          : kind == Transfer::DeviceToHost ? frontend::CopyDir::DeviceToHost
                                                           : frontend::CopyDir::DeviceToDevice;
  frontend::CopyEngine& ce = gpu_.copy_engine();
  uint64_t id = ce.submit(ctx.app(), dir, bytes, ctx.priority());
  wait([&] { return ce.done(id); });
}

StatKey TimingBackend::host_key(const runtime::Context& ctx) {
  const char* kName = "(host)";  // no kernel has this name
  auto num = kernel_numbers_.try_emplace({ctx.app(), kName}, uint32_t(kernel_numbers_.size())).first->second;
  return gpu_.keys().key(ctx.app(), num, ctx.name() + ".host");
}

void TimingBackend::paging(runtime::Context& ctx, const runtime::Paging& p) {
  mem::Mmu* mmu = gpu_.memory().mmu();
  if (!mmu || !gpu_.config().vm.demand_paging) return;
  using Kind = runtime::Paging::Kind;
  const uint64_t addr = sm::application_base(ctx.app()) + p.base;
  mem::Mmu::Migration moved;
  switch (p.kind) {
    case Kind::ManagedOnly: gpu_.paged_data().managed_only(ctx.app()); return;
    case Kind::Managed:
      gpu_.paged_data().add_managed(addr, p.bytes);
      mmu->release(addr, p.bytes);  // units already looked up as device data are looked up again
      return;
    case Kind::HostWrote: moved = mmu->host_wrote(addr, p.bytes, host_key(ctx)); break;
    case Kind::Copied:
      moved = gpu_.config().vm.copies_resident ? mmu->copied(addr, p.bytes, host_key(ctx))
                                               : mmu->host_wrote(addr, p.bytes, host_key(ctx));
      break;
    case Kind::Set:
      // With explicit copies a memset is device work: the first touch of a
      // unit never allocated is the kernels' allocation-only fault.
      if (gpu_.config().vm.copies_resident) return;
      moved = mmu->host_wrote(addr, p.bytes, host_key(ctx));
      break;
    case Kind::PrefetchToDevice: moved = mmu->prefetch(addr, p.bytes, false, host_key(ctx)); break;
    case Kind::PrefetchToHost: moved = mmu->prefetch(addr, p.bytes, true, host_key(ctx)); break;
    case Kind::ReadMostly: mmu->set_read_mostly(addr, p.bytes, true); return;
    case Kind::NotReadMostly: mmu->set_read_mostly(addr, p.bytes, false); return;
  }
  // Written-back units leave first: their frames make room for the others.
  if (moved.to_host) transfer(ctx, runtime::Transfer::DeviceToHost, moved.to_host);
  if (moved.to_device) transfer(ctx, runtime::Transfer::HostToDevice, moved.to_device);
}

void TimingBackend::released(runtime::Context& ctx, runtime::DevPtr base, uint64_t bytes) {
  mem::Mmu* mmu = gpu_.memory().mmu();
  if (!mmu || !gpu_.config().vm.demand_paging) return;
  const uint64_t addr = sm::application_base(ctx.app()) + base;
  gpu_.paged_data().remove_managed(addr);
  mmu->release(addr, bytes);
}

void TimingBackend::release(runtime::Context& ctx) {
  gpu_.dispatcher().client_disconnected(ctx.app());
  std::erase_if(timings_, [&](const auto& e) { return e.second.ctx == &ctx; });
  faults_.erase(&ctx);
  launches_.erase(&ctx);
}

Cycle TimingBackend::busy_cycles() const {
  const auto& ks = kernels();
  if (ks.empty()) return 0;
  Cycle first = kNever, last = 0;
  for (const auto& k : ks) {
    first = std::min(first, k.activated);
    last = std::max(last, k.finished);
  }
  return last - first;
}

runtime::DeviceLimits limits_for(const GpuConfig& cfg) {
  runtime::DeviceLimits l;
  l.num_sms = cfg.gpu.num_sms;
  l.max_smem_per_block = std::min<uint64_t>(l.max_smem_per_block, cfg.sm.shared_mem_bytes);
  l.max_threads_per_block = std::min<uint32_t>(l.max_threads_per_block, cfg.sm.max_threads);
  return l;
}

std::unique_ptr<runtime::Device> make_device(const GpuConfig& cfg, std::unique_ptr<frontend::SharingPolicy> policy) {
  return std::make_unique<runtime::Device>(limits_for(cfg), std::make_unique<TimingBackend>(cfg, std::move(policy)));
}

TimingBackend& backend_of(runtime::Device& dev) { return dynamic_cast<TimingBackend&>(dev.backend()); }

}  // namespace gpumux::timing
