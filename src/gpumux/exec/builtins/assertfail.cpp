// __assertfail(message, file, line, function, charSize): a failed device
// assert() ends the kernel with a fault naming the assertion.
#include <bit>

#include <fmt/format.h>

#include "gpumux/exec/builtins/call.h"
#include "gpumux/exec/builtins/handlers.h"

namespace gpumux::exec {

void assertfail_builtin(StepContext& c, const ptx::Instruction& in) {
  BuiltinCall call(c, in);
  // Every executing lane failed; the lowest one is reported, as a GPU reports one thread.
  const unsigned lane = unsigned(std::countr_zero(c.mask));
  constexpr size_t kMaxText = 4096;
  const std::string message = call.read_string(lane, call.arg(0, lane), kMaxText, "assert message");
  const std::string file = call.read_string(lane, call.arg(1, lane), kMaxText, "assert file name");
  const std::string function =
      call.read_string(lane, call.arg(3, lane), kMaxText, "assert function name");
  call.fault(fmt::format("assertion failed: {} at {}:{} in {}", message, file,
                         uint32_t(call.arg(2, lane)), function),
             lane);
}

}  // namespace gpumux::exec
