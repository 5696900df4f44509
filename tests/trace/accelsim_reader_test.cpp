// The Accel-Sim trace reader (src/gpumux/trace/accelsim_reader.h): both
// layouts, the three address forms, the static code it builds, and errors
// that name file:line.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/trace/accelsim_reader.h"

namespace gpumux::trace {
namespace {

const char* kHeader =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (40,1,1)\n-shmem = 256\n"
    "-nregs = 24\n-binary version = 70\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
    "-local mem base_addr = 0x00007e0000000000\n-nvbit version = 1.5.5\n-accelsim tracer version = 5\n"
    "-enable lineinfo = 0\n\n#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
    "[adrrescompress?] [mem_addresses]\n\n";

// One TB in the grouped layout, warp 1 with 8 lanes (40 threads).
std::string tb(unsigned x) {
  return "#BEGIN_TB\n\nthread block = " + std::to_string(x) +
         ",0,0\n\nwarp = 0\ninsts = 4\n"
         "0000 ffffffff 1 R1 S2R 0 0\n"
         "0010 ffffffff 1 R2 LDG.E.64 1 R4 8 1 0x7f0012340000 8\n"
         "0030 0000000f 1 R3 FFMA 3 R2 R2 RZ 0\n"
         "0040 ffffffff 0 EXIT 0 0\n"
         "warp = 1\ninsts = 3\n"
         "0000 000000ff 1 R1 S2R 0 0\n"
         "0020 00000005 0 STS 2 R1 R3 4 2 0x10 8\n"
         "0040 000000ff 0 EXIT 0 0\n\n#END_TB\n\n";
}

TEST(AccelsimReader, GroupedLayoutStaticCodeAndAddresses) {
  TraceKernel k = parse_kernel_trace(std::string(kHeader) + tb(0) + tb(1), "k.traceg");
  EXPECT_EQ(k.header.name, "k");
  EXPECT_EQ(k.header.shmem, 256u);
  EXPECT_EQ(k.header.nregs, 24u);
  EXPECT_EQ(k.family, IsaFamily::Volta);
  ASSERT_EQ(k.replay.warps_per_tb, 2u);
  ASSERT_EQ(k.replay.streams.size(), 4u);
  // PCs 0x0, 0x10, 0x20, 0x30, 0x40: dense, no placeholders.
  ASSERT_EQ(k.code.size(), 5u);
  EXPECT_EQ(k.code[1].opcode, "LDG.E.64");
  EXPECT_EQ(k.code[1].info.cls, SassClass::Load);
  EXPECT_EQ(k.code[2].info.space, ptx::Space::Shared);
  EXPECT_EQ(k.code[3].info.cls, SassClass::Fp32Mad);
  // R1 R2 R4 R3: dense in order of first use; RZ carries no dependence.
  EXPECT_EQ(k.num_regs, 4u);
  EXPECT_EQ(k.code[3].src, (std::vector<uint16_t>{1, 1}));
  const auto& w0 = k.replay.streams[0];
  ASSERT_EQ(w0.size(), 4u);
  EXPECT_EQ(w0[2].pc, 3u);
  EXPECT_EQ(w0[2].mask, 0xfu);
  // Mode 1: base and stride, folded modulo 2^39.
  ASSERT_EQ(w0[1].space, ptx::Space::Global);
  EXPECT_EQ(w0[1].bytes, 8u);
  EXPECT_EQ(k.replay.addrs[w0[1].addr], 0x7f0012340000ull & ((1ull << 39) - 1));
  EXPECT_EQ(k.replay.addrs[w0[1].addr + 31] - k.replay.addrs[w0[1].addr], 31u * 8);
  // Mode 2: base and deltas, for lanes 0 and 2; a store.
  const auto& st = k.replay.streams[1][1];
  EXPECT_EQ(st.space, ptx::Space::Shared);
  EXPECT_EQ(st.flags, exec::ReplayLine::kStore);
  EXPECT_EQ(k.replay.addrs[st.addr], 0x10u);
  EXPECT_EQ(k.replay.addrs[st.addr + 1], 0x18u);
}

TEST(AccelsimReader, AddressListAndGapsInTheCode) {
  std::string text = std::string(kHeader).replace(std::string(kHeader).find("(2,1,1)"), 7, "(1,1,1)")
                         .replace(std::string(kHeader).find("(40,1,1)"), 8, "(32,1,1)");
  text += "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
          "0000 00000003 1 R7 LDG.E 1 R8 4 0 0x100 0x200\n"
          "0100 00000000 1 R9 LDG.E 1 R8 4 0\n"
          "0110 ffffffff 0 EXIT 0 0\n#END_TB\n";
  TraceKernel k = parse_kernel_trace(text, "k.traceg");
  // 0x0, a placeholder for the untraced code before 0x100, 0x100, 0x110.
  ASSERT_EQ(k.code.size(), 4u);
  EXPECT_TRUE(k.code[1].opcode.empty());
  const auto& s = k.replay.streams[0];
  EXPECT_EQ(s[1].pc, 2u);
  EXPECT_EQ(k.replay.addrs[s[0].addr + 1], 0x200u);
  EXPECT_EQ(s[1].space, ptx::Space::None);  // no lane: no access
}

TEST(AccelsimReader, RawLayoutWithTbAndWarpPrefixes) {
  std::string text = kHeader;
  // Warps interleaved, as the tracer writes them before post-processing.
  text += "1 0 0 0 0010 ffffffff 0 EXIT 0 0\n"
          "0 0 0 1 0000 000000ff 0 NOP 0 0\n"
          "0 0 0 0 0010 ffffffff 0 EXIT 0 0\n"
          "1 0 0 1 0010 000000ff 0 EXIT 0 0\n"
          "0 0 0 1 0010 000000ff 0 EXIT 0 0\n";
  TraceKernel k = parse_kernel_trace(text, "kernel-1.trace");
  ASSERT_EQ(k.replay.streams.size(), 4u);
  EXPECT_EQ(k.replay.streams[1].size(), 2u);
  EXPECT_EQ(k.replay.streams[2].size(), 1u);
}

TEST(AccelsimReader, LineInfoPrefix) {
  std::string text = std::string(kHeader);
  text.replace(text.find("-enable lineinfo = 0"), 20, "-enable lineinfo = 1");
  text += "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n12 0000 ffffffff 0 EXIT 0 0\n"
          "warp = 1\ninsts = 1\n12 0000 000000ff 0 EXIT 0 0\n#END_TB\n"
          "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n12 0000 ffffffff 0 EXIT 0 0\n"
          "warp = 1\ninsts = 1\n12 0000 000000ff 0 EXIT 0 0\n#END_TB\n";
  EXPECT_EQ(parse_kernel_trace(text, "k").replay.streams[3].size(), 1u);
}

// The forms the NVBit tracer itself writes: version 5's immediate at the end
// of every line, a memory instruction no lane executed (base and stride
// still written), source lines in the raw layout after the TB and warp,
// Hopper's cluster lines in a TB.
TEST(AccelsimReader, TracerVersion5LineForms) {
  std::string text = kHeader;
  text += "#BEGIN_TB\nthread block = 0,0,0\ncluster id = 0,0,0\ncluster rank = 0\nwarp = 0\ninsts = 6\n"
          "0000 ffffffff 1 R1 S2R 0 0 0 \n"
          "0010 00000003 1 R2 LDG.E.64 1 R4 8 1 0x7f0012340000 8 0 \n"
          "0020 00000005 0 STS 2 R1 R3 4 2 0x10 8 0 \n"
          "0060 00000000 1 R5 LDG.E 1 R4 4 1 0x0 0 0 \n"
          "0070 ffffffff 0 DEPBAR.LE 0 0 1 \n"
          "0040 ffffffff 0 EXIT 0 0 0 \n"
          "warp = 1\ninsts = 1\n0040 000000ff 0 EXIT 0 0 0 \n#END_TB\n";
  text += tb(1);
  const TraceKernel k = parse_kernel_trace(text, "k");
  const std::vector<exec::ReplayLine>& w0 = k.replay.streams[0];
  ASSERT_EQ(w0.size(), 6u);
  EXPECT_EQ(w0[1].bytes, 8u);
  EXPECT_EQ(k.replay.addrs[w0[1].addr + 1], 0x7f0012340008u & ((uint64_t(1) << 39) - 1));
  EXPECT_EQ(k.replay.addrs[w0[2].addr + 1], 0x18u);  // base 0x10, delta 8 (not the immediate)
  EXPECT_EQ(w0[3].mask, 0u);
  std::string extra = text;
  extra.replace(extra.find("0 DEPBAR.LE 0 0 1 "), 18, "0 DEPBAR.LE 0 0 1 7");
  EXPECT_THROW(parse_kernel_trace(extra, "k"), LoadError);

  // Raw layout with source lines: "x y z warp line PC ...".
  std::string raw = kHeader;
  raw.replace(raw.find("-enable lineinfo = 0"), 20, "-enable lineinfo = 1");
  raw.replace(raw.find("-grid dim = (2,1,1)"), 19, "-grid dim = (1,1,1)");
  raw.replace(raw.find("-block dim = (40,1,1)"), 21, "-block dim = (32,1,1)");
  raw += "0 0 0 0 31 0000 ffffffff 1 R1 S2R 0 0 0 \n0 0 0 0 32 0010 ffffffff 0 EXIT 0 0 0 \n";
  EXPECT_EQ(parse_kernel_trace(raw, "k").replay.streams[0].size(), 2u);
}

// Before tracer version 3 (and in a file that names no version, as Accel-Sim
// reads it) every line of the grouped layout repeats its TB and warp.
TEST(AccelsimReader, OldGroupedLayoutRepeatsTbAndWarp) {
  std::string h = kHeader;
  h.replace(h.find("-accelsim tracer version = 5\n"), 29, "-accelsim tracer version = 2\n");
  auto old_tb = [](unsigned x, unsigned second_warp) {
    const std::string p = std::to_string(x) + " 0 0 ";
    return "#BEGIN_TB\nthread block = " + std::to_string(x) + ",0,0\nwarp = 0\ninsts = 2\n" + p +
           "0 0000 ffffffff 1 R1 S2R 0 0\n" + p + "0 0010 ffffffff 0 EXIT 0 0\nwarp = 1\ninsts = 1\n" + p +
           std::to_string(second_warp) + " 0010 000000ff 0 EXIT 0 0\n#END_TB\n";
  };
  EXPECT_EQ(parse_kernel_trace(h + old_tb(0, 1) + old_tb(1, 1), "k").replay.streams[2].size(), 2u);
  std::string unversioned = h;
  unversioned.erase(unversioned.find("-accelsim tracer version = 2\n"), 29);
  EXPECT_EQ(parse_kernel_trace(unversioned + old_tb(0, 1) + old_tb(1, 1), "k").replay.streams[3].size(), 1u);
  try {
    parse_kernel_trace(h + old_tb(0, 1) + old_tb(1, 0), "k");
    ADD_FAILURE();
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("the line's warp is not 1"), std::string::npos) << e.what();
  }
}

void expect_error(const std::string& text, const std::string& where_what) {
  try {
    parse_kernel_trace(text, "k.traceg");
    ADD_FAILURE() << "no error; expected " << where_what;
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find(where_what), std::string::npos) << e.what();
  }
}

