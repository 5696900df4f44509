// End to end: small kernels of two or more applications (runtime contexts)
// launched together on a 4-SM timing device under each sharing policy, with
// the dispatcher's invariant checker on. A TbEventSink records where and when
// every TB ran.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frontend/frontend_test_util.h"
#include "gpumux/frontend/invariants.h"
#include "gpumux/frontend/sharing_policy.h"
#include "gpumux/frontend/tb_dispatcher.h"
#include "gpumux/gpu/gpu.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::frontend {
namespace {

using runtime::DevPtr;

const std::string& kPtx = fixtures::kTimingPtx;
constexpr uint32_t kSms = 4;

// Per-SM residency over time, checked against the policy at every TB start.
class Recorder : public TbEventSink {
 public:
  explicit Recorder(TbDispatcher& d) : d_(d) {}

  void tb_started(uint32_t sm, const sm::KernelInstance& k, uint64_t, Cycle now) override {
    auto& here = resident_[sm];
    uint32_t n = ++here[k.id];
    for (const auto& [other, m] : here)
      if (other != k.id && m > 0) colocated_.insert({std::min(other, k.id), std::max(other, k.id)});
    max_resident_[{sm, k.id}] = std::max(max_resident_[{sm, k.id}], n);
    if (n > d_.policy().quota(k, sm)) over_quota_ = true;
    sms_of_[k.id].insert(sm);
    if (!first_start_.count(k.id)) {
      first_start_[k.id] = {now, order_++};
      if (k.id == 1) wait_report_ = d_.describe_wait();
    }
    if (probe_) {  // an exclusive policy's checker, fed the real SM state
      try {
        check_sm_invariants(probe_gpu_->sm(sm), *probe_, d_.active_kernels());
      } catch (const std::logic_error& e) {
        probe_error_ = e.what();
      }
    }
  }
  void tb_finished(uint32_t sm, const sm::KernelInstance& k, uint64_t tb, Cycle) override {
    --resident_[sm][k.id];
    finished_tbs_[k.id].insert(tb);
  }
  void kernel_finished(const KernelRecord& r) override { finished_.push_back(r.id); }

  void probe_with(const SharingPolicy& p, gpu::Gpu& g) {
    probe_ = &p;
    probe_gpu_ = &g;
  }

  TbDispatcher& d_;
  std::map<uint32_t, std::map<uint32_t, uint32_t>> resident_;  // sm -> kernel id -> TBs
  std::set<std::pair<uint32_t, uint32_t>> colocated_;           // kernel pairs seen on one SM at once
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> max_resident_;  // (sm, kernel) -> most TBs at once
  std::map<uint32_t, std::set<uint32_t>> sms_of_;
  std::map<uint32_t, std::pair<Cycle, uint32_t>> first_start_;  // kernel -> (cycle, rank)
  std::vector<uint32_t> finished_;
  std::map<uint32_t, std::set<uint64_t>> finished_tbs_;  // kernel -> TB indices reported finished
  bool over_quota_ = false;
  uint32_t order_ = 0;
  const SharingPolicy* probe_ = nullptr;
  gpu::Gpu* probe_gpu_ = nullptr;
  std::string probe_error_;
  std::string wait_report_;  // describe_wait() when kernel 1 started
};

// A 4-SM gtx980 with the invariant checker on, `apps` contexts each with the
// test kernels loaded.
struct Multi {
  Multi(const std::string& policy, size_t apps = 2, PolicyOptions o = {})
      : config(Config::build(std::string(GPUMUX_SOURCE_DIR) + "/configs/gtx980.toml",
                             std::vector<std::string>{"gpu.num_sms=" + std::to_string(kSms),
                                                      "frontend.check_invariants=true",
                                                      "frontend.launch_latency=100"})),
        dev(timing::make_device(config.values(), make_sharing_policy(policy, o))),
        rec(backend().gpu().dispatcher()) {
    backend().gpu().dispatcher().set_event_sink(&rec);
    for (size_t i = 0; i < apps; ++i) {
      ctx.push_back(&dev->create_context("app" + std::to_string(i)));
      mod.push_back(&ctx.back()->load_module_file(kPtx));
    }
  }
  ~Multi() { backend().gpu().dispatcher().set_event_sink(nullptr); }
  timing::TimingBackend& backend() { return timing::backend_of(*dev); }
  const KernelRecord& record(size_t i) { return backend().kernels().at(i); }

