#include "gpumux/exec/thread_block.h"

#include <bit>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/core/popcount.h"
#include "gpumux/exec/loaded_module.h"

namespace gpumux::exec {

const ptx::Function& GridLaunch::function() const { return module->function(kernel); }

Dim GridLaunch::tb_coords(uint64_t linear) const {
  return Dim{uint32_t(linear % grid[0]), uint32_t(linear / grid[0] % grid[1]),
             uint32_t(linear / (uint64_t(grid[0]) * grid[1]))};
}

ThreadBlock::ThreadBlock(const GridLaunch& launch, Dim ctaid, uint32_t smid)
    : launch_(&launch), ctaid_(ctaid), smid_(smid) {
  const KernelLayout& kl = launch.module->kernel(launch.kernel);
  static_smem_ = kl.shared.static_bytes;
  shared_.assign(kl.shared.dynamic_offset + launch.dyn_smem, 0);
  uint32_t threads = launch.threads_per_tb();
  live_threads_ = threads;
  uint32_t nwarps = launch.warps_per_tb();
  warps_.reserve(nwarps);
  for (uint32_t w = 0; w < nwarps; ++w) {
    uint32_t lanes = std::min<uint32_t>(kWarpSize, threads - w * kWarpSize);
    warps_.emplace_back(*this, w, lanes == kWarpSize ? kFullMask : (1u << lanes) - 1);
  }
}

ThreadBlock::ThreadBlock(const ThreadBlock& o)
    : launch_(o.launch_), ctaid_(o.ctaid_), smid_(o.smid_), clock_source_(o.clock_source_), static_smem_(o.static_smem_),
      live_threads_(o.live_threads_), shared_(o.shared_), warps_(o.warps_), bars_(o.bars_) {
  for (Warp& w : warps_) w.rebind(*this);
}

ThreadBlock& ThreadBlock::operator=(const ThreadBlock& o) {
  if (this == &o) return *this;
  launch_ = o.launch_;
  ctaid_ = o.ctaid_;
  smid_ = o.smid_;
  clock_source_ = o.clock_source_;
  static_smem_ = o.static_smem_;
  live_threads_ = o.live_threads_;
  shared_ = o.shared_;
  warps_ = o.warps_;
  bars_ = o.bars_;
  for (Warp& w : warps_) w.rebind(*this);
  return *this;
}

bool ThreadBlock::arrive(Warp& w, unsigned id, uint32_t threads, uint32_t lanes, bool wait,
                         const ptx::Instruction* red_inst, uint32_t red_true_lanes) {
  Barrier& b = bars_[id];
  if (b.arrived == 0) {
    b.expected = threads;
    b.op = red_inst ? red_inst->bred : ptx::RedOp::None;
    b.accum = b.op == ptx::RedOp::And ? 1u : 0u;
  } else if (threads != b.expected) {
    w.fault(fmt::format("barrier {} used with thread count {} while other warps wait with {}", id,
                        threads, b.expected),
            {});
  }
  b.arrived += uint32_t(gpumux::popcount(lanes));
  switch (b.op) {
    case ptx::RedOp::Popc: b.accum += uint32_t(gpumux::popcount(red_true_lanes & lanes)); break;
    case ptx::RedOp::And: b.accum &= (red_true_lanes & lanes) == lanes ? 1u : 0u; break;
    case ptx::RedOp::Or: b.accum |= (red_true_lanes & lanes) ? 1u : 0u; break;
    case ptx::RedOp::None: break;
  }
  if (wait) {
    w.wait_at_barrier();
    b.waiting.push_back(uint16_t(w.index()));
  }
  return try_release(id);
}

bool ThreadBlock::try_release(unsigned id) {
  Barrier& b = bars_[id];
  if (b.arrived == 0) return false;
  uint32_t need = b.expected ? b.expected : live_threads_;
  if (b.arrived < need) return false;
  b.result = b.accum;
  for (uint16_t wi : b.waiting) warps_[wi].release_from_barrier(b.result);
  b.waiting.clear();
  b.arrived = 0;
  return true;
}

void ThreadBlock::on_lanes_exited(uint32_t count) {
  live_threads_ -= count;
  for (unsigned id = 0; id < kNumBarriers; ++id) try_release(id);
}

std::string ThreadBlock::describe_waits() const {
  std::string s;
  for (unsigned id = 0; id < kNumBarriers; ++id) {
    const Barrier& b = bars_[id];
    if (!b.arrived) continue;
    s += fmt::format("barrier {}: {} of {} threads arrived, waiting warps:", id, b.arrived,
                     b.expected ? b.expected : live_threads_);
    for (uint16_t wi : b.waiting) s += fmt::format(" {}", wi);
    s += "; ";
  }
  for (const Warp& w : warps_)
    if (w.state() == WarpState::Ready)
      s += fmt::format("warp {} ready at pc {}; ", w.index(), w.pc());
  return s;
}

void ThreadBlock::check_stalled() const {
  const Warp* blocked = nullptr;
  for (const Warp& w : warps_)
    if (w.state() == WarpState::AtBarrier) {
      blocked = &w;
      break;
    }
  if (!blocked) return;  // all warps exited
  blocked->fault("barrier deadlock: no warp of the TB can make progress (" + describe_waits() + ")",
                 {});
}

void ThreadBlock::spin_deadlock() const {
  for (const Warp& w : warps_)
    if (w.ready())
      w.fault(fmt::format("wait deadlock: for {} rounds every running warp of the TB waited on an mbarrier "
                          "phase that no warp completes",
                          kMaxSpinRounds),
              {});
  std::abort();  // unreachable: a spinning warp is ready
}

}  // namespace gpumux::exec
