// Memory instructions: ld, ldu, st, atom, red, cvta, isspacep, prefetch.
// Each handler is specialised by state space at bind time; every access is
// bounds-checked against its space and faults with a clear message.
#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/core/popcount.h"
#include "gpumux/exec/address_space.h"
#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/loaded_module.h"
#include "gpumux/exec/thread_block.h"

namespace gpumux::exec {

namespace {

using ptx::Space;

// Resolves one lane's access of `bytes` at `addr` in space S to a host pointer.
// `kernel_param` says a .param access names the kernel's parameter buffer.
template <Space S>
uint8_t* resolve(StepContext& c, unsigned lane, uint64_t addr, uint32_t bytes, bool write,
                 bool kernel_param, Space& resolved) {
  Warp& w = *c.warp;
  ThreadBlock& tb = w.tb();
  if constexpr (S == Space::Generic) {
    if (addr - kSharedWindow < kWindowSize)
      return resolve<Space::Shared>(c, lane, addr - kSharedWindow, bytes, write, false, resolved);
    if (addr - kLocalWindow < kWindowSize)
      return resolve<Space::Local>(c, lane, addr - kLocalWindow, bytes, write, false, resolved);
    return resolve<Space::Global>(c, lane, addr, bytes, write, false, resolved);
  } else {
    resolved = S;
    if ((addr & (bytes - 1)) != 0 && gpumux::has_single_bit(bytes))
      c.fault(fmt::format("misaligned {}-byte {} access at {} address 0x{:x}", bytes,
                          write ? "write" : "read", ptx::space_name(S), addr),
              lane);
    if constexpr (S == Space::Global || S == Space::Const) {
      uint8_t* p = tb.launch().mem->translate(addr, bytes);
      if (!p)
        c.fault(fmt::format("invalid {} {} access: {}", ptx::space_name(S),
                            write ? "write" : "read", tb.launch().mem->explain(addr, bytes)),
                lane);
      return p;
    } else if constexpr (S == Space::Shared) {
      auto& sh = tb.shared();
      if (addr + bytes > sh.size() || addr + bytes < addr)
        c.fault(fmt::format("shared memory {} out of bounds: {} bytes at offset 0x{:x}, the TB has "
                            "{} bytes",
                            write ? "write" : "read", bytes, addr, sh.size()),
                lane);
      return sh.data() + addr;
    } else if constexpr (S == Space::Local) {
      uint8_t* p = w.local_ptr(lane, addr, bytes);
      if (!p)
        c.fault(fmt::format("local memory {} out of bounds: {} bytes at offset 0x{:x}",
                            write ? "write" : "read", bytes, addr),
                lane);
      return p;
    } else {
      static_assert(S == Space::Param);
      if (kernel_param) {
        const auto& pb = tb.launch().params;
        if (write) c.fault("store to a kernel parameter", lane);
        if (addr + bytes > pb.size())
          c.fault(fmt::format("kernel parameter read out of bounds at offset {}", addr), lane);
        return const_cast<uint8_t*>(pb.data()) + addr;
      }
      uint8_t* p = w.param_ptr(lane, addr, bytes);
      if (!p) c.fault(fmt::format("parameter space access out of bounds at offset {}", addr), lane);
      return p;
    }
  }
}

// Width in bytes of register `r` (a storage slot) of the current function.
unsigned reg_width(const StepContext& c, uint16_t r) {
  const Warp& w = *c.warp;
  return ptx::type_size(w.exec_function().reg_types[r]);
}

// Per-instruction address operand decoding: symbol base resolved once.
struct AddressOperand {
  const ptx::Operand& a;
  uint64_t sym_base = 0;
  uint64_t wrap = ~uint64_t(0);  // 32-bit address registers wrap at 2^32
  bool kernel_param = false;
  AddressOperand(StepContext& c, const ptx::Operand& op) : a(op) {
    if (a.sym != ptx::kNoSym) sym_base = symbol_address(*c.warp, a);
    if (a.reg != ptx::kNoReg && reg_width(c, a.reg) == 4) wrap = 0xffffffffu;
    // In the kernel's own frame, kernel parameters (by name or by an address
    // taken with mov) live in the launch's parameter buffer.
    kernel_param = c.warp->in_kernel_frame() &&
                   (a.sym == ptx::kNoSym || a.scope == ptx::SymScope::Param);
  }
  uint64_t lane(const StepContext& c, unsigned l) const {
    uint64_t base = a.reg != ptx::kNoReg ? c.regs[size_t(a.reg) * kWarpSize + l] : sym_base;
    return (base + a.imm) & wrap;
  }
  // lane() of every lane of a full warp, as one counted loop (vectorised).
  void full_warp(const StepContext& c, uint64_t* out) const {
    if (a.reg == ptx::kNoReg) {
      std::fill_n(out, kWarpSize, (sym_base + a.imm) & wrap);
      return;
    }
    const uint64_t* r = c.regs + size_t(a.reg) * kWarpSize;
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = (r[l] + a.imm) & wrap;
  }
};

void record(StepContext& c, Space space, unsigned lane, uint64_t addr, uint32_t bytes,
            bool store, bool atomic) {
  MemAccess& m = c.warp->access();
  m.space = space;
  m.bytes = bytes;
  m.is_store = store;
  m.is_atomic = atomic;
  m.mask |= 1u << lane;
  m.addr[lane] = addr;
}

// record() of every lane of c.mask at once.
void record_warp(StepContext& c, Space space, const uint64_t* addrs, uint32_t bytes, bool store) {
  MemAccess& m = c.warp->access();
  m.space = space;
  m.bytes = bytes;
  m.is_store = store;
  m.is_atomic = false;
  m.mask |= c.mask;
  for_lanes(c.mask, [&](unsigned lane) { m.addr[lane] = addrs[lane]; });
}

// Fills addrs[lane] for the lanes of c.mask and calls f(address) for each: a
// full warp as one counted loop (vectorised).
template <class F>
void each_address(const StepContext& c, const AddressOperand& a, uint64_t* addrs, F&& f) {
  if (c.mask == kFullMask) {
    a.full_warp(c, addrs);
    for (unsigned l = 0; l < kWarpSize; ++l) f(addrs[l]);
  } else {
    for_each_lane(c.mask, [&](unsigned l) { f(addrs[l] = a.lane(c, l)); });
  }
}

// Global (constant, generic) accesses of `total` bytes by the lanes of c.mask
// (c.mask != 0) with one translation for the warp: fills each lane's address
// in `addrs` and, when every access is aligned, outside the shared and local
// windows and inside one allocation (the usual case), returns the host
// pointer of the lowest address `lo` (a lane's data is at the result +
// addrs[lane] - lo). Else nullptr: the per-lane path then faults at the first
// bad lane, as without this.
template <Space S>
uint8_t* translate_warp(StepContext& c, const AddressOperand& a, uint32_t total, uint64_t* addrs,
                        uint64_t& lo) {
  static_assert(S == Space::Global || S == Space::Const || S == Space::Generic);
  const uint64_t align = gpumux::has_single_bit(total) ? total - 1 : 0;
  uint64_t hi = 0, misaligned = 0;
  bool windowed = false;
  lo = ~uint64_t(0);
  each_address(c, a, addrs, [&](uint64_t x) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    misaligned |= x & align;
    if constexpr (S == Space::Generic)
      windowed |= (x - kSharedWindow < kWindowSize) | (x - kLocalWindow < kWindowSize);
  });
  // A span that could wrap is left to the per-lane path.
  if (misaligned || windowed || hi - lo > (uint64_t(1) << 32) || hi > ~uint64_t(0) - total) return nullptr;
  return c.warp->tb().launch().mem->translate(lo, hi - lo + total);
}

// Shared-memory accesses of `total` bytes by the lanes of c.mask: fills each
// lane's offset in `addrs` and returns the TB's shared memory when every
// access is aligned and in bounds (checked for all lanes first), else nullptr:
// the per-lane path then faults at the first bad lane.
uint8_t* shared_warp(StepContext& c, const AddressOperand& a, uint32_t total, uint64_t* addrs) {
  std::vector<uint8_t>& sh = c.warp->tb().shared();
  const uint64_t size = sh.size();
  const uint64_t align = gpumux::has_single_bit(total) ? total - 1 : 0;
  uint64_t misaligned = 0, highest = 0;
  each_address(c, a, addrs, [&](uint64_t x) {
    misaligned |= x & align;
    highest = std::max(highest, x);
  });
  const bool ok = misaligned == 0 && total <= size && highest <= size - total;
  return ok ? sh.data() : nullptr;
}

// The space a global-like access records (generic ones are global here).
constexpr Space recorded_space(Space s) { return s == Space::Const ? Space::Const : Space::Global; }
constexpr bool global_like(Space s) { return s == Space::Global || s == Space::Const || s == Space::Generic; }

inline uint64_t extend(uint64_t v, unsigned from_bytes, unsigned to_bytes, bool is_signed) {
  if (from_bytes >= 8) return v;
  uint64_t m = (1ull << (8 * from_bytes)) - 1;
  v &= m;
  if (is_signed && (v >> (8 * from_bytes - 1)) & 1) v |= ~m;
  if (to_bytes < 8) v &= (1ull << (8 * to_bytes)) - 1;
  return v;
}

// Loads/stores the low `bytes` (at most 8) of a register value. Fixed-size
// copies for the usual widths: a variable-size memcpy compiles to a byte loop
// whose result is then re-read as a word (a store-forwarding stall).
inline uint64_t load_bytes(const uint8_t* p, unsigned bytes) {
  switch (bytes) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; std::memcpy(&v, p, 8); return v; }
    default: { uint64_t v = 0; std::memcpy(&v, p, bytes < 8 ? bytes : 8); return v; }
  }
}
inline void store_bytes(uint8_t* p, uint64_t x, unsigned bytes) {
  switch (bytes) {
    case 1: *p = uint8_t(x); return;
    case 2: { uint16_t v = uint16_t(x); std::memcpy(p, &v, 2); return; }
    case 4: { uint32_t v = uint32_t(x); std::memcpy(p, &v, 4); return; }
    case 8: std::memcpy(p, &x, 8); return;
    default: std::memcpy(p, &x, bytes < 8 ? bytes : 8); return;
  }
}

