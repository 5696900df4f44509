#include "gpumux/ptx/resources.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <unordered_map>

#include "gpumux/ptx/cfg.h"
#include "gpumux/ptx/liveness.h"

namespace gpumux::ptx {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

uint32_t function_index(const Module& m, const Function& f) {
  if (m.functions.empty() || &f < m.functions.data() || &f >= m.functions.data() + m.functions.size())
    throw std::invalid_argument("function is not part of the module");
  return uint32_t(&f - m.functions.data());
}

// Functions an instruction may call: the direct callee, or for a call
// through a register every function whose address the module takes.
class CallGraph {
 public:
  explicit CallGraph(const Module& m) : callees_(m.functions.size()) {
    std::vector<uint32_t> address_taken;
    for (const Function& f : m.functions)
      for (const Instruction& in : f.insts)
        if (in.op == Opcode::Mov && in.ops[1].kind == OperandKind::Func) address_taken.push_back(in.ops[1].sym);
    for (uint32_t i = 0; i < m.functions.size(); ++i) {
      auto& out = callees_[i];
      for (const Instruction& in : m.functions[i].insts) {
        if (in.op != Opcode::Call) continue;
        if (in.ops[0].kind == OperandKind::Func) out.push_back(in.ops[0].sym);
        else out.insert(out.end(), address_taken.begin(), address_taken.end());
      }
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  }
  const std::vector<uint32_t>& callees(uint32_t f) const { return callees_[f]; }

  // Functions reachable from `root` (root included), in ascending index order.
  std::vector<uint32_t> reachable(uint32_t root) const {
    std::vector<char> seen(callees_.size(), 0);
    std::vector<uint32_t> stack{root};
    seen[root] = 1;
    while (!stack.empty()) {
      uint32_t f = stack.back();
      stack.pop_back();
      for (uint32_t c : callees_[f])
        if (!seen[c]) {
          seen[c] = 1;
          stack.push_back(c);
        }
    }
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < seen.size(); ++i)
      if (seen[i]) out.push_back(i);
    return out;
  }

 private:
  std::vector<std::vector<uint32_t>> callees_;
};

// Bit set over register indices that keeps the number of 32-bit units it holds.
class LiveSet {
 public:
  LiveSet(size_t n, const std::vector<uint8_t>& units) : words_((n + 63) / 64, 0), units_(&units) {}
  bool has(uint32_t r) const { return (words_[r / 64] >> (r % 64)) & 1; }
  void add(uint32_t r) {
    if (has(r)) return;
    words_[r / 64] |= uint64_t(1) << (r % 64);
    count_ += (*units_)[r];
  }
  void remove(uint32_t r) {
    if (!has(r)) return;
    words_[r / 64] &= ~(uint64_t(1) << (r % 64));
    count_ -= (*units_)[r];
  }
  uint32_t units() const { return count_; }
  std::vector<uint64_t>& words() { return words_; }
  void recount() {
    count_ = 0;
    for (size_t w = 0; w < words_.size(); ++w)
      for (uint64_t bits = words_[w]; bits; bits &= bits - 1)
        count_ += (*units_)[w * 64 + unsigned(std::countr_zero(bits))];
  }

 private:
  std::vector<uint64_t> words_;
  const std::vector<uint8_t>* units_;
  uint32_t count_ = 0;
};

// Live registers of one function: per instruction, the 32-bit register units
// live before it (what a context switch at that pc must keep), and the peak
// over the function including results written but never read.
struct Liveness {
  std::vector<uint32_t> before;
  uint32_t peak = 0;
};

Liveness analyse_liveness(const Function& f) {
  Liveness out;
  out.before.assign(f.insts.size(), 0);
  if (f.insts.empty() || f.num_regs == 0) return out;
  std::vector<uint8_t> units(f.num_regs);
  for (uint32_t r = 0; r < f.num_regs; ++r) units[r] = type_size(f.reg_types[r]) > 4 ? 2 : 1;
  const BlockLiveness bl = block_liveness(f);
  const Cfg& g = bl.cfg;
  std::vector<uint32_t> uses, defs;
  // Walk each block backwards from its live-out set.
  for (size_t b = 0; b < g.blocks.size(); ++b) {
    LiveSet live(f.num_regs, units);
    live.words() = bl.live_out[b];
    live.recount();
    for (uint32_t i = g.blocks[b].end; i-- > g.blocks[b].begin;) {
      const Instruction& in = f.insts[i];
      uses_and_defs(in, uses, defs);
      uint32_t here = live.units();
      for (uint32_t r : defs)
        if (!live.has(r)) here += units[r];  // a dead result still needs a register
      out.peak = std::max(out.peak, here);
      if (in.guard == kNoReg)
        for (uint32_t r : defs) live.remove(r);
      for (uint32_t r : uses) live.add(r);
      out.before[i] = live.units();
    }
    out.peak = std::max(out.peak, live.units());
  }
  return out;
}

}  // namespace

std::vector<uint32_t> live_units_before(const Function& f) { return analyse_liveness(f).before; }

namespace {

// Per-function requirement including everything the function can call.
struct Totals {
  uint32_t units = 0;
  uint64_t local_bytes = 0;
};

class TotalsWalker {
 public:
  TotalsWalker(const Module& m, const CallGraph& cg) : m_(m), cg_(cg), state_(m.functions.size(), 0), totals_(m.functions.size()) {}

