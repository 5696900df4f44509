// The decision of the QoS TB adjustment (ISCA'17 3.6, gpu/qos/tb_adjustment.h)
// on hand-made epochs: who gets one more TB on which SM and which victim
// leaves, by the paper's rules. One SM of gtx980's size unless said.
#include <gtest/gtest.h>

#include <vector>

#include "gpumux/gpu/qos/tb_adjustment.h"

namespace gpumux::gpu {
namespace {

// 32 TB slots, 64 warps, 2048 threads, 64K registers, 96 KB shared memory.
const frontend::policy::Amounts kSm{32, 64, 2048, 65536, 98304};

// A kernel of `threads`-thread TBs (32 registers per thread), resident `tbs`
// per SM with `idle` mean idle warps per SM.
TbKernel kernel(uint32_t id, std::optional<double> goal, std::optional<double> history, uint32_t threads,
                std::vector<uint32_t> tbs, std::vector<double> idle, bool tbs_left = true) {
  TbKernel k;
  k.kernel = id;
  k.goal = goal;
  k.ipc_history = history;
  k.tbs_left = tbs_left;
  k.warps_per_tb = threads / 32;
  k.need = {1, threads / 32, threads, threads * 32, 0};
  k.tbs = std::move(tbs);
  k.idle_warps = std::move(idle);
  return k;
}

TEST(TbAdjustment, QosKernelBelowItsGoalWithFewIdleTbsGetsOneMoreTbWhereItFits) {
  // 4 TBs of 256 threads + 4 of 128: a quarter of the SM free.
  std::vector<TbKernel> ks{kernel(1, 100.0, 80.0, 256, {4, 4}, {8, 15.9}), kernel(2, {}, 500.0, 128, {4, 4}, {0, 0})};
  // SM 0: 8 idle warps = 1 idle TB (<= 1): one more; SM 1: 15.9 idle warps, still 1 idle TB.
  EXPECT_EQ(plan_tb_moves(ks, kSm, true), (std::vector<TbMove>{{0, 1, 0, 0}, {1, 1, 0, 0}}));
  ks[0].idle_warps = {16, 24};  // two idle TBs or more: enough TLP
  EXPECT_TRUE(plan_tb_moves(ks, kSm, true).empty());
}

TEST(TbAdjustment, NoTbWhileTheShareIsStillBeingPlacedUnlessOthersHoldTheRoom) {
  std::vector<TbKernel> ks{kernel(1, 100.0, 80.0, 256, {2, 4}, {0, 0}), kernel(2, {}, 500.0, 128, {4, 4}, {0, 0})};
  ks[0].share = {4, 4};  // SM 0: two of its four TBs still to be placed there
  EXPECT_EQ(plan_tb_moves(ks, kSm, true), (std::vector<TbMove>{{1, 1, 0, 0}}));
  // Short of its share because another kernel holds the room: a swap.
  ks[1].tbs = {12, 4};  // SM 0: 2 x 256 + 12 x 128 threads, full
  EXPECT_EQ(plan_tb_moves(ks, kSm, true), (std::vector<TbMove>{{0, 1, 2, 2}, {1, 1, 0, 0}}));
}

TEST(TbAdjustment, NoTbForAKernelAtItsGoalWithoutHistoryOrWithNothingLeftToPlace) {
  std::vector<TbKernel> ks{kernel(1, 100.0, 100.0, 256, {4}, {0}), kernel(2, {}, 500.0, 256, {4}, {0})};
  EXPECT_TRUE(plan_tb_moves(ks, kSm, true).empty());  // IPC_history reached the goal
  ks[0].ipc_history.reset();
  EXPECT_TRUE(plan_tb_moves(ks, kSm, true).empty());  // no finished epoch yet
  ks[0] = kernel(1, 100.0, 50.0, 256, {4}, {0}, false);
  EXPECT_TRUE(plan_tb_moves(ks, kSm, true).empty());  // every TB placed: more share gives no TLP
  ks[0] = kernel(1, {}, 50.0, 256, {4}, {0});
  EXPECT_TRUE(plan_tb_moves(ks, kSm, true).empty());  // non-QoS kernels never ask
}

TEST(TbAdjustment, FullSmSwapsOutTheFewestTbsOfANonQosVictim) {
  // SM full of threads: 4 x 256 + 8 x 128. One more 256-thread TB needs two 128-thread TBs out.
  std::vector<TbKernel> ks{kernel(1, 100.0, 60.0, 256, {4}, {0}), kernel(2, {}, 900.0, 128, {8}, {0})};
  EXPECT_EQ(plan_tb_moves(ks, kSm, true), (std::vector<TbMove>{{0, 1, 2, 2}}));
  // A pending preemption: no swap this epoch.
  EXPECT_TRUE(plan_tb_moves(ks, kSm, false).empty());
  // Each possible victim holds fewer TBs than must leave (8 of 128 threads): none.
  ks = {kernel(1, 100.0, 60.0, 1024, {1}, {0}), kernel(2, {}, 900.0, 128, {4}, {0}),
        kernel(3, 100.0, 100.0, 128, {4}, {0})};
  EXPECT_TRUE(plan_tb_moves(ks, kSm, true).empty());
}

TEST(TbAdjustment, QosVictimsNeedIdleTbsOrIpcMarginAndComeAfterNonQosOnes) {
  // Kernel 1 wants a 256-thread TB; SM full with kernel 2 (QoS, 4 x 256) and kernel 3 (non-QoS, 4 x 256).
  auto gainer = kernel(1, 100.0, 60.0, 256, {0}, {0});
  auto qos_victim = [](std::optional<double> history, double idle, uint32_t tbs_elsewhere) {
    return kernel(2, 100.0, history, 256, {4, tbs_elsewhere}, {idle, 0}, false);  // asks for nothing itself
  };
  auto non_qos = kernel(3, {}, 500.0, 256, {4, 0}, {0, 0});
  gainer.tbs = {0, 8};  // SM 1 has room (8 TBs of 256 = full; kernel 2 has tbs_elsewhere there)
  gainer.idle_warps = {0, 16};  // SM 1: two idle TBs, it asks there for nothing
  {
    std::vector<TbKernel> ks{gainer, qos_victim(150.0, 0, 0), non_qos};
    EXPECT_EQ(plan_tb_moves(ks, kSm, true), (std::vector<TbMove>{{0, 1, 3, 1}}));  // the non-QoS one first
  }
  auto full_of = [&](TbKernel v) {  // SM 0 full of kernel 2 only
    v.tbs[0] = 8;
    return std::vector<TbKernel>{gainer, v};
  };
  // Idle TBs: at least n + 1 = 2 (16 idle warps of 8-warp TBs), not 1.
  EXPECT_EQ(plan_tb_moves(full_of(qos_victim(90.0, 16, 0)), kSm, true), (std::vector<TbMove>{{0, 1, 2, 1}}));
  EXPECT_TRUE(plan_tb_moves(full_of(qos_victim(90.0, 15, 0)), kSm, true).empty());
  // IPC margin: IPC_history x (1 - n / N) > goal with N its TBs on all SMs (8 here, 8 + 8 with SM 1's).
  EXPECT_EQ(plan_tb_moves(full_of(qos_victim(120.0, 0, 0)), kSm, true), (std::vector<TbMove>{{0, 1, 2, 1}}));
  EXPECT_TRUE(plan_tb_moves(full_of(qos_victim(114.0, 0, 0)), kSm, true).empty());  // 114 x 7/8 < 100
  EXPECT_EQ(plan_tb_moves(full_of(qos_victim(107.0, 0, 8)), kSm, true),
            (std::vector<TbMove>{{0, 1, 2, 1}}));  // 107 x 15/16 > 100
}

}  // namespace
}  // namespace gpumux::gpu