template <Space S>
void ld(StepContext& c, const ptx::Instruction& in) {
  const ptx::Operand& d = in.ops[0];
  AddressOperand a(c, in.ops[1]);
  const unsigned esize = ptx::type_size(in.type), n = in.vec, total = esize * n;
  const bool sgn = ptx::type_is_signed(in.type);
  uint16_t regs[4];
  unsigned widths[4];
  for (unsigned k = 0; k < n; ++k) {
    regs[k] = n == 1 ? d.reg : d.vec[k];
    widths[k] = regs[k] == ptx::kNoReg || d.kind == ptx::OperandKind::Pred
                    ? 8
                    : std::max(esize, reg_width(c, regs[k]));
  }
  const bool rec = c.warp->recording();
  // The fast paths: lane l's data at base + offs[l], for the lanes of c.mask;
  // the usual element sizes a constant in the lane loop (E = 0: any size).
  auto load_lanes = [&](const uint8_t* base, const uint64_t* offs) {
    for (unsigned k = 0; k < n; ++k) {
      if (regs[k] == ptx::kNoReg) continue;
      uint64_t* dst = c.regs + size_t(regs[k]) * kWarpSize;
      const uint8_t* at = base + k * esize;
      const unsigned width = widths[k];
      auto copy = [&]<unsigned E>() {
        const unsigned e = E ? E : esize;
        for_lanes(c.mask, [&](unsigned lane) { dst[lane] = extend(load_bytes(at + offs[lane], e), e, width, sgn); });
      };
      switch (esize) {
        case 4: copy.template operator()<4>(); break;
        case 8: copy.template operator()<8>(); break;
        default: copy.template operator()<0>(); break;
      }
    }
  };
  if constexpr (S == Space::Shared) {
    uint64_t addrs[kWarpSize];
    if (const uint8_t* base = shared_warp(c, a, total, addrs)) {
      if (rec && c.mask) record_warp(c, Space::Shared, addrs, total, false);
      load_lanes(base, addrs);
      return;
    }
  }
  if constexpr (global_like(S)) {
    uint64_t addrs[kWarpSize], lo;
    if (c.mask) {
      if (const uint8_t* base = translate_warp<S>(c, a, total, addrs, lo)) {
        if (rec) record_warp(c, recorded_space(S), addrs, total, false);
        uint64_t offs[kWarpSize];
        for_lanes(c.mask, [&](unsigned lane) { offs[lane] = addrs[lane] - lo; });
        load_lanes(base, offs);
        return;
      }
    }
  }
  if constexpr (S == Space::Param) {
    // A kernel parameter named by symbol: one address for every lane, read once.
    if (a.kernel_param && a.a.reg == ptx::kNoReg && c.mask) {
      const unsigned first = unsigned(std::countr_zero(c.mask));
      const uint64_t addr = a.lane(c, first);
      Space rs;
      const uint8_t* p = resolve<S>(c, first, addr, total, false, true, rs);
      if (rec) {
        uint64_t addrs[kWarpSize];
        std::fill_n(addrs, kWarpSize, addr);
        record_warp(c, rs, addrs, total, false);
      }
      const uint64_t same[kWarpSize] = {};
      load_lanes(p, same);
      return;
    }
  }
  for_each_lane(c.mask, [&](unsigned lane) {
    uint64_t addr = a.lane(c, lane);
    Space rs;
    const uint8_t* p = resolve<S>(c, lane, addr, total, false, a.kernel_param, rs);
    if (rec) record(c, rs, lane, addr, total, false, false);
    for (unsigned k = 0; k < n; ++k) {
      if (regs[k] == ptx::kNoReg) continue;
      uint64_t v = load_bytes(p + k * esize, esize);
      c.regs[size_t(regs[k]) * kWarpSize + lane] = extend(v, esize, widths[k], sgn);
    }
  });
}

