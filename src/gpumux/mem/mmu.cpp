#include "gpumux/mem/mmu.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

namespace gpumux::mem {

void MmuStats::register_in(StatRegistry& reg, const std::string& prefix) {
  reg.add(prefix + ".l1_tlb.hits", l1_hits, "L1 TLB lookups that hit (all SMs)");
  reg.add(prefix + ".l1_tlb.misses", l1_misses, "L1 TLB lookups that missed (merged ones included)");
  reg.add(prefix + ".l2_tlb.hits", l2_hits, "L2 TLB lookups that hit");
  reg.add(prefix + ".l2_tlb.misses", l2_misses, "L2 TLB lookups that missed (merged ones included)");
  reg.add(prefix + ".walks", walks, "page-table walks (a fault's retried walk included)");
  reg.add(prefix + ".faults", faults, "page faults (one per migration unit), local ones included");
  reg.add(prefix + ".migrated_bytes", migrated_bytes, "bytes migrated from the host by faults");
  reg.add(prefix + ".translation_latency", translation_latency,
          "core cycles from an L1 TLB miss to its fill (walks and faults included)");
  reg.add(prefix + ".allocation_faults", allocation_faults,
          "faults on migration units the host never wrote (no transfer; included in faults)");
  reg.add(prefix + ".prefetched_bytes", prefetched_bytes, "bytes migrated to the device by prefetches");
  reg.add(prefix + ".evictions", evictions, "migration units evicted to make room (keyed by what brought them)");
  reg.add(prefix + ".written_back_bytes", written_back_bytes,
          "bytes written back to the host by evictions, host writes and prefetches to the host");
  reg.add(prefix + ".host_migrations", host_migrations,
          "device-resident migration units the host took back (its writes, prefetches to the host)");
  reg.add(prefix + ".local_faults", local_faults,
          "allocation-only faults handled on the GPU (vm.local_faults; included in faults and allocation_faults)");
}

// The L1 TLB of one SM: takes the L1D's requests, holds them while they are
// translated, and hands them to the crossbar in the order they are ready.
struct Mmu::Port : MemSink {
  struct L1Miss {
    Cycle since;
    std::vector<MemRequest> requests;
    bool faulted = false;  // its requests were reported faulted
  };
  struct Ready {
    Cycle at;
    uint64_t seq;
    MemRequest req;
    bool operator>(const Ready& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  Port(Mmu& mmu, uint32_t sm) : mmu(mmu), sm(sm), l1(mmu.params_.l1_tlb.entries, mmu.params_.l1_tlb.ways) {}
  // A pipelined TLB holds at most `latency` lookups in flight; a missing page
  // needs an MSHR unless it already has one.
  bool can_accept(const MemRequest& r) const override {
    if (ready.size() >= mmu.params_.l1_tlb.latency) return false;
    const uint64_t page = mmu.page_of(r.addr);
    return l1.contains(page) || misses.count(page) || misses.size() < mmu.params_.l1_tlb.mshrs;
  }
  void accept(const MemRequest& r) override { mmu.accept(sm, r); }

  Mmu& mmu;
  uint32_t sm;
  MemSink* below = nullptr;
  TranslationListener* listener = nullptr;
  TlbArray l1;
  std::unordered_map<uint64_t, L1Miss> misses;  // page -> requests waiting for its translation
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  // L1 TLB hits of requests marked check_translation, until their lookup
  // ends (in order: every hit takes the same latency).
  std::queue<std::pair<Cycle, MemRequest>> hit_checks;
};

Mmu::Mmu(Engine& engine, DomainId core, double core_mhz, const VmParams& params, uint32_t sms)
    : Component(engine, core, "mmu"),
      params_(params),
      fault_cycles_(Cycle(std::llround(params.fault_us * core_mhz))),
      fault_alloc_cycles_(Cycle(std::llround(params.fault_alloc_us * core_mhz))),
      write_back_cycles_(fault_cycles_ - fault_alloc_cycles_),
      local_fault_cycles_(Cycle(std::llround(params.local_fault_us * core_mhz))),
      capacity_units_(params.device_memory_bytes / params.migration_bytes),
      page_shift_(unsigned(std::countr_zero(params.page_bytes))),
      unit_shift_(unsigned(std::countr_zero(params.migration_bytes))),
      l2_(params.l2_tlb.entries, params.l2_tlb.ways) {
  for (uint32_t i = 0; i < sms; ++i) ports_.push_back(std::make_unique<Port>(*this, i));
}

Mmu::~Mmu() = default;

MemSink& Mmu::port(uint32_t sm) { return *ports_.at(sm); }

void Mmu::connect(uint32_t sm, MemSink* below) { ports_.at(sm)->below = below; }

void Mmu::set_translation_listener(uint32_t sm, TranslationListener* l) { ports_.at(sm)->listener = l; }

void Mmu::accept(uint32_t sm, const MemRequest& r) {
  Port& p = *ports_[sm];
  const Cycle now = engine().cycle(domain());
  const uint64_t page = page_of(r.addr);
  if (p.l1.lookup(page)) {
    stats_.l1_hits[r.key].add();
    p.ready.push({now + params_.l1_tlb.latency, seq_++, r});
    if (r.check_translation && p.listener) p.hit_checks.push({now + params_.l1_tlb.latency, r});
  } else {
    stats_.l1_misses[r.key].add();
    auto [it, first] = p.misses.try_emplace(page, Port::L1Miss{now, {}});
    it->second.requests.push_back(r);
    if (first) schedule(now + params_.l1_tlb.latency, Kind::L2Lookup, sm, page, r.key);
    if (it->second.faulted && r.check_translation && p.listener) p.listener->faulted(r);
  }
  wake();
}

void Mmu::schedule(Cycle at, Kind kind, uint32_t sm, uint64_t page, StatKey key) {
  events_.push({at, seq_++, kind, sm, page, key});
}

Cycle Mmu::tick(Cycle now) {
  now_ = now;
  while (!events_.empty() && events_.top().at <= now) {
    Event e = events_.top();
    events_.pop();
    process(e);
  }
  Cycle next = events_.empty() ? kNever : events_.top().at;
  for (auto& port : ports_) {
    Port& p = *port;
    for (; !p.hit_checks.empty() && p.hit_checks.front().first <= now; p.hit_checks.pop())
      p.listener->translated(p.hit_checks.front().second);
    if (!p.hit_checks.empty()) next = std::min(next, p.hit_checks.front().first);
    while (!p.ready.empty() && p.ready.top().at <= now && p.below->can_accept(p.ready.top().req)) {
      p.below->accept(p.ready.top().req);
      p.ready.pop();
      engine().note_progress();
    }
    if (!p.ready.empty()) next = std::min(next, std::max(now + 1, p.ready.top().at));
  }
  return next;
}

void Mmu::process(const Event& e) {
  switch (e.kind) {
    case Kind::L2Lookup: return l2_lookup(e);
    case Kind::Walk: return start_walk(e.page, e.key);
    case Kind::WalkDone: return walk_done(e);
    case Kind::FaultDone:
    case Kind::LocalFaultDone: return fault_done(e);
    case Kind::L1Fill: return l1_fill(e);
  }
}

void Mmu::l2_lookup(const Event& e) {
  if (l2_.lookup(e.page)) {
    stats_.l2_hits[e.key].add();
    schedule(now_ + params_.l2_tlb.latency, Kind::L1Fill, e.sm, e.page, e.key);
    return;
  }
  if (auto it = l2_misses_.find(e.page); it != l2_misses_.end()) {
    stats_.l2_misses[e.key].add();
    it->second.sms.push_back(e.sm);
    if (it->second.faulted) report_faulted(e.sm, e.page);
    return;
  }
  if (l2_misses_.size() == params_.l2_tlb.mshrs) {
    l2_backlog_.push(e);  // looked up again when an MSHR frees
    return;
  }
  stats_.l2_misses[e.key].add();
  l2_misses_.emplace(e.page, L2Miss{{e.sm}, e.key, now_});
  schedule(now_ + params_.l2_tlb.latency, Kind::Walk, e.sm, e.page, e.key);
}

void Mmu::start_walk(uint64_t page, StatKey key) {
  if (walkers_busy_ == params_.walkers) {
    walk_queue_.push({now_, 0, Kind::Walk, 0, page, key});
    return;
  }
  ++walkers_busy_;
  stats_.walks[key].add();
  schedule(now_ + params_.walk_latency, Kind::WalkDone, 0, page, key);
}

Mmu::Unit& Mmu::unit_of(uint64_t page) {
  const uint64_t unit = page >> (unit_shift_ - page_shift_);
  auto it = units_.find(unit);
  if (it == units_.end()) {
    const bool host = on_host_ && on_host_(unit << unit_shift_);
    Unit fresh{.where = host ? Residence::Host : Residence::Device, .paged = host, .host_data = !host_writes_reported_};
    it = units_.emplace(unit, std::move(fresh)).first;
  }
  return it->second;
}

void Mmu::walk_done(const Event& e) {
  --walkers_busy_;
  if (!walk_queue_.empty()) {
    Event next = walk_queue_.front();
    walk_queue_.pop();
    start_walk(next.page, next.key);
  }
  if (params_.demand_paging) {
    Unit& u = unit_of(e.page);
    if (u.where != Residence::Device) {
      u.waiting.push_back(e.page);
      if (u.where == Residence::Host) raise_fault(u, e.page, e.key);
      L2Miss& m = l2_misses_.at(e.page);
      if (!m.faulted) {  // a retried walk may find the unit evicted again: reported already
        m.faulted = true;
        for (uint32_t sm : m.sms) report_faulted(sm, e.page);
      }
      return;
    }
    used(u);
  }
  l2_.insert(e.page);
  auto it = l2_misses_.find(e.page);
  for (uint32_t sm : it->second.sms) l1_fill({now_, 0, Kind::L1Fill, sm, e.page, it->second.key});
  l2_misses_.erase(it);
  while (!l2_backlog_.empty() && l2_misses_.size() < params_.l2_tlb.mshrs) {
    Event retry = l2_backlog_.front();
    l2_backlog_.pop();
    l2_lookup(retry);
  }
}

void Mmu::fault_done(const Event& e) {
  Unit& u = unit_of(e.page);
  arrive(u, e.page >> (unit_shift_ - page_shift_));
  --faults_in_flight_;
  if (e.kind == Kind::LocalFaultDone) --local_faults_in_flight_;
  engine().note_progress();
  std::vector<uint64_t> pages = std::move(u.waiting);
  for (uint64_t page : pages) start_walk(page, e.key);  // the walk is retried and now finds the page
}

void Mmu::l1_fill(const Event& e) {
  Port& p = *ports_[e.sm];
  if (translation_valid(e.page)) p.l1.insert(e.page);  // an eviction may have shot it down on the way
  auto it = p.misses.find(e.page);
  stats_.translation_latency[it->second.requests.front().key].sample(now_ - it->second.since);
  for (const MemRequest& r : it->second.requests) {
    p.ready.push({now_, seq_++, r});
    if (r.check_translation && p.listener) p.listener->translated(r);
  }
  p.misses.erase(it);
}

void Mmu::report_faulted(uint32_t sm, uint64_t page) {
  Port& p = *ports_[sm];
  Port::L1Miss& m = p.misses.at(page);
  if (m.faulted || !p.listener) return;
  m.faulted = true;
  for (const MemRequest& r : m.requests)
    if (r.check_translation) p.listener->faulted(r);
}

void Mmu::shoot_down(uint64_t unit) {
  const uint64_t pages = uint64_t(1) << (unit_shift_ - page_shift_);
  for (uint64_t page = unit * pages; page < (unit + 1) * pages; ++page) {
    l2_.invalidate(page);
    for (auto& port : ports_) port->l1.invalidate(page);
  }
}

std::string Mmu::describe_wait() const {
  size_t l1_misses = 0, ready = 0;
  for (const auto& p : ports_) {
    l1_misses += p->misses.size();
    ready += p->ready.size();
  }
  if (events_.empty() && l1_misses == 0 && ready == 0) return "";
  return fmt::format("{} pages missing in L1 TLBs, {} in the L2 TLB, {} walks queued, {} faults at the host, "
                     "{} handled on the GPU, {} translated requests waiting for the crossbar",
                     l1_misses, l2_misses_.size(), walk_queue_.size(), faults_in_flight_ - local_faults_in_flight_,
                     local_faults_in_flight_, ready);
}

}  // namespace gpumux::mem
