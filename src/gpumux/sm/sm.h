// One streaming multiprocessor, cycle by cycle in the core clock domain.
//
// TBs of any number of kernels (and applications) are resident at once, each
// holding a contiguous range of registers and shared memory (RangeAllocator),
// warp slots, a TB slot and threads. Warps are split over sub-cores (slot mod
// sub_cores); each sub-core has one warp scheduler (warp_scheduler/) and its
// own functional units, each with an initiation interval. Instructions run
// functionally at issue (exec::Warp::step); the scoreboard then holds their
// destination registers until the result latency passes or the memory
// response arrives. The load/store unit (sm_lsu.cpp) models shared memory
// banks, the constant cache, and global/local accesses through the coalescer,
// the L1D and the memory system.
//
// The SM ticks only while some warp can issue or the LSU has requests to
// send; otherwise it sleeps until the next scoreboard release or until a
// memory response wakes it. Cycles slept are charged to the stall reason
// found at the last tick, so the statistics are those of a per-cycle model.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/core/sm_params.h"
#include "gpumux/core/stats.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/frontend/events/edge_params.h"
#include "gpumux/mem/coalescer.h"
#include "gpumux/mem/memory_system.h"
#include "gpumux/sm/event_warps.h"
#include "gpumux/sm/fault_pipeline.h"
#include "gpumux/sm/inst_timing.h"
#include "gpumux/sm/kernel_instance.h"
#include "gpumux/sm/operand_collector.h"
#include "gpumux/sm/preemption.h"
#include "gpumux/sm/range_allocator.h"
#include "gpumux/sm/two_way_allocation.h"
#include "gpumux/sm/warp_scheduler/quota_warp_scheduler.h"
#include "gpumux/sm/warp_scheduler/warp_scheduler.h"

