#include "gpumux/runtime/functional_backend.h"

#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/thread_block.h"

namespace gpumux::runtime {

void FunctionalBackend::launch(Launch& l) {
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
  if (observer_) return run_observed(*l.ctx, l.stream, g);
  for (uint64_t t = 0; t < g.num_tbs(); ++t) {
    exec::ThreadBlock tb(g, g.tb_coords(t), uint32_t(t % num_sms_));
    warp_insts_ += tb.run_to_completion();
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
