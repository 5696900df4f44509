// Address translation and demand paging between the L1D caches and the
// request crossbar (docs/virtual-memory.md). The L1D is virtually tagged (the
// thesis's baseline GPU, Tanasic ch. 6), so only its misses, write-throughs
// and write-backs are translated:
//
//   L1D[i] --> L1 TLB[i] --miss--> L2 TLB (shared) --miss--> walkers --> page table
//                 |                    |                                   |
//                 +------ hit ---------+------------ resident -------------+--> icnt.to_mem
//                                                      not resident: fault --> host (serial)
//
// Each TLB answers `latency` cycles after a lookup and tracks at most `mshrs`
// pages in translation (requests to a page already missing merge into its
// entry). A walk holds one of `walkers` for `walk_latency` cycles. A page not
// resident raises a fault on its migration unit; the host services faults one
// at a time, each for fault_us (or, with vm.local_faults, a unit without host
// data is allocated by the GPU's own handler, in parallel), and the
// translation is then walked again
// (the thesis's baseline: a fault is a very long TLB miss, so the faulting
// warp waits for its load while the SM runs other warps).
//
// Physical placement is not modeled: a page maps to itself (the address the
// SM sends already separates applications, sm_lsu.cpp), so caches, partition
// and DRAM see the same addresses as without translation.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/core/stats.h"
#include "gpumux/mem/request.h"
#include "gpumux/mem/tlb.h"
#include "gpumux/mem/vm_params.h"

namespace gpumux::mem {

struct MmuStats {
  KeyedCounter l1_hits, l1_misses, l2_hits, l2_misses, walks, faults, migrated_bytes;
  // Paging beyond the thesis's faults (mmu_paging.cpp): allocation-only
  // faults, prefetches, evictions, units the host took back.
  KeyedCounter allocation_faults, prefetched_bytes, evictions, written_back_bytes, host_migrations;
  KeyedCounter local_faults;  // allocation-only faults handled on the GPU (vm.local_faults)
  KeyedHistogram translation_latency{Histogram(50, 100)};  // core cycles of translations that missed the L1 TLB

  void register_in(StatRegistry& reg, const std::string& prefix);
};

class Mmu : public Component {
 public:
  // Whether the migration unit holding `addr` starts on the host (demand paging).
  using HostResidence = std::function<bool(uint64_t addr)>;

  Mmu(Engine& engine, DomainId core, double core_mhz, const VmParams& params, uint32_t sms);
  ~Mmu() override;

  // Where L1D[sm] sends its requests; they leave translated to `below`.
  MemSink& port(uint32_t sm);
  void connect(uint32_t sm, MemSink* below);
  void set_host_residence(HostResidence f) { on_host_ = std::move(f); }
  // Who hears of SM `sm`'s requests marked check_translation, in the cycle
  // their translation is done (an L1 TLB hit's latency after lookup, or the
  // fill of a miss).
  void set_translation_listener(uint32_t sm, TranslationListener* l);

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;
  const MmuStats& stats() const { return stats_; }
  MmuStats& stats() { return stats_; }
  // Faults raised and not yet serviced (the thesis's figure 6.2).
  uint32_t faults_in_flight() const { return faults_in_flight_; }

  // Residency of paged data as the host changes it (mmu_paging.cpp,
  // docs/virtual-memory.md). Addresses are as SMs send them; a range covers
  // every migration unit it touches; units not paged (host_residence false)
  // are left alone.
  //
  // The runtime reports every host write (host_wrote): from then on a unit
  // never reported holds no data and its fault costs fault_alloc_us.
  void report_host_writes() { host_writes_reported_ = true; }
  // Bytes a residency change moves over the link; the caller spends their time.
  struct Migration {
    uint64_t to_device = 0, to_host = 0;
  };
  // The host wrote the range: its device-resident units go back to the host
  // (written back, TLB shootdown), and their next faults transfer data.
  Migration host_wrote(uint64_t addr, uint64_t bytes, StatKey key);
  // cudaMemPrefetchAsync: the range's host-resident units move to the device
  // now (evicting as needed) or, `to_host`, its device-resident ones back.
  Migration prefetch(uint64_t addr, uint64_t bytes, bool to_host, StatKey key);
  // The runtime copied into the range under vm.copies_resident: its units are
  // on the device now, as after an explicit copy (whose time is the caller's);
  // only the write-backs of units evicted for them are returned.
  Migration copied(uint64_t addr, uint64_t bytes, StatKey key);
  // cudaMemAdviseSetReadMostly: an evicted unit the host still holds a copy
  // of is dropped rather than written back.
  void set_read_mostly(uint64_t addr, uint64_t bytes, bool read_mostly);
  // The range was freed: its units leave device memory without a write-back.
  void release(uint64_t addr, uint64_t bytes);
  // Migration units of paged data resident on the device (faults in flight excluded).
  size_t resident_units() const { return lru_.size(); }

