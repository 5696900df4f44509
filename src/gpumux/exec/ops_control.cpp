// Control flow and synchronisation: bra, call, ret, exit, trap, bar, membar.
#include <bit>

#include <fmt/format.h>

#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/thread_block.h"

namespace gpumux::exec {

namespace {

void bra(StepContext& c, const ptx::Instruction& in) {
  // c.mask holds the lanes whose guard is true: they take the branch.
  c.warp->branch(c.mask, uint32_t(in.ops[0].imm), in.reconv);
}

void call(StepContext& c, const ptx::Instruction& in) {
  c.warp->call(in, c.mask, in.ops[0].sym);
}

void ret(StepContext& c, const ptx::Instruction&) { c.warp->ret(c.mask); }

void exit_(StepContext& c, const ptx::Instruction&) { c.warp->exit_lanes(c.mask); }

void trap(StepContext& c, const ptx::Instruction& in) {
  c.fault(in.op == ptx::Opcode::Trap ? "trap instruction executed" : "brkpt instruction executed",
          unsigned(std::countr_zero(c.mask)));
}

void no_effect(StepContext&, const ptx::Instruction&) {}

// bar.sync/barrier.sync a{, b}; bar.arrive a, b; bar.red.op d, a{, b}, {!}c.
void bar(StepContext& c, const ptx::Instruction& in) {
  // bar.warp.sync: the lanes of a warp already execute in lockstep here.
  if (in.bar == ptx::BarKind::Warp) return;
  const bool red = in.bar == ptx::BarKind::Red;
  const unsigned o = red ? 1 : 0;  // bar.red has a destination first
  unsigned lane0 = unsigned(std::countr_zero(c.mask));
  uint64_t id = c.src(in.ops[o], lane0);
  if (id >= ThreadBlock::kNumBarriers) c.fault(fmt::format("barrier id {} out of range", id));
  uint32_t threads = 0;
  unsigned nsrc = in.nops - o;
  bool has_count = red ? nsrc == 3 : nsrc == 2;
  if (has_count) {
    threads = uint32_t(c.src(in.ops[o + 1], lane0));
    if (threads == 0 || threads % kWarpSize)
      c.fault(fmt::format("barrier thread count {} is not a positive multiple of 32", threads));
  }
  uint32_t true_lanes = 0;
  if (red) {
    const ptx::Operand& p = in.ops[in.nops - 1];
    for_each_lane(c.mask, [&](unsigned l) { true_lanes |= uint32_t(c.pred(p, l)) << l; });
    c.warp->set_pending_reduction(&in, c.mask);
  }
  bool wait = in.bar != ptx::BarKind::Arrive;
  c.warp->tb().arrive(*c.warp, unsigned(id), threads, c.mask, wait, red ? &in : nullptr,
                      true_lanes);
}

}  // namespace

ptx::ExecHandler bind_control(const ptx::Instruction& in, std::string& why) {
  using ptx::Opcode;
  switch (in.op) {
    case Opcode::Bra: return &bra;
    case Opcode::Call:
      if (in.ops[0].kind != ptx::OperandKind::Func) {
        why = "indirect calls through a register are not supported";
        return nullptr;
      }
      return &call;
    case Opcode::Ret: return &ret;
    case Opcode::Exit: return &exit_;
    case Opcode::Trap:
    case Opcode::Brkpt: return &trap;
    case Opcode::Membar:
    case Opcode::Nanosleep: return &no_effect;  // ordering/timing only: the timing model cares
    case Opcode::Bar: return &bar;
    default: return nullptr;
  }
}

}  // namespace gpumux::exec
