// Unit tests of the sharing policies' partition arithmetic: fake kernels (only
// their per-TB needs matter) and the real SMs of a gtx980 configuration.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "frontend/frontend_test_util.h"
#include "gpumux/frontend/policies/common.h"
#include "gpumux/frontend/policies/smk_symmetric.h"
#include "gpumux/frontend/policies/spart.h"
#include "gpumux/frontend/sharing_policy.h"

namespace gpumux::frontend {
namespace {

constexpr uint32_t kUnl = SharingPolicy::kUnlimited;

using fixtures::allowed;
using fixtures::kernel;
using fixtures::range;
using fixtures::Sms;

// quota(k, sm) on every SM.
std::vector<uint32_t> quotas(const SharingPolicy& p, const sm::KernelInstance& k, const Sms& s) {
  std::vector<uint32_t> v;
  for (const sm::Sm* m : s.ptrs) v.push_back(p.quota(k, m->id()));
  return v;
}

TEST(SharingPolicies, RegistryKnowsEveryPolicyAndRejectsUnknownNames) {
  EXPECT_EQ(sharing_policy_names(),
            (std::vector<std::string>{"fcfs", "spatial-even", "spatial-smart", "smk-even", "smk-drf", "smk-quota",
                                      "smk-split", "kernel-fcfs", "npq", "ppq", "dss", "spart", "smk-symmetric", "maestro",
                                      "time-slice", "mps", "warped-slicer", "mig"}));
  for (const std::string& n : sharing_policy_names()) EXPECT_EQ(make_sharing_policy(n)->name(), n);
  try {
    make_sharing_policy("lottery");
    FAIL() << "no error";
  } catch (const LoadError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'lottery'"), std::string::npos) << m;
    EXPECT_NE(m.find("spatial-smart"), std::string::npos) << m;
  }
  EXPECT_FALSE(make_sharing_policy("fcfs")->exclusive_sms());
  EXPECT_TRUE(make_sharing_policy("spatial-even")->exclusive_sms());
  EXPECT_TRUE(make_sharing_policy("spatial-smart")->exclusive_sms());
  EXPECT_FALSE(make_sharing_policy("smk-even")->exclusive_sms());
  EXPECT_FALSE(make_sharing_policy("smk-drf")->exclusive_sms());
  EXPECT_FALSE(make_sharing_policy("smk-quota")->exclusive_sms());
}

TEST(SharingPolicies, TbsPerEmptySmTakesTheScarcestResource) {
  SmParams p;  // defaults: 64 warps, 32 TBs, 2048 threads, 64K registers, 96 KB
  EXPECT_EQ(policy::tbs_per_empty_sm(*kernel(0, 256), p), 8u);                 // threads (and warps, registers)
  EXPECT_EQ(policy::tbs_per_empty_sm(*kernel(0, 32, 16), p), 32u);             // TB slots
  EXPECT_EQ(policy::tbs_per_empty_sm(*kernel(0, 128, 128), p), 4u);            // registers
  EXPECT_EQ(policy::tbs_per_empty_sm(*kernel(0, 64, 16, 40000), p), 2u);       // shared memory
  EXPECT_EQ(policy::tbs_per_empty_sm(*kernel(0, 64, 16, 100000), p), 0u);      // never fits
}

TEST(SharingPolicies, FcfsIsUnlimitedEverywhere) {
  Sms s(4);
  auto p = make_sharing_policy("fcfs");
  auto a = kernel(0, 256), b = kernel(1, 1024);
  std::vector<ActiveKernel> act{{a.get(), 10, 0}, {b.get(), 10, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(quotas(*p, *a, s), std::vector<uint32_t>(4, kUnl));
  EXPECT_EQ(quotas(*p, *b, s), std::vector<uint32_t>(4, kUnl));
}

// Spart: SM counts per application as the QoS manager sets them; the
// applications without one split the SMs left.
TEST(SharingPolicies, SpartGivesEachApplicationTheSmsSetForIt) {
  Sms s(16);
  auto p = make_sharing_policy("spart");
  EXPECT_TRUE(p->exclusive_sms());
  auto a = kernel(0, 256, 32, 0, 0), b = kernel(1, 256, 32, 0, 1), c = kernel(2, 256, 32, 0, 2);
  std::vector<ActiveKernel> act{{a.get(), 100, 0}, {b.get(), 100, 0}, {c.get(), 100, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *a, s), range(0, 6));  // nothing set yet: even
  dynamic_cast<SmCountTarget&>(*p).set_sm_counts({{0, 10}});
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *a, s), range(0, 10));
  EXPECT_EQ(allowed(*p, *b, s), range(10, 13));
  EXPECT_EQ(allowed(*p, *c, s), range(13, 16));
  dynamic_cast<SmCountTarget&>(*p).set_sm_counts({{0, 9}, {1, 2}, {2, 5}});
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *b, s), range(9, 11));
  EXPECT_EQ(allowed(*p, *c, s), range(11, 16));
}

