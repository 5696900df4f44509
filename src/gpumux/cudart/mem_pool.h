// Stream-ordered memory pools (cudaMallocAsync, cudaMemPool*; api_mempool.cpp).
// A pool hands out blocks of the session's device memory and keeps the freed
// ones for reuse (its reserved memory) until a synchronization trims it to
// its release threshold, as CUDA's pools do.
//
// Stream order: an allocation happens when it is called, and a free waits
// for the device work queued before it, as gpumux's copies do. Both are
// legal orderings of CUDA's stream-ordered semantics, and a block is idle
// whenever it is in the pool, so any stream may reuse it at once: a program
// that frees on one stream and allocates on another after an event gets
// memory no pending work touches, with or without the event.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "gpumux/runtime/runtime.h"

namespace gpumux::cudart {

class Session;

class MemPool {
 public:
  // `max_bytes`: the most the pool may reserve (0: no limit).
  explicit MemPool(uint64_t max_bytes = 0) : max_bytes_(max_bytes) {}

  // A block of at least `bytes`: an idle one if one fits, else new memory;
  // ApiError when the pool would exceed its maximum size.
  runtime::DevPtr allocate(Session& s, uint64_t bytes);
  // Takes back a block of this pool (owns(p)); the device work that used it is done.
  void release(runtime::DevPtr p);
  bool owns(runtime::DevPtr p) const { return live_.count(p) != 0; }
  bool empty() const { return live_.empty() && idle_.empty(); }
  // Frees idle blocks, largest first, until at most `keep` bytes stay reserved.
  void trim(Session& s, uint64_t keep);
  // cudaDeviceReset: the blocks went with the context.
  void clear();

  uint64_t reserved() const { return reserved_; }
  uint64_t used() const { return used_; }
  uint64_t reserved_high() const { return reserved_high_; }
  uint64_t used_high() const { return used_high_; }
  void reset_reserved_high() { reserved_high_ = reserved_; }
  void reset_used_high() { used_high_ = used_; }

  // cudaMemPoolAttr values a program sets: kept and returned. The reuse
  // policies change nothing here: every idle block is safe to reuse.
  uint64_t release_threshold = 0;
  int reuse_follow_event = 1, reuse_opportunistic = 1, reuse_internal = 1;
  bool destroyed = false;  // by cudaMemPoolDestroy while blocks were handed out

 private:
  uint64_t max_bytes_;
  std::map<runtime::DevPtr, uint64_t> live_;        // handed out: address, block size
  std::multimap<uint64_t, runtime::DevPtr> idle_;   // reserved, not handed out: by size
  uint64_t reserved_ = 0, used_ = 0, reserved_high_ = 0, used_high_ = 0;
};

// The device's pools: the default one, the current one (cudaDeviceSetMemPool)
// and those the program creates.
class MemPools {
 public:
  MemPools();
  MemPool& default_pool() { return *pools_.front(); }
  MemPool& current() { return *current_; }
  void set_current(MemPool& p) { current_ = &p; }
  MemPool& create(uint64_t max_bytes);
  // cudaMemPoolDestroy of a valid pool other than the default one: frees its
  // idle memory; blocks still handed out stay the pool's until freed (then the
  // pool goes), as in CUDA. The current pool falls back to the default.
  void destroy(Session& s, MemPool& p);
  bool valid(const MemPool* p) const;
  MemPool* owner(runtime::DevPtr p);  // null: not pool memory
  // Trims every pool to its release threshold (at a synchronization).
  void trim_to_thresholds(Session& s);
  void clear();

 private:
  std::vector<std::unique_ptr<MemPool>> pools_;  // [0]: the default pool
  MemPool* current_;
};

}  // namespace gpumux::cudart
