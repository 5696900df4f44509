// Which application data is demand-paged under vm.demand_paging
// (docs/virtual-memory.md). By default all of an application's global memory
// is, as if every allocation were managed memory: the library's workloads
// have no other kind. An application that allocates managed memory
// explicitly (a CUDA program: cudaMallocManaged, __managed__) says so with
// managed_only(); then only its managed ranges start on the host and its
// cudaMalloc memory is the device's.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace gpumux::gpu {

class PagedData {
 public:
  explicit PagedData(uint64_t unit_bytes) : unit_bytes_(unit_bytes) {}
  void managed_only(uint32_t app);
  // Addresses as SMs send them (sm/device_addresses.h).
  void add_managed(uint64_t addr, uint64_t bytes);
  void remove_managed(uint64_t addr);
  // Whether the migration unit at `unit_addr` holds paged data: any of it,
  // so a unit shared by a managed and a plain allocation is paged.
  bool paged(uint64_t unit_addr) const;

 private:
  uint64_t unit_bytes_;
  std::vector<bool> managed_only_;         // by application
  std::map<uint64_t, uint64_t> managed_;   // start -> end of each managed range
};

}  // namespace gpumux::gpu
