#include "gpumux/ptx/register_slots.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "gpumux/ptx/cfg.h"
#include "gpumux/ptx/inst_info.h"
#include "gpumux/ptx/liveness.h"
#include "ptx_test_util.h"

namespace gpumux::ptx {
namespace {

namespace fs = std::filesystem;

Module analysed(const std::string& text, const std::string& name = "s.ptx") {
  Module m = parse_ptx(text, name);
  analyze_module(m);
  return m;
}

struct Slotted {
  Module m;
  RegisterSlots s;
  const Function& f() const { return *m.find_function("k"); }
  uint16_t slot(const std::string& reg) const { return s.slot[test::reg_index(f(), reg)]; }
};

// A kernel whose body loads %rd1 from its first parameter, then `body`, then returns.
Slotted slotted(const std::string& body) {
  Slotted r{analysed(test::kernel_with("\tld.param.u64 %rd1, [k_param_0];\n" + body + "\tret;")), {}};
  r.s = assign_register_slots(r.f());
  return r;
}

TEST(RegisterSlots, ShortLivedRegistersShareSlots) {
  Slotted k = slotted(
      "\tld.global.u32 %r1, [%rd1];\n"
      "\tadd.s32 %r2, %r1, 1;\n"
      "\tadd.s32 %r3, %r2, 1;\n"
      "\tadd.s32 %r4, %r3, 1;\n"
      "\tst.global.u32 [%rd1], %r4;\n");
  // A result never shares with a source of its own instruction; a register
  // whose value is dead takes the slot again.
  EXPECT_NE(k.slot("%r1"), k.slot("%r2"));
  EXPECT_EQ(k.slot("%r3"), k.slot("%r1"));
  EXPECT_EQ(k.slot("%r4"), k.slot("%r2"));
  // 32 declared .b32 registers in two slots; every slot holds one type.
  unsigned b32 = 0;
  for (Type t : k.s.types) b32 += t == Type::B32;
  EXPECT_EQ(b32, 2u);
  for (uint32_t r = 0; r < k.f().num_regs; ++r) EXPECT_EQ(k.s.types[k.s.slot[r]], k.f().reg_types[r]);
}

TEST(RegisterSlots, ValuesLiveAroundALoopKeepTheirSlots) {
  Slotted k = slotted(
      "\tmov.u32 %r1, 0;\n"
      "\tmov.u32 %r2, 0;\n"
      "$L_loop:\n"
      "\tld.global.u32 %r3, [%rd1];\n"
      "\tadd.s32 %r1, %r1, %r3;\n"
      "\tadd.s32 %r2, %r2, 1;\n"
      "\tsetp.lt.s32 %p1, %r2, 10;\n"
      "\t@%p1 bra $L_loop;\n"
      "\tst.global.u32 [%rd1], %r1;\n");
  EXPECT_NE(k.slot("%r1"), k.slot("%r2"));
  EXPECT_NE(k.slot("%r1"), k.slot("%r3"));
  EXPECT_NE(k.slot("%r2"), k.slot("%r3"));
}

TEST(RegisterSlots, AGuardedWriteKeepsTheOldValueLive) {
  // Lanes whose %p1 is false store %r3's first value: %r6, written in
  // between, must not take its slot.
  Slotted k = slotted(
      "\tld.global.u32 %r1, [%rd1];\n"
      "\tsetp.eq.s32 %p1, %r1, 0;\n"
      "\tmov.u32 %r3, 1;\n"
      "\tadd.s32 %r6, %r1, 5;\n"
      "\tst.global.u32 [%rd1+4], %r6;\n"
      "\t@%p1 mov.u32 %r3, 2;\n"
      "\tst.global.u32 [%rd1], %r3;\n"
      "\tst.global.u32 [%rd1+8], %r1;\n");
  EXPECT_NE(k.slot("%r6"), k.slot("%r3"));
}

TEST(RegisterSlots, AShuffleSourceKeepsASlotOfItsOwn) {
  // %r1 is dead after the shfl in this lane, but another lane's shfl may
  // read it there: %r3 must not take its slot.
  Slotted k = slotted(
      "\tld.global.u32 %r1, [%rd1];\n"
      "\tshfl.sync.down.b32 %r2, %r1, 1, 31, -1;\n"
      "\tst.global.u32 [%rd1], %r2;\n"
      "\tld.global.u32 %r3, [%rd1+4];\n"
      "\tst.global.u32 [%rd1+4], %r3;\n");
  for (uint32_t r = 0; r < k.f().num_regs; ++r)
    if (r != test::reg_index(k.f(), "%r1")) {
      EXPECT_NE(k.s.slot[r], k.slot("%r1")) << k.f().reg_names[r];
    }
}

TEST(RegisterSlots, RenamingRewritesOperandsAndDescribesTheSlots) {
  Slotted k = slotted(
      "\tld.global.u32 %r1, [%rd1];\n"
      "\tadd.s32 %r2, %r1, 1;\n"
      "\tadd.s32 %r3, %r2, 1;\n"
      "\tst.global.u32 [%rd1], %r3;\n");
  Function f = k.f();
  rename_to_slots(f, k.s);
  EXPECT_EQ(f.num_regs, k.s.types.size());
  EXPECT_EQ(f.reg_types, k.s.types);
  const Instruction& add = f.insts[3];  // add.s32 %r3, %r2, 1
  EXPECT_EQ(add.ops[0].reg, k.slot("%r3"));
  EXPECT_EQ(add.ops[1].reg, k.slot("%r2"));
  EXPECT_EQ(f.insts[1].ops[1].reg, k.slot("%rd1"));  // an address base
  EXPECT_NE(f.reg_names[k.slot("%r3")].find("%r3"), std::string::npos);
}

// Per-instruction liveness by plain iteration over instructions, written
// apart from liveness.cpp's block sets, to check an assignment against.
std::vector<RegBits> live_after(const Function& f) {
  const Cfg g = build_cfg(f);
  const size_t n = f.insts.size(), words = (f.num_regs + 63) / 64;
  std::vector<RegBits> in(n, RegBits(words, 0)), out = in;
  std::vector<uint32_t> uses, defs;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = n; i-- > 0;) {
      RegBits o(words, 0);
      const BasicBlock& b = g.blocks[g.block_of[i]];
      auto join = [&](size_t s) { for (size_t w = 0; w < words; ++w) o[w] |= in[s][w]; };
      if (i + 1 < b.end) join(i + 1);
      else
        for (uint32_t s : b.succs)
          if (s != g.exit()) join(g.blocks[s].begin);
      RegBits x = o;
      uses_and_defs(f.insts[i], uses, defs);
      if (f.insts[i].guard == kNoReg)
        for (uint32_t d : defs) x[d / 64] &= ~(uint64_t(1) << (d % 64));
      for (uint32_t u : uses) x[u / 64] |= uint64_t(1) << (u % 64);
      if (x != in[i] || o != out[i]) changed = true;
      in[i] = std::move(x);
      out[i] = std::move(o);
    }
  }
  return out;
}

