// Unit tests of the thesis's kernel schedulers (policies/sm_ownership.h):
// kernel-fcfs, npq, ppq and dss decide which kernel owns each SM and which
// SMs are reserved (their TBs preempted: keep() == 0). Fake kernels stand for
// the arriving ones; where reservation matters, the SMs hold real TBs of a
// low-priority kernel placed by a timing device and frozen there (the
// simulation is not run on), so that the policy under test sees occupied SMs.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "frontend/frontend_test_util.h"
#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {
namespace {

using fixtures::allowed;
using fixtures::kernel;
using fixtures::range;
using fixtures::Sms;

constexpr uint32_t kUnl = SharingPolicy::kUnlimited;
constexpr uint32_t kOccupiedSms = 4;

// Four SMs, each holding 8 TBs (all it fits) of `low`: fma_chains of app 0,
// priority 0, 64 TBs of 256 threads, half of them still to place.
struct Occupied {
  Occupied() : dev("fcfs", {}, {"gpu.num_sms=4", "frontend.launch_latency=10"}, 1, fixtures::kTimingPtx) {
    dev.launch(0, "fma_chains", 64, 256, 16);
    for (uint32_t i = 0; i < kOccupiedSms; ++i) sms.push_back(&dev.gpu().sm(i));
    while (resident() < 32) dev.gpu().engine().step();
    low = dev.dispatcher().active_kernels().at(0);
  }
  uint32_t resident() const {
    uint32_t n = 0;
    for (const sm::Sm* s : sms) n += s->resident_tbs();
    return n;
  }
  std::vector<uint32_t> kept_by(const SharingPolicy& p, const ActiveKernel& k) const {
    std::vector<uint32_t> v;
    for (const sm::Sm* s : sms) v.push_back(p.keep(k, s->id()));
    return v;
  }

  fixtures::PolicyDevice dev;
  std::vector<sm::Sm*> sms;
  ActiveKernel low{};
};

// keep() on every SM for a kernel; the schedulers that never preempt keep all.
std::vector<uint32_t> kept(const SharingPolicy& p, const ActiveKernel& k, uint32_t sms) {
  std::vector<uint32_t> v;
  for (uint32_t s = 0; s < sms; ++s) v.push_back(p.keep(k, s));
  return v;
}

TEST(KernelSchedulers, OnlyDssRepartitionsWhenAnSmBecomesIdle) {
  for (const char* name : {"kernel-fcfs", "npq", "ppq", "dss"}) {
    auto p = make_sharing_policy(name);
    EXPECT_TRUE(p->exclusive_sms()) << name;
    EXPECT_EQ(p->repartition_when_sm_idle(), std::string(name) == "dss") << name;
  }
}

TEST(KernelSchedulers, KernelFcfsServesLaunchOrderNpqPriorityOrder) {
  Sms s(16);
  // 256-thread TBs: 8 per empty SM. `urgent` was launched after `early` but
  // has the higher priority: it comes first in dispatch order.
  auto early = kernel(0, 256), urgent = kernel(1, 256, 32, 0, 1, 5);
  for (const char* name : {"kernel-fcfs", "npq"}) {
    SCOPED_TRACE(name);
    const bool by_priority = std::string(name) == "npq";
    const sm::KernelInstance& winner = by_priority ? *urgent : *early;
    const sm::KernelInstance& other = by_priority ? *early : *urgent;
    auto p = make_sharing_policy(name);
    std::vector<ActiveKernel> act{{urgent.get(), 1000, 0}, {early.get(), 1000, 0}};
    p->repartition(act, s.span());
    EXPECT_EQ(allowed(*p, winner, s), range(0, 16));
    EXPECT_TRUE(allowed(*p, other, s).empty());
    // 40 TBs each: 5 SMs each, the first ones to the first served.
    p = make_sharing_policy(name);
    act = {{urgent.get(), 40, 0}, {early.get(), 40, 0}};
    p->repartition(act, s.span());
    EXPECT_EQ(allowed(*p, winner, s), range(0, 5));
    EXPECT_EQ(allowed(*p, other, s), range(5, 10));
  }
}

TEST(KernelSchedulers, KernelFcfsGivesIdleSmsToKernelsNeverMoreThanTheyFill) {
  Sms s(16);
  auto p = make_sharing_policy("kernel-fcfs");
  auto first = kernel(0, 256), second = kernel(1, 256, 32, 0, 1, 5), third = kernel(2, 256, 32, 0, 2);
  std::vector<ActiveKernel> act{{second.get(), 80, 0}, {first.get(), 20, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *first, s), range(0, 3));    // 20 TBs fill 3 SMs, not more
  EXPECT_EQ(allowed(*p, *second, s), range(3, 13));  // 80 TBs: 10
  EXPECT_EQ(p->quota(*first, 0), kUnl);
  act.push_back({third.get(), 1000, 0});
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *third, s), range(13, 16));  // what is left; nobody is preempted
  for (const ActiveKernel& a : act) EXPECT_EQ(kept(*p, a, 16), std::vector<uint32_t>(16, kUnl));
  // `first` has placed all its TBs: its SMs are released to the next in
  // launch order that can use them (`second` already holds what it fills).
  act = {{second.get(), 80, 0}, {first.get(), 0, 20}, {third.get(), 1000, 0}};
  p->repartition(act, s.span());
  EXPECT_TRUE(allowed(*p, *first, s).empty());
  EXPECT_EQ(allowed(*p, *second, s), range(3, 13));
  EXPECT_EQ(allowed(*p, *third, s), (std::vector<uint32_t>{0, 1, 2, 13, 14, 15}));
}

