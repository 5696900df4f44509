#include "gpumux/mem/address_map.h"

#include <gtest/gtest.h>

#include <set>

namespace gpumux::mem {
namespace {

AddressMap make(uint32_t partitions, PartitionHash hash) {
  AddressMapParams p;
  p.hash = hash;
  return AddressMap(p, partitions, DramParams{});
}

TEST(AddressMap, InterleavesChunksOverPartitions) {
  AddressMap m = make(4, PartitionHash::None);
  EXPECT_EQ(m.partition(0), 0u);
  EXPECT_EQ(m.partition(255), 0u);
  EXPECT_EQ(m.partition(256), 1u);
  EXPECT_EQ(m.partition(3 * 256 + 128), 3u);
  EXPECT_EQ(m.partition(4 * 256), 0u);
  EXPECT_EQ(m.local_addr(4 * 256 + 130), 256u + 130);
}

TEST(AddressMap, IsABijectionOntoDenseLocalSpaces) {
  for (uint32_t parts : {4u, 5u, 24u}) {
    for (PartitionHash hash : {PartitionHash::None, PartitionHash::Xor}) {
      SCOPED_TRACE(parts);
      AddressMap m = make(parts, hash);
      const uint64_t groups = 200;
      std::vector<std::set<uint64_t>> local(parts);
      for (uint64_t a = 0; a < groups * parts * 256; a += 128) local[m.partition(a)].insert(m.local_addr(a));
      for (uint32_t p = 0; p < parts; ++p) {
        ASSERT_EQ(local[p].size(), groups * 2);  // two lines per chunk, none shared
        EXPECT_EQ(*local[p].rbegin(), groups * 256 - 128);
      }
    }
  }
}

TEST(AddressMap, XorHashSpreadsPowerOfTwoStrides) {
  AddressMap plain = make(4, PartitionHash::None);
  AddressMap hashed = make(4, PartitionHash::Xor);
  std::vector<int> plain_count(4), hashed_count(4);
  for (uint64_t k = 0; k < 256; ++k) {
    ++plain_count[plain.partition(k * 4096)];
    ++hashed_count[hashed.partition(k * 4096)];
  }
  EXPECT_EQ(plain_count[0], 256);
  for (int c : hashed_count) EXPECT_EQ(c, 64);
}

TEST(AddressMap, RowsFillBanksInTurn) {
  AddressMap m = make(1, PartitionHash::None);  // local address = address
  DramParams d;
  EXPECT_EQ(m.dram_location(0).bank, 0u);
  EXPECT_EQ(m.dram_location(d.row_bytes - 1).bank, 0u);
  EXPECT_EQ(m.dram_location(d.row_bytes).bank, 1u);
  EXPECT_EQ(m.dram_location(uint64_t(d.row_bytes) * d.banks).bank, 0u);
  EXPECT_EQ(m.dram_location(uint64_t(d.row_bytes) * d.banks).row, 1u);
}

// MIG: addresses of two instances (told apart by a bit here) stay in their
// partition ranges, and each range's local spaces stay dense and unshared.
TEST(AddressMap, InstancesInterleaveOverTheirOwnPartitions) {
  AddressMap m = make(8, PartitionHash::Xor);
  constexpr uint64_t kSecond = uint64_t(15) << 36;  // a whole number of 3- and 5-chunk groups
  m.partition_by_instance([](uint64_t a) { return a >= kSecond ? 1u : 0u; }, {{0, 3}, {3, 5}});
  std::vector<std::set<uint64_t>> local(8);
  const uint64_t bytes = 200 * 15 * 256;
  for (uint64_t base : {uint64_t(0), kSecond})
    for (uint64_t a = base; a < base + bytes; a += 128) {
      uint32_t p = m.partition(a);
      ASSERT_TRUE(base ? p >= 3 : p < 3) << a;
      EXPECT_TRUE(local[p].insert(m.local_addr(a)).second) << a;
    }
  for (uint32_t p = 0; p < 8; ++p) EXPECT_EQ(local[p].size(), bytes / 128 / (p < 3 ? 3 : 5)) << p;
}

TEST(AddressMap, InstancesMustNotShareAPartition) {
  AddressMap m = make(8, PartitionHash::None);
  auto one = [](uint64_t) { return 0u; };
  EXPECT_THROW(m.partition_by_instance(one, {{0, 4}, {3, 2}}), std::invalid_argument);
  EXPECT_THROW(m.partition_by_instance(one, {{6, 3}}), std::invalid_argument);
  EXPECT_THROW(m.partition_by_instance(one, {{0, 0}}), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux::mem
