// Carry arithmetic for multi-word integers: add.cc, addc{.cc}, sub.cc,
// subc{.cc}, mad.lo/.hi.cc, madc.lo/.hi{.cc} on .u32/.s32/.u64/.s64.
//
// The carry flag CC.CF is per-thread state: a hidden predicate of the function
// (parser.h). .cc writes it (pred_dst2); addc, subc and madc read it as their
// last operand. There is one flag, the carry of an addition, and the hardware
// subtracts by adding the complement: sub.cc computes a + ~b + 1 and subc
// a + ~b + CF, both setting CF to the carry out. So after a subtraction the
// flag is the inverted borrow (set when a >= b, unsigned), and subc is
// a - (b + borrow). The ISA text's "a - (b + CC.CF)" names the borrow but only
// agrees on chains of subtractions; nvcc's own 128-bit division reads the flag
// of a subc.cc chain with addc, and is right only with the carry.
#include <type_traits>

#include "gpumux/exec/compute/families.h"
#include "gpumux/exec/compute/lanes.h"

namespace gpumux::exec::compute {
namespace {

enum class CarryKind : uint8_t { Add, Sub, Mad };

// The low or high half of the full product a * b, as the bits of T.
template <class T, bool Hi>
std::make_unsigned_t<T> product(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if constexpr (!Hi) {
    return U(U(a) * U(b));
  } else {
    using Wide = std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                                    std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>>;
    // Sign extension above the product's width is cut off by the conversion to U.
    return U(static_cast<unsigned __int128>(Wide(a) * Wide(b)) >> (8 * sizeof(T)));
  }
}

// d = a + b + cin (Add), a + ~b + cin (Sub; cin is 1 for sub) or
// product(a, b) + c + cin (Mad); cout: the carry out of that sum.
template <class T, CarryKind K, bool Hi>
void carry_op(StepContext& ctx, const ptx::Instruction& in) {
  using U = std::make_unsigned_t<T>;
  const bool carry_in = in.op == ptx::Opcode::Addc || in.op == ptx::Opcode::Subc || in.op == ptx::Opcode::Madc;
  const uint32_t cin = carry_in ? pred_mask(ctx, in.ops[in.nops - 1]) : 0;
  const SrcLanes a(ctx, in.ops[1]), b(ctx, in.ops[2]);
  const SrcLanes c(ctx, in.ops[K == CarryKind::Mad ? 3 : 2]);  // read only by mad
  const bool write_d = in.ops[0].kind != ptx::OperandKind::Sink;
  uint64_t* d = ctx.lanes(in.ops[0].reg);
  uint32_t cout = 0;
  for_each_lane(ctx.mask, [&](unsigned l) {
    const U x = U(a[l]), y = U(b[l]);
    const U ci = carry_in ? U((cin >> l) & 1) : U(K == CarryKind::Sub);
    const U p = K == CarryKind::Mad ? product<T, Hi>(T(x), T(y)) : x;
    const U q = K == CarryKind::Mad ? U(c[l]) : K == CarryKind::Sub ? U(~y) : y;
    const U s = U(p + q);
    const U r = U(s + ci);
    const bool co = s < p || r < s;
    if (write_d) d[l] = r;
    cout |= uint32_t(co) << l;
  });
  if (in.cc) write_pred(ctx, in.pred_dst2, cout);
}

template <CarryKind K, bool Hi>
ptx::ExecHandler for_type(ptx::Type t) {
  switch (t) {
    case ptx::Type::U32: return &carry_op<uint32_t, K, Hi>;
    case ptx::Type::S32: return &carry_op<int32_t, K, Hi>;
    case ptx::Type::U64: return &carry_op<uint64_t, K, Hi>;
    case ptx::Type::S64: return &carry_op<int64_t, K, Hi>;
    default: return nullptr;
  }
}

}  // namespace

ptx::ExecHandler bind_carry(const ptx::Instruction& in, std::string& why) {
  using ptx::Opcode;
  const bool mad = in.op == Opcode::Mad || in.op == Opcode::Madc;
  const bool carry_in = in.op == Opcode::Addc || in.op == Opcode::Subc || in.op == Opcode::Madc;
  const unsigned nsrc = mad ? 3 : 2;
  if (in.rnd != ptx::Rounding::None || in.ftz || in.sat || in.approx || in.full) return reject(in, why);
  if (in.nops != 1 + nsrc + carry_in || !is_reg_dst(in.ops[0])) return reject(in, why, "unexpected operands");
  for (unsigned i = 1; i <= nsrc; ++i)
    if (!is_value_src(in.ops[i])) return reject(in, why, "unexpected operands");
  if (carry_in && in.ops[in.nops - 1].kind != ptx::OperandKind::Pred) return reject(in, why, "no carry flag");
  if (in.cc && in.pred_dst2 == ptx::kNoReg) return reject(in, why, "no carry flag");
  ptx::ExecHandler h = nullptr;
  if (in.op == Opcode::Add || in.op == Opcode::Addc) h = for_type<CarryKind::Add, false>(in.type);
  else if (in.op == Opcode::Sub || in.op == Opcode::Subc) h = for_type<CarryKind::Sub, false>(in.type);
  else if (mad && in.mul == ptx::MulMode::Lo) h = for_type<CarryKind::Mad, false>(in.type);
  else if (mad && in.mul == ptx::MulMode::Hi) h = for_type<CarryKind::Mad, true>(in.type);
  return h ? h : reject(in, why, "carry arithmetic takes .u32, .s32, .u64 or .s64 (mad: .lo or .hi)");
}

}  // namespace gpumux::exec::compute
