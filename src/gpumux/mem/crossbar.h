// One direction of the interconnect: a crossbar from N input ports to M output
// ports (SMs -> memory partitions for requests, partitions -> SMs for
// responses).
//
// Each input has a FIFO queue. Every cycle, inputs are visited round-robin
// (starting one further each cycle); the head packet of a free input wins if
// its output port is free and has a buffer slot (reserved until the packet
// leaves the crossbar). A packet of B bytes holds its input and output ports
// for ceil(B / port_bytes) cycles and reaches the output latency cycles after
// its last flit left. Output buffers deliver in order to their sink as it
// accepts. Head-of-line blocking at the inputs is modeled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/core/stats.h"
#include "gpumux/mem/crossbar_params.h"
#include "gpumux/mem/request.h"
#include "gpumux/mem/ring_queue.h"

namespace gpumux::mem {

struct CrossbarStats {
  KeyedCounter packets, bytes;
  Counter output_conflicts;  // cycles an input head waited for its output port or buffer

  void register_in(StatRegistry& reg, const std::string& prefix);
};

class Crossbar : public Component {
 public:
  enum class Direction { ToMemory, ToCores };  // routes by request.partition / request.sm

  Crossbar(Engine& engine, DomainId domain, std::string name, const IcntParams& params, uint32_t inputs,
           uint32_t outputs, Direction direction);

  MemSink& input(uint32_t i) { return inputs_[i]; }
  void connect_output(uint32_t o, MemSink* sink) { outputs_[o].sink = sink; }
  // Bytes a request occupies on this crossbar's ports.
  uint32_t packet_bytes(const MemRequest& r) const;

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;
  const CrossbarStats& stats() const { return stats_; }
  CrossbarStats& stats() { return stats_; }

 private:
  class Input : public MemSink {
   public:
    Input(Crossbar& xbar, uint32_t index, uint32_t capacity)
        : queue(capacity), xbar_(&xbar), index_(index), capacity_(capacity) {}
    bool can_accept(const MemRequest&) const override { return queue.size() < capacity_; }
    void accept(const MemRequest& r) override {
      queue.push(r);
      ++xbar_->queued_;
      set_bit(xbar_->in_bits_, index_);
      xbar_->wake();
    }
    RingQueue<MemRequest> queue;
    Cycle busy_until = 0;  // first cycle the port is free

   private:
    Crossbar* xbar_;
    uint32_t index_;
    uint32_t capacity_;
  };
  struct InFlight {
    Cycle arrival;
    MemRequest req;
  };
  struct Output {
    MemSink* sink = nullptr;
    RingQueue<InFlight> queue;  // granted packets, in arrival order
    Cycle busy_until = 0;
  };

  static void set_bit(std::vector<uint64_t>& v, uint32_t i) { v[i / 64] |= uint64_t(1) << (i % 64); }
  static void clear_bit(std::vector<uint64_t>& v, uint32_t i) { v[i / 64] &= ~(uint64_t(1) << (i % 64)); }
  uint32_t route(const MemRequest& r) const { return direction_ == Direction::ToMemory ? r.partition : r.sm; }

  IcntParams params_;
  Direction direction_;
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
  uint32_t next_input_ = 0;  // round-robin start
  uint64_t queued_ = 0;      // packets in input queues
  uint64_t buffered_ = 0;    // packets granted, not yet delivered
  // Bit per input with a queued packet / output with a granted one: a tick
  // visits only those (idle ports of a large GPU cost nothing).
  std::vector<uint64_t> in_bits_, out_bits_;
  CrossbarStats stats_;
};

}  // namespace gpumux::mem
