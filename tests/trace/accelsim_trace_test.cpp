// The Accel-Sim trace export (src/gpumux/trace): a complete trace directory
// for a benchmark, exact lines for a small hand-written kernel, and opcode
// names Accel-Sim accepts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpumux/ptx/parser.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/trace/accelsim_writer.h"
#include "gpumux/trace/sass_opcode.h"
#include "workload.h"

namespace gpumux::trace {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::path(::testing::TempDir()) / name;
  fs::remove_all(d);
  return d;
}

// One instruction line, decoded as Accel-Sim reads it.
struct TraceInst {
  uint64_t pc = 0;
  uint32_t mask = 0;
  std::string opcode;
  unsigned mem_width = 0;
  std::map<unsigned, uint64_t> addr;  // lane -> address
};

TraceInst parse_inst(const std::string& line) {
  std::istringstream in(line);
  TraceInst t;
  unsigned n;
  std::string reg;
  in >> std::hex >> t.pc >> t.mask >> std::dec >> n;
  for (unsigned i = 0; i < n; ++i) in >> reg;
  in >> t.opcode >> n;
  for (unsigned i = 0; i < n; ++i) in >> reg;
  in >> t.mem_width;
  if (!t.mem_width) return t;
  unsigned mode;
  in >> mode;
  std::vector<unsigned> lanes;
  for (unsigned l = 0; l < 32; ++l)
    if (t.mask >> l & 1) lanes.push_back(l);
  if (mode == 0) {
    for (unsigned l : lanes) in >> std::hex >> t.addr[l] >> std::dec;
    return t;
  }
  uint64_t a;
  in >> std::hex >> a >> std::dec;
  int64_t step = 0;
  if (mode == 1) in >> step;
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (i > 0 && mode == 2) in >> step;
    if (i > 0) a += uint64_t(step);
    t.addr[lanes[i]] = a;
  }
  return t;
}

TEST(AccelsimTrace, VecaddTinyIsACompleteTraceDirectory) {
  const fs::path dir = fresh_dir("vecadd_trace");
  AccelsimTraceWriter writer(dir);
  runtime::Device dev;
  dev.backend().set_observer(&writer);
  runtime::Context& ctx = dev.create_context("vecadd");
  const workloads::WorkloadSpec* w = workloads::find_workload("vecadd");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(workloads::run_workload(*w, ctx, workloads::Size::Tiny, 1).passed);
  dev.backend().set_observer(nullptr);
  const uint64_t executed = dev.backend().warp_instructions();

  // kernelslist.g: the two input copies, then the one launch.
  const std::vector<std::string> list = lines_of(read_file(dir / "kernelslist.g"));
  ASSERT_EQ(list.size(), 3u);
  uint64_t base[2];
  const int n = 80077;
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(list[i].rfind("MemcpyHtoD,0x", 0), 0u) << list[i];
    base[i] = std::stoull(list[i].substr(13, 16), nullptr, 16);
    EXPECT_EQ(list[i].substr(29), fmt::format(",{}", n * 4));
  }
  EXPECT_EQ(list[2], "kernel-1.traceg");
  EXPECT_EQ(writer.kernels_written(), 1u);

  const std::vector<std::string> k = lines_of(read_file(dir / list[2]));
  const std::vector<std::string> header = {
      "-kernel name = vecadd", "-kernel id = 1", "-grid dim = (313,1,1)", "-block dim = (256,1,1)",
      "-shmem = 0", "-nregs = ", "-binary version = 70", "-cuda stream id = 0",
      "-shmem base_addr = 0x", "-local mem base_addr = 0x", "-nvbit version = ",
      "-accelsim tracer version = 5", "-enable lineinfo = 0"};
  ASSERT_GT(k.size(), header.size() + 2);
  for (size_t i = 0; i < header.size(); ++i) EXPECT_EQ(k[i].rfind(header[i], 0), 0u) << k[i];
  EXPECT_EQ(k[header.size()], "");
  EXPECT_EQ(k[header.size() + 1].rfind("#traces format = PC mask dest_num", 0), 0u);

  // Body: TBs in dispatch order, each warp's declared count matching its lines.
  unsigned tbs = 0, loads = 0;
  uint64_t total = 0;
  int tb = -1, warp = -1;
  uint64_t expected_lines = 0, previous_array = 0;
  for (size_t i = header.size() + 2; i < k.size(); ++i) {
    const std::string& l = k[i];
    if (l.empty()) continue;
    if (l == "#BEGIN_TB") {
      ++tbs;
      continue;
    }
    if (l == "#END_TB") {
      EXPECT_EQ(expected_lines, 0u);
      continue;
    }
    if (l.rfind("thread block = ", 0) == 0) {
      tb = std::stoi(l.substr(15));
      EXPECT_EQ(l, fmt::format("thread block = {},0,0", tbs - 1));
      continue;
    }
    if (l.rfind("warp = ", 0) == 0) {
      EXPECT_EQ(expected_lines, 0u) << "warp " << warp << " of TB " << tb;
      warp = std::stoi(l.substr(7));
      continue;
    }
    if (l.rfind("insts = ", 0) == 0) {
      expected_lines = std::stoull(l.substr(8));
      total += expected_lines;
      continue;
    }
    ASSERT_GT(expected_lines, 0u) << l;
    --expected_lines;
    const TraceInst t = parse_inst(l);
    if (t.opcode.rfind("LDG", 0) != 0) continue;
    // Each warp loads a[i] and b[i] (in either order), i = tb * 256 + warp * 32 + lane.
    EXPECT_EQ(t.mem_width, 4u);
    EXPECT_EQ(t.addr.size(), size_t(std::popcount(t.mask)));
    const uint64_t array = base[0] + 4 * (uint64_t(tb) * 256 + warp * 32) == t.addr.begin()->second
                               ? base[0]
                               : base[1];
    if (loads % 2) {
      EXPECT_NE(array, previous_array) << l;
    }
    previous_array = array;
    for (const auto& [lane, a] : t.addr) {
      const uint64_t i = uint64_t(tb) * 256 + warp * 32 + lane;
      ASSERT_LT(i, uint64_t(n));
      ASSERT_EQ(a, array + 4 * i) << l;
    }
    ++loads;
  }
  EXPECT_EQ(tbs, 313u);
  EXPECT_EQ(total, executed);
  EXPECT_EQ(loads, 2u * ((n + 31) / 32));
}

