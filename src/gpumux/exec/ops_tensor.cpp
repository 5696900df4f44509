// Tensor-core instructions: mma.sync and ldmatrix.
//
// Fragment layouts follow the PTX ISA's figures for the sm_80 shapes. With
// g = lane / 4 and t = lane % 4, and p elements of the input type per 32-bit
// register (1 for tf32, 2 for f16/bf16, 4 for 8-bit, 8 for 4-bit, 32 for b1;
// f64 takes one 64-bit register per element):
//   A (m x k, row): register r, element j: row g (+8 if m = 16 and r is odd),
//                   column (t + 4 * (r / 2 if m = 16 else r)) * p + j
//   B (k x n, col): register r, element j: row (t + 4 * r) * p + j, column g
//   C, D (m x n):   element e: row g (+8 if e >= 2), column 2t + e % 2;
//                   f16 packs elements 2i and 2i+1 into register i.
// Floating-point products are exact and summed in double in k order with C,
// then rounded once to the destination type (hardware may round partial sums
// differently; inputs whose sums are exact give identical results). tf32
// inputs use the top 19 bits of their f32 registers. Integer sums wrap
// (.satfinite: saturate) in 32 bits.
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "gpumux/exec/address_space.h"
#include "gpumux/exec/bind_tables.h"
#include "gpumux/exec/thread_block.h"
#include "gpumux/exec/compute/half.h"
#include "gpumux/exec/shared_operand.h"
#include "gpumux/ptx/parse_async_tensor.h"