  Config config;
  std::unique_ptr<runtime::Device> dev;
  Recorder rec;
  std::vector<runtime::Context*> ctx;
  std::vector<runtime::Module*> mod;
};

using fixtures::fma_reference;

// App 0 runs fma_chains (32 TBs of 256 threads), app 1 stream_copy (32 TBs
// of 256 threads, two elements per thread), launched together (stream
// priorities p0 and p1); checks both results.
void run_pair(Multi& m, int p0 = 0, int p1 = 0, uint32_t tbs0 = 32) {
  const uint32_t tbs = 32, threads = 256, iters = 48, n = 2 * tbs * threads;
  runtime::Context& a = *m.ctx[0];
  runtime::Context& b = *m.ctx[1];
  DevPtr out_a = a.malloc(tbs0 * threads * 4);
  std::vector<float> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = float(i) * 0.5f;
  DevPtr in_b = b.malloc_copy(in), out_b = b.malloc(n * 4);
  runtime::KernelArgs ka, kb;
  ka.add(out_a).add(int(iters));
  kb.add(in_b).add(out_b).add(int(n));
  a.launch(m.mod[0]->kernel("fma_chains"), {tbs0}, {threads}, 0, a.create_stream(p0), ka);
  b.launch(m.mod[1]->kernel("stream_copy"), {tbs}, {threads}, 0, b.create_stream(p1), kb);
  std::vector<float> ra = a.read<float>(out_a, tbs0 * threads);
  std::vector<float> rb = b.read<float>(out_b, n);
  for (uint32_t t = 0; t < tbs0 * threads; ++t) ASSERT_EQ(ra[t], fma_reference(t % threads, iters)) << t;
  EXPECT_EQ(rb, in);
  ASSERT_EQ(m.backend().kernels().size(), 2u);
  EXPECT_TRUE(m.record(0).done && m.record(1).done);
  EXPECT_EQ(m.rec.finished_.size(), 2u);
  EXPECT_EQ(m.rec.finished_tbs_[0].size(), tbs0);
  EXPECT_EQ(m.rec.finished_tbs_[1].size(), tbs);
  EXPECT_FALSE(m.rec.over_quota_);
  EXPECT_TRUE(m.rec.resident_.size() <= kSms);
}

TEST(SharingPoliciesE2E, FcfsSharesLeftoversAndRecordsIpc) {
  Multi m("fcfs");
  run_pair(m);
  // App 0's kernel fills the SMs first; app 1's TBs go where it leaves room.
  EXPECT_LT(m.rec.first_start_[0].second, m.rec.first_start_[1].second);
  EXPECT_LE(m.record(0).first_tb, m.record(1).first_tb);
  EXPECT_FALSE(m.rec.colocated_.empty());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_GT(m.record(i).warp_insts, 0u);
    EXPECT_GT(m.record(i).ipc(), 0.0);
    EXPECT_LE(m.record(i).ipc(), double(kSms * m.config.values().sm.sub_cores));
  }
}

TEST(SharingPoliciesE2E, FcfsServesTheHigherPriorityStreamFirst) {
  Multi m("fcfs");
  run_pair(m, 0, 5);  // app 1 more urgent
  EXPECT_EQ(m.rec.first_start_[1].second, 0u);
  EXPECT_LE(m.record(1).first_tb, m.record(0).first_tb);
  EXPECT_EQ(m.record(1).priority, 5);
  EXPECT_LT(m.record(1).finished, m.record(0).finished);
}