namespace gpumux::sm {

struct EventWarpTable;

// Why a scheduler issued nothing in a cycle (or Issued).
enum class IssueOutcome : uint8_t {
  Issued,
  Idle,        // no resident warp can ever issue (none, or all exited)
  Fetch,       // the next instruction is not in the instruction buffer yet
  Scoreboard,  // operands not ready (ALU result or memory load pending)
  Pipe,        // the functional unit is busy (initiation interval)
  Memory,      // the load/store unit is full, or the warp waits for its stores (fence)
  Barrier,     // warps wait at a barrier
  Throttled,   // ready warps, but the policy chose none
};
inline constexpr unsigned kNumOutcomes = 8;
const char* outcome_name(IssueOutcome o);

// Told when a TB finishes (all warps exited, all their memory accesses done)
// when a switched or flushed TB has left the SM, and when the parked shared
// memory of a TB switched with a lazy save has been written back (preemption.h).
class TbDoneListener {
 public:
  virtual ~TbDoneListener() = default;
  virtual void tb_done(uint32_t sm, KernelInstance& kernel, uint64_t tb_index) = 0;
  virtual void tb_preempted(uint32_t sm, KernelInstance& kernel, PreemptedTb tb) = 0;
  virtual void shared_evicted(uint32_t sm, KernelInstance& kernel, uint64_t tb_index) = 0;
  // TB switching on fault: whether a TB of `kernel` whose warps all wait for
  // faults should leave SM `sm` (a ready TB would take its place), and that
  // the faults a TB switched out of `sm` waited for are serviced.
  virtual bool wants_fault_switch(uint32_t sm, const KernelInstance& kernel) = 0;
  virtual void faults_serviced(uint32_t sm, uint32_t kernel_id, uint64_t tb_index) = 0;
  // Whether the front end may lend an SM whose TBs wait for faults
  // (fault-aware scheduling): the SM then tracks faults for switching even
  // without sm.fault_pipeline.extra_tbs. Asked once, when the SM is built.
  virtual bool lends_sms_on_fault() const { return false; }
};

struct SmStats {
  KeyedCounter warp_insts, thread_insts;
  std::array<KeyedCounter, kNumOutcomes> issue;  // per scheduler cycle
  KeyedCounter active_cycles;        // cycles the key has resident warps here
  KeyedCounter resident_warp_cycles;  // sum over cycles of resident warps (occupancy)
  KeyedCounter tbs_done;
  KeyedCounter shared_accesses, shared_conflict_cycles;  // extra cycles from bank conflicts
  KeyedCounter operand_conflict_cycles;  // register-bank conflicts (registered with the operand collector only)
  KeyedCounter const_accesses;
  KeyedCounter global_lines, local_lines;
  Counter busy_cycles;  // cycles with any resident TB
  // Preemption (sm_preempt.cpp).
  KeyedCounter tbs_switched, tbs_flushed, tbs_resumed;
  KeyedCounter context_bytes_saved, context_bytes_restored;
  KeyedCounter insts_discarded;  // by flushes
  // Lazy shared-memory save (sm_parked_shared.cpp).
  KeyedCounter shared_parked, shared_resumed_in_place, shared_evictions;
  // Warp-level events (sm_event_warps.cpp), keyed by the event kernel / the victim's kernel.
  KeyedCounter event_warps_free, event_warps_preempting, victim_warps, victim_register_saves;
  // Fragmentation (sm_fragmentation.cpp), keyed by the kernel refused.
  KeyedCounter fragmented_cycles, fragmented_register_cycles, fragmented_shared_byte_cycles, fragmentation_episodes;
  // Preemptible-fault pipelines (sm_fault_pipeline.cpp), registered only with one.
  KeyedCounter fault_disabled_cycles;       // warp-cycles disabled by a global memory instruction (WD)
  KeyedCounter fault_source_hold_cycles;    // instruction-cycles sources were held to the last check
  KeyedCounter fault_replay_entry_cycles;   // replay-queue entry-cycles (occupancy x time)
  KeyedCounter fault_replay_full_cycles;    // warp-cycles a memory instruction waited for the replay queue
  KeyedCounter fault_log_entry_cycles;      // operand-log entry-cycles
  KeyedCounter fault_log_full_cycles;       // warp-cycles a memory instruction waited for log space
  // TB switching on fault (sm_fault_switch.cpp), registered only with it.
  KeyedCounter tbs_switched_on_fault, fault_replays;
};

class Sm : public Component, public mem::MemSink, public mem::TranslationListener {
 public:
  Sm(Engine& engine, DomainId core, uint32_t id, const SmParams& p, mem::MemorySystem& memory,
     StatRegistry& stats, TbDoneListener& listener);
  ~Sm() override;

  uint32_t id() const { return id_; }
  const SmParams& params() const { return p_; }
  // Whether one more TB of `k` fits now (warps, TB slot, threads, registers, shared memory).
  bool fits(const KernelInstance& k) const;
  // Whether it would fit if the free registers and shared memory were
  // contiguous: !fits(k) && fits_if_contiguous(k) is fragmentation.
  bool fits_if_contiguous(const KernelInstance& k) const;
  // Starts TB `tb_index` (linear) of `k`; fits(k) must hold. Returns its TB slot.
  uint16_t start_tb(KernelInstance& k, uint64_t tb_index);

