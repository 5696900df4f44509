#include "gpumux/exec/builtins/call.h"

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/builtins/services.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/thread_block.h"

namespace gpumux::exec {

BuiltinCall::BuiltinCall(StepContext& c, const ptx::Instruction& in)
    : ctx_(c), in_(in), callee_(c.warp->tb().launch().module->function(in.ops[0].sym)) {}

uint64_t BuiltinCall::arg(size_t i, unsigned lane) const {
  const ptx::Operand& a = in_.call_args[i];
  const uint64_t size = std::min<uint64_t>(callee_.params[i].size, 8);
  uint64_t v = 0;
  if (a.kind == ptx::OperandKind::Symbol && a.scope == ptx::SymScope::Local) {
    const uint8_t* p = ctx_.warp->param_ptr(lane, symbol_address(*ctx_.warp, a), size);
    if (!p) fault(fmt::format("argument {} of {} is outside the parameter space", i, callee_.name), lane);
    std::memcpy(&v, p, size);
  } else {
    v = ctx_.src(a, lane);
    if (size < 8) v &= (uint64_t(1) << (8 * size)) - 1;
  }
  return v;
}

void BuiltinCall::arg_bytes(size_t i, unsigned lane, void* dst, uint64_t bytes) const {
  const ptx::Operand& a = in_.call_args[i];
  const uint8_t* p = nullptr;
  if (a.kind == ptx::OperandKind::Symbol && a.scope == ptx::SymScope::Local && callee_.params[i].size >= bytes)
    p = ctx_.warp->param_ptr(lane, symbol_address(*ctx_.warp, a), bytes);
  if (!p) fault(fmt::format("argument {} of {} is not a {}-byte .param variable", i, callee_.name, bytes), lane);
  std::memcpy(dst, p, bytes);
}

void BuiltinCall::set_result(unsigned lane, uint64_t value) const {
  if (in_.call_rets.empty() || callee_.rets.empty()) return;
  const ptx::Operand& r = in_.call_rets[0];
  const uint64_t size = std::min<uint64_t>(callee_.rets[0].size, 8);
  uint8_t* p = ctx_.warp->param_ptr(lane, symbol_address(*ctx_.warp, r), size);
  if (!p) fault(fmt::format("return value of {} is outside the parameter space", callee_.name), lane);
  std::memcpy(p, &value, size);
}

const uint8_t* BuiltinCall::generic_ptr(unsigned lane, uint64_t addr, uint64_t bytes) const {
  Warp& w = *ctx_.warp;
  if (addr - kSharedWindow < kWindowSize) {
    const std::vector<uint8_t>& sh = w.tb().shared();
    const uint64_t off = addr - kSharedWindow;
    return off + bytes <= sh.size() ? sh.data() + off : nullptr;
  }
  if (addr - kLocalWindow < kWindowSize) return w.local_ptr(lane, addr - kLocalWindow, bytes);
  return memory().translate(addr, bytes);
}

void BuiltinCall::read(unsigned lane, uint64_t addr, void* dst, uint64_t bytes,
                       const char* what) const {
  const uint8_t* p = generic_ptr(lane, addr, bytes);
  if (!p)
    fault(fmt::format("{}: {}-byte read at generic address 0x{:x} is not accessible", what, bytes,
                      addr),
          lane);
  std::memcpy(dst, p, bytes);
}

void BuiltinCall::write(unsigned lane, uint64_t addr, const void* src, uint64_t bytes, const char* what) const {
  auto* p = const_cast<uint8_t*>(generic_ptr(lane, addr, bytes));
  if (!p)
    fault(fmt::format("{}: {}-byte write at generic address 0x{:x} is not accessible", what, bytes, addr), lane);
  std::memcpy(p, src, bytes);
}

std::string BuiltinCall::read_string(unsigned lane, uint64_t addr, size_t max_len,
                                     const char* what) const {
  std::string s;
  for (; s.size() < max_len; ++addr) {
    const uint8_t* p = generic_ptr(lane, addr, 1);
    if (!p)
      fault(fmt::format("{}: the string at generic address 0x{:x} is not NUL-terminated inside "
                        "its memory",
                        what, addr - s.size()),
            lane);
    if (!*p) break;
    s.push_back(char(*p));
  }
  return s;
}

BuiltinServices& BuiltinCall::services() const {
  BuiltinServices* s = ctx_.warp->tb().launch().builtins;
  if (!s) ctx_.fault(fmt::format("{}: the launch has no printf sink or device heap", callee_.name));
  return *s;
}

AddressSpace& BuiltinCall::memory() const { return *ctx_.warp->tb().launch().mem; }

}  // namespace gpumux::exec
