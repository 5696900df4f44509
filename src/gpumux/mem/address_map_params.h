// Parameters of the mapping from addresses to memory partitions.
#pragma once

#include <cstdint>

#include "gpumux/core/params.h"

namespace gpumux::mem {

enum class PartitionHash { None, Xor };

struct AddressMapParams {
  uint32_t interleave_bytes = 256;  // consecutive bytes mapped to one partition
  PartitionHash hash = PartitionHash::Xor;

  static void declare(ParamDecl<AddressMapParams>& d) {
    d.param("interleave_bytes", &AddressMapParams::interleave_bytes, "bytes",
            "consecutive bytes mapped to one partition (power of two, multiple of 128)")
        .range(128, 1 << 20);
    d.choice("hash", &AddressMapParams::hash, {{"none", PartitionHash::None}, {"xor", PartitionHash::Xor}},
             "partition index: chunk index modulo partitions, or XOR-folded higher bits first");
    d.check([](const AddressMapParams& p) -> std::string {
      if ((p.interleave_bytes & (p.interleave_bytes - 1)) != 0 || p.interleave_bytes % 128 != 0)
        return "address_map.interleave_bytes must be a power of two and a multiple of 128";
      return "";
    });
  }
};

}  // namespace gpumux::mem