TEST(SharingPolicies, SpatialEvenSplitsContiguousRangesRemainderToTheFirst) {
  Sms s(16);
  auto p = make_sharing_policy("spatial-even");
  auto a = kernel(0, 256), b = kernel(1, 256), c = kernel(2, 256), done = kernel(3, 256);
  std::vector<ActiveKernel> act{{a.get(), 100, 0}, {b.get(), 100, 5}, {done.get(), 0, 7}, {c.get(), 1, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *a, s), range(0, 6));  // 16 = 6 + 5 + 5
  EXPECT_EQ(allowed(*p, *b, s), range(6, 11));
  EXPECT_EQ(allowed(*p, *c, s), range(11, 16));
  EXPECT_TRUE(allowed(*p, *done, s).empty());  // nothing left to dispatch: no SM
  EXPECT_EQ(p->quota(*a, 0), kUnl);
  // The set changes: b alone gets every SM.
  act = {{b.get(), 100, 5}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *b, s), range(0, 16));
  EXPECT_TRUE(allowed(*p, *a, s).empty());
}

TEST(SharingPolicies, SpatialEvenWithMoreKernelsThanSmsLeavesTheLastWaiting) {
  Sms s(4);
  auto p = make_sharing_policy("spatial-even");
  std::vector<std::unique_ptr<sm::KernelInstance>> ks;
  std::vector<ActiveKernel> act;
  for (uint32_t i = 0; i < 6; ++i) {
    ks.push_back(kernel(i, 128));
    act.push_back({ks.back().get(), 4, 0});
  }
  p->repartition(act, s.span());
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(allowed(*p, *ks[i], s), std::vector<uint32_t>{i});
  EXPECT_TRUE(allowed(*p, *ks[4], s).empty());
  EXPECT_TRUE(allowed(*p, *ks[5], s).empty());
}

TEST(SharingPolicies, SpatialSmartGivesNoKernelMoreSmsThanItCanFill) {
  Sms s(16);
  auto p = make_sharing_policy("spatial-smart");
  // 256-thread TBs: 8 per empty SM. small: 10 TBs -> 2 SMs; tiny: 3 TBs -> 1 SM.
  auto small = kernel(0, 256), big1 = kernel(1, 256), big2 = kernel(2, 256), tiny = kernel(3, 256);
  std::vector<ActiveKernel> act{{small.get(), 6, 4}, {big1.get(), 1000, 0}, {big2.get(), 1000, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *small, s), range(0, 2));
  EXPECT_EQ(allowed(*p, *big1, s), range(2, 9));  // 14 left: 7 + 7
  EXPECT_EQ(allowed(*p, *big2, s), range(9, 16));
  // Water-filling with a remainder: 16 = 1 (tiny) + 8 + 7.
  act = {{tiny.get(), 3, 0}, {big1.get(), 1000, 0}, {big2.get(), 1000, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *tiny, s), range(0, 1));
  EXPECT_EQ(allowed(*p, *big1, s), range(1, 9));
  EXPECT_EQ(allowed(*p, *big2, s), range(9, 16));
  // Everybody satisfied: the 13 SMs left are split evenly (none stays idle).
  act = {{small.get(), 10, 0}, {tiny.get(), 3, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(allowed(*p, *small, s), range(0, 9));
  EXPECT_EQ(allowed(*p, *tiny, s), range(9, 16));
}

TEST(SharingPolicies, SmkEvenGivesEachKernelItsShareOfEveryResource) {
  Sms s(4);
  auto p = make_sharing_policy("smk-even");
  // Halves: 16 TBs, 32 warps, 1024 threads, 32K registers, 48 KB.
  auto thr = kernel(0, 256);                   // 1024 / 256 = 4 (threads, warps and registers)
  auto shm = kernel(1, 64, 16, 20000);         // 49152 / 20000 = 2
  std::vector<ActiveKernel> act{{thr.get(), 50, 0}, {shm.get(), 50, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(quotas(*p, *thr, s), std::vector<uint32_t>(4, 4u));
  EXPECT_EQ(quotas(*p, *shm, s), std::vector<uint32_t>(4, 2u));
  // Thirds (with a kernel limited by TB slots: 32 / 3 = 10).
  auto slots = kernel(2, 32, 8);
  act.push_back({slots.get(), 50, 0});
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*thr, 0), 2u);    // 682 threads / 256
  EXPECT_EQ(p->quota(*shm, 0), 1u);    // 32768 B / 20000
  EXPECT_EQ(p->quota(*slots, 0), 10u);
  // A kernel with nothing left to dispatch takes no share.
  act = {{thr.get(), 50, 0}, {shm.get(), 0, 3}};
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*thr, 2), 8u);
}

