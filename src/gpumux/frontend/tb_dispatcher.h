// The front end, minimal: per-application streams (in-order kernel queues),
// the active-kernel table and the TB dispatcher.
//
// A kernel reaches the head of its stream when the kernel before it has
// finished; launch_latency cycles later it enters the active-kernel table
// (at most max_active_kernels). Each cycle the dispatcher visits the SMs
// round-robin and places at most one TB per SM, from the oldest active kernel
// whose TB fits the SM's free resources and that the sharing policy allows
// there: breadth-first over SMs like the hardware, FCFS leftover sharing
// between kernels of different streams and applications.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/frontend/frontend_params.h"
#include "gpumux/frontend/sharing_policy.h"
#include "gpumux/sm/kernel_instance.h"
#include "gpumux/sm/sm.h"

namespace gpumux::frontend {

// What happened to one kernel launch, in core cycles.
struct KernelRecord {
  uint32_t id = 0, app = 0, stream = 0;
  std::string name, label;
  StatKey key = kNoKey;
  uint64_t tbs = 0;
  Cycle enqueued = 0, activated = 0, first_tb = 0, finished = 0;
  bool done = false;
  Cycle cycles() const { return finished - activated; }
};

class TbDispatcher : public Component, public sm::TbDoneListener {
 public:
  TbDispatcher(Engine& engine, DomainId core, const FrontendParams& p, std::unique_ptr<SharingPolicy> policy);
  ~TbDispatcher() override;

  void attach(std::vector<sm::Sm*> sms) { sms_ = std::move(sms); }
  // Queues `k` on stream (app, stream); returns its index in records().
  size_t enqueue(std::unique_ptr<sm::KernelInstance> k, uint32_t stream, std::string name);
  // No queued or running kernel of `app`.
  bool app_idle(uint32_t app) const;
  const std::vector<KernelRecord>& records() const { return records_; }
  SharingPolicy& policy() { return *policy_; }

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;
  void tb_done(uint32_t sm, sm::KernelInstance& k) override;

 private:
  struct Running {
    std::unique_ptr<sm::KernelInstance> kernel;
    size_t record = 0;
    uint64_t next_tb = 0, tbs_done = 0;
    Cycle ready_at = kNever;  // when it may become active (head of its stream + launch latency)
    bool active = false;
  };
  using StreamId = std::pair<uint32_t, uint32_t>;  // (app, stream)

  void make_head(StreamId s, Cycle now);

  FrontendParams p_;
  std::unique_ptr<SharingPolicy> policy_;
  std::vector<sm::Sm*> sms_;
  std::map<StreamId, std::deque<Running>> streams_;
  std::vector<Running*> active_;  // in activation order (FCFS)
  std::vector<KernelRecord> records_;
  std::vector<uint32_t> pending_per_app_;  // queued or running kernels
  size_t next_sm_ = 0;
};

}  // namespace gpumux::frontend
