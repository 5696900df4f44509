// Asynchronous copies (cp.async) and asynchronous barriers (mbarrier).
//
// Execution happens at issue, so a cp.async copy completes when it executes:
// a legal order of the asynchronous copy (its completion is only promised at
// the matching wait). commit_group and wait_group/wait_all therefore have no
// functional effect; the timing model charges the copies to the load/store
// unit as global reads, tracks each warp's commit groups, and holds
// wait_group N until the groups older than the newest N have completed, and
// wait_all and cp.async.mbarrier.arrive until all the warp's copies have
// (sm/inst_timing.h, InstKind::AsyncWait).
//
// An mbarrier is a 64-bit shared-memory object whose layout the PTX ISA
// leaves opaque. Here: bits 0-20 the arrivals pending in the current phase,
// bits 21-41 the expected count, bit 63 the phase parity. A state returned by
// arrive is the phase parity (bit 63) and the pending count after the arrival.
#include <cstring>

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/shared_operand.h"
#include "gpumux/exec/thread_block.h"

namespace gpumux::exec {

namespace {

using ptx::Space;

constexpr uint64_t kCountMask = (uint64_t(1) << 21) - 1;
constexpr unsigned kExpectedShift = 21;
constexpr uint64_t kPhaseBit = uint64_t(1) << 63;
constexpr uint64_t kMaxCount = kCountMask;  // the PTX ISA's limit is 2^20 - 1

}  // namespace

uint64_t operand_address(const StepContext& c, const ptx::Operand& a, unsigned lane) {
  uint64_t base = a.reg != ptx::kNoReg ? c.regs[size_t(a.reg) * kWarpSize + lane] : symbol_address(*c.warp, a);
  return base + a.imm;
}

uint8_t* shared_at(StepContext& c, Space space, const ptx::Operand& a, unsigned lane, uint32_t bytes,
                   uint64_t& offset) {
  uint64_t addr = operand_address(c, a, lane);
  if (space == Space::Generic && a.sym == ptx::kNoSym) {
    if (addr - kSharedWindow >= kWindowSize)
      c.fault(fmt::format("generic address 0x{:x} is not in shared memory", addr), lane);
    addr -= kSharedWindow;
  } else if (space == Space::Generic || space == Space::Shared) {
    addr &= 0xffffffffu;  // shared addresses are 32-bit
  }
  std::vector<uint8_t>& sh = c.warp->tb().shared();
  if (addr % bytes != 0) c.fault(fmt::format("misaligned {}-byte shared access at 0x{:x}", bytes, addr), lane);
  if (addr + bytes > sh.size())
    c.fault(fmt::format("shared memory access out of bounds: {} bytes at offset 0x{:x}, the TB has {} bytes", bytes,
                        addr, sh.size()),
            lane);
  offset = addr;
  return sh.data() + addr;
}

namespace {

// cp.async.ca/.cg.shared.global [dst], [src], cp-size{, src-size | ignore-src}
void cp_async_copy(StepContext& c, const ptx::Instruction& in) {
  const uint32_t size = uint32_t(in.ops[2].imm);
  const bool rec = c.warp->recording();
  const GridLaunch& launch = c.warp->tb().launch();
  for_each_lane(c.mask, [&](unsigned lane) {
    uint64_t src_size = size;
    if (in.nops == 4) {
      const ptx::Operand& o = in.ops[3];
      src_size = o.kind == ptx::OperandKind::Pred ? (c.pred(o, lane) ? 0 : size) : c.src(o, lane) & 0xffffffffu;
      if (src_size > size) c.fault(fmt::format("cp.async src-size {} exceeds cp-size {}", src_size, size), lane);
    }
    uint64_t dst_off;
    uint8_t* dst = shared_at(c, Space::Shared, in.ops[0], lane, size, dst_off);
    const uint64_t src = operand_address(c, in.ops[1], lane);
    if (src % size != 0) c.fault(fmt::format("misaligned {}-byte cp.async source 0x{:x}", size, src), lane);
    if (src_size > 0) {
      const uint8_t* p = launch.mem->translate(src, src_size);
      if (!p) c.fault(fmt::format("invalid global read by cp.async: {}", launch.mem->explain(src, src_size)), lane);
      std::memcpy(dst, p, src_size);
    }
    std::memset(dst + src_size, 0, size - src_size);
    if (rec) {
      MemAccess& m = c.warp->access();
      m.space = Space::Global;
      m.bytes = size;
      m.is_store = false;
      m.is_atomic = false;
      m.mask |= 1u << lane;
      m.addr[lane] = src;
    }
  });
}

void no_effect(StepContext&, const ptx::Instruction&) {}

uint64_t load_barrier(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
void store_barrier(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// One arrival (drop: also one fewer expected arrival in later phases); returns the state.
uint64_t arrive_on(StepContext& c, uint8_t* p, uint64_t count, bool drop, unsigned lane) {
  uint64_t v = load_barrier(p);
  uint64_t pending = v & kCountMask, expected = (v >> kExpectedShift) & kCountMask;
  if (count == 0 || count > pending)
    c.fault(fmt::format("mbarrier arrival count {} with {} arrivals pending (not initialised, or more arrivals "
                        "than expected)",
                        count, pending),
            lane);
  if (drop) expected -= count;
  pending -= count;
  const uint64_t phase = v & kPhaseBit;
  const uint64_t state = phase | pending;
  if (pending == 0) v = (phase ^ kPhaseBit) | (expected << kExpectedShift) | expected;  // phase completes
  else v = phase | (expected << kExpectedShift) | pending;
  store_barrier(p, v);
  return state;
}

void record_barrier_access(StepContext& c, unsigned lane, uint64_t offset) {
  if (!c.warp->recording()) return;
  MemAccess& m = c.warp->access();
  m.space = Space::Shared;
  m.bytes = 8;
  m.is_store = true;
  m.is_atomic = true;
  m.mask |= 1u << lane;
  m.addr[lane] = offset;
}

// cp.async.mbarrier.arrive{.noinc}: the copies completed at issue. Without
// .noinc the pending count is raised by one before the arrival, so the net
// effect is none; with .noinc it is one arrival of the expected count.
void cp_async_mbarrier_arrive(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask, [&](unsigned lane) {
    uint64_t off;
    uint8_t* p = shared_at(c, in.space, in.ops[0], lane, 8, off);
    record_barrier_access(c, lane, off);
    if (in.noinc) arrive_on(c, p, 1, false, lane);
  });
}

void mbarrier(StepContext& c, const ptx::Instruction& in) {
  using ptx::MbarOp;
  const bool has_addr_first = in.mbar == MbarOp::Init || in.mbar == MbarOp::Inval;
  for_each_lane(c.mask, [&](unsigned lane) {
    if (in.mbar == MbarOp::PendingCount) {
      c.regs[size_t(in.ops[0].reg) * kWarpSize + lane] = c.src(in.ops[1], lane) & kCountMask;
      return;
    }
    uint64_t off;
    uint8_t* p = shared_at(c, in.space, in.ops[has_addr_first ? 0 : 1], lane, 8, off);
    record_barrier_access(c, lane, off);
    switch (in.mbar) {
      case MbarOp::Init: {
        const uint64_t count = c.src(in.ops[1], lane) & 0xffffffffu;
        if (count == 0 || count > kMaxCount) c.fault(fmt::format("mbarrier.init count {} out of range", count), lane);
        store_barrier(p, (count << kExpectedShift) | count);
        break;
      }
      case MbarOp::Inval: store_barrier(p, 0); break;
      case MbarOp::Arrive:
      case MbarOp::ArriveDrop: {
        const uint64_t count = in.nops == 3 ? c.src(in.ops[2], lane) & 0xffffffffu : 1;
        const uint64_t state = arrive_on(c, p, count, in.mbar == MbarOp::ArriveDrop, lane);
        if (in.ops[0].kind == ptx::OperandKind::Reg) c.regs[size_t(in.ops[0].reg) * kWarpSize + lane] = state;
        break;
      }
      default: {  // test_wait / try_wait: has the phase named by the state (or parity) completed?
        const bool parity_form = in.mbar == MbarOp::TestWaitParity || in.mbar == MbarOp::TryWaitParity;
        const uint64_t arg = c.src(in.ops[2], lane);
        const bool waited_phase = parity_form ? (arg & 1) != 0 : (arg & kPhaseBit) != 0;
        const bool current_phase = (load_barrier(p) & kPhaseBit) != 0;
        const bool complete = current_phase != waited_phase;
        c.set_pred(in.ops[0].reg, lane, complete);
        if (!complete) c.warp->request_yield();
        break;
      }
    }
  });
}

}  // namespace

ptx::ExecHandler bind_async(const ptx::Instruction& in, std::string& why) {
  using ptx::AsyncOp;
  if (in.op == ptx::Opcode::Mbarrier) {
    if (in.space != Space::Shared && in.space != Space::Generic) {
      why = "mbarrier objects live in shared memory";
      return nullptr;
    }
    return &mbarrier;
  }
  if (in.op != ptx::Opcode::CpAsync) return nullptr;
  switch (in.async) {
    case AsyncOp::Copy: return &cp_async_copy;
    case AsyncOp::MbarrierArrive: return &cp_async_mbarrier_arrive;
    case AsyncOp::Commit:
    case AsyncOp::WaitGroup:
    case AsyncOp::WaitAll: return &no_effect;  // ordering only: the timing model waits (see above)
    case AsyncOp::None: break;
  }
  why = "unknown cp.async form";
  return nullptr;
}

}  // namespace gpumux::exec
