// mma.sync against the fragment layouts of the PTX ISA's figures (written out
// per shape here, independently of the engine's general formula) and
// hand-built matrices whose products are exact; cvt.rna.tf32.f32.
#include <bit>
#include <functional>
#include <string>

#include "exec_compute/inst_builder.h"
#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/compute/half.h"
#include "gpumux/ptx/parser.h"

namespace gpumux::test {
namespace {

using exec::compute::Half;

// Parses one instruction of a kernel whose registers are %r0.. (numbered in
// order of first use) and binds it.
ptx::Instruction parse_one(const std::string& text) {
  const std::string src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
                          " .reg .b32 %r<40>;\n" + text + "\n ret;\n}\n";
  ptx::Module m = ptx::parse_ptx(src, "tensor.ptx");
  EXPECT_TRUE(m.unsupported.empty()) << (m.unsupported.empty() ? "" : m.unsupported[0].construct);
  ptx::Instruction in = m.functions.at(0).insts.at(0);
  std::string why;
  in.handler = exec::bind_tensor(in, why);
  EXPECT_NE(in.handler, nullptr) << why;
  return in;
}

using Layout = std::function<void(unsigned lane, unsigned i, unsigned& row, unsigned& col)>;

// Executes `in` on `regs`, then calls check(lane, i, row, col) for accumulator
// element i (of n per lane, placed by `at`) of every lane.
void run_and_visit(const ptx::Instruction& in, Regs& regs, unsigned n, const Layout& at,
                   const std::function<void(unsigned, unsigned, unsigned, unsigned)>& check) {
  exec::StepContext ctx = regs.ctx();
  in.handler(ctx, in);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < n; ++i) {
      unsigned r, c;
      at(lane, i, r, c);
      check(lane, i, r, c);
    }
}

// m16n8 accumulators: c0, c1 in row groupID, c2, c3 in row groupID + 8; column tig * 2 + (i & 1).
void acc16x8(unsigned l, unsigned i, unsigned& r, unsigned& c) {
  r = i < 2 ? l / 4 : l / 4 + 8;
  c = (l % 4) * 2 + (i & 1);
}

uint32_t f32(float x) { return std::bit_cast<uint32_t>(x); }
uint16_t f16(double x) { return exec::compute::from_double<Half>(x).bits; }

// Writes element i of every lane's fragment (elements per register `per`, bits each) into regs base...
void put(Regs& regs, uint16_t base, unsigned n, unsigned per, unsigned bits, const Layout& at,
         const std::function<uint64_t(unsigned, unsigned)>& value) {
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < n; ++i) {
      unsigned row, col;
      at(lane, i, row, col);
      const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
      uint64_t& r = regs.at(uint16_t(base + i / per), lane);
      r |= (value(row, col) & mask) << (bits * (i % per));
    }
}

TEST(ComputeMma, F16InputsF32AccumulatorM16n8k16) {
  ptx::Instruction in = parse_one(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, "
      "{%r10,%r11,%r12,%r13};");
  auto A = [](unsigned i, unsigned k) { return (double(i) - double(k)) / 4; };
  auto B = [](unsigned k, unsigned j) { return double(k + 2 * j) / 8; };
  auto C = [](unsigned i, unsigned j) { return double(i * j); };
  Regs regs;
  // PTX ISA, "mma.m16n8k16 fragment layout for matrix A (.f16)": groupID = lane >> 2.
  put(regs, 4, 8, 2, 16, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
    r = (i < 2 || (i >= 4 && i < 6)) ? l / 4 : l / 4 + 8;
    c = (l % 4) * 2 + (i & 1) + (i < 4 ? 0 : 8);
  }, [&](unsigned r, unsigned c) { return uint64_t(f16(A(r, c))); });
  put(regs, 8, 4, 2, 16, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
    r = (l % 4) * 2 + (i & 1) + (i < 2 ? 0 : 8);
    c = l / 4;
  }, [&](unsigned r, unsigned c) { return uint64_t(f16(B(r, c))); });
  const Layout acc = acc16x8;
  put(regs, 10, 4, 1, 32, acc, [&](unsigned r, unsigned c) { return uint64_t(f32(float(C(r, c)))); });
  run_and_visit(in, regs, 4, acc, [&](unsigned lane, unsigned i, unsigned r, unsigned c) {
    double want = C(r, c);
    for (unsigned k = 0; k < 16; ++k) want += A(r, k) * B(k, c);
    EXPECT_EQ(std::bit_cast<float>(uint32_t(regs.at(uint16_t(i), lane))), float(want)) << lane << " " << i;
  });
}

