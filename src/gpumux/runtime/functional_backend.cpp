#include "gpumux/runtime/functional_backend.h"

#include <fmt/format.h>

#include "gpumux/exec/builtins/services.h"
#include "gpumux/exec/device_launch.h"
#include "gpumux/exec/loaded_module.h"

namespace gpumux::runtime {

exec::GridLaunch FunctionalBackend::make_grid(Launch& l) {
  exec::GridLaunch g;
  g.module = &l.kernel->module();
  g.kernel = l.kernel->index();
  g.grid = {l.grid.x, l.grid.y, l.grid.z};
  g.block = {l.block.x, l.block.y, l.block.z};
  g.dyn_smem = l.dyn_smem;
  g.params = std::move(l.params);
  g.mem = &l.ctx->memory();
  g.builtins = &l.ctx->builtin_services();
  g.grid_id = next_grid_id_++;
  g.num_sms = num_sms_;
  g.max_local_per_thread = l.ctx->device().limits().max_local_bytes_per_thread;
  return g;
}

void FunctionalBackend::launch(Launch& l) {
  if (l.grid_sync)  // a TB spinning at a grid barrier would wait forever for the TBs after it
    throw ApiError(fmt::format("cooperative launch of {}: the functional backend runs TBs one after another, so "
                               "they cannot wait for each other; use the timing model",
                               l.kernel->name()));
  try {
    run_grid(*l.ctx, l.stream, make_grid(l));
  } catch (...) {
    // A fault ends the whole launch tree: its queued children never run.
    children_.clear();
    l.ctx->builtin_services().pending_launches = 0;
    throw;
  }
}

std::string FunctionalBackend::launch_from_device(Launch& l, const exec::DeviceLaunchRequest& r) {
  Child c{make_grid(l), r.stream == exec::DeviceStream::TailLaunch};
  c.grid.depth = r.parent->depth + 1;
  children_[r.parent->grid_id].push_back(std::move(c));
  return {};
}

void FunctionalBackend::run_grid(const Context& ctx, Stream s, const exec::GridLaunch& g) {
  if (observer_) {
    run_observed(ctx, s, g);
  } else {
    for (uint64_t t = 0; t < g.num_tbs(); ++t) {
      exec::ThreadBlock tb(g, g.tb_coords(t), uint32_t(t % num_sms_));
      warp_insts_ += tb.run_to_completion();
    }
  }
  auto node = children_.extract(g.grid_id);
  if (node.empty()) return;
  for (bool tails : {false, true})
    for (const Child& c : node.mapped())
      if (c.tail == tails) {
        run_grid(ctx, s, c.grid);
        --g.builtins->pending_launches;
      }
}

void FunctionalBackend::run_observed(const Context& ctx, Stream s, const exec::GridLaunch& g) {
  InstructionObserver& o = *observer_;
  o.on_launch_begin(ctx, s, g);
  for (uint64_t t = 0; t < g.num_tbs(); ++t) {
    exec::ThreadBlock tb(g, g.tb_coords(t), uint32_t(t % num_sms_));
    for (exec::Warp& w : tb.warps()) w.set_record_memory(true);
    o.on_tb_begin(tb);
    warp_insts_ += tb.run_to_completion(
        [&](const exec::Warp& w, const ptx::Instruction& in, uint32_t mask) {
          o.on_instruction(w, in, mask, w.last_access());
        });
    o.on_tb_end(tb);
  }
  o.on_launch_end();
}

}  // namespace gpumux::runtime
