// Residency of demand-paged data beyond the thesis's first-touch faults
// (docs/virtual-memory.md): allocation-only faults (at the host or on the
// GPU), copies that place data on the device, eviction of the least
// recently used migration unit when the device memory for paged data is
// full, prefetches, and the host taking units back when it writes them.
//
// "Use", for the LRU order, is a unit's arrival (fault or prefetch) and every
// page-table walk that finds it resident: requests that hit a TLB do not
// touch it (the MMU sees no more than the walks, like a driver that only
// sees faults and migrations).
#include <algorithm>
#include <iterator>

#include "gpumux/mem/mmu.h"

namespace gpumux::mem {

template <class F>
void Mmu::for_each_unit(uint64_t addr, uint64_t bytes, F&& f) {
  if (!params_.demand_paging || bytes == 0) return;
  const uint64_t first = addr >> unit_shift_, last = (addr + bytes - 1) >> unit_shift_;
  for (uint64_t unit = first; unit <= last; ++unit) {
    Unit& u = unit_of(unit << (unit_shift_ - page_shift_));
    if (u.paged) f(u, unit);
  }
}

void Mmu::raise_fault(Unit& u, uint64_t page, StatKey key) {
  const Cycle write_back = make_room(nullptr);  // the host evicts before it migrates
  u.where = Residence::Faulting;
  u.key = key;
  ++faults_in_flight_;
  stats_.faults[key].add();
  if (u.host_data) {
    stats_.migrated_bytes[key].add(params_.migration_bytes);
  } else {
    stats_.allocation_faults[key].add();
    if (params_.local_faults) {
      // The GPU's handler allocates a frame and maps it, in parallel with
      // other faults; an eviction's write-back still goes through the host.
      stats_.local_faults[key].add();
      ++local_faults_in_flight_;
      const Cycle start = write_back ? (host_free_ = std::max(now_, host_free_) + write_back) : now_;
      schedule(start + local_fault_cycles_, Kind::LocalFaultDone, 0, page, key);
      return;
    }
  }
  host_free_ = std::max(now_, host_free_) + write_back + (u.host_data ? fault_cycles_ : fault_alloc_cycles_);
  schedule(host_free_, Kind::FaultDone, 0, page, key);
}

void Mmu::arrive(Unit& u, uint64_t unit) {
  u.where = Residence::Device;
  lru_.push_back(unit);
  u.lru = std::prev(lru_.end());
}

void Mmu::used(Unit& u) {
  if (u.paged) lru_.splice(lru_.end(), lru_, u.lru);
}

void Mmu::leave(Unit& u, uint64_t unit) {
  u.where = Residence::Host;
  lru_.erase(u.lru);
  shoot_down(unit);
}

// Frames are held by resident units and by faults in flight (a fault owns
// its frame from the moment it is raised). When every frame is held by a
// fault in flight nothing can go: the unit comes anyway and later faults
// evict back down to the capacity.
Cycle Mmu::make_room(Migration* m) {
  Cycle host_time = 0;
  while (capacity_units_ && !lru_.empty() && lru_.size() + faults_in_flight_ >= capacity_units_) {
    const uint64_t unit = lru_.front();
    Unit& v = units_.at(unit);
    // A read-mostly unit the host holds a copy of is a duplicate: dropped.
    const bool write_back = !(v.read_mostly && v.host_data);
    stats_.evictions[v.key].add();
    leave(v, unit);
    v.host_data = true;
    if (!write_back) continue;
    stats_.written_back_bytes[v.key].add(params_.migration_bytes);
    host_time += write_back_cycles_;
    if (m) m->to_host += params_.migration_bytes;
  }
  return host_time;
}

bool Mmu::translation_valid(uint64_t page) {
  if (!params_.demand_paging) return true;
  auto it = units_.find(page >> (unit_shift_ - page_shift_));
  return it == units_.end() || it->second.where == Residence::Device;
}

void Mmu::take_back(Unit& u, uint64_t unit, StatKey key, Migration& m) {
  stats_.host_migrations[key].add();
  if (!(u.read_mostly && u.host_data)) {  // else the host's copy is still good
    stats_.written_back_bytes[key].add(params_.migration_bytes);
    m.to_host += params_.migration_bytes;
  }
  leave(u, unit);
  u.host_data = true;
}

Mmu::Migration Mmu::host_wrote(uint64_t addr, uint64_t bytes, StatKey key) {
  Migration m;
  for_each_unit(addr, bytes, [&](Unit& u, uint64_t unit) {
    if (u.where == Residence::Device) take_back(u, unit, key, m);
    u.host_data = true;
  });
  return m;
}

bool Mmu::bring_in(Unit& u, uint64_t unit, StatKey key, Migration& m) {
  if (u.where == Residence::Device) used(u);
  if (u.where != Residence::Host) return false;  // a unit in flight: its fault brings it
  make_room(&m);
  u.key = key;
  arrive(u, unit);
  return true;
}

Mmu::Migration Mmu::prefetch(uint64_t addr, uint64_t bytes, bool to_host, StatKey key) {
  Migration m;
  for_each_unit(addr, bytes, [&](Unit& u, uint64_t unit) {
    if (to_host) {
      if (u.where == Residence::Device) take_back(u, unit, key, m);
      return;
    }
    if (!bring_in(u, unit, key, m) || !u.host_data) return;  // allocated on the device: nothing to transfer
    stats_.prefetched_bytes[key].add(params_.migration_bytes);
    m.to_device += params_.migration_bytes;
  });
  return m;
}

Mmu::Migration Mmu::copied(uint64_t addr, uint64_t bytes, StatKey key) {
  Migration m;
  for_each_unit(addr, bytes, [&](Unit& u, uint64_t unit) {
    u.host_data = true;  // the host holds what it copied: an eviction writes it back
    bring_in(u, unit, key, m);
  });
  return m;
}

void Mmu::set_read_mostly(uint64_t addr, uint64_t bytes, bool read_mostly) {
  for_each_unit(addr, bytes, [&](Unit& u, uint64_t) { u.read_mostly = read_mostly; });
}

// Only units the range covers whole: a unit shared with live data keeps its state.
void Mmu::release(uint64_t addr, uint64_t bytes) {
  if (!params_.demand_paging) return;
  const uint64_t unit_bytes = params_.migration_bytes;
  const uint64_t first = (addr + unit_bytes - 1) >> unit_shift_, end = (addr + bytes) >> unit_shift_;
  for (uint64_t unit = first; unit < end; ++unit) {
    auto it = units_.find(unit);
    if (it == units_.end() || it->second.where == Residence::Faulting) continue;  // a fault in flight finishes
    if (it->second.where == Residence::Device) {
      if (it->second.paged)
        leave(it->second, unit);
      else
        shoot_down(unit);  // it may be paged when looked up again
    }
    units_.erase(it);  // looked up afresh if the addresses hold data again
  }
}

}  // namespace gpumux::mem