TEST(ComputeMma, F16AccumulatorPacksTwoElementsPerRegisterM16n8k8) {
  ptx::Instruction in = parse_one(
      "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r0,%r1}, {%r2,%r3}, {%r4}, {%r5,%r6};");
  auto A = [](unsigned i, unsigned k) { return double(int(i % 5) - int(k)); };
  auto B = [](unsigned k, unsigned j) { return double(k + j) / 2; };
  Regs regs;
  // m16n8k8 .f16: a0,a1 row groupID, a2,a3 row groupID + 8; col = tig * 2 + (i & 1).
  put(regs, 2, 4, 2, 16, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
    r = i < 2 ? l / 4 : l / 4 + 8;
    c = (l % 4) * 2 + (i & 1);
  }, [&](unsigned r, unsigned c) { return uint64_t(f16(A(r, c))); });
  put(regs, 4, 2, 2, 16, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
    r = (l % 4) * 2 + i;
    c = l / 4;
  }, [&](unsigned r, unsigned c) { return uint64_t(f16(B(r, c))); });
  const Layout acc = acc16x8;
  put(regs, 5, 4, 2, 16, acc, [&](unsigned, unsigned) { return uint64_t(f16(1.5)); });
  run_and_visit(in, regs, 4, acc, [&](unsigned lane, unsigned i, unsigned r, unsigned c) {
    double want = 1.5;
    for (unsigned k = 0; k < 8; ++k) want += A(r, k) * B(k, c);
    EXPECT_EQ(uint16_t(regs.at(uint16_t(i / 2), lane) >> (16 * (i % 2))), f16(want)) << lane << " " << i;
  });
}

TEST(ComputeMma, Tf32UsesTheTop19BitsM16n8k8) {
  ptx::Instruction in = parse_one(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, "
      "{%r10,%r11,%r12,%r13};");
  // The low 13 bits of an f32 are not part of tf32: 2^-12 is below a tf32 ulp for values of 4 and more.
  auto base = [](unsigned i, unsigned k) { return float(int(i) - int(k) + 20); };
  auto A = [&](unsigned i, unsigned k) { return f32(base(i, k) + 0x1p-12f); };
  auto B = [](unsigned k, unsigned j) { return f32(float(k * j % 7) + 1.0f); };
  Regs regs;
  // m16n8k8 .tf32: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); b0 (t, g), b1 (t + 4, g).
  put(regs, 4, 4, 1, 32, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
    r = l / 4 + (i % 2 ? 8 : 0);
    c = l % 4 + (i >= 2 ? 4 : 0);
  }, [&](unsigned r, unsigned c) { return uint64_t(A(r, c)); });
  put(regs, 8, 2, 1, 32, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
    r = l % 4 + (i ? 4 : 0);
    c = l / 4;
  }, [&](unsigned r, unsigned c) { return uint64_t(B(r, c)); });
  const Layout acc = acc16x8;
  run_and_visit(in, regs, 4, acc, [&](unsigned lane, unsigned i, unsigned r, unsigned c) {
    float want = 0;
    for (unsigned k = 0; k < 8; ++k) want += base(r, k) * std::bit_cast<float>(B(k, c));
    EXPECT_EQ(std::bit_cast<float>(uint32_t(regs.at(uint16_t(i), lane))), want) << lane << " " << i;
  });
}

