// Kernel-aware warp schedulers (GPU Maestro 4.3) on synthetic warps: GTO
// inside a kernel, a kernel-level choice between kernels, urgent warps first.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"
#include "sm/warp_views.h"

namespace gpumux::sm {
namespace {

using test::ready_warps;

TEST(KernelAware, NoneIsGtoWhenNothingIsUrgent) {
  auto none = make_warp_scheduler("ka-none", SmParams{});
  auto gto = make_warp_scheduler("gto", SmParams{});
  std::vector<WarpView> ws = ready_warps({1, 1, 2, 2, 3});
  std::mt19937 rng(3);
  for (int cycle = 0; cycle < 1000; ++cycle) {
    std::vector<WarpView> now = ws;
    bool any = false;
    for (WarpView& w : now) any |= (w.ready = rng() % 2 != 0);
    if (!any) continue;
    ASSERT_EQ(none->pick(now), gto->pick(now)) << "cycle " << cycle;
  }
}

TEST(KernelAware, LrrAlternatesKernelsGtoInside) {
  auto s = make_warp_scheduler("ka-lrr", SmParams{});
  std::vector<WarpView> ws = ready_warps({1, 1, 2, 2});
  std::vector<int> picks;
  for (int i = 0; i < 6; ++i) picks.push_back(s->pick(ws));
  // Kernels 1 and 2 take turns (1 first: it follows none); inside each, its oldest.
  EXPECT_EQ(picks, (std::vector<int>{0, 2, 0, 2, 0, 2}));
  ws[0].ready = false;  // kernel 1's greedy warp stalls: its other warp
  EXPECT_EQ(s->pick(ws), 1);
  EXPECT_EQ(s->pick(ws), 2);
  ws[0].ready = true;  // GTO inside kernel 1: its greedy warp 1 stays before the older 0
  EXPECT_EQ(s->pick(ws), 1);
  ws[2].ready = ws[3].ready = false;  // only kernel 1 ready: no turn to wait for
  EXPECT_EQ(s->pick(ws), 1);
  EXPECT_EQ(s->pick(ws), 1);
}

TEST(KernelAware, IprFavoursTheKernelThatIssuedLeastPerReadyWarp) {
  auto s = make_warp_scheduler("ka-ipr", SmParams{});
  // Kernel 1 has three ready warps a cycle, kernel 2 one: equal issue counts
  // need kernel 1 to have a lower ratio, so kernel 1 issues about 3x as often.
  std::vector<WarpView> ws = ready_warps({2, 1, 1, 1});
  int k1 = 0;
  for (int i = 0; i < 400; ++i) k1 += ws[size_t(s->pick(ws))].kernel == 1;
  EXPECT_NEAR(k1 / 400.0, 0.75, 0.02);
}

TEST(KernelAware, FairSharesIssueSlotsByIsolatedRateAndResidency) {
  auto s = make_warp_scheduler("ka-fair", SmParams{});
  // C_1 = 2 x 0.3 and C_2 = 2 x 0.1: kernel 1 should get 3/4 of the slots.
  std::vector<WarpView> ws = ready_warps({2, 2, 1, 1});
  for (WarpView& w : ws) w.fair_weight = w.kernel == 1 ? 0.3f : 0.1f;
  int k1 = 0;
  for (int i = 0; i < 400; ++i) k1 += ws[size_t(s->pick(ws))].kernel == 1;
  EXPECT_NEAR(k1 / 400.0, 0.75, 0.01);
  // A kernel without an isolated rate issues only when no other kernel can.
  auto t = make_warp_scheduler("ka-fair", SmParams{});
  for (WarpView& w : ws) w.fair_weight = w.kernel == 1 ? 0.3f : 0.0f;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ws[size_t(t->pick(ws))].kernel, 1u);
  ws[2].ready = ws[3].ready = false;
  EXPECT_EQ(ws[size_t(t->pick(ws))].kernel, 2u);
}

TEST(KernelAware, UrgentWarpsGoFirst) {
  for (const char* name : {"ka-none", "ka-lrr", "ka-ipr", "ka-fair"}) {
    auto s = make_warp_scheduler(name, SmParams{});
    std::vector<WarpView> ws = ready_warps({1, 1, 2, 2});
    ws[3].urgent = true;  // a TB of kernel 2 being drained
    for (int i = 0; i < 4; ++i) EXPECT_EQ(s->pick(ws), 3) << name;  // not the oldest, 0
  }
  // Urgent warps of several kernels: the kernel-level choice applies among them.
  auto lrr = make_warp_scheduler("ka-lrr", SmParams{});
  std::vector<WarpView> ws = ready_warps({1, 1, 2, 2});
  ws[1].urgent = ws[3].urgent = true;
  std::vector<int> picks;
  for (int i = 0; i < 4; ++i) picks.push_back(lrr->pick(ws));
  EXPECT_EQ(picks, (std::vector<int>{1, 3, 1, 3}));
}

}  // namespace
}  // namespace gpumux::sm
