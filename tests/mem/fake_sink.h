// A MemSink for tests: records what it accepts and when, and can refuse.
#pragma once

#include <utility>
#include <vector>

#include "gpumux/core/engine.h"
#include "gpumux/mem/request.h"

namespace gpumux::mem::test {

struct RecordingSink : MemSink {
  explicit RecordingSink(Engine& e) : engine(e) {}
  bool can_accept(const MemRequest&) const override { return accepting; }
  void accept(const MemRequest& r) override { got.push_back({engine.now(), r}); }

  Engine& engine;
  bool accepting = true;
  std::vector<std::pair<Tick, MemRequest>> got;  // (tick, request)
};

inline MemRequest read_req(uint64_t addr, SectorMask sectors = kAllSectors, uint64_t token = 0) {
  MemRequest r;
  r.addr = addr;
  r.sectors = sectors;
  r.op = MemOp::Read;
  r.token = token;
  return r;
}

inline MemRequest with_op(MemRequest r, MemOp op) {
  r.op = op;
  if (op == MemOp::Atomic) r.size = 4;
  return r;
}

}  // namespace gpumux::mem::test
