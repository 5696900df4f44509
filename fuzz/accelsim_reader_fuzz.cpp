// libFuzzer target: the Accel-Sim trace reader must reject any malformed
// kernel file or command list with a LoadError and never crash, hang or
// leak. Builds the representative instruction of every traced PC too. Input
// that starts as xz, gzip or zstd data is decompressed first, as a kernel
// file is.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpumux/core/error.h"
#include "gpumux/trace/accelsim_reader.h"
#include "gpumux/trace/trace_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpumux::trace;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::string decoded = decode_trace_bytes(std::string(text), "fuzz.traceg");
    TraceKernel k = parse_kernel_trace(decoded, "fuzz.traceg");
    for (const StaticInst& s : k.code) representative(s.info, s.opcode);
  } catch (const gpumux::LoadError&) {
  }
  try {
    parse_trace_list(text, "kernelslist.g");
  } catch (const gpumux::LoadError&) {
  }
  return 0;
}