TEST(KernelSchedulers, NpqNeverReservesAnSmHeldByAnotherKernel) {
  Occupied o;
  auto p = make_sharing_policy("npq");
  std::vector<ActiveKernel> act{o.low};
  p->repartition(act, o.sms);
  EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms), range(0, 4));
  auto high = kernel(7, 256, 32, 0, 1, 5);
  act = {{high.get(), 100, 0}, o.low};
  p->repartition(act, o.sms);
  EXPECT_TRUE(allowed(*p, *high, o.sms).empty());
  EXPECT_EQ(o.kept_by(*p, o.low), std::vector<uint32_t>(4, kUnl));
  // `low` has placed all its TBs: the SMs go to `high`, which waits for
  // those TBs to finish (nothing is preempted).
  act = {{high.get(), 100, 0}, {o.low.kernel, 0, 64}};
  p->repartition(act, o.sms);
  EXPECT_EQ(allowed(*p, *high, o.sms), range(0, 4));
  EXPECT_EQ(o.kept_by(*p, act[1]), std::vector<uint32_t>(4, kUnl));
}

TEST(KernelSchedulers, PpqReservesSmsOfTheLowestPriorityOwner) {
  Occupied o;
  PolicyOptions opt;
  opt.exclusive = false;
  auto p = make_sharing_policy("ppq", opt);
  auto mid = kernel(7, 256, 32, 0, 1, 1), high = kernel(8, 256, 32, 0, 2, 5);
  std::vector<ActiveKernel> act{o.low};
  p->repartition(act, o.sms);
  EXPECT_EQ(o.kept_by(*p, o.low), std::vector<uint32_t>(4, kUnl));
  // 16 TBs: 2 SMs, taken from `low` (the only owner).
  act = {{mid.get(), 16, 0}, o.low};
  p->repartition(act, o.sms);
  EXPECT_EQ(allowed(*p, *mid, o.sms), range(0, 2));
  EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms), range(2, 4));
  EXPECT_EQ(o.kept_by(*p, o.low), (std::vector<uint32_t>{0, 0, kUnl, kUnl}));
  // `high` takes its 2 SMs from `low`, the lowest priority, not from `mid`.
  act = {{high.get(), 16, 0}, {mid.get(), 16, 0}, o.low};
  p->repartition(act, o.sms);
  EXPECT_EQ(allowed(*p, *high, o.sms), range(2, 4));
  EXPECT_EQ(allowed(*p, *mid, o.sms), range(0, 2));
  EXPECT_TRUE(allowed(*p, *o.low.kernel, o.sms).empty());
  EXPECT_EQ(o.kept_by(*p, o.low), std::vector<uint32_t>(4, 0u));
  // mid keeps its SMs; it may hold nothing on those reserved for high.
  EXPECT_EQ(o.kept_by(*p, act[1]), (std::vector<uint32_t>{kUnl, kUnl, 0, 0}));
}

