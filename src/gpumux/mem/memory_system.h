// The memory system of a GPU, assembled from the config: an L1D per SM, the
// request and response crossbars, and per memory partition an L2 slice and a
// DRAM channel, each ticked in its own clock domain.
//
//   SM i --send--> L1D[i] --> icnt.to_mem --> L2[p] --> DRAM[p]
//   SM i <--sink-- L1D[i] <-- icnt.to_sm  <-- L2[p] <--
//
// With vm.translation, the requests L1D[i] sends down pass through the MMU
// (mmu.h) on their way to icnt.to_mem; without it, nothing of it is built.
//
// The SM's load/store unit coalesces a warp instruction (mem/coalescer.h) into
// line requests and sends each one while can_accept(sm) holds. Every request
// but a Writeback comes back exactly once, as the same MemRequest (token
// untouched), through the sink connected for its SM, in the core domain.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/core/config.h"
#include "gpumux/core/engine.h"
#include "gpumux/core/gpu_clocks.h"
#include "gpumux/core/stats.h"
#include "gpumux/mem/address_map.h"
#include "gpumux/mem/cache.h"
#include "gpumux/mem/crossbar.h"
#include "gpumux/mem/dram.h"
#include "gpumux/mem/mmu.h"
#include "gpumux/mem/request.h"

namespace gpumux::mem {

class MemorySystem {
 public:
  // Registers its statistics in `stats`: sm<i>.l1d.*, icnt.to_mem.*,
  // icnt.to_sm.*, mem<p>.l2.*, mem<p>.dram.*, mem.latency (core cycles).
  MemorySystem(Engine& engine, const GpuClocks& clocks, const GpuConfig& config, StatRegistry& stats);
  ~MemorySystem();

  // Where responses for SM `sm` go; must be connected before its first send.
  void connect_sm(uint32_t sm, MemSink& responses);
  bool can_accept(uint32_t sm) const;
  // Sends `r` from SM r.sm; fills in r.partition and r.issued.
  void send(MemRequest r);

  const AddressMap& address_map() const { return map_; }
  // Partitioned memory (MIG): AddressMap::partition_by_instance; before the first request.
  void partition_by_instance(std::function<uint32_t(uint64_t)> instance_of, std::vector<PartitionRange> ranges) {
    map_.partition_by_instance(std::move(instance_of), std::move(ranges));
  }
  uint32_t num_sms() const { return uint32_t(l1d_.size()); }
  uint32_t num_partitions() const { return uint32_t(l2_.size()); }
  Cache& l1d(uint32_t sm) { return *l1d_[sm]; }
  Cache& l2(uint32_t partition) { return *l2_[partition]; }
  DramChannel& dram(uint32_t partition) { return *dram_[partition]; }
  const KeyedHistogram& latency() const { return latency_; }
  // Null without vm.translation.
  Mmu* mmu() { return mmu_.get(); }

 private:
  class ResponseTap;  // measures round trips on the way to the SM

  Engine& engine_;
  DomainId core_;
  AddressMap map_;
  KeyedHistogram latency_;
  std::vector<std::unique_ptr<ResponseTap>> taps_;
  std::vector<std::unique_ptr<Cache>> l1d_;
  std::unique_ptr<Mmu> mmu_;
  std::unique_ptr<Crossbar> to_mem_;
  std::unique_ptr<Crossbar> to_sm_;
  std::vector<std::unique_ptr<Cache>> l2_;
  std::vector<std::unique_ptr<DramChannel>> dram_;
};

}  // namespace gpumux::mem