TEST(ComputeMma, F64M8n8k4) {
  ptx::Instruction in = parse_one("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%r0,%r1}, {%r2}, {%r3}, {%r4,%r5};");
  auto A = [](unsigned i, unsigned k) { return 1.0 / (1 << i) + double(k); };
  auto B = [](unsigned k, unsigned j) { return double(j) - double(k) * 0.25; };
  Regs regs;
  // m8n8k4 .f64: a0 (g, t); b0 (t, g); c0, c1 (g, 2t + i).
  put(regs, 2, 1, 1, 64, [](unsigned l, unsigned, unsigned& r, unsigned& c) { r = l / 4, c = l % 4; },
      [&](unsigned r, unsigned c) { return std::bit_cast<uint64_t>(A(r, c)); });
  put(regs, 3, 1, 1, 64, [](unsigned l, unsigned, unsigned& r, unsigned& c) { r = l % 4, c = l / 4; },
      [&](unsigned r, unsigned c) { return std::bit_cast<uint64_t>(B(r, c)); });
  Layout acc = [](unsigned l, unsigned i, unsigned& r, unsigned& c) { r = l / 4, c = (l % 4) * 2 + i; };
  put(regs, 4, 2, 1, 64, acc, [&](unsigned r, unsigned c) { return std::bit_cast<uint64_t>(double(r + c)); });
  run_and_visit(in, regs, 2, acc, [&](unsigned lane, unsigned i, unsigned r, unsigned c) {
    double want = double(r + c);
    for (unsigned k = 0; k < 4; ++k) want = std::fma(A(r, k), B(k, c), want);
    EXPECT_EQ(std::bit_cast<double>(regs.at(uint16_t(i), lane)), want) << lane << " " << i;
  });
}

TEST(ComputeMma, S8M16n8k32WrapsOrSaturates) {
  const char* kOps = " {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};";
  for (bool sat : {false, true}) {
    ptx::Instruction in = parse_one(std::string("mma.sync.aligned.m16n8k32.row.col") + (sat ? ".satfinite" : "") +
                                    ".s32.s8.u8.s32" + kOps);
    auto A = [](unsigned i, unsigned k) { return i == 0 ? int64_t(100) : int64_t((i * 7 + k * 3) % 256) - 128; };
    auto B = [](unsigned k, unsigned j) { return int64_t((k * 5 + j * 11) % 256); };
    auto C = [](unsigned i, unsigned) { return i == 0 ? int64_t(INT32_MAX) - 1000 : int64_t(i) - 8; };
    Regs regs;
    // m16n8k32 .s8: row groupID for a0-a3 and a8-a11, else groupID + 8; col tig*4 + (i & 3) (+16 for i >= 8).
    put(regs, 4, 16, 4, 8, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
      r = (i < 4 || (i >= 8 && i < 12)) ? l / 4 : l / 4 + 8;
      c = (l % 4) * 4 + (i & 3) + (i >= 8 ? 16 : 0);
    }, [&](unsigned r, unsigned c) { return uint64_t(A(r, c)); });
    // b: row tig*4 + (i & 3) (+16 for i >= 4), col groupID.
    put(regs, 8, 8, 4, 8, [](unsigned l, unsigned i, unsigned& r, unsigned& c) {
      r = (l % 4) * 4 + (i & 3) + (i >= 4 ? 16 : 0);
      c = l / 4;
    }, [&](unsigned r, unsigned c) { return uint64_t(B(r, c)); });
    const Layout acc = acc16x8;
    put(regs, 10, 4, 1, 32, acc, [&](unsigned r, unsigned c) { return uint64_t(C(r, c)); });
    bool saw_overflow = false;
    run_and_visit(in, regs, 4, acc, [&](unsigned lane, unsigned i, unsigned r, unsigned c) {
      int64_t want = C(r, c);
      for (unsigned k = 0; k < 32; ++k) want += A(r, k) * B(k, c);
      saw_overflow |= want > INT32_MAX;
      const int32_t expect = sat ? int32_t(std::min<int64_t>(want, INT32_MAX)) : int32_t(uint32_t(want));
      EXPECT_EQ(int32_t(uint32_t(regs.at(uint16_t(i), lane))), expect) << lane << " " << i;
    });
    EXPECT_TRUE(saw_overflow);  // the case the two forms differ on is exercised
  }
}

