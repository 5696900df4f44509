// Register-file banks and operand collector units (sm.operand_collector):
// the collector on its own, then dependent chains timed by a kernel.
#include "gpumux/sm/operand_collector.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gpumux/core/error.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::sm {
namespace {

SmOperandCollectorParams params(uint32_t banks, uint32_t units, uint32_t ports) {
  SmOperandCollectorParams p;
  p.banks = banks;
  p.collector_units = units;
  p.read_ports = ports;
  return p;
}

std::vector<RegRef> regs(std::initializer_list<uint16_t> indices) {
  std::vector<RegRef> v;
  for (uint16_t i : indices) v.push_back({i, false});
  return v;
}

TEST(SmOperandCollector, SameBankReadsTakeOneCycleEachBeyondTheFirst) {
  OperandCollector c(params(4, 1, 1));
  EXPECT_EQ(c.collect(regs({0, 1, 2}), 0, 0, 10), 0u);  // three banks
  EXPECT_EQ(c.unit_free(), 11u);
  EXPECT_EQ(c.collect(regs({0, 4, 8}), 0, 0, 11), 2u);  // bank 0 three times
  EXPECT_EQ(c.unit_free(), 14u);                        // the only unit is held meanwhile
}

TEST(SmOperandCollector, PortsDuplicatesPredicatesAndTheWarpSlotSkew) {
  OperandCollector two_ports(params(2, 1, 2));
  EXPECT_EQ(two_ports.collect(regs({0, 2}), 0, 0, 0), 0u);
  EXPECT_EQ(two_ports.collect(regs({0, 2, 4}), 0, 0, 1), 1u);  // ceil(3 / 2) cycles

  OperandCollector c(params(2, 2, 1));
  EXPECT_EQ(c.collect(regs({3, 3}), 0, 0, 0), 0u);  // one register, read once
  EXPECT_EQ(c.collect({{RegRef{0, true}, RegRef{2, true}}}, 0, 0, 1), 0u);  // predicates: no bank
  EXPECT_EQ(c.collect(regs({0, 1}), 7, 1, 2), 0u);  // frame base and slot shift both: banks 0, 1
  EXPECT_EQ(c.collect(regs({0, 2}), 7, 1, 3), 1u);
}

TEST(SmOperandCollector, ABankServesOneInstructionAtATime) {
  OperandCollector c(params(2, 2, 1));
  EXPECT_EQ(c.collect(regs({0, 2}), 0, 0, 10), 1u);  // bank 0 in cycles 10 and 11
  EXPECT_EQ(c.unit_free(), 0u);                       // the other unit, never used
  EXPECT_EQ(c.collect(regs({4}), 0, 0, 11), 1u);      // waits for bank 0 until 12
  EXPECT_EQ(c.unit_free(), 12u);                      // both held: until 12 and 13
  EXPECT_EQ(c.collect(regs({1}), 0, 0, 12), 0u);      // bank 1 was free
}

// A dependent chain of `steps` fp32 adds of %f0 and `other` (%f1: register
// 1, another bank; %f2: register 2, the same bank as %f0 with 2 banks),
// timed with %clock64. Registers are numbered on first use.
std::string chain_ptx(const char* other, int steps) {
  std::string body;
  for (int i = 0; i < steps; ++i) body += fmt::format("  add.f32 %f0, %f0, {};\n", other);
  return fmt::format(R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry chain(.param .u64 out)
{{
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  mov.f32 %f0, 0f3F800000;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F800000;
  mov.u64 %rd0, %clock64;
{}  mov.u64 %rd1, %clock64;
  sub.s64 %rd2, %rd1, %rd0;
  ld.param.u64 %rd3, [out];
  st.global.u64 [%rd3], %rd2;
  ret;
}}
)",
                     body);
}

struct ChainRun {
  uint64_t span = 0;       // clock cycles around the chain
  uint64_t conflicts = 0;  // sm*.operand_collector.conflict_cycles
  Cycle busy = 0;
};

ChainRun run_chain(const char* other, int steps, std::vector<std::string> overrides) {
  GpuConfig cfg = gpu::load_config("gtx980", overrides).values();
  std::unique_ptr<runtime::Device> dev = timing::make_device(cfg);
  runtime::Context& ctx = dev->create_context("chain");
  runtime::Module& mod = ctx.load_module_string(chain_ptx(other, steps), "chain.ptx");
  runtime::DevPtr out = ctx.malloc(8);
  ctx.launch(mod.kernel("chain"), {1}, {1}, out);
  ChainRun r;
  r.span = ctx.read<uint64_t>(out, 1)[0];
  r.busy = timing::backend_of(*dev).busy_cycles();
  r.conflicts = timing::backend_of(*dev).gpu().stats().sum("sm*.operand_collector.conflict_cycles");
  return r;
}

// Cycles per dependent step: the 64-step span minus the 32-step one, over 32.
double per_step(const char* other, std::vector<std::string> overrides) {
  return double(run_chain(other, 64, overrides).span - run_chain(other, 32, overrides).span) / 32;
}

TEST(SmOperandCollector, OperandsInOneBankDelayEachDependentStepByOneCycle) {
  const double latency = gpu::load_config("gtx980").values().sm.latency.fp32;
  const std::vector<std::string> on = {"sm.operand_collector.banks=2"};
  EXPECT_EQ(per_step("%f2", {}), latency);
  EXPECT_EQ(per_step("%f1", {}), latency);
  EXPECT_EQ(per_step("%f2", on), latency + 1);
  EXPECT_EQ(per_step("%f1", on), latency);
  // Two ports read both at once.
  EXPECT_EQ(per_step("%f2", {"sm.operand_collector.banks=2", "sm.operand_collector.read_ports=2"}), latency);
  // Every add conflicts; nothing else in the kernel reads two registers of one
  // bank.
  EXPECT_EQ(run_chain("%f2", 32, on).conflicts, 32u);
  EXPECT_EQ(run_chain("%f1", 32, on).conflicts, 0u);
}

TEST(SmOperandCollector, OffIsTheDefaultAndWithoutConflictsCostsNothing) {
  EXPECT_EQ(gpu::load_config("gtx980").values().sm.operand_collector.banks, 0u);
  EXPECT_EQ(run_chain("%f2", 32, {}).busy, run_chain("%f2", 32, {"sm.operand_collector.banks=0"}).busy);
  EXPECT_EQ(run_chain("%f1", 32, {}).busy, run_chain("%f1", 32, {"sm.operand_collector.banks=2"}).busy);
}

TEST(SmOperandCollector, BadValuesNameTheKey) {
  for (const char* bad : {"sm.operand_collector.banks=65", "sm.operand_collector.collector_units=0",
                          "sm.operand_collector.read_ports=0"}) {
    std::string key = std::string(bad).substr(0, std::string(bad).find('='));
    try {
      gpu::load_config("gtx980", std::vector<std::string>{bad});
      ADD_FAILURE() << bad << " accepted";
    } catch (const LoadError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpumux::sm
