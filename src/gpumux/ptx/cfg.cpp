#include "gpumux/ptx/cfg.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpumux::ptx {

namespace {

constexpr uint32_t kUndefined = 0xffffffffu;

bool ends_path(Opcode op) { return op == Opcode::Ret || op == Opcode::Exit || op == Opcode::Trap; }

bool is_terminator(const Instruction& in) {
  return in.guard == kNoReg && (in.op == Opcode::Bra || ends_path(in.op));
}

// Immediate post-dominators by the Cooper-Harvey-Kennedy iteration on the
// reverse CFG rooted at the virtual exit.
std::vector<uint32_t> post_dominators(const std::vector<BasicBlock>& blocks) {
  const uint32_t exit = uint32_t(blocks.size());
  std::vector<std::vector<uint32_t>> preds(exit + 1);
  for (uint32_t b = 0; b < exit; ++b)
    for (uint32_t s : blocks[b].succs) preds[s].push_back(b);

  // Postorder of the reverse graph (walking predecessors from the exit).
  std::vector<uint32_t> po(exit + 1, kUndefined), order;
  order.reserve(exit + 1);
  std::vector<std::pair<uint32_t, size_t>> stack{{exit, 0}};
  std::vector<char> seen(exit + 1, 0);
  seen[exit] = 1;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < preds[node].size()) {
      uint32_t p = preds[node][next++];
      if (!seen[p]) {
        seen[p] = 1;
        stack.emplace_back(p, 0);
      }
      continue;
    }
    po[node] = uint32_t(order.size());
    order.push_back(node);
    stack.pop_back();
  }

  std::vector<uint32_t> ipdom(exit + 1, kUndefined);
  ipdom[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po[a] < po[b]) a = ipdom[a];
      while (po[b] < po[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = order.size(); i-- > 0;) {
      uint32_t b = order[i];
      if (b == exit) continue;
      uint32_t best = kUndefined;
      for (uint32_t s : blocks[b].succs) {
        if (po[s] == kUndefined) s = exit;  // an endless loop: as if it led to the exit
        if (ipdom[s] == kUndefined) continue;
        best = best == kUndefined ? s : intersect(s, best);
      }
      if (best != ipdom[b]) {
        ipdom[b] = best;
        changed = true;
      }
    }
  }
  // Blocks that cannot reach an exit (endless loops) reconverge at the exit.
  for (uint32_t& d : ipdom)
    if (d == kUndefined) d = exit;
  ipdom.pop_back();
  return ipdom;
}

// Appends `ret` when the body can fall off its end or a label points past it.
void ensure_terminated(Function& f) {
  const uint32_t n = uint32_t(f.insts.size());
  bool needed = n == 0 || !is_terminator(f.insts.back());
  for (const Instruction& in : f.insts)
    if (in.op == Opcode::Bra && in.ops[0].imm >= n) needed = true;
  for (const auto& [name, target] : f.labels)
    if (target >= n) needed = true;
  if (!needed) return;
  Instruction ret;
  ret.op = Opcode::Ret;
  ret.line = n ? f.insts.back().line : f.line;
  if (n) {
    ret.src_file = f.insts.back().src_file;
    ret.src_line = f.insts.back().src_line;
  }
  f.insts.push_back(ret);
}

}  // namespace

Cfg build_cfg(const Function& f) {
  Cfg g;
  const uint32_t n = uint32_t(f.insts.size());
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (uint32_t i = 0; i < n; ++i) {
    const Instruction& in = f.insts[i];
    if (in.op == Opcode::Bra) {
      leader[std::min<uint64_t>(in.ops[0].imm, n)] = 1;
      leader[i + 1] = 1;
    } else if (ends_path(in.op)) {
      leader[i + 1] = 1;
    }
  }
  g.block_of.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (leader[i]) g.blocks.push_back(BasicBlock{i, i, {}});
    g.blocks.back().end = i + 1;
    g.block_of[i] = uint32_t(g.blocks.size() - 1);
  }
  const uint32_t exit = g.exit();
  auto block_at = [&](uint64_t inst) { return inst < n ? g.block_of[inst] : exit; };
  for (BasicBlock& b : g.blocks) {
    const uint32_t last = b.end - 1;
    const Instruction& in = f.insts[last];
    const bool guarded = in.guard != kNoReg;
    if (in.op == Opcode::Bra) {
      b.succs.push_back(block_at(in.ops[0].imm));
      if (guarded) b.succs.push_back(block_at(last + 1));
    } else if (ends_path(in.op)) {
      b.succs.push_back(exit);
      if (guarded) b.succs.push_back(block_at(last + 1));
    } else {
      b.succs.push_back(block_at(last + 1));
    }
    if (b.succs.size() == 2 && b.succs[0] == b.succs[1]) b.succs.pop_back();
  }
  g.ipdom = post_dominators(g.blocks);
  return g;
}

void analyze_reconvergence(Function& f) {
  ensure_terminated(f);
  const Cfg g = build_cfg(f);
  const uint32_t n = uint32_t(f.insts.size());
  for (uint32_t b = 0; b < g.blocks.size(); ++b) {
    Instruction& last = f.insts[g.blocks[b].end - 1];
    if (last.op != Opcode::Bra) continue;
    const uint32_t d = g.ipdom[b];
    last.reconv = d == g.exit() ? n : g.blocks[d].begin;
  }
}

void analyze_module(Module& m) {
  for (Function& f : m.functions) {
    if (f.is_extern) continue;
    const uint32_t n = uint32_t(f.insts.size());
    for (const Instruction& in : f.insts) {
      if (in.op == Opcode::Bra && in.ops[0].imm > n)
        throw LoadError(fmt::format("{}: branch target out of range", m.loc(in.line).str()));
      if (in.op != Opcode::Call || in.ops[0].kind != OperandKind::Func) continue;
      const Function& callee = m.functions.at(in.ops[0].sym);
      if (callee.is_entry)
        throw LoadError(fmt::format("{}: call to kernel '{}' (kernels cannot be called)",
                                    m.loc(in.line).str(), callee.name));
      if (in.call_args.size() != callee.params.size() || in.call_rets.size() != callee.rets.size())
        throw LoadError(fmt::format(
            "{}: call to '{}' passes {} argument(s) and {} return value(s), it declares {} and {}",
            m.loc(in.line).str(), callee.name, in.call_args.size(), in.call_rets.size(),
            callee.params.size(), callee.rets.size()));
    }
    analyze_reconvergence(f);
  }
}

}  // namespace gpumux::ptx
