#include "gpumux/mem/cache.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpumux::mem {

void CacheStats::register_in(StatRegistry& reg, const std::string& prefix) {
  reg.add(prefix + ".read_hits", read_hits, "reads (and atomics) finding all their sectors");
  reg.add(prefix + ".read_misses", read_misses, "reads (and atomics) allocating a line");
  reg.add(prefix + ".sector_misses", sector_misses, "reads finding their line without all sectors");
  reg.add(prefix + ".mshr_merges", mshr_merges, "reads merged into the MSHR of a line being filled");
  reg.add(prefix + ".write_hits", write_hits, "writes finding their line");
  reg.add(prefix + ".write_misses", write_misses, "writes not finding their line");
  reg.add(prefix + ".atomics", atomics, "atomic requests");
  reg.add(prefix + ".evictions", evictions, "valid lines replaced");
  reg.add(prefix + ".writebacks", writebacks, "dirty lines written below");
  reg.add(prefix + ".tag_stalls", tag_stalls, "cycles a lookup waited: every way of its set awaits a fill");
  reg.add(prefix + ".mshr_stalls", mshr_stalls, "cycles a lookup waited for an MSHR or merge slot");
  reg.add(prefix + ".below_stalls", below_stalls, "cycles a lookup waited for the level below to accept");
  reg.add(prefix + ".writeback_stalls", writeback_stalls, "cycles a lookup waited for the writeback buffer");
}

Cache::Cache(Engine& engine, DomainId domain, std::string name, const CacheParams& params, uint64_t size_bytes,
             std::optional<uint32_t> atomic_latency, const AddressMap& map, bool local_index)
    : Component(engine, domain, std::move(name)),
      params_(params),
      atomic_latency_(atomic_latency),
      map_(map),
      local_index_(local_index),
      sets_(uint32_t(size_bytes / (uint64_t(kLineBytes) * params.ways))),
      lines_(size_t(sets_) * params.ways),
      mshrs_(params.mshrs),
      input_capacity_(params.input_queue + params.hit_latency * params.ports),
      writebacks_(kWritebackBuffer) {
  if (sets_ == 0 || uint64_t(sets_) * kLineBytes * params.ways != size_bytes)
    throw std::invalid_argument(
        fmt::format("{}: {} bytes is not a whole number of {}-way sets of 128 B lines", this->name(), size_bytes,
                    params.ways));
  for (uint32_t i = params.mshrs; i-- > 0;) free_mshrs_.push_back(i);
}

uint32_t Cache::set_of(uint64_t addr) const {
  uint64_t a = local_index_ ? map_.local_addr(addr) : addr;
  return uint32_t((a / kLineBytes) % sets_);
}

Cache::Line* Cache::find(uint64_t addr) {
  Line* set = &lines_[size_t(set_of(addr)) * params_.ways];
  for (uint32_t w = 0; w < params_.ways; ++w)
    if (set[w].addr == addr) return &set[w];
  return nullptr;
}

const Cache::Line* Cache::find(uint64_t addr) const { return const_cast<Cache*>(this)->find(addr); }

SectorMask Cache::valid_sectors(uint64_t addr) const {
  const Line* l = find(line_of(addr));
  return l ? l->valid : 0;
}

SectorMask Cache::dirty_sectors(uint64_t addr) const {
  const Line* l = find(line_of(addr));
  return l ? l->dirty : 0;
}

Cache::Line* Cache::victim(uint64_t addr) {
  Line* set = &lines_[size_t(set_of(addr)) * params_.ways];
  Line* best = nullptr;
  for (uint32_t w = 0; w < params_.ways; ++w) {
    Line& l = set[w];
    if (l.addr == kNoLine) return &l;
    if (l.mshr == kNoMshr && (!best || l.last_use < best->last_use)) best = &l;
  }
  return best;
}

bool Cache::evict(Line& line) {
  if (line.addr == kNoLine) return true;
  if (line.dirty && params_.write_policy == WritePolicy::WriteBack) {
    if (writebacks_.size() >= kWritebackBuffer) return false;
    MemRequest wb;
    wb.addr = line.addr;
    wb.sectors = line.dirty;
    wb.op = MemOp::Writeback;
    wb.size = uint16_t(wb.sector_count() * kSectorBytes);
    wb.partition = uint16_t(map_.partition(line.addr));
    wb.issued = engine().now();
    writebacks_.push(wb);
    stats_.writebacks.add();
  }
  stats_.evictions.add();
  line = Line{};
  return true;
}