TEST(RegisterSlots, EveryCommittedModuleGetsASafeAssignment) {
  // Every PTX file of the tests and workloads: no register is written while
  // another of its slot is live or read by the same instruction, and the
  // slots are far fewer than the registers.
  size_t regs = 0, slots = 0, functions = 0, cross_lane = 0;
  for (const char* dir : {"tests", "workloads"})
    for (const auto& e : fs::recursive_directory_iterator(std::string(GPUMUX_SOURCE_DIR) + "/" + dir)) {
      if (e.path().extension() != ".ptx" || e.path().filename().string().rfind("unsupported_", 0) == 0) continue;
      Module m;
      try {
        m = analysed(test::read_file(e.path().string()), e.path().string());
      } catch (const std::exception&) {
        continue;  // samples of bad PTX
      }
      for (const Function& f : m.functions) {
        if (f.is_extern || f.insts.empty()) continue;
        const RegisterSlots s = assign_register_slots(f);
        const std::vector<RegBits> after = live_after(f);
        std::vector<uint32_t> uses, defs;
        for (size_t i = 0; i < f.insts.size(); ++i) {
          uses_and_defs(f.insts[i], uses, defs);
          for (uint32_t d : defs) {
            for (uint32_t r = 0; r < f.num_regs; ++r)
              if (r != d && ((after[i][r / 64] >> (r % 64)) & 1)) {
                ASSERT_NE(s.slot[r], s.slot[d]) << e.path() << " " << f.name << " line " << f.insts[i].line << ": "
                                                << f.reg_names[d] << " written while " << f.reg_names[r] << " is live";
              }
            for (uint32_t u : uses)
              if (u != d) {
                ASSERT_NE(s.slot[u], s.slot[d]) << e.path() << " " << f.name << " line " << f.insts[i].line;
              }
          }
        }
        for (uint32_t r = 0; r < f.num_regs; ++r) ASSERT_EQ(s.types[s.slot[r]], f.reg_types[r]);
        for (const Instruction& in : f.insts) {  // a source other lanes read is alone in its slot
          if (in.op != Opcode::Shfl && in.op != Opcode::Redux && in.op != Opcode::Match) continue;
          if (in.ops[1].kind != OperandKind::Reg) continue;
          ++cross_lane;
          for (uint32_t r = 0; r < f.num_regs; ++r) {
            if (r != in.ops[1].reg) {
              ASSERT_NE(s.slot[r], s.slot[in.ops[1].reg]) << e.path() << " line " << in.line;
            }
          }
        }
        regs += f.num_regs;
        slots += s.types.size();
        ++functions;
      }
    }
  EXPECT_GT(functions, 100u);
  EXPECT_GT(cross_lane, 10u);
  EXPECT_LT(slots * 2, regs) << slots << " slots for " << regs << " registers";
}

}  // namespace
}  // namespace gpumux::ptx
