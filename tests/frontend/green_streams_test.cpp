// Streams confined to a set of SMs (the streams of green contexts,
// runtime::Context::create_stream with SMs): their kernels' TBs land on
// those SMs only, under the policy's partition, while kernels of other
// streams use every SM; the SM ids are checked. The CUDA program of
// tests/cuda/green_contexts.cu tests the driver API on top of this.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "frontend_test_util.h"

namespace gpumux::frontend {
namespace {

using fixtures::kTimingPtx;
using fixtures::PolicyDevice;

// The SMs on which each kernel's TBs started.
struct TbPlaces : TbEventSink {
  void tb_started(uint32_t sm, const sm::KernelInstance& k, uint64_t, Cycle) override { sms[k.id].insert(sm); }
  void tb_finished(uint32_t, const sm::KernelInstance&, uint64_t, Cycle) override {}
  void kernel_finished(const KernelRecord&) override {}
  std::map<uint32_t, std::set<uint32_t>> sms;
};

std::vector<float> read(runtime::Context& c, runtime::DevPtr p, size_t n) {
  std::vector<float> v(n);
  c.memcpy_d2h(v.data(), p, n * sizeof(float));
  return v;
}

TEST(GreenStreams, KernelsOfAStreamOnSmsStayThereOthersUseEverySm) {
  for (const char* policy : {"fcfs", "smk-even"}) {
    PolicyDevice d(policy, {}, {"frontend.check_invariants=true"}, 1, kTimingPtx);
    TbPlaces places;
    d.dispatcher().set_event_sink(&places);
    runtime::Context& c = *d.ctx[0];
    const std::vector<uint32_t> green = {1, 4, 5, 9};
    // The confined kernel leaves room on its SMs (4 TBs of 16 slots each).
    const uint32_t tbs[2] = {16, 64}, threads = 128;
    const int iters = 20;
    runtime::DevPtr out[2];
    runtime::Stream streams[2] = {c.create_stream(0, green), c.create_stream(0)};
    for (int k = 0; k < 2; ++k) {
      out[k] = c.malloc(uint64_t(tbs[k]) * threads * 4);
      runtime::KernelArgs a;
      a.add(out[k]).add(iters);
      c.launch(d.mod[0]->kernel("fma_chains"), {tbs[k]}, {threads}, 0, streams[k], a);
    }
    c.synchronize();
    for (int k = 0; k < 2; ++k)
      EXPECT_EQ(fixtures::wrong_fma_results(read(c, out[k], size_t(tbs[k]) * threads), threads, iters), 0u) << policy;
    ASSERT_EQ(places.sms.size(), 2u) << policy;
    EXPECT_EQ(places.sms.at(0), std::set<uint32_t>(green.begin(), green.end())) << policy;
    EXPECT_EQ(places.sms.at(1).size(), 16u) << policy;  // the other stream's kernel is not confined
  }
}

TEST(GreenStreams, SmBeyondTheDeviceIsAnApiError) {
  PolicyDevice d("fcfs", {}, {}, 1, kTimingPtx);
  const std::vector<uint32_t> bad = {3, 16};
  try {
    d.ctx[0]->create_stream(0, bad);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find("SM 16: the device has 16 SMs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpumux::frontend