// A hand-written kernel whose every trace line is known.
constexpr const char* kScalePtx = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry scale(
	.param .u64 scale_param_0
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<7>;
	ld.param.u64 %rd1, [scale_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	setp.gt.u32 %p1, %r1, 5;
	@%p1 bra DONE;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	add.f32 %f2, %f1, %f1;
	st.global.f32 [%rd4], %f2;
	mul.lo.s32 %r2, %r1, %r1;
	mul.wide.u32 %rd5, %r2, 4;
	add.s64 %rd6, %rd2, %rd5;
	ld.global.f32 %f3, [%rd6];
DONE:
	ret;
}
)";

TEST(AccelsimTrace, GoldenLinesOfASmallKernel) {
  const fs::path dir = fresh_dir("scale_trace");
  AccelsimTraceWriter writer(dir);
  runtime::Device dev;
  dev.backend().set_observer(&writer);
  runtime::Context& ctx = dev.create_context("scale");
  runtime::Module& mod = ctx.load_module_string(kScalePtx, "scale.ptx");
  std::vector<float> data(32, 1.5f);
  const runtime::DevPtr p = ctx.malloc(32 * 4);
  ctx.memcpy_h2d(p, data.data(), 32 * 4);
  ctx.launch(mod.kernel("scale"), {1}, {8}, p);
  const std::vector<float> out = ctx.read<float>(p, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], i <= 5 ? 3.0f : 1.5f) << i;

  EXPECT_EQ(read_file(dir / "kernelslist.g"),
            fmt::format("MemcpyHtoD,0x{:016x},128\nkernel-1.traceg\n", p));
  const std::string k = read_file(dir / "kernel-1.traceg");
  // Registers are numbered on first use: %rd1 R0, %rd2 R1, %r1 R2, %rd3 R3,
  // %rd4 R4, %f1 R5, %f2 R6, %r2 R7, %rd5 R8, %rd6 R9, %f3 R10. Lanes 6 and 7
  // take the branch; lanes 0-5 load p[i] (stride 4) and p[i*i] (deltas).
  const std::string body = fmt::format(
      "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 15\n"
      "0000 000000ff 1 R0 MOV 0 0 0\n"
      "0010 000000ff 1 R1 MOV 1 R0 0 0\n"
      "0020 000000ff 1 R2 S2R 0 0 0\n"
      "0030 000000ff 0 ISETP.GT.U32.AND 1 R2 0 0\n"
      "0040 000000c0 0 BRA 0 0 0\n"
      "0050 0000003f 1 R3 IMAD.WIDE.U32 1 R2 0 0\n"
      "0060 0000003f 1 R4 IADD3 2 R1 R3 0 0\n"
      "0070 0000003f 1 R5 LDG.E 1 R4 4 1 0x{0:x} 4 0\n"
      "0080 0000003f 1 R6 FADD 1 R5 0 0\n"
      "0090 0000003f 0 STG.E 2 R4 R6 4 1 0x{0:x} 4 0\n"
      "00a0 0000003f 1 R7 IMAD 1 R2 0 0\n"
      "00b0 0000003f 1 R8 IMAD.WIDE.U32 1 R7 0 0\n"
      "00c0 0000003f 1 R9 IADD3 2 R1 R8 0 0\n"
      "00d0 0000003f 1 R10 LDG.E 1 R9 4 2 0x{0:x} 4 12 20 28 36 0\n"
      "00e0 000000ff 0 EXIT 0 0 0\n"
      "\n#END_TB\n\n",
      p);
  ASSERT_GE(k.size(), body.size());
  EXPECT_EQ(k.substr(k.size() - body.size()), body);
  EXPECT_NE(k.find("-kernel name = scale\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (8,1,1)\n"
                   "-shmem = 0\n-nregs = "),
            std::string::npos)
      << k;
}

