// Managed memory (cudaMallocManaged, __managed__) without a unified virtual
// memory model in the host process: the allocation lives in the simulated
// device memory, and a host mirror is mapped at the same virtual address so
// that host code can dereference the pointer. The runtime copies the mirrors
// into device memory before any device work is enqueued and back after every
// call that waits for the device, which gives the semantics of a GPU without
// concurrent managed access (cudaDevAttrConcurrentManagedAccess = 0): the
// host may touch managed data only while the device is idle.
//
// Under demand paging (docs/virtual-memory.md) the ranges are the program's
// paged data: each is declared to the session (runtime::Paging::Managed),
// and what the host program stored into a mirror since the last copy back
// is found by comparing it with a copy of what the device last had, then
// reported as a host write (the device's units of it go back to the host).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace gpumux::cudart {

class Session;

class ManagedMemory {
 public:
  // Maps the host mirror of device range [base, base + bytes), zero-filled,
  // and declares it managed to `s`; `host_initialized`: its data comes from
  // the host (a __managed__ variable's initializer). Throws ApiError when the
  // host address range is taken.
  void add(Session& s, uint64_t base, uint64_t bytes, bool host_initialized);
  // Forgets the range starting at base (its pages stay mapped: device
  // addresses are never reused); false if there is none.
  bool remove(uint64_t base);
  bool contains(uint64_t addr) const;
  // Forgets every range (a device reset); the pages stay mapped for reuse.
  void clear() { ranges_.clear(); }
  void push(Session& s);  // mirrors -> device, host stores reported
  void pull(Session& s);  // device -> mirrors

 private:
  struct Range {
    uint64_t bytes;
    std::vector<uint8_t> synced;  // the mirror as last copied to or from the device
  };
  std::map<uint64_t, Range> ranges_;  // by base
  std::set<uint64_t> pages_;          // mapped host pages
};

}  // namespace gpumux::cudart