  // Preemption (preemption.h, sm_preempt.cpp).
  // The resident TBs of kernel `kernel_id`, by slot; under 2-way allocation,
  // in its fixed preemption order (boundary TBs first).
  void resident_tbs(uint32_t kernel_id, std::vector<ResidentTb>& out) const;
  // Whether preemptions must take resident_tbs()'s first TBs (2-way allocation).
  bool fixed_preemption_order() const;
  // Starts taking the TB in `slot` off the SM. Drain only marks it. A TB
  // whose warps have all exited, and Flush of a TB that is not idempotent,
  // drain instead; a TB marked to drain may later be switched or flushed
  // (hybrid). The listener hears tb_preempted (switch, flush) or tb_done.
  void preempt_tb(uint16_t slot, PreemptAction a, const ContextSaveOptions& o);
  // Places a preempted TB again: fits(k) must hold. A flushed TB starts from
  // the beginning; a switched one first reads its state back.
  void resume_tb(KernelInstance& k, PreemptedTb tb);
  // Lazy shared-memory save (preemption.h, sm_parked_shared.cpp).
  // Whether TB `tb_index` of `k`, whose shared memory is parked here, can
  // resume here now (TB slot, warps, threads and registers free).
  bool fits_parked(const KernelInstance& k, uint64_t tb_index) const;
  // If parked shared memory is all that keeps one more TB of `k` out, starts
  // writing back parked shared memory, oldest first, until it would fit.
  void make_room(const KernelInstance& k);
  // Starts writing back the parked shared memory of TB `tb_index` of kernel
  // `kernel_id` (it will resume elsewhere); the listener hears shared_evicted.
  void evict_parked(uint32_t kernel_id, uint64_t tb_index);
  // Frees it without writing it back (its launch ended with a fault).
  void drop_parked(uint32_t kernel_id, uint64_t tb_index);
  uint32_t parked_shared_bytes() const;
  // Bytes a context switch of one TB of `k` would move if it were saved
  // whole (its register allocation, shared memory and per-warp state).
  uint64_t full_context_bytes(const KernelInstance& k) const;
  uint32_t resident_tbs() const { return tbs_used_; }
  uint32_t warps_used() const { return warps_used_; }
  uint32_t threads_used() const { return threads_used_; }
  uint32_t resident_tbs(uint32_t kernel_id) const;
  // Warps of kernel `kernel_id` whose next instruction is ready (operands
  // and instruction) at `now` but that have not issued it: the idle warps
  // that the QoS TB adjustment samples (ISCA'17 3.6). Not on the per-cycle path.
  uint32_t idle_warps(uint32_t kernel_id, Cycle now) const;
  // Resident warps waiting neither for memory (a load, a fence, a fault) nor
  // at a barrier: the thesis's "active (non faulted) warps" of figure 6.2.
  // Not on the per-cycle path (sm_describe_wait.cpp).
  uint32_t active_warps() const;
  // TB switching on fault: some request of the SM is known to fault, and
  // every TB on it runs with its warps all blocked on memory not yet
  // translated (or at a barrier): the SM does nothing until the faults are
  // serviced. Fault-aware scheduling (docs/virtual-memory.md) then lends it:
  // vacate_on_fault() switches every one of those TBs out as on a fault.
  bool fault_idle() const;
  void vacate_on_fault(Cycle now);
  const SmStats& stats() const { return stats_; }
  // Wraps every sub-core's scheduler in a QuotaWarpScheduler sharing one set
  // of per-kernel quota counters (a QoS manager is active); before any TB.
  void enable_quotas();
  // The quota counters, null unless enable_quotas() was called.
  KernelQuotas* quotas() { return quotas_.get(); }
  // Warp-level event kernels (event_warps.h, sm_event_warps.cpp). Before any TB.
  void enable_event_warps(const EdgeParams& p, EventWarpListener& listener);
  void register_event_stats(StatRegistry& stats);
  // Whether the Pending Event Warp Table has a free entry.
  bool event_table_has_room() const;
  // Whether an event warp of `k` would start now in a free warp slot.
  bool event_fits_free(const KernelInstance& k) const;
  // Whether some resident warp could be preempted for an event warp of `k`.
  bool event_can_preempt(const KernelInstance& k) const;
  // Enters the event warp of `k` (one TB of one warp) into the PEWT: it
  // starts in a free slot, or preempts a victim, or waits for either.
  void submit_event_warp(KernelInstance& k);
  // The front end's verdict after offering this SM a TB of each kernel that
  // may place one here: `refused` is the first refused only because free
  // registers or shared memory are not contiguous (in its safe launch region
  // under 2-way allocation), null if none. Until the next verdict, the free
  // units of the pool(s) that refused it count as fragmented (sm_fragmentation.cpp).
  void fragmentation_verdict(const KernelInstance* refused);
  const RangeAllocator& register_file() const { return regs_; }
  const RangeAllocator& shared_memory() const { return smem_; }