TEST(KernelSchedulers, PpqExclusiveGivesLowerPrioritiesNoSmWhileAHigherOneIsActive) {
  auto high = kernel(8, 256, 32, 0, 2, 5);
  for (bool exclusive : {true, false}) {
    SCOPED_TRACE(exclusive ? "exclusive" : "sharing leftover SMs");
    Occupied o;
    PolicyOptions opt;
    opt.exclusive = exclusive;
    auto p = make_sharing_policy("ppq", opt);
    std::vector<ActiveKernel> act{o.low};
    p->repartition(act, o.sms);
    act = {{high.get(), 16, 0}, o.low};
    p->repartition(act, o.sms);
    EXPECT_EQ(allowed(*p, *high, o.sms), range(0, 2));
    // The SMs taken are reserved (low's TBs there are preempted); on the
    // others low's TBs stay, placing no more under exclusive access.
    EXPECT_EQ(o.kept_by(*p, o.low), (std::vector<uint32_t>{0, 0, kUnl, kUnl}));
    EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms), exclusive ? std::vector<uint32_t>{} : range(2, 4));
    // high has placed everything but still runs: exclusive access holds;
    // otherwise low may use every SM high no longer needs.
    act = {{high.get(), 0, 16}, o.low};
    p->repartition(act, o.sms);
    EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms), exclusive ? std::vector<uint32_t>{} : range(0, 4));
    // high is gone: low gets every SM back.
    act = {o.low};
    p->repartition(act, o.sms);
    EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms), range(0, 4));
  }
}

// Held SMs per kernel.
std::vector<size_t> held(const SharingPolicy& p, const std::vector<ActiveKernel>& act, const Sms& s) {
  std::vector<size_t> v;
  for (const ActiveKernel& a : act) v.push_back(allowed(p, *a.kernel, s).size());
  return v;
}

TEST(KernelSchedulers, DssSharesSmsEquallyRemainderToTheFirstKernels) {
  Sms s(16);
  std::vector<std::unique_ptr<sm::KernelInstance>> ks;
  std::vector<ActiveKernel> act;
  for (uint32_t i = 0; i < 3; ++i) {
    ks.push_back(kernel(i, 256, 32, 0, i));
    act.push_back({ks.back().get(), 1000, 0});
  }
  PolicyOptions opt;
  opt.num_apps = 3;
  auto p = make_sharing_policy("dss", opt);
  p->repartition(act, s.span());
  EXPECT_EQ(held(*p, act, s), (std::vector<size_t>{6, 5, 5}));  // floor(16 / 3) = 5, remainder 1
  // Tokens by app from the workload instead of equal shares.
  opt.tokens_by_app = {{0, 2}, {1, 10}, {2, 4}};
  p = make_sharing_policy("dss", opt);
  p->repartition(act, s.span());
  EXPECT_EQ(held(*p, act, s), (std::vector<size_t>{2, 10, 4}));
}

