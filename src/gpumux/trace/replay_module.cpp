#include "gpumux/trace/replay_module.h"

#include <algorithm>

#include "gpumux/ptx/inst_info.h"

namespace gpumux::trace {

namespace {

ptx::Operand register_list(const std::vector<uint16_t>& regs) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Vec;
  o.vcount = uint8_t(std::min<size_t>(regs.size(), o.vec.size()));
  std::copy_n(regs.begin(), o.vcount, o.vec.begin());
  return o;
}

ptx::Instruction static_instruction(const StaticInst& s) {
  ptx::Instruction in = representative(s.info, s.opcode);
  // Destinations first where the representative has one (ModuleTiming's
  // convention); otherwise every recorded register is read.
  if (ptx::has_destination(in)) {
    in.ops[0] = register_list(s.dst);
    in.ops[1] = register_list(s.src);
    in.nops = 2;
  } else {
    std::vector<uint16_t> all = s.src;
    all.insert(all.end(), s.dst.begin(), s.dst.end());
    in.ops[0] = register_list(all);
    in.nops = 1;
  }
  in.line = s.line;
  in.handler = exec::replay_handler(in);
  return in;
}

}  // namespace

std::unique_ptr<exec::LoadedModule> replay_module(TraceKernel k) {
  auto m = std::make_unique<ptx::Module>();
  m->file = k.file;
  m->target = "sm_" + std::to_string(k.header.binary_version);
  ptx::Function f;
  f.name = k.header.name;
  f.is_entry = f.visible = true;
  f.line = 1;
  k.replay.state_reg = uint16_t(k.num_regs);
  f.num_regs = k.num_regs + 1;
  f.reg_types.assign(f.num_regs, ptx::Type::U32);
  f.reg_types.back() = ptx::Type::U64;
  f.insts.reserve(k.code.size());
  for (const StaticInst& s : k.code) f.insts.push_back(static_instruction(s));
  m->function_index[f.name] = 0;
  m->functions.push_back(std::move(f));

  exec::KernelLayout layout;
  layout.resources.registers = std::max<uint32_t>(k.header.nregs, 1);
  layout.shared.static_bytes = layout.shared.dynamic_offset = k.header.shmem;
  return std::make_unique<exec::LoadedModule>(std::move(m), layout,
                                              std::make_unique<exec::ReplayKernel>(std::move(k.replay)));
}

}  // namespace gpumux::trace