namespace gpumux::exec {

namespace {

using ptx::MmaType;

constexpr unsigned kMaxDim = 16;    // m and n
constexpr unsigned kMaxK = 256;     // b1 m16n8k256

// Element j of a 32-bit (or 64-bit for f64) register value, as a number.
double float_element(MmaType t, uint64_t reg, unsigned j) {
  switch (t) {
    case MmaType::F16: return compute::to_double(compute::Half{uint16_t(reg >> (16 * j))});
    case MmaType::BF16: return compute::to_double(compute::BFloat16{uint16_t(reg >> (16 * j))});
    case MmaType::Tf32: return std::bit_cast<float>(uint32_t(reg) & 0xffffe000u);
    case MmaType::F32: return std::bit_cast<float>(uint32_t(reg));
    default: return std::bit_cast<double>(reg);  // F64
  }
}

int64_t int_element(MmaType t, uint64_t reg, unsigned j) {
  switch (t) {
    case MmaType::S8: return int8_t(reg >> (8 * j));
    case MmaType::U8: return uint8_t(reg >> (8 * j));
    case MmaType::S4: return int64_t(int8_t(uint8_t(reg >> (4 * j)) << 4) >> 4);
    case MmaType::U4: return (reg >> (4 * j)) & 0xf;
    case MmaType::B1: return (reg >> j) & 1;
    default: return int32_t(uint32_t(reg));  // S32
  }
}

struct Matrices {
  double fa[kMaxDim][kMaxK], fb[kMaxK][kMaxDim], fc[kMaxDim][kMaxDim];
  int64_t ia[kMaxDim][kMaxK], ib[kMaxK][kMaxDim], ic[kMaxDim][kMaxDim];
};

template <bool Float>
void gather(const StepContext& c, const ptx::Instruction& in, Matrices& x) {
  const ptx::TensorOp& t = in.tensor;
  const unsigned bits = ptx::mma_type_bits(t.a);
  const unsigned p = bits >= 32 ? 1 : 32 / bits;
  const unsigned ra = ptx::mma_fragment_regs(t, 'a'), rb = ptx::mma_fragment_regs(t, 'b');
  const bool m16 = t.m == 16;
  const bool c_half = t.c == MmaType::F16;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned g = lane / 4, q = lane % 4;
    for (unsigned r = 0; r < ra; ++r) {
      const uint64_t v = c.regs[size_t(in.ops[1].vec[r]) * kWarpSize + lane];
      const unsigned row = g + (m16 && (r & 1) ? 8 : 0);
      const unsigned chunk = q + 4 * (m16 ? r / 2 : r);
      for (unsigned j = 0; j < p; ++j) {
        if constexpr (Float) x.fa[row][chunk * p + j] = float_element(t.a, v, j);
        else x.ia[row][chunk * p + j] = int_element(t.a, v, j);
      }
    }
    for (unsigned r = 0; r < rb; ++r) {
      const uint64_t v = c.regs[size_t(in.ops[2].vec[r]) * kWarpSize + lane];
      for (unsigned j = 0; j < p; ++j) {
        if constexpr (Float) x.fb[(q + 4 * r) * p + j][g] = float_element(t.b, v, j);
        else x.ib[(q + 4 * r) * p + j][g] = int_element(t.b, v, j);
      }
    }
    const unsigned elems = unsigned(t.m) * t.n / kWarpSize;
    for (unsigned e = 0; e < elems; ++e) {
      const unsigned row = g + (e >= 2 ? 8 : 0), col = 2 * q + e % 2;
      const uint64_t v = c.regs[size_t(in.ops[3].vec[c_half ? e / 2 : e]) * kWarpSize + lane];
      if constexpr (Float) x.fc[row][col] = float_element(t.c, v, c_half ? e % 2 : 0);
      else x.ic[row][col] = int_element(MmaType::S32, v, 0);
    }
  }
}

template <bool Float>
void mma(StepContext& c, const ptx::Instruction& in) {
  if (c.mask != kFullMask) c.fault("mma.sync needs all 32 lanes of the warp (it is .aligned)");
  const ptx::TensorOp& t = in.tensor;
  static thread_local Matrices x;
  gather<Float>(c, in, x);
  const bool d_half = t.d == MmaType::F16;
  const unsigned elems = unsigned(t.m) * t.n / kWarpSize;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const unsigned g = lane / 4, q = lane % 4;
    for (unsigned e = 0; e < elems; ++e) {
      const unsigned row = g + (e >= 2 ? 8 : 0), col = 2 * q + e % 2;
      uint64_t out;
      if constexpr (Float) {
        double acc = x.fc[row][col];
        if (t.d == MmaType::F64)
          for (unsigned k = 0; k < t.k; ++k) acc = std::fma(x.fa[row][k], x.fb[k][col], acc);
        else
          for (unsigned k = 0; k < t.k; ++k) acc += x.fa[row][k] * x.fb[k][col];
        out = d_half ? compute::from_double<compute::Half>(acc).bits
              : t.d == MmaType::F32 ? std::bit_cast<uint32_t>(float(acc))
                                    : std::bit_cast<uint64_t>(acc);
      } else {
        int64_t acc = x.ic[row][col];
        for (unsigned k = 0; k < t.k; ++k) {
          if (t.a == MmaType::B1)
            acc += t.bitop == ptx::AtomOp::Xor ? (x.ia[row][k] ^ x.ib[k][col]) : (x.ia[row][k] & x.ib[k][col]);
          else
            acc += x.ia[row][k] * x.ib[k][col];
        }
        if (t.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        out = uint32_t(int32_t(uint32_t(acc)));
      }
      uint64_t& dst = c.regs[size_t(in.ops[0].vec[d_half ? e / 2 : e]) * kWarpSize + lane];
      if (d_half) {
        const unsigned shift = 16 * (e % 2);
        dst = (e % 2 ? dst & 0xffffu : 0) | (out << shift);
      } else {
        dst = out;
      }
    }
  }
}

// ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16: lanes 8i..8i+7 give the
// row addresses of matrix i (16 bytes each); register i of lane l receives
// row l/4, columns 2(l%4) and 2(l%4)+1 (.trans: the transposed matrix's).
void ldmatrix(StepContext& c, const ptx::Instruction& in) {
  const unsigned n = in.tensor.count;
  const uint32_t need = n == 4 ? kFullMask : (1u << (8 * n)) - 1;
  if ((c.mask & need) != need) c.fault(fmt::format("ldmatrix .x{} needs lanes 0-{} to give row addresses", n, 8 * n - 1));
  const uint8_t* rows[32];
  const bool rec = c.warp->recording();
  for (unsigned lane = 0; lane < 8 * n; ++lane) {
    uint64_t off;
    rows[lane] = shared_at(c, in.space, in.ops[1], lane, 16, off);
    if (rec) {
      MemAccess& m = c.warp->access();
      m.space = ptx::Space::Shared;
      m.bytes = 16;
      m.is_store = false;
      m.is_atomic = false;
      m.mask |= 1u << lane;
      m.addr[lane] = off;
    }
  }
  for_each_lane(c.mask, [&](unsigned lane) {
    const unsigned g = lane / 4, q = lane % 4;
    for (unsigned i = 0; i < n; ++i) {
      uint32_t v;
      if (in.tensor.trans) {
        uint16_t lo, hi;
        std::memcpy(&lo, rows[8 * i + 2 * q] + 2 * g, 2);
        std::memcpy(&hi, rows[8 * i + 2 * q + 1] + 2 * g, 2);
        v = uint32_t(lo) | uint32_t(hi) << 16;
      } else {
        std::memcpy(&v, rows[8 * i + g] + 4 * q, 4);
      }
      c.regs[size_t(in.ops[0].vec[i]) * kWarpSize + lane] = v;
    }
  });
}

// wmma fragments are opaque in the PTX ISA. Here element j of lane l's
// fragment (p elements per register, as for mma) is element (32 j + l) mod
// (rows * cols) of the fragment's matrix in row-major order: f16 A/B
// fragments (16 elements per lane) hold every element twice.
struct WmmaFragment {
  const ptx::Operand& regs;
  ptx::MmaType type;
  unsigned rows, cols, bits, per_reg, count;  // count: elements per lane
  WmmaFragment(const ptx::Instruction& in, const ptx::Operand& o, char which) : regs(o) {
    const ptx::TensorOp& t = in.tensor;
    type = which == 'a' ? t.a : which == 'b' ? t.b : which == 'c' ? t.c : t.d;
    rows = which == 'b' ? t.k : t.m;
    cols = which == 'a' ? t.k : t.n;
    bits = ptx::mma_type_bits(type);
    per_reg = bits >= 32 ? 1 : 32 / bits;
    count = ptx::wmma_fragment_regs(t, which) * per_reg;
  }
  unsigned flat(unsigned lane, unsigned j) const { return (32 * j + lane) % (rows * cols); }
  uint64_t get(const StepContext& c, unsigned lane, unsigned j) const {
    const uint64_t v = c.regs[size_t(regs.vec[j / per_reg]) * kWarpSize + lane];
    return bits >= 64 ? v : (v >> (bits * (j % per_reg))) & ((uint64_t(1) << bits) - 1);
  }
  void put(StepContext& c, unsigned lane, unsigned j, uint64_t x) const {
    uint64_t& v = c.regs[size_t(regs.vec[j / per_reg]) * kWarpSize + lane];
    if (bits >= 32) {
      v = x;
      return;
    }
    const unsigned shift = bits * (j % per_reg);
    const uint64_t mask = ((uint64_t(1) << bits) - 1) << shift;
    v = (j % per_reg == 0 ? 0 : v & ~mask) | ((x << shift) & mask);
  }
};

// The bytes of memory holding `bytes` at address `addr` of the wmma's space.
uint8_t* wmma_memory(StepContext& c, ptx::Space space, uint64_t addr, uint32_t bytes, unsigned lane, ptx::Space& resolved) {
  if (space == ptx::Space::Generic) {
    space = addr - kSharedWindow < kWindowSize ? ptx::Space::Shared : ptx::Space::Global;
    if (space == ptx::Space::Shared) addr -= kSharedWindow;
  }
  resolved = space;
  if (space == ptx::Space::Shared) {
    std::vector<uint8_t>& sh = c.warp->tb().shared();
    if (addr + bytes > sh.size()) c.fault(fmt::format("wmma shared-memory access out of bounds at 0x{:x}", addr), lane);
    return sh.data() + addr;
  }
  const GridLaunch& launch = c.warp->tb().launch();
  uint8_t* p = launch.mem->translate(addr, bytes);
  if (!p) c.fault(fmt::format("invalid wmma global access: {}", launch.mem->explain(addr, bytes)), lane);
  return p;
}

// wmma.load.{a,b,c} / wmma.store.d: element (r, c) at base + (r * ldm + c)
// elements (.row) or base + (c * ldm + r) (.col).
template <bool Store>
void wmma_memory_op(StepContext& c, const ptx::Instruction& in) {
  if (c.mask != kFullMask) c.fault("wmma needs all 32 lanes of the warp (it is .aligned)");
  const ptx::TensorOp& t = in.tensor;
  const char which = Store ? 'd' : t.wmma == ptx::WmmaOp::LoadA ? 'a' : t.wmma == ptx::WmmaOp::LoadB ? 'b' : 'c';
  const ptx::Operand& addr_op = in.ops[Store ? 0 : 1];
  const WmmaFragment f(in, in.ops[Store ? 1 : 0], which);
  const bool col = t.a_col;
  const uint64_t ldm = in.nops == 3 ? c.src(in.ops[2], 0) & 0xffffffffu : (col ? f.rows : f.cols);
  const uint64_t base = operand_address(c, addr_op, 0) & (in.space == ptx::Space::Shared ? 0xffffffffu : ~0ull);
  auto element_bits = [&](unsigned flat) {
    const uint64_t r = flat / f.cols, cc = flat % f.cols;
    return (col ? cc * ldm + r : r * ldm + cc) * f.bits;
  };
  ptx::Space resolved = in.space;
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned j = 0; j < f.count; ++j) {
      const uint64_t bit = element_bits(f.flat(lane, j));
      const uint32_t bytes = std::max(1u, f.bits / 8);
      uint8_t* p = wmma_memory(c, in.space, base + bit / 8, bytes, lane, resolved);
      uint64_t v = 0;
      if constexpr (Store) {
        v = f.get(c, lane, j);
        if (f.bits < 8) {
          const unsigned shift = unsigned(bit % 8);
          *p = uint8_t((*p & ~(((1u << f.bits) - 1) << shift)) | (v << shift));
        } else {
          std::memcpy(p, &v, bytes);
        }
      } else {
        std::memcpy(&v, p, bytes);
        if (f.bits < 8) v = (v >> (bit % 8)) & ((1u << f.bits) - 1);
        f.put(c, lane, j, v);
      }
    }
  if (c.warp->recording()) {  // lane l: the l-th 32nd of the matrix, in memory order
    MemAccess& m = c.warp->access();
    const unsigned chunk = f.rows * f.cols / kWarpSize;
    m.space = resolved;
    m.bytes = std::max(1u, chunk * f.bits / 8);
    m.is_store = Store;
    m.is_atomic = false;
    m.mask = kFullMask;
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      const unsigned k = lane * chunk;  // flat index in memory order
      const uint64_t major = col ? k / f.rows : k / f.cols, minor = col ? k % f.rows : k % f.cols;
      uint64_t a = base + (major * ldm + minor) * f.bits / 8;
      if (resolved == ptx::Space::Shared && in.space == ptx::Space::Generic) a -= kSharedWindow;
      m.addr[lane] = a;
    }
  }
}