  // Depth-first over the call graph with an explicit stack (call chains in
  // generated or hostile PTX can be long).
  Totals visit(uint32_t root) {
    if (state_[root] == 2) return totals_[root];
    struct Frame {
      uint32_t f;
      size_t next;    // next callee to look at
      Totals t;       // own needs, max'd with the callees' registers
      uint64_t deepest;  // deepest callee stack
    };
    std::vector<Frame> stack;
    auto own = [&](uint32_t f) { return Totals{own_units(f), m_.functions[f].local_bytes}; };
    auto enter = [&](uint32_t f) {
      state_[f] = 1;
      stack.push_back(Frame{f, 0, own(f), 0});
    };
    auto absorb = [](Frame& fr, const Totals& callee) {
      fr.t.units = std::max(fr.t.units, callee.units);
      fr.deepest = std::max(fr.deepest, callee.local_bytes);
    };
    enter(root);
    for (;;) {
      Frame& fr = stack.back();
      const std::vector<uint32_t>& callees = cg_.callees(fr.f);
      if (fr.next < callees.size()) {
        const uint32_t c = callees[fr.next++];
        if (state_[c] == 0) {
          enter(c);
        } else if (state_[c] == 1) {  // a cycle: count this activation once
          recursion = true;
          absorb(fr, own(c));
        } else {
          absorb(fr, totals_[c]);
        }
        continue;
      }
      Totals t = fr.t;
      t.local_bytes += fr.deepest;
      state_[fr.f] = 2;
      totals_[fr.f] = t;
      stack.pop_back();
      if (stack.empty()) return t;
      absorb(stack.back(), t);
    }
  }

  bool recursion = false;

 private:
  uint32_t own_units(uint32_t f) {
    if (!own_.count(f)) own_[f] = analyse_liveness(m_.functions[f]).peak;
    return own_[f];
  }

  const Module& m_;
  const CallGraph& cg_;
  std::vector<uint8_t> state_;  // 0 unvisited, 1 on the current path, 2 done
  std::vector<Totals> totals_;
  std::unordered_map<uint32_t, uint32_t> own_;
};

void mark_shared_use(const Module& m, const Operand& o, std::vector<char>& used) {
  if ((o.kind == OperandKind::Symbol || o.kind == OperandKind::Addr) && o.scope == SymScope::Module &&
      o.sym < m.globals.size() && m.globals[o.sym].space == Space::Shared)
    used[o.sym] = 1;
}

}  // namespace

SharedLayout layout_shared(const Module& m, const Function& kernel) {
  const uint32_t root = function_index(m, kernel);
  const CallGraph cg(m);
  const std::vector<uint32_t> funcs = cg.reachable(root);
  SharedLayout l;
  l.module_offset.assign(m.globals.size(), kNoSharedOffset);
  l.local_offset.resize(m.functions.size());
  for (uint32_t f = 0; f < m.functions.size(); ++f)
    l.local_offset[f].assign(m.functions[f].locals.size(), kNoSharedOffset);

  std::vector<char> used(m.globals.size(), 0);
  bool reads_reserved = false;
  for (uint32_t f : funcs)
    for (const Instruction& in : m.functions[f].insts)
      for (unsigned i = 0; i < in.nops; ++i) {
        mark_shared_use(m, in.ops[i], used);
        const SpecialReg r = in.ops[i].kind == OperandKind::Special ? in.ops[i].sreg : SpecialReg::None;
        reads_reserved |= r == SpecialReg::ReservedSmemBegin || r == SpecialReg::ReservedSmemEnd ||
                          r == SpecialReg::ReservedSmemCap || r == SpecialReg::ReservedSmemOffset;
      }

  uint64_t off = 0, dyn_align = 16;
  for (uint32_t g = 0; g < m.globals.size(); ++g) {
    const Variable& v = m.globals[g];
    if (v.space != Space::Shared) continue;
    if (v.is_extern) {
      dyn_align = std::max<uint64_t>(dyn_align, v.align);
      l.uses_dynamic |= used[g] != 0;
      continue;
    }
    if (!used[g]) continue;
    off = align_up(off, v.align);
    l.module_offset[g] = off;
    off += v.size;
  }
  for (uint32_t f : funcs) {
    const Function& fn = m.functions[f];
    for (uint32_t i = 0; i < fn.locals.size(); ++i) {
      if (fn.locals[i].space != Space::Shared) continue;
      off = align_up(off, fn.locals[i].align);
      l.local_offset[f][i] = off;
      off += fn.locals[i].size;
    }
  }
  l.static_bytes = off;
  if (reads_reserved) {
    l.reserved_offset = align_up(off, 16);
    off = l.reserved_offset + kReservedSmemBytes;
  }
  l.dynamic_offset = align_up(off, dyn_align);
  for (uint32_t g = 0; g < m.globals.size(); ++g)
    if (m.globals[g].space == Space::Shared && m.globals[g].is_extern) l.module_offset[g] = l.dynamic_offset;
  return l;
}

KernelResources estimate_resources(const Module& m, const Function& kernel) {
  const uint32_t root = function_index(m, kernel);
  const CallGraph cg(m);
  TotalsWalker walker(m, cg);
  const Totals t = walker.visit(root);
  const SharedLayout smem = layout_shared(m, kernel);
  KernelResources r;
  r.registers = uint32_t(std::clamp<uint64_t>(align_up(t.units, 8), 16, 255));
  r.static_smem = smem.static_bytes;
  r.dynamic_smem = smem.uses_dynamic;
  r.local_bytes = t.local_bytes;
  r.recursion = walker.recursion;
  r.param_bytes = kernel.param_bytes;
  return r;
}

}  // namespace gpumux::ptx