template <Space S>
void st(StepContext& c, const ptx::Instruction& in) {
  AddressOperand a(c, in.ops[0]);
  const ptx::Operand& v = in.ops[1];
  const unsigned esize = ptx::type_size(in.type), n = in.vec, total = esize * n;
  const bool rec = c.warp->recording();
  auto store_lane = [&](uint8_t* p, unsigned lane) {
    for (unsigned k = 0; k < n; ++k) {
      uint64_t x;
      if (v.kind == ptx::OperandKind::Vec)
        x = v.vec[k] == ptx::kNoReg ? 0 : c.regs[size_t(v.vec[k]) * kWarpSize + lane];
      else
        x = c.src(v, lane);
      store_bytes(p + k * esize, x, esize);
    }
  };
  if constexpr (S == Space::Shared) {
    uint64_t addrs[kWarpSize];
    if (uint8_t* base = shared_warp(c, a, total, addrs)) {
      if (rec && c.mask) record_warp(c, Space::Shared, addrs, total, true);
      for_lanes(c.mask, [&](unsigned lane) { store_lane(base + addrs[lane], lane); });  // ascending, as below
      return;
    }
  }
  if constexpr (global_like(S)) {
    uint64_t addrs[kWarpSize], lo;
    if (c.mask) {
      if (uint8_t* base = translate_warp<S>(c, a, total, addrs, lo)) {
        if (rec) record_warp(c, recorded_space(S), addrs, total, true);
        // Lanes in ascending order, as below: the highest of lanes storing to one address wins.
        for_lanes(c.mask, [&](unsigned lane) { store_lane(base + (addrs[lane] - lo), lane); });
        return;
      }
    }
  }
  for_each_lane(c.mask, [&](unsigned lane) {
    uint64_t addr = a.lane(c, lane);
    Space rs;
    uint8_t* p = resolve<S>(c, lane, addr, total, true, a.kernel_param, rs);
    if (rec) record(c, rs, lane, addr, total, true, false);
    store_lane(p, lane);
  });
}