TEST(ComputeMma, B1XorAndPopcM8n8k128) {
  for (bool use_and : {false, true}) {
    ptx::Instruction in = parse_one(std::string("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32") +
                                    (use_and ? ".and" : ".xor") + ".popc {%r0,%r1}, {%r2}, {%r3}, {%r4,%r5};");
    auto A = [](unsigned i, unsigned k) { return uint64_t((i * k + k / 3) % 3 == 0); };
    auto B = [](unsigned k, unsigned j) { return uint64_t((k + j) % 5 < 2); };
    Regs regs;
    // m8n8k128 .b1: a (g, tig*32 + i), b (tig*32 + i, g), c (g, 2*tig + i).
    put(regs, 2, 32, 32, 1, [](unsigned l, unsigned i, unsigned& r, unsigned& c) { r = l / 4, c = (l % 4) * 32 + i; },
        A);
    put(regs, 3, 32, 32, 1, [](unsigned l, unsigned i, unsigned& r, unsigned& c) { r = (l % 4) * 32 + i, c = l / 4; },
        B);
    Layout acc = [](unsigned l, unsigned i, unsigned& r, unsigned& c) { r = l / 4, c = (l % 4) * 2 + i; };
    put(regs, 4, 2, 1, 32, acc, [](unsigned r, unsigned) { return uint64_t(r); });
    run_and_visit(in, regs, 2, acc, [&](unsigned lane, unsigned i, unsigned r, unsigned c) {
      uint32_t want = r;
      for (unsigned k = 0; k < 128; ++k) want += use_and ? (A(r, k) & B(k, c)) : (A(r, k) ^ B(k, c));
      EXPECT_EQ(uint32_t(regs.at(uint16_t(i), lane)), want) << lane << " " << i;
    });
  }
}

TEST(ComputeMma, ShapesAndTypesOutsideSm80AreUnsupported) {
  const std::string head = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n .reg .b32 %r<40>;\n";
  for (const char* bad : {
           "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r6,%r7}, {%r8,%r9,%r10,%r11};",
           "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r0,%r1}, {%r2,%r3,%r4,%r5}, {%r6,%r7}, {%r8,%r9};",
           "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
       }) {
    ptx::Module m = ptx::parse_ptx(head + bad + "\n ret;\n}\n", "bad.ptx");
    ASSERT_EQ(m.unsupported.size(), 1u) << bad;
    EXPECT_NE(m.unsupported[0].construct.find("mma.sync"), std::string::npos) << m.unsupported[0].construct;
  }
  // A fragment of the wrong size is malformed PTX.
  EXPECT_THROW(ptx::parse_ptx(head + "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r0,%r1,%r2,%r3}, "
                                     "{%r4,%r5}, {%r8,%r9}, {%r10,%r11,%r12,%r13};\n ret;\n}\n",
                              "bad.ptx"),
               LoadError);
}

TEST(ComputeMma, CvtRnaTf32RoundsTiesAwayFromZero) {
  ptx::Instruction in = parse_one("cvt.rna.tf32.f32 %r0, %r1;");
  Regs regs;
  const uint32_t inputs[] = {0x3f801000u,  // 1 + half an ulp of tf32: away from zero
                             0x3f800fffu,  // just below: down
                             0xbf801000u,  // negative tie: away from zero
                             0x7f7fffffu,  // largest f32: rounds to infinity
                             0x7fc00001u}; // NaN stays NaN
  const uint32_t expect[] = {0x3f802000u, 0x3f800000u, 0xbf802000u, 0x7f800000u, 0x7fc00000u};
  for (unsigned l = 0; l < 5; ++l) regs.at(1, l) = inputs[l];
  exec::StepContext ctx = regs.ctx(0x1f);
  in.handler(ctx, in);
  for (unsigned l = 0; l < 5; ++l) EXPECT_EQ(uint32_t(regs.at(0, l)), expect[l]) << l;
}

}  // namespace
}  // namespace gpumux::test
