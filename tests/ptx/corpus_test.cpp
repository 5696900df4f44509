// The nvcc-generated corpus (tests/ptx/corpus/*.ptx, from the .cu next to
// each) must parse, analyse and be fully supported, except the unsupported_*
// file, which must report exactly its unsupported constructs.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "gpumux/ptx/cfg.h"
#include "gpumux/ptx/check.h"
#include "gpumux/ptx/parser.h"
#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> corpus_files(const char* ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(test::corpus_dir()))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool is_unsupported_sample(const fs::path& p) { return p.filename().string().rfind("unsupported_", 0) == 0; }

Module load_corpus(const std::string& name) {
  const std::string path = test::corpus_dir() + "/" + name;
  Module m = parse_ptx(test::read_file(path), path);
  analyze_module(m);
  return m;
}

// 1-based line of the first line containing `needle` after line `after`.
uint32_t line_of(const std::string& text, const std::string& needle, uint32_t after = 0) {
  uint32_t line = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (line > after && text.substr(pos, end - pos).find(needle) != std::string::npos)
      return line;
    pos = end + 1;
    ++line;
  }
  return 0;
}

TEST(PtxCorpus, EveryKernelSourceHasItsPtx) {
  const auto cus = corpus_files(".cu");
  ASSERT_GE(cus.size(), 18u);
  for (const fs::path& cu : cus) {
    fs::path ptx = cu;
    ptx.replace_extension(".ptx");
    EXPECT_TRUE(fs::exists(ptx)) << ptx << " missing: run scripts/gen_ptx.sh";
  }
}

TEST(PtxCorpus, SupportedFilesLoadCompletely) {
  unsigned kernels = 0, files = 0;
  for (const fs::path& p : corpus_files(".ptx")) {
    if (is_unsupported_sample(p)) continue;
    ++files;
    const std::string text = test::read_file(p.string());
    Module m;
    ASSERT_NO_THROW(m = load_ptx(text, p.string())) << p;
    EXPECT_TRUE(m.unsupported.empty()) << p;
    EXPECT_EQ(m.version, "9.0");
    EXPECT_EQ(m.target, "sm_80");
    EXPECT_GE(m.files.size(), 2u) << p;
    for (const Function& f : m.functions) {
      if (f.is_extern) continue;  // a built-in's declaration (vprintf, malloc, ...)
      kernels += f.is_entry;
      ASSERT_FALSE(f.insts.empty()) << f.name;
      const Instruction& last = f.insts.back();
      EXPECT_EQ(last.guard, kNoReg) << f.name;
      EXPECT_TRUE(last.op == Opcode::Ret || last.op == Opcode::Exit || last.op == Opcode::Bra ||
                  last.op == Opcode::Trap)
          << f.name;
      for (const Instruction& in : f.insts) {
        EXPECT_NE(in.op, Opcode::Invalid);
        EXPECT_GT(in.line, 0u);
        EXPECT_LT(in.src_file, m.files.size());
        if (in.op == Opcode::Bra) {
          EXPECT_LT(in.ops[0].imm, f.insts.size()) << f.name << " line " << in.line;
          EXPECT_LE(in.reconv, f.insts.size()) << f.name << " line " << in.line;
        }
      }
    }
  }
  EXPECT_GE(files, 17u);
  EXPECT_GE(kernels, 55u);
}

TEST(PtxCorpus, UnsupportedSamplesReportTheRightLines) {
  struct Expect {
    std::string file, construct, needle;  // the reported line contains `needle`
  };
  const std::vector<Expect> expected = {
      {"unsupported_surface.ptx", "sured.b.add.1d.u32.trap (surface)", "sured.b.add.1d.u32.trap"},
  };
  for (const Expect& e : expected) {
    const std::string text = test::read_file(test::corpus_dir() + "/" + e.file);
    Module m = load_corpus(e.file);
    const uint32_t line = line_of(text, e.needle);
    ASSERT_GT(line, 0u) << e.construct;
    bool found = false;
    for (const Unsupported& u : m.unsupported) found |= u.line == line && u.construct == e.construct;
    EXPECT_TRUE(found) << e.file << ":" << line << " should report " << e.construct;
    EXPECT_THROW(load_ptx(text, e.file), LoadError);
  }
  EXPECT_EQ(load_corpus("unsupported_surface.ptx").unsupported.size(), 1u);
}

// printf, assert and the device heap are engine built-ins: their calls stay
// calls to the .extern declarations; other extern calls remain unsupported.
TEST(PtxCorpus, BuiltinExternCallsAreSupported) {
  for (const char* file : {"printf_assert.ptx", "device_heap.ptx"}) {
    const Module m = load_corpus(file);
    EXPECT_TRUE(m.unsupported.empty()) << file;
    unsigned extern_calls = 0;
    for (const Function& f : m.functions)
      for (const Instruction& in : f.insts)
        extern_calls += in.op == Opcode::Call && m.functions[in.ops[0].sym].is_extern;
    EXPECT_EQ(extern_calls, 2u) << file;
  }
  const std::string dp = test::kernel_with(
      "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], 0;\n"
      "\tcall.uni cudaGetParameterBufferV2, (param0);\n\t}\n\tret;",
      ".extern .func cudaGetParameterBufferV2\n(\n\t.param .b64 a\n)\n;\n");
  const Module m = parse_ptx(dp, "dp.ptx");
  ASSERT_EQ(m.unsupported.size(), 1u);
  EXPECT_EQ(m.unsupported[0].construct,
            "call to external function cudaGetParameterBufferV2 (dynamic parallelism)");
}