// One atomic read-modify-write on a value of type T; returns the old value.
template <class T>
T atomic_apply(ptx::AtomOp op, T* p, T b, T cmp_new) {
  T old;
  std::memcpy(&old, p, sizeof(T));
  T nv = old;
  using ptx::AtomOp;
  switch (op) {
    case AtomOp::Add: nv = T(old + b); break;
    case AtomOp::Min: nv = b < old ? b : old; break;
    case AtomOp::Max: nv = b > old ? b : old; break;
    case AtomOp::Exch: nv = b; break;
    case AtomOp::Cas: nv = old == b ? cmp_new : old; break;
    case AtomOp::Inc:
      if constexpr (std::is_integral_v<T>) nv = old >= b ? T(0) : T(old + 1);
      break;
    case AtomOp::Dec:
      if constexpr (std::is_integral_v<T>) nv = (old == 0 || old > b) ? b : T(old - 1);
      break;
    case AtomOp::And:
      if constexpr (std::is_integral_v<T>) nv = old & b;
      break;
    case AtomOp::Or:
      if constexpr (std::is_integral_v<T>) nv = old | b;
      break;
    case AtomOp::Xor:
      if constexpr (std::is_integral_v<T>) nv = old ^ b;
      break;
    case AtomOp::None: break;
  }
  std::memcpy(p, &nv, sizeof(T));
  return old;
}