  Cycle tick(Cycle now) override;
  std::string describe_wait() const override;

  // Responses from the L1D.
  bool can_accept(const mem::MemRequest&) const override { return true; }
  void accept(const mem::MemRequest& r) override;
  // From the MMU: a request of a global memory instruction passed its TLB check.
  void translated(const mem::MemRequest& r) override;
  // ... or found its page on the host (TB switching on fault).
  void faulted(const mem::MemRequest& r) override;

 private:
  // Preempted: held by a switch, flush or restore (not scheduled).
  // Victim: its slot is lent to an event warp (event_warps.h).
  enum class Block : uint8_t { None, Barrier, Fence, Exited, Preempted, Victim };

  // An outstanding global/local memory instruction of a warp.
  struct MemOp {
    uint16_t lines_left = 0;
    uint8_t num_regs = 0;
    bool is_store = false;
    uint16_t extra_latency = 0;      // the texture unit's, for texture and surface instructions
    bool async_copy = false;         // cp.async, of commit group async_group
    uint32_t async_group = 0;
    std::array<uint32_t, 4> regs{};  // absolute scoreboard slots (kPredBit for predicates)
    // Under a preemptible-fault pipeline (sm_fault_pipeline.cpp), a global
    // memory instruction: lines whose TLB check is still pending, what it holds.
    bool pipelined = false;   // issue to commit
    bool disables = false;    // its warp waits for it (WD)
    uint8_t log_entries = 0;  // operand-log entries held until its last check
    uint8_t num_held = 0;
    uint64_t unchecked = 0;   // bit per line
    // TB switching on fault: lines reported faulted and not translated yet,
    // and the entry's generation (in its tokens: a squash makes the
    // responses of the squashed requests stale).
    uint64_t faulted = 0;
    uint16_t gen = 0;
    Cycle issued_at = 0;
    std::array<uint32_t, 16> held{};  // source slots held (replay-queue), as regs
  };

  // What a scan reads comes first, in one host cache line.
  struct alignas(64) WarpSlot {
    exec::Warp* warp = nullptr;
    KernelInstance* kernel = nullptr;
    const InstTiming* next = nullptr;
    uint64_t age = 0;
    Cycle fetch_ready = 0;  // next instruction in the instruction buffer
    Cycle ready_at = 0;     // operands and instruction ready (kNever: waits for an event)
    uint32_t mem_ops_used = 0;    // bit per MemOp entry in use
    uint16_t tb = 0;
    uint8_t sub_core = 0;
    Block block = Block::None;
    bool waits_memory = false;  // ready_at is kNever because of a pending load
    uint32_t pending_stores = 0;  // instructions whose write acknowledgements are missing
    std::vector<Cycle> reg_ready, pred_ready;  // scoreboard: by frame base + index
    std::vector<MemOp> mem_ops;  // sized when the slot first hosts a warp
    // cp.async commit groups, numbered in commit order: the outstanding
    // copies of each group from async_front (the oldest with copies left,
    // or the open group) to async_open (the group new copies join).
    // cp.async.wait_group N waits while async_front + N < async_open.
    // A vector, not a deque: a deque allocates even while empty, and most
    // warp slots of a short run are never used.
    std::vector<uint32_t> async_pending;
    uint32_t async_front = 0, async_open = 0;
    // Preemptible-fault pipelines (sm_fault_pipeline.cpp).
    Cycle enabled_at = 0;        // WD: no issue before (kNever: its memory instruction has not passed)
    Cycle disabled_since = 0;
    Cycle fault_stall_since = kNever;  // waiting for replay-queue or log space since
    bool fault_stall_log = false;      // ... for log space (else the replay queue)
    std::vector<Cycle> held_reg, held_pred;  // replay-queue: written no earlier than (kNever: held)
    // TB switching on fault: what each MemOp entry sent, to replay it.
    std::vector<ReplayedAccess> sent;
  };

  // Where a TB is in the preemption protocol.
  enum class Phase : uint8_t { Running, Quiescing, Saving, Restoring };

