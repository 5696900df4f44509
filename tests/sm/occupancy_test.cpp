// sm/occupancy: a TB's rounded needs and how many TBs fit an empty SM, the
// rule shared by TB placement, the cooperative-launch limit and the CUDA
// occupancy API.
#include "gpumux/sm/occupancy.h"

#include <gtest/gtest.h>

#include "gpumux/exec/loaded_module.h"

namespace gpumux::sm {
namespace {

SmParams sm_params() {
  SmParams p;
  p.tb_slots = 16;
  p.warp_slots = 64;
  p.max_threads = 2048;
  p.registers = 65536;
  p.shared_mem_bytes = 49152;
  p.register_granularity = 256;
  p.shared_mem_granularity = 256;
  return p;
}

TEST(Occupancy, NeedsAreRoundedToTheAllocationGranularities) {
  exec::KernelLayout kl;
  kl.resources.registers = 30;
  kl.shared.dynamic_offset = 1000;
  TbNeeds n = tb_needs(kl, 100, 24, sm_params());
  EXPECT_EQ(n.threads, 100u);
  EXPECT_EQ(n.warps, 4u);
  EXPECT_EQ(n.registers, 30u * 4 * 32);  // 3840, a multiple of 256
  EXPECT_EQ(n.shared_bytes, 1024u);      // 1024 B rounded up from 1000 + 24
}

TEST(Occupancy, RegisterEstimatesAloneNeverKeepATbOffAnEmptySm) {
  exec::KernelLayout kl;
  kl.resources.registers = 255;
  TbNeeds n = tb_needs(kl, 1024, 0, sm_params());
  EXPECT_EQ(n.registers, 65536u);
  EXPECT_EQ(tbs_per_empty_sm(n, sm_params()), 1u);
}

TEST(Occupancy, TheTightestResourceDecides) {
  SmParams p = sm_params();
  EXPECT_EQ(tbs_per_empty_sm({.warps = 1, .threads = 32, .registers = 0, .shared_bytes = 0}, p), 16u);  // TB slots
  EXPECT_EQ(tbs_per_empty_sm({.warps = 8, .threads = 256, .registers = 0, .shared_bytes = 0}, p), 8u);  // warps
  EXPECT_EQ(tbs_per_empty_sm({.warps = 2, .threads = 64, .registers = 16384, .shared_bytes = 0}, p), 4u);
  EXPECT_EQ(tbs_per_empty_sm({.warps = 2, .threads = 64, .registers = 0, .shared_bytes = 20000}, p), 2u);
  EXPECT_EQ(tbs_per_empty_sm({.warps = 2, .threads = 64, .registers = 0, .shared_bytes = 60000}, p), 0u);
}

}  // namespace
}  // namespace gpumux::sm
