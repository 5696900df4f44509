#include "gpumux/mem/address_map.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpumux::mem {

AddressMap::AddressMap(const AddressMapParams& p, uint32_t partitions, const DramParams& dram)
    : interleave_(p.interleave_bytes),
      partitions_(partitions),
      hash_(p.hash == PartitionHash::Xor),
      row_bytes_(dram.row_bytes),
      banks_(dram.banks) {}

void AddressMap::partition_by_instance(std::function<uint32_t(uint64_t)> instance_of,
                                       std::vector<PartitionRange> ranges) {
  std::vector<bool> taken(partitions_, false);
  for (const PartitionRange& r : ranges) {
    if (r.count == 0 || r.first + r.count > partitions_)
      throw std::invalid_argument(fmt::format("partition range {}+{} outside the GPU's {} partitions", r.first,
                                              r.count, partitions_));
    for (uint32_t p = r.first; p < r.first + r.count; ++p) {
      if (taken[p]) throw std::invalid_argument(fmt::format("memory partition {} is in two instances", p));
      taken[p] = true;
    }
  }
  instance_of_ = std::move(instance_of);
  instance_ranges_ = std::move(ranges);
}

uint32_t AddressMap::instance_partition(uint64_t addr) const {
  PartitionRange r = instance_ranges_[instance_of_(addr)];
  uint64_t chunk = addr / interleave_;
  return r.first + uint32_t((chunk % r.count + rotation(chunk / r.count)) % r.count);
}

uint64_t AddressMap::instance_local_addr(uint64_t addr) const {
  return (addr / interleave_) / instance_ranges_[instance_of_(addr)].count * interleave_ + addr % interleave_;
}

uint64_t AddressMap::rotation(uint64_t group) const {
  if (!hash_) return 0;
  uint64_t folded = 0;
  for (; group; group >>= 5) folded ^= group & 31;  // XOR of 5-bit fields
  return folded;
}

DramLocation AddressMap::dram_location(uint64_t addr) const {
  uint64_t local = local_addr(addr);
  uint64_t row_index = local / row_bytes_;  // rows of all banks, bank-interleaved
  uint64_t row = row_index / banks_;
  uint64_t bank = row_index % banks_;
  if (hash_) bank = (bank ^ row) % banks_;
  return DramLocation{uint32_t(bank), row};
}

}  // namespace gpumux::mem