  struct TbSlot {
    std::unique_ptr<exec::ThreadBlock> tb;
    KernelInstance* kernel = nullptr;
    uint64_t index = 0;  // linear TB index in the grid
    Range regs, smem;
    std::vector<uint16_t> warps;  // warp slots
    uint32_t unretired = 0;       // warps not yet exited with all accesses done
    uint32_t at_barrier = 0;
    bool used = false;
    // Preemption state.
    Phase phase = Phase::Running;
    PreemptAction action = PreemptAction::Drain;
    bool marked = false;        // a preemption action is pending (draining included)
    bool side_effects = false;  // a warp stored to global/local memory, did an atomic or called a builtin
    bool flushed_before = false;  // a re-run after a flush: not flushed again
    bool live_only = false;     // the switch saves live registers only
    bool lazy_shared = false;   // the switch leaves shared memory parked (or a restore found it parked)
    bool zero_cost = false;     // the switch moves no bytes (ContextSaveOptions::zero_cost)
    Cycle started = 0;          // this stint on the SM
    uint64_t run_cycles_before = 0;  // earlier stints (switched TBs)
    uint64_t insts = 0;              // warp instructions since (re)start
    Cycle pipeline_done = 0;    // ALU results of its warps are written by then
    uint64_t context_bytes = 0; // saving or restoring
    uint32_t lines_unacked = 0; // context lines not yet acknowledged
    uint32_t log_capacity = 0, log_used = 0;  // operand-log partition, in entries
    // TB switching on fault: its warps' lines reported faulted, whether this
    // switch is one on fault, and the squashed instructions it carries
    // (between squash and release, or resume and the end of the restore).
    uint32_t fault_lines = 0;
    bool fault_switch = false;
    std::vector<ReplayedAccess> replays;
  };

  // A TB switched out on fault, until the faults of its squashed requests
  // are serviced: their tokens (stale), and whether it has left the SM.
  struct FaultWait {
    uint32_t kernel_id = 0;
    uint64_t tb = 0;
    std::vector<uint64_t> tokens;
    bool left = false;
  };

  // Context save or restore traffic of one TB, or the write-back of parked
  // shared memory, one 128 B line per cycle.
  struct ContextTransfer {
    uint64_t token = 0;  // kContextToken | TB slot, or kParkedToken | parked id
    bool write = true;
    uint64_t base = 0;  // physical address in the TB's save area
    uint32_t next_line = 0, lines = 0;
    Cycle not_before = 0;
    uint16_t app = 0, kernel = 0;
    StatKey key = kNoKey;
  };

  // The shared memory of a TB switched with a lazy save, still on this SM.
  struct ParkedShared {
    uint32_t id = 0;  // in write-back tokens
    KernelInstance* kernel = nullptr;
    uint64_t index = 0;  // the TB
    Range smem;
    uint32_t lines_unacked = 0;  // write-back in flight
    bool evicting = false;
  };

  struct SubCore {
    std::unique_ptr<WarpScheduler> scheduler;
    bool kernel_fields = false;  // scheduler->wants_kernel_fields()
    std::vector<uint16_t> warps;     // resident warp slots, oldest first
    std::vector<WarpView> views;     // scratch for the scheduler (one per warp), never reallocated
    std::array<Cycle, kNumUnits> unit_free{};
    std::unique_ptr<OperandCollector> collector;  // null: off (sm.operand_collector.banks = 0)
    IssueOutcome last = IssueOutcome::Idle;
    StatKey last_key = kNoKey;
    // Until recheck_at, and unless a warp's readiness changed (dirty), the
    // last scan's outcome still holds: the scan is skipped.
    Cycle recheck_at = 0;
    bool dirty = true;
    // Warps issued before any other when ready: event warps and raised victims.
    std::vector<uint16_t> urgent;
  };