// atom (has_dst) and red; lanes are applied in ascending order: deterministic.
template <Space S, class T, bool HasDst>
void atomic(StepContext& c, const ptx::Instruction& in) {
  const unsigned o = HasDst ? 1 : 0;
  AddressOperand a(c, in.ops[o]);
  const ptx::Operand& b = in.ops[o + 1];
  const ptx::Operand& cn = in.ops[o + 2];
  const bool cas = in.aop == ptx::AtomOp::Cas;
  const bool rec = c.warp->recording();
  for_each_lane(c.mask, [&](unsigned lane) {
    uint64_t addr = a.lane(c, lane);
    Space rs;
    uint8_t* p = resolve<S>(c, lane, addr, sizeof(T), true, false, rs);
    if (rec) record(c, rs, lane, addr, sizeof(T), true, true);
    T old = atomic_apply<T>(in.aop, reinterpret_cast<T*>(p), from_bits<T>(c.src(b, lane)),
                            cas ? from_bits<T>(c.src(cn, lane)) : T{});
    if constexpr (HasDst) c.regs[size_t(in.ops[0].reg) * kWarpSize + lane] = to_bits(old);
  });
}

template <Space S, class T>
ptx::ExecHandler atomic_for(const ptx::Instruction& in) {
  return in.op == ptx::Opcode::Atom ? &atomic<S, T, true> : &atomic<S, T, false>;
}

template <Space S>
ptx::ExecHandler bind_atomic(const ptx::Instruction& in, std::string& why) {
  using ptx::AtomOp;
  using ptx::Type;
  bool is_float = ptx::type_is_float(in.type);
  if (is_float && in.aop != AtomOp::Add && in.aop != AtomOp::Exch && in.aop != AtomOp::Min &&
      in.aop != AtomOp::Max) {
    why = "atomic operation not defined on floating-point types";
    return nullptr;
  }
  switch (in.type) {
    case Type::U32:
    case Type::B32: return atomic_for<S, uint32_t>(in);
    case Type::S32: return atomic_for<S, int32_t>(in);
    case Type::U64:
    case Type::B64: return atomic_for<S, uint64_t>(in);
    case Type::S64: return atomic_for<S, int64_t>(in);
    case Type::F32: return atomic_for<S, float>(in);
    case Type::F64: return atomic_for<S, double>(in);
    default:
      why = fmt::format("atomics on .{} are not supported", ptx::type_name(in.type));
      return nullptr;
  }
}

