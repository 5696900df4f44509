// Control flow and synchronisation: bra, call, ret, exit, trap, bar, membar.
#include <bit>

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/loaded_module.h"
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

// call through a register (virtual functions, function pointers): lanes
// with different targets call one target at a time, lowest lane's first.
void call_indirect(StepContext& c, const ptx::Instruction& in) {
  const LoadedModule& mod = *c.warp->tb().launch().module;
  const unsigned first = unsigned(std::countr_zero(c.mask));
  const uint64_t target = c.src(in.ops[0], first);
  uint32_t same = 0;
  for_each_lane(c.mask, [&](unsigned l) { same |= uint32_t(c.src(in.ops[0], l) == target) << l; });
  const uint64_t index = target - kFunctionAddressBase;
  if (target < kFunctionAddressBase || index >= mod.ir().functions.size())
    c.fault(fmt::format("indirect call to 0x{:x}, which is not the address of a function", target), first);
  const ptx::Function& fn = mod.ir().functions[index];
  if (fn.is_entry || fn.is_extern)
    c.fault(fmt::format("indirect call to {} {}", fn.is_entry ? "kernel" : "external function", fn.name), first);
  if (fn.params.size() != in.call_args.size() || fn.rets.size() != in.call_rets.size())
    c.fault(fmt::format("indirect call to {} with {} argument(s) and {} return value(s); it takes {} and returns {}",
                        fn.name, in.call_args.size(), in.call_rets.size(), fn.params.size(), fn.rets.size()),
            first);
  if (same != c.mask) c.warp->defer_call(c.mask & ~same);
  c.warp->call(in, same, uint32_t(index));
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

ptx::ExecHandler bind_control(const ptx::Instruction& in, std::string&) {
  using ptx::Opcode;
  switch (in.op) {
    case Opcode::Bra: return &bra;
    case Opcode::Call:
      return in.ops[0].kind == ptx::OperandKind::Func ? &call : &call_indirect;
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
