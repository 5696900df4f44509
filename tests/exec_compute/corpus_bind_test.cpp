// Every compute instruction nvcc emitted in the PTX corpus and the workloads
// binds: real kernels never hit an unsupported compute combination.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "exec_compute/inst_builder.h"
#include "gpumux/exec/compute/families.h"
#include "gpumux/ptx/parser.h"

namespace gpumux::test {
namespace {

bool is_compute(Opcode op) {
  std::string why;
  ptx::Instruction probe;
  probe.op = op;
  exec::bind_compute(probe, why);
  return why.find("is not a compute instruction") == std::string::npos;
}

TEST(ComputeCorpus, EveryComputeInstructionBinds) {
  namespace fs = std::filesystem;
  const fs::path root = GPUMUX_SOURCE_DIR;
  unsigned files = 0, bound = 0;
  for (const fs::path& dir : {root / "tests/ptx/corpus", root / "workloads"}) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (e.path().extension() != ".ptx") continue;
      std::ifstream f(e.path());
      std::stringstream text;
      text << f.rdbuf();
      const ptx::Module m = ptx::parse_ptx(text.str(), e.path().filename().string());
      ++files;
      for (const ptx::Function& fn : m.functions)
        for (const ptx::Instruction& in : fn.insts) {
          if (!is_compute(in.op)) continue;
          std::string why;
          EXPECT_NE(exec::bind_compute(in, why), nullptr) << m.file << ":" << in.line << ": " << why;
          ++bound;
        }
    }
  }
  EXPECT_GT(files, 10u);
  EXPECT_GT(bound, 1000u);
}

}  // namespace
}  // namespace gpumux::test