TEST(SharingPoliciesE2E, SpatialPoliciesNeverColocateKernels) {
  for (const char* p : {"spatial-even", "spatial-smart"}) {
    SCOPED_TRACE(p);
    Multi m(p);
    run_pair(m);
    EXPECT_TRUE(m.rec.colocated_.empty());
    // Both started at once, each on its own half of the GPU.
    EXPECT_EQ(m.record(0).activated, m.record(1).activated);
    EXPECT_EQ(m.rec.first_start_[0].first, m.rec.first_start_[1].first);
  }
}

TEST(SharingPoliciesE2E, SpatialSmartGivesASmallKernelOnlyTheSmsItFills) {
  // App 0 has 4 TBs (8 fit an SM): one SM; app 1 gets the other three.
  for (auto [p, sms1] : {std::pair<const char*, int>{"spatial-even", 2}, {"spatial-smart", 3}}) {
    SCOPED_TRACE(p);
    Multi m(p);
    run_pair(m, 0, 0, 4);
    EXPECT_TRUE(m.rec.colocated_.empty());
    std::string want = fmt::format("{} app1.stream_copy (priority 0): 1 resident; quota unlimited on {}/4 SMs", p, sms1);
    EXPECT_NE(m.rec.wait_report_.find(want), std::string::npos) << m.rec.wait_report_;
  }
}

TEST(SharingPoliciesE2E, SmkPoliciesShareEverySm) {
  for (const char* p : {"smk-even", "smk-drf"}) {
    SCOPED_TRACE(p);
    Multi m(p);
    run_pair(m);
    EXPECT_TRUE(m.rec.colocated_.count({0, 1}));
    EXPECT_EQ(m.rec.sms_of_[0].size(), kSms);
    EXPECT_EQ(m.rec.sms_of_[1].size(), kSms);
    // App 1 started beside app 0, not after it (app 0 alone would fill every SM).
    EXPECT_LT(m.rec.first_start_[1].first, m.record(0).first_tb + 50);
  }
}

TEST(SharingPoliciesE2E, SmkQuotaRespectsTheCounts) {
  PolicyOptions o;
  o.tb_quota_by_app = {{0, 2}, {1, 3}};  // contexts are apps 0 and 1
  Multi m("smk-quota", 2, o);
  run_pair(m);
  std::map<uint32_t, uint32_t> most;  // kernel id -> most TBs on one SM at once
  for (const auto& [key, n] : m.rec.max_resident_) most[key.second] = std::max(most[key.second], n);
  for (size_t i = 0; i < 2; ++i) {
    const KernelRecord& r = m.record(i);
    ASSERT_EQ(r.app, uint32_t(i));
    EXPECT_EQ(most[r.id], o.tb_quota_by_app[r.app]) << r.label;
  }
  EXPECT_TRUE(m.rec.colocated_.count({0, 1}));
  EXPECT_NE(m.rec.wait_report_.find("smk-quota app1.stream_copy (priority 0): 1 resident; quota 3 on 4/4 SMs"),
            std::string::npos)
      << m.rec.wait_report_;
}

TEST(SharingPoliciesE2E, InvariantCheckerCatchesColocationUnderAnExclusivePolicy) {
  Multi m("fcfs");
  auto spatial = make_sharing_policy("spatial-even");
  m.rec.probe_with(*spatial, m.backend().gpu());
  run_pair(m);
  EXPECT_NE(m.rec.probe_error_.find("kernels are resident"), std::string::npos) << m.rec.probe_error_;
  EXPECT_NE(m.rec.probe_error_.find("spatial-even"), std::string::npos) << m.rec.probe_error_;
}

TEST(SharingPoliciesE2E, ImpossibleSmkEvenShareIsAPartitionError) {
  Multi m("smk-even", 4);
  std::vector<DevPtr> outs;
  for (size_t i = 0; i < 4; ++i) {
    outs.push_back(m.ctx[i]->malloc(2 * 1024 * 4));
    m.ctx[i]->launch(m.mod[i]->kernel("fma_chains"), {2}, {1024}, outs.back(), 8);
  }
  try {
    m.ctx[0]->synchronize();
    FAIL() << "no error";
  } catch (const PartitionError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("smk-even"), std::string::npos) << msg;
    EXPECT_NE(msg.find("app0.fma_chains"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1/4"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace gpumux::frontend
