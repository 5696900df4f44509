#include "gpumux/mem/dram.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpumux/core/popcount.h"

namespace gpumux::mem {

void DramStats::register_in(StatRegistry& reg, const std::string& prefix) {
  reg.add(prefix + ".reads", reads, "read requests served");
  reg.add(prefix + ".writes", writes, "write and writeback requests served");
  reg.add(prefix + ".row_hits", row_hits, "requests finding their row open");
  reg.add(prefix + ".row_misses", row_misses, "requests finding their bank closed");
  reg.add(prefix + ".row_conflicts", row_conflicts, "requests finding another row open");
  reg.add(prefix + ".activates", activates, "ACTIVATE commands");
  reg.add(prefix + ".precharges", precharges, "PRECHARGE commands");
  reg.add(prefix + ".data_cycles", data_cycles, "cycles the data bus carried data");
  reg.add(prefix + ".refreshes", refreshes, "all-bank refreshes (of an idle channel only the last before new work)");
}

DramChannel::DramChannel(Engine& engine, DomainId domain, std::string name, const DramParams& params,
                         const AddressMap& map)
    : Component(engine, domain, std::move(name)),
      params_(params),
      map_(map),
      banks_(params.banks),
      bank_hits_(params.banks),
      done_(params.queue_size) {
  queue_.reserve(params.queue_size);
  next_refresh_ = params.tREFI;
}

uint32_t DramChannel::columns_for(SectorMask sectors) const {
  const uint32_t atom = params_.atom_bytes();
  if (atom <= kSectorBytes) return uint32_t(gpumux::popcount(unsigned(sectors))) * (kSectorBytes / atom);
  const uint32_t per_atom = atom / kSectorBytes;
  const unsigned group = (1u << per_atom) - 1;
  uint32_t n = 0;
  for (uint32_t s = 0; s < kSectorsPerLine; s += per_atom) n += ((sectors >> s) & group) != 0;
  return n;
}

void DramChannel::accept(const MemRequest& r) {
  DramLocation loc = map_.dram_location(r.addr);
  queue_.push_back(Entry{r, loc.bank, loc.row, columns_for(r.sectors), RowOutcome::Unknown});
  if (hits_open_row(queue_.back())) {
    ++bank_hits_[loc.bank];
    ++hits_;
  }
  (r.op == MemOp::Read ? stats_.reads : stats_.writes)[r.key].add();
  sched_dirty_ = true;
  wake();
}

void DramChannel::classify(Entry& e, RowOutcome o) {
  if (e.outcome != RowOutcome::Unknown) return;
  e.outcome = o;
  (o == RowOutcome::Hit ? stats_.row_hits : o == RowOutcome::Miss ? stats_.row_misses : stats_.row_conflicts)[e.req.key]
      .add();
}

bool DramChannel::issue_column(Cycle now, Cycle& next) {
  if (col_any_ok_ > now) {
    next = std::min(next, col_any_ok_);
    return false;
  }
  const Cycle burst = params_.burst_cycles();
  // Only the hits can issue: stop once all of them were seen.
  uint32_t hits_seen = 0;
  for (size_t i = 0; i < queue_.size() && hits_seen < hits_; ++i) {
    Entry& e = queue_[i];
    Bank& b = banks_[e.bank];
    if (!b.open || b.row != e.row) continue;
    ++hits_seen;
    const bool write = e.req.op != MemOp::Read;
    const Cycle lat = write ? params_.tWL : params_.tCL;
    const Cycle start = now + lat;
    if (b.col_ok > now || start < bus_free_) {
      next = std::min(next, std::max({b.col_ok, bus_free_ > lat ? bus_free_ - lat : Cycle(0), now + 1}));
      continue;
    }
    classify(e, RowOutcome::Hit);
    bus_free_ = start + burst;
    col_any_ok_ = now + params_.tCCD;
    if (write) b.pre_ok = std::max(b.pre_ok, start + burst + params_.tWR);
    stats_.data_cycles.add(burst);
    if (--e.columns_left == 0) {
      done_.push({start + burst + params_.controller_latency, e.req});
      --bank_hits_[e.bank];
      --hits_;
      queue_.erase(queue_.begin() + std::ptrdiff_t(i));
    }
    return true;
  }
  return false;
}

bool DramChannel::issue_row(Cycle now, Cycle& next) {
  if (hits_ == queue_.size()) return false;  // every request waits for a column slot
  for (Entry& e : queue_) {
    Bank& b = banks_[e.bank];
    if (b.open && b.row == e.row) continue;  // waits for a column slot
    if (b.open) {
      if (bank_hits_[e.bank]) continue;  // until those hits are served (a column command)
      if (b.pre_ok > now) {
        next = std::min(next, b.pre_ok);
        continue;
      }
      b.open = false;
      b.act_ok = std::max(b.act_ok, now + params_.tRP);
      classify(e, RowOutcome::Conflict);
      stats_.precharges.add();
      return true;
    }
    if (b.act_ok > now || act_any_ok_ > now) {
      next = std::min(next, std::max(b.act_ok, act_any_ok_));
      continue;
    }
    b.open = true;
    b.row = e.row;
    b.col_ok = now + params_.tRCD;
    b.pre_ok = now + params_.tRAS;
    act_any_ok_ = now + params_.tRRD;
    for (const Entry& q : queue_) bank_hits_[e.bank] += q.bank == e.bank && q.row == e.row;
    hits_ += bank_hits_[e.bank];
    classify(e, RowOutcome::Miss);
    stats_.activates.add();
    return true;
  }
  return false;
}

bool DramChannel::refresh(Cycle now) {
  if (params_.tREFI == 0 || now < next_refresh_) return false;
  if (now >= next_refresh_ + params_.tREFI) {
    // Slept through refreshes: they left every bank closed.
    next_refresh_ += (now - next_refresh_) / params_.tREFI * params_.tREFI;
    for (Bank& b : banks_) b.open = false;
  }
  // Precharge-all waits for every open bank's tRAS and write recovery. It
  // started when it fell due or when the banks allowed it: a channel that was
  // idle then (this is called only while requests wait) refreshed while idle.
  Cycle start = next_refresh_;
  for (const Bank& b : banks_) {
    if (b.open && b.pre_ok > now) return true;
    if (b.open) start = std::max(start, b.pre_ok);
  }
  Cycle ready = start + params_.tRP + params_.tRFC;
  for (Bank& b : banks_) {
    b.open = false;
    b.act_ok = std::max(b.act_ok, ready);
  }
  std::fill(bank_hits_.begin(), bank_hits_.end(), 0);
  hits_ = 0;
  next_refresh_ += params_.tREFI;
  stats_.refreshes.add();
  sched_dirty_ = true;
  return ready > now;
}

Cycle DramChannel::tick(Cycle now) {
  while (!done_.empty() && done_.front().first <= now) {
    const MemRequest& r = done_.front().second;
    if (r.op != MemOp::Writeback) {
      if (!above_->can_accept(r)) break;
      above_->accept(r);
    }
    done_.pop();
    engine().note_progress();
  }
  if (!queue_.empty() && !refresh(now) && (sched_dirty_ || now >= sched_recheck_)) {
    // Skipped while nothing it depends on changed: same commands, less work.
    Cycle next = params_.tREFI ? next_refresh_ : kNever;
    bool issued = issue_column(now, next);
    issued |= issue_row(now, next);
    sched_dirty_ = issued;
    sched_recheck_ = next;
  }
  if (!queue_.empty()) return now + 1;
  return done_.empty() ? kNever : std::max(now + 1, done_.front().first);
}

std::string DramChannel::describe_wait() const {
  if (queue_.empty() && done_.empty()) return "";
  std::string head;
  if (!queue_.empty()) {
    const Entry& e = queue_.front();
    const Bank& b = banks_[e.bank];
    head = fmt::format(" (oldest: line {:#x} bank {} row {}, bank {})", e.req.addr, e.bank, e.row,
                       b.open ? fmt::format("open at row {}", b.row) : std::string("closed"));
  }
  return fmt::format("{} queued{}, {} completing", queue_.size(), head, done_.size());
}

}  // namespace gpumux::mem
