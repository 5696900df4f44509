// Internal to exec/builtins/: what a built-in's handler sees of one call
// executed by the lanes of a warp. Arguments come from the call's operands
// (call-block .param variables, or registers and immediates), the return
// value goes to its return .param variable, exactly where Warp::call and the
// return path of a real device function read and write them.
#pragma once

#include <cstdint>
#include <string>

#include "gpumux/exec/step_context.h"

namespace gpumux::exec {

class AddressSpace;
class BuiltinServices;

class BuiltinCall {
 public:
  BuiltinCall(StepContext& c, const ptx::Instruction& in);

  // Argument i for `lane`, zero-extended to 64 bits.
  uint64_t arg(size_t i, unsigned lane) const;
  // The `bytes` bytes of aggregate argument i (a .param array such as a
  // dim3) for `lane`; faults unless the argument is a .param variable that large.
  void arg_bytes(size_t i, unsigned lane, void* dst, uint64_t bytes) const;
  // Writes the return value of `lane` (nothing if the call takes none).
  void set_result(unsigned lane, uint64_t value) const;

  // Copies `bytes` at generic address `addr` as `lane` sees it (global,
  // shared or local memory); faults naming `what` if it is not accessible.
  void read(unsigned lane, uint64_t addr, void* dst, uint64_t bytes, const char* what) const;
  // The NUL-terminated string at generic address `addr`, at most `max_len`
  // characters; faults naming `what` if it runs out of its memory first.
  // Writes `bytes` to generic address `addr` as `lane` sees it; faults naming
  // `what` if it is not accessible.
  void write(unsigned lane, uint64_t addr, const void* src, uint64_t bytes, const char* what) const;
  std::string read_string(unsigned lane, uint64_t addr, size_t max_len, const char* what) const;

  // The application's printf sink and heap; faults if the launch has none.
  BuiltinServices& services() const;
  AddressSpace& memory() const;
  const ptx::Function& callee() const { return callee_; }
  [[noreturn]] void fault(const std::string& reason, unsigned lane) const { ctx_.fault(reason, lane); }

 private:
  const uint8_t* generic_ptr(unsigned lane, uint64_t addr, uint64_t bytes) const;

  StepContext& ctx_;
  const ptx::Instruction& in_;
  const ptx::Function& callee_;
};

}  // namespace gpumux::exec
