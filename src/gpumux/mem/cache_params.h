// Parameters of the sectored set-associative cache (L1D per SM, L2 slice per
// memory partition). Lines are 128 B with four 32 B sectors (see mem/request.h).
#pragma once

#include <cstdint>
#include <string>

#include "gpumux/core/params.h"

namespace gpumux::mem {

enum class WritePolicy { WriteBack, WriteThrough };

struct CacheParams {
  uint32_t size_kb = 48;           // capacity
  uint32_t ways = 6;               // associativity
  uint32_t hit_latency = 28;       // cycles from arrival to lookup
  uint32_t ports = 1;              // lookups per cycle
  uint32_t input_queue = 8;        // requests waiting for a lookup, beyond the pipeline
  uint32_t mshrs = 32;             // outstanding missed lines
  uint32_t mshr_merge = 8;         // requests waiting on one MSHR
  WritePolicy write_policy = WritePolicy::WriteThrough;
  bool write_allocate = false;

  // Declares the cache parameters of any params struct derived from CacheParams.
  template <class T>
  static void declare_cache(ParamDecl<T>& d) {
    d.param("size_kb", &CacheParams::size_kb, "KiB", "capacity (for the L2: of the whole GPU, split evenly over partitions)")
        .range(1, 1 << 20);
    d.param("ways", &CacheParams::ways, "", "associativity (LRU replacement)").range(1, 64);
    d.param("hit_latency", &CacheParams::hit_latency, "cycles",
            "access pipeline from arrival to tag lookup: a hit responds then, a miss goes below then")
        .range(1, 10000);
    d.param("ports", &CacheParams::ports, "requests/cycle", "tag lookups per cycle (bandwidth)").range(1, 64);
    d.param("input_queue", &CacheParams::input_queue, "requests", "requests waiting for a tag lookup besides the hit_latency * ports in the pipeline").range(1, 4096);
    d.param("mshrs", &CacheParams::mshrs, "entries", "outstanding missed lines; a miss stalls when all are used")
        .range(1, 4096);
    d.param("mshr_merge", &CacheParams::mshr_merge, "requests", "requests merged into one MSHR entry").range(1, 256);
    d.choice("write_policy", &CacheParams::write_policy,
             {{"write-back", WritePolicy::WriteBack}, {"write-through", WritePolicy::WriteThrough}},
             "write-back keeps dirty lines until eviction; write-through forwards every write");
    d.param("write_allocate", &CacheParams::write_allocate, "", "allocate a line on a write miss");
  }
  static void declare(ParamDecl<CacheParams>& d) { declare_cache(d); }
};

// The L2 slice adds the atomic unit (ROP) beside the cache.
struct L2Params : CacheParams {
  uint32_t atomic_latency = 8;  // cycles

  L2Params() {
    size_kb = 2048;
    ways = 16;
    hit_latency = 100;
    input_queue = 16;
    mshrs = 128;
    write_policy = WritePolicy::WriteBack;
    write_allocate = true;
  }
  static void declare(ParamDecl<L2Params>& d) {
    declare_cache(d);
    d.param("atomic_latency", &L2Params::atomic_latency, "cycles", "extra cycles of an atomic at the L2 after its line is present")
        .range(0, 10000);
  }
};

}  // namespace gpumux::mem
