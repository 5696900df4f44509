// Replay of a recorded instruction stream (a trace) through the engine.
//
// A trace kernel is a module whose kernel function holds the static code of
// the trace, one instruction per traced PC, each with a representative PTX
// opcode (its timing class: the timing model's ModuleTiming classifies it like
// any instruction) and the recorded registers as operands (the scoreboard).
// The handlers bound to them do not compute: each reads the warp's next
// recorded line, reports the line's memory accesses, takes part in barriers,
// exits lanes, and moves the warp to the PC and lanes of its following line.
// So a replayed warp is an ordinary exec::Warp: the SMs, the preemption
// mechanisms and the functional backend run it unchanged.
//
// A warp's position in its stream is architectural state kept in a hidden
// register (ReplayKernel::state_reg, after the trace's registers): a context
// switch saves it with the registers, a flush restarts the stream from 0.
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/ptx/ir.h"

namespace gpumux::exec {

class Warp;

// One recorded warp instruction.
struct ReplayLine {
  static constexpr uint8_t kStore = 1, kAtomic = 2;
  uint32_t pc = 0;    // index of its static instruction in the kernel function
  uint32_t mask = 0;  // lanes that executed it (active and guard true)
  uint32_t addr = 0;  // memory lines: first of popcount(mask) addresses in ReplayKernel::addrs
  uint16_t bytes = 0;  // memory lines: bytes per lane
  ptx::Space space = ptx::Space::None;  // memory lines: where the lanes' addresses are; None: no access
  uint8_t flags = 0;  // kStore, kAtomic
};

struct ReplayKernel {
  uint32_t warps_per_tb = 1;
  // Hidden register of the kernel function: lane 0 the warp's next line,
  // lane 1 its live lanes, lane 2 its stream's index.
  uint16_t state_reg = 0;
  // Per warp of the grid (linear TB index x warps_per_tb + warp), in order.
  std::vector<std::vector<ReplayLine>> streams;
  std::vector<uint64_t> addrs;

  // Sets a new warp of a replayed kernel at its stream's first line (the
  // Warp constructor calls it); false if its stream is empty.
  bool start(Warp& w) const;
};

// The handler of a static instruction of a trace kernel, by its timing class
// (`in.op`: memory, barrier, exit or other work).
ptx::ExecHandler replay_handler(const ptx::Instruction& in);

}  // namespace gpumux::exec