// Every opcode emitted for the project's PTX starts with a name in
// Accel-Sim's Volta opcode map (binary version 70).
TEST(AccelsimTrace, EveryOpcodeIsInTheVoltaMap) {
  const std::set<std::string> volta = {
      "B2R", "CCTL", "CCTLL", "CCTLT", "CS2R", "CSMTEST", "DEPBAR", "ERRBAR", "F2F", "F2I",
      "FRND", "GETLMEMBASE", "I2F", "I2I", "I2IP", "LDC", "LEPC", "MATCH", "MOV", "MOV32I",
      "NOP", "P2R", "PLOP3", "PMTRIG", "PRMT", "PSETP", "QSPC", "R2B", "R2P", "S2R", "SEL",
      "SETCTAID", "SETLMEMBASE", "SGXT", "SHFL", "VOTE", "VOTE_VTG", "BAR", "DADD", "DFMA",
      "DMUL", "DSETP", "EXIT", "BMSK", "BREV", "FLO", "IABS", "IADD", "IADD3", "IADD32I", "IDP",
      "IDP4A", "IMAD", "IMMA", "IMNMX", "IMUL", "IMUL32I", "ISCADD", "ISCADD32I", "ISETP", "LEA",
      "LOP", "LOP3", "LOP32I", "POPC", "SHF", "SHR", "VABSDIFF", "VABSDIFF4", "LD", "LDG", "LDL",
      "LDS", "MEMBAR", "MUFU", "BMOV", "BPT", "BRA", "BREAK", "BRX", "BSSY", "BSYNC", "CALL",
      "JMP", "JMX", "KILL", "NANOSLEEP", "RET", "RPCMOV", "RTT", "WARPSYNC", "YIELD", "TEX",
      "TLD", "TLD4", "TMML", "TXD", "TXQ", "HMMA", "FADD", "FADD32I", "FCHK", "FFMA", "FFMA32I",
      "FMNMX", "FMUL", "FMUL32I", "FSEL", "FSET", "FSETP", "FSWZADD", "HADD2", "HADD2_32I",
      "HFMA2", "HFMA2_32I", "HMUL2", "HMUL2_32I", "HSET2", "HSETP2", "ATOM", "ATOMG", "ATOMS",
      "RED", "ST", "STG", "STL", "STS"};
  const fs::path root = GPUMUX_SOURCE_DIR;
  unsigned checked = 0;
  for (const fs::path& d : {root / "tests/ptx/corpus", root / "workloads", root / "tests/exec/kernels"})
    for (const auto& e : fs::recursive_directory_iterator(d)) {
      if (e.path().extension() != ".ptx") continue;
      const ptx::Module m = ptx::parse_ptx(read_file(e.path()), e.path().string());
      for (const ptx::Function& f : m.functions)
        for (const ptx::Instruction& in : f.insts)
          for (ptx::Space s : {in.space, ptx::Space::Global, ptx::Space::Shared, ptx::Space::Local}) {
            const std::string op = sass_form(in, s, f.is_entry).opcode;
            ASSERT_TRUE(volta.count(op.substr(0, op.find('.')))) << op << " for " << e.path() << ":" << in.line;
            ++checked;
          }
    }
  EXPECT_GT(checked, 10000u);
}

// Carry arithmetic, bmsk and redux get opcodes of the Volta map too.
TEST(AccelsimTrace, NewInstructionsHaveVoltaOpcodes) {
  const ptx::Module m = ptx::parse_ptx(
      ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<8>;\n"
      "add.cc.u32 %r1, %r2, %r3;\naddc.u32 %r4, %r2, %r3;\nsubc.cc.u32 %r4, %r2, %r3;\n"
      "madc.hi.u32 %r5, %r2, %r3, %r4;\nbmsk.wrap.b32 %r6, %r2, %r3;\n"
      "redux.sync.add.u32 %r7, %r2, 0xffffffff;\nret;\n}\n",
      "new.ptx");
  const std::vector<std::string> want = {"IADD3", "IADD3.X", "IADD3.X", "IMAD.X", "BMSK", "SHFL.BFLY", "EXIT"};
  ASSERT_EQ(m.functions.at(0).insts.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(sass_form(m.functions[0].insts[i], ptx::Space::None, true).opcode, want[i]) << i;
}

}  // namespace
}  // namespace gpumux::trace
