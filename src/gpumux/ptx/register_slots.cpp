#include "gpumux/ptx/register_slots.h"

#include <bit>
#include <numeric>

#include "gpumux/ptx/liveness.h"

namespace gpumux::ptx {

namespace {

// Instructions that may read a register in lanes that do not execute them:
// every register of the warp-wide tensor instructions; the source (ops[1])
// of shfl and redux over the member lanes, and of match, kept alike.
bool reads_all_registers_across_lanes(Opcode op) {
  return op == Opcode::Mma || op == Opcode::Ldmatrix || op == Opcode::Wmma;
}
bool reads_source_across_lanes(const Instruction& in) {
  return (in.op == Opcode::Shfl || in.op == Opcode::Redux || in.op == Opcode::Match) && in.nops > 1 &&
         in.ops[1].kind == OperandKind::Reg;
}

// Symmetric interference relation as a bit matrix, one row per register.
class Interference {
 public:
  explicit Interference(uint32_t n) : words_((n + 63) / 64), bits_(size_t(n) * words_, 0) {}
  void add(uint32_t a, uint32_t b) {
    if (a == b) return;
    set(a, b);
    set(b, a);
  }
  // Adds a -- r for every r in `live`.
  void add_all(uint32_t a, const RegBits& live) {
    for (size_t w = 0; w < words_; ++w)
      for (uint64_t m = live[w]; m; m &= m - 1) add(a, uint32_t(w * 64 + unsigned(std::countr_zero(m))));
  }
  const uint64_t* row(uint32_t r) const { return &bits_[size_t(r) * words_]; }
  size_t words() const { return words_; }

 private:
  void set(uint32_t a, uint32_t b) { bits_[size_t(a) * words_ + b / 64] |= uint64_t(1) << (b % 64); }
  size_t words_;
  std::vector<uint64_t> bits_;
};

}  // namespace

RegisterSlots one_slot_each(const Function& f) {
  RegisterSlots s;
  s.slot.resize(f.num_regs);
  std::iota(s.slot.begin(), s.slot.end(), uint16_t(0));
  s.types = f.reg_types;
  return s;
}

RegisterSlots assign_register_slots(const Function& f) {
  const uint32_t n = f.num_regs;
  if (n == 0 || n > kMaxSlotSharingRegisters || f.insts.empty()) return one_slot_each(f);
  const BlockLiveness bl = block_liveness(f);
  Interference g(n);
  std::vector<char> own(n, 0);  // registers that keep a slot of their own
  std::vector<uint32_t> uses, defs;
  for (size_t b = 0; b < bl.cfg.blocks.size(); ++b) {
    RegBits live = bl.live_out[b];
    for (uint32_t i = bl.cfg.blocks[b].end; i-- > bl.cfg.blocks[b].begin;) {
      const Instruction& in = f.insts[i];
      uses_and_defs(in, uses, defs);
      if (reads_all_registers_across_lanes(in.op)) {
        for (uint32_t r : uses) own[r] = 1;
        for (uint32_t r : defs) own[r] = 1;
      } else if (reads_source_across_lanes(in)) {
        own[in.ops[1].reg] = 1;
      }
      for (uint32_t d : defs) {
        g.add_all(d, live);  // a dead result is still written
        for (uint32_t e : defs) g.add(d, e);
        for (uint32_t u : uses) g.add(d, u);
      }
      if (in.guard == kNoReg)
        for (uint32_t d : defs) live[d / 64] &= ~(uint64_t(1) << (d % 64));
      for (uint32_t u : uses) live[u / 64] |= uint64_t(1) << (u % 64);
    }
  }
  // Greedy in register order: the lowest slot of the same type that holds
  // no interfering register.
  RegisterSlots s;
  s.slot.assign(n, 0);
  std::vector<char> slot_own;
  std::vector<uint32_t> taken;  // slot -> r + 1 while placing r, if a neighbour of r holds it
  for (uint32_t r = 0; r < n; ++r) {
    const uint64_t* row = g.row(r);
    for (size_t w = 0; w * 64 < r; ++w)
      for (uint64_t m = row[w]; m; m &= m - 1) {
        uint32_t q = uint32_t(w * 64 + unsigned(std::countr_zero(m)));
        if (q < r) taken[s.slot[q]] = r + 1;
      }
    uint32_t pick = uint32_t(s.types.size());
    if (!own[r])
      for (uint32_t k = 0; k < s.types.size(); ++k)
        if (!slot_own[k] && s.types[k] == f.reg_types[r] && taken[k] != r + 1) {
          pick = k;
          break;
        }
    if (pick == s.types.size()) {
      s.types.push_back(f.reg_types[r]);
      slot_own.push_back(own[r]);
      taken.push_back(0);
    }
    s.slot[r] = uint16_t(pick);
  }
  return s;
}

void rename_to_slots(Function& f, const RegisterSlots& s) {
  auto rename = [&](Operand& o) {
    if (o.kind == OperandKind::Reg || (o.kind == OperandKind::Addr && o.reg != kNoReg)) o.reg = s.slot[o.reg];
    if (o.kind == OperandKind::Vec && !o.vec_is_pred)
      for (unsigned k = 0; k < o.vcount; ++k)
        if (o.vec[k] != kNoReg) o.vec[k] = s.slot[o.vec[k]];
  };
  for (Instruction& in : f.insts) {
    for (unsigned i = 0; i < in.nops; ++i) rename(in.ops[i]);
    for (Operand& o : in.call_args) rename(o);
    for (Operand& o : in.call_rets) rename(o);
  }
  std::vector<std::string> names(s.types.size());
  for (uint32_t r = 0; r < f.num_regs; ++r) {
    std::string& n = names[s.slot[r]];
    n += n.empty() ? f.reg_names[r] : "/" + f.reg_names[r];
  }
  f.num_regs = uint32_t(s.types.size());
  f.reg_types = s.types;
  f.reg_names = std::move(names);
}

}  // namespace gpumux::ptx