TEST(KernelSchedulers, DssGivesIdleSmsToTheHighestCountDebtAllowed) {
  Sms s(16);
  auto a = kernel(0, 256, 32, 0, 0), b = kernel(1, 256, 32, 0, 1);
  PolicyOptions opt;
  opt.num_apps = 4;  // 4 tokens each: two kernels alone run into debt rather than leave SMs idle
  auto p = make_sharing_policy("dss", opt);
  std::vector<ActiveKernel> act{{a.get(), 1000, 0}, {b.get(), 1000, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(held(*p, act, s), (std::vector<size_t>{8, 8}));
  // A kernel that fills only 2 SMs gets 2; the other takes the rest, deep in debt.
  p = make_sharing_policy("dss", opt);
  act = {{a.get(), 16, 0}, {b.get(), 1000, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(held(*p, act, s), (std::vector<size_t>{2, 14}));
  // The idle SMs go one at a time to the highest count: b (12 tokens) gets
  // 8 before a (4 tokens) gets its first, then they alternate.
  opt.tokens_by_app = {{0, 4}, {1, 12}};
  p = make_sharing_policy("dss", opt);
  act = {{a.get(), 1000, 0}, {b.get(), 1000, 0}};
  Sms few(9);
  p->repartition(act, few.span());
  EXPECT_EQ(allowed(*p, *a, few), std::vector<uint32_t>{8});
  EXPECT_EQ(allowed(*p, *b, few), range(0, 8));
}

TEST(KernelSchedulers, DssRebalancesByReservationUntilCountsDifferByAtMostOne) {
  Occupied o;
  PolicyOptions opt;
  opt.num_apps = 3;  // tokens 2, 1, 1 on 4 SMs
  auto p = make_sharing_policy("dss", opt);
  auto b = kernel(7, 256, 32, 0, 1), c = kernel(8, 256, 32, 0, 2);
  std::vector<ActiveKernel> act{o.low};
  p->repartition(act, o.sms);
  EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms), range(0, 4));  // alone: count 2 - 4 (debt)
  // b (count 1) vs low (-2): one SM of low is reserved for b; then 0 vs -1.
  act = {o.low, {b.get(), 1000, 0}};
  p->repartition(act, o.sms);
  EXPECT_EQ(allowed(*p, *b, o.sms), std::vector<uint32_t>{3});
  EXPECT_EQ(o.kept_by(*p, o.low), (std::vector<uint32_t>{kUnl, kUnl, kUnl, 0}));
  // c (count 1) vs low (-1): another; every count is now 0.
  act = {o.low, {b.get(), 1000, 0}, {c.get(), 1000, 0}};
  p->repartition(act, o.sms);
  EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms), range(0, 2));
  EXPECT_EQ(allowed(*p, *b, o.sms), std::vector<uint32_t>{3});
  EXPECT_EQ(allowed(*p, *c, o.sms), std::vector<uint32_t>{2});
  EXPECT_EQ(o.kept_by(*p, o.low), (std::vector<uint32_t>{kUnl, kUnl, 0, 0}));
}

TEST(KernelSchedulers, DssTokensFromOptionsDecideTheRebalance) {
  Occupied o;
  auto b = kernel(7, 256, 32, 0, 1);
  for (auto [tokens_low, b_sms] : {std::pair<uint32_t, uint32_t>{2, 2}, {3, 1}, {4, 0}}) {
    SCOPED_TRACE(tokens_low);
    PolicyOptions opt;
    opt.num_apps = 2;
    opt.tokens_by_app = {{0, tokens_low}, {1, 4 - tokens_low}};
    auto p = make_sharing_policy("dss", opt);
    std::vector<ActiveKernel> act{o.low};
    p->repartition(act, o.sms);
    act = {o.low, {b.get(), 1000, 0}};
    p->repartition(act, o.sms);
    EXPECT_EQ(allowed(*p, *b, o.sms).size(), b_sms);
    EXPECT_EQ(allowed(*p, *o.low.kernel, o.sms).size(), 4 - b_sms);
  }
}

}  // namespace
}  // namespace gpumux::frontend
