// The QAWS warp scheduler (DATE'22, algorithm 1) on synthetic warps: groups by
// budget, GTO inside a group, priority handed on when a group's count of
// context switches reaches its budget; generalised to N groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gpumux/sm/warp_scheduler/warp_scheduler.h"
#include "sm/warp_views.h"

namespace gpumux::sm {
namespace {

// Warps in slot order, oldest first, all ready; each kernel's budget is its id.
std::vector<WarpView> warps_with(const std::vector<uint32_t>& budgets) {
  std::vector<WarpView> ws = test::ready_warps(budgets);
  for (WarpView& w : ws) w.budget = w.kernel;
  return ws;
}

// The slot picked with only `ready` slots ready (-1: none picked).
int pick_with(WarpScheduler& s, std::vector<WarpView> ws, std::vector<uint16_t> ready) {
  for (WarpView& w : ws) w.ready = std::find(ready.begin(), ready.end(), w.slot) != ready.end();
  int i = s.pick(ws);
  return i < 0 ? -1 : ws[size_t(i)].slot;
}

TEST(Qaws, EqualBudgetsAreGto) {
  auto qaws = make_warp_scheduler("qaws", SmParams{});
  auto gto = make_warp_scheduler("gto", SmParams{});
  std::vector<WarpView> ws = warps_with({3, 3, 3, 3, 3, 3});
  std::mt19937 rng(5);
  int differing_from_oldest = 0;
  for (int cycle = 0; cycle < 2000; ++cycle) {
    std::vector<WarpView> now = ws;
    bool any = false;
    for (WarpView& w : now) any |= (w.ready = rng() % 3 != 0);
    if (!any) continue;
    int a = qaws->pick(now), b = gto->pick(now);
    ASSERT_EQ(a, b) << "cycle " << cycle;
    for (size_t i = 0; i < now.size(); ++i)
      if (now[i].ready) {
        differing_from_oldest += int(i) != a;  // greedy choices, not just the oldest
        break;
      }
  }
  EXPECT_GT(differing_from_oldest, 100);
}

TEST(Qaws, HigherBudgetFirstThenSwitchesAfterItsBudget) {
  // K1 (budget 1): slots 0-2, older; K2 (budget 2): slots 3-5, younger.
  auto s = make_warp_scheduler("qaws", SmParams{});
  std::vector<WarpView> ws = warps_with({1, 1, 1, 2, 2, 2});
  std::vector<uint16_t> all = {0, 1, 2, 3, 4, 5};
  // No history: the highest budget's group goes first, GTO inside it (its oldest).
  EXPECT_EQ(pick_with(*s, ws, all), 3);
  EXPECT_EQ(pick_with(*s, ws, all), 3);  // greedy
  uint16_t slot;
  uint64_t age;
  ASSERT_TRUE(s->sticky(slot, age));
  EXPECT_EQ(slot, 3);
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 2, 4, 5}), 4);  // 3 stalls: switch inside K2 (ncs 1)
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 2, 3, 5}), 3);  // 4 stalls: ncs 2, the oldest ready of K2
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 2, 4, 5}), 0);  // 3 stalls with ncs = budget: K1's turn
  EXPECT_EQ(pick_with(*s, ws, all), 0);              // greedy inside K1
  EXPECT_EQ(pick_with(*s, ws, {1, 2, 3, 4, 5}), 1);  // 0 stalls: K1's one switch
  EXPECT_EQ(pick_with(*s, ws, {0, 2, 3, 4, 5}), 3);  // 1 stalls: budget 1 reached, back to K2
}

TEST(Qaws, AStallWithNothingElseReadyInTheGroupIsNoSwitch) {
  auto s = make_warp_scheduler("qaws", SmParams{});
  std::vector<WarpView> ws = warps_with({1, 1, 4, 4});
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 2, 3}), 2);
  // K2's warps all stall: K1 issues meanwhile, K2 keeps priority and its count.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(pick_with(*s, ws, {0, 1}), 0);
  uint16_t slot;
  uint64_t age;
  EXPECT_FALSE(s->sticky(slot, age));  // the greedy warp is not of the prioritized group
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 3}), 3);  // K2 ready again: it goes first
  // Four switches inside K2 (3 -> 2 -> 3 -> 2 -> 3), the fifth stall hands over.
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 2}), 2);
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 3}), 3);
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 2}), 2);
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 3}), 3);
  EXPECT_EQ(pick_with(*s, ws, {0, 1, 2}), 0);
}

TEST(Qaws, ThreeGroupsTakeTurnsByDecreasingBudget) {
  // Budgets 1, 2 and 3, one kernel each with two warps.
  auto s = make_warp_scheduler("qaws", SmParams{});
  std::vector<WarpView> ws = warps_with({1, 1, 2, 2, 3, 3});
  std::vector<uint16_t> all = {0, 1, 2, 3, 4, 5};
  // Alternate stalls so that every stall of the prioritized greedy warp is a switch;
  // record which group issues at each hand-over.
  std::vector<uint32_t> owners;
  int last = pick_with(*s, ws, all);
  EXPECT_EQ(last, 4);  // budget 3 has priority first
  for (int step = 0; step < 40; ++step) {
    std::vector<uint16_t> ready;
    for (uint16_t r : all)
      if (r != last) ready.push_back(r);
    int next = pick_with(*s, ws, ready);
    if (ws[size_t(next)].budget != ws[size_t(last)].budget) owners.push_back(ws[size_t(next)].budget);
    last = next;
  }
  ASSERT_GE(owners.size(), 6u);
  // Then 2, then 1, then 3 again.
  for (size_t i = 0; i + 1 < owners.size(); ++i)
    EXPECT_EQ(owners[i + 1], owners[i] == 1 ? 3u : owners[i] - 1) << "hand-over " << i;
  EXPECT_EQ(owners[0], 2u);
}

TEST(Qaws, ShareOfIssueGrowsWithTheBudget) {
  // Every issued warp stalls for the next cycle: with budgets 1 and b, K2 gets
  // b + 1 issues for each 2 of K1 (a switch per stall, budget + 1 issues per turn).
  for (uint32_t b : {2u, 4u, 8u}) {
    auto s = make_warp_scheduler("qaws", SmParams{});
    std::vector<WarpView> ws = warps_with({1, 1, 1, 1, b, b, b, b});
    int last = -1, k2 = 0, total = 0;
    for (int cycle = 0; cycle < 3000; ++cycle) {
      std::vector<uint16_t> ready;
      for (uint16_t r = 0; r < 8; ++r)
        if (r != last) ready.push_back(r);
      last = pick_with(*s, ws, ready);
      k2 += ws[size_t(last)].budget == b;
      ++total;
    }
    EXPECT_NEAR(double(k2) / total, double(b + 1) / double(b + 3), 0.01) << "budget " << b;
  }
}

}  // namespace
}  // namespace gpumux::sm