TEST(AccelsimReader, ErrorsNameFileAndLine) {
  const std::string h = kHeader;
  const unsigned body = 17;  // first line after the header
  expect_error("-kernel name = k\n", "k.traceg:1: the header has no '-grid dim' line");
  std::string no_version = h;
  no_version.replace(no_version.find("-binary version = 70"), 20, "-binary version = 61");
  expect_error(no_version, "binary version 61 is not supported");
  expect_error(h + tb(0), "truncated trace: thread block 1 of 2");
  expect_error(h + tb(0) + tb(0), "thread block (0,0,0) appears twice");
  std::string cut = h + tb(0);
  cut.resize(cut.find("0040 000000ff"));
  expect_error(cut, "the file ends inside a TB");
  std::string fewer = tb(0);
  fewer.replace(fewer.find("insts = 4"), 9, "insts = 5");
  expect_error(h + fewer, fmt::format("k.traceg:{}: warp 0 has 4 instructions, its 'insts' line says 5", body + 10));
  std::string bad = tb(0);
  bad.replace(bad.find("FFMA"), 4, "FROB");
  expect_error(h + bad, fmt::format("k.traceg:{}: unknown SASS opcode 'FROB'", body + 8));
  std::string newer = tb(0);
  newer.replace(newer.find("S2R"), 3, "LDGSTS");
  expect_error(h + newer, "SASS opcode 'LDGSTS' is not in the Volta instruction set");
  std::string count = tb(0);
  count.replace(count.find("0x10 8"), 6, "0x10");
  expect_error(h + count, "line ends where address delta was expected");
  std::string clash = tb(0) + tb(1);
  clash.replace(clash.rfind("FFMA"), 4, "EXIT");
  expect_error(h + clash, "PC 30 was 'FFMA'");
  std::string outside = tb(0);
  outside.replace(outside.find("= 0,0,0"), 7, "= 5,0,0");
  expect_error(h + outside, "thread block (5,0,0) is outside the grid (2,1,1)");
  std::string reg = tb(0);
  reg.replace(reg.find("R4"), 2, "Q4");
  expect_error(h + reg, "bad register 'Q4'");
}

