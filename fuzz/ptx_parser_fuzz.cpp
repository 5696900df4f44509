// libFuzzer target: the PTX frontend must reject any malformed input with a
// LoadError and never crash, hang or leak. Parses, analyses, estimates and
// checks whatever parses.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "gpumux/ptx/cfg.h"
#include "gpumux/ptx/check.h"
#include "gpumux/ptx/parser.h"
#include "gpumux/ptx/resources.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpumux::ptx;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    Module m = parse_ptx(text, "fuzz.ptx");
    analyze_module(m);
    for (const Function& f : m.functions) {
      if (!f.is_entry) continue;
      estimate_resources(m, f);
      layout_shared(m, f);
    }
    require_supported(m);
  } catch (const gpumux::LoadError&) {
  }
  std::ostringstream report;
  check_ptx_text(text, "fuzz.ptx", report);
  return 0;
}