// wmma.mma: D = A * B + C over the fragments' matrices, computed like mma.sync.
void wmma_mma(StepContext& c, const ptx::Instruction& in) {
  if (c.mask != kFullMask) c.fault("wmma needs all 32 lanes of the warp (it is .aligned)");
  const ptx::TensorOp& t = in.tensor;
  const WmmaFragment fd(in, in.ops[0], 'd'), fa(in, in.ops[1], 'a'), fb(in, in.ops[2], 'b'), fc(in, in.ops[3], 'c');
  const bool is_float = t.a == MmaType::F16 || t.a == MmaType::BF16 || t.a == MmaType::Tf32 || t.a == MmaType::F64;
  static thread_local std::vector<double> A, B, C;
  A.assign(size_t(t.m) * t.k, 0);
  B.assign(size_t(t.k) * t.n, 0);
  C.assign(size_t(t.m) * t.n, 0);
  auto gather = [&](const WmmaFragment& f, std::vector<double>& out) {
    for (unsigned lane = 0; lane < kWarpSize; ++lane)
      for (unsigned j = 0; j < f.count; ++j) {
        const uint64_t raw = f.get(c, lane, j);
        const bool accum = &f == &fc;
        out[f.flat(lane, j)] = is_float ? float_element(f.type, raw, 0)
                                        : double(int_element(accum ? MmaType::S32 : f.type, raw, 0));
      }
  };
  gather(fa, A);
  gather(fb, B);
  gather(fc, C);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned j = 0; j < fd.count; ++j) {
      const unsigned e = fd.flat(lane, j), row = e / t.n, col = e % t.n;
      uint64_t out;
      if (is_float) {
        double acc = C[e];
        for (unsigned k = 0; k < t.k; ++k)
          acc = t.d == MmaType::F64 ? std::fma(A[row * t.k + k], B[k * t.n + col], acc)
                                    : acc + A[row * t.k + k] * B[k * t.n + col];
        out = t.d == MmaType::F16   ? compute::from_double<compute::Half>(acc).bits
              : t.d == MmaType::F32 ? std::bit_cast<uint32_t>(float(acc))
                                    : std::bit_cast<uint64_t>(acc);
      } else {
        int64_t acc = int64_t(C[e]);
        for (unsigned k = 0; k < t.k; ++k) {
          const int64_t x = int64_t(A[row * t.k + k]), y = int64_t(B[k * t.n + col]);
          acc += t.a != MmaType::B1 ? x * y : t.bitop == ptx::AtomOp::Xor ? (x ^ y) : (x & y);
        }
        if (t.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        out = uint32_t(acc);
      }
      fd.put(c, lane, j, out);
    }
}

