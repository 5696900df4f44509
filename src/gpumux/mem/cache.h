// Sectored set-associative cache, used as the L1D of an SM and as the L2 slice
// of a memory partition.
//
// 128 B lines of four 32 B sectors, LRU replacement, allocation on miss (a
// line waiting for its fill cannot be evicted: when a set has no other way,
// the request stalls: a "tag stall"). Misses take an MSHR per line; later
// requests to the line merge into it (up to mshr_merge), fetching only the
// sectors still missing. Writes follow write_policy / write_allocate; writes
// cover whole sectors, so a write miss never fetches. Atomics execute here if
// the cache has an atomic unit (the L2), else they go below untouched and
// invalidate the local copy.
//
// A request goes through an access pipeline of hit_latency cycles before its
// tag lookup, so hits and misses both pay it. Per cycle: up to `ports` fills
// from below, up to `ports` lookups in order from the pipeline's end (a
// stalled lookup blocks the ones behind it), `ports` responses sent up, and
// the writeback buffer drained. A hit is answered at its lookup, a miss when
// its fill is processed (atomics: atomic_latency cycles later). A miss is
// sent below at its lookup.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/core/stats.h"
#include "gpumux/mem/address_map.h"
#include "gpumux/mem/cache_params.h"
#include "gpumux/mem/request.h"
#include "gpumux/mem/ring_queue.h"

namespace gpumux::mem {

struct CacheStats {
  KeyedCounter read_hits, read_misses, sector_misses, mshr_merges;
  KeyedCounter write_hits, write_misses, atomics;
  Counter evictions, writebacks;
  Counter tag_stalls, mshr_stalls, below_stalls, writeback_stalls;  // cycles the input head waited

  void register_in(StatRegistry& reg, const std::string& prefix);
};

class Cache : public Component, public MemSink {
 public:
  // `size_bytes`: this cache's capacity (an L2 slice's share). `atomic_latency`:
  // set if atomics execute here. `local_index`: index sets by the partition-local
  // address (L2 slices), else by the address.
  Cache(Engine& engine, DomainId domain, std::string name, const CacheParams& params, uint64_t size_bytes,
        std::optional<uint32_t> atomic_latency, const AddressMap& map, bool local_index);

  void connect(MemSink* below, MemSink* above) {
    below_ = below;
    above_ = above;
  }
  // Where the level below delivers fills and responses.
  MemSink& fill_port() { return fill_port_; }

  // The pipeline holds hit_latency * ports requests besides the input queue.
  bool can_accept(const MemRequest&) const override { return input_.size() < input_capacity_; }
  void accept(const MemRequest& r) override {
    input_.push(Arrival{engine().wake_cycle(domain()) + params_.hit_latency, r});
    wake();
  }

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;

  // Valid sectors of the line holding `addr` (0 if absent), for tests and probes.
  SectorMask valid_sectors(uint64_t addr) const;
  SectorMask dirty_sectors(uint64_t addr) const;
  uint32_t sets() const { return sets_; }
  const CacheStats& stats() const { return stats_; }
  CacheStats& stats() { return stats_; }

 private:
  static constexpr uint64_t kNoLine = ~uint64_t(0);
  static constexpr uint32_t kNoMshr = ~uint32_t(0);
  static constexpr uint32_t kWritebackBuffer = 8;  // evicted dirty lines waiting to go below

  struct Line {
    uint64_t addr = kNoLine;
    SectorMask valid = 0;
    SectorMask dirty = 0;
    uint32_t mshr = kNoMshr;
    uint64_t last_use = 0;
  };
  struct Mshr {
    uint32_t line = 0;       // index in lines_
    SectorMask pending = 0;  // sectors requested from below, not yet filled
    uint32_t waiters = 0;    // requests in waiter(index, 0 .. waiters - 1)
  };
  struct Arrival {
    Cycle lookup;  // first cycle its tag lookup may happen
    MemRequest req;
  };
  struct Response {
    Cycle ready;
    uint64_t seq;
    MemRequest req;
    bool operator>(const Response& o) const { return ready != o.ready ? ready > o.ready : seq > o.seq; }
  };
  enum class Stall { None, Tag, Mshr, Below, Writeback };

  class FillPort : public MemSink {
   public:
    explicit FillPort(Cache& c) : cache_(c) {}
    bool can_accept(const MemRequest&) const override { return true; }  // bounded by what the cache sent
    void accept(const MemRequest& r) override {
      cache_.fills_.push(r);
      cache_.wake();
    }

   private:
    Cache& cache_;
  };

  uint32_t set_of(uint64_t addr) const;
  Line* find(uint64_t addr);
  const Line* find(uint64_t addr) const;
  // A way of addr's set to (re)allocate, or nullptr if every way waits for a fill.
  Line* victim(uint64_t addr);
  // Fails (no change) if a dirty victim finds the writeback buffer full.
  bool evict(Line& line);
  void touch(Line& line) { line.last_use = ++use_clock_; }
  void respond(const MemRequest& r, Cycle ready);
  void forward(const MemRequest& r);

  bool lookup(const MemRequest& r, Cycle now);
  bool read(const MemRequest& r, Line* line, Cycle now);
  bool write(const MemRequest& r, Line* line, Cycle now);
  bool forward_atomic(const MemRequest& r, Line* line);
  void fill(const MemRequest& f, Cycle now);
  void serve(const MemRequest& w, Line& line, Cycle now, uint32_t extra_latency);
  bool stall(Stall why);
  MemRequest& waiter(uint32_t mshr, uint32_t i) { return waiters_[size_t(i) * mshrs_.size() + mshr]; }
  void add_waiter(uint32_t mshr, const MemRequest& r);

  CacheParams params_;
  std::optional<uint32_t> atomic_latency_;
  const AddressMap& map_;
  bool local_index_;
  uint32_t sets_;
  MemSink* below_ = nullptr;
  MemSink* above_ = nullptr;
  FillPort fill_port_{*this};

  std::vector<Line> lines_;  // sets_ x ways
  std::vector<Mshr> mshrs_;
  std::vector<uint32_t> free_mshrs_;
  // Waiter i of MSHR m at [i * mshrs + m]: rows are added with the deepest
  // merge so far, which stays at one or two in most runs (mshr_merge is a bound).
  std::vector<MemRequest> waiters_;
  uint32_t input_capacity_;
  RingQueue<Arrival> input_;  // the queues grow to their deepest use
  RingQueue<MemRequest> fills_;
  RingQueue<MemRequest> writebacks_;
  std::priority_queue<Response, std::vector<Response>, std::greater<>> responses_;
  uint64_t use_clock_ = 0;
  uint64_t response_seq_ = 0;
  Stall stall_ = Stall::None;
  CacheStats stats_;
};

}  // namespace gpumux::mem