  // A global/local/atomic instruction waiting in the LSU to send its lines.
  struct LsuEntry {
    uint16_t warp = 0;
    uint8_t op_index = 0;
    mem::MemOp op = mem::MemOp::Read;
    uint32_t bytes = 0;
    unsigned next_line = 0;
    bool check_translation = false;
    uint16_t gen = 0;  // of its MemOp entry: lines of a squashed instruction are not sent
    mem::CoalescedAccesses lines;
  };

  static constexpr uint32_t kPredBit = 0x8000'0000u;

  // Whether warp slot `slot` holds a warp of TB `ti`: TB slots keep the warp
  // slots of warps already retired, which may host another TB's warps now.
  bool owns(uint16_t ti, uint16_t slot) const { return warps_[slot].warp && warps_[slot].tb == ti; }
  // Memory tokens of context save/restore lines (low 16 bits: the TB slot).
  static constexpr uint64_t kContextToken = uint64_t(1) << 63;
  // With kContextToken: a write-back line of parked shared memory (low 32 bits: its id).
  static constexpr uint64_t kParkedToken = uint64_t(1) << 62;

  // With kContextToken: a victim's register save or restore (low 16 bits: the PEWT entry).
  static constexpr uint64_t kEventToken = uint64_t(1) << 61;

  // A TB slot, its warps and its threads are free.
  bool slots_fit(const TbNeeds& n) const;
  // `size` units of `pool` for one TB of `k`: first-fit, or within its safe
  // launch region under 2-way allocation.
  bool pool_fits(const RangeAllocator& pool, const KernelInstance& k, uint32_t size) const;
  Range take(RangeAllocator& pool, const KernelInstance& k, uint32_t size);

  // Issue.
  void compute_ready(WarpSlot& w, Cycle now);
  // Drops complete commit groups from the front of w's (cp.async.wait_group).
  static void trim_async_groups(WarpSlot& w);
  bool lsu_has_room(Cycle now) const;
  // Whether warp `w` of sub-core `sc` can issue at `now` (as a scan finds it).
  bool can_issue(const SubCore& sc, const WarpSlot& w, Cycle now) const;
  IssueOutcome schedule(SubCore& sc, Cycle now, Cycle& next);
  IssueOutcome scan(SubCore& sc, Cycle now, Cycle& next);
  void issue(WarpSlot& w, uint16_t slot, Cycle now);
  void after_barrier_or_exit(WarpSlot& w, Cycle now);
  Cycle& scoreboard_slot(WarpSlot& w, RegRef r);
  void try_retire(uint16_t slot);
  // Ends every warp of TB `tb` now (its launch faulted); it retires once its memory accesses are done.
  void abort_tb(uint16_t tb);
  void finish_tb(uint16_t tb);
  // Takes a free TB slot and k's resources for TB `tb_index` (state `tb`),
  // and places its warps, held (Block::Preempted) unless `phase` is Running.
  // `smem`: its shared memory, already allocated (parked); null: allocate it.
  uint16_t occupy_tb_slot(KernelInstance& k, uint64_t tb_index, std::unique_ptr<exec::ThreadBlock> tb, Phase phase,
                          const Range* smem = nullptr);
  // Gives TB `ti` a warp slot for each warp not exited; the warps start
  // held (Block::Preempted) if `held`.
  void place_warps(uint16_t ti, Cycle now, bool held);
  // Puts warp `xw` of TB `ti` into warp slot `slot` of sub-core `sub_core`.
  void init_warp_slot(uint16_t slot, uint8_t sub_core, exec::Warp& xw, uint16_t ti, Cycle now, bool held);

  // Warp-level events (sm_event_warps.cpp).
  void event_warps_tick(Cycle now, Cycle& next);
  // The scheduler's pick when sub-core `sc` has urgent warps: a ready one first.
  int urgent_pick(SubCore& sc);
  void try_start_event(size_t e, Cycle now);
  void start_event_warp(size_t e, Cycle now);
  void begin_preemption(size_t e, uint16_t victim, Cycle now);
  bool victim_candidate(const WarpSlot& w, const KernelInstance& k) const;
  void poll_victim(size_t e, Cycle now);
  void take_event_registers(size_t e, WarpSlot& victim, Cycle now);
  void advance_victim(size_t e, PreemptWait next, Cycle now);
  void hold_victim(size_t e, Cycle now);
  bool victim_loads_pending(const WarpSlot& w) const;
  void start_event_transfer(size_t e, bool write, Cycle now);
  void event_ack(uint64_t token);
  void event_warp_retired(uint16_t slot);
  void finish_event(size_t e, Cycle now);

