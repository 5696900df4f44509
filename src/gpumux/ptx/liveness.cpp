#include "gpumux/ptx/liveness.h"

#include "gpumux/ptx/inst_info.h"

namespace gpumux::ptx {

namespace {

void operand_regs(const Operand& o, std::vector<uint32_t>& out) {
  switch (o.kind) {
    case OperandKind::Reg: out.push_back(o.reg); break;
    case OperandKind::Addr:
      if (o.reg != kNoReg) out.push_back(o.reg);
      break;
    case OperandKind::Vec:
      if (o.vec_is_pred) break;  // predicate indices, not registers
      for (unsigned k = 0; k < o.vcount; ++k)
        if (o.vec[k] != kNoReg) out.push_back(o.vec[k]);
      break;
    default: break;
  }
}

}  // namespace

void uses_and_defs(const Instruction& in, std::vector<uint32_t>& uses, std::vector<uint32_t>& defs) {
  uses.clear();
  defs.clear();
  const bool dest = has_destination(in);
  for (unsigned i = 0; i < in.nops; ++i) operand_regs(in.ops[i], i == 0 && dest ? defs : uses);
  for (const Operand& o : in.call_args) operand_regs(o, uses);
  for (const Operand& o : in.call_rets) operand_regs(o, defs);
}

BlockLiveness block_liveness(const Function& f) {
  BlockLiveness out{build_cfg(f), {}};
  const Cfg& g = out.cfg;
  const size_t nb = g.blocks.size(), words = (f.num_regs + 63) / 64;
  // Upward-exposed uses and unconditional definitions per block.
  std::vector<RegBits> gen(nb, RegBits(words, 0)), kill = gen;
  std::vector<uint32_t> uses, defs;
  auto set = [](RegBits& s, uint32_t r) { s[r / 64] |= uint64_t(1) << (r % 64); };
  auto test = [](const RegBits& s, uint32_t r) { return (s[r / 64] >> (r % 64)) & 1; };
  for (size_t b = 0; b < nb; ++b) {
    for (uint32_t i = g.blocks[b].begin; i < g.blocks[b].end; ++i) {
      uses_and_defs(f.insts[i], uses, defs);
      for (uint32_t r : uses)
        if (!test(kill[b], r)) set(gen[b], r);
      if (f.insts[i].guard == kNoReg)
        for (uint32_t r : defs) set(kill[b], r);
    }
  }
  // live_in = gen | (live_out & ~kill), iterated to a fixed point.
  std::vector<RegBits> live_in(nb, RegBits(words, 0));
  out.live_out = live_in;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      RegBits& lo = out.live_out[b];
      for (uint32_t s : g.blocks[b].succs)
        if (s != g.exit())
          for (size_t w = 0; w < words; ++w) lo[w] |= live_in[s][w];
      for (size_t w = 0; w < words; ++w) {
        uint64_t in = gen[b][w] | (lo[w] & ~kill[b][w]);
        if (in != live_in[b][w]) {
          live_in[b][w] = in;
          changed = true;
        }
      }
    }
  }
  return out;
}

}  // namespace gpumux::ptx