// cvt.rna.tf32.f32: f32 rounded to the 10-bit mantissa of tf32, ties away
// from zero; the result is an f32 bit pattern with the low 13 bits clear.
void cvt_rna_tf32(StepContext& c, const ptx::Instruction& in) {
  for_each_lane(c.mask, [&](unsigned lane) {
    uint32_t x = uint32_t(c.src(in.ops[1], lane));
    if ((x & 0x7f800000u) != 0x7f800000u) x += 0x1000u;  // finite: add half an ulp (a carry may reach inf)
    else if (x & 0x7fffffu) x |= 0x400000u;              // NaN stays NaN after truncation
    c.regs[size_t(in.ops[0].reg) * kWarpSize + lane] = x & 0xffffe000u;
  });
}

}  // namespace

ptx::ExecHandler bind_tensor(const ptx::Instruction& in, std::string& why) {
  // Every shape and type the parser accepts (ptx::mma_fragment_regs) executes.
  if (in.op == ptx::Opcode::Ldmatrix) {
    if (in.space != ptx::Space::Shared && in.space != ptx::Space::Generic) {
      why = "ldmatrix reads shared memory";
      return nullptr;
    }
    return &ldmatrix;
  }
  if (in.op == ptx::Opcode::Cvt && in.tensor.d == MmaType::Tf32) {
    if (in.type2 != ptx::Type::F32 || in.rnd != ptx::Rounding::Rna) {
      why = "cvt to tf32 is defined from .f32 with .rna";
      return nullptr;
    }
    return &cvt_rna_tf32;
  }
  if (in.op == ptx::Opcode::Wmma) {
    switch (in.tensor.wmma) {
      case ptx::WmmaOp::Mma: return &wmma_mma;
      case ptx::WmmaOp::StoreD: return &wmma_memory_op<true>;
      default: return &wmma_memory_op<false>;
    }
  }
  if (in.op != ptx::Opcode::Mma) return nullptr;
  switch (in.tensor.a) {
    case MmaType::F16:
    case MmaType::BF16:
    case MmaType::Tf32:
    case MmaType::F64: return &mma<true>;
    default: return &mma<false>;
  }
}

}  // namespace gpumux::exec