void Cache::respond(const MemRequest& r, Cycle ready) {
  if (r.op != MemOp::Writeback) responses_.push(Response{ready, response_seq_++, r});
}

void Cache::forward(const MemRequest& r) {
  MemRequest down = r;
  down.cache_fetch = false;  // its response passes through this cache
  below_->accept(down);
}

bool Cache::stall(Stall why) {
  stall_ = why;
  switch (why) {
    case Stall::Tag: stats_.tag_stalls.add(); break;
    case Stall::Mshr: stats_.mshr_stalls.add(); break;
    case Stall::Below: stats_.below_stalls.add(); break;
    case Stall::Writeback: stats_.writeback_stalls.add(); break;
    case Stall::None: break;
  }
  return false;
}

Cycle Cache::tick(Cycle now) {
  for (uint32_t i = 0; i < params_.ports && !fills_.empty(); ++i) {
    fill(fills_.front(), now);
    fills_.pop();
  }
  stall_ = Stall::None;
  for (uint32_t i = 0; i < params_.ports && !input_.empty() && input_.front().lookup <= now; ++i) {
    if (!lookup(input_.front().req, now)) break;
    input_.pop();
  }
  for (uint32_t i = 0; i < params_.ports && !responses_.empty() && responses_.top().ready <= now; ++i) {
    if (!above_->can_accept(responses_.top().req)) break;
    above_->accept(responses_.top().req);
    responses_.pop();
    engine().note_progress();
  }
  while (!writebacks_.empty() && below_->can_accept(writebacks_.front())) {
    below_->accept(writebacks_.front());
    writebacks_.pop();
  }
  // Outstanding misses need no ticks: their fills wake the cache.
  Cycle next = !fills_.empty() || !writebacks_.empty() ? now + 1 : kNever;
  if (!input_.empty()) next = std::min(next, std::max(now + 1, input_.front().lookup));
  if (!responses_.empty()) next = std::min(next, std::max(now + 1, responses_.top().ready));
  return next;
}

bool Cache::lookup(const MemRequest& r, Cycle now) {
  Line* line = find(r.addr);
  switch (r.op) {
    case MemOp::Read: return read(r, line, now);
    case MemOp::Atomic:
      if (atomic_latency_) return read(r, line, now);
      return forward_atomic(r, line);
    case MemOp::Write:
    case MemOp::Writeback: return write(r, line, now);
  }
  return true;
}

bool Cache::read(const MemRequest& r, Line* line, Cycle now) {
  const bool atomic = r.op == MemOp::Atomic;
  const uint32_t extra = atomic ? *atomic_latency_ : 0;
  if (line && (r.sectors & ~line->valid) == 0) {
    touch(*line);
    stats_.read_hits[r.key].add();
    if (atomic) {
      stats_.atomics[r.key].add();
      if (params_.write_policy == WritePolicy::WriteBack) line->dirty |= r.sectors;
    }
    respond(r, now + extra);
    return true;
  }
  const SectorMask missing = line ? SectorMask(r.sectors & ~line->valid) : r.sectors;
  MemRequest fetch = r;
  fetch.op = MemOp::Read;
  fetch.cache_fetch = true;
  if (line && line->mshr != kNoMshr) {
    Mshr& m = mshrs_[line->mshr];
    if (m.waiters == params_.mshr_merge) return stall(Stall::Mshr);
    fetch.sectors = SectorMask(missing & ~m.pending);
    fetch.size = uint16_t(fetch.sector_count() * kSectorBytes);
    if (fetch.sectors) {
      if (!below_->can_accept(fetch)) return stall(Stall::Below);
      below_->accept(fetch);
      m.pending |= fetch.sectors;
    }
    add_waiter(line->mshr, r);
    stats_.mshr_merges[r.key].add();
    if (atomic) stats_.atomics[r.key].add();
    touch(*line);
    return true;
  }
  if (free_mshrs_.empty()) return stall(Stall::Mshr);
  fetch.sectors = missing;
  fetch.size = uint16_t(fetch.sector_count() * kSectorBytes);
  if (!below_->can_accept(fetch)) return stall(Stall::Below);
  if (!line) {
    line = victim(r.addr);
    if (!line) return stall(Stall::Tag);
    if (!evict(*line)) return stall(Stall::Writeback);
    line->addr = r.addr;
    stats_.read_misses[r.key].add();
  } else {
    stats_.sector_misses[r.key].add();
  }
  if (atomic) stats_.atomics[r.key].add();
  uint32_t index = free_mshrs_.back();
  free_mshrs_.pop_back();
  mshrs_[index] = Mshr{uint32_t(line - lines_.data()), missing, 0};
  add_waiter(index, r);
  line->mshr = index;
  touch(*line);
  below_->accept(fetch);
  return true;
}