 private:
  struct Port;
  enum class Kind : uint8_t { L2Lookup, Walk, WalkDone, FaultDone, LocalFaultDone, L1Fill };
  struct Event {
    Cycle at;
    uint64_t seq;  // ties in creation order: deterministic
    Kind kind;
    uint32_t sm;
    uint64_t page;
    StatKey key;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct L2Miss {
    std::vector<uint32_t> sms;  // L1 TLBs waiting for the page, in arrival order
    StatKey key;
    Cycle since;
    bool faulted = false;  // its walk found the page's unit off the device
  };
  enum class Residence : uint8_t { Device, Host, Faulting };
  struct Unit {  // a migration unit of the page table
    Residence where;
    std::vector<uint64_t> waiting = {};  // pages whose walk found it faulting
    bool paged = false;      // starts on the host (else the device owns it for good)
    bool host_data = true;   // the host holds its data: a fault transfers it (else allocation-only)
    bool read_mostly = false;
    StatKey key = kNoKey;    // what brought it to the device, for eviction statistics
    std::list<uint64_t>::iterator lru = {};  // its place in lru_ while resident
  };

  void accept(uint32_t sm, const MemRequest& r);
  void schedule(Cycle at, Kind kind, uint32_t sm, uint64_t page, StatKey key);
  void process(const Event& e);
  void l2_lookup(const Event& e);
  void start_walk(uint64_t page, StatKey key);
  void walk_done(const Event& e);
  void fault_done(const Event& e);
  void l1_fill(const Event& e);
  // The requests of SM `sm` waiting for `page` are reported faulted (once).
  void report_faulted(uint32_t sm, uint64_t page);
  Unit& unit_of(uint64_t page);
  // Paging (mmu_paging.cpp).
  void raise_fault(Unit& u, uint64_t page, StatKey key);
  void arrive(Unit& u, uint64_t unit);        // resident now: most recently used
  void used(Unit& u);                         // a walk found it resident
  void leave(Unit& u, uint64_t unit);         // off the device: TLB shootdown
  void take_back(Unit& u, uint64_t unit, StatKey key, Migration& m);  // to the host, written back
  void shoot_down(uint64_t unit);             // drops its pages from every TLB
  Cycle make_room(Migration* m);              // evicts for one more unit; the host's write-back time
  // Makes a host-resident unit resident (a prefetch, a copy); false if it already was or is faulting.
  bool bring_in(Unit& u, uint64_t unit, StatKey key, Migration& m);
  bool translation_valid(uint64_t page);      // false once its unit left the device
  template <class F>
  void for_each_unit(uint64_t addr, uint64_t bytes, F&& f);
  uint64_t page_of(uint64_t addr) const { return addr >> page_shift_; }

  VmParams params_;
  Cycle fault_cycles_;
  Cycle fault_alloc_cycles_, write_back_cycles_, local_fault_cycles_;
  uint64_t capacity_units_;  // 0: unlimited
  bool host_writes_reported_ = false;
  std::list<uint64_t> lru_;  // resident paged units, least recently used first
  unsigned page_shift_, unit_shift_;
  std::vector<std::unique_ptr<Port>> ports_;
  TlbArray l2_;
  std::unordered_map<uint64_t, L2Miss> l2_misses_;
  std::queue<Event> l2_backlog_;  // lookups that missed with every L2 TLB MSHR taken
  std::queue<Event> walk_queue_;  // walks waiting for a walker
  uint32_t walkers_busy_ = 0;
  std::unordered_map<uint64_t, Unit> units_;
  HostResidence on_host_;
  Cycle host_free_ = 0;  // the host services one fault at a time
  uint32_t faults_in_flight_ = 0;
  uint32_t local_faults_in_flight_ = 0;  // of them, handled on the GPU
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t seq_ = 0;
  Cycle now_ = 0;  // cycle of the tick in progress, or of the last one
  MmuStats stats_;
};

}  // namespace gpumux::mem
