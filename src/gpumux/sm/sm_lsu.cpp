// The SM's load/store unit: shared memory (banks), constant/parameter cache,
// and global/local accesses through the coalescer, the L1D and below.
#include <algorithm>
#include <bit>

#include "gpumux/core/popcount.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/sm/device_addresses.h"
#include "gpumux/sm/shared_memory.h"
#include "gpumux/sm/sm.h"

namespace gpumux::sm {

namespace {

// Local memory of warp slots lives in a device-address region of its own
// (device_addresses.h), interleaved by lane like hardware does so that a
// warp's accesses coalesce.

uint32_t distinct_addresses(const exec::MemAccess& a) {
  if (a.mask == 0) return 0;
  {  // usually one address for the whole warp (uniform parameter or constant)
    uint64_t first = a.addr[unsigned(std::countr_zero(a.mask))];
    bool same = true;
    for (uint32_t m = a.mask; m; m &= m - 1) same &= a.addr[unsigned(std::countr_zero(m))] == first;
    if (same) return 1;
  }
  std::array<uint64_t, 32> v;
  unsigned n = 0;
  for (uint32_t m = a.mask; m; m &= m - 1) v[n++] = a.addr[unsigned(std::countr_zero(m))];
  std::sort(v.begin(), v.begin() + n);
  return uint32_t(std::unique(v.begin(), v.begin() + n) - v.begin());
}

// Lines touched by accesses of up to 32 B per lane (coalesce() takes up to 16 B).
void coalesce_wide(const std::array<uint64_t, 32>& addr, uint32_t mask, uint32_t bytes, mem::CoalescedAccesses& out) {
  if (bytes <= 16) {
    out = mem::coalesce(addr, mask, bytes);
    return;
  }
  out = mem::coalesce(addr, mask, 16);
  std::array<uint64_t, 32> hi;
  for (unsigned l = 0; l < 32; ++l) hi[l] = addr[l] + 16;
  mem::CoalescedAccesses second = mem::coalesce(hi, mask, std::min<uint32_t>(bytes - 16, 16));
  for (const mem::LineAccess& la : second) {
    auto it = std::find_if(out.lines.begin(), out.lines.begin() + out.count,
                           [&](const mem::LineAccess& x) { return x.line == la.line; });
    if (it != out.lines.begin() + out.count) {
      it->sectors |= la.sectors;
      it->lanes |= la.lanes;
    } else if (out.count < out.lines.size()) {
      out.lines[out.count++] = la;
    }
  }
}

}  // namespace

uint64_t Sm::local_address(uint16_t slot, uint64_t offset, unsigned lane, uint32_t bytes) const {
  uint64_t b = std::max<uint32_t>(bytes, 1);
  uint64_t region = kLocalBase + (uint64_t(id_ * p_.warp_slots + slot) << kLocalSlotShift);
  return region + (offset / b) * 32 * b + lane * b + offset % b;
}

void Sm::issue_memory(WarpSlot& w, uint16_t slot, const InstTiming& t, Cycle now) {
  exec::Warp& xw = *w.warp;
  if (w.fault_stall_since != kNever) fault_stall_end(w, now);
  xw.step();
  const exec::MemAccess& a = xw.last_access();
  auto dsts = w.kernel->timing->destinations(t);
  StatKey key = w.kernel->key;
  if (a.mask == 0) {  // every lane predicated off, a prefetch, or texels all on the border
    for (RegRef d : dsts) scoreboard_slot(w, d) = now + 1 + (t.texture ? p_.latency.texture : 0);
    return;
  }
  switch (a.space) {
    case ptx::Space::Shared: {
      uint32_t degree = bank_conflict_degree(a.addr, a.mask, a.bytes);
      Cycle start = std::max(now, smem_free_);
      smem_free_ = start + degree;
      stats_.shared_accesses[key].add();
      stats_.shared_conflict_cycles[key].add(degree - 1);
      for (RegRef d : dsts) scoreboard_slot(w, d) = start + p_.latency.shared_mem + degree - 1;
      return;
    }
    case ptx::Space::Const:
    case ptx::Space::Param: {
      // The constant cache serves one distinct address per cycle.
      stats_.const_accesses[key].add();
      Cycle done = now + p_.latency.constant + distinct_addresses(a) - 1;
      for (RegRef d : dsts) scoreboard_slot(w, d) = done;
      return;
    }
    default:
      break;
  }
  // Global or local: one entry per instruction until every line is answered.
  unsigned op_index = unsigned(std::countr_one(w.mem_ops_used));
  w.mem_ops_used |= 1u << op_index;
  MemOp& op = w.mem_ops[op_index];
  // cp.async: its data lands in shared memory, so the warp waits for it like
  // for a store's acknowledgement (wait_group, wait_all, fences).
  op.is_store = a.is_store || t.async_copy;
  op.async_copy = t.async_copy;
  if (t.async_copy) {
    op.async_group = w.async_open;
    ++w.async_pending.back();
  }
  op.extra_latency = t.texture ? uint16_t(p_.latency.texture) : 0;
  op.num_regs = 0;
  op.pipelined = op.disables = false;
  op.unchecked = 0;
  op.num_held = op.log_entries = 0;
  for (RegRef d : dsts) {
    if (op.num_regs == op.regs.size()) break;
    scoreboard_slot(w, d) = kNever;
    const exec::Frame& f = xw.frame();
    op.regs[op.num_regs++] = d.pred ? (f.pred_base + d.index) | kPredBit : f.reg_base + d.index;
  }
  if (op.is_store) ++w.pending_stores;
  if (a.is_store || a.is_atomic) tbs_[w.tb].side_effects = true;  // the TB is no longer idempotent

  LsuEntry& e = lsu_push(slot, op_index, a.is_atomic ? mem::MemOp::Atomic : a.is_store ? mem::MemOp::Write : mem::MemOp::Read,
                         a.bytes, false);
  if (a.space == ptx::Space::Local) {
    std::array<uint64_t, 32> addr{};
    for (uint32_t m = a.mask; m; m &= m - 1) {
      unsigned lane = unsigned(std::countr_zero(m));
      uint64_t off = a.addr[lane] >= exec::kLocalWindow ? a.addr[lane] - exec::kLocalWindow : a.addr[lane];
      addr[lane] = local_address(slot, off, lane, a.bytes);
    }
    coalesce_wide(addr, a.mask, a.bytes, e.lines);
    stats_.local_lines[key].add(e.lines.count);
  } else {
    coalesce_wide(a.addr, a.mask, a.bytes, e.lines);
    // Each application's addresses in a range of their own (device_addresses.h).
    uint64_t physical = application_base(w.kernel->app);
    for (unsigned i = 0; i < e.lines.count; ++i) e.lines.lines[i].line += physical;
    stats_.global_lines[key].add(e.lines.count);
    if (t.fault_log_entries && fault_.active()) {
      fault_issue(w, op, t, e.lines.count, now);
      e.check_translation = fault_.needs_checks();
      if (switching_on_fault()) {  // kept to be replayed if its TB is switched out on a fault
        ReplayedAccess& sent = w.sent[op_index];
        sent.op = e.op;
        sent.bytes = e.bytes;
        sent.lines.assign(e.lines.begin(), e.lines.end());
      }
    }
  }
  op.lines_left = uint16_t(e.lines.count);
}

Sm::LsuEntry& Sm::lsu_push(uint16_t slot, unsigned op_index, mem::MemOp op, uint32_t bytes, bool check_translation) {
  const size_t at = (lsu_head_ + lsu_count_) % p_.lsu_queue;
  if (at == lsu_.size()) lsu_.emplace_back();  // entries are ~1 KB: made when the queue first gets this deep
  LsuEntry& e = lsu_[at];
  ++lsu_count_;
  e.warp = slot;
  e.op_index = uint8_t(op_index);
  e.op = op;
  e.bytes = bytes;
  e.next_line = 0;
  e.check_translation = check_translation;
  e.gen = warps_[slot].mem_ops[op_index].gen;
  return e;
}

void Sm::lsu_send() {
  if (lsu_count_ == 0 || !memory_.can_accept(id_)) return;
  LsuEntry& e = lsu_[lsu_head_];
  const WarpSlot& w = warps_[e.warp];
  if (e.gen != w.mem_ops[e.op_index].gen) {  // squashed by a switch on fault: its other lines are dropped
    for (; e.next_line < e.lines.count; ++e.next_line)
      squashed_line_done(mem_token(e.gen, e.warp, e.next_line, e.op_index));
    return lsu_pop();
  }
  const mem::LineAccess& la = e.lines.lines[e.next_line];
  mem::MemRequest r;
  r.addr = la.line;
  r.sectors = la.sectors;
  r.op = e.op;
  r.size = uint16_t(std::min<uint32_t>(e.bytes * uint32_t(gpumux::popcount(la.lanes)), mem::kLineBytes));
  r.sm = uint16_t(id_);
  r.warp = e.warp;
  r.app = uint16_t(w.kernel->app);
  r.kernel = uint16_t(w.kernel->id);
  r.key = w.kernel->key;
  r.check_translation = e.check_translation;
  r.token = mem_token(e.gen, e.warp, e.next_line, e.op_index);
  memory_.send(r);
  if (++e.next_line == e.lines.count) lsu_pop();
}

void Sm::lsu_pop() {
  lsu_head_ = (lsu_head_ + 1) % p_.lsu_queue;
  if (lsu_count_-- == p_.lsu_queue)
    for (SubCore& sc : sub_cores_) sc.dirty = true;  // memory instructions may issue again
}

void Sm::accept(const mem::MemRequest& r) {
  if (r.token & kContextToken) return context_ack(r.token);
  uint16_t slot = uint16_t(r.token >> 16);
  unsigned op_index = unsigned(r.token & 0xff);
  WarpSlot& w = warps_[slot];
  MemOp& op = w.mem_ops[op_index];
  engine().note_progress();
  if (uint16_t(r.token >> 32) != op.gen) return squashed_line_done(r.token);
  if (op.unchecked | op.faulted) fault_line_checked(w, op, unsigned((r.token >> 8) & 0xff), engine().wake_cycle(domain()));
  if (--op.lines_left > 0) return;
  Cycle arrival = engine().wake_cycle(domain()) + op.extra_latency;
  if (op.pipelined) fault_commit(w, op, arrival);
  for (unsigned i = 0; i < op.num_regs; ++i) {
    uint32_t x = op.regs[i];
    std::vector<Cycle>& v = (x & kPredBit) ? w.pred_ready : w.reg_ready;
    size_t abs = x & ~kPredBit;
    if (abs < v.size()) v[abs] = arrival;
  }
  w.mem_ops_used &= ~(1u << op_index);
  if (op.async_copy) {
    --w.async_pending[op.async_group - w.async_front];
    trim_async_groups(w);
  }
  if (op.is_store && --w.pending_stores == 0 && w.block == Block::Fence) w.block = Block::None;
  if (w.block == Block::None) compute_ready(w, arrival);
  try_retire(slot);  // or, for a held warp, check whether its TB has quiesced
  wake();
}

}  // namespace gpumux::sm