// smk-split (GPU Maestro's figure 2): app 0's kernels get first_share of every
// resource while another app's kernel has TBs left, the others the rest.
TEST(SharingPolicies, SmkSplitGivesTheFirstAppItsShareAndTheOthersTheRest) {
  Sms s(4);
  PolicyOptions o;
  o.first_share = 0.25;
  auto p = make_sharing_policy("smk-split", o);
  EXPECT_FALSE(p->exclusive_sms());
  auto first = kernel(0, 128, 16, 0, 0), other = kernel(1, 256, 16, 0, 1);
  std::vector<ActiveKernel> act{{first.get(), 50, 0}, {other.get(), 50, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(quotas(*p, *first, s), std::vector<uint32_t>(4, 4u));  // 512 threads / 128
  EXPECT_EQ(quotas(*p, *other, s), std::vector<uint32_t>(4, 6u));  // 1536 threads / 256
  // The first app's kernels split its share: 256 threads each.
  auto first2 = kernel(2, 128, 16, 0, 0);
  act.push_back({first2.get(), 50, 0});
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*first, 1), 2u);
  EXPECT_EQ(p->quota(*first2, 1), 2u);
  EXPECT_EQ(p->quota(*other, 1), 6u);
  // A kernel that placed its last TB keeps its share while its TBs run (the
  // split stays fixed); once it has none, the other group takes the whole SM.
  act = {{first.get(), 50, 0}, {other.get(), 0, 8}};
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*first, 0), 4u);
  act = {{first.get(), 50, 0}, {other.get(), 0, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*first, 0), 16u);
  EXPECT_EQ(p->quota(*other, 0), 0u);
  // A share too small for one TB names the policy and the share.
  o.first_share = 0.1;  // 204 threads
  auto q = make_sharing_policy("smk-split", o);
  auto wide = kernel(3, 256, 16, 0, 0);
  act = {{wide.get(), 50, 0}, {other.get(), 50, 0}};
  try {
    q->repartition(act, s.span());
    FAIL() << "no error";
  } catch (const PartitionError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("smk-split"), std::string::npos) << m;
    EXPECT_NE(m.find("10% of each SM"), std::string::npos) << m;
  }
  o.first_share = 1.0;
  EXPECT_THROW(make_sharing_policy("smk-split", o), LoadError);
}

