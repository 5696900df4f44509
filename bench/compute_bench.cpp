// Throughput of the compute handlers: one bound handler executing a warp
// instruction over a local register file, reported as lanes per second.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "gpumux/exec/step_context.h"

namespace {

using namespace gpumux;
using ptx::Opcode;
using ptx::Type;

ptx::Operand reg(uint16_t r) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Reg;
  o.reg = r;
  return o;
}
ptx::Operand pred(uint16_t p) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Pred;
  o.reg = p;
  return o;
}
ptx::Operand imm(uint64_t v) {
  ptx::Operand o;
  o.kind = ptx::OperandKind::Imm;
  o.imm = v;
  return o;
}

void run(benchmark::State& state, ptx::Instruction in, uint32_t mask = exec::kFullMask) {
  std::string why;
  in.handler = exec::bind_compute(in, why);
  if (!in.handler) {
    state.SkipWithError(why.c_str());
    return;
  }
  std::vector<uint64_t> regs(8 * exec::kWarpSize);
  std::mt19937 rng(1);
  for (uint64_t& r : regs) r = std::bit_cast<uint32_t>(float(rng() % 1000) * 0.37f);
  uint32_t preds[4] = {};
  exec::StepContext ctx;
  ctx.mask = mask;
  ctx.regs = regs.data();
  ctx.preds = preds;
  for (auto _ : state) {
    in.handler(ctx, in);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::popcount(mask));
}

ptx::Instruction make(Opcode op, Type t, std::initializer_list<ptx::Operand> ops, Type t2 = Type::None) {
  ptx::Instruction in;
  in.op = op;
  in.type = t;
  in.type2 = t2;
  for (const ptx::Operand& o : ops) in.ops[in.nops++] = o;
  return in;
}

void BM_AddS32(benchmark::State& s) { run(s, make(Opcode::Add, Type::S32, {reg(0), reg(1), reg(2)})); }
void BM_AddS32Imm(benchmark::State& s) { run(s, make(Opcode::Add, Type::S32, {reg(0), reg(1), imm(1)})); }
void BM_AddS32HalfMask(benchmark::State& s) {
  run(s, make(Opcode::Add, Type::S32, {reg(0), reg(1), reg(2)}), 0x0000ffff);
}
void BM_MulWideS32(benchmark::State& s) {
  auto in = make(Opcode::Mul, Type::S32, {reg(0), reg(1), reg(2)});
  in.mul = ptx::MulMode::Wide;
  run(s, in);
}
void BM_AddF32(benchmark::State& s) { run(s, make(Opcode::Add, Type::F32, {reg(0), reg(1), reg(2)})); }
void BM_FmaRnF32(benchmark::State& s) {
  auto in = make(Opcode::Fma, Type::F32, {reg(0), reg(1), reg(2), reg(3)});
  in.rnd = ptx::Rounding::Rn;
  run(s, in);
}
void BM_FmaRzF32(benchmark::State& s) {
  auto in = make(Opcode::Fma, Type::F32, {reg(0), reg(1), reg(2), reg(3)});
  in.rnd = ptx::Rounding::Rz;
  run(s, in);
}
void BM_AddF16x2(benchmark::State& s) { run(s, make(Opcode::Add, Type::F16x2, {reg(0), reg(1), reg(2)})); }
void BM_CvtRnF32S32(benchmark::State& s) {
  auto in = make(Opcode::Cvt, Type::F32, {reg(0), reg(1)}, Type::S32);
  in.rnd = ptx::Rounding::Rn;
  run(s, in);
}
void BM_CvtRziS32F32(benchmark::State& s) {
  auto in = make(Opcode::Cvt, Type::S32, {reg(0), reg(1)}, Type::F32);
  in.rnd = ptx::Rounding::Rzi;
  run(s, in);
}
void BM_CvtS64S32(benchmark::State& s) { run(s, make(Opcode::Cvt, Type::S64, {reg(0), reg(1)}, Type::S32)); }
void BM_CvtRnF16F32(benchmark::State& s) {
  auto in = make(Opcode::Cvt, Type::F16, {reg(0), reg(1)}, Type::F32);
  in.rnd = ptx::Rounding::Rn;
  run(s, in);
}
void BM_SetpLtS32(benchmark::State& s) {
  auto in = make(Opcode::Setp, Type::S32, {pred(0), reg(1), reg(2)}, Type::S32);
  in.cmp = ptx::CmpOp::Lt;
  run(s, in);
}
void BM_SetpLtF32(benchmark::State& s) {
  auto in = make(Opcode::Setp, Type::F32, {pred(0), reg(1), reg(2)}, Type::F32);
  in.cmp = ptx::CmpOp::Lt;
  run(s, in);
}
void BM_SelpB32(benchmark::State& s) { run(s, make(Opcode::Selp, Type::B32, {reg(0), reg(1), reg(2), pred(1)})); }
void BM_ShlB32(benchmark::State& s) { run(s, make(Opcode::Shl, Type::B32, {reg(0), reg(1), imm(2)})); }

BENCHMARK(BM_AddS32);
BENCHMARK(BM_AddS32Imm);
BENCHMARK(BM_AddS32HalfMask);
BENCHMARK(BM_MulWideS32);
BENCHMARK(BM_AddF32);
BENCHMARK(BM_FmaRnF32);
BENCHMARK(BM_FmaRzF32);
BENCHMARK(BM_AddF16x2);
BENCHMARK(BM_CvtRnF32S32);
BENCHMARK(BM_CvtRziS32F32);
BENCHMARK(BM_CvtS64S32);
BENCHMARK(BM_CvtRnF16F32);
BENCHMARK(BM_SetpLtS32);
BENCHMARK(BM_SetpLtF32);
BENCHMARK(BM_SelpB32);
BENCHMARK(BM_ShlB32);

}  // namespace

BENCHMARK_MAIN();