  // Preemption protocol (sm_preempt.cpp).
  void check_quiesced(uint16_t ti);
  void context_send(Cycle now);
  void context_ack(uint64_t token);
  void start_transfer(uint16_t ti, bool write, uint64_t offset, uint32_t lines, Cycle not_before);
  void release_preempted(uint16_t ti);
  void finish_restore(uint16_t ti);
  uint64_t context_bytes(uint16_t ti, bool live_only) const;
  // The save area of TB `index` of `k`: its shared memory first, then the rest.
  uint64_t save_area(const KernelInstance& k, uint64_t index) const;
  // Parked shared memory (sm_parked_shared.cpp).
  void park_shared(uint16_t ti);
  void start_eviction(ParkedShared& p);
  void parked_ack(uint32_t id);
  std::vector<ParkedShared>::iterator find_parked(uint32_t kernel_id, uint64_t tb_index);
  std::vector<ParkedShared>::const_iterator find_parked(uint32_t kernel_id, uint64_t tb_index) const;
  void account_until(Cycle now);
  void register_fragmentation_stats(StatRegistry& stats, const std::string& pre);
  void account_residency(Cycle now);

  // Preemptible-fault pipelines (sm_fault_pipeline.cpp).
  void register_fault_pipeline_stats(StatRegistry& stats, const std::string& pre);
  // TB switching on fault (sm_fault_switch.cpp).
  bool switching_on_fault() const { return switching_on_fault_; }
  // Switches out the TBs whose warps all wait for faults (or at a barrier).
  void fault_switch_tick(Cycle now);
  bool fault_switchable(uint16_t ti) const;
  // Whether every live warp of TB ti is at a barrier or blocked on memory,
  // with no unchecked cp.async (its commit group is not replayed); then
  // `faulted`: an instruction that can still be squashed has a line reported
  // faulted, `unchecked`: one has a line not yet past its last TLB check.
  bool tb_blocked(uint16_t ti, bool& faulted, bool& unchecked) const;
  void switch_on_fault(uint16_t ti, Cycle now);
  // A response or translation of a squashed request (stale: its MemOp
  // entry's generation moved on): it may be the end of a fault the TB
  // switched out waits for.
  void squashed_line_done(uint64_t token);
  // Sends TB ti's squashed instructions again (its restore is done).
  void replay(uint16_t ti);
  // Queues backlogged replays into the LSU while it has room.
  void drain_replays();
  // At the release of a TB switched out on fault: whether the faults it
  // waits for are still being serviced (else its record is dropped).
  bool fault_wait_left(uint32_t kernel_id, uint64_t tb);
  // A global memory request's token: the MemOp entry's generation, warp slot, line and entry.
  static uint64_t mem_token(uint16_t gen, uint16_t slot, unsigned line, unsigned op_index) {
    return (uint64_t(gen) << 32) | (uint64_t(slot) << 16) | (uint64_t(line) << 8) | op_index;
  }
  // Whether the replay queue and w's TB's log partition have room for `t`.
  bool fault_room(const WarpSlot& w, const InstTiming& t) const;
  // A scan found w's next memory instruction refused by fault_room.
  void fault_stalled(WarpSlot& w, const InstTiming& t, Cycle now);
  // ... and issues it now.
  void fault_stall_end(WarpSlot& w, Cycle now);
  // w issues global memory instruction `t` as `op` with `lines` line requests.
  void fault_issue(WarpSlot& w, MemOp& op, const InstTiming& t, unsigned lines, Cycle now);
  // The TLB check of line `line` of op passed (or its response came first);
  // a line reported faulted no longer waits for its fault.
  void fault_line_checked(WarpSlot& w, MemOp& op, unsigned line, Cycle now);
  void fault_commit(WarpSlot& w, MemOp& op, Cycle now);
  // Operand-log entries of each TB of `k`: the log split between the TBs of its occupancy.
  uint32_t log_partition(const KernelInstance& k) const;
  // What a TB of `k` saves besides registers, shared memory and warp state (its log partition).
  uint64_t fault_context_bytes(const KernelInstance& k) const;