TEST(AccelsimReader, KernelList) {
  TraceList l = parse_trace_list("MemcpyHtoD,0x00007f0000000000,4096\nkernel-1.traceg\n\nkernel-2.traceg\n", "kl");
  ASSERT_EQ(l.commands.size(), 3u);
  EXPECT_EQ(l.commands[0].kind, TraceCommand::Kind::MemcpyHtoD);
  EXPECT_EQ(l.commands[0].bytes, 4096u);
  EXPECT_EQ(l.commands[2].file, "kernel-2.traceg");
  EXPECT_EQ(l.commands[2].line, 4u);
  EXPECT_THROW(parse_trace_list("MemcpyHtoD,0x10\n", "kl"), LoadError);
  EXPECT_THROW(parse_trace_list("../x.traceg\n", "kl"), LoadError);
  try {
    parse_trace_list("kernel-1.traceg\nMemcpyDtoH,0x1,2\n", "kl");
    ADD_FAILURE();
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("kl:2: unknown copy"), std::string::npos) << e.what();
  }
}

TEST(SassClasses, FamiliesAndTensorShapes) {
  std::string why;
  EXPECT_EQ(isa_family(75), IsaFamily::Turing);
  EXPECT_EQ(isa_family(86), IsaFamily::Ampere);
  EXPECT_FALSE(isa_family(52));
  EXPECT_FALSE(classify_sass("UIADD3", IsaFamily::Volta, why));
  EXPECT_TRUE(classify_sass("UIADD3", IsaFamily::Turing, why));
  EXPECT_TRUE(classify_sass("HGMMA.64x128x16.F32", IsaFamily::Hopper, why));
  auto shape = [](std::string_view op) {
    std::string w;
    const ptx::TensorOp t = representative(*classify_sass(op, IsaFamily::Hopper, w), op).tensor;
    return std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k);
  };
  EXPECT_EQ(shape("HMMA.884.F32.F16"), "8x8x4");
  EXPECT_EQ(shape("HMMA.1688.F32"), "16x8x8");
  EXPECT_EQ(shape("HMMA.16816.F32.BF16"), "16x8x16");
  EXPECT_EQ(shape("IMMA.8816.S8.S8"), "8x8x16");
  EXPECT_EQ(shape("HGMMA.64x128x16.F32"), "64x128x16");
  std::string w;
  EXPECT_EQ(representative(*classify_sass("MUFU.RCP64H", IsaFamily::Volta, w), "MUFU.RCP64H").type, ptx::Type::F64);
  EXPECT_EQ(representative(*classify_sass("F2F.F64.F32", IsaFamily::Volta, w), "F2F.F64.F32").type, ptx::Type::F64);
  EXPECT_EQ(representative(*classify_sass("BAR.ARV", IsaFamily::Volta, w), "BAR.ARV").bar, ptx::BarKind::Arrive);
}

}  // namespace
}  // namespace gpumux::trace
