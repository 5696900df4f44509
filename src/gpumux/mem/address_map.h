// Mapping of addresses to memory partitions and, inside a partition, to DRAM
// banks and rows.
//
// The address space is cut into interleave_bytes chunks; each run of
// num_partitions consecutive chunks gives one chunk to every partition (a
// bijection), in an order rotated by an XOR fold of the higher address bits
// when hash = "xor" so that power-of-two strides spread over partitions. A
// partition's chunks, concatenated, form its local address space, which the
// L2 slice indexes and the DRAM channel lays out as columns, then banks,
// then rows (banks XOR-ed with the low row bits when hashing).
//
// Partitioned memory (MIG, docs/sharing-modes.md): every address belongs to
// one instance, which owns a contiguous range of partitions; the same
// interleaving then runs over that range only, so no request of one instance
// reaches another's L2 slices or DRAM channels.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "gpumux/mem/address_map_params.h"
#include "gpumux/mem/dram_params.h"

namespace gpumux::mem {

struct DramLocation {
  uint32_t bank = 0;
  uint64_t row = 0;
};

// A contiguous range of memory partitions.
struct PartitionRange {
  uint32_t first = 0, count = 0;
};

class AddressMap {
 public:
  AddressMap(const AddressMapParams& p, uint32_t partitions, const DramParams& dram);

  // Restricts each address to its instance's partitions: `instance_of` names
  // the instance of an address (an index into `ranges`; it throws for an
  // address of no instance). Ranges must be disjoint and inside the GPU's.
  void partition_by_instance(std::function<uint32_t(uint64_t)> instance_of, std::vector<PartitionRange> ranges);

  uint32_t partitions() const { return partitions_; }
  // (The instances' paths are out of line so that these stay small enough to
  // inline into the caches as before: no cost without instances.)
  uint32_t partition(uint64_t addr) const {
    if (instance_of_) [[unlikely]] return instance_partition(addr);
    uint64_t chunk = addr / interleave_;
    return uint32_t((chunk % partitions_ + rotation(chunk / partitions_)) % partitions_);
  }
  // Address inside the partition's own (dense) address space.
  uint64_t local_addr(uint64_t addr) const {
    if (instance_of_) [[unlikely]] return instance_local_addr(addr);
    return (addr / interleave_) / partitions_ * interleave_ + addr % interleave_;
  }
  DramLocation dram_location(uint64_t addr) const;

 private:
  uint64_t rotation(uint64_t group) const;
  uint32_t instance_partition(uint64_t addr) const;
  uint64_t instance_local_addr(uint64_t addr) const;

  uint64_t interleave_;
  uint32_t partitions_;
  bool hash_;
  uint64_t row_bytes_;
  uint32_t banks_;
  std::function<uint32_t(uint64_t)> instance_of_;  // empty: every address uses every partition
  std::vector<PartitionRange> instance_ranges_;
};

}  // namespace gpumux::mem