  // Load/store unit (sm_lsu.cpp).
  void issue_memory(WarpSlot& w, uint16_t slot, const InstTiming& t, Cycle now);
  // Queues the lines of MemOp entry op_index of warp slot `slot` (the queue has room).
  LsuEntry& lsu_push(uint16_t slot, unsigned op_index, mem::MemOp op, uint32_t bytes, bool check_translation);
  void lsu_send();
  void lsu_pop();
  uint64_t local_address(uint16_t slot, uint64_t offset, unsigned lane, uint32_t bytes) const;

  uint32_t id_;
  SmParams p_;
  mem::MemorySystem& memory_;
  TbDoneListener& listener_;
  SmStats stats_;

  RangeAllocator regs_, smem_;
  std::unique_ptr<TwoWayAllocation> two_way_;  // null: off (sm.two_way_pairs = 0)
  uint32_t tbs_used_ = 0, warps_used_ = 0, threads_used_ = 0;
  std::vector<WarpSlot> warps_;
  uint32_t mem_ops_full_ = 0;  // mem_ops_used when every MemOp entry of a warp is in use
  std::vector<uint16_t> free_warps_;
  std::vector<TbSlot> tbs_;
  std::vector<SubCore> sub_cores_;
  uint64_t next_age_ = 0;
  std::unique_ptr<KernelQuotas> quotas_;  // null: no QoS manager, nothing charged
  std::unique_ptr<EventWarpTable> events_;  // null: no warp-level events
  const FaultPipelineRules& fault_;
  // TBs may be switched out on faults: sm.fault_pipeline.extra_tbs > 0, or
  // the front end lends SMs on faults (TbDoneListener::lends_sms_on_fault).
  const bool switching_on_fault_;
  uint32_t replay_used_ = 0;  // global memory instructions in the replay queue
  // TB switching on fault: lines reported faulted on this SM, TBs switched
  // out waiting for faults, replays waiting for room in the LSU.
  uint32_t fault_lines_ = 0;
  std::vector<FaultWait> fault_waits_;
  struct BackloggedReplay {
    uint16_t slot = 0;
    uint8_t op_index = 0;
    ReplayedAccess access;
  };
  std::vector<BackloggedReplay> replay_backlog_;

  // Context save/restore traffic, in order. It shares the SM's port to L1
  // with the LSU: when both have a line to send they take turns
  // (context_turn_), so that a memory-bound kernel's loads cannot starve a
  // save (an event's victim registers waited up to 95K cycles behind mm).
  std::vector<ContextTransfer> transfers_;
  bool context_turn_ = false;
  std::vector<ParkedShared> parked_;  // oldest first
  uint32_t next_parked_id_ = 0;

  // LSU.
  std::vector<LsuEntry> lsu_;  // ring buffer of sm.lsu_queue entries, grown to its deepest use
  size_t lsu_head_ = 0, lsu_count_ = 0;
  Cycle smem_free_ = 0;  // shared-memory banks busy until

  // The fragmentation episode under way (key kNoKey: none), since when, and the free units it holds.
  struct Fragmentation {
    StatKey key = kNoKey;
    Cycle since = 0;
    uint32_t registers = 0, shared_bytes = 0;
  } fragmentation_;

  // Accounting of slept cycles.
  Cycle accounted_ = 0;   // cycles before this one are accounted
  uint64_t clock_now_ = 0;  // the cycle being ticked: what resident TBs' %clock64 reads
  Cycle residency_since_ = 0;
  std::vector<uint32_t> resident_warps_by_key_;
};

}  // namespace gpumux::sm
