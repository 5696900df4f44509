// What the SM needs to know about each instruction, computed once per loaded
// module (not per issue): the functional unit it goes to, its result latency,
// and the registers and predicates it reads and writes (for the scoreboard).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpumux/core/sm_params.h"
#include "gpumux/ptx/ir.h"

namespace gpumux::exec {
class LoadedModule;
}

namespace gpumux::sm {

enum class Unit : uint8_t { Int, Fp32, Fp64, Sfu, Branch, LdSt, Tensor };
inline constexpr unsigned kNumUnits = 7;
const char* unit_name(Unit u);

// A register operand for the scoreboard: an index in the current frame's
// registers, or in its predicates.
struct RegRef {
  uint16_t index = 0;  // PTX register (scoreboard, operand banks)
  bool pred = false;
  uint16_t slot = 0;   // where the warp stores it (exec::LoadedModule::register_slot)
};

enum class InstKind : uint8_t {
  Alu,      // result after a fixed latency
  Memory,   // ld/st/atom/red: the load/store unit decides when results are ready
  Barrier,  // bar.*: may block the warp until the TB arrives
  Fence,    // membar/fence: waits for the warp's outstanding stores
  Control,  // bra/call/ret/exit...
  AsyncWait,  // cp.async.wait_group/wait_all/mbarrier.arrive: issues once the warp's copies completed
  AsyncCommit,  // cp.async.commit_group: closes the warp's open group of copies (else like Alu)
};

// InstTiming::async_keep of an AsyncWait that waits for every copy and store
// of the warp (wait_all, cp.async.mbarrier.arrive).
inline constexpr uint8_t kAsyncWaitAll = 0xff;

struct InstTiming {
  Unit unit = Unit::Int;
  InstKind kind = InstKind::Alu;
  uint16_t latency = 1;
  uint8_t interval = 1;
  uint8_t num_src = 0, num_dst = 0;
  bool texture = false;       // tex/tld4/suld/sust: the memory path plus the texture unit's latency
  bool builtin_call = false;  // calls a device-side builtin (printf, malloc): a side effect outside the TB
  bool async_copy = false;    // cp.async: a global read that completes like a store (no register result)
  // AsyncWait: cp.async.wait_group N lets the newest N committed groups stay
  // pending (N saturates at 254); kAsyncWaitAll: waits for all.
  uint8_t async_keep = kAsyncWaitAll;
  // 0: cannot page fault (no global memory access); else a global (or
  // generic) memory instruction, and the operand-log entries it takes: 1 for
  // a load (its address), 2 for a store or atomic (address and data).
  uint8_t fault_log_entries = 0;
  uint32_t regs = 0;  // first RegRef in the module's pool: sources, then destinations
};

// The timing facts of every instruction of a module, by function and pc.
class ModuleTiming {
 public:
  ModuleTiming(const exec::LoadedModule& m, const SmParams& p);

  const InstTiming& at(uint32_t fn, uint32_t pc) const { return funcs_[fn][pc]; }
  std::span<const RegRef> sources(const InstTiming& t) const { return {pool_.data() + t.regs, t.num_src}; }
  std::span<const RegRef> destinations(const InstTiming& t) const {
    return {pool_.data() + t.regs + t.num_src, t.num_dst};
  }
  // 32-bit register units live before instruction `pc` of function `fn`
  // (ptx::live_units_before): what a live-register context save keeps.
  uint32_t live_units(uint32_t fn, uint32_t pc) const { return live_[fn][pc]; }

 private:
  std::vector<std::vector<InstTiming>> funcs_;
  std::vector<RegRef> pool_;
  std::vector<std::vector<uint32_t>> live_;
};

// Unit, kind, latency and interval of one instruction (registers not filled).
InstTiming classify(const ptx::Instruction& in, const SmParams& p);

}  // namespace gpumux::sm
