#include "gpumux/sm/sm.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "gpumux/core/error.h"
#include "gpumux/core/popcount.h"
#include "gpumux/sm/event_warp_table.h"
#include "gpumux/sm/shared_memory.h"

namespace gpumux::sm {

const char* outcome_name(IssueOutcome o) {
  static constexpr const char* kNames[kNumOutcomes] = {"issued", "idle",   "fetch",   "scoreboard",
                                                       "pipe",   "memory", "barrier", "throttled"};
  return kNames[unsigned(o)];
}

namespace {

// When several warps stall for different reasons, the cycle is charged to the
// one closest to issuing.
int rank(IssueOutcome o) {
  switch (o) {
    case IssueOutcome::Issued: return 8;
    case IssueOutcome::Throttled: return 7;
    case IssueOutcome::Pipe: return 6;
    case IssueOutcome::Memory: return 5;
    case IssueOutcome::Scoreboard: return 4;
    case IssueOutcome::Fetch: return 3;
    case IssueOutcome::Barrier: return 2;
    case IssueOutcome::Idle: return 1;
  }
  return 0;
}

}  // namespace

Sm::Sm(Engine& engine, DomainId core, uint32_t id, const SmParams& p, mem::MemorySystem& memory,
       StatRegistry& stats, TbDoneListener& listener)
    : Component(engine, core, fmt::format("sm{}", id)),
      id_(id),
      p_(p),
      memory_(memory),
      listener_(listener),
      regs_(p.registers),
      smem_(p.shared_mem_bytes),
      fault_(fault_pipeline_rules(p.fault_pipeline.mode)),
      switching_on_fault_(p.fault_pipeline.extra_tbs > 0 || listener.lends_sms_on_fault()) {
  if (p.two_way_pairs > 0) two_way_ = std::make_unique<TwoWayAllocation>(p.two_way_pairs);
  warps_.resize(p.warp_slots);
  mem_ops_full_ = uint32_t((1ull << p.mem_ops_per_warp) - 1);
  tbs_.resize(p.tb_slots);
  sub_cores_.resize(p.sub_cores);
  for (SubCore& sc : sub_cores_) {
    sc.scheduler = make_warp_scheduler(p.warp_scheduler, p);
    sc.kernel_fields = sc.scheduler->wants_kernel_fields();
    sc.warps.reserve(p.warp_slots / p.sub_cores);
    sc.views.reserve(p.warp_slots / p.sub_cores);
    if (p.operand_collector.banks > 0) sc.collector = std::make_unique<OperandCollector>(p.operand_collector);
  }
  // Slot s belongs to sub-core s % sub_cores; free slots are taken lowest first.
  for (uint32_t s = p.warp_slots; s-- > 0;) free_warps_.push_back(uint16_t(s));

  std::string pre = fmt::format("sm{}.", id);
  stats.add(pre + "warp_insts", stats_.warp_insts, "warp instructions issued");
  stats.add(pre + "thread_insts", stats_.thread_insts, "thread instructions issued (active lanes)");
  for (unsigned o = 0; o < kNumOutcomes; ++o)
    stats.add(pre + "issue." + outcome_name(IssueOutcome(o)), stats_.issue[o],
              o == 0 ? "scheduler cycles that issued" : "scheduler cycles that issued nothing, by reason");
  stats.add(pre + "active_cycles", stats_.active_cycles, "cycles with resident warps of the kernel");
  stats.add(pre + "resident_warp_cycles", stats_.resident_warp_cycles,
            "sum over cycles of resident warps (occupancy = this / cycles / warp slots)");
  stats.add(pre + "tbs_done", stats_.tbs_done, "thread blocks completed");
  stats.add(pre + "shared.accesses", stats_.shared_accesses, "shared-memory warp accesses");
  stats.add(pre + "shared.conflict_cycles", stats_.shared_conflict_cycles,
            "extra shared-memory cycles from bank conflicts");
  if (p.operand_collector.banks > 0)
    stats.add(pre + "operand_collector.conflict_cycles", stats_.operand_conflict_cycles,
              "cycles instructions waited for register-bank reads beyond one (bank conflicts)");
  stats.add(pre + "const.accesses", stats_.const_accesses, "constant/parameter warp accesses");
  stats.add(pre + "lsu.global_lines", stats_.global_lines, "global line requests sent to the L1D");
  stats.add(pre + "lsu.local_lines", stats_.local_lines, "local-memory line requests sent to the L1D");
  stats.add(pre + "busy_cycles", stats_.busy_cycles, "cycles with any resident thread block");
  stats.add(pre + "preempt.tbs_switched", stats_.tbs_switched, "TBs context-switched off this SM");
  stats.add(pre + "preempt.tbs_flushed", stats_.tbs_flushed, "TBs flushed (progress discarded) on this SM");
  stats.add(pre + "preempt.tbs_resumed", stats_.tbs_resumed, "switched or flushed TBs placed again on this SM");
  stats.add(pre + "preempt.context_bytes_saved", stats_.context_bytes_saved,
            "bytes of TB context written to the save area");
  stats.add(pre + "preempt.context_bytes_restored", stats_.context_bytes_restored,
            "bytes of TB context read back from the save area");
  stats.add(pre + "preempt.insts_discarded", stats_.insts_discarded,
            "warp instructions whose work was discarded by flushes");
  stats.add(pre + "preempt.shared_parked", stats_.shared_parked,
            "TBs switched with a lazy shared-memory save that left their shared memory parked on this SM");
  stats.add(pre + "preempt.shared_resumed_in_place", stats_.shared_resumed_in_place,
            "TBs resumed on this SM with their parked shared memory (neither saved nor restored)");
  stats.add(pre + "preempt.shared_evictions", stats_.shared_evictions,
            "parked shared memory written back to the save area (space needed, or the TB resumes elsewhere)");
  register_fragmentation_stats(stats, pre);
  register_fault_pipeline_stats(stats, pre);
}

Sm::~Sm() = default;

void Sm::enable_quotas() {
  quotas_ = std::make_unique<KernelQuotas>();
  for (SubCore& sc : sub_cores_) {
    sc.scheduler = std::make_unique<QuotaWarpScheduler>(std::move(sc.scheduler), *quotas_);
    sc.kernel_fields = sc.scheduler->wants_kernel_fields();
  }
}

bool Sm::slots_fit(const TbNeeds& n) const {
  return tbs_used_ < p_.tb_slots && warps_used_ + n.warps <= p_.warp_slots && threads_used_ + n.threads <= p_.max_threads;
}

bool Sm::pool_fits(const RangeAllocator& pool, const KernelInstance& k, uint32_t size) const {
  return two_way_ ? two_way_->fits(regs_, smem_, pool, k.id, size) : pool.fits(size);
}

Range Sm::take(RangeAllocator& pool, const KernelInstance& k, uint32_t size) {
  return two_way_ ? two_way_->allocate(regs_, smem_, pool, k.id, size) : *pool.allocate(size);
}

bool Sm::fits(const KernelInstance& k) const {
  const TbNeeds& n = k.needs;
  return slots_fit(n) && pool_fits(regs_, k, n.registers) && pool_fits(smem_, k, n.shared_bytes);
}

bool Sm::fits_if_contiguous(const KernelInstance& k) const {
  const TbNeeds& n = k.needs;
  return slots_fit(n) && regs_.used() + n.registers <= regs_.capacity() &&
         smem_.used() + n.shared_bytes <= smem_.capacity() && (!two_way_ || two_way_->has_end(regs_, smem_, k.id));
}

uint32_t Sm::resident_tbs(uint32_t kernel_id) const {
  uint32_t n = 0;
  for (const TbSlot& t : tbs_) n += t.used && t.kernel->id == kernel_id;
  return n;
}

uint32_t Sm::idle_warps(uint32_t kernel_id, Cycle now) const {
  uint32_t n = 0;
  for (const WarpSlot& w : warps_)
    n += w.warp && w.kernel->id == kernel_id && w.block == Block::None && w.ready_at <= now;
  return n;
}

void Sm::account_residency(Cycle now) {
  if (now <= residency_since_) return;
  Cycle span = now - residency_since_;
  if (tbs_used_ > 0) stats_.busy_cycles.add(span);
  for (size_t k = 0; k < resident_warps_by_key_.size(); ++k) {
    if (resident_warps_by_key_[k] == 0) continue;
    stats_.active_cycles[StatKey(k)].add(span);
    stats_.resident_warp_cycles[StatKey(k)].add(span * resident_warps_by_key_[k]);
  }
  residency_since_ = now;
}

uint16_t Sm::occupy_tb_slot(KernelInstance& k, uint64_t tb_index, std::unique_ptr<exec::ThreadBlock> tb, Phase phase,
                           const Range* smem) {
  Cycle now = engine().wake_cycle(domain());
  account_residency(now);
  uint16_t ti = 0;
  while (tbs_[ti].used) ++ti;
  TbSlot& t = tbs_[ti];
  t.used = true;
  t.kernel = &k;
  t.index = tb_index;
  t.regs = take(regs_, k, k.needs.registers);
  t.smem = smem ? *smem : take(smem_, k, k.needs.shared_bytes);
  t.tb = std::move(tb);
  t.tb->set_clock_source(&clock_now_);
  t.phase = phase;
  t.marked = false;
  t.started = now;
  t.log_capacity = log_partition(k);
  t.log_used = 0;
  t.fault_switch = false;  // per stint, like the log partition
  ++tbs_used_;
  threads_used_ += k.needs.threads;
  place_warps(ti, now, phase != Phase::Running);
  wake();
  return ti;
}

uint16_t Sm::start_tb(KernelInstance& k, uint64_t tb_index) {
  auto tb = std::make_unique<exec::ThreadBlock>(k.grid, k.grid.tb_coords(tb_index), id_);
  uint16_t ti = occupy_tb_slot(k, tb_index, std::move(tb), Phase::Running);
  TbSlot& t = tbs_[ti];
  t.side_effects = t.live_only = t.flushed_before = false;
  t.run_cycles_before = t.insts = 0;
  return ti;
}

void Sm::place_warps(uint16_t ti, Cycle now, bool held) {
  TbSlot& t = tbs_[ti];
  KernelInstance& k = *t.kernel;
  t.warps.clear();
  t.at_barrier = 0;
  t.unretired = 0;
  if (resident_warps_by_key_.size() <= k.key) resident_warps_by_key_.resize(size_t(k.key) + 1, 0);
  for (exec::Warp& xw : t.tb->warps()) {
    if (xw.state() == exec::WarpState::Exited) continue;  // of a resumed TB
    ++t.unretired;
    // Spread the TB's warps over the sub-cores: lowest free slot of the least loaded one.
    size_t best = free_warps_.size();
    for (size_t i = free_warps_.size(); i-- > 0;) {
      uint16_t s = free_warps_[i];
      if (best == free_warps_.size() ||
          sub_cores_[s % p_.sub_cores].warps.size() < sub_cores_[free_warps_[best] % p_.sub_cores].warps.size())
        best = i;
    }
    uint16_t slot = free_warps_[best];
    free_warps_.erase(free_warps_.begin() + ptrdiff_t(best));
    init_warp_slot(slot, uint8_t(slot % p_.sub_cores), xw, ti, now, held);
  }
}

void Sm::init_warp_slot(uint16_t slot, uint8_t sub_core, exec::Warp& xw, uint16_t ti, Cycle now, bool held) {
  TbSlot& t = tbs_[ti];
  KernelInstance& k = *t.kernel;
  WarpSlot& w = warps_[slot];
  w.warp = &xw;
  w.kernel = &k;
  w.tb = ti;
  w.sub_core = sub_core;
  w.block = held ? Block::Preempted : Block::None;
  w.age = next_age_++;
  w.fetch_ready = now + p_.fetch_latency + (held ? 0 : p_.tb_launch_latency);  // a resumed TB was set up before
  w.pending_stores = 0;
  w.mem_ops_used = 0;
  w.mem_ops.resize(p_.mem_ops_per_warp);
  w.async_pending.assign(1, 0);
  w.async_front = w.async_open = 0;
  w.enabled_at = 0;
  w.fault_stall_since = kNever;
  const ptx::Function& fn = k.grid.function();
  w.reg_ready.assign(fn.num_regs, 0);
  w.pred_ready.assign(fn.num_preds, 0);
  if (fault_.holds_sources) {
    w.held_reg.assign(fn.num_regs, 0);
    w.held_pred.assign(fn.num_preds, 0);
  }
  if (switching_on_fault()) w.sent.resize(p_.mem_ops_per_warp);
  xw.set_record_memory(true);
  t.warps.push_back(slot);
  ++warps_used_;
  ++resident_warps_by_key_[k.key];
  if (held) return;
  sub_cores_[w.sub_core].warps.push_back(slot);
  compute_ready(w, now);
}

Cycle& Sm::scoreboard_slot(WarpSlot& w, RegRef r) {
  // Callee frames place their registers after the caller's: grown on demand.
  const exec::Frame& f = w.warp->frame();
  std::vector<Cycle>& v = r.pred ? w.pred_ready : w.reg_ready;
  size_t abs = size_t(r.pred ? f.pred_base : f.reg_base) + r.index;
  if (abs >= v.size()) v.resize(abs + 1, 0);
  return v[abs];
}

void Sm::compute_ready(WarpSlot& w, Cycle) {
  sub_cores_[w.sub_core].dirty = true;
  if (w.block != Block::None) {
    w.ready_at = kNever;
    w.waits_memory = false;
    return;
  }
  const exec::Warp& xw = *w.warp;
  const ModuleTiming& mt = *w.kernel->timing;
  const InstTiming& t = mt.at(xw.function(), xw.pc());
  w.next = &t;
  // Sources and destinations (RAW and WAW); a slot beyond the scoreboard's
  // size was never written: ready (0).
  const exec::Frame& f = xw.frame();
  const size_t reg_base = f.reg_base, pred_base = f.pred_base;
  Cycle r = std::max(w.fetch_ready, w.enabled_at);  // enabled_at: a warp disable (WD)
  bool mem = w.enabled_at == kNever;
  auto check = [&](std::span<const RegRef> refs) {
    for (RegRef reg : refs) {
      const std::vector<Cycle>& v = reg.pred ? w.pred_ready : w.reg_ready;
      size_t abs = (reg.pred ? pred_base : reg_base) + reg.index;
      if (!reg.pred) xw.prefetch_register(size_t(f.slot_base) + reg.slot);
      Cycle c = abs < v.size() ? v[abs] : 0;
      mem |= c == kNever;
      r = std::max(r, c);
    }
  };
  check(mt.sources(t));
  check(mt.destinations(t));
  if (fault_.holds_sources)  // WAR on a source of a global memory instruction before its last TLB check
    for (RegRef reg : mt.destinations(t)) {
      const std::vector<Cycle>& v = reg.pred ? w.held_pred : w.held_reg;
      size_t abs = (reg.pred ? pred_base : reg_base) + reg.index;
      Cycle c = abs < v.size() ? v[abs] : 0;
      mem |= c == kNever;
      r = std::max(r, c);
    }
  if (t.kind == InstKind::AsyncWait &&
      (t.async_keep == kAsyncWaitAll ? w.pending_stores > 0 : w.async_front + t.async_keep < w.async_open)) {
    r = kNever;  // the completion of a copy (or store) recomputes readiness
    mem = true;
  }
  w.ready_at = r;
  w.waits_memory = mem;
}

void Sm::trim_async_groups(WarpSlot& w) {
  while (w.async_front != w.async_open && w.async_pending.front() == 0) {
    w.async_pending.erase(w.async_pending.begin());  // a few open groups at most
    ++w.async_front;
  }
}

bool Sm::lsu_has_room(Cycle now) const {
  // Shared-memory accesses queue behind the banks; bound the backlog.
  return lsu_count_ < p_.lsu_queue && smem_free_ <= now + 4 * kSharedBanks;
}

IssueOutcome Sm::schedule(SubCore& sc, Cycle now, Cycle& next) {
  if (sc.warps.empty()) {
    sc.last_key = kNoKey;
    sc.recheck_at = kNever;
    return IssueOutcome::Idle;
  }
  if (!sc.dirty && now < sc.recheck_at) {
    next = std::min(next, sc.recheck_at);
    return sc.last;
  }
  sc.dirty = false;
  Cycle sc_next = kNever;
  IssueOutcome out = scan(sc, now, sc_next);
  sc.recheck_at = sc_next;
  next = std::min(next, sc_next);
  return out;
}

bool Sm::can_issue(const SubCore& sc, const WarpSlot& w, Cycle now) const {
  if (w.block != Block::None || w.ready_at > now) return false;
  const InstTiming& t = *w.next;
  if (sc.unit_free[unsigned(t.unit)] > now || (sc.collector && sc.collector->unit_free() > now)) return false;
  return t.kind != InstKind::Memory ||
         (lsu_has_room(now) && w.mem_ops_used != mem_ops_full_ &&
          (!t.fault_log_entries || !fault_.limits_issue() || fault_room(w, t)));
}

IssueOutcome Sm::scan(SubCore& sc, Cycle now, Cycle& next) {
  // The policy's sticky warp, when ready, is its choice whatever the others
  // do: issue it without looking at them (the outcome and the next cycle to
  // look again, now + 1, are those of the full scan).
  uint16_t sticky_slot;
  uint64_t sticky_age;
  if (sc.urgent.empty() && sc.scheduler->sticky(sticky_slot, sticky_age) && sticky_slot < warps_.size()) {
    WarpSlot& w = warps_[sticky_slot];
    if (w.warp && w.age == sticky_age && &sub_cores_[w.sub_core] == &sc && can_issue(sc, w, now)) {
      next = std::min(next, now + 1);
      sc.last_key = w.kernel->key;
      try {
        issue(w, sticky_slot, now);
      } catch (const DeviceFault&) {  // as below
        if (!w.kernel->fault) w.kernel->fault = std::current_exception();
        abort_tb(w.tb);
      }
      return IssueOutcome::Issued;
    }
  }
  // The views are rewritten in place, and their kernel fields only for a
  // scheduler that reads them: the others are spared those stores.
  sc.views.resize(sc.warps.size());
  WarpView* view = sc.views.data();
  // No free collector unit holds every warp like a busy functional unit.
  Cycle collector_free = sc.collector ? sc.collector->unit_free() : 0;
  bool any_ready = false;
  IssueOutcome stall = IssueOutcome::Idle;
  StatKey stall_key = kNoKey;
  for (uint16_t slot : sc.warps) {
    WarpSlot& w = warps_[slot];
    bool ready = false, long_wait = false;
    IssueOutcome why;
    if (w.block == Block::Barrier) {
      why = IssueOutcome::Barrier;
      long_wait = true;
    } else if (w.block == Block::Fence) {
      why = IssueOutcome::Memory;
      long_wait = true;
    } else if (w.ready_at > now) {
      if (w.ready_at == kNever) {
        why = IssueOutcome::Scoreboard;
        long_wait = w.waits_memory;
      } else {
        why = now < w.fetch_ready ? IssueOutcome::Fetch : IssueOutcome::Scoreboard;
        next = std::min(next, w.ready_at);
      }
    } else {
      const InstTiming& t = *w.next;
      Cycle unit = std::max(sc.unit_free[unsigned(t.unit)], collector_free);
      if (unit > now) {
        why = IssueOutcome::Pipe;
        next = std::min(next, unit);
      } else if (t.kind == InstKind::Memory &&
                 (!lsu_has_room(now) || w.mem_ops_used == mem_ops_full_)) {
        why = IssueOutcome::Memory;
        if (lsu_count_ < p_.lsu_queue) next = std::min(next, now + 1);  // shared backlog drains by time
      } else if (t.fault_log_entries && fault_.limits_issue() && !fault_room(w, t)) {
        why = IssueOutcome::Memory;  // a replay-queue entry or log space frees at a commit or TLB check
        fault_stalled(w, t, now);
      } else {
        ready = true;
        any_ready = true;
        why = IssueOutcome::Issued;
      }
    }
    if (rank(why) > rank(stall) && why != IssueOutcome::Issued) {
      stall = why;
      stall_key = w.kernel->key;
    }
    WarpView& v = *view++;
    v.slot = slot;
    v.ready = ready;
    v.long_wait = long_wait;
    v.kernel = w.kernel->id;
    v.app = w.kernel->app;
    v.age = w.age;
  }
  if (sc.kernel_fields) {
    for (WarpView& v : sc.views) {
      const WarpSlot& w = warps_[v.slot];
      v.budget = w.kernel->warp_budget;
      v.fair_weight = w.kernel->fair_weight;
      v.urgent = w.kernel->all_placed || tbs_[w.tb].marked;
    }
  }
  if (any_ready) {
    int pick = sc.urgent.empty() ? sc.scheduler->pick(sc.views) : urgent_pick(sc);
    next = std::min(next, now + 1);
    if (pick >= 0) {
      uint16_t slot = sc.views[size_t(pick)].slot;
      WarpSlot& w = warps_[slot];
      sc.last_key = w.kernel->key;
      try {
        issue(w, slot, now);
      } catch (const DeviceFault&) {
        // The launch is terminated, like a CUDA context after a fault; other
        // kernels on this SM run on. The host sees the fault at its next sync.
        if (!w.kernel->fault) w.kernel->fault = std::current_exception();
        abort_tb(w.tb);
      }
      return IssueOutcome::Issued;
    }
    sc.last_key = stall_key;
    return IssueOutcome::Throttled;
  }
  sc.last_key = stall_key;
  return stall;
}

void Sm::issue(WarpSlot& w, uint16_t slot, Cycle now) {
  if (w.kernel->fault) return abort_tb(w.tb);  // another TB of the launch faulted
  exec::Warp& xw = *w.warp;
  const InstTiming& t = *w.next;
  SubCore& sc = sub_cores_[w.sub_core];
  StatKey key = w.kernel->key;
  // The instruction reaches its unit once its operands are read.
  Cycle dispatch = now;
  if (sc.collector) {
    Cycle extra = sc.collector->collect(w.kernel->timing->sources(t), xw.frame().reg_base, slot, now);
    stats_.operand_conflict_cycles[key].add(extra);
    dispatch += extra;
  }
  sc.unit_free[unsigned(t.unit)] = dispatch + t.interval;
  stats_.warp_insts[key].add();
  ++w.kernel->warp_insts;
  ++tbs_[w.tb].insts;
  uint32_t threads = uint32_t(gpumux::popcount(xw.active_mask()));
  stats_.thread_insts[key].add(threads);
  w.kernel->thread_insts += threads;
  if (quotas_) quotas_->charge(w.kernel->id, threads);
  uint32_t old_pc = xw.pc(), old_fn = xw.function();
  size_t old_depth = xw.frame().reg_base;

  if (t.kind == InstKind::Memory) {
    issue_memory(w, slot, t, dispatch);
  } else {
    // Destinations are named in the issuing frame: mark them before a call or
    // return changes it.
    for (RegRef d : w.kernel->timing->destinations(t)) scoreboard_slot(w, d) = dispatch + t.latency;
    // A device-function builtin (printf, malloc) acts outside the TB: it can no longer be flushed.
    if (t.builtin_call) tbs_[w.tb].side_effects = true;
    if (t.kind == InstKind::AsyncCommit) {
      ++w.async_open;
      w.async_pending.push_back(0);
      trim_async_groups(w);
    }
    xw.step();
  }
  engine().note_progress();

  bool sequential = xw.state() != exec::WarpState::Exited && xw.function() == old_fn &&
                    xw.pc() == old_pc + 1 && xw.frame().reg_base == old_depth;
  w.fetch_ready = now + 1 + (sequential ? 0 : p_.fetch_latency);
  if (t.kind == InstKind::Fence && w.pending_stores > 0) w.block = Block::Fence;
  if (t.kind == InstKind::Barrier || t.kind == InstKind::Control) after_barrier_or_exit(w, now);
  if (xw.state() == exec::WarpState::Exited) {
    w.block = Block::Exited;
    std::erase(sc.warps, slot);
    try_retire(slot);
    return;
  }
  compute_ready(w, now);
}

void Sm::after_barrier_or_exit(WarpSlot& w, Cycle now) {
  TbSlot& t = tbs_[w.tb];
  if (w.warp->state() == exec::WarpState::AtBarrier && w.block != Block::Barrier) {
    w.block = Block::Barrier;
    ++t.at_barrier;
  }
  if (t.at_barrier == 0) return;
  uint32_t live = 0;
  for (uint16_t s : t.warps) {
    WarpSlot& o = warps_[s];
    if (!owns(w.tb, s)) continue;
    if (o.warp->state() != exec::WarpState::Exited) ++live;
    if (o.block == Block::Barrier && o.warp->state() == exec::WarpState::Ready) {
      o.block = Block::None;
      --t.at_barrier;
      o.fetch_ready = std::max(o.fetch_ready, now + 1);
      compute_ready(o, now);
    }
  }
  if (t.at_barrier > 0 && t.at_barrier == live)
    w.warp->fault("barrier deadlock: no warp of the TB can make progress (" + t.tb->describe_waits() + ")",
                  {});
}

void Sm::abort_tb(uint16_t ti) {
  TbSlot& t = tbs_[ti];
  for (uint16_t slot : t.warps) {
    WarpSlot& w = warps_[slot];
    if (!owns(ti, slot) || w.block == Block::Exited) continue;
    if (w.block == Block::Barrier) --t.at_barrier;
    w.block = Block::Exited;
    SubCore& sc = sub_cores_[w.sub_core];
    std::erase(sc.warps, slot);
    sc.dirty = true;
  }
  // Retiring may free the TB slot (finish_tb): iterate over a copy.
  std::vector<uint16_t> warps;
  for (uint16_t slot : t.warps)
    if (owns(ti, slot)) warps.push_back(slot);
  for (uint16_t slot : warps) try_retire(slot);
}

void Sm::try_retire(uint16_t slot) {
  WarpSlot& w = warps_[slot];
  if (w.block == Block::Preempted) return check_quiesced(w.tb);
  if (w.block != Block::Exited || w.mem_ops_used != 0 || w.pending_stores != 0) return;
  if (slot >= p_.warp_slots) return event_warp_retired(slot);
  account_residency(engine().wake_cycle(domain()));
  TbSlot& t = tbs_[w.tb];
  --resident_warps_by_key_[w.kernel->key];
  --warps_used_;
  w.warp = nullptr;
  free_warps_.push_back(slot);
  if (--t.unretired == 0) return finish_tb(w.tb);
  if (t.phase == Phase::Quiescing) check_quiesced(w.tb);
}

void Sm::finish_tb(uint16_t ti) {
  TbSlot& t = tbs_[ti];
  KernelInstance& k = *t.kernel;
  regs_.release(t.regs);
  smem_.release(t.smem);
  --tbs_used_;
  threads_used_ -= k.needs.threads;
  stats_.tbs_done[k.key].add();
  ++k.tbs_finished;
  k.tb_cycles_finished += t.run_cycles_before + (engine().wake_cycle(domain()) - t.started);
  t.tb.reset();
  t.used = false;
  t.kernel = nullptr;
  listener_.tb_done(id_, k, t.index);
}

Cycle Sm::tick(Cycle now) {
  // Cycles slept since the last tick stalled for the reason found then.
  if (now > accounted_ && tbs_used_ > 0)
    for (SubCore& sc : sub_cores_)
      if (sc.last != IssueOutcome::Issued) stats_.issue[unsigned(sc.last)][sc.last_key].add(now - accounted_);
  accounted_ = now + 1;
  clock_now_ = now;

  if (!replay_backlog_.empty()) drain_replays();
  const bool context_first = context_turn_ && !transfers_.empty();
  if (context_first) context_send(now);
  lsu_send();
  if (lsu_count_ && !transfers_.empty()) context_turn_ = !context_turn_;
  Cycle next = lsu_count_ ? now + 1 : kNever;
  if (events_) event_warps_tick(now, next);
  if (!transfers_.empty()) {
    if (!context_first) context_send(now);
    if (!transfers_.empty()) next = std::min(next, std::max(now + 1, transfers_.front().not_before));
  }
  for (SubCore& sc : sub_cores_) {
    sc.last = schedule(sc, now, next);
    if (tbs_used_ > 0 || sc.last == IssueOutcome::Issued) stats_.issue[unsigned(sc.last)][sc.last_key].add();
  }
  if (fault_lines_ > 0) fault_switch_tick(now);
  return next;
}

}  // namespace gpumux::sm