// smk-symmetric (ISCA'17 3.6): the QoS kernel on every SM, the two non-QoS
// kernels on half the SMs each; each SM split evenly among the kernels on it;
// the TB adjustment's changes apply per SM and end with the kernel.
TEST(SharingPolicies, SmkSymmetricPutsQosKernelsEverywhereAndSplitsTheSmsAmongTheOthers) {
  Sms s(16);
  PolicyOptions o;
  o.qos_apps = {0};
  auto p = make_sharing_policy("smk-symmetric", o);
  auto qos = kernel(0, 256, 32, 0, 0), b = kernel(1, 128, 32, 0, 1), c = kernel(2, 128, 32, 0, 2);
  std::vector<ActiveKernel> act{{qos.get(), 100, 0}, {b.get(), 100, 0}, {c.get(), 100, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(quotas(*p, *qos, s), std::vector<uint32_t>(16, 4u));  // half an SM: 1024 threads / 256
  EXPECT_EQ(allowed(*p, *b, s), range(0, 8));
  EXPECT_EQ(allowed(*p, *c, s), range(8, 16));
  EXPECT_EQ(p->quota(*b, 0), 8u);
  auto& target = dynamic_cast<TbShareTarget&>(*p);
  target.adjust_tbs(qos->id, 3, 1);
  target.adjust_tbs(b->id, 3, -2);
  target.adjust_tbs(b->id, 4, -20);  // never below 0
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*qos, 3), 5u);
  EXPECT_EQ(p->quota(*qos, 2), 4u);
  EXPECT_EQ(p->quota(*b, 3), 6u);
  EXPECT_EQ(p->quota(*b, 4), 0u);
  // Two non-QoS kernels without a QoS one: a spatial split.
  act = {{b.get(), 100, 0}, {c.get(), 100, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(quotas(*p, *qos, s), std::vector<uint32_t>(16, 0u));  // not active: its adjustment is gone
  EXPECT_EQ(p->quota(*b, 3), 14u);  // the whole SM (16 TBs of 128 threads), the adjustment kept
  EXPECT_EQ(p->quota(*c, 12), 16u);
  // b ends and comes back under a new launch id: its adjustments are gone.
  act = {{c.get(), 100, 0}};
  p->repartition(act, s.span());
  act = {{b.get(), 100, 0}, {c.get(), 100, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*b, 3), 16u);
}

TEST(SharingPolicies, SmkEvenShareTooSmallForOneTbIsAPartitionError) {
  Sms s(4);
  auto p = make_sharing_policy("smk-even");
  std::vector<std::unique_ptr<sm::KernelInstance>> ks;
  std::vector<ActiveKernel> act;
  for (uint32_t i = 0; i < 4; ++i) {
    ks.push_back(kernel(i, i == 2 ? 1024 : 128, 16, 0, i));
    act.push_back({ks.back().get(), 8, 0});
  }
  try {
    p->repartition(act, s.span());
    FAIL() << "no error";
  } catch (const PartitionError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("app2.k2"), std::string::npos) << m;
    EXPECT_NE(m.find("smk-even"), std::string::npos) << m;
    EXPECT_NE(m.find("1/4"), std::string::npos) << m;
    EXPECT_NE(m.find("16 warps"), std::string::npos) << m;  // the share
    EXPECT_NE(m.find("32 warps"), std::string::npos) << m;  // the need
  }
}

TEST(SharingPolicies, SmkDrfEqualizesDominantShares) {
  Sms s(2);
  auto p = make_sharing_policy("smk-drf");
  // a: 512 threads (dominant: threads/warps, 1/4 per TB); b: 128 threads and
  // 32 KB (dominant: shared memory, 1/3 per TB). Progressive filling: a b a b
  // a b, then a's 4th TB no longer fits the threads (1920 + 512 > 2048).
  auto a = kernel(0, 512, 16), b = kernel(1, 128, 16, 32768);
  std::vector<ActiveKernel> act{{a.get(), 100, 0}, {b.get(), 100, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(quotas(*p, *a, s), std::vector<uint32_t>(2, 3u));
  EXPECT_EQ(quotas(*p, *b, s), std::vector<uint32_t>(2, 3u));
  // b has only one TB to hold: a takes what fits beside it.
  act = {{a.get(), 100, 0}, {b.get(), 1, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*b, 0), 1u);
  EXPECT_EQ(p->quota(*a, 0), 3u);  // 3 * 512 + 128 threads; a 4th would need 2176
  // Alone, a kernel fills the SM.
  act = {{a.get(), 100, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*a, 1), 4u);
  // Ties go to the first kernel in dispatch order.
  auto c = kernel(2, 1024, 16), d = kernel(3, 1024, 16), e = kernel(4, 1024, 16);
  act = {{c.get(), 9, 0}, {d.get(), 9, 0}, {e.get(), 9, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(p->quota(*c, 0), 1u);
  EXPECT_EQ(p->quota(*d, 0), 1u);
  EXPECT_EQ(p->quota(*e, 0), 0u);  // waits for a repartition
}

TEST(SharingPolicies, SmkQuotaUsesTheCountsOfEachApp) {
  Sms s(4);
  PolicyOptions o;
  o.tb_quota_by_app = {{0, 2}, {1, 5}};
  auto p = make_sharing_policy("smk-quota", o);
  auto a = kernel(0, 256, 32, 0, 0), b = kernel(1, 256, 32, 0, 1), c = kernel(2, 256, 32, 0, 7);
  std::vector<ActiveKernel> act{{a.get(), 10, 0}, {b.get(), 10, 0}};
  p->repartition(act, s.span());
  EXPECT_EQ(quotas(*p, *a, s), std::vector<uint32_t>(4, 2u));
  EXPECT_EQ(quotas(*p, *b, s), std::vector<uint32_t>(4, 5u));
  act.push_back({c.get(), 10, 0});
  try {
    p->repartition(act, s.span());
    FAIL() << "no error";
  } catch (const PartitionError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("app 7"), std::string::npos) << m;
    EXPECT_NE(m.find("app7.k2"), std::string::npos) << m;
  }
  o.tb_quota_by_app[3] = 0;
  EXPECT_THROW(make_sharing_policy("smk-quota", o), LoadError);
}

}  // namespace
}  // namespace gpumux::frontend
