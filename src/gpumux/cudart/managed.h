// Managed memory (cudaMallocManaged, __managed__) without a unified virtual
// memory model: the allocation lives in the simulated device memory, and a
// host mirror is mapped at the same virtual address so that host code can
// dereference the pointer. The runtime copies the mirrors into device memory
// before any device work is enqueued and back after every call that waits for
// the device, which gives the semantics of a GPU without concurrent managed
// access (cudaDevAttrConcurrentManagedAccess = 0): the host may touch managed
// data only while the device is idle. Migration takes no simulated time.
#pragma once

#include <cstdint>
#include <map>
#include <set>

namespace gpumux::cudart {

class Session;

class ManagedMemory {
 public:
  // Maps the host mirror of device range [base, base + bytes), zero-filled.
  // Throws ApiError when the host address range is taken.
  void add(uint64_t base, uint64_t bytes);
  // Forgets the range starting at base (its pages stay mapped: device
  // addresses are never reused); false if there is none.
  bool remove(uint64_t base);
  bool contains(uint64_t addr) const;
  // Forgets every range (a device reset); the pages stay mapped for reuse.
  void clear() { ranges_.clear(); }
  void push(Session& s) const;  // mirrors -> device
  void pull(Session& s) const;  // device -> mirrors

 private:
  std::map<uint64_t, uint64_t> ranges_;  // base -> bytes
  std::set<uint64_t> pages_;             // mapped host pages
};

}  // namespace gpumux::cudart
