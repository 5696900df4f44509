// One DRAM channel: banks with row buffers, an FR-FCFS scheduler and the
// timing constraints of dram_params.h, in DRAM command-clock cycles.
//
// Requests wait in a bounded queue (oldest first). Each cycle the channel can
// issue one column command and one row command (separate row and column
// command paths, as in HBM; a GDDR5 row command fits between the column
// commands of a burst):
//  - column: the oldest request hitting an open row whose bank, tCCD and data
//    bus allow it; data occupies the bus burst_length/data_rate cycles from
//    tCL (reads) or tWL (writes) later. A request needs one column command per
//    bus_bytes*burst_length atom holding one of its sectors.
//  - row: for the oldest request whose row is not open: PRECHARGE (after tRAS
//    and write recovery tWR, and only if no queued request hits the open
//    row), or ACTIVATE (tRP after precharge, tRRD after any activate).
// A read is returned above controller_latency cycles after its last data beat
// is on the bus; a write is acknowledged likewise; a writeback completes
// silently.
// All-bank refresh (tREFI > 0): every tREFI cycles the channel stops issuing,
// precharges every bank once it may (tRAS, tWR), and keeps all banks closed
// for tRP + tRFC. Refreshes due while the channel sleeps idle happen unseen:
// it wakes with its banks closed.
// Not modeled: read/write bus turnaround, tFAW, power-down.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/core/stats.h"
#include "gpumux/mem/address_map.h"
#include "gpumux/mem/dram_params.h"
#include "gpumux/mem/request.h"
#include "gpumux/mem/ring_queue.h"

namespace gpumux::mem {

struct DramStats {
  KeyedCounter reads, writes;                         // requests (writebacks count as writes)
  KeyedCounter row_hits, row_misses, row_conflicts;   // first command a request needed: column, activate, precharge
  Counter activates, precharges;
  Counter data_cycles;  // cycles the data bus carried data
  Counter refreshes;

  void register_in(StatRegistry& reg, const std::string& prefix);
};

class DramChannel : public Component, public MemSink {
 public:
  DramChannel(Engine& engine, DomainId domain, std::string name, const DramParams& params, const AddressMap& map);

  void connect(MemSink* above) { above_ = above; }
  bool can_accept(const MemRequest&) const override { return queue_.size() < params_.queue_size; }
  void accept(const MemRequest& r) override;

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;
  const DramStats& stats() const { return stats_; }
  DramStats& stats() { return stats_; }

 private:
  enum class RowOutcome : uint8_t { Unknown, Hit, Miss, Conflict };
  struct Entry {
    MemRequest req;
    uint32_t bank;
    uint64_t row;
    uint32_t columns_left;
    RowOutcome outcome;
  };
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    Cycle act_ok = 0;  // earliest ACTIVATE
    Cycle col_ok = 0;  // earliest column command
    Cycle pre_ok = 0;  // earliest PRECHARGE
  };

  uint32_t columns_for(SectorMask sectors) const;
  void classify(Entry& e, RowOutcome o);
  // Each issues at most one command; when it issues none it lowers `next` to
  // the earliest cycle it might, unless the queue or a bank changes first.
  bool issue_column(Cycle now, Cycle& next);
  bool issue_row(Cycle now, Cycle& next);
  bool hits_open_row(const Entry& e) const { return banks_[e.bank].open && banks_[e.bank].row == e.row; }
  // True while a due refresh keeps the channel from issuing.
  bool refresh(Cycle now);

  DramParams params_;
  const AddressMap& map_;
  MemSink* above_ = nullptr;
  std::vector<Entry> queue_;  // oldest first
  std::vector<Bank> banks_;
  // Per bank, the queued requests hitting its open row (0 while closed),
  // and their sum: kept on arrival, column issue, activate and refresh so
  // the schedulers need no pass over the queue to know them.
  std::vector<uint32_t> bank_hits_;
  uint32_t hits_ = 0;
  Cycle act_any_ok_ = 0;  // tRRD
  Cycle col_any_ok_ = 0;  // tCCD
  Cycle bus_free_ = 0;    // first cycle the data bus is free
  // The scheduler found nothing to issue and cannot before sched_recheck_
  // unless a request arrives or a command is issued (sched_dirty_).
  bool sched_dirty_ = true;
  Cycle sched_recheck_ = 0;
  Cycle next_refresh_ = 0;  // cycle the next refresh is due (tREFI > 0)
  RingQueue<std::pair<Cycle, MemRequest>> done_;  // completion cycle order = data bus order
  DramStats stats_;
};

}  // namespace gpumux::mem
