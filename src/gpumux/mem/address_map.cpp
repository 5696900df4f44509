#include "gpumux/mem/address_map.h"

namespace gpumux::mem {

AddressMap::AddressMap(const AddressMapParams& p, uint32_t partitions, const DramParams& dram)
    : interleave_(p.interleave_bytes),
      partitions_(partitions),
      hash_(p.hash == PartitionHash::Xor),
      row_bytes_(dram.row_bytes),
      banks_(dram.banks) {}

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