bool Cache::write(const MemRequest& r, Line* line, Cycle now) {
  const bool write_back = params_.write_policy == WritePolicy::WriteBack;
  const bool allocate = !line && params_.write_allocate;
  // Write-through, and write-back without allocation on a miss, send the write below.
  const bool goes_below = !write_back || (!line && !allocate);
  if (goes_below && !below_->can_accept(r)) return stall(Stall::Below);
  if (allocate) {
    line = victim(r.addr);
    if (!line) return stall(Stall::Tag);
    if (!evict(*line)) return stall(Stall::Writeback);
    line->addr = r.addr;
  }
  if (r.op == MemOp::Write) (line && !allocate ? stats_.write_hits : stats_.write_misses)[r.key].add();
  if (line) {
    line->valid |= r.sectors;
    if (write_back) line->dirty |= r.sectors;
    touch(*line);
  }
  if (goes_below) {
    forward(r);
  } else {
    respond(r, now);
  }
  return true;
}

bool Cache::forward_atomic(const MemRequest& r, Line* line) {
  if (!below_->can_accept(r)) return stall(Stall::Below);
  if (line && line->mshr == kNoMshr) line->valid &= SectorMask(~r.sectors);  // the atomic unit below updates memory
  stats_.atomics[r.key].add();
  forward(r);
  return true;
}

void Cache::fill(const MemRequest& f, Cycle now) {
  if (!f.cache_fetch) {  // the response to a request this cache forwarded
    respond(f, now);
    return;
  }
  Line* line = find(f.addr);
  if (!line || line->mshr == kNoMshr) throw std::logic_error(fmt::format("{}: fill without MSHR", name()));
  const uint32_t index = line->mshr;
  Mshr& m = mshrs_[index];
  line->valid |= f.sectors;
  m.pending &= SectorMask(~f.sectors);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < m.waiters; ++i) {
    const MemRequest& w = waiter(index, i);
    if ((w.sectors & ~line->valid) == 0) {
      serve(w, *line, now, w.op == MemOp::Atomic ? *atomic_latency_ : 0);
    } else {
      waiter(index, kept++) = w;
    }
  }
  m.waiters = kept;
  if (kept == 0 && m.pending == 0) {
    line->mshr = kNoMshr;
    free_mshrs_.push_back(index);
  }
}

void Cache::add_waiter(uint32_t mshr, const MemRequest& r) {
  Mshr& m = mshrs_[mshr];
  if (waiters_.size() <= size_t(m.waiters) * mshrs_.size()) waiters_.resize((size_t(m.waiters) + 1) * mshrs_.size());
  waiter(mshr, m.waiters++) = r;
}

void Cache::serve(const MemRequest& w, Line& line, Cycle now, uint32_t extra_latency) {
  if (w.op == MemOp::Atomic && params_.write_policy == WritePolicy::WriteBack) line.dirty |= w.sectors;
  respond(w, now + extra_latency);
}

std::string Cache::describe_wait() const {
  const size_t mshrs_used = mshrs_.size() - free_mshrs_.size();
  if (input_.empty() && fills_.empty() && writebacks_.empty() && responses_.empty() && mshrs_used == 0) return "";
  static constexpr const char* kStall[] = {"", ", stalled: set full of pending lines", ", stalled: no MSHR",
                                           ", stalled: level below full", ", stalled: writeback buffer full"};
  std::string head;
  if (!input_.empty())
    head = fmt::format(" (head: op {} line {:#x}{})", int(input_.front().req.op), input_.front().req.addr,
                       kStall[int(stall_)]);
  return fmt::format("{} queued{}, {}/{} MSHRs waiting for fills, {} fills, {} responses, {} writebacks",
                     input_.size(), head, mshrs_used, mshrs_.size(), fills_.size(), responses_.size(),
                     writebacks_.size());
}

}  // namespace gpumux::mem
