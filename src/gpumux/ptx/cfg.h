// Control-flow analysis of PTX functions: basic blocks, successors and
// immediate post-dominators, which give every branch its reconvergence point
// (where a SIMT stack rejoins the lanes that diverged at the branch).
#pragma once

#include <cstdint>
#include <vector>

#include "gpumux/ptx/ir.h"

namespace gpumux::ptx {

struct BasicBlock {
  uint32_t begin = 0, end = 0;   // instruction range [begin, end)
  std::vector<uint32_t> succs;   // block indices; Cfg::exit() for the virtual exit
};

struct Cfg {
  std::vector<BasicBlock> blocks;
  std::vector<uint32_t> block_of;  // instruction index -> block index
  // Immediate post-dominator of each block (exit() when it is the virtual
  // exit, which joins every ret/exit/trap and every block that cannot reach one).
  std::vector<uint32_t> ipdom;
  uint32_t exit() const { return uint32_t(blocks.size()); }
};

// Builds the CFG of a function whose body ends with a control transfer (see
// analyze_reconvergence). A bra ends a block (guarded: two successors),
// ret/exit/trap lead to the virtual exit (guarded: also fall through), a
// branch target starts a block.
Cfg build_cfg(const Function& f);

// Appends an implicit `ret` when the body can fall off its end (or a label
// points past the last instruction), then sets Instruction::reconv of every
// bra to the first instruction of its block's immediate post-dominator, or to
// insts.size() when that is the virtual exit.
void analyze_reconvergence(Function& f);

// Checks what the parser cannot check alone and analyses every defined
// function: call targets are device functions (not kernels) called with as
// many arguments and return values as they declare, branch targets are in
// range. Throws LoadError "file:line: message".
void analyze_module(Module& m);

}  // namespace gpumux::ptx