const Function& fn(const Module& m, const std::string& name) {
  const Function* f = m.find_function(name);
  if (!f) throw std::runtime_error("no function " + name);
  return *f;
}

template <class P>
size_t count_if_inst(const Function& f, P pred) {
  return size_t(std::count_if(f.insts.begin(), f.insts.end(), pred));
}

TEST(PtxCorpus, SpotChecks) {
  Module packets = load_corpus("packet_proc.ptx");
  const Variable& ptrs = *packets.find_global("g_table_ptrs");
  ASSERT_EQ(ptrs.init_addrs.size(), 2u);
  EXPECT_EQ(ptrs.init_addrs[1], (std::pair<uint64_t, std::string>{8, "g_route_table"}));
  EXPECT_EQ(ptrs.init[8], 16);  // generic(g_route_table)+16
  EXPECT_EQ(packets.find_global("g_route_table")->size, 32u);

  Module consts = load_corpus("const_conv.ptx");
  const Variable& scale = *consts.find_global("c_scale");
  EXPECT_EQ(scale.space, Space::Const);
  EXPECT_EQ(scale.init, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xc0, 0x3f}));  // 0.125

  Module dev = load_corpus("device_funcs.ptx");
  const Function& apply = fn(dev, "apply_fn");
  EXPECT_EQ(count_if_inst(apply, [](const Instruction& in) {
              return in.op == Opcode::Call && in.ops[0].kind == OperandKind::Reg;
            }),
            1u);
  EXPECT_EQ(count_if_inst(apply, [](const Instruction& in) {
              return in.op == Opcode::Mov && in.ops[1].kind == OperandKind::Func;
            }),
            2u);
  const Function& fib = fn(dev, "_Z3fibj");
  EXPECT_EQ(fib.rets.size(), 1u);
  EXPECT_EQ(count_if_inst(fib, [&](const Instruction& in) {
              return in.op == Opcode::Call && in.ops[0].kind == OperandKind::Func &&
                     &dev.functions[in.ops[0].sym] == &fib;
            }),
            2u);
  EXPECT_EQ(fn(dev, "_Z10sum_digitsxi").local_bytes, 256u);

  Module half = load_corpus("half_ops.ptx");
  EXPECT_EQ(count_if_inst(fn(half, "half_atomics"), [](const Instruction& in) {
              return in.op == Opcode::Atom && in.type == Type::F16 && in.space == Space::Generic;
            }),
            1u);

  Module sync = load_corpus("ldg_volatile.ptx");
  const Function& nb = fn(sync, "named_barriers");
  EXPECT_EQ(count_if_inst(nb, [](const Instruction& in) {
              return in.op == Opcode::Bar && in.bar == BarKind::Arrive && in.nops == 2;
            }),
            1u);
  EXPECT_EQ(count_if_inst(nb, [](const Instruction& in) {
              return in.op == Opcode::Bar && in.bar == BarKind::Sync && !in.aligned;
            }),
            1u);
  EXPECT_EQ(count_if_inst(fn(sync, "fences_and_clocks"),
                          [](const Instruction& in) { return in.op == Opcode::Bar && in.bar == BarKind::Red; }),
            3u);

  Module votes = load_corpus("warp_vote.ptx");
  EXPECT_EQ(count_if_inst(fn(votes, "lanemask_info"), [](const Instruction& in) {
              return in.op == Opcode::Mov && in.ops[1].sreg == SpecialReg::Envreg && in.ops[1].comp == 3;
            }),
            1u);

  Module gemm = load_corpus("gemm_tiled.ptx");
  const Function& tiled = fn(gemm, "sgemm_tiled");
  ASSERT_EQ(tiled.locals.size(), 2u);
  EXPECT_EQ(tiled.locals[1].size, 16u * 17u * 4u);
  EXPECT_EQ(tiled.params.size(), 8u);
  EXPECT_EQ(tiled.param_bytes, 44u);
}

// A ~1 MB module: copies of the corpus' largest kernels with renamed symbols.
std::string megabyte_module() {
  const std::string src = test::read_file(test::corpus_dir() + "/spmv_transpose.ptx");
  const size_t body_begin = src.find(".visible .entry"), body_end = src.find("\t.file");
  const std::string body = src.substr(body_begin, body_end - body_begin);
  std::string out = src.substr(0, body_begin);
  for (int copy = 0; out.size() < (1u << 20); ++copy) {
    // Every kernel and demoted-variable name contains one of these.
    std::string renamed = body;
    for (const char* name : {"spmv_csr_scalar", "spmv_csr_vector", "transpose_padded", "kmeans_assign"}) {
      const std::string from = name, to = from + "_" + std::to_string(copy);
      for (size_t p = renamed.find(from); p != std::string::npos; p = renamed.find(from, p + to.size()))
        renamed.replace(p, from.size(), to);
    }
    out += renamed;
  }
  return out + src.substr(body_end);
}

TEST(PtxCorpus, ParsesAMegabyteQuickly) {
  const std::string text = megabyte_module();
  const auto t0 = std::chrono::steady_clock::now();
  Module m = parse_ptx(text, "big.ptx");
  analyze_module(m);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(m.functions.size(), 200u);
  // Release builds take ~0.1 s; the bound leaves room for Debug and sanitizers.
  EXPECT_LT(ms, 5000.0);
  RecordProperty("parse_ms", std::to_string(ms));
  std::printf("parsed and analysed %zu bytes in %.1f ms\n", text.size(), ms);
}

}  // namespace
}  // namespace gpumux::ptx