template <template <Space> class Fn>
ptx::ExecHandler by_space(Space s) {
  switch (s) {
    case Space::Global: return Fn<Space::Global>::get();
    case Space::Shared: return Fn<Space::Shared>::get();
    case Space::Local: return Fn<Space::Local>::get();
    case Space::Const: return Fn<Space::Const>::get();
    case Space::Param: return Fn<Space::Param>::get();
    case Space::Generic:
    case Space::None: return Fn<Space::Generic>::get();
    default: return nullptr;
  }
}
template <Space S>
struct LdOf {
  static ptx::ExecHandler get() { return &ld<S>; }
};
template <Space S>
struct StOf {
  static ptx::ExecHandler get() { return &st<S>; }
};

// cvta: conversions between a space's addresses and generic addresses.
template <bool ToGeneric>
void cvta_window(StepContext& c, const ptx::Instruction& in, uint64_t window) {
  const uint64_t delta = ToGeneric ? window : 0 - window;
  const uint64_t keep = ptx::type_size(in.type) == 4 ? 0xffffffffu : ~uint64_t(0);
  uint64_t* dst = c.lanes(in.ops[0].reg);
  const ptx::Operand& s = in.ops[1];
  if (s.kind == ptx::OperandKind::Reg) {
    const uint64_t* src = c.lanes(s.reg);
    for_lanes(c.mask, [&](unsigned lane) { dst[lane] = (src[lane] + delta) & keep; });
  } else {
    for_each_lane(c.mask, [&](unsigned lane) { dst[lane] = (c.src(s, lane) + delta) & keep; });
  }
}
template <bool ToGeneric>
void cvta_shared(StepContext& c, const ptx::Instruction& in) {
  cvta_window<ToGeneric>(c, in, kSharedWindow);
}
template <bool ToGeneric>
void cvta_local(StepContext& c, const ptx::Instruction& in) {
  cvta_window<ToGeneric>(c, in, kLocalWindow);
}
void cvta_identity(StepContext& c, const ptx::Instruction& in) {
  cvta_window<true>(c, in, 0);
}

void isspacep(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask, [&](unsigned lane) {
    uint64_t a = c.src(in.ops[1], lane);
    bool shared = a - kSharedWindow < kWindowSize, local = a - kLocalWindow < kWindowSize;
    bool r = in.space == Space::Shared  ? shared
             : in.space == Space::Local ? local
                                        : !shared && !local &&
                                              (in.space == Space::Global || in.space == Space::Const);
    c.set_pred(in.ops[0].reg, lane, r);
  });
}

void no_effect(StepContext&, const ptx::Instruction&) {}

}  // namespace

ptx::ExecHandler bind_memory(const ptx::Instruction& in, std::string& why) {
  using ptx::Opcode;
  switch (in.op) {
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St: {
      unsigned es = ptx::type_size(in.type);
      if (es == 0 || es > 8 || (in.vec != 1 && in.vec != 2 && in.vec != 4)) {
        why = fmt::format("{}.{} with vector width {} is not supported", ptx::opcode_name(in.op),
                          ptx::type_name(in.type), in.vec);
        return nullptr;
      }
      auto h = in.op == Opcode::St ? by_space<StOf>(in.space) : by_space<LdOf>(in.space);
      if (!h) why = fmt::format("state space .{} not supported", ptx::space_name(in.space));
      return h;
    }
    case Opcode::Atom:
    case Opcode::Red:
      switch (in.space) {
        case Space::Global: return bind_atomic<Space::Global>(in, why);
        case Space::Shared: return bind_atomic<Space::Shared>(in, why);
        case Space::None:
        case Space::Generic: return bind_atomic<Space::Generic>(in, why);
        default: why = "atomics only on global, shared or generic addresses"; return nullptr;
      }
    case Opcode::Cvta:
      switch (in.space) {
        case Space::Global:
        case Space::Const: return &cvta_identity;
        case Space::Shared: return in.cvta_to ? &cvta_shared<false> : &cvta_shared<true>;
        case Space::Local: return in.cvta_to ? &cvta_local<false> : &cvta_local<true>;
        default:
          why = fmt::format("cvta for .{} is not supported", ptx::space_name(in.space));
          return nullptr;
      }
    case Opcode::Isspacep: return &isspacep;
    case Opcode::Prefetch: return &no_effect;
    default: return nullptr;
  }
}

}  // namespace gpumux::exec
